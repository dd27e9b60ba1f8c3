//! What bounds the work an anonymous client can cause through the sign-up and sign-in forms:
//! rate limits per email and per network whose memory stays bounded however many distinct
//! emails or addresses a client invents, and a cap on password hashes running at once.

use std::hash::Hash;
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DashMapStateStore;
use governor::{Quota, RateLimiter};
use identity_core::ids::AccountId;
use sha2::{Digest, Sha256};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Sign-in attempts allowed per email from one client network a minute: enough for a user who
/// mistypes a few times, too few to guess a password. Someone guessing from another network
/// spends their own allowance, not the owner's.
pub const SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE: u32 = 5;
/// Sign-in attempts allowed per email from all networks together a minute: a ceiling on
/// guessing spread over many networks, high enough that one network (which adds at most
/// [`SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE`]) cannot reach it and lock the owner out.
pub const SIGN_INS_PER_EMAIL_PER_MINUTE: u32 = 50;
/// Sign-ins and sign-ups allowed per client network a minute: more than per email, since an
/// office shares one address.
pub const ATTEMPTS_PER_NETWORK_PER_MINUTE: u32 = 30;
/// The most emails or networks each limiter tracks at once. A key is forgotten a minute after
/// its last attempt; past this many live keys, attempts are refused until some expire (so
/// that the limiters' memory stays a few MiB whatever a client sends).
pub const MAX_TRACKED_KEYS: usize = 50_000;
/// Route-playground runs allowed per account a minute: each scores every route and samples it
/// once more for the map's colours, as much work as a few API requests.
pub const PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE: u32 = 20;
/// Test deliveries allowed per account a minute: each is a POST to a URL the account chose,
/// which must not make the server a tool for flooding someone else's host.
pub const TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE: u32 = 5;
/// Heatmap tiles a signed-in account may load for the dashboard's maps in a minute: a map
/// view shows 10 to 20 tiles, so this is a few dozen views, pans and hours a minute, and
/// bounds what the maps can ask of a remote air-quality source.
pub const MAP_TILES_PER_ACCOUNT_PER_MINUTE: u32 = 600;
/// Place forecasts on the Alerts page an account may ask for in a minute: each queries the
/// forecast source for 96 hours of one point (and its pollen days), so this bounds what the
/// page can ask of a remote source, as the tile limit does for the maps.
pub const PLACE_FORECASTS_PER_ACCOUNT_PER_MINUTE: u32 = 30;
/// How many leading bits of an IPv6 address name one client: a /64 is the smallest network
/// a provider hands out, and a client holding one can pick any address in it.
const IPV6_CLIENT_PREFIX: u32 = 64;

/// What a limiter says about one more attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Go ahead.
    Allowed,
    /// This key has used its allowance; wait a minute.
    Limited,
    /// The limiter tracks as many keys as it may; new keys wait until old ones expire.
    Full,
}

/// A keyed rate limit whose keys are forgotten once their allowance has refilled, and which
/// never tracks more than `max_keys` keys.
pub(crate) struct KeyedLimit<K: Hash + Eq + Clone, C: Clock = DefaultClock> {
    limiter: RateLimiter<K, DashMapStateStore<K>, C, NoOpMiddleware<C::Instant>>,
    max_keys: usize,
    // Pruning walks every key, so it runs only when the map has doubled since the last
    // walk: the cost per attempt stays constant.
    prune_at: AtomicUsize,
    refused: AtomicUsize,
}

/// The smallest size at which pruning starts.
const FIRST_PRUNE: usize = 1024;
/// While a limiter is full, one refused attempt in this many walks the keys again to see
/// whether some have expired.
const PRUNE_EVERY_WHEN_FULL: usize = 1024;

impl<K: Hash + Eq + Clone, C: Clock> KeyedLimit<K, C> {
    /// `per_minute` attempts a minute per key, all of them usable at once.
    pub(crate) fn per_minute(per_minute: u32, max_keys: usize, clock: C) -> Self {
        let n = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        Self {
            limiter: RateLimiter::dashmap_with_clock(Quota::per_minute(n).allow_burst(n), clock),
            max_keys,
            prune_at: AtomicUsize::new(FIRST_PRUNE.min(max_keys)),
            refused: AtomicUsize::new(0),
        }
    }

