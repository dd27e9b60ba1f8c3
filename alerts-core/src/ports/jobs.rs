//! Alert requests and their jobs: the [`JobQueue`] port, the pages its points arrive in, and
//! the form a SQL store keeps each point in.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::idempotency::{Enqueued, Idempotency};
use crate::ids::Token;
use crate::request::AlertPoint;

use super::{Arrivals, DeliveryAttempt, StoreError};

/// A page of points as the SQL stores keep it in one row: a JSON array of the points, each
/// with `custom_data` as a JSON *string*, so that its bytes survive whatever a database does
/// to JSON it stores.
///
/// # Errors
/// [`StoreError::Corrupt`] should a point not serialise (they always do).
///
/// ```
/// use alerts_core::ports::{decode_stored_points, encode_stored_points};
/// use alerts_core::ids::Token;
/// use alerts_core::request::AlertPoint;
///
/// let point = AlertPoint {
///     position: aq_core::Position::new(2.35, 48.85).unwrap(),
///     id: "home".to_owned(),
///     custom_data: r#"{ "tier" : "gold" }"#.to_owned(),
/// };
/// let stored = encode_stored_points(&[point.clone(), point.clone()]).unwrap();
/// let token = Token(uuid::Uuid::nil());
/// assert_eq!(decode_stored_points(&stored, token, 0).unwrap(), vec![point.clone(), point]);
/// let damaged = decode_stored_points("[{", token, 7000).unwrap_err().to_string();
/// assert!(damaged.contains("page at point 7000"), "{damaged}");
/// ```
pub fn encode_stored_points(points: &[AlertPoint]) -> Result<String, StoreError> {
    serde_json::to_string(points)
        .map_err(|e| StoreError::Corrupt(format!("points could not be encoded: {e}")))
}

/// The points [`encode_stored_points`] wrote: `first_seq` (the index of the page's first point
/// in the request) and `token` name the page when the text cannot be read.
///
/// # Errors
/// [`StoreError::Corrupt`] when `text` is not such a page.
pub fn decode_stored_points(
    text: &str,
    token: Token,
    first_seq: i64,
) -> Result<Vec<AlertPoint>, StoreError> {
    serde_json::from_str(text).map_err(|e| {
        StoreError::Corrupt(format!(
            "the page at point {first_seq} of request {token}: {e}"
        ))
    })
}

/// The points `from` to `from + limit` (exclusive) of a request, out of the stored pages that
/// hold them: `(first_seq, text)` of each page [`encode_stored_points`] wrote, in order of
/// `first_seq`; pages that end before `from` are skipped.
///
/// # Errors
/// [`StoreError::Corrupt`] when a page in the range cannot be read, or the pages leave a gap.
///
/// ```
/// use alerts_core::ids::Token;
/// use alerts_core::ports::{encode_stored_points, points_of_pages};
/// use alerts_core::request::AlertPoint;
///
/// let point = |id: &str| AlertPoint {
///     position: aq_core::Position::new(2.35, 48.85).unwrap(),
///     id: id.to_owned(),
///     custom_data: "{}".to_owned(),
/// };
/// // Two pages: points 0 to 2, then points 3 and 4.
/// let pages = vec![
///     (0, encode_stored_points(&[point("a"), point("b"), point("c")]).unwrap()),
///     (3, encode_stored_points(&[point("d"), point("e")]).unwrap()),
/// ];
/// let token = Token(uuid::Uuid::nil());
/// let ids = |from, limit| -> Vec<String> {
///     points_of_pages(pages.clone(), token, from, limit).unwrap().into_iter().map(|p| p.id).collect()
/// };
/// assert_eq!(ids(2, 2), ["c", "d"]);
/// assert_eq!(ids(4, 10), ["e"]);
/// assert!(ids(5, 10).is_empty());
/// ```
pub fn points_of_pages(
    pages: impl IntoIterator<Item = (i64, String)>,
    token: Token,
    from: u64,
    limit: usize,
) -> Result<Vec<AlertPoint>, StoreError> {
    let mut points = Vec::with_capacity(limit.min(POINT_PAGE));
    let mut next = from;
    for (first_seq, text) in pages {
        if points.len() >= limit {
            break;
        }
        let first = u64::try_from(first_seq)
            .map_err(|_| StoreError::Corrupt(format!("a page starts at point {first_seq}")))?;
        let page = decode_stored_points(&text, token, first_seq)?;
        let end = first + page.len() as u64;
        if end <= next {
            continue;
        }
        if first > next {
            return Err(StoreError::Corrupt(format!(
                "request {token} has no stored page holding point {next}"
            )));
        }
        let skip = usize::try_from(next - first).unwrap_or(usize::MAX);
        let room = limit - points.len();
        points.extend(page.into_iter().skip(skip).take(room));
        next = from + points.len() as u64;
    }
    Ok(points)
}

