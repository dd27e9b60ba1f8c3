//! Dashboard sessions: the [`SessionStore`] port.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ids::AccountId;

use super::StoreError;

/// A signed-in dashboard session. The session id itself lives only in the browser's cookie:
/// the store keeps its SHA-256, so a copy of the database does not let anyone sign in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Lower-case hex of the SHA-256 of the session id.
    pub id_hash: String,
    /// The signed-in account.
    pub account_id: AccountId,
    /// The per-session secret that the dashboard's CSRF tokens are derived from.
    pub csrf_secret: String,
    /// When the session was created.
    pub created_at: DateTime<Utc>,
    /// When the session stops being valid.
    pub expires_at: DateTime<Utc>,
}

/// Stores dashboard sessions, so that they survive restarts and every replica sees them.
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// Stores a new session. [`StoreError::Conflict`] when the hash exists already.
    async fn create_session(&self, session: &Session) -> Result<(), StoreError>;

    /// The session with this id hash, unless it has expired at `now`.
    async fn session(
        &self,
        id_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Session>, StoreError>;

    /// Deletes a session (signing out); deleting a missing session succeeds.
    async fn delete_session(&self, id_hash: &str) -> Result<(), StoreError>;

    /// Deletes every session of `account` but the one whose id hash is `except` (the session
    /// that asks, when a signed-in user ends their other sessions); returns how many. Ending
    /// them in the store ends them on every replica at once. An account without sessions is no
    /// error.
    async fn delete_account_sessions(
        &self,
        account: AccountId,
        except: Option<&str>,
    ) -> Result<u64, StoreError>;

    /// Deletes the sessions that expired at or before `now`; returns how many.
    async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<u64, StoreError>;
}
