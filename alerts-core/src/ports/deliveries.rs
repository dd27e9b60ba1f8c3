//! The record of webhook deliveries: the [`DeliveryLog`] port.

use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};
use identity_core::ids::KeyId;
use serde::{Deserialize, Serialize};

use crate::ids::Token;

use super::{DeliveryErrorKind, JobOutcome, JobStage, StoreError};

/// One attempt to deliver a webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryAttempt {
    /// The request delivered.
    pub token: Token,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// When the attempt started.
    pub at: DateTime<Utc>,
    /// The HTTP status, when a response came.
    pub status: Option<u16>,
    /// How long the attempt took, in milliseconds.
    pub latency_ms: u64,
    /// What went wrong, when it did.
    pub error: Option<DeliveryErrorKind>,
}

/// How many test deliveries a key keeps: recording one more forgets the oldest, so that tests,
/// which no retention sweep deletes, never grow a key's record without end. Enough to list
/// every test of a few minutes of trying a receiver (tests are limited per account and
/// minute).
pub const TEST_DELIVERIES_KEPT: usize = 20;

/// A test delivery sent from the dashboard: one signed request that carries no file and
/// belongs to no alert request, so it is never retried and has one result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestDelivery {
    /// The token the test's body and `webhook-id` carry.
    pub token: Token,
    /// The key whose webhook URL and secret it was sent with.
    pub key: KeyId,
    /// When it was sent.
    pub at: DateTime<Utc>,
    /// Where it was sent: the key's webhook URL at the time, which may have changed since.
    pub url: String,
    /// The HTTP status, when a response came.
    pub status: Option<u16>,
    /// How long it took, in milliseconds.
    pub latency_ms: u64,
    /// What went wrong, when it did.
    pub error: Option<DeliveryErrorKind>,
}

/// A request's summary for the deliveries page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestSummary {
    /// The token.
    pub token: Token,
    /// When it was accepted.
    pub received_at: DateTime<Utc>,
    /// Points posted.
    pub points: u64,
    /// Lines in the file, once written.
    pub alerts: Option<u64>,
    /// Where the job is.
    pub stage: JobStage,
    /// How it ended, when it did.
    pub outcome: Option<JobOutcome>,
    /// Delivery attempts made.
    pub attempts: u32,
}

/// The span of an activity query: `buckets` consecutive spans of `bucket_seconds` each,
/// the first starting at `since`.
///
/// ```
/// use alerts_core::ports::ActivityWindow;
/// use chrono::{TimeZone, Utc};
///
/// let now = Utc.with_ymd_and_hms(2026, 5, 1, 8, 30, 0).unwrap();
/// let day = ActivityWindow::hourly_until(now, 24);
/// assert_eq!(day.since, Utc.with_ymd_and_hms(2026, 4, 30, 9, 0, 0).unwrap());
/// assert_eq!(day.bucket_of(now), Some(23));
/// assert_eq!(day.bucket_of(day.since), Some(0));
/// assert_eq!(day.bucket_of(day.until()), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActivityWindow {
    /// The start of the first bucket.
    pub since: DateTime<Utc>,
    /// The length of each bucket, in seconds (at least 1).
    pub bucket_seconds: u32,
    /// How many buckets.
    pub buckets: u32,
}

impl ActivityWindow {
    /// `buckets` whole hours, the last being the hour of `now`.
    #[must_use]
    pub fn hourly_until(now: DateTime<Utc>, buckets: u32) -> Self {
        Self::ending_at(now, 3600, buckets)
    }

    /// `buckets` whole UTC days, the last being the day of `now`.
    #[must_use]
    pub fn daily_until(now: DateTime<Utc>, buckets: u32) -> Self {
        Self::ending_at(now, 86_400, buckets)
    }

    fn ending_at(now: DateTime<Utc>, bucket_seconds: u32, buckets: u32) -> Self {
        let seconds = i64::from(bucket_seconds.max(1));
        let start_of_last = now.timestamp() - now.timestamp().rem_euclid(seconds);
        let since = DateTime::from_timestamp(start_of_last - seconds * (i64::from(buckets) - 1), 0)
            .unwrap_or(now);
        Self {
            since,
            bucket_seconds: bucket_seconds.max(1),
            buckets,
        }
    }

    /// The end of the last bucket (excluded).
    #[must_use]
    pub fn until(&self) -> DateTime<Utc> {
        self.since + TimeDelta::seconds(i64::from(self.bucket_seconds) * i64::from(self.buckets))
    }

    /// The bucket `t` falls in, if any.
    #[must_use]
    pub fn bucket_of(&self, t: DateTime<Utc>) -> Option<u32> {
        if t < self.since || t >= self.until() {
            return None;
        }
        let micros = (t - self.since).num_microseconds()?;
        u32::try_from(micros / (i64::from(self.bucket_seconds) * 1_000_000)).ok()
    }

