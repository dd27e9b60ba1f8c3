//! The pipeline's `SentChanges` on a store type, with the statements and rows of
//! [`sent`](crate::sent). Writing told changes is the store's own
//! ([`SqlDialect::write_sent`](crate::SqlDialect::write_sent)).

/// Implements `SentChanges` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! impl_sent {
    ($store:ty, $dialect:ident) => {
        #[async_trait]
        impl SentChanges for $store {
            async fn sent_changes(
                &self,
                key: KeyId,
                point_ids: &[&str],
                now: DateTime<Utc>,
            ) -> Result<Vec<SentChange>, StoreError> {
                if point_ids.is_empty() {
                    return Ok(Vec::new());
                }
                let rows: Vec<$crate::sent::SentRow<Time>> =
                    sqlx::query_as($crate::sent::$dialect::SENT_CHANGES)
                        .bind(key.0)
                        .bind($crate::sent::point_ids_json(point_ids)?)
                        .bind(Self::to_time(now))
                        .fetch_all(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                rows.into_iter()
                    .map($crate::sent::sent_change::<Self>)
                    .collect()
            }

            async fn record_sent(
                &self,
                token: Token,
                key: KeyId,
                changes: &[SentChange],
            ) -> Result<(), StoreError> {
                self.write_sent(token, key, changes).await
            }
        }
    };
}
