//! When new alert requests are refused rather than queued.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::AcceptError;
use super::retry::secs;
use crate::ports::Backlog;

/// When new alert requests are refused rather than queued, so that every accepted request is
/// delivered soon instead of waiting behind a backlog that only adds delay.
///
/// A job *waits* while it is due and no worker holds it. Two readings tell how long a key's
/// new request would wait (claims being fair, each key's backlog is its own):
///
/// - how long the key's longest-waiting job has waited already, which the store knows for
///   every replica;
/// - when the process has seen how long the key's jobs hold a worker ([`KeyPace`]), the time
///   [`PipelineConfig::per_key_jobs`](super::PipelineConfig::per_key_jobs) workers take to
///   serve the jobs waiting ahead of the request. This one reacts at once to a burst, which the
///   first only sees once the burst has waited; it assumes the key has all the workers it may
///   hold, which it has not when other keys wait too.
///
/// A request of a key is refused with [`AcceptError::Busy`] when
///
/// - the key's queue *stands* past [`Backpressure::target_queue_delay`]: its oldest job has
///   waited longer than the target. The key then sends more than its workers take, and more
///   work queued would only lengthen every one of its requests' wait, so the key is held at
///   the target; a burst its workers clear within the target is accepted whole;
/// - either reading is past half of [`Backpressure::max_queue_delay`], however short a time
///   the queue has stood (one customer's flood is refused first, and other keys' jobs still
///   take their turn);
/// - any job of any key has waited more than all of it (the service as a whole is behind).
///
/// The pace is per process: a replica that has not run the key's jobs lately judges by the
/// first reading alone. A key with [`Backpressure::max_pending_per_key`] unfinished requests
/// (queued, running, or retrying a failing receiver) is refused with
/// [`AcceptError::TooManyPending`].
///
/// ```
/// use std::time::Duration;
///
/// use alerts_core::pipeline::Backpressure;
///
/// let bp = Backpressure::default();
/// assert_eq!(bp.max_queue_delay, Duration::from_secs(30));
/// assert_eq!(bp.key_delay(), Duration::from_secs(15));
/// assert_eq!(bp.target_queue_delay, Duration::from_secs(1));
/// assert_eq!(bp.max_pending_per_key, 10_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Backpressure {
    /// The longest an accepted request should wait for a worker (default 30 s).
    #[serde(with = "secs")]
    pub max_queue_delay: Duration,
    /// The wait a key's queue is kept at while it sends more than its workers take
    /// (default 1 s; at most [`Backpressure::key_delay`] counts).
    #[serde(with = "secs_f64")]
    pub target_queue_delay: Duration,
    /// The most unfinished requests one key may have (default 10,000).
    pub max_pending_per_key: u64,
}

impl Default for Backpressure {
    fn default() -> Self {
        Self {
            max_queue_delay: Duration::from_secs(30),
            target_queue_delay: Duration::from_secs(1),
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

    /// The target a key's standing queue is kept at: [`Backpressure::target_queue_delay`], or
    /// [`Backpressure::key_delay`] when that is shorter.
    #[must_use]
    pub fn target(&self) -> Duration {
        self.target_queue_delay.min(self.key_delay())
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
        let key_waited = waited(backlog.key_oldest_waiting);
        let expected = pace.map(|p| p.expected_wait(backlog.key_waiting));
        let longest = expected.map_or(key_waited, |e| e.max(key_waited));
        if longest > self.key_delay() {
            return busy(longest, self.key_delay(), BusyScope::Key);
        }
        if key_waited > self.target() {
            return busy(key_waited, self.target(), BusyScope::Key);
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
    /// The wait for a worker of a request that joins `waiting` jobs of the key: the rounds of
    /// `workers` jobs ahead of it. With none waiting, a worker is free or about to be.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use alerts_core::pipeline::KeyPace;
    ///
    /// let pace = KeyPace { job_time: Duration::from_millis(50), workers: 4 };
    /// assert_eq!(pace.expected_wait(0), Duration::ZERO);
    /// assert_eq!(pace.expected_wait(4), Duration::from_millis(50));
    /// assert_eq!(pace.expected_wait(5), Duration::from_millis(100));
    /// assert_eq!(pace.expected_wait(1_000), Duration::from_millis(12_500));
    /// ```
    #[must_use]
    pub fn expected_wait(&self, waiting: u64) -> Duration {
        let workers = u64::try_from(self.workers.max(1)).unwrap_or(u64::MAX);
        let rounds = u32::try_from(waiting.div_ceil(workers)).unwrap_or(u32::MAX);
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

/// A duration as seconds with a fraction, for the target (which is often under a second).
mod secs_f64 {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let secs = f64::deserialize(d)?;
        Duration::try_from_secs_f64(secs).map_err(D::Error::custom)
    }
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
        /// waited (or, at the key's pace, would make it wait) past half the bound, its oldest
        /// job waited past the target, or anyone's waited past the whole bound; a refusal's
        /// `Retry-After` is between 1 s and the bound.
        #[test]
        fn admit_refuses_exactly_past_the_thresholds(
            pending in 0u64..20,
            waiting in 0u64..20,
            key_waited in proptest::option::of(0i64..100),
            any_extra in proptest::option::of(0i64..100),
            bound in 1u64..60,
            target_ms in 0u64..40_000,
            pace in proptest::option::of((0u64..20_000, 1usize..8)),
        ) {
            let bp = Backpressure {
                max_queue_delay: Duration::from_secs(bound),
                target_queue_delay: Duration::from_millis(target_ms),
                max_pending_per_key: 10,
            };
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
            // In milliseconds: the wait the key's oldest job has had, and the rounds of jobs
            // ahead counted out one by one.
            let waited_ms = key_waited.map_or(0, |w| w as u64 * 1_000);
            let expected_ms = pace.map(|p| {
                let mut rounds = 0;
                let mut left = waiting;
                while left > 0 {
                    left = left.saturating_sub(p.workers as u64);
                    rounds += 1;
                }
                rounds * p.job_time.as_millis() as u64
            });
            let half_ms = bound * 1_000 / 2;
            let key_over = waited_ms.max(expected_ms.unwrap_or(0)) * 2 > bound * 1_000
                || waited_ms > target_ms.min(half_ms);
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
