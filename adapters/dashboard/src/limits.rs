//! What bounds the work an anonymous client can cause through the sign-up and sign-in forms
//! (rate limits per email and per network, and a cap on password hashes running at once), and
//! what a signed-in account can make the server do outside the API. The limits are kept by a
//! [`Limiter`]: in this process by default, in the shared limit store when the server has one,
//! so that every replica counts the same attempts. The sign-in and sign-up limits refuse when
//! that store cannot answer, whatever the server's setting: a password guesser must not get
//! an allowance per replica during an outage.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use identity_core::ids::AccountId;
use identity_core::limiter::{Limiter, Outcome};
use identity_core::network::network_of;
use identity_core::ports::Quota;
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
/// What a limit says about one more attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Go ahead.
    Allowed,
    /// This key has used its allowance; wait a minute.
    Limited,
    /// The limit store cannot tell and the attempt is refused: 503, retry shortly.
    Unavailable,
}

impl From<Outcome> for Verdict {
    fn from(outcome: Outcome) -> Self {
        match outcome {
            Outcome::Allowed { .. } => Verdict::Allowed,
            Outcome::Limited { .. } => Verdict::Limited,
            Outcome::Unavailable { .. } => Verdict::Unavailable,
        }
    }
}

/// The limit store's buckets of the dashboard: fixed names, shared by every replica.
mod bucket {
    pub(super) const SIGN_IN_NETWORK: &str = "sign_in_network";
    pub(super) const SIGN_IN_EMAIL_NETWORK: &str = "sign_in_email_network";
    pub(super) const SIGN_IN_EMAIL: &str = "sign_in_email";
    pub(super) const PLAYGROUND: &str = "playground";
    pub(super) const TEST_DELIVERY: &str = "test_delivery";
    pub(super) const MAP_TILE: &str = "map_tile";
    pub(super) const PLACE_FORECAST: &str = "place_forecast";
}

fn per_minute(n: u32) -> Quota {
    Quota::per_minute(NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN))
}

/// What the email limits keep of an email: its digest in hex, so that every key has the same
/// small size whatever was typed, and no store of limits holds an address.
#[must_use]
pub(crate) fn email_key(normalized: &str) -> String {
    hex::encode(Sha256::digest(normalized.as_bytes()))
}

/// The sign-in and sign-up limits.
pub(crate) struct SignInLimits {
    limiter: Arc<Limiter>,
    hashes: Arc<Semaphore>,
}

impl SignInLimits {
    /// Limits with the defaults above, kept by `limiter`, and at most `max_hashes` password
    /// hashes at once in this process.
    pub(crate) fn new(max_hashes: usize, limiter: Arc<Limiter>) -> Self {
        Self {
            limiter,
            hashes: Arc::new(Semaphore::new(max_hashes.max(1))),
        }
    }

    /// One sign-in attempt for `email` (normalised) from `address` at `now`, counted before
    /// the password is checked (so that the limits bound the hashing work too). The network
    /// is counted first, then the email from that network, then the email alone: an attempt
    /// refused by one limit is not counted by the next, so a client over its allowance adds
    /// nothing to the email's, and one network alone cannot use up the email's allowance and
    /// keep its owner out.
    pub(crate) async fn sign_in(
        &self,
        email: &str,
        address: Option<IpAddr>,
        now: DateTime<Utc>,
    ) -> Verdict {
        let email = email_key(email);
        if let Some(ip) = address {
            let network = network_of(ip).to_string();
            match self.network(&network, now).await {
                Verdict::Allowed => {}
                refused => return refused,
            }
            let pair = format!("{email}/{network}");
            let outcome = self
                .limiter
                .take_closed(
                    bucket::SIGN_IN_EMAIL_NETWORK,
                    &pair,
                    per_minute(SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE),
                    now,
                )
                .await;
            match Verdict::from(outcome) {
                Verdict::Allowed => {}
                refused => return refused,
            }
        }
        self.limiter
            .take_closed(
                bucket::SIGN_IN_EMAIL,
                &email,
                per_minute(SIGN_INS_PER_EMAIL_PER_MINUTE),
                now,
            )
            .await
            .into()
    }

    /// One sign-up from `address` at `now`. It counts against the same allowance as signing
    /// in, so that one client cannot spend the server's CPU and memory on password hashes, or
    /// fill the store with accounts, by signing up instead.
    pub(crate) async fn sign_up(&self, address: Option<IpAddr>, now: DateTime<Utc>) -> Verdict {
        match address {
            Some(ip) => self.network(&network_of(ip).to_string(), now).await,
            None => Verdict::Allowed,
        }
    }

    async fn network(&self, network: &str, now: DateTime<Utc>) -> Verdict {
        self.limiter
            .take_closed(
                bucket::SIGN_IN_NETWORK,
                network,
                per_minute(ATTEMPTS_PER_NETWORK_PER_MINUTE),
                now,
            )
            .await
            .into()
    }

    /// A permit to hash a password, or `None` when as many hashes run as allowed.
    pub(crate) fn hash_permit(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.hashes).try_acquire_owned().ok()
    }
}

/// The limits on what a signed-in account can make the server do outside the API. When the
/// limit store cannot answer, they follow the server's setting like the API's rate limit.
pub(crate) struct AccountLimits {
    limiter: Arc<Limiter>,
}

impl AccountLimits {
    pub(crate) fn new(limiter: Arc<Limiter>) -> Self {
        Self { limiter }
    }

    async fn take(
        &self,
        bucket: &str,
        account: AccountId,
        per: u32,
        now: DateTime<Utc>,
    ) -> Verdict {
        self.limiter
            .take(
                bucket,
                &account.0.simple().to_string(),
                per_minute(per),
                now,
            )
            .await
            .into()
    }