/// An accepted alert request, stored with its job in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAlertRequest {
    /// The token returned to the client.
    pub token: Token,
    /// The key the request was made with.
    pub key_id: KeyId,
    /// The points to evaluate.
    pub points: Vec<AlertPoint>,
    /// When the request was accepted; the job is due at once.
    pub received_at: DateTime<Utc>,
}

impl NewAlertRequest {
    /// The request without its points, for [`JobQueue::enqueue_pages`].
    #[must_use]
    pub fn job(&self) -> NewAlertJob {
        NewAlertJob {
            token: self.token,
            key_id: self.key_id,
            received_at: self.received_at,
        }
    }
}

/// An accepted alert request without its points, which reach the store as [`PointPages`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewAlertJob {
    /// The token returned to the client.
    pub token: Token,
    /// The key the request was made with.
    pub key_id: KeyId,
    /// When the request was accepted; the job is due at once.
    pub received_at: DateTime<Utc>,
}

/// The points of a request on their way into a store, one page at a time, so that storing a
/// request holds a page of it rather than all of it (the in-memory store excepted, which
/// keeps everything anyway).
///
/// A store reads the pages inside its transaction, so they must come from somewhere local and
/// quick: memory, or a body spooled to a local file and parsed as it is read.
#[async_trait]
pub trait PointPages: Send {
    /// How many points the pages hold in all, known before the first page. A store that is
    /// handed another number of points stores nothing and fails with [`StoreError::Corrupt`].
    fn total(&self) -> u64;

    /// The next page, in posting order; an empty page once every point was handed out.
    ///
    /// # Errors
    /// Whatever kept the source from reading its points; the store then stores nothing.
    async fn next_page(&mut self) -> Result<Vec<AlertPoint>, StoreError>;
}

/// [`PointPages`] over points in memory, `page` points at a time.
///
/// ```
/// use alerts_core::ports::{PointPages, SlicePages};
/// use alerts_core::request::AlertPoint;
///
/// let point = AlertPoint {
///     position: aq_core::Position::new(2.35, 48.85).unwrap(),
///     id: "home".to_owned(),
///     custom_data: "{}".to_owned(),
/// };
/// let points = vec![point; 5];
/// let mut pages = SlicePages::new(&points, 2);
/// assert_eq!(pages.total(), 5);
/// let sizes = futures::executor::block_on(async {
///     let mut sizes = Vec::new();
///     loop {
///         let page = pages.next_page().await.unwrap();
///         if page.is_empty() {
///             break sizes;
///         }
///         sizes.push(page.len());
///     }
/// });
/// assert_eq!(sizes, [2, 2, 1]);
/// ```
#[derive(Debug, Clone)]
pub struct SlicePages<'a> {
    rest: &'a [AlertPoint],
    total: u64,
    page: usize,
}

impl<'a> SlicePages<'a> {
    /// Pages of `page` points (at least one) over `points`.
    #[must_use]
    pub fn new(points: &'a [AlertPoint], page: usize) -> Self {
        Self {
            rest: points,
            total: points.len() as u64,
            page: page.max(1),
        }
    }
}

#[async_trait]
impl PointPages for SlicePages<'_> {
    fn total(&self) -> u64 {
        self.total
    }

    async fn next_page(&mut self) -> Result<Vec<AlertPoint>, StoreError> {
        let (page, rest) = self.rest.split_at(self.page.min(self.rest.len()));
        self.rest = rest;
        Ok(page.to_vec())
    }
}