    /// Counts one attempt under `key`.
    pub(crate) fn check(&self, key: &K) -> Verdict {
        let len = self.limiter.len();
        if len >= self.prune_at.load(Ordering::Relaxed) {
            // When full, most attempts are refused without a walk: an attacker inventing
            // keys makes every attempt arrive here.
            let full = len >= self.max_keys;
            if !full
                || self
                    .refused
                    .fetch_add(1, Ordering::Relaxed)
                    .is_multiple_of(PRUNE_EVERY_WHEN_FULL)
            {
                self.prune();
            }
            if self.limiter.len() >= self.max_keys {
                return Verdict::Full;
            }
        }
        match self.limiter.check_key(key) {
            Ok(_) => Verdict::Allowed,
            Err(_) => Verdict::Limited,
        }
    }

    /// Forgets every key whose allowance has refilled: it would behave exactly as a new key.
    pub(crate) fn prune(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
        let live = self.limiter.len();
        self.prune_at.store(
            live.saturating_mul(2)
                .max(FIRST_PRUNE)
                .min(self.max_keys.max(1)),
            Ordering::Relaxed,
        );
    }

    /// How many keys are tracked.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.limiter.len()
    }
}

/// The key of a client's network: an IPv4 address, or the /64 of an IPv6 address. An IPv4
/// address written as IPv6 (`::ffff:a.b.c.d`) is the IPv4 address.
#[must_use]
pub(crate) fn network_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let mask = u128::MAX << (128 - IPV6_CLIENT_PREFIX);
            IpAddr::V6(Ipv6Addr::from(u128::from(v6) & mask))
        }
    }
}

/// What the email limiter keeps of an email: its digest, so that every key has the same small
/// size whatever was typed.
#[must_use]
pub(crate) fn email_key(normalized: &str) -> [u8; 32] {
    Sha256::digest(normalized.as_bytes()).into()
}

/// The sign-in and sign-up limits of one process.
pub(crate) struct SignInLimits {
    by_email_and_network: KeyedLimit<([u8; 32], IpAddr)>,
    by_email: KeyedLimit<[u8; 32]>,
    by_network: KeyedLimit<IpAddr>,
    hashes: Arc<Semaphore>,
}

impl SignInLimits {
    /// Limits with the defaults above and at most `max_hashes` password hashes at once.
    pub(crate) fn new(max_hashes: usize) -> Self {
        Self {
            by_email_and_network: KeyedLimit::per_minute(
                SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE,
                MAX_TRACKED_KEYS,
                DefaultClock::default(),
            ),
            by_email: KeyedLimit::per_minute(
                SIGN_INS_PER_EMAIL_PER_MINUTE,
                MAX_TRACKED_KEYS,
                DefaultClock::default(),
            ),
            by_network: KeyedLimit::per_minute(
                ATTEMPTS_PER_NETWORK_PER_MINUTE,
                MAX_TRACKED_KEYS,
                DefaultClock::default(),
            ),
            hashes: Arc::new(Semaphore::new(max_hashes.max(1))),
        }
    }

    /// One sign-in attempt for `email` (normalised) from `address`, counted before the
    /// password is checked (so that the limits bound the hashing work too). The network is
    /// counted first, then the email from that network, then the email alone: an attempt
    /// refused by one limit is not counted by the next, so a client over its allowance adds
    /// nothing to the email's, and one network alone cannot use up the email's allowance and
    /// keep its owner out.
    pub(crate) fn sign_in(&self, email: &str, address: Option<IpAddr>) -> Verdict {
        let email = email_key(email);
        if let Some(ip) = address {
            match self.by_network.check(&network_of(ip)) {
                Verdict::Allowed => {}
                refused => return refused,
            }
            match self.by_email_and_network.check(&(email, network_of(ip))) {
                Verdict::Allowed => {}
                refused => return refused,
            }
        }
        self.by_email.check(&email)
    }

    /// One sign-up from `address`. It counts against the same allowance as signing in, so
    /// that one client cannot spend the server's CPU and memory on password hashes, or fill
    /// the store with accounts, by signing up instead.
    pub(crate) fn sign_up(&self, address: Option<IpAddr>) -> Verdict {
        address.map_or(Verdict::Allowed, |ip| {
            self.by_network.check(&network_of(ip))
        })
    }

    /// A permit to hash a password, or `None` when as many hashes run as allowed.
    pub(crate) fn hash_permit(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.hashes).try_acquire_owned().ok()
    }
}