    /// One route-playground run by `account`.
    pub(crate) async fn playground(&self, account: AccountId, now: DateTime<Utc>) -> Verdict {
        self.take(
            bucket::PLAYGROUND,
            account,
            PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE,
            now,
        )
        .await
    }

    /// One test delivery by `account`.
    pub(crate) async fn test_delivery(&self, account: AccountId, now: DateTime<Utc>) -> Verdict {
        self.take(
            bucket::TEST_DELIVERY,
            account,
            TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE,
            now,
        )
        .await
    }

    /// One heatmap tile for `account`'s maps.
    pub(crate) async fn map_tile(&self, account: AccountId, now: DateTime<Utc>) -> Verdict {
        self.take(
            bucket::MAP_TILE,
            account,
            MAP_TILES_PER_ACCOUNT_PER_MINUTE,
            now,
        )
        .await
    }

    /// One place forecast on `account`'s Alerts page.
    pub(crate) async fn place_forecast(&self, account: AccountId, now: DateTime<Utc>) -> Verdict {
        self.take(
            bucket::PLACE_FORECAST,
            account,
            PLACE_FORECASTS_PER_ACCOUNT_PER_MINUTE,
            now,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap()
    }

    fn sign_in_limits() -> SignInLimits {
        SignInLimits::new(1, Arc::new(Limiter::in_process()))
    }

    #[tokio::test]
    async fn each_account_has_its_own_test_delivery_allowance() {
        let limits = AccountLimits::new(Arc::new(Limiter::in_process()));
        let (a, b) = (
            AccountId::from(uuid::Uuid::from_u128(1)),
            AccountId::from(uuid::Uuid::from_u128(2)),
        );
        for _ in 0..TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE {
            assert_eq!(limits.test_delivery(a, now()).await, Verdict::Allowed);
        }
        assert_eq!(limits.test_delivery(a, now()).await, Verdict::Limited);
        assert_eq!(limits.test_delivery(b, now()).await, Verdict::Allowed);
        for _ in 0..PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE {
            assert_eq!(limits.playground(a, now()).await, Verdict::Allowed);
        }
        assert_eq!(limits.playground(a, now()).await, Verdict::Limited);
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[tokio::test]
    async fn every_address_of_a_64_shares_one_allowance() {
        let limits = sign_in_limits();
        for n in 0..ATTEMPTS_PER_NETWORK_PER_MINUTE {
            let address = ip(&format!("2001:db8:5:6::{:x}", n + 1));
            assert_eq!(
                limits.sign_up(Some(address), now()).await,
                Verdict::Allowed,
                "{address}"
            );
        }
        assert_eq!(
            limits
                .sign_up(Some(ip("2001:db8:5:6:ffff::9")), now())
                .await,
            Verdict::Limited
        );
        assert_eq!(
            limits
                .sign_in("ada@example.org", Some(ip("2001:db8:5:6:1234::1")), now())
                .await,
            Verdict::Limited
        );
        assert_eq!(
            limits.sign_up(Some(ip("2001:db8:5:7::1")), now()).await,
            Verdict::Allowed,
            "the next /64 is another client"
        );
    }

    #[tokio::test]
    async fn a_limited_network_spends_no_email_allowance() {
        let limits = sign_in_limits();
        let address = Some(ip("192.0.2.1"));
        for n in 0..ATTEMPTS_PER_NETWORK_PER_MINUTE {
            let email = format!("{n}@example.org");
            assert_eq!(
                limits.sign_in(&email, address, now()).await,
                Verdict::Allowed
            );
        }
        for _ in 0..100 {
            assert_eq!(
                limits.sign_in("ada@example.org", address, now()).await,
                Verdict::Limited
            );
        }
        let mut allowed = 0;
        for n in 0..20_u32 {
            for _ in 0..SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE {
                let other = Some(ip(&format!("198.51.100.{n}")));
                if limits.sign_in("ada@example.org", other, now()).await == Verdict::Allowed {
                    allowed += 1;
                }
            }
        }
        assert_eq!(
            allowed, SIGN_INS_PER_EMAIL_PER_MINUTE,
            "the refused attempts took nothing from the email's allowance"
        );
    }

    #[tokio::test]
    async fn guesses_from_one_network_leave_the_owner_their_own_allowance() {
        let limits = sign_in_limits();
        let (guesser, owner) = (Some(ip("198.51.100.7")), Some(ip("203.0.113.9")));
        for _ in 0..SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE {
            assert_eq!(
                limits.sign_in("ada@example.org", guesser, now()).await,
                Verdict::Allowed
            );
        }
        assert_eq!(
            limits.sign_in("ada@example.org", guesser, now()).await,
            Verdict::Limited
        );
        assert_eq!(
            limits.sign_in("ada@example.org", owner, now()).await,
            Verdict::Allowed,
            "the owner's network has its own allowance"
        );
        assert_eq!(
            limits.sign_in("bob@example.org", guesser, now()).await,
            Verdict::Allowed,
            "the guesser's other emails have theirs"
        );
    }

    #[tokio::test]
    async fn guesses_spread_over_many_networks_meet_the_cap_per_email() {
        let limits = sign_in_limits();
        let mut allowed = 0;
        for n in 0..=255_u32 {
            for _ in 0..SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE + 2 {
                let address = Some(ip(&format!("198.51.100.{n}")));
                if limits.sign_in("ada@example.org", address, now()).await == Verdict::Allowed {
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
        let limits = SignInLimits::new(2, Arc::new(Limiter::in_process()));
        let first = limits.hash_permit().unwrap();
        let _second = limits.hash_permit().unwrap();
        assert!(limits.hash_permit().is_none());
        drop(first);
        assert!(limits.hash_permit().is_some());
    }
}
