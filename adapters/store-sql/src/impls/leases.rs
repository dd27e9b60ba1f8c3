//! Identity's `LeaseStore` on a store type, with the statements of
//! [`leases`](crate::leases).

/// Implements `LeaseStore` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! impl_leases {
    ($store:ty) => {
        #[async_trait]
        impl LeaseStore for $store {
            async fn take_lease(
                &self,
                name: &str,
                holder: &str,
                now: DateTime<Utc>,
                until: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                let taken: Option<String> = sqlx::query_scalar($crate::leases::TAKE_LEASE)
                    .bind(name)
                    .bind(holder)
                    .bind(Self::to_time(now))
                    .bind(Self::to_time(until))
                    .fetch_optional(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                Ok(taken.is_some())
            }

            async fn release_lease(&self, name: &str, holder: &str) -> Result<(), StoreError> {
                sqlx::query($crate::leases::RELEASE_LEASE)
                    .bind(name)
                    .bind(holder)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                Ok(())
            }
        }
    };
}
