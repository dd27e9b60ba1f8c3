//! Circuit breakers per webhook URL: after repeated failed deliveries to one URL, the
//! deliveries due to it wait instead of each spending a worker on a receiver that is down.
//!
//! A breaker is *closed* while deliveries succeed. After [`BreakerConfig::failures`] failures
//! in a row it *opens* for [`BreakerConfig::cool_down`]: jobs due to that URL are put back, due
//! when the breaker lets the next attempt through, without an attempt being spent or
//! recorded. When the cool-down ends one job goes through as a probe (and the breaker stays
//! open for the others for another cool-down); its success closes the breaker, its failure
//! keeps it open. The retry schedule still decides when each job is tried: a breaker only
//! ever makes a job wait longer, and a job still gives up once its retry window has passed.
//!
//! The state lives in the process: each replica learns about a receiver on its own. It is
//! bounded: at most [`BreakerConfig::max_urls`] URLs with failures are remembered, and a URL
//! whose delivery succeeds is forgotten.
//!
//! ```
//! use std::time::Duration;
//!
//! use alerts_core::breaker::{BreakerConfig, Breakers};
//! use chrono::{TimeZone, Utc};
//!
//! let breakers = Breakers::new(BreakerConfig {
//!     failures: 3,
//!     cool_down: Duration::from_secs(60),
//!     max_urls: 100,
//! });
//! let url = "https://hooks.example.org/alerts";
//! let t = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
//! for _ in 0..3 {
//!     assert_eq!(breakers.wait_until(url, t), None, "closed: deliveries go through");
//!     breakers.record(url, false, t);
//! }
//! // Open: jobs for this URL wait for the cool-down.
//! let opens_at = Utc.with_ymd_and_hms(2026, 5, 1, 8, 1, 0).unwrap();
//! assert_eq!(breakers.wait_until(url, t), Some(opens_at));
//! // After it, one probe goes through while the others wait another cool-down.
//! assert_eq!(breakers.wait_until(url, opens_at), None);
//! assert!(breakers.wait_until(url, opens_at).is_some());
//! breakers.record(url, true, opens_at);
//! assert_eq!(breakers.wait_until(url, opens_at), None, "a success closes it");
//! ```

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// When a breaker opens, and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BreakerConfig {
    /// Failed deliveries in a row to one URL that open its breaker (default 5; 0 never opens).
    pub failures: u32,
    /// How long an open breaker holds deliveries before it lets one probe through (default
    /// 60 s).
    #[serde(with = "crate::pipeline::secs")]
    pub cool_down: Duration,
    /// The most URLs with failures remembered at once (default 10,000); past it, a new failing
    /// URL is not tracked (its deliveries go through) until others recover.
    pub max_urls: usize,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        Self {
            failures: 5,
            cool_down: Duration::from_secs(60),
            max_urls: 10_000,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct UrlState {
    failures: u32,
    /// While set and in the future, deliveries to the URL wait until then.
    open_until: Option<DateTime<Utc>>,
}

/// The breakers of every webhook URL, for one process. See the [module](self) documentation.
#[derive(Debug)]
pub struct Breakers {
    config: BreakerConfig,
    urls: Mutex<HashMap<String, UrlState>>,
}

impl Breakers {
    /// Breakers that open and close as `config` says.
    #[must_use]
    pub fn new(config: BreakerConfig) -> Self {
        Self {
            config,
            urls: Mutex::new(HashMap::new()),
        }
    }

    /// `None` when a delivery to `url` may go now; otherwise when it may be tried. Letting a
    /// probe through after the cool-down makes the others wait another cool-down, so one job
    /// tests the receiver rather than all of them at once.
    pub fn wait_until(&self, url: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let mut urls = self.urls.lock().unwrap_or_else(PoisonError::into_inner);
        let state = urls.get_mut(url)?;
        let open_until = state.open_until?;
        if now < open_until {
            return Some(open_until);
        }
        state.open_until = Some(self.reopen(now));
        None
    }

    /// Records how a delivery to `url` went: a success closes its breaker and forgets the URL,
    /// a failure counts towards opening it (or keeps it open, after a failed probe).
    pub fn record(&self, url: &str, delivered: bool, now: DateTime<Utc>) {
        if self.config.failures == 0 {
            return;
        }
        let mut urls = self.urls.lock().unwrap_or_else(PoisonError::into_inner);
        if delivered {
            urls.remove(url);
            return;
        }
        if !urls.contains_key(url) && urls.len() >= self.config.max_urls {
            return;
        }
        let state = urls.entry(url.to_owned()).or_insert(UrlState {
            failures: 0,
            open_until: None,
        });
        state.failures = state.failures.saturating_add(1);
        if state.failures >= self.config.failures {
            state.open_until = Some(self.reopen(now));
        }
    }

    /// The URLs whose breaker is open at `now`, for the metrics.
    #[must_use]
    pub fn open_count(&self, now: DateTime<Utc>) -> usize {
        let urls = self.urls.lock().unwrap_or_else(PoisonError::into_inner);
        urls.values()
            .filter(|s| s.open_until.is_some_and(|t| t > now))
            .count()
    }

    fn reopen(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        crate::ports::Lease::end(now, self.config.cool_down)
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use proptest::prelude::*;

    use super::*;

    fn t(secs: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap() + chrono::Duration::seconds(secs)
    }

    fn breakers(failures: u32, max_urls: usize) -> Breakers {
        Breakers::new(BreakerConfig {
            failures,
            cool_down: Duration::from_secs(60),
            max_urls,
        })
    }

    #[test]
    fn failures_below_the_threshold_leave_it_closed() {
        let b = breakers(5, 10);
        for _ in 0..4 {
            b.record("u", false, t(0));
        }
        assert_eq!(b.wait_until("u", t(0)), None);
        assert_eq!(b.open_count(t(0)), 0);
    }

    #[test]
    fn a_success_resets_the_count() {
        let b = breakers(3, 10);
        b.record("u", false, t(0));
        b.record("u", false, t(0));
        b.record("u", true, t(0));
        b.record("u", false, t(0));
        b.record("u", false, t(0));
        assert_eq!(b.wait_until("u", t(0)), None);
    }

    #[test]
    fn a_failed_probe_keeps_it_open_for_another_cool_down() {
        let b = breakers(1, 10);
        b.record("u", false, t(0));
        assert_eq!(b.wait_until("u", t(10)), Some(t(60)));
        assert_eq!(b.wait_until("u", t(60)), None, "the probe");
        b.record("u", false, t(61));
        assert_eq!(b.wait_until("u", t(62)), Some(t(121)));
        assert_eq!(b.open_count(t(62)), 1);
    }

    #[test]
    fn urls_are_independent_and_bounded() {
        let b = breakers(1, 2);
        b.record("a", false, t(0));
        b.record("b", false, t(0));
        b.record("c", false, t(0));
        assert!(b.wait_until("a", t(0)).is_some());
        assert!(b.wait_until("b", t(0)).is_some());
        assert_eq!(
            b.wait_until("c", t(0)),
            None,
            "past max_urls a URL is not tracked"
        );
        assert_eq!(b.wait_until("d", t(0)), None);
    }

    #[test]
    fn zero_failures_never_opens() {
        let b = breakers(0, 10);
        for _ in 0..100 {
            b.record("u", false, t(0));
        }
        assert_eq!(b.wait_until("u", t(0)), None);
    }

    proptest! {
        /// Whatever happened before, an open breaker only ever delays: the time it gives is
        /// after now and no later than one cool-down from now.
        #[test]
        fn a_wait_is_within_one_cool_down(
            events in proptest::collection::vec((any::<bool>(), 0i64..600), 0..40),
            at in 0i64..600,
        ) {
            let b = breakers(2, 10);
            let mut now = 0;
            for (ok, step) in events {
                now += step;
                b.record("u", ok, t(now));
            }
            let asked = t(now + at);
            if let Some(until) = b.wait_until("u", asked) {
                prop_assert!(until > asked);
                prop_assert!(until <= asked + chrono::Duration::seconds(60));
            }
        }
    }
}
