//! Keys and rules as the API and the pipeline read them: the [`RuleStore`] port.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ids::KeyId;
use crate::keys::{KeyHash, WebhookSecret};
use crate::rule::AlertRule;

use super::StoreError;

/// A webhook signing secret and, during a rotation's grace period, until when it stays valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningSecret {
    /// The secret.
    pub secret: WebhookSecret,
    /// `None` for the current secret; the end of the grace period for a previous one.
    pub valid_until: Option<DateTime<Utc>>,
}

/// Everything the pipeline needs to know about one API key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyConfig {
    /// The key's id.
    pub key_id: KeyId,
    /// The key's public prefix (`ik_` and eight hex digits), sent as `KEY` in deliveries.
    pub prefix: String,
    /// Where deliveries go; `None` until the owner sets it.
    pub webhook_url: Option<String>,
    /// The current signing secret first, then previous ones still in their grace period.
    /// Deliveries are signed with every one of them, so receivers can switch at their pace.
    pub secrets: Vec<SigningSecret>,
    /// The key's enabled rules, oldest first.
    pub rules: Vec<AlertRule>,
}

/// How stale a key's recorded last use may be. Recording every request would make each API
/// call a database write; to the minute is what the dashboard shows anyway.
pub const LAST_USE_RESOLUTION: Duration = Duration::from_secs(60);

/// Whether a last use recorded at `recorded` should be moved to `now`.
#[must_use]
pub fn last_use_is_stale(recorded: Option<DateTime<Utc>>, now: DateTime<Utc>) -> bool {
    recorded.is_none_or(|at| {
        (now - at)
            .to_std()
            .is_ok_and(|age| age >= LAST_USE_RESOLUTION)
    })
}

/// Reads keys and their alert configuration: the API's and the pipeline's view of the store.
#[async_trait]
pub trait RuleStore: Send + Sync {
    /// The key with this hash, if it exists and is not revoked; records `now` as its last use,
    /// to within [`LAST_USE_RESOLUTION`]: while the recorded use is younger than that, stores
    /// skip the write, so that the API's hot path is a read.
    async fn authenticate(
        &self,
        hash: &KeyHash,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyId>, StoreError>;

    /// The alert configuration of a key that is not revoked. Previous secrets whose grace
    /// period ended before `now` are left out.
    async fn key_config(
        &self,
        key_id: KeyId,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyConfig>, StoreError>;
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_last_use_goes_stale_after_the_resolution() {
        let t = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
        let resolution = chrono::Duration::from_std(LAST_USE_RESOLUTION).unwrap();
        assert!(last_use_is_stale(None, t), "a key never used is recorded");
        assert!(!last_use_is_stale(Some(t), t));
        assert!(!last_use_is_stale(
            Some(t),
            t + resolution - chrono::Duration::seconds(1)
        ));
        assert!(last_use_is_stale(Some(t), t + resolution));
        // A clock that went back never moves the record backwards.
        assert!(!last_use_is_stale(Some(t), t - resolution * 2));
    }
}