    /// The start of bucket `bucket`.
    #[must_use]
    pub fn start_of(&self, bucket: u32) -> DateTime<Utc> {
        self.since + TimeDelta::seconds(i64::from(self.bucket_seconds) * i64::from(bucket))
    }
}

/// The alert requests a key made in one bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequestTally {
    /// The bucket, 0 for the first.
    pub bucket: u32,
    /// Requests received.
    pub requests: u64,
    /// Alerts written for them so far.
    pub alerts: u64,
}

/// The delivery attempts of one bucket with one result (status and error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttemptTally {
    /// The bucket, 0 for the first.
    pub bucket: u32,
    /// The HTTP status, when a response came.
    pub status: Option<u16>,
    /// What went wrong, when it did.
    pub error: Option<DeliveryErrorKind>,
    /// Attempts with this result.
    pub attempts: u64,
    /// Their latencies added up, in milliseconds.
    pub latency_ms_total: u64,
    /// The longest of them, in milliseconds.
    pub latency_ms_max: u64,
}

/// A key's activity over an [`ActivityWindow`]: requests by the bucket they were received in,
/// attempts by the bucket they were made in and their result. Buckets without any are left
/// out; both lists are sorted by bucket, then (attempts) status and error, missing first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Activity {
    /// Requests per bucket.
    pub requests: Vec<RequestTally>,
    /// Attempts per bucket and result.
    pub attempts: Vec<AttemptTally>,
}

impl Activity {
    /// Sorts both lists as the port promises; for adapters whose database orders missing
    /// values differently.
    #[must_use]
    pub fn sorted(mut self) -> Self {
        self.requests.sort_by_key(|r| r.bucket);
        self.attempts
            .sort_by_key(|a| (a.bucket, a.status, a.error.map(DeliveryErrorKind::as_str)));
        self
    }

    /// Tallies requests (received at, alerts written) and attempts in `window`: what a store
    /// in memory answers, and what a database's grouping must agree with.
    #[must_use]
    pub fn tally<'a>(
        window: &ActivityWindow,
        requests: impl IntoIterator<Item = (DateTime<Utc>, Option<u64>)>,
        attempts: impl IntoIterator<Item = &'a DeliveryAttempt>,
    ) -> Self {
        let mut by_bucket = std::collections::BTreeMap::<u32, RequestTally>::new();
        for (received, alerts) in requests {
            if let Some(bucket) = window.bucket_of(received) {
                let tally = by_bucket.entry(bucket).or_insert(RequestTally {
                    bucket,
                    ..RequestTally::default()
                });
                tally.requests += 1;
                tally.alerts += alerts.unwrap_or(0);
            }
        }
        let mut results = std::collections::BTreeMap::new();
        for a in attempts {
            if let Some(bucket) = window.bucket_of(a.at) {
                let tally = results
                    .entry((bucket, a.status, a.error.map(DeliveryErrorKind::as_str)))
                    .or_insert(AttemptTally {
                        bucket,
                        status: a.status,
                        error: a.error,
                        attempts: 0,
                        latency_ms_total: 0,
                        latency_ms_max: 0,
                    });
                tally.attempts += 1;
                tally.latency_ms_total += a.latency_ms;
                tally.latency_ms_max = tally.latency_ms_max.max(a.latency_ms);
            }
        }
        Self {
            requests: by_bucket.into_values().collect(),
            attempts: results.into_values().collect(),
        }
    }
}

/// The record of deliveries: written by the pipeline, read by the dashboard and the admin
/// command.
#[async_trait]
pub trait DeliveryLog: Send + Sync {
    /// Records an attempt. Recording the same (token, attempt) twice keeps one record.
    async fn record_attempt(&self, attempt: &DeliveryAttempt) -> Result<(), StoreError>;

    /// A key's latest requests, newest first.
    async fn list_requests(
        &self,
        key: KeyId,
        limit: usize,
    ) -> Result<Vec<RequestSummary>, StoreError>;

    /// The attempts of a request made with `key`, in order. Empty for another key's token.
    async fn list_attempts(
        &self,
        key: KeyId,
        token: Token,
    ) -> Result<Vec<DeliveryAttempt>, StoreError>;

    /// A key's requests and delivery attempts in `window`, counted per bucket: what the
    /// dashboard's charts draw. See [`Activity`] for the order.
    async fn activity(&self, key: KeyId, window: &ActivityWindow) -> Result<Activity, StoreError>;

    /// Records a test delivery, then forgets its key's tests beyond the newest
    /// [`TEST_DELIVERIES_KEPT`] (a store whose writers run side by side may keep one more per
    /// test recorded at the same moment, until the key's next test). Recording the same token
    /// twice keeps the first record. [`StoreError::NotFound`] when the key is unknown.
    async fn record_test(&self, test: &TestDelivery) -> Result<(), StoreError>;

    /// A key's latest test deliveries, newest first (the later token first among tests sent
    /// at the same instant), at most `limit`.
    async fn list_tests(&self, key: KeyId, limit: usize) -> Result<Vec<TestDelivery>, StoreError>;
}