/// The limits on what a signed-in account can make the server do outside the API.
pub(crate) struct AccountLimits {
    playground: KeyedLimit<AccountId>,
    test_deliveries: KeyedLimit<AccountId>,
    map_tiles: KeyedLimit<AccountId>,
    place_forecasts: KeyedLimit<AccountId>,
}

impl AccountLimits {
    pub(crate) fn new() -> Self {
        Self {
            playground: KeyedLimit::per_minute(
                PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE,
                MAX_TRACKED_KEYS,
                DefaultClock::default(),
            ),
            test_deliveries: KeyedLimit::per_minute(
                TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE,
                MAX_TRACKED_KEYS,
                DefaultClock::default(),
            ),
            map_tiles: KeyedLimit::per_minute(
                MAP_TILES_PER_ACCOUNT_PER_MINUTE,
                MAX_TRACKED_KEYS,
                DefaultClock::default(),
            ),
            place_forecasts: KeyedLimit::per_minute(
                PLACE_FORECASTS_PER_ACCOUNT_PER_MINUTE,
                MAX_TRACKED_KEYS,
                DefaultClock::default(),
            ),
        }
    }

    /// One route-playground run by `account`.
    pub(crate) fn playground(&self, account: AccountId) -> Verdict {
        self.playground.check(&account)
    }

    /// One test delivery by `account`.
    pub(crate) fn test_delivery(&self, account: AccountId) -> Verdict {
        self.test_deliveries.check(&account)
    }

    /// One heatmap tile for `account`'s maps.
    pub(crate) fn map_tile(&self, account: AccountId) -> Verdict {
        self.map_tiles.check(&account)
    }