/// The check a store makes once a request's pages are read: they held as many points as
/// [`PointPages::total`] announced.
///
/// # Errors
/// [`StoreError::Corrupt`] when they did not; the store then stores nothing.
pub fn check_page_total(read: u64, pages: &dyn PointPages) -> Result<(), StoreError> {
    if read == pages.total() {
        Ok(())
    } else {
        Err(StoreError::Corrupt(format!(
            "the request's pages held {read} points, not the {} they announced",
            pages.total()
        )))
    }
}

/// Where a job is in its life.
///
/// Its names (`evaluate`, `deliver`, `done`) are those stores keep:
///
/// ```
/// use alerts_core::ports::JobStage;
///
/// assert_eq!(JobStage::Deliver.as_str(), "deliver");
/// assert_eq!("done".parse::<JobStage>(), Ok(JobStage::Done));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStage {
    /// Evaluate the rules and write the file.
    Evaluate,
    /// The file is written; deliver the webhook.
    Deliver,
    /// Finished: nothing more will happen unless it is redelivered.
    Done,
}

/// How a finished job ended.
///
/// Its names are those stores keep and the delivery metrics count:
///
/// ```
/// use alerts_core::ports::JobOutcome;
///
/// assert_eq!(JobOutcome::GaveUp.as_str(), "gave_up");
/// assert_eq!("cancelled".parse::<JobOutcome>(), Ok(JobOutcome::Cancelled));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobOutcome {
    /// The receiver answered 2xx.
    Delivered,
    /// The receiver answered 410 Gone: it wants no more deliveries of this token.
    Gone,
    /// Every attempt in the retry window failed.
    GaveUp,
    /// The key was revoked or lost its webhook URL before delivery.
    Cancelled,
}

names!(JobStage, "job stage", {
    Evaluate => "evaluate",
    Deliver => "deliver",
    Done => "done",
});

names!(JobOutcome, "job outcome", {
    Delivered => "delivered",
    Gone => "gone",
    GaveUp => "gave_up",
    Cancelled => "cancelled",
});

/// A worker's hold on a job. Updates with a lease that has been lost fail with
/// [`StoreError::LeaseLost`], so a worker that stalled past its lease cannot overwrite the work
/// of the one that took the job over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    /// Unique per claim.
    pub id: Uuid,
    /// When the job becomes claimable again if the holder neither updates nor releases it.
    pub until: DateTime<Utc>,
}

