//! Unknown API keys, counted per client network: each costs the store an indexed lookup, and a
//! client that sends well-formed random keys could otherwise make the server ask the store as
//! fast as it can send them.
//!
//! Each unknown key a network tries is taken from its allowance in the shared limit store
//! (bucket [`UNKNOWN_KEY_BUCKET`]), so every replica counts it. Once a network is over its
//! allowance, this process remembers it until the allowance refills and answers 429 before it
//! asks the store anything, whichever key the network sends: a known key from that network is
//! refused too, since telling it apart would take the lookup this limit saves. Only the refused
//! networks are remembered here, at most [`MAX_REMEMBERED`] of them, so a request with a known
//! key costs nothing more than before.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use identity_core::limiter::{Limiter, Outcome};
use identity_core::ports::Quota;

/// The bucket of unknown keys per client network in the limit store.
pub const UNKNOWN_KEY_BUCKET: &str = "api_unknown_key_network";

/// The most refused networks one process remembers at once: a few MiB. Past it, a newly
/// refused network is not remembered and its next unknown key asks the limit store again,
/// which still refuses it.
pub const MAX_REMEMBERED: usize = 65_536;

/// The networks over their allowance of unknown keys, and until when.
pub(crate) struct UnknownKeys {
    quota: Quota,
    refused: Mutex<HashMap<IpAddr, DateTime<Utc>>>,
}

impl UnknownKeys {
    /// Networks may try `quota`'s worth of unknown keys.
    pub(crate) fn new(quota: Quota) -> Self {
        Self {
            quota,
            refused: Mutex::new(HashMap::new()),
        }
    }

    /// How long `network` must wait before the store is asked for its keys again, if it is
    /// over its allowance.
    pub(crate) fn refused(&self, network: IpAddr, now: DateTime<Utc>) -> Option<Duration> {
        let refused = self.refused.lock().unwrap_or_else(PoisonError::into_inner);
        let until = *refused.get(&network)?;
        (until > now).then(|| (until - now).to_std().unwrap_or(Duration::ZERO))
    }

    /// Counts an unknown key from `network`; when the network is now over its allowance,
    /// remembers it and says how long it must wait.
    pub(crate) async fn count(
        &self,
        limiter: &Limiter,
        network: IpAddr,
        now: DateTime<Utc>,
    ) -> Option<Duration> {
        let outcome = limiter
            .take(UNKNOWN_KEY_BUCKET, &network.to_string(), self.quota, now)
            .await;
        let Outcome::Limited { retry_after } = outcome else {
            // Allowed, or the store cannot tell: an unknown key is answered 401 either way.
            return None;
        };
        let until = now + chrono::Duration::from_std(retry_after).unwrap_or(chrono::Duration::MAX);
        let mut refused = self.refused.lock().unwrap_or_else(PoisonError::into_inner);
        if refused.len() >= MAX_REMEMBERED {
            refused.retain(|_, until| *until > now);
        }
        if refused.len() < MAX_REMEMBERED {
            refused.insert(network, until);
        }
        Some(retry_after)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::num::NonZeroU32;

    use super::*;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap()
    }

    #[tokio::test]
    async fn a_network_over_its_allowance_is_refused_until_it_refills() {
        let limiter = Limiter::in_process();
        let quota = Quota::per_minute(NonZeroU32::new(2).unwrap());
        let keys = UnknownKeys::new(quota);
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.7".parse().unwrap(), "192.0.2.8".parse().unwrap());
        assert_eq!(keys.count(&limiter, a, at(0)).await, None);
        assert_eq!(keys.count(&limiter, a, at(0)).await, None);
        assert_eq!(keys.refused(a, at(0)), None, "within the allowance");
        let wait = keys.count(&limiter, a, at(0)).await.unwrap();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert_eq!(keys.refused(a, at(1)), Some(wait - Duration::from_secs(1)));
        assert_eq!(keys.refused(b, at(1)), None, "each network on its own");
        assert_eq!(keys.refused(a, at(31)), None, "refilled");
    }
}
