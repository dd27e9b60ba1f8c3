//! Rate limits shared by every replica: the [`LimitStore`] port, its [`Quota`] and the one
//! rule every implementation follows, [`gcra`].
//!
//! A limit is a bucket (what is limited: API requests, sign-ins per email, ...) and a key
//! inside it (which key, email or network). The generic cell rate algorithm keeps a single
//! number per key, its *theoretical arrival time* (TAT): the instant at which the key's
//! allowance would be whole again. A request of `cost` units pushes it `cost` emission
//! intervals later, and is allowed while the TAT stays within the burst's worth of intervals
//! of now. A key whose TAT has passed is the same as a key never seen, so every store keeps
//! one value per key and lets it expire at its TAT.
//!
//! Times are whole microseconds since the Unix epoch: exact in a PostgreSQL `bigint` and in
//! the doubles of a Redis script (below 2^53 until the year 2255).

use std::num::NonZeroU32;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use thiserror::Error;

/// How much a key may do: `count` units per `period`, of which up to `burst` at once.
///
/// ```
/// use std::num::NonZeroU32;
/// use identity_core::ports::Quota;
///
/// let five = NonZeroU32::new(5).unwrap();
/// let quota = Quota::per_minute(five);
/// assert_eq!(quota.emission_interval_us(), 12_000_000);
/// assert_eq!(quota.tolerance_us(), 60_000_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// Units refilled per period.
    pub count: NonZeroU32,
    /// The period.
    pub period: Duration,
    /// Units that may be used at once, from a full allowance.
    pub burst: NonZeroU32,
}

impl Quota {
    /// `count` a second, sustained, and bursts of `burst`.
    #[must_use]
    pub fn per_second(count: NonZeroU32, burst: NonZeroU32) -> Self {
        Self {
            count,
            period: Duration::from_secs(1),
            burst,
        }
    }

    /// `count` a minute, all usable at once.
    #[must_use]
    pub fn per_minute(count: NonZeroU32) -> Self {
        Self {
            count,
            period: Duration::from_secs(60),
            burst: count,
        }
    }

    /// Microseconds between two units at the sustained rate; at least 1.
    #[must_use]
    pub fn emission_interval_us(&self) -> i64 {
        let period = i64::try_from(self.period.as_micros()).unwrap_or(i64::MAX);
        (period / i64::from(self.count.get())).max(1)
    }

    /// Microseconds of the whole burst: how far ahead of now a key's TAT may run.
    #[must_use]
    pub fn tolerance_us(&self) -> i64 {
        self.emission_interval_us()
            .saturating_mul(i64::from(self.burst.get()))
    }

    /// The whole units a key may still take at once when its allowance is whole again
    /// `full_in` from now (what [`Decision::Allowed`] says).
    ///
    /// ```
    /// use std::num::NonZeroU32;
    /// use std::time::Duration;
    /// use identity_core::ports::Quota;
    ///
    /// // 5 a minute: one unit refills every 12 s.
    /// let quota = Quota::per_minute(NonZeroU32::new(5).unwrap());
    /// assert_eq!(quota.remaining(Duration::ZERO), 5);
    /// assert_eq!(quota.remaining(Duration::from_secs(12)), 4);
    /// assert_eq!(quota.remaining(Duration::from_secs(13)), 3);
    /// assert_eq!(quota.remaining(Duration::from_secs(60)), 0);
    /// ```
    #[must_use]
    pub fn remaining(&self, full_in: Duration) -> u32 {
        let used = i64::try_from(full_in.as_micros()).unwrap_or(i64::MAX);
        let left = self.tolerance_us().saturating_sub(used).max(0) / self.emission_interval_us();
        u32::try_from(left)
            .unwrap_or(u32::MAX)
            .min(self.burst.get())
    }
}

/// What a store says about one more request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Counted; go ahead. The key's allowance is whole again `full_in` from now (zero only for
    /// a cost of nothing), which is what [`Quota::remaining`] reads.
    Allowed {
        /// How long until the key could take a whole burst again.
        full_in: Duration,
    },
    /// Not counted: the key has used its allowance. The earliest the same request would be
    /// allowed is `retry_after` from now.
    Limited {
        /// How long to wait.
        retry_after: Duration,
    },
}

