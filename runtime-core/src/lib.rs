//! Ports for time and identity, shared by every core: a clock, a timer and an id generator.
//!
//! The cores never read the system clock, sleep or draw random numbers themselves; they take
//! these traits, so that tests can fix time and ids and replay any sequence of events. The
//! system implementations live in the `insights-system` adapter; the fixed ones here are for
//! tests and examples.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// Tells the current time.
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;
}

/// Waits. Deadlines (a route's scoring budget, a webhook's backoff) are built on it.
#[async_trait]
pub trait Timer: Send + Sync {
    /// Completes after `duration` has passed.
    async fn sleep(&self, duration: Duration);
}

/// Makes globally unique ids (response ids, tokens, delivery ids).
pub trait IdGenerator: Send + Sync {
    /// A new id, never returned before.
    fn new_id(&self) -> Uuid;
}

/// A clock that stands still until moved: for tests and reproducible examples.
///
/// ```
/// use runtime_core::{Clock, FixedClock};
/// use chrono::{TimeZone, Utc};
///
/// let t0 = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
/// let clock = FixedClock::new(t0);
/// clock.advance(chrono::Duration::minutes(5));
/// assert_eq!(clock.now(), t0 + chrono::Duration::minutes(5));
/// ```
#[derive(Debug)]
pub struct FixedClock {
    now: Mutex<DateTime<Utc>>,
}

impl FixedClock {
    /// A clock showing `now`.
    #[must_use]
    pub fn new(now: DateTime<Utc>) -> Self {
        Self {
            now: Mutex::new(now),
        }
    }

    /// Moves the clock to `now`.
    pub fn set(&self, now: DateTime<Utc>) {
        *self
            .now
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = now;
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: chrono::Duration) {
        let mut now = self
            .now
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *now += by;
    }
}

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        *self
            .now
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Ids counting up from 1 (`00000000-0000-0000-0000-000000000001`, ...): unique and
/// predictable, for tests and reproducible examples.
///
/// ```
/// use runtime_core::{IdGenerator, SequentialIds};
///
/// let ids = SequentialIds::default();
/// assert_eq!(ids.new_id().as_u128(), 1);
/// assert_eq!(ids.new_id().as_u128(), 2);
/// ```
#[derive(Debug, Default)]
pub struct SequentialIds {
    next: AtomicU64,
}

impl IdGenerator for SequentialIds {
    fn new_id(&self) -> Uuid {
        Uuid::from_u128(u128::from(self.next.fetch_add(1, Ordering::Relaxed)) + 1)
    }
}
