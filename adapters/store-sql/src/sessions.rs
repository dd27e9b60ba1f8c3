//! Dashboard sessions: identity's session store, for [`sql_store!`](crate::sql_store).

/// Implements `SessionStore` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! sessions_sql {
    ($store:ty, $dialect:ident) => {
        #[async_trait]
        impl SessionStore for $store {
            async fn create_session(&self, session: &Session) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO sessions (id_hash, account_id, csrf_secret, created_at, \
                     expires_at) VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(&session.id_hash)
                .bind(session.account_id.0)
                .bind(&session.csrf_secret)
                .bind(Self::to_time(session.created_at))
                .bind(Self::to_time(session.expires_at))
                .execute(self.writer())
                .await
                .map_err(Self::db_error_or_conflict(|| {
                    "the session exists already".to_owned()
                }))?;
                Ok(())
            }

            async fn session(
                &self,
                id_hash: &str,
                now: DateTime<Utc>,
            ) -> Result<Option<Session>, StoreError> {
                let row: Option<rows::SessionRow<Time>> = sqlx::query_as(
                    "SELECT id_hash, account_id, csrf_secret, created_at, expires_at \
                     FROM sessions WHERE id_hash = $1 AND expires_at > $2",
                )
                .bind(id_hash)
                .bind(Self::to_time(now))
                .fetch_optional(self.pool())
                .await
                .map_err(Self::db_error)?;
                row.map(rows::session::<Self>).transpose()
            }

            async fn delete_session(&self, id_hash: &str) -> Result<(), StoreError> {
                sqlx::query("DELETE FROM sessions WHERE id_hash = $1")
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
                // `IS DISTINCT FROM` compares NULL as a value: without `except`, every session
                // of the account goes.
                let done = sqlx::query(
                    "DELETE FROM sessions WHERE account_id = $1 AND id_hash IS DISTINCT FROM $2",
                )
                .bind(account.0)
                .bind(except)
                .execute(self.writer())
                .await
                .map_err(Self::db_error)?;
                Ok(done.rows_affected())
            }

            async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
                let done = sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
                    .bind(Self::to_time(now))
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                Ok(done.rows_affected())
            }
        }
    };
}
