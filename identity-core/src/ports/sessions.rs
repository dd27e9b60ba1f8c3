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
    /// The account's [`credential_version`](super::Account::credential_version) when its
    /// password was checked for this session.
    pub credential_version: i64,
    /// When the session was created.
    pub created_at: DateTime<Utc>,
    /// When the session stops being valid.
    pub expires_at: DateTime<Utc>,
}

/// Stores dashboard sessions, so that they survive restarts and every replica sees them.
///
/// A session is bound to the password it was signed in with: it is stored only while that
/// password is still the account's, and it is found only as long as it stays so. A sign-in that
/// checked the old password just before a change therefore cannot leave a session behind the
/// change, whichever replica it ran on and in whatever order the two writes land.
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// Stores a new session, if its account's credential version is still
    /// [`Session::credential_version`], in one write: [`StoreError::CredentialsChanged`] when
    /// the password changed since it was checked (or the account is gone),
    /// [`StoreError::Conflict`] when the hash exists already.
    async fn create_session(&self, session: &Session) -> Result<(), StoreError>;

    /// The session with this id hash, unless it has expired at `now` or was made under an
    /// older credential version than its account's.
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