impl Decision {
    /// Whether the request was counted and may go ahead.
    #[must_use]
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allowed { .. })
    }
}

/// Why a limit store did not answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LimitError {
    /// The store could not be reached, timed out or is overloaded.
    #[error("limit store unavailable: {0}")]
    Unavailable(String),
    /// The store answered something that is not a decision (a bug or tampering).
    #[error("limit store answered nonsense: {0}")]
    Corrupt(String),
}

/// Keeps rate limits where every replica sees them. Each call is one atomic step on one key:
/// read its TAT, apply [`gcra`], store the new TAT to expire at it. Implementations keep one
/// value per `(bucket, key)` and nothing else.
#[async_trait]
pub trait LimitStore: Send + Sync {
    /// Takes `cost` units from `key` of `bucket` under `quota` at `now`.
    ///
    /// # Errors
    /// [`LimitError`] when the store cannot decide.
    async fn take(
        &self,
        bucket: &str,
        key: &str,
        quota: Quota,
        cost: u32,
        now: DateTime<Utc>,
    ) -> Result<Decision, LimitError>;
}

/// Microseconds since the Unix epoch of `now`.
#[must_use]
pub fn micros(now: DateTime<Utc>) -> i64 {
    now.timestamp_micros()
}

/// The rule of every store: given the stored TAT (`None` for a key not held) and `now`, the
/// decision and the TAT to store (`None`: leave the stored value as it is).
///
/// ```
/// use std::num::NonZeroU32;
/// use identity_core::ports::{Decision, Quota, gcra};
///
/// let quota = Quota::per_minute(NonZeroU32::new(2).unwrap());
/// let (first, tat) = gcra(None, 0, &quota, 1);
/// assert!(first.is_allowed());
/// let (second, tat) = gcra(tat, 0, &quota, 1);
/// assert_eq!(second, Decision::Allowed { full_in: std::time::Duration::from_secs(60) });
/// let (third, kept) = gcra(tat, 0, &quota, 1);
/// assert!(matches!(third, Decision::Limited { .. }));
/// assert_eq!(kept, None);
/// ```
#[must_use]
pub fn gcra(stored: Option<i64>, now_us: i64, quota: &Quota, cost: u32) -> (Decision, Option<i64>) {
    let tat = stored.unwrap_or(now_us).max(now_us);
    let new_tat = tat.saturating_add(quota.emission_interval_us().saturating_mul(i64::from(cost)));
    let allow_at = new_tat.saturating_sub(quota.tolerance_us());
    if allow_at <= now_us {
        let full_in = u64::try_from(new_tat - now_us).unwrap_or(0);
        (
            Decision::Allowed {
                full_in: Duration::from_micros(full_in),
            },
            Some(new_tat),
        )
    } else {
        let wait = u64::try_from(allow_at - now_us).unwrap_or(u64::MAX);
        (
            Decision::Limited {
                retry_after: Duration::from_micros(wait),
            },
            None,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: u32) -> NonZeroU32 {
        NonZeroU32::new(v).unwrap()
    }

    #[test]
    fn a_burst_is_allowed_then_one_unit_per_interval() {
        let quota = Quota::per_second(n(10), n(3));
        let mut tat = None;
        for _ in 0..3 {
            let (d, next) = gcra(tat, 0, &quota, 1);
            assert!(d.is_allowed());
            tat = next;
        }
        let (d, kept) = gcra(tat, 0, &quota, 1);
        assert_eq!(
            d,
            Decision::Limited {
                retry_after: Duration::from_millis(100)
            }
        );
        assert_eq!(kept, None);
        let (d, _) = gcra(tat, 100_000, &quota, 1);
        assert!(d.is_allowed(), "one interval later, one more unit");
    }

    #[test]
    fn a_cost_takes_as_many_units() {
        let quota = Quota::per_minute(n(5));
        let (d, tat) = gcra(None, 0, &quota, 5);
        assert_eq!(
            d,
            Decision::Allowed {
                full_in: Duration::from_secs(60)
            }
        );
        assert!(matches!(
            gcra(tat, 0, &quota, 1).0,
            Decision::Limited { .. }
        ));
        assert!(matches!(
            gcra(None, 0, &quota, 6).0,
            Decision::Limited { .. }
        ));
    }
}