    /// One place forecast on `account`'s Alerts page.
    pub(crate) fn place_forecast(&self, account: AccountId) -> Verdict {
        self.place_forecasts.check(&account)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use governor::clock::FakeRelativeClock;

    use super::*;

    #[test]
    fn each_account_has_its_own_test_delivery_allowance() {
        let limits = AccountLimits::new();
        let (a, b) = (
            AccountId::from(uuid::Uuid::from_u128(1)),
            AccountId::from(uuid::Uuid::from_u128(2)),
        );
        for _ in 0..TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE {
            assert_eq!(limits.test_delivery(a), Verdict::Allowed);
        }
        assert_eq!(limits.test_delivery(a), Verdict::Limited);
        assert_eq!(limits.test_delivery(b), Verdict::Allowed);
        for _ in 0..PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE {
            assert_eq!(limits.playground(a), Verdict::Allowed);
        }
        assert_eq!(limits.playground(a), Verdict::Limited);
    }

    #[test]
    fn keys_are_forgotten_once_their_allowance_has_refilled() {
        let clock = FakeRelativeClock::default();
        let limit = KeyedLimit::per_minute(5, MAX_TRACKED_KEYS, clock.clone());
        let mut most = 0;
        for n in 0..20_000_u32 {
            if n % 500 == 0 {
                clock.advance(Duration::from_secs(61));
            }
            assert_eq!(limit.check(&n), Verdict::Allowed);
            most = most.max(limit.len());
        }
        assert!(
            most <= FIRST_PRUNE,
            "20,000 keys, 500 a minute, kept at most {most} at once"
        );
    }

    #[test]
    fn a_full_limiter_refuses_until_keys_expire() {
        let clock = FakeRelativeClock::default();
        let limit = KeyedLimit::per_minute(5, 10, clock.clone());
        for n in 0..10_u32 {
            assert_eq!(limit.check(&n), Verdict::Allowed);
        }
        assert_eq!(limit.check(&10), Verdict::Full);
        assert_eq!(limit.len(), 10, "the refused key is not tracked");
        clock.advance(Duration::from_secs(61));
        // The walk that finds the expired keys comes with the next refused attempts.
        let verdicts: Vec<Verdict> = (0..=PRUNE_EVERY_WHEN_FULL as u32)
            .map(|n| limit.check(&(100 + n % 5)))
            .collect();
        assert!(verdicts.contains(&Verdict::Allowed), "{:?}", &verdicts[..3]);
        assert!(limit.len() <= 10);
    }

    #[test]
    fn a_key_is_limited_after_its_allowance() {
        let limit = KeyedLimit::per_minute(5, 10, FakeRelativeClock::default());
        for _ in 0..5 {
            assert_eq!(limit.check(&"ada"), Verdict::Allowed);
        }
        assert_eq!(limit.check(&"ada"), Verdict::Limited);
        assert_eq!(limit.check(&"bob"), Verdict::Allowed);
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_ipv6_client_is_its_64_and_an_ipv4_client_its_address() {
        assert_eq!(
            network_of(ip("2001:db8:1:2:aaaa::1")),
            network_of(ip("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        );
        assert_eq!(network_of(ip("2001:db8:1:2::1")), ip("2001:db8:1:2::"));
        assert_ne!(
            network_of(ip("2001:db8:1:2::1")),
            network_of(ip("2001:db8:1:3::1"))
        );
        assert_eq!(network_of(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_ne!(network_of(ip("192.0.2.7")), network_of(ip("192.0.2.8")));
    }

    #[test]
    fn every_address_of_a_64_shares_one_allowance() {
        let limits = SignInLimits::new(1);
        for n in 0..ATTEMPTS_PER_NETWORK_PER_MINUTE {
            let address = ip(&format!("2001:db8:5:6::{:x}", n + 1));
            assert_eq!(limits.sign_up(Some(address)), Verdict::Allowed, "{address}");
        }
        assert_eq!(
            limits.sign_up(Some(ip("2001:db8:5:6:ffff::9"))),
            Verdict::Limited
        );
        assert_eq!(
            limits.sign_in("ada@example.org", Some(ip("2001:db8:5:6:1234::1"))),
            Verdict::Limited
        );
        assert_eq!(
            limits.sign_up(Some(ip("2001:db8:5:7::1"))),
            Verdict::Allowed,
            "the next /64 is another client"
        );
    }

    #[test]
    fn a_limited_network_adds_no_email_to_the_email_limiter() {
        let limits = SignInLimits::new(1);
        let address = Some(ip("192.0.2.1"));
        for n in 0..ATTEMPTS_PER_NETWORK_PER_MINUTE {
            assert_eq!(
                limits.sign_in(&format!("{n}@example.org"), address),
                Verdict::Allowed
            );
        }
        let tracked = limits.by_email.len();
        for n in 0..100 {
            assert_eq!(
                limits.sign_in(&format!("late{n}@example.org"), address),
                Verdict::Limited
            );
        }
        assert_eq!(limits.by_email.len(), tracked);
    }

    #[test]
    fn guesses_from_one_network_leave_the_owner_their_own_allowance() {
        let limits = SignInLimits::new(1);
        let (guesser, owner) = (Some(ip("198.51.100.7")), Some(ip("203.0.113.9")));
        for _ in 0..SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE {
            assert_eq!(limits.sign_in("ada@example.org", guesser), Verdict::Allowed);
        }
        assert_eq!(limits.sign_in("ada@example.org", guesser), Verdict::Limited);
        assert_eq!(
            limits.sign_in("ada@example.org", owner),
            Verdict::Allowed,
            "the owner's network has its own allowance"
        );
        assert_eq!(
            limits.sign_in("bob@example.org", guesser),
            Verdict::Allowed,
            "the guesser's other emails have theirs"
        );
    }

    #[test]
    fn guesses_spread_over_many_networks_meet_the_cap_per_email() {
        let limits = SignInLimits::new(1);
        let mut allowed = 0;
        for n in 0..=255_u32 {
            for _ in 0..SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE + 2 {
                let address = Some(ip(&format!("198.51.100.{n}")));
                if limits.sign_in("ada@example.org", address) == Verdict::Allowed {
                    allowed += 1;
                }
            }
        }
        assert_eq!(allowed, SIGN_INS_PER_EMAIL_PER_MINUTE);
    }

    // One network alone cannot lock an email: its attempts stop at the per-network cap for
    // that email, well below the cap per email alone.
    const _: () =
        assert!(SIGN_INS_PER_EMAIL_PER_MINUTE > SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE);

    #[test]
    fn password_hashes_beyond_the_cap_get_no_permit() {
        let limits = SignInLimits::new(2);
        let first = limits.hash_permit().unwrap();
        let _second = limits.hash_permit().unwrap();
        assert!(limits.hash_permit().is_none());
        drop(first);
        assert!(limits.hash_permit().is_some());
    }
}
