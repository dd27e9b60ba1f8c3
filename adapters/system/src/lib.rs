//! The system implementations of [`aq_core::runtime`]'s ports: the wall clock, a tokio timer
//! and random (v4) UUIDs. The server wires these into the cores; tests use the fixed versions
//! in `aq_core::runtime` instead.
//!
//! ```
//! use aq_core::runtime::{Clock, IdGenerator};
//! use insights_system::{RandomIds, SystemClock};
//!
//! assert!(SystemClock.now().timestamp() > 1_700_000_000);
//! assert_ne!(RandomIds.new_id(), RandomIds.new_id());
//! ```

use std::time::Duration;

use aq_core::runtime::{Clock, IdGenerator, Timer};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// The system's wall clock, in UTC.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// Sleeps on the tokio runtime's timer; needs a tokio runtime with time enabled.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioTimer;

#[async_trait]
impl Timer for TokioTimer {
    async fn sleep(&self, duration: Duration) {
        tokio::time::sleep(duration).await;
    }
}

/// Random version 4 UUIDs from the operating system's generator.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomIds;

impl IdGenerator for RandomIds {
    fn new_id(&self) -> Uuid {
        Uuid::new_v4()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn timer_waits_at_least_the_duration() {
        let start = std::time::Instant::now();
        TokioTimer.sleep(Duration::from_millis(20)).await;
        assert!(start.elapsed() >= Duration::from_millis(20));
    }

    #[test]
    fn random_ids_are_version_4() {
        assert_eq!(RandomIds.new_id().get_version_num(), 4);
    }
}