impl Lease {
    /// When a lease taken at `now` for `lease_for` ends; an absurdly long lease ends at the end
    /// of time rather than overflow.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use alerts_core::ports::Lease;
    /// use chrono::{DateTime, TimeZone, Utc};
    ///
    /// let now = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
    /// let until = Lease::end(now, Duration::from_secs(30));
    /// assert_eq!(until, Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 30).unwrap());
    /// assert_eq!(Lease::end(now, Duration::MAX), DateTime::<Utc>::MAX_UTC);
    /// ```
    #[must_use]
    pub fn end(now: DateTime<Utc>, lease_for: Duration) -> DateTime<Utc> {
        chrono::TimeDelta::from_std(lease_for)
            .ok()
            .and_then(|d| now.checked_add_signed(d))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    /// Whether a lease that ends at `until` (none: the job is not leased) still holds the job
    /// at `now`. A lease ends at its `until`: from then on the job is claimable again.
    ///
    /// ```
    /// use alerts_core::ports::Lease;
    /// use chrono::{TimeZone, Utc};
    ///
    /// let now = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
    /// assert!(Lease::is_live(Some(now + chrono::Duration::seconds(1)), now));
    /// assert!(!Lease::is_live(Some(now), now));
    /// assert!(!Lease::is_live(None, now));
    /// ```
    #[must_use]
    pub fn is_live(until: Option<DateTime<Utc>>, now: DateTime<Utc>) -> bool {
        until.is_some_and(|until| until > now)
    }
}

/// Whether a claim at `now` may take a job in `stage`, due at `run_at`, whose lease (if any)
/// ends at `lease_until`: it is not done, it is due, and no live lease holds it. This is
/// the rule of [`JobQueue::claim`]; a job that *waits* in [`JobCounts`] and [`Backlog`] is one
/// that is claimable. (The SQL stores spell the same rule in SQL, in `store-sql`.)
///
/// ```
/// use alerts_core::ports::{JobStage, is_claimable};
/// use chrono::{TimeZone, Utc};
///
/// let now = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
/// let later = now + chrono::Duration::seconds(30);
/// assert!(is_claimable(JobStage::Evaluate, now, None, now));
/// assert!(is_claimable(JobStage::Deliver, now, Some(now), now), "an expired lease");
/// assert!(!is_claimable(JobStage::Deliver, now, Some(later), now), "a live lease");
/// assert!(!is_claimable(JobStage::Deliver, later, None, now), "not yet due");
/// assert!(!is_claimable(JobStage::Done, now, None, now));
/// ```
#[must_use]
pub fn is_claimable(
    stage: JobStage,
    run_at: DateTime<Utc>,
    lease_until: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> bool {
    stage != JobStage::Done && run_at <= now && !Lease::is_live(lease_until, now)
}

/// A claimed job.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertJob {
    /// The request's token (a request has exactly one job).
    pub token: Token,
    /// The key the request was made with.
    pub key_id: KeyId,
    /// What to do next.
    pub stage: JobStage,
    /// Delivery attempts made so far.
    pub attempts: u32,
    /// When the request was accepted.
    pub received_at: DateTime<Utc>,
    /// This worker's lease.
    pub lease: Lease,
}

/// A change of a leased job's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobUpdate {
    /// The file is written with `alerts` lines and the job moves on to delivery. Keeps the
    /// lease: the worker that wrote the file delivers it next, so that a request once started
    /// is not queued again behind requests not yet evaluated. Should the worker stop, the job
    /// is claimed for delivery when the lease expires.
    Written {
        /// Lines in the file.
        alerts: u64,
    },
    /// A delivery attempt failed; `attempts` made so far; try again at `run_at`. Ends the lease.
    Retry {
        /// Delivery attempts made so far.
        attempts: u32,
        /// When to try again.
        run_at: DateTime<Utc>,
    },
    /// The job is finished. Ends the lease.
    Finish {
        /// How it ended.
        outcome: JobOutcome,
        /// Delivery attempts made.
        attempts: u32,
    },
}

/// What a worker leaves of a job once it has tried to deliver it, or decided not to: stored by
/// [`JobQueue::settle`] in one transaction, so that a job step costs the store one write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement {
    /// Lines in the file, when this lease wrote it and it is not recorded yet: recorded as
    /// [`JobUpdate::Written`] would record it, so that a crash before the settlement finds
    /// the job still to evaluate, and its file already written.
    pub written: Option<u64>,
    /// The delivery attempt made, if one was.
    pub attempt: Option<DeliveryAttempt>,
    /// Where the job goes next, as [`JobQueue::update`] takes it.
    pub next: JobUpdate,
}

/// How many unfinished jobs there are, for the metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobCounts {
    /// Jobs waiting for a worker: due now or later, not held.
    pub waiting: u64,
    /// Jobs a worker holds under a lease that has not expired.
    pub leased: u64,
    /// The due time of the job that has waited longest for a worker (due, not held), if
    /// one waits: now minus this is the queue's age.
    pub oldest_waiting: Option<DateTime<Utc>>,
}

/// How many jobs one [`JobQueue::claim`] may lease.
///
/// `max` bounds the batch; `per_key` bounds how many jobs of one API key may be under a live
/// lease at once, counting those leased by earlier claims (of any worker or replica), so that
/// one customer's slow or failing receiver holds at most `per_key` of the workers.
///
/// ```
/// use alerts_core::ports::ClaimLimits;
///
/// let limits = ClaimLimits::up_to(16).per_key(4);
/// assert_eq!((limits.max, limits.per_key), (16, 4));
/// assert_eq!(ClaimLimits::up_to(8).per_key, usize::MAX, "no cap per key unless asked");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimLimits {
    /// The most jobs this claim leases.
    pub max: usize,
    /// The most jobs of one key under a live lease once this claim is done.
    pub per_key: usize,
}

impl ClaimLimits {
    /// Up to `max` jobs, with no cap per key.
    #[must_use]
    pub fn up_to(max: usize) -> Self {
        Self {
            max,
            per_key: usize::MAX,
        }
    }

