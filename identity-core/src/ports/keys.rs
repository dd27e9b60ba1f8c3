//! A key found by its hash: the [`KeyAuthenticator`] port, which every API request goes through.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ids::KeyId;
use crate::keys::KeyHash;

use super::StoreError;

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

/// Finds the key a request names: the API's first question.
#[async_trait]
pub trait KeyAuthenticator: Send + Sync {
    /// The key with this hash, if it exists and is not revoked; records `now` as its last use,
    /// to within [`LAST_USE_RESOLUTION`]: while the recorded use is younger than that, stores
    /// skip the write, so that the API's hot path is a read.
    async fn authenticate(
        &self,
        hash: &KeyHash,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyId>, StoreError>;
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
