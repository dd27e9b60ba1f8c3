//! The pipeline's `DeliveryLog` on a store type, with the statements and rows of
//! [`deliveries`](crate::deliveries).

/// Implements `DeliveryLog` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! impl_deliveries {
    ($store:ty, $dialect:ident) => {
        impl $store {
            /// Records `attempt` on `conn`.
            async fn insert_attempt(
                conn: &mut <Db as sqlx::Database>::Connection,
                attempt: &DeliveryAttempt,
            ) -> Result<(), StoreError> {
                sqlx::query($crate::deliveries::INSERT_ATTEMPT)
                    .bind(attempt.token.0)
                    .bind(to_i32(attempt.attempt))
                    .bind(Self::to_time(attempt.at))
                    .bind(attempt.status.map(i32::from))
                    .bind(to_i64(attempt.latency_ms))
                    .bind(attempt.error.map(DeliveryErrorKind::as_str))
                    .execute(&mut *conn)
                    .await
                    .map_err(Self::db_error)?;
                Ok(())
            }
        }

        #[async_trait]
        impl DeliveryLog for $store {
            async fn record_attempt(&self, attempt: &DeliveryAttempt) -> Result<(), StoreError> {
                let mut conn = self.writer().acquire().await.map_err(Self::db_error)?;
                Self::insert_attempt(&mut conn, attempt).await
            }

            async fn list_requests(
                &self,
                key: KeyId,
                limit: usize,
            ) -> Result<Vec<RequestSummary>, StoreError> {
                let rows: Vec<$crate::deliveries::SummaryRow<Time>> =
                    sqlx::query_as($crate::deliveries::REQUESTS_OF_KEY)
                        .bind(key.0)
                        .bind(to_i64(limit as u64))
                        .fetch_all(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                rows.into_iter()
                    .map($crate::deliveries::summary::<Self>)
                    .collect()
            }

            async fn list_attempts(
                &self,
                key: KeyId,
                token: Token,
            ) -> Result<Vec<DeliveryAttempt>, StoreError> {
                let rows: Vec<$crate::deliveries::AttemptRow<Time>> =
                    sqlx::query_as($crate::deliveries::ATTEMPTS_OF_REQUEST)
                        .bind(token.0)
                        .bind(key.0)
                        .fetch_all(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                rows.into_iter()
                    .map($crate::deliveries::attempt::<Self>)
                    .collect()
            }

            async fn activity(
                &self,
                key: KeyId,
                window: &ActivityWindow,
            ) -> Result<Activity, StoreError> {
                let since = Self::to_time(window.since);
                let until = Self::to_time(window.until());
                let width = i64::from(window.bucket_seconds);
                let requests: Vec<$crate::deliveries::RequestTallyRow> =
                    sqlx::query_as($crate::deliveries::$dialect::REQUEST_ACTIVITY)
                        .bind(key.0)
                        .bind(since)
                        .bind(width)
                        .bind(until)
                        .fetch_all(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                let attempts: Vec<$crate::deliveries::AttemptTallyRow> =
                    sqlx::query_as($crate::deliveries::$dialect::ATTEMPT_ACTIVITY)
                        .bind(key.0)
                        .bind(since)
                        .bind(width)
                        .bind(until)
                        .fetch_all(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                $crate::deliveries::activity(requests, attempts)
            }

            async fn record_test(&self, test: &TestDelivery) -> Result<(), StoreError> {
                // The insert and the pruning commit together: readers never see the key's
                // newest test without its oldest forgotten.
                let mut tx = self.begin_write().await?;
                sqlx::query($crate::deliveries::INSERT_TEST)
                    .bind(test.token.0)
                    .bind(test.key.0)
                    .bind(Self::to_time(test.at))
                    .bind(&test.url)
                    .bind(test.status.map(i32::from))
                    .bind(to_i64(test.latency_ms))
                    .bind(test.error.map(DeliveryErrorKind::as_str))
                    .execute(&mut *tx)
                    .await
                    .map_err(Self::db_error)?;
                sqlx::query($crate::deliveries::PRUNE_TESTS)
                    .bind(test.key.0)
                    .bind(to_i64(TEST_DELIVERIES_KEPT as u64))
                    .execute(&mut *tx)
                    .await
                    .map_err(Self::db_error)?;
                tx.commit().await.map_err(Self::db_error)
            }

            async fn list_tests(
                &self,
                key: KeyId,
                limit: usize,
            ) -> Result<Vec<TestDelivery>, StoreError> {
                let rows: Vec<$crate::deliveries::TestRow<Time>> =
                    sqlx::query_as($crate::deliveries::TESTS_OF_KEY)
                        .bind(key.0)
                        .bind(to_i64(limit as u64))
                        .fetch_all(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                rows.into_iter()
                    .map($crate::deliveries::test_delivery::<Self>)
                    .collect()
            }
        }
    };
}
