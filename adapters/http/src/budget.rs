//! Budgets of request-body bytes, one per API key and one per client network: each client pays
//! for the bytes it makes the server read, so that one sending huge bodies (valid or not) is
//! refused with 429 and `Retry-After` once its budget is spent, while the others keep theirs.
//!
//! Each budget is a token bucket of bytes, kept as the moment it will be full again (the
//! generic cell rate algorithm): one number per client, and a client whose bucket is full is
//! forgotten, since it would behave exactly as one never seen. At most a fixed number of
//! clients are tracked at once, whatever keys or addresses a client invents.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A sustained rate of body bytes and the burst allowed above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRate {
    /// Bytes a second, sustained; at least 1.
    pub per_second: u64,
    /// Bytes that may be sent at once after a quiet spell. The server raises it to at least
    /// [`crate::ApiConfig::max_body_bytes`], so that a body of the largest size always fits.
    pub burst: u64,
}

impl ByteRate {
    /// `per_second` MiB a second with bursts of `burst` MiB.
    #[must_use]
    pub const fn mib(per_second: u64, burst: u64) -> Self {
        Self {
            per_second: per_second << 20,
            burst: burst << 20,
        }
    }

    /// How long the bucket takes to refill `bytes`, in nanoseconds, rounded up.
    fn nanos_for(&self, bytes: u64) -> u64 {
        let per_second = u128::from(self.per_second.max(1));
        let nanos = (u128::from(bytes) * 1_000_000_000).div_ceil(per_second);
        u64::try_from(nanos).unwrap_or(u64::MAX)
    }
}

/// The body-byte budgets of the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyBudgets {
    /// Per API key. Default 16 MiB a second, bursts of 64 MiB: two bodies of the largest
    /// default size at once, then one every two seconds.
    pub per_key: ByteRate,
    /// Per client network (an IPv4 address or an IPv6 /64), across all the keys it uses.
    /// Default 64 MiB a second, bursts of 128 MiB: an office's several keys behind one
    /// address share it.
    pub per_network: ByteRate,
    /// The most keys, and the most networks, tracked at once. Default 100,000 each (a few
    /// MiB): a client is forgotten once its bucket has refilled, so only clients that sent
    /// about a second's worth of their rate lately count, and when that many do, clients not
    /// yet tracked are answered 503 until some refill.
    pub max_tracked: usize,
}

impl Default for BodyBudgets {
    fn default() -> Self {
        Self {
            per_key: ByteRate::mib(16, 64),
            per_network: ByteRate::mib(64, 128),
            max_tracked: 100_000,
        }
    }
}

/// What a budget says about bytes a client wants to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Taken from the budget.
    Taken,
    /// Not enough left: enough will be after this long.
    Wait(Duration),
    /// As many clients are tracked as allowed; this one is not among them.
    Full,
}

/// The arithmetic of one bucket. `full_at` is the moment, in nanoseconds on the budget's own
/// clock, at which the bucket is full again (any moment not after `now` means full). Taking
/// `bytes` moves it later by their refill time; it may not move past `now` by more than the
/// refill time of the whole burst. Returns the new `full_at`, or how long to wait.
pub(crate) fn take(rate: &ByteRate, full_at: u64, now: u64, bytes: u64) -> Result<u64, Duration> {
    let after = full_at.max(now).saturating_add(rate.nanos_for(bytes));
    let tolerance = rate.nanos_for(rate.burst);
    let debt = after - now;
    if debt <= tolerance {
        Ok(after)
    } else {
        Err(Duration::from_nanos(debt - tolerance))
    }
}

/// The bucket after `bytes` taken earlier are given back (they were never read).
pub(crate) fn give_back(rate: &ByteRate, full_at: u64, bytes: u64) -> u64 {
    full_at.saturating_sub(rate.nanos_for(bytes))
}

/// The buckets of one budget, one per client, within [`BodyBudgets::max_tracked`].
pub(crate) struct Buckets<K> {
    rate: ByteRate,
    max_tracked: usize,
    epoch: Instant,
    state: Mutex<Tracked<K>>,
}

struct Tracked<K> {
    full_at: HashMap<K, u64>,
    // Pruning walks every client, so it runs only when the map has doubled since the last
    // walk: the cost per request stays constant.
    prune_at: usize,
}

/// The smallest size at which pruning starts.
const FIRST_PRUNE: usize = 1024;

impl<K: Hash + Eq + Clone> Buckets<K> {
    /// Buckets of `rate` for at most `max_tracked` clients.
    pub(crate) fn new(rate: ByteRate, max_tracked: usize) -> Self {
        Self {
            rate,
            max_tracked: max_tracked.max(1),
            epoch: Instant::now(),
            state: Mutex::new(Tracked {
                full_at: HashMap::new(),
                prune_at: FIRST_PRUNE.min(max_tracked.max(1)),
            }),
        }
    }

    /// The rate of every bucket.
    pub(crate) fn rate(&self) -> ByteRate {
        self.rate
    }

    /// Nanoseconds since the buckets were made.
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Takes `bytes` from `client`'s bucket, all or nothing.
    pub(crate) fn take(&self, client: &K, bytes: u64) -> Verdict {
        self.take_at(client, bytes, self.now())
    }

