//! When failed deliveries are tried again.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ids::Token;

/// When failed deliveries are tried again: fixed delays after the first attempts, then a
/// steady interval, each with a deterministic jitter, until a window after the first attempt
/// has passed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RetrySchedule {
    /// The delay after the 1st, 2nd, ... failed attempt (default 5 s, 30 s, 2 min, 10 min,
    /// 30 min, 1 h).
    #[serde(with = "secs_list")]
    pub delays: Vec<Duration>,
    /// The delay after every later failed attempt (default 1 h).
    #[serde(with = "secs")]
    pub then_every: Duration,
    /// No attempt is scheduled later than this after the first one (default 24 h).
    #[serde(with = "secs")]
    pub window: Duration,
    /// The jitter as a fraction of each delay, 0 to 1 (default 0.1: ±10 %). It is derived
    /// from a hash of the token and the attempt number, so that retries of many deliveries
    /// spread out while every run of the same job computes the same times.
    pub jitter: f64,
}

impl Default for RetrySchedule {
    fn default() -> Self {
        Self {
            delays: [5, 30, 120, 600, 1800, 3600]
                .map(Duration::from_secs)
                .to_vec(),
            then_every: Duration::from_secs(3600),
            window: Duration::from_secs(24 * 3600),
            jitter: 0.1,
        }
    }
}

impl RetrySchedule {
    /// The delay after failed attempt number `attempt` (1-based) of `token`, jitter included.
    ///
    /// ```
    /// use alerts_core::ids::Token;
    /// use alerts_core::pipeline::RetrySchedule;
    /// use std::time::Duration;
    ///
    /// let schedule = RetrySchedule::default();
    /// let token = Token(uuid::Uuid::from_u128(7));
    /// let first = schedule.delay(token, 1);
    /// assert!(first >= Duration::from_millis(4_500) && first <= Duration::from_millis(5_500));
    /// assert_eq!(schedule.delay(token, 1), first, "deterministic");
    /// let late = schedule.delay(token, 20);
    /// assert!(late >= Duration::from_secs(3_240) && late <= Duration::from_secs(3_960));
    /// ```
    #[must_use]
    pub fn delay(&self, token: Token, attempt: u32) -> Duration {
        let index = usize::try_from(attempt.saturating_sub(1)).unwrap_or(usize::MAX);
        let base = self.delays.get(index).copied().unwrap_or(self.then_every);
        let jitter = if self.jitter.is_finite() {
            self.jitter.clamp(0.0, 1.0)
        } else {
            0.0
        };
        base.mul_f64(1.0 + jitter * unit_hash(token, attempt))
    }

    /// When to try again after failed attempt `attempt` made at `now`, or `None` when that
    /// would be later than [`RetrySchedule::window`] after `first_attempt_at`.
    #[must_use]
    pub fn next_attempt(
        &self,
        token: Token,
        attempt: u32,
        first_attempt_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        let at = add(now, self.delay(token, attempt))?;
        let deadline = add(first_attempt_at, self.window)?;
        (at <= deadline).then_some(at)
    }
}

/// A number in [-1, 1] derived from the token and the attempt number.
fn unit_hash(token: Token, attempt: u32) -> f64 {
    let digest = Sha256::new()
        .chain_update(token.uuid().as_bytes())
        .chain_update(attempt.to_be_bytes())
        .finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    // 53 bits fill an f64 mantissa exactly, so the conversion is lossless.
    let bits = u64::from_be_bytes(first) >> 11;
    #[allow(clippy::cast_precision_loss)]
    let unit = bits as f64 / ((1u64 << 53) - 1) as f64;
    unit * 2.0 - 1.0
}

pub(crate) fn add(t: DateTime<Utc>, d: Duration) -> Option<DateTime<Utc>> {
    t.checked_add_signed(chrono::Duration::from_std(d).ok()?)
}

pub(crate) mod secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_secs())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_secs)
    }
}

mod secs_list {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(crate) fn serialize<S: Serializer>(d: &[Duration], s: S) -> Result<S::Ok, S::Error> {
        d.iter()
            .map(Duration::as_secs)
            .collect::<Vec<_>>()
            .serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Duration>, D::Error> {
        Vec::<u64>::deserialize(d).map(|v| v.into_iter().map(Duration::from_secs).collect())
    }
}
