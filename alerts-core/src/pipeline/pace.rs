//! How long a key's jobs hold a worker, as this process has seen them: what turns the number
//! of a key's waiting jobs into the wait a new request of the key can expect.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use identity_core::ids::KeyId;

/// Keys remembered at most. A process that has seen more starts afresh: the estimates come
/// back within a few jobs of each key, and memory stays bounded whatever the number of keys.
const MAX_KEYS: usize = 10_000;

/// The weight of the latest job in a key's moving average: recent enough to follow a receiver
/// that slows down within a few jobs, smooth enough that one slow job does not swing it.
const LATEST_WEIGHT: f64 = 0.2;

/// The moving average of how long one job of each key held its worker (evaluation, file and
/// delivery), kept per process like the circuit breakers.
#[derive(Debug, Default)]
pub(crate) struct Pace {
    keys: Mutex<HashMap<KeyId, Duration>>,
}

impl Pace {
    /// Counts a job of `key` that held its worker for `held`.
    pub(crate) fn record(&self, key: KeyId, held: Duration) {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        if keys.len() >= MAX_KEYS && !keys.contains_key(&key) {
            keys.clear();
        }
        keys.entry(key)
            .and_modify(|average| {
                let blended = average.as_secs_f64() * (1.0 - LATEST_WEIGHT)
                    + held.as_secs_f64() * LATEST_WEIGHT;
                *average = Duration::from_secs_f64(blended);
            })
            .or_insert(held);
    }

    /// How long a job of `key` holds a worker, when this process has run one lately.
    pub(crate) fn job_time(&self, key: KeyId) -> Option<Duration> {
        let keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        keys.get(&key).copied()
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;

    #[test]
    fn the_average_follows_the_latest_jobs_a_fifth_at_a_time() {
        let pace = Pace::default();
        let key = KeyId(Uuid::from_u128(1));
        assert_eq!(pace.job_time(key), None);
        pace.record(key, Duration::from_millis(100));
        assert_eq!(pace.job_time(key), Some(Duration::from_millis(100)));
        pace.record(key, Duration::from_millis(600));
        assert_eq!(pace.job_time(key), Some(Duration::from_millis(200)));
        assert_eq!(pace.job_time(KeyId(Uuid::from_u128(2))), None);
    }

    #[test]
    fn memory_is_bounded_by_the_number_of_keys() {
        let pace = Pace::default();
        for n in 0..=MAX_KEYS as u128 {
            pace.record(KeyId(Uuid::from_u128(n)), Duration::from_millis(1));
        }
        let kept = pace.keys.lock().unwrap().len();
        assert!(kept <= MAX_KEYS, "{kept} keys kept");
        let last = KeyId(Uuid::from_u128(MAX_KEYS as u128));
        assert_eq!(pace.job_time(last), Some(Duration::from_millis(1)));
    }
}
