//! Accounts, API keys and their webhook signing secrets, for identity's `AccountStore` and
//! `KeyAuthenticator`: the statements, and the rows they read as the ports' values. Both
//! databases read every statement here as it is.
//!
//! ```
//! use store_sql::accounts::KEY_BY_ID;
//!
//! // A key is listed with its current secret.
//! assert!(KEY_BY_ID.ends_with("valid_until IS NULL WHERE k.id = $1"));
//! ```

use alerts_core::ports::StoreError;
use identity_core::ids::{AccountId, KeyId};
use identity_core::keys::WebhookSecret;
use identity_core::ports::{Account, ApiKeyInfo};
use uuid::Uuid;

use crate::SqlDialect;

/// The key of a hash, unless revoked, with its last recorded use (a [`KeyUseRow`]): `$1` the
/// hash. A read on every authenticated request.
pub const KEY_BY_HASH: &str = "\
    SELECT id, last_used_at FROM api_keys \
    WHERE key_hash = $1 AND revoked_at IS NULL";

/// Records a key's use at `$1` (key `$2`), unless a later use is recorded already: concurrent
/// requests may finish in any order.
pub const TOUCH_KEY: &str = "\
    UPDATE api_keys SET last_used_at = $1 \
    WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)";

/// A new account: `$1` id, `$2` email, `$3` password hash, `$4` credential version, `$5`
/// created.
pub const INSERT_ACCOUNT: &str = "\
    INSERT INTO accounts (id, email, password_hash, credential_version, created_at) \
    VALUES ($1, $2, $3, $4, $5)";

/// The account (an [`AccountRow`]) with the email `$1`, which the store trims and lowercases
/// first.
pub const ACCOUNT_BY_EMAIL: &str = "\
    SELECT id, email, password_hash, credential_version, created_at FROM accounts \
    WHERE email = $1";

/// The account (an [`AccountRow`]) of id `$1`.
pub const ACCOUNT_BY_ID: &str = "\
    SELECT id, email, password_hash, credential_version, created_at FROM accounts \
    WHERE id = $1";

/// Replaces the password hash of the account `$2` with `$1` and raises its credential version,
/// which it returns, if the version is still `$3`: the sessions of the old password end with
/// it ([`sessions`](crate::sessions)), and of two changes checked against one password only
/// the first is made.
pub const SET_PASSWORD_HASH: &str = "\
    UPDATE accounts SET password_hash = $1, credential_version = credential_version + 1 \
    WHERE id = $2 AND credential_version = $3 RETURNING credential_version";

/// Whether the account `$1` exists: what a refused [`SET_PASSWORD_HASH`] asks next.
pub const ACCOUNT_EXISTS: &str = "SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1)";

/// Whether any account exists: the first one is made by the setup, later ones by users.
pub const HAS_ACCOUNTS: &str = "SELECT EXISTS (SELECT 1 FROM accounts)";

/// A new key: `$1` id, `$2` account, `$3` label, `$4` prefix, `$5` hash, `$6` created. Its
/// first secret is [`INSERT_SECRET`], in the same transaction.
pub const INSERT_KEY: &str = "\
    INSERT INTO api_keys (id, account_id, label, prefix, key_hash, created_at) \
    VALUES ($1, $2, $3, $4, $5, $6)";

/// A key's new current secret: `$1` key, `$2` secret.
pub const INSERT_SECRET: &str = "INSERT INTO webhook_secrets (key_id, secret) VALUES ($1, $2)";

/// The keys of the account `$1`, newest first, each with its current secret (a [`KeyRow`]).
pub const KEYS_OF_ACCOUNT: &str = "\
    SELECT k.id, k.account_id, k.label, k.prefix, k.created_at, k.last_used_at, \
    k.revoked_at, k.webhook_url, s.secret FROM api_keys k \
    JOIN webhook_secrets s ON s.key_id = k.id AND s.valid_until IS NULL \
    WHERE k.account_id = $1 ORDER BY k.created_at DESC, k.seq DESC";

/// The keys whose prefix is `$1`, newest first, each with its current secret (a [`KeyRow`]):
/// prefixes are short, and a new key's may be an old one's.
pub const KEYS_WITH_PREFIX: &str = "\
    SELECT k.id, k.account_id, k.label, k.prefix, k.created_at, k.last_used_at, \
    k.revoked_at, k.webhook_url, s.secret FROM api_keys k \
    JOIN webhook_secrets s ON s.key_id = k.id AND s.valid_until IS NULL \
    WHERE k.prefix = $1 ORDER BY k.created_at DESC, k.seq DESC";

/// The key of id `$1` with its current secret (a [`KeyRow`]).
pub const KEY_BY_ID: &str = "\
    SELECT k.id, k.account_id, k.label, k.prefix, k.created_at, k.last_used_at, \
    k.revoked_at, k.webhook_url, s.secret FROM api_keys k \
    JOIN webhook_secrets s ON s.key_id = k.id AND s.valid_until IS NULL \
    WHERE k.id = $1";

/// Renames the key `$2` to `$1`.
pub const SET_KEY_LABEL: &str = "UPDATE api_keys SET label = $1 WHERE id = $2";

/// Revokes the key `$2` at `$1`; a key revoked already keeps the time it was revoked.
pub const REVOKE_KEY: &str =
    "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2";

/// Sets the webhook URL of the key `$2` to `$1`, or none.
pub const SET_WEBHOOK_URL: &str = "UPDATE api_keys SET webhook_url = $1 WHERE id = $2";

/// Ends the current secret of the key `$2` at `$1`, the end of its grace period; a rotation
/// then adds the new one ([`INSERT_SECRET`]) in the same transaction.
pub const EXPIRE_SECRET: &str = "\
    UPDATE webhook_secrets SET valid_until = $1 \
    WHERE key_id = $2 AND valid_until IS NULL";

/// A key found by its hash: id, last used.
pub type KeyUseRow<T> = (Uuid, Option<T>);

/// An account: id, email, password hash, credential version, created.
pub type AccountRow<T> = (Uuid, String, String, i64, T);

/// The account of an [`AccountRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a time the store cannot have written.
pub fn account<D: SqlDialect>(row: AccountRow<D::Time>) -> Result<Account, StoreError> {
    let (id, email, password_hash, credential_version, created) = row;
    Ok(Account {
        id: AccountId(id),
        email,
        password_hash,
        credential_version,
        created_at: D::from_time(created)?,
    })
}

/// A key with its current secret: id, account, label, prefix, created, last used, revoked,
/// webhook URL, secret.
pub type KeyRow<T> = (
    Uuid,
    Uuid,
    String,
    String,
    T,
    Option<T>,
    Option<T>,
    Option<String>,
    String,
);

/// The key of a [`KeyRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a time or secret the store cannot have written.
pub fn key_info<D: SqlDialect>(row: KeyRow<D::Time>) -> Result<ApiKeyInfo, StoreError> {
    let (id, account_id, label, prefix, created, used, revoked, url, secret) = row;
    Ok(ApiKeyInfo {
        id: KeyId(id),
        account_id: AccountId(account_id),
        label,
        prefix,
        created_at: D::from_time(created)?,
        last_used_at: D::from_opt_time(used)?,
        revoked_at: D::from_opt_time(revoked)?,
        webhook_url: url,
        secret: secret_of(&secret)?,
    })
}

/// A stored webhook signing secret.
///
/// # Errors
/// [`StoreError::Corrupt`] when it is not one.
pub fn secret_of(s: &str) -> Result<WebhookSecret, StoreError> {
    WebhookSecret::parse(s).map_err(|e| StoreError::Corrupt(format!("webhook secret: {e}")))
}