    /// The same, with at most `per_key` jobs of one key leased at once.
    #[must_use]
    pub fn per_key(self, per_key: usize) -> Self {
        Self { per_key, ..self }
    }
}

/// The queue as an arriving alert request of one key sees it, for backpressure
/// ([`JobQueue::backlog`]).
///
/// A job *waits* when it is unfinished, due (`run_at` has come) and not under a live lease:
/// it could run now but no worker has taken it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Backlog {
    /// The key's unfinished jobs, waiting, leased or scheduled for a later retry.
    pub key_pending: u64,
    /// The key's jobs waiting for a worker: due and not held.
    pub key_waiting: u64,
    /// The due time of the key's longest-waiting job, if one waits.
    pub key_oldest_waiting: Option<DateTime<Utc>>,
    /// The due time of the longest-waiting job of any key, if one waits.
    pub oldest_waiting: Option<DateTime<Utc>>,
}

/// Points per page on their way into a store ([`PointPages`]), where the caller has no reason
/// to choose otherwise: large enough that a store writes in full batches, small enough that a
/// page of ordinary points stays around a hundred kilobytes. (`custom_data` has no limit of its
/// own, so a page is bounded by the body's size, not by this count alone.)
pub const POINT_PAGE: usize = 1_000;

/// The text of the [`StoreError::Conflict`] that [`JobQueue::redeliver`] gives for a job that
/// has not finished, the same from every store.
pub const UNFINISHED_JOB: &str =
    "the request is still being processed; redeliver it once it has finished";

/// The durable job queue behind alert requests.
///
/// A job is claimable when it is not done, its run time has come, and it is not leased or its
/// lease has expired; so claiming also reclaims the jobs of workers that died. Implementations
/// never hold a database transaction across a call that leaves the store, but for the
/// [`PointPages`] of [`JobQueue::enqueue_pages`], which are local and quick by contract.
#[async_trait]
pub trait JobQueue: Send + Sync {
    /// Stores a request, its points read from `points` page by page, and its job (stage
    /// [`JobStage::Evaluate`], due at `received_at`), in one transaction: all or nothing. A
    /// SQL store holds one page at a time (and its own write batch), whatever the request's
    /// size.
    ///
    /// Without `idempotency`, the request is stored ([`Enqueued::Stored`]) or the call fails.
    /// With it: when a request of the same API key with the same idempotency key is stored
    /// already, nothing is written and its token and fingerprint come back as
    /// [`Enqueued::Existing`]; otherwise the request is stored with the key. The check and the
    /// write are one atomic step, also against concurrent callers with the same key. A key is
    /// remembered as long as its request is kept.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] for a token stored already; an error of `points` as it is;
    /// [`StoreError::Corrupt`] when the pages held another number of points than
    /// [`PointPages::total`] (see [`check_page_total`]). In every case nothing is stored.
    async fn enqueue_pages(
        &self,
        job: &NewAlertJob,
        points: &mut dyn PointPages,
        idempotency: Option<&Idempotency>,
    ) -> Result<Enqueued, StoreError>;

    /// [`JobQueue::enqueue_pages`] of a request whose points are in memory, without an
    /// idempotency key. [`StoreError::Conflict`] for a token stored already.
    async fn enqueue(&self, request: &NewAlertRequest) -> Result<(), StoreError> {
        let mut pages = SlicePages::new(&request.points, POINT_PAGE);
        match self.enqueue_pages(&request.job(), &mut pages, None).await? {
            Enqueued::Stored => Ok(()),
            Enqueued::Existing { token, .. } => Err(StoreError::Corrupt(format!(
                "a request without an idempotency key was matched to the stored request {token}"
            ))),
        }
    }

    /// [`JobQueue::enqueue_pages`] of a request whose points are in memory, with an
    /// idempotency key.
    async fn enqueue_idempotent(
        &self,
        request: &NewAlertRequest,
        idempotency: &Idempotency,
    ) -> Result<Enqueued, StoreError> {
        let mut pages = SlicePages::new(&request.points, POINT_PAGE);
        self.enqueue_pages(&request.job(), &mut pages, Some(idempotency))
            .await
    }

