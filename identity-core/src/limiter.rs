//! [`Limiter`]: how the API and the dashboard ask a [`LimitStore`], and what they do when it
//! cannot answer. One place for the rule, so that every limit behaves the same:
//!
//! - a key the shared store has just limited is remembered in this process until its wait is
//!   over, so that a client hammering while limited costs no round trip to the store (the
//!   store would say the same: no replica can make a key's wait shorter);
//! - when the shared store fails, [`WhenUnavailable::Open`] lets the request be counted by this
//!   process's own limits instead (a client then gets at most one allowance per replica, as
//!   before limits were shared), and [`WhenUnavailable::Closed`] refuses it; sign-in attempts
//!   are always refused ([`Limiter::take_closed`]), since an outage of the store must not hand
//!   a password guesser unlimited tries;
//! - every failure is reported to a [`LimitObserver`] (the server counts them in `/metrics`).

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::memory_limits::MemoryLimits;
use crate::ports::{Decision, LimitError, LimitStore, Quota, micros};

/// The most keys remembered as limited at once; past it nothing more is remembered until some
/// waits are over (the store still answers).
const MAX_REMEMBERED: usize = 10_000;
/// What a refused request is told to wait when the store cannot answer.
pub const UNAVAILABLE_RETRY_AFTER: Duration = Duration::from_secs(5);

/// What to do with a request whose limit the shared store cannot check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WhenUnavailable {
    /// Count it in this process's own limits, as a single replica would.
    #[default]
    Open,
    /// Refuse it: `503` with `Retry-After`.
    Closed,
}

impl FromStr for WhenUnavailable {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "open" => Ok(Self::Open),
            "closed" => Ok(Self::Closed),
            other => Err(format!(
                "limits_unavailable must be `open` or `closed`, got `{other}`"
            )),
        }
    }
}

/// What the limiter says about one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Go ahead; the key's allowance is whole again `full_in` from now
    /// ([`Quota::remaining`] reads what is left of it).
    Allowed {
        /// How long until the key could take a whole burst again.
        full_in: Duration,
    },
    /// Over the limit: `429`, retry after the wait.
    Limited {
        /// How long to wait.
        retry_after: Duration,
    },
    /// The store could not check and the request is refused: `503`, retry after the wait.
    Unavailable {
        /// How long to wait.
        retry_after: Duration,
    },
}

impl Outcome {
    /// Whether the request may go ahead.
    #[must_use]
    pub fn is_allowed(&self) -> bool {
        matches!(self, Outcome::Allowed { .. })
    }
}

/// Told each time the shared store fails.
pub trait LimitObserver: Send + Sync {
    /// The store failed on `bucket` with `error`; `refused` says whether the request was
    /// refused (else this process's own limits decided).
    fn store_failed(&self, bucket: &str, error: &LimitError, refused: bool);
}

/// Asks the limit store, with the rules of the module's documentation. Cheap to share.
pub struct Limiter {
    store: Arc<dyn LimitStore>,
    /// `None` when `store` is this process's own: there is nothing to fall back on or save.
    shared: Option<Shared>,
    observer: Option<Arc<dyn LimitObserver>>,
}

/// A bucket's name and a key in it.
type BucketKey = (Box<str>, Box<str>);

struct Shared {
    policy: WhenUnavailable,
    fallback: MemoryLimits,
    limited_until: Mutex<HashMap<BucketKey, i64>>,
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter")
            .field("shared", &self.shared.as_ref().map(|s| s.policy))
            .finish_non_exhaustive()
    }
}

impl Limiter {
    /// Limits kept in this process only: the embedded default, one replica.
    #[must_use]
    pub fn in_process() -> Self {
        Self {
            store: Arc::new(MemoryLimits::default()),
            shared: None,
            observer: None,
        }
    }

