//! The delivery log: every delivery attempt, and the listings and activity the dashboard
//! shows, for [`sql_store!`](crate::sql_store).

/// Implements `DeliveryLog` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! deliveries_sql {
    ($store:ty, $dialect:ident) => {
        impl $store {
            /// Records `attempt` on `conn`; an attempt recorded already is kept as it was.
            async fn insert_attempt(
                conn: &mut <Db as sqlx::Database>::Connection,
                attempt: &DeliveryAttempt,
            ) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO delivery_attempts \
                     (token, attempt, at, status, latency_ms, error) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (token, attempt) DO NOTHING",
                )
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
                let rows: Vec<rows::SummaryRow<Time>> = sqlx::query_as(
                    "SELECT r.token, r.received_at, r.point_count, j.alerts, j.stage, \
                            j.outcome, j.attempts \
                     FROM alert_requests r JOIN alert_jobs j ON j.token = r.token \
                     WHERE r.key_id = $1 ORDER BY r.received_at DESC, r.token DESC LIMIT $2",
                )
                .bind(key.0)
                .bind(to_i64(limit as u64))
                .fetch_all(self.pool())
                .await
                .map_err(Self::db_error)?;
                rows.into_iter().map(rows::summary::<Self>).collect()
            }

            async fn list_attempts(
                &self,
                key: KeyId,
                token: Token,
            ) -> Result<Vec<DeliveryAttempt>, StoreError> {
                let rows: Vec<rows::AttemptRow<Time>> = sqlx::query_as(
                    "SELECT a.token, a.attempt, a.at, a.status, a.latency_ms, a.error \
                     FROM delivery_attempts a JOIN alert_requests r ON r.token = a.token \
                     WHERE a.token = $1 AND r.key_id = $2 ORDER BY a.attempt",
                )
                .bind(token.0)
                .bind(key.0)
                .fetch_all(self.pool())
                .await
                .map_err(Self::db_error)?;
                rows.into_iter().map(rows::attempt::<Self>).collect()
            }

            async fn activity(
                &self,
                key: KeyId,
                window: &ActivityWindow,
            ) -> Result<Activity, StoreError> {
                let since = Self::to_time(window.since);
                let until = Self::to_time(window.until());
                let width = i64::from(window.bucket_seconds);
                let requests: Vec<rows::RequestTallyRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::dialect_sql!($dialect, activity_bucket("r.received_at")),
                    " AS bucket, COUNT(*), CAST(COALESCE(SUM(j.alerts), 0) AS BIGINT) \
                     FROM alert_requests r JOIN alert_jobs j ON j.token = r.token \
                     WHERE r.key_id = $1 AND r.received_at >= $2 AND r.received_at < $4 \
                     GROUP BY bucket"
                ))
                .bind(key.0)
                .bind(since)
                .bind(width)
                .bind(until)
                .fetch_all(self.pool())
                .await
                .map_err(Self::db_error)?;
                let attempts: Vec<rows::AttemptTallyRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::dialect_sql!($dialect, activity_bucket("a.at")),
                    " AS bucket, a.status, a.error, COUNT(*), \
                     CAST(SUM(a.latency_ms) AS BIGINT), MAX(a.latency_ms) \
                     FROM delivery_attempts a JOIN alert_requests r ON r.token = a.token \
                     WHERE r.key_id = $1 AND a.at >= $2 AND a.at < $4 \
                     GROUP BY bucket, a.status, a.error"
                ))
                .bind(key.0)
                .bind(since)
                .bind(width)
                .bind(until)
                .fetch_all(self.pool())
                .await
                .map_err(Self::db_error)?;
                Ok(Activity {
                    requests: requests
                        .into_iter()
                        .map(rows::request_tally)
                        .collect::<Result<_, _>>()?,
                    attempts: attempts
                        .into_iter()
                        .map(rows::attempt_tally)
                        .collect::<Result<_, _>>()?,
                }
                .sorted())
            }
        }
    };
}
