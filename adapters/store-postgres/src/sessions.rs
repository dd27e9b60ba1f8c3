//! Dashboard sessions: the session store.

use alerts_core::ports::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ids::AccountId;
use identity_core::ports::{Session, SessionStore};
use uuid::Uuid;

use crate::{PgStore, db_error, db_error_or_conflict};

#[async_trait]
impl SessionStore for PgStore {
    async fn create_session(&self, session: &Session) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO sessions (id_hash, account_id, csrf_secret, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&session.id_hash)
        .bind(session.account_id.0)
        .bind(&session.csrf_secret)
        .bind(session.created_at)
        .bind(session.expires_at)
        .execute(&self.pool)
        .await
        .map_err(db_error_or_conflict(|| {
            "the session exists already".to_owned()
        }))?;
        Ok(())
    }

    async fn session(
        &self,
        id_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Session>, StoreError> {
        let row: Option<(String, Uuid, String, DateTime<Utc>, DateTime<Utc>)> = sqlx::query_as(
            "SELECT id_hash, account_id, csrf_secret, created_at, expires_at FROM sessions \
             WHERE id_hash = $1 AND expires_at > $2",
        )
        .bind(id_hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(row.map(
            |(id_hash, account, csrf_secret, created_at, expires_at)| Session {
                id_hash,
                account_id: AccountId(account),
                csrf_secret,
                created_at,
                expires_at,
            },
        ))
    }

    async fn delete_session(&self, id_hash: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM sessions WHERE id_hash = $1")
            .bind(id_hash)
            .execute(&self.pool)
            .await
            .map_err(db_error)?;
        Ok(())
    }

    async fn delete_account_sessions(
        &self,
        account: AccountId,
        except: Option<&str>,
    ) -> Result<u64, StoreError> {
        // `IS DISTINCT FROM` compares NULL as a value: without `except`, every session goes.
        let done = sqlx::query(
            "DELETE FROM sessions WHERE account_id = $1 AND id_hash IS DISTINCT FROM $2",
        )
        .bind(account.0)
        .bind(except)
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(done.rows_affected())
    }

    async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(now)
            .execute(&self.pool)
            .await
            .map_err(db_error)?;
        Ok(done.rows_affected())
    }
}
