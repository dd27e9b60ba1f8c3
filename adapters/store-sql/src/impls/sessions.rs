//! Identity's `SessionStore` on a store type, with the statements and rows of
//! [`sessions`](crate::sessions).

/// Implements `SessionStore` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! impl_sessions {
    ($store:ty, $dialect:ident) => {
        #[async_trait]
        impl SessionStore for $store {
            async fn create_session(&self, session: &Session) -> Result<(), StoreError> {
                let done = sqlx::query($crate::sessions::$dialect::INSERT_SESSION)
                    .bind(&session.id_hash)
                    .bind(session.account_id.0)
                    .bind(&session.csrf_secret)
                    .bind(session.credential_version)
                    .bind(Self::to_time(session.created_at))
                    .bind(Self::to_time(session.expires_at))
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error_or_conflict(|| {
                        "the session exists already".to_owned()
                    }))?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::CredentialsChanged);
                }
                Ok(())
            }

            async fn session(
                &self,
                id_hash: &str,
                now: DateTime<Utc>,
            ) -> Result<Option<Session>, StoreError> {
                let row: Option<$crate::sessions::SessionRow<Time>> =
                    sqlx::query_as($crate::sessions::SESSION)
                        .bind(id_hash)
                        .bind(Self::to_time(now))
                        .fetch_optional(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                row.map($crate::sessions::session::<Self>).transpose()
            }

            async fn delete_session(&self, id_hash: &str) -> Result<(), StoreError> {
                sqlx::query($crate::sessions::DELETE_SESSION)
                    .bind(id_hash)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                Ok(())
            }

            async fn delete_account_sessions(
                &self,
                account: AccountId,
                except: Option<&str>,
            ) -> Result<u64, StoreError> {
                let done = sqlx::query($crate::sessions::DELETE_ACCOUNT_SESSIONS)
                    .bind(account.0)
                    .bind(except)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                Ok(done.rows_affected())
            }

            async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
                let done = sqlx::query($crate::sessions::DELETE_EXPIRED_SESSIONS)
                    .bind(Self::to_time(now))
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                Ok(done.rows_affected())
            }
        }
    };
}