    /// Limits kept in `store`, shared by every replica, with `policy` when it fails.
    #[must_use]
    pub fn shared(store: Arc<dyn LimitStore>, policy: WhenUnavailable) -> Self {
        Self {
            store,
            shared: Some(Shared {
                policy,
                fallback: MemoryLimits::default(),
                limited_until: Mutex::new(HashMap::new()),
            }),
            observer: None,
        }
    }

    /// Reports store failures to `observer`.
    #[must_use]
    pub fn with_observer(mut self, observer: Arc<dyn LimitObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// One unit from `key` of `bucket` under `quota` at `now`; a store failure follows the
    /// configured [`WhenUnavailable`].
    pub async fn take(&self, bucket: &str, key: &str, quota: Quota, now: DateTime<Utc>) -> Outcome {
        let policy = self
            .shared
            .as_ref()
            .map_or_else(Default::default, |s| s.policy);
        self.take_with(bucket, key, quota, now, policy).await
    }

    /// As [`Limiter::take`], but a store failure always refuses: for limits whose whole point
    /// is lost if each replica counts alone (password guessing).
    pub async fn take_closed(
        &self,
        bucket: &str,
        key: &str,
        quota: Quota,
        now: DateTime<Utc>,
    ) -> Outcome {
        self.take_with(bucket, key, quota, now, WhenUnavailable::Closed)
            .await
    }

    async fn take_with(
        &self,
        bucket: &str,
        key: &str,
        quota: Quota,
        now: DateTime<Utc>,
        policy: WhenUnavailable,
    ) -> Outcome {
        let Some(shared) = &self.shared else {
            return match self.store.take(bucket, key, quota, 1, now).await {
                Ok(decision) => decision.into(),
                Err(error) => self.failed(bucket, &error, UNAVAILABLE_RETRY_AFTER),
            };
        };
        let now_us = micros(now);
        if let Some(wait) = shared.remembered(bucket, key, now_us) {
            return Outcome::Limited { retry_after: wait };
        }
        match self.store.take(bucket, key, quota, 1, now).await {
            Ok(Decision::Allowed { full_in }) => Outcome::Allowed { full_in },
            Ok(Decision::Limited { retry_after }) => {
                shared.remember(bucket, key, now_us, retry_after);
                Outcome::Limited { retry_after }
            }
            Err(error) => match policy {
                WhenUnavailable::Closed => self.failed(bucket, &error, UNAVAILABLE_RETRY_AFTER),
                WhenUnavailable::Open => {
                    if let Some(observer) = &self.observer {
                        observer.store_failed(bucket, &error, false);
                    }
                    shared.fallback.take_now(bucket, key, quota, 1, now).into()
                }
            },
        }
    }

    fn failed(&self, bucket: &str, error: &LimitError, retry_after: Duration) -> Outcome {
        if let Some(observer) = &self.observer {
            observer.store_failed(bucket, error, true);
        }
        Outcome::Unavailable { retry_after }
    }
}

impl Shared {
    fn remembered(&self, bucket: &str, key: &str, now_us: i64) -> Option<Duration> {
        let map = self
            .limited_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if map.is_empty() {
            return None;
        }
        let until = *map.get(&(Box::from(bucket), Box::from(key)))?;
        (until > now_us).then(|| Duration::from_micros(u64::try_from(until - now_us).unwrap_or(0)))
    }

