//! When new alert requests are refused rather than queued.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::AcceptError;
use super::retry::secs;
use crate::ports::Backlog;

/// When new alert requests are refused rather than queued, so that every accepted request is
/// delivered within a bound instead of waiting behind a backlog that only grows.
///
/// A job *waits* while it is due and no worker holds it. A request of a key is refused with
/// [`AcceptError::Busy`] when the wait it can expect is more than half of
/// [`Backpressure::max_queue_delay`], or when any job of any key has waited more than all of it
/// (the service as a whole is behind). The wait a request can expect is the longer of two
/// readings of the key's own backlog (so that one customer's flood is refused first, and other
/// keys' jobs still take their turn, claims being fair):
///
/// - how long the key's longest-waiting job has waited already;
/// - when the process has seen how long the key's jobs hold a worker ([`KeyPace`]), the time to
///   serve the key's waiting jobs, `workers` at a time, and then the request's own. This one
///   reacts at once to a burst, which the first only sees once the burst has waited.
///
/// The pace is per process: a replica that has not run the key's jobs lately judges by the
/// first reading alone. A key with [`Backpressure::max_pending_per_key`] unfinished requests (queued, running, or retrying a
/// failing receiver) is refused with [`AcceptError::TooManyPending`].
///
/// ```
/// use std::time::Duration;
///
/// use alerts_core::pipeline::Backpressure;
///
/// let bp = Backpressure::default();
/// assert_eq!(bp.max_queue_delay, Duration::from_secs(30));
/// assert_eq!(bp.key_delay(), Duration::from_secs(15));
/// assert_eq!(bp.max_pending_per_key, 10_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Backpressure {
    /// The longest an accepted request should wait for a worker (default 30 s).
    #[serde(with = "secs")]
    pub max_queue_delay: Duration,
    /// The most unfinished requests one key may have (default 10,000).
    pub max_pending_per_key: u64,
}

impl Default for Backpressure {
    fn default() -> Self {
        Self {
            max_queue_delay: Duration::from_secs(30),
            max_pending_per_key: 10_000,
        }
    }
}

impl Backpressure {
    /// How long a key's own longest-waiting job may wait before the key's new requests are
    /// refused: half the bound, so that the key's backlog is stopped before it reaches it.
    #[must_use]
    pub fn key_delay(&self) -> Duration {
        self.max_queue_delay / 2
    }

    /// Whether a request of a key may join the queue as `backlog` describes it at `now`, the
    /// key's jobs going at `pace` when it is known.
    ///
    /// # Errors
    /// [`AcceptError::TooManyPending`] or [`AcceptError::Busy`], as the type documents; the
    /// `retry_after` of `Busy` is how far the backlog is over its threshold (at least 1 s, at
    /// most the bound), the time the queue needs to drain back under it at the pace it keeps.
    pub fn admit(
        &self,
        backlog: &Backlog,
        now: DateTime<Utc>,
        pace: Option<KeyPace>,
    ) -> Result<(), AcceptError> {
        if backlog.key_pending >= self.max_pending_per_key {
            return Err(AcceptError::TooManyPending {
                limit: self.max_pending_per_key,
            });
        }
        let waited = |since: Option<DateTime<Utc>>| {
            since
                .and_then(|t| (now - t).to_std().ok())
                .unwrap_or_default()
        };
        let busy = |waited: Duration, threshold: Duration, scope| {
            let over = waited.saturating_sub(threshold);
            Err(AcceptError::Busy {
                retry_after: over.clamp(
                    Duration::from_secs(1),
                    self.max_queue_delay.max(Duration::from_secs(1)),
                ),
                scope,
            })
        };
        let expected = pace.map_or(Duration::ZERO, |p| p.expected_wait(backlog.key_waiting));
        let key_waited = waited(backlog.key_oldest_waiting).max(expected);
        if key_waited > self.key_delay() {
            return busy(key_waited, self.key_delay(), BusyScope::Key);
        }
        let any_waited = waited(backlog.oldest_waiting);
        if any_waited > self.max_queue_delay {
            return busy(any_waited, self.max_queue_delay, BusyScope::Service);
        }
        Ok(())
    }
}