    /// Leases up to `limits.max` claimable jobs until `now + lease_for`, each under a lease id
    /// of its own from `lease_ids`, called at most `limits.max` times (a store may make the
    /// ids before it knows how many jobs it takes). No two concurrent callers get the same
    /// job. A store may take fewer than `limits.max` jobs at once, but never none while some
    /// are claimable within the limits.
    ///
    /// Claims are fair across keys: the jobs are taken round by round, each round the oldest
    /// claimable job (by run time, then token) of every key that has one, the rounds' jobs
    /// oldest run time first; so a key with a thousand due jobs delays another key's single
    /// job by at most one job. A key never ends with more than `limits.per_key` jobs under a
    /// live lease, counting the leases it already holds.
    async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_for: Duration,
        limits: ClaimLimits,
        lease_ids: &(dyn Fn() -> Uuid + Send + Sync),
    ) -> Result<Vec<AlertJob>, StoreError>;

    /// Up to `limit` points of a stored request, in the order they were posted, starting at
    /// the point with index `from` (0 for the first).
    ///
    /// A page shorter than `limit` is the last one; a `from` at or past the end gives an empty
    /// page. Each point comes back exactly as posted (`custom_data` byte for byte). Reading a
    /// request page by page keeps one page in memory rather than the whole request, whose
    /// size only the client decides.
    ///
    /// [`StoreError::NotFound`] when no request has this token, whatever `from` and `limit`
    /// say (also for `limit` 0), so that an empty page always means a request that exists and
    /// has no more points, and a request deleted between two pages is an error rather than a
    /// request that ends early.
    async fn points_page(
        &self,
        token: Token,
        from: u64,
        limit: usize,
    ) -> Result<Vec<AlertPoint>, StoreError>;

    /// Applies `update` to a job this worker holds.
    async fn update(
        &self,
        token: Token,
        lease: &Lease,
        update: JobUpdate,
    ) -> Result<(), StoreError>;

    /// Stores `settlement` of a job this worker holds, in one transaction: the attempt (as
    /// [`DeliveryLog::record_attempt`](super::DeliveryLog::record_attempt) records it), the
    /// file's lines, and `next` applied as [`JobQueue::update`] applies it (a
    /// [`JobUpdate::Retry`] with `written` moves the job on to delivery as well).
    ///
    /// The attempt is recorded even when the lease was lost (then [`StoreError::LeaseLost`]
    /// comes back and the job is not changed): it was made, and the delivery log tells what
    /// was sent. [`StoreError::NotFound`] when no job has this token.
    async fn settle(
        &self,
        token: Token,
        lease: &Lease,
        settlement: &Settlement,
    ) -> Result<(), StoreError>;

    /// A subscription to the notices of jobs that became claimable (see [`Arrivals`]): every
    /// job stored, redelivered or released after this returns is told to it, whichever
    /// process of the service stored it. Each waiting worker takes its own.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot be reached to subscribe.
    async fn arrivals(&self) -> Result<Box<dyn Arrivals>, StoreError>;

    /// Gives a held job back, due at once, unchanged (a worker shutting down).
    async fn release(&self, token: Token, lease: &Lease) -> Result<(), StoreError>;

    /// Puts a finished job back to delivery, due at `at`, with its attempt count kept (the
    /// dashboard's redeliver button), in one step that checks the job is finished: a job still
    /// being written or delivered is [`StoreError::Conflict`], so that it is never delivered
    /// twice at once. [`StoreError::NotFound`] when the token is unknown under `key`, or its
    /// file was never written.
    async fn redeliver(
        &self,
        key: KeyId,
        token: Token,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// The unfinished jobs at `now`: waiting, and held under a live lease.
    async fn counts(&self, now: DateTime<Utc>) -> Result<JobCounts, StoreError>;

    /// The queue at `now` as a new request of `key` would join it: how many jobs the key has
    /// unfinished, and since when the longest-waiting job of the key, and of any key, waits.
    async fn backlog(&self, key: KeyId, now: DateTime<Utc>) -> Result<Backlog, StoreError>;

    /// Deletes up to `limit` finished requests received before `before`, each with its points,
    /// job, idempotency key and delivery attempts, oldest first, and returns their tokens (so
    /// that the caller deletes their files too). Unfinished requests are kept whatever their
    /// age. A retention sweep calls it until it returns fewer than `limit`.
    async fn purge_finished(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Token>, StoreError>;
}
