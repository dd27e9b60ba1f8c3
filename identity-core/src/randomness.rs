//! The port for secret randomness: the bytes behind API keys, webhook signing secrets,
//! password salts and dashboard session ids.
//!
//! Ids only need to be unique and come from [`runtime_core::IdGenerator`]; secrets must be
//! unpredictable, so they have a port of their own that production wires to the operating
//! system's generator (`insights_system::OsRandomness`). [`SeededRandomness`] is the
//! deterministic version for tests and reproducible examples.
//!
//! ```
//! use identity_core::keys::ApiKey;
//! use identity_core::randomness::{SecretRng, SeededRandomness};
//!
//! let rng = SeededRandomness::new(7);
//! let mut salt = [0u8; 16];
//! rng.fill_bytes(&mut salt);
//! assert_ne!(salt, [0u8; 16]);
//!
//! // The same seed draws the same keys, so a test can name the key it expects.
//! let first = ApiKey::generate(&SeededRandomness::new(7));
//! assert_eq!(first, ApiKey::generate(&SeededRandomness::new(7)));
//! ```

use std::sync::{Mutex, PoisonError};

use rand_pcg::Pcg64;
use rand_pcg::rand_core::{Rng as _, SeedableRng as _};

/// Draws unpredictable bytes for secrets.
pub trait SecretRng: Send + Sync {
    /// Fills `dest` with random bytes.
    fn fill_bytes(&self, dest: &mut [u8]);
}

/// Bytes from a PCG generator with a fixed seed: the same seed gives the same sequence on
/// every platform. Predictable by design, so never for production secrets.
#[derive(Debug)]
pub struct SeededRandomness {
    rng: Mutex<Pcg64>,
}

impl SeededRandomness {
    /// A generator that starts from `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self {
            rng: Mutex::new(Pcg64::seed_from_u64(seed)),
        }
    }
}

impl Default for SeededRandomness {
    /// The generator of seed 0.
    fn default() -> Self {
        Self::new(0)
    }
}

impl SecretRng for SeededRandomness {
    fn fill_bytes(&self, dest: &mut [u8]) {
        self.rng
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .fill_bytes(dest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::{ApiKey, WebhookSecret};

    #[test]
    fn two_keys_from_one_generator_differ() {
        let rng = SeededRandomness::default();
        assert_ne!(ApiKey::generate(&rng), ApiKey::generate(&rng));
        assert_ne!(WebhookSecret::generate(&rng), WebhookSecret::generate(&rng));
    }

    #[test]
    fn the_same_seed_repeats_the_same_secrets() {
        let (a, b) = (SeededRandomness::new(42), SeededRandomness::new(42));
        assert_eq!(ApiKey::generate(&a), ApiKey::generate(&b));
        assert_eq!(WebhookSecret::generate(&a), WebhookSecret::generate(&b));
        assert_ne!(
            ApiKey::generate(&SeededRandomness::new(42)),
            ApiKey::generate(&SeededRandomness::new(43)),
        );
    }
}
