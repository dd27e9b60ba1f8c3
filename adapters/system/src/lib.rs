//! The system implementations of [`runtime_core`]'s ports and of the secret randomness
//! port: the wall clock, a tokio timer, random (v4) and time-ordered (v7) UUIDs and the
//! operating system's random generator. The server wires these into the cores; tests use the
//! fixed versions in `runtime_core` and `identity_core::randomness` instead.
//!
//! ```
//! use identity_core::randomness::SecretRng;
//! use runtime_core::{Clock, IdGenerator};
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

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::randomness::SecretRng;
use rand::TryRng as _;
use rand::rngs::SysRng;
use runtime_core::{Clock, IdGenerator, Timer};
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

/// Version 7 UUIDs: the time in milliseconds, then random bits, so that ids made one after
/// another sort one after another.
///
/// The server makes alert tokens and leases with these. Each token keys a row in several
/// tables and indexes; with random ids, every new request and every update lands on a page of
/// its own in each index, and the database writes a whole page for it, where ids in time
/// order fill the same few pages at the end. A token is no secret (a file is read through a
/// signed URL, not by knowing its token), and the time it shows is when the client posted
/// it. Ids that should not tell when they were made (accounts, keys, responses) stay
/// [`RandomIds`].
///
/// ```
/// use runtime_core::IdGenerator;
/// use insights_system::TimeOrderedIds;
///
/// let (first, second) = (TimeOrderedIds.new_id(), TimeOrderedIds.new_id());
/// assert_eq!(first.get_version_num(), 7);
/// assert!(first < second);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TimeOrderedIds;

impl IdGenerator for TimeOrderedIds {
    fn new_id(&self) -> Uuid {
        Uuid::now_v7()
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
    fn time_ordered_ids_sort_in_the_order_they_were_made() {
        let ids: Vec<Uuid> = (0..1_000).map(|_| TimeOrderedIds.new_id()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
        let distinct: std::collections::HashSet<Uuid> = ids.iter().copied().collect();
        assert_eq!(distinct.len(), ids.len());
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
