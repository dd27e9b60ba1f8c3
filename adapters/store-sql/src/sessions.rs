//! Dashboard sessions, for identity's `SessionStore`: the statements, and the rows they read
//! as sessions. Both databases read every statement here as it is.

use alerts_core::ports::StoreError;
use identity_core::ids::AccountId;
use identity_core::ports::Session;
use uuid::Uuid;

use crate::SqlDialect;

/// A new session: `$1` the hash of its id, `$2` account, `$3` CSRF secret, `$4` created,
/// `$5` expires.
pub const INSERT_SESSION: &str = "\
    INSERT INTO sessions (id_hash, account_id, csrf_secret, created_at, \
    expires_at) VALUES ($1, $2, $3, $4, $5)";

/// The session (a [`SessionRow`]) whose id hashes to `$1`, unless it expired by `$2`.
pub const SESSION: &str = "\
    SELECT id_hash, account_id, csrf_secret, created_at, expires_at \
    FROM sessions WHERE id_hash = $1 AND expires_at > $2";

/// Ends the session whose id hashes to `$1`.
pub const DELETE_SESSION: &str = "DELETE FROM sessions WHERE id_hash = $1";

/// Ends the sessions of the account `$1` but the one whose id hashes to `$2`. `IS DISTINCT
/// FROM` compares NULL as a value: with no `$2`, every session of the account goes.
pub const DELETE_ACCOUNT_SESSIONS: &str =
    "DELETE FROM sessions WHERE account_id = $1 AND id_hash IS DISTINCT FROM $2";

/// Forgets the sessions that expired by `$1`.
pub const DELETE_EXPIRED_SESSIONS: &str = "DELETE FROM sessions WHERE expires_at <= $1";

/// A session: id hash, account, CSRF secret, created, expires.
pub type SessionRow<T> = (String, Uuid, String, T, T);

/// The session of a [`SessionRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a time the store cannot have written.
pub fn session<D: SqlDialect>(row: SessionRow<D::Time>) -> Result<Session, StoreError> {
    let (id_hash, account, csrf_secret, created, expires) = row;
    Ok(Session {
        id_hash,
        account_id: AccountId(account),
        csrf_secret,
        created_at: D::from_time(created)?,
        expires_at: D::from_time(expires)?,
    })
}
