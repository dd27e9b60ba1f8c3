//! The alert configuration of the keys in use, kept in the process between jobs.
//!
//! Every alert request reads its key's configuration (webhook URL, signing secrets, rules) when
//! it is accepted and again when its job runs: read whole, that is a transaction of three
//! queries each time, for data that changes a few times a day. The store keeps the last
//! configuration it read of each key beside the key's configuration version, a number the
//! database raises on every change to the key's URL, revocation, secrets or rules (triggers in
//! the migrations, so that no writer, whichever replica or command it is, can forget it). A
//! read asks the database for the version alone and reads the rest only when it moved: a change
//! on any replica is seen by the next read on every replica.
//!
//! The statements here read a key's configuration; its rules are read by
//! [`RULES_OF_KEY`](crate::rules::RULES_OF_KEY). Both databases read them as they are.

use std::collections::HashMap;
use std::sync::Mutex;

use alerts_core::ports::{KeyConfig, SigningSecret, StoreError};
use alerts_core::rule::AlertRule;
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;

use crate::SqlDialect;
use crate::accounts::secret_of;

/// The configuration version of the key `$1`, unless revoked: most reads find the
/// configuration kept at it, and read nothing more.
pub const CONFIG_VERSION: &str =
    "SELECT config_version FROM api_keys WHERE id = $1 AND revoked_at IS NULL";

/// What the configuration holds of the key `$1` itself, unless revoked (a [`ConfigKeyRow`]),
/// read with its secrets and rules in one read transaction, so that all are of the version
/// read with them.
pub const CONFIG_KEY: &str = "\
    SELECT prefix, webhook_url, config_version FROM api_keys \
    WHERE id = $1 AND revoked_at IS NULL";

/// Every signing secret of the key `$1` (each a [`SecretRow`]), the current one first, then
/// the previous ones, latest first. Expired ones too: which are still valid depends on the
/// time of each read of the kept configuration ([`current`]).
pub const CONFIG_SECRETS: &str = "\
    SELECT secret, valid_until FROM webhook_secrets WHERE key_id = $1 \
    ORDER BY valid_until IS NOT NULL, valid_until DESC, seq DESC";

/// A key's part of its configuration: prefix, webhook URL, configuration version.
pub type ConfigKeyRow = (String, Option<String>, i64);

/// A signing secret: secret, valid until (none for the current one).
pub type SecretRow<T> = (String, Option<T>);

/// The configuration of `key_id`, made of what one read transaction found: its
/// [`ConfigKeyRow`], its secrets and its enabled rules; with the version it is at.
///
/// # Errors
/// [`StoreError::Corrupt`] for a secret or a time the store cannot have written.
pub fn config<D: SqlDialect>(
    key_id: KeyId,
    key: ConfigKeyRow,
    secrets: Vec<SecretRow<D::Time>>,
    rules: Vec<AlertRule>,
) -> Result<(i64, KeyConfig), StoreError> {
    let (prefix, webhook_url, version) = key;
    let secrets = secrets
        .into_iter()
        .map(|(secret, until)| {
            Ok(SigningSecret {
                secret: secret_of(&secret)?,
                valid_until: D::from_opt_time(until)?,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let config = KeyConfig {
        key_id,
        prefix,
        webhook_url,
        secrets,
        rules,
    };
    Ok((version, config))
}

/// The most keys kept; past it the cache starts again empty, which costs one full read per key
/// in use.
const MOST_KEYS: usize = 10_000;

/// The configurations of the keys lately read, each with the version it was read at.
///
/// ```
/// use alerts_core::ports::KeyConfig;
/// use identity_core::ids::KeyId;
/// use store_sql::configs::KeyConfigs;
///
/// let key = KeyId(uuid::Uuid::nil());
/// let config = KeyConfig {
///     key_id: key,
///     prefix: "ik_0123abcd".to_owned(),
///     webhook_url: Some("https://example.com/hook".to_owned()),
///     secrets: Vec::new(),
///     rules: Vec::new(),
/// };
/// let configs = KeyConfigs::default();
/// configs.keep(7, config.clone());
/// let now = chrono::Utc::now();
/// assert_eq!(configs.at_version(key, 7, now), Some(config));
/// // The database's version moved: the kept configuration is stale.
/// assert_eq!(configs.at_version(key, 8, now), None);
/// ```
#[derive(Debug, Default)]
pub struct KeyConfigs {
    kept: Mutex<HashMap<KeyId, (i64, KeyConfig)>>,
}

impl KeyConfigs {
    /// The configuration of `key` kept at `version`, as it stands at `now`: signing secrets
    /// whose grace period ended before `now` are left out. `None` when none is kept at that
    /// version.
    #[must_use]
    pub fn at_version(&self, key: KeyId, version: i64, now: DateTime<Utc>) -> Option<KeyConfig> {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (at, config) = kept.get(&key)?;
        (*at == version).then(|| current(config.clone(), now))
    }

    /// Keeps `config`, read at `version`, in place of what was kept of its key.
    pub fn keep(&self, version: i64, config: KeyConfig) {
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if kept.len() >= MOST_KEYS && !kept.contains_key(&config.key_id) {
            kept.clear();
        }
        kept.insert(config.key_id, (version, config));
    }

    /// Forgets `key`, which no longer has a configuration (revoked or deleted).
    pub fn forget(&self, key: KeyId) {
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.remove(&key);
    }
}

/// `config` with only the signing secrets still valid at `now`: the current one, and previous
/// ones whose grace period ends at `now` or later.
#[must_use]
pub fn current(mut config: KeyConfig, now: DateTime<Utc>) -> KeyConfig {
    config
        .secrets
        .retain(|s| s.valid_until.is_none_or(|until| until >= now));
    config
}