    /// Gives back `bytes` that `client` was charged for but never sent.
    pub(crate) fn give_back(&self, client: &K, bytes: u64) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(full_at) = state.full_at.get_mut(client) {
            *full_at = give_back(&self.rate, *full_at, bytes);
        }
    }

    fn take_at(&self, client: &K, bytes: u64, now: u64) -> Verdict {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let full_at = match state.full_at.get(client) {
            Some(&full_at) => full_at,
            None => {
                if state.full_at.len() >= state.prune_at {
                    self.prune(&mut state, now);
                }
                if state.full_at.len() >= self.max_tracked {
                    return Verdict::Full;
                }
                now
            }
        };
        match take(&self.rate, full_at, now, bytes) {
            Ok(after) => {
                state.full_at.insert(client.clone(), after);
                Verdict::Taken
            }
            Err(wait) => Verdict::Wait(wait),
        }
    }

    /// Forgets every client whose bucket is full again.
    fn prune(&self, state: &mut Tracked<K>, now: u64) {
        state.full_at.retain(|_, full_at| *full_at > now);
        state.full_at.shrink_to_fit();
        state.prune_at = state
            .full_at
            .len()
            .saturating_mul(2)
            .max(FIRST_PRUNE)
            .min(self.max_tracked);
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .full_at
            .len()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const SECOND: u64 = 1_000_000_000;

    #[test]
    fn a_full_bucket_gives_its_burst_then_its_rate() {
        let rate = ByteRate {
            per_second: 1000,
            burst: 4000,
        };
        let full_at = take(&rate, 0, 0, 4000).unwrap();
        assert_eq!(full_at, 4 * SECOND);
        // Empty: one more byte waits a millisecond.
        assert_eq!(take(&rate, full_at, 0, 1), Err(Duration::from_millis(1)));
        // A second later, a second's worth is back, and no more.
        let later = take(&rate, full_at, SECOND, 1000).unwrap();
        assert_eq!(take(&rate, later, SECOND, 1), Err(Duration::from_millis(1)));
        // Long after, the bucket is full, not fuller.
        assert!(take(&rate, later, 100 * SECOND, 4000).is_ok());
        assert!(take(&rate, later, 100 * SECOND, 4001).is_err());
    }

    #[test]
    fn bytes_given_back_can_be_taken_again() {
        let rate = ByteRate {
            per_second: 1000,
            burst: 4000,
        };
        let full_at = take(&rate, 0, 0, 4000).unwrap();
        assert!(take(&rate, full_at, 0, 1500).is_err());
        let full_at = give_back(&rate, full_at, 1500);
        assert!(take(&rate, full_at, 0, 1500).is_ok());
    }

    #[test]
    fn one_client_spending_its_budget_leaves_another_untouched() {
        let buckets = Buckets::new(ByteRate::mib(1, 2), 10);
        assert_eq!(buckets.take_at(&"a", 2 << 20, 0), Verdict::Taken);
        assert!(matches!(buckets.take_at(&"a", 1, 0), Verdict::Wait(_)));
        assert_eq!(buckets.take_at(&"b", 2 << 20, 0), Verdict::Taken);
        // The refusal tells how long until the bytes fit.
        assert_eq!(
            buckets.take_at(&"a", 1 << 20, 0),
            Verdict::Wait(Duration::from_secs(1))
        );
        assert_eq!(buckets.take_at(&"a", 1 << 20, SECOND), Verdict::Taken);
    }

    #[test]
    fn clients_with_full_buckets_are_forgotten_and_tracking_is_bounded() {
        let buckets = Buckets::new(ByteRate::mib(1, 1), 3);
        for client in 0..3 {
            assert_eq!(buckets.take_at(&client, 1 << 20, 0), Verdict::Taken);
        }
        // Every tracked bucket is still refilling: a new client cannot be tracked.
        assert_eq!(buckets.take_at(&99, 1, 0), Verdict::Full);
        assert_eq!(buckets.tracked(), 3);
        // Once they are full again, they are forgotten and make room.
        assert_eq!(buckets.take_at(&99, 1, 2 * SECOND), Verdict::Taken);
        assert_eq!(buckets.tracked(), 1);
    }

    proptest! {
        /// Whatever a client sends and whenever, what it is allowed over any stretch of time
        /// is at most the burst plus the rate times the stretch.
        #[test]
        fn no_client_gets_more_than_its_burst_and_rate(
            per_second in 1u64..10_000_000,
            burst in 1u64..100_000_000,
            sends in proptest::collection::vec((0u64..2 * SECOND, 0u64..50_000_000), 1..60),
        ) {
            let rate = ByteRate { per_second, burst };
            let mut full_at = 0;
            let mut now = 0;
            let mut taken: u128 = 0;
            for (gap, bytes) in sends {
                now += gap;
                if let Ok(after) = take(&rate, full_at, now, bytes) {
                    full_at = after;
                    taken += u128::from(bytes);
                }
            }
            let allowed = u128::from(burst) + u128::from(per_second) * u128::from(now) / u128::from(SECOND) + 1;
            prop_assert!(taken <= allowed, "taken {} of at most {}", taken, allowed);
        }

        /// A refused client that waits as long as it was told is served.
        #[test]
        fn waiting_the_time_told_is_enough(
            per_second in 1u64..10_000_000,
            burst in 1u64..100_000_000,
            spent in 0u64..100_000_000,
            bytes in 0u64..100_000_000,
        ) {
            let rate = ByteRate { per_second, burst };
            let spent = spent.min(burst);
            let bytes = bytes.min(burst);
            let full_at = take(&rate, 0, 0, spent).unwrap();
            match take(&rate, full_at, 0, bytes) {
                Ok(_) => {}
                Err(wait) => {
                    let later = u64::try_from(wait.as_nanos()).unwrap();
                    prop_assert!(take(&rate, full_at, later, bytes).is_ok());
                }
            }
        }
    }
}
