//! [`MemoryLimits`]: rate limits in this process, the embedded default and the fallback of a
//! shared store that cannot be reached. Its memory stays bounded however many keys clients
//! invent: a key is forgotten once its allowance has refilled, and each bucket tracks at most
//! a set number of keys at once. A full bucket looks for refilled keys again once a second
//! whatever happens meanwhile, so that an attack that filled it leaves nothing behind a second
//! after its keys have refilled, on a busy deployment and a quiet one alike.

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
/// What a new key is told while its bucket is full, and how often a full bucket is walked for
/// refilled keys: an attacker inventing keys makes every attempt land on a full bucket, and a
/// walk per attempt would cost more than the limit saves, while a walk counted in attempts
/// rather than time would leave a quiet deployment's bucket full for hours.
const FULL_RETRY_AFTER: Duration = Duration::from_secs(1);

#[derive(Default)]
struct Bucket {
    tats: HashMap<Box<str>, i64>,
    prune_at: usize,
    /// While full, the instant (µs) from which a new key may walk the bucket again.
    next_full_walk: i64,
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
/// assert!(limits.take("demo", "ada", quota, 1, now).await.is_ok_and(|d| d.is_allowed()));
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
            // Just inserted: unreachable, and never a reason to refuse.
            return gcra(None, now_us, &quota, cost).0;
        };
        let stored = b.tats.get(key).copied();
        if stored.is_none() && b.tats.len() >= b.prune_at.max(FIRST_PRUNE.min(self.max_keys)) {
            let full = b.tats.len() >= self.max_keys;
            if !full || now_us >= b.next_full_walk {
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
                if now_us >= b.next_full_walk {
                    b.next_full_walk = now_us.saturating_add(micros_of(FULL_RETRY_AFTER));
                }
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

/// `d` in whole microseconds, as the bucket's instants are kept.
fn micros_of(d: Duration) -> i64 {
    i64::try_from(d.as_micros()).unwrap_or(i64::MAX)
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
            assert!(
                limits
                    .take_now("b", &n.to_string(), five(), 1, t(now))
                    .is_allowed()
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
            assert!(
                limits
                    .take_now("b", &n.to_string(), five(), 1, t(0))
                    .is_allowed()
            );
        }
        assert!(matches!(
            limits.take_now("b", "10", five(), 1, t(0)),
            Decision::Limited { .. }
        ));
        assert_eq!(limits.tracked("b"), 10, "the refused key is not tracked");
        assert!(
            limits.take_now("b", "3", five(), 1, t(0)).is_allowed(),
            "keys already tracked keep their allowance"
        );
        assert!(
            limits.take_now("other", "10", five(), 1, t(0)).is_allowed(),
            "each bucket has its own room"
        );
        assert!(
            limits.take_now("b", "new", five(), 1, t(61)).is_allowed(),
            "the keys have refilled"
        );
        assert!(limits.tracked("b") <= 10);
    }

    #[test]
    fn a_bucket_filled_by_an_attack_frees_itself_by_time_on_a_quiet_deployment() {
        let limits = MemoryLimits::new(100);
        // Invented keys fill the bucket, then a few more are refused: far fewer refusals than
        // any count of attempts would wait for.
        for n in 0..103_u32 {
            let _ = limits.take_now("sign-in", &format!("attacker-{n}"), five(), 1, t(0));
        }
        assert_eq!(limits.tracked("sign-in"), 100);
        assert!(matches!(
            limits.take_now("sign-in", "ada@example.com", five(), 1, t(1)),
            Decision::Limited { retry_after } if retry_after == FULL_RETRY_AFTER
        ));
        // Past the refill, the first person to come is let in.
        assert!(
            limits
                .take_now("sign-in", "ada@example.com", five(), 1, t(61))
                .is_allowed()
        );
        assert_eq!(limits.tracked("sign-in"), 1, "the attack's keys are gone");
    }

    #[test]
    fn a_full_bucket_is_walked_at_most_once_a_second() {
        let at = |ms: i64| t(0) + chrono::TimeDelta::milliseconds(ms);
        let limits = MemoryLimits::new(10);
        // Each key takes one of its five a minute: whole again 12 s later.
        for n in 0..10_u32 {
            let _ = limits.take_now("b", &n.to_string(), five(), 1, at(0));
        }
        // A walk at 11.9 s finds nothing refilled; the next may come a second later.
        assert!(matches!(
            limits.take_now("b", "x", five(), 1, at(11_900)),
            Decision::Limited { .. }
        ));
        assert!(
            matches!(
                limits.take_now("b", "x", five(), 1, at(12_500)),
                Decision::Limited { .. }
            ),
            "refilled, but no walk within the second"
        );
        assert!(
            limits
                .take_now("b", "x", five(), 1, at(12_900))
                .is_allowed()
        );
    }
}