/// How fast a key's jobs go: how long one holds a worker, and how many of them run at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyPace {
    /// How long one of the key's jobs holds its worker, lately.
    pub job_time: Duration,
    /// How many of the key's jobs run at once, at most.
    pub workers: usize,
}

impl KeyPace {
    /// The wait of a request that joins `waiting` jobs of the key: the rounds of `workers`
    /// jobs ahead of it, then its own.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use alerts_core::pipeline::KeyPace;
    ///
    /// let pace = KeyPace { job_time: Duration::from_millis(50), workers: 4 };
    /// assert_eq!(pace.expected_wait(0), Duration::from_millis(50));
    /// assert_eq!(pace.expected_wait(4), Duration::from_millis(100));
    /// assert_eq!(pace.expected_wait(1_000), Duration::from_millis(12_550));
    /// ```
    #[must_use]
    pub fn expected_wait(&self, waiting: u64) -> Duration {
        let workers = u64::try_from(self.workers.max(1)).unwrap_or(u64::MAX);
        let rounds = u32::try_from(waiting / workers + 1).unwrap_or(u32::MAX);
        self.job_time.saturating_mul(rounds)
    }
}

/// Whose backlog refused a request ([`AcceptError::Busy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusyScope {
    /// The key's own requests wait too long.
    Key,
    /// Requests of every key wait too long.
    Service,
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use proptest::prelude::*;

    use super::*;

    fn t(secs: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap() + chrono::Duration::seconds(secs)
    }

    proptest! {
        /// A request is refused exactly when the key is at its pending limit, its own backlog
        /// waited (or, at the key's pace, would make it wait) past half the bound, or anyone's
        /// waited past the whole bound; a refusal's `Retry-After` is between 1 s and the bound.
        #[test]
        fn admit_refuses_exactly_past_the_thresholds(
            pending in 0u64..20,
            waiting in 0u64..20,
            key_waited in proptest::option::of(0i64..100),
            any_extra in proptest::option::of(0i64..100),
            bound in 1u64..60,
            pace in proptest::option::of((0u64..20_000, 1usize..8)),
        ) {
            let bp = Backpressure { max_queue_delay: Duration::from_secs(bound), max_pending_per_key: 10 };
            let now = t(1_000);
            let any_waited = match (key_waited, any_extra) {
                (Some(k), Some(e)) => Some(k + e),
                (Some(k), None) => Some(k),
                (None, e) => e,
            };
            let backlog = Backlog {
                key_pending: pending,
                key_waiting: waiting,
                key_oldest_waiting: key_waited.map(|w| now - chrono::Duration::seconds(w)),
                oldest_waiting: any_waited.map(|w| now - chrono::Duration::seconds(w)),
            };
            let pace = pace.map(|(ms, workers)| KeyPace { job_time: Duration::from_millis(ms), workers });
            // The expected wait, counted out job by job: the rounds ahead, then its own.
            let expected = pace.map_or(0, |p| {
                let rounds = waiting.div_ceil(p.workers as u64) + u64::from(waiting % p.workers as u64 == 0);
                rounds * p.job_time.as_millis() as u64
            });
            let key_over = key_waited.is_some_and(|w| Duration::from_secs(w as u64) > bp.key_delay())
                || Duration::from_millis(expected) > bp.key_delay();
            let any_over = any_waited.is_some_and(|w| w as u64 > bound);
            match bp.admit(&backlog, now, pace) {
                Ok(()) => prop_assert!(pending < 10 && !key_over && !any_over),
                Err(AcceptError::TooManyPending { limit }) => {
                    prop_assert_eq!(limit, 10);
                    prop_assert!(pending >= 10);
                }
                Err(AcceptError::Busy { retry_after, scope }) => {
                    prop_assert!(pending < 10);
                    prop_assert_eq!(scope == BusyScope::Key, key_over);
                    prop_assert!(key_over || any_over);
                    prop_assert!(retry_after >= Duration::from_secs(1));
                    prop_assert!(retry_after <= Duration::from_secs(bound));
                }
                Err(other) => prop_assert!(false, "unexpected {other:?}"),
            }
        }
    }
}
