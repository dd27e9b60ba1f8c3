//! [`MemoryLimits`]: rate limits in this process, the embedded default and the fallback of a
//! shared store that cannot be reached. Its memory stays bounded however many keys clients
//! invent: a key is forgotten once its allowance has refilled, and each bucket tracks at most
//! a set number of keys at once.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ports::{Decision, LimitError, LimitStore, Quota, gcra, micros};

/// The most keys each bucket tracks at once by default: a few MiB per bucket.
pub const DEFAULT_MAX_KEYS_PER_BUCKET: usize = 50_000;
/// The smallest size at which a bucket starts forgetting refilled keys.
const FIRST_PRUNE: usize = 1024;
/// While a bucket is full, one refused new key in this many walks the bucket again to see
/// whether some keys have refilled: an attacker inventing keys makes every attempt land
/// there, and a walk per attempt would cost more than the limit saves.
const PRUNE_EVERY_WHEN_FULL: usize = 1024;
/// What a new key is told while its bucket is full.
const FULL_RETRY_AFTER: Duration = Duration::from_secs(1);

#[derive(Default)]
struct Bucket {
    tats: HashMap<Box<str>, i64>,
    prune_at: usize,
    refused: usize,
}

/// Rate limits in this process, following [`gcra`] like every [`LimitStore`].
///
/// ```
/// use std::num::NonZeroU32;
/// use identity_core::memory_limits::MemoryLimits;
/// use identity_core::ports::{Decision, LimitStore, Quota};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let limits = MemoryLimits::default();
/// let quota = Quota::per_minute(NonZeroU32::new(1).unwrap());
/// let now = chrono::Utc::now();
/// assert_eq!(limits.take("demo", "ada", quota, 1, now).await, Ok(Decision::Allowed));
/// assert!(matches!(
///     limits.take("demo", "ada", quota, 1, now).await,
///     Ok(Decision::Limited { .. })
/// ));
/// # });
/// ```
pub struct MemoryLimits {
    buckets: Mutex<HashMap<Box<str>, Bucket>>,
    max_keys: usize,
}

impl Default for MemoryLimits {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_KEYS_PER_BUCKET)
    }
}

impl std::fmt::Debug for MemoryLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryLimits")
            .field("max_keys", &self.max_keys)
            .finish_non_exhaustive()
    }
}

impl MemoryLimits {
    /// Limits whose buckets track at most `max_keys` keys each (at least 1). A new key of a
    /// full bucket is refused until some keys have refilled.
    #[must_use]
    pub fn new(max_keys: usize) -> Self {
        Self {
            buckets: Mutex::new(HashMap::new()),
            max_keys: max_keys.max(1),
        }
    }

    /// The step of [`LimitStore::take`], without the `async`.
    #[must_use]
    pub fn take_now(
        &self,
        bucket: &str,
        key: &str,
        quota: Quota,
        cost: u32,
        now: DateTime<Utc>,
    ) -> Decision {
        let now_us = micros(now);
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if !buckets.contains_key(bucket) {
            buckets.insert(bucket.into(), Bucket::default());
        }
        let Some(b) = buckets.get_mut(bucket) else {
            return Decision::Allowed;
        };
        let stored = b.tats.get(key).copied();
        if stored.is_none() && b.tats.len() >= b.prune_at.max(FIRST_PRUNE.min(self.max_keys)) {
            let full = b.tats.len() >= self.max_keys;
            if !full || b.refused.is_multiple_of(PRUNE_EVERY_WHEN_FULL) {
                b.tats.retain(|_, tat| *tat > now_us);
                b.tats.shrink_to_fit();
                b.prune_at = b
                    .tats
                    .len()
                    .saturating_mul(2)
                    .max(FIRST_PRUNE)
                    .min(self.max_keys);
            }
            if b.tats.len() >= self.max_keys {
                b.refused = b.refused.wrapping_add(1);
                return Decision::Limited {
                    retry_after: FULL_RETRY_AFTER,
                };
            }
        }
        let (decision, new_tat) = gcra(stored, now_us, &quota, cost);
        if let Some(tat) = new_tat {
            match b.tats.get_mut(key) {
                Some(held) => *held = tat,
                None => {
                    b.tats.insert(key.into(), tat);
                }
            }
        }
        decision
    }

    /// How many keys `bucket` tracks.
    #[must_use]
    pub fn tracked(&self, bucket: &str) -> usize {
        self.buckets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(bucket)
            .map_or(0, |b| b.tats.len())
    }
}

#[async_trait]
impl LimitStore for MemoryLimits {
    async fn take(
        &self,
        bucket: &str,
        key: &str,
        quota: Quota,
        cost: u32,
        now: DateTime<Utc>,
    ) -> Result<Decision, LimitError> {
        Ok(self.take_now(bucket, key, quota, cost, now))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::num::NonZeroU32;

    use super::*;

    fn five() -> Quota {
        Quota::per_minute(NonZeroU32::new(5).unwrap())
    }

    fn t(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap()
    }

    #[tokio::test]
    async fn memory_limits_pass_the_suite() {
        crate::conformance::limits(&MemoryLimits::default()).await;
    }

    #[test]
    fn keys_are_forgotten_once_their_allowance_has_refilled() {
        let limits = MemoryLimits::default();
        let mut most = 0;
        let mut now = 0;
        for n in 0..20_000_u32 {
            if n % 500 == 0 {
                now += 61;
            }
            assert_eq!(
                limits.take_now("b", &n.to_string(), five(), 1, t(now)),
                Decision::Allowed
            );
            most = most.max(limits.tracked("b"));
        }
        assert!(
            most <= FIRST_PRUNE,
            "20,000 keys, 500 a minute, kept at most {most} at once"
        );
    }

    #[test]
    fn a_full_bucket_refuses_new_keys_until_keys_refill() {
        let limits = MemoryLimits::new(10);
        for n in 0..10_u32 {
            assert_eq!(
                limits.take_now("b", &n.to_string(), five(), 1, t(0)),
                Decision::Allowed
            );
        }
        assert!(matches!(
            limits.take_now("b", "10", five(), 1, t(0)),
            Decision::Limited { .. }
        ));
        assert_eq!(limits.tracked("b"), 10, "the refused key is not tracked");
        assert_eq!(
            limits.take_now("b", "3", five(), 1, t(0)),
            Decision::Allowed,
            "keys already tracked keep their allowance"
        );
        assert_eq!(
            limits.take_now("other", "10", five(), 1, t(0)),
            Decision::Allowed,
            "each bucket has its own room"
        );
        let verdicts: Vec<Decision> = (0..=PRUNE_EVERY_WHEN_FULL as u32)
            .map(|n| limits.take_now("b", &format!("new{}", n % 5), five(), 1, t(61)))
            .collect();
        assert!(verdicts.contains(&Decision::Allowed));
        assert!(limits.tracked("b") <= 10);
    }
}