    fn remember(&self, bucket: &str, key: &str, now_us: i64, wait: Duration) {
        let until = now_us.saturating_add(i64::try_from(wait.as_micros()).unwrap_or(i64::MAX));
        let mut map = self
            .limited_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if map.len() >= MAX_REMEMBERED {
            map.retain(|_, until| *until > now_us);
            if map.len() >= MAX_REMEMBERED {
                return;
            }
        }
        map.insert((bucket.into(), key.into()), until);
    }
}

impl From<Decision> for Outcome {
    fn from(decision: Decision) -> Self {
        match decision {
            Decision::Allowed { full_in } => Outcome::Allowed { full_in },
            Decision::Limited { retry_after } => Outcome::Limited { retry_after },
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::num::NonZeroU32;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use async_trait::async_trait;

    use super::*;

    /// A store that counts its calls and can be switched off.
    #[derive(Default)]
    struct Flaky {
        inner: MemoryLimits,
        down: AtomicBool,
        calls: AtomicUsize,
    }

    #[async_trait]
    impl LimitStore for Flaky {
        async fn take(
            &self,
            bucket: &str,
            key: &str,
            quota: Quota,
            cost: u32,
            now: DateTime<Utc>,
        ) -> Result<Decision, LimitError> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            if self.down.load(Ordering::Relaxed) {
                return Err(LimitError::Unavailable("cut off".into()));
            }
            self.inner.take(bucket, key, quota, cost, now).await
        }
    }

    #[derive(Default)]
    struct Counting(AtomicUsize, AtomicUsize);

    impl LimitObserver for Counting {
        fn store_failed(&self, _: &str, _: &LimitError, refused: bool) {
            let counter = if refused { &self.0 } else { &self.1 };
            counter.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn two() -> Quota {
        Quota::per_minute(NonZeroU32::new(2).unwrap())
    }

    fn t(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap()
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn a_limited_key_costs_no_round_trip_until_its_wait_is_over() {
        block_on(async {
            let store = Arc::new(Flaky::default());
            let limiter = Limiter::shared(store.clone(), WhenUnavailable::Closed);
            for _ in 0..2 {
                assert!(limiter.take("b", "k", two(), t(0)).await.is_allowed());
            }
            assert!(matches!(
                limiter.take("b", "k", two(), t(0)).await,
                Outcome::Limited { .. }
            ));
            let calls = store.calls.load(Ordering::Relaxed);
            for _ in 0..100 {
                assert!(matches!(
                    limiter.take("b", "k", two(), t(10)).await,
                    Outcome::Limited { .. }
                ));
            }
            assert_eq!(store.calls.load(Ordering::Relaxed), calls);
            assert!(limiter.take("b", "k", two(), t(30)).await.is_allowed());
        });
    }

    #[test]
    fn an_open_limiter_counts_locally_while_the_store_is_down() {
        block_on(async {
            let store = Arc::new(Flaky::default());
            let seen = Arc::new(Counting::default());
            let limiter =
                Limiter::shared(store.clone(), WhenUnavailable::Open).with_observer(seen.clone());
            store.down.store(true, Ordering::Relaxed);
            for _ in 0..2 {
                assert!(limiter.take("b", "k", two(), t(0)).await.is_allowed());
            }
            assert!(matches!(
                limiter.take("b", "k", two(), t(0)).await,
                Outcome::Limited { .. }
            ));
            assert_eq!(seen.1.load(Ordering::Relaxed), 3);
            assert!(matches!(
                limiter.take_closed("s", "k", two(), t(0)).await,
                Outcome::Unavailable { .. }
            ));
            assert_eq!(seen.0.load(Ordering::Relaxed), 1);
        });
    }

    #[test]
    fn a_closed_limiter_refuses_while_the_store_is_down() {
        block_on(async {
            let store = Arc::new(Flaky::default());
            let limiter = Limiter::shared(store.clone(), WhenUnavailable::Closed);
            store.down.store(true, Ordering::Relaxed);
            assert_eq!(
                limiter.take("b", "k", two(), t(0)).await,
                Outcome::Unavailable {
                    retry_after: UNAVAILABLE_RETRY_AFTER
                }
            );
        });
    }

    #[test]
    fn the_setting_reads_open_or_closed() {
        assert_eq!("open".parse(), Ok(WhenUnavailable::Open));
        assert_eq!("closed".parse(), Ok(WhenUnavailable::Closed));
        assert!(
            "shut"
                .parse::<WhenUnavailable>()
                .unwrap_err()
                .contains("shut")
        );
    }
}
