//! The system implementations of [`aq_core::runtime`]'s ports and of the secret randomness
//! port: the wall clock, a tokio timer, random (v4) UUIDs and the operating system's random
//! generator. The server wires these into the cores; tests use the fixed versions in
//! `aq_core::runtime` and `identity_core::randomness` instead.
//!
//! ```
//! use identity_core::randomness::SecretRng;
//! use aq_core::runtime::{Clock, IdGenerator};
//! use insights_system::{OsRandomness, RandomIds, SystemClock};
//!
//! assert!(SystemClock.now().timestamp() > 1_700_000_000);
//! assert_ne!(RandomIds.new_id(), RandomIds.new_id());
//! let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
//! OsRandomness.fill_bytes(&mut a);
//! OsRandomness.fill_bytes(&mut b);
//! assert_ne!(a, b);
//! ```

use std::time::Duration;

use aq_core::runtime::{Clock, IdGenerator, Timer};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::randomness::SecretRng;
use rand::TryRng as _;
use rand::rngs::SysRng;
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

/// Secret bytes straight from the operating system's generator (`getrandom`), with no
/// user-space state that a fork or a snapshot could duplicate.
#[derive(Debug, Clone, Copy, Default)]
pub struct OsRandomness;

impl SecretRng for OsRandomness {
    fn fill_bytes(&self, dest: &mut [u8]) {
        // Without the system generator no secret can be made safely; stopping beats handing
        // out a guessable key.
        SysRng
            .try_fill_bytes(dest)
            .expect("the operating system's random generator failed");
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

    #[test]
    fn two_keys_from_the_os_generator_differ() {
        use identity_core::keys::{API_KEY_PREFIX, ApiKey};

        let (a, b) = (
            ApiKey::generate(&OsRandomness),
            ApiKey::generate(&OsRandomness),
        );
        assert_ne!(a, b);
        assert!(a.expose().starts_with(API_KEY_PREFIX));
        assert_eq!(ApiKey::parse(a.expose()), Ok(a));
    }
}
