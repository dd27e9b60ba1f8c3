//! Dashboard sessions, for identity's `SessionStore`: the statements, and the rows they read
//! as sessions. A session is bound to its account's credential version: it is stored only while
//! the version it was checked under is current (the insert reads the account in the same
//! statement, and on PostgreSQL waits for a password change under way to commit or roll back),
//! and found only while it stays so.
//!
//! ```
//! use store_sql::sessions::{postgres, sqlite};
//!
//! // Only PostgreSQL, whose writers run side by side, locks the account for the insert.
//! assert!(postgres::INSERT_SESSION.ends_with("FOR SHARE"));
//! assert!(!sqlite::INSERT_SESSION.contains("FOR SHARE"));
//! ```

use alerts_core::ports::StoreError;
use identity_core::ids::AccountId;
use identity_core::ports::Session;
use uuid::Uuid;

use crate::SqlDialect;

/// A new session, as [`sqlite::INSERT_SESSION`] and [`postgres::INSERT_SESSION`] spell it:
/// `$1` the hash of its id, `$2` account, `$3` CSRF secret, `$4` credential version, `$5`
/// created, `$6` expires; no row when the account's version is not `$4`.
macro_rules! insert_session {
    ($lock:literal) => {
        concat!(
            "INSERT INTO sessions (id_hash, account_id, csrf_secret, credential_version, \
             created_at, expires_at) SELECT $1, $2, $3, $4, $5, $6 FROM accounts \
             WHERE id = $2 AND credential_version = $4",
            $lock
        )
    };
}

/// SQLite's spelling: one writer at a time, so the account read by the insert cannot change
/// before it commits.
pub mod sqlite {
    /// A new session, unless its account's credential version changed: `$1` the hash of its
    /// id, `$2` account, `$3` CSRF secret, `$4` credential version, `$5` created, `$6`
    /// expires. It inserts no row when the account's version is not `$4`.
    pub const INSERT_SESSION: &str = insert_session!("");
}

/// PostgreSQL's spelling: the account's row is locked for the insert, so an insert that meets a
/// password change under way waits for it and then sees the raised version.
pub mod postgres {
    /// As SQLite's [`INSERT_SESSION`](super::sqlite::INSERT_SESSION), holding the account's row
    /// until the session is stored.
    pub const INSERT_SESSION: &str = insert_session!(" FOR SHARE");
}

/// The session (a [`SessionRow`]) whose id hashes to `$1`, unless it expired by `$2` or its
/// account's password changed since it was made.
pub const SESSION: &str = "\
    SELECT s.id_hash, s.account_id, s.csrf_secret, s.credential_version, s.created_at, \
    s.expires_at FROM sessions s JOIN accounts a ON a.id = s.account_id \
    AND a.credential_version = s.credential_version \
    WHERE s.id_hash = $1 AND s.expires_at > $2";

/// Ends the session whose id hashes to `$1`.
pub const DELETE_SESSION: &str = "DELETE FROM sessions WHERE id_hash = $1";

/// Ends the sessions of the account `$1` but the one whose id hashes to `$2`. `IS DISTINCT
/// FROM` compares NULL as a value: with no `$2`, every session of the account goes.
pub const DELETE_ACCOUNT_SESSIONS: &str =
    "DELETE FROM sessions WHERE account_id = $1 AND id_hash IS DISTINCT FROM $2";

/// Forgets the sessions that expired by `$1`.
pub const DELETE_EXPIRED_SESSIONS: &str = "DELETE FROM sessions WHERE expires_at <= $1";

/// A session: id hash, account, CSRF secret, credential version, created, expires.
pub type SessionRow<T> = (String, Uuid, String, i64, T, T);

/// The session of a [`SessionRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a time the store cannot have written.
pub fn session<D: SqlDialect>(row: SessionRow<D::Time>) -> Result<Session, StoreError> {
    let (id_hash, account, csrf_secret, credential_version, created, expires) = row;
    Ok(Session {
        id_hash,
        account_id: AccountId(account),
        csrf_secret,
        credential_version,
        created_at: D::from_time(created)?,
        expires_at: D::from_time(expires)?,
    })
}
