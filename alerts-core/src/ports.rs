//! The ports of the alert pipeline: what it needs from storage, files, URL signing and webhook
//! sending. Adapter crates implement them (SQLite, PostgreSQL, local files, S3, HTTP); the
//! [`crate::memory`] module has in-memory versions for tests, and the `conformance` module (with
//! the `conformance` feature) has the suites every implementation must pass.
//!
//! Time and ids come from [`aq_core::runtime`]; air-quality forecasts from
//! [`aq_core::ForecastSource`].

use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;
use uuid::Uuid;

use crate::idempotency::{Enqueued, Idempotency};
use crate::ids::{AccountId, KeyId, RuleId, Token};
use crate::keys::{KeyHash, WebhookSecret};
use crate::request::AlertPoint;
use crate::rule::AlertRule;

/// A point as the SQL stores keep it in a row of its own: its JSON, where `custom_data` is a
/// JSON *string*, so that its bytes survive whatever a database does to JSON it stores.
///
/// # Errors
/// [`StoreError::Corrupt`] should the point not serialise (it always does).
///
/// ```
/// use alerts_core::ports::{decode_stored_point, encode_stored_point};
/// use alerts_core::ids::Token;
/// use alerts_core::request::AlertPoint;
///
/// let point = AlertPoint {
///     position: aq_core::Position::new(2.35, 48.85).unwrap(),
///     id: "home".to_owned(),
///     custom_data: r#"{ "tier" : "gold" }"#.to_owned(),
/// };
/// let stored = encode_stored_point(&point).unwrap();
/// let token = Token(uuid::Uuid::nil());
/// assert_eq!(decode_stored_point(&stored, token, 0).unwrap(), point);
/// assert!(decode_stored_point("{", token, 7).unwrap_err().to_string().contains("point 7"));
/// ```
pub fn encode_stored_point(point: &AlertPoint) -> Result<String, StoreError> {
    serde_json::to_string(point)
        .map_err(|e| StoreError::Corrupt(format!("a point could not be encoded: {e}")))
}

/// The point [`encode_stored_point`] wrote: `seq` (its index in the request) and `token` name
/// it when the text cannot be read.
///
/// # Errors
/// [`StoreError::Corrupt`] when `text` is not such a point.
pub fn decode_stored_point(text: &str, token: Token, seq: i64) -> Result<AlertPoint, StoreError> {
    serde_json::from_str(text)
        .map_err(|e| StoreError::Corrupt(format!("point {seq} of request {token}: {e}")))
}

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// The database could not be reached or is overloaded; worth retrying later (HTTP 503).
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// A uniqueness rule was broken (an email or key that exists already).
    #[error("conflict: {0}")]
    Conflict(String),
    /// The record to change does not exist (or belongs to someone else).
    #[error("not found")]
    NotFound,
    /// The job's lease expired and another worker took it; this worker must stop on it.
    #[error("the job's lease was lost to another worker")]
    LeaseLost,
    /// A stored record could not be read back (a bug or manual tampering).
    #[error("stored data is invalid: {0}")]
    Corrupt(String),
}

// ---------------------------------------------------------------------------------------------
// Keys and rules, as the API and the pipeline read them.
// ---------------------------------------------------------------------------------------------

/// A webhook signing secret and, during a rotation's grace period, until when it stays valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningSecret {
    /// The secret.
    pub secret: WebhookSecret,
    /// `None` for the current secret; the end of the grace period for a previous one.
    pub valid_until: Option<DateTime<Utc>>,
}

/// Everything the pipeline needs to know about one API key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyConfig {
    /// The key's id.
    pub key_id: KeyId,
    /// The key's public prefix (`ik_` and eight hex digits), sent as `KEY` in deliveries.
    pub prefix: String,
    /// Where deliveries go; `None` until the owner sets it.
    pub webhook_url: Option<String>,
    /// The current signing secret first, then previous ones still in their grace period.
    /// Deliveries are signed with every one of them, so receivers can switch at their pace.
    pub secrets: Vec<SigningSecret>,
    /// The key's enabled rules, oldest first.
    pub rules: Vec<AlertRule>,
}

/// How stale a key's recorded last use may be. Recording every request would make each API
/// call a database write; to the minute is what the dashboard shows anyway.
pub const LAST_USE_RESOLUTION: Duration = Duration::from_secs(60);

/// Whether a last use recorded at `recorded` should be moved to `now`.
#[must_use]
pub fn last_use_is_stale(recorded: Option<DateTime<Utc>>, now: DateTime<Utc>) -> bool {
    recorded.is_none_or(|at| {
        (now - at)
            .to_std()
            .is_ok_and(|age| age >= LAST_USE_RESOLUTION)
    })
}

/// Reads keys and their alert configuration: the API's and the pipeline's view of the store.
#[async_trait]
pub trait RuleStore: Send + Sync {
    /// The key with this hash, if it exists and is not revoked; records `now` as its last use,
    /// to within [`LAST_USE_RESOLUTION`]: while the recorded use is younger than that, stores
    /// skip the write, so that the API's hot path is a read.
    async fn authenticate(
        &self,
        hash: &KeyHash,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyId>, StoreError>;

    /// The alert configuration of a key that is not revoked. Previous secrets whose grace
    /// period ended before `now` are left out.
    async fn key_config(
        &self,
        key_id: KeyId,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyConfig>, StoreError>;
}

// ---------------------------------------------------------------------------------------------
// Accounts, keys and rules, as the dashboard and the admin command manage them.
// ---------------------------------------------------------------------------------------------

/// A developer account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// The account's id.
    pub id: AccountId,
    /// The sign-in email, trimmed and lower-cased.
    pub email: String,
    /// The password hash in PHC string form (argon2id); never the password.
    pub password_hash: String,
    /// When the account was created.
    pub created_at: DateTime<Utc>,
}

/// A new API key to store. The key itself is not here: only its hash and prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiKey {
    /// The key's id.
    pub id: KeyId,
    /// The owning account.
    pub account_id: AccountId,
    /// The owner's label for the key.
    pub label: String,
    /// The public prefix.
    pub prefix: String,
    /// The SHA-256 of the key.
    pub hash: KeyHash,
    /// The first webhook signing secret.
    pub secret: WebhookSecret,
    /// When the key was created.
    pub created_at: DateTime<Utc>,
}

/// What the dashboard shows of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyInfo {
    /// The key's id.
    pub id: KeyId,
    /// The owning account.
    pub account_id: AccountId,
    /// The owner's label.
    pub label: String,
    /// The public prefix.
    pub prefix: String,
    /// When the key was created.
    pub created_at: DateTime<Utc>,
    /// When the key was last used on the API.
    pub last_used_at: Option<DateTime<Utc>>,
    /// When the key was revoked; revoked keys are refused by the API.
    pub revoked_at: Option<DateTime<Utc>>,
    /// Where deliveries for this key go.
    pub webhook_url: Option<String>,
    /// The current signing secret.
    pub secret: WebhookSecret,
}

/// Manages accounts, keys and rules. Every operation on a key's data is scoped by the key id,
/// and callers check that the key belongs to the signed-in account ([`ApiKeyInfo::account_id`])
/// before they change anything.
#[async_trait]
pub trait AccountStore: Send + Sync {
    /// Stores a new account. [`StoreError::Conflict`] when the email is taken.
    async fn create_account(&self, account: &Account) -> Result<(), StoreError>;

    /// The account with this (trimmed, lower-cased) email.
    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError>;

    /// The account with this id.
    async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError>;

    /// Whether any account exists: a server on an empty store tells newcomers how to start.
    async fn has_accounts(&self) -> Result<bool, StoreError>;

    /// Stores a new key. [`StoreError::Conflict`] when the hash exists already.
    async fn create_key(&self, key: &NewApiKey) -> Result<(), StoreError>;

    /// The account's keys, revoked ones included, newest first.
    async fn list_keys(&self, account: AccountId) -> Result<Vec<ApiKeyInfo>, StoreError>;

    /// One key.
    async fn key_info(&self, key: KeyId) -> Result<Option<ApiKeyInfo>, StoreError>;

    /// Renames a key. [`StoreError::NotFound`] for an unknown key.
    async fn set_key_label(&self, key: KeyId, label: &str) -> Result<(), StoreError>;

    /// Revokes a key at `at`; revoking twice keeps the first time.
    async fn revoke_key(&self, key: KeyId, at: DateTime<Utc>) -> Result<(), StoreError>;

    /// Sets or clears where the key's deliveries go.
    async fn set_webhook_url(&self, key: KeyId, url: Option<&str>) -> Result<(), StoreError>;

    /// Makes `new` the key's signing secret; the previous one keeps signing until
    /// `previous_valid_until`.
    async fn rotate_secret(
        &self,
        key: KeyId,
        new: &WebhookSecret,
        previous_valid_until: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Stores a new rule.
    async fn add_rule(&self, rule: &AlertRule) -> Result<(), StoreError>;

    /// A key's rules, disabled ones included, oldest first.
    async fn list_rules(&self, key: KeyId) -> Result<Vec<AlertRule>, StoreError>;

    /// Replaces a rule's spec and enabled flag. [`StoreError::NotFound`] when the rule does not
    /// exist under `rule.key_id`.
    async fn update_rule(&self, rule: &AlertRule) -> Result<(), StoreError>;

    /// Deletes a rule. [`StoreError::NotFound`] when it does not exist under `key`.
    async fn delete_rule(&self, key: KeyId, rule: RuleId) -> Result<(), StoreError>;
}

// ---------------------------------------------------------------------------------------------
// Dashboard sessions.
// ---------------------------------------------------------------------------------------------

/// A signed-in dashboard session. The session id itself lives only in the browser's cookie:
/// the store keeps its SHA-256, so a copy of the database does not let anyone sign in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Lower-case hex of the SHA-256 of the session id.
    pub id_hash: String,
    /// The signed-in account.
    pub account_id: AccountId,
    /// The per-session secret that the dashboard's CSRF tokens are derived from.
    pub csrf_secret: String,
    /// When the session was created.
    pub created_at: DateTime<Utc>,
    /// When the session stops being valid.
    pub expires_at: DateTime<Utc>,
}

/// Stores dashboard sessions, so that they survive restarts and every replica sees them.
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// Stores a new session. [`StoreError::Conflict`] when the hash exists already.
    async fn create_session(&self, session: &Session) -> Result<(), StoreError>;

    /// The session with this id hash, unless it has expired at `now`.
    async fn session(
        &self,
        id_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Session>, StoreError>;

    /// Deletes a session (signing out); deleting a missing session succeeds.
    async fn delete_session(&self, id_hash: &str) -> Result<(), StoreError>;

    /// Deletes the sessions that expired at or before `now`; returns how many.
    async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<u64, StoreError>;
}

// ---------------------------------------------------------------------------------------------
// Alert requests and their jobs.
// ---------------------------------------------------------------------------------------------

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
    /// The file is written with `alerts` lines; deliver at `run_at`. Ends the lease.
    Written {
        /// Lines in the file.
        alerts: u64,
        /// When to deliver.
        run_at: DateTime<Utc>,
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

/// How many unfinished jobs there are, for the metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobCounts {
    /// Jobs waiting for a worker: due now or later, not held.
    pub waiting: u64,
    /// Jobs a worker holds under a lease that has not expired.
    pub leased: u64,
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

    /// Leases up to `max` claimable jobs until `now + lease_for`, oldest run time first, each
    /// under a lease id from `lease_ids` (one call per job). No two concurrent callers get the
    /// same job.
    async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_for: Duration,
        max: usize,
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
}

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
}

// ---------------------------------------------------------------------------------------------
// Files.
// ---------------------------------------------------------------------------------------------

/// The name of a file in the file store, such as `alerts/<token>.ndjson`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileKey(pub String);

impl FileKey {
    /// The output file of an alert request. The name is derived from the token alone, so that
    /// processing a job twice writes the same file rather than a second one.
    #[must_use]
    pub fn for_token(token: Token) -> Self {
        Self(format!("alerts/{token}.ndjson"))
    }
}

/// Why a file operation failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FileError {
    /// The store could not be reached; worth retrying later (HTTP 503).
    #[error("file store unavailable: {0}")]
    Unavailable(String),
    /// The file does not exist.
    #[error("file not found")]
    NotFound,
    /// Anything else the backend reported.
    #[error("file store error: {0}")]
    Other(String),
}

/// A file being written. Nothing is visible under its key until [`FileWriter::finish`]
/// succeeds; a writer dropped or aborted before that leaves nothing behind.
#[async_trait]
pub trait FileWriter: Send {
    /// Appends a chunk.
    async fn write(&mut self, chunk: Bytes) -> Result<(), FileError>;

    /// Completes the file and makes it visible, replacing any file of the same key; returns
    /// its size in bytes.
    async fn finish(self: Box<Self>) -> Result<u64, FileError>;

    /// Abandons the file.
    async fn abort(self: Box<Self>) -> Result<(), FileError>;
}

/// A file opened for reading: its size, and its bytes as a stream of chunks, so that serving
/// a large file needs no more memory than a chunk.
pub struct FileStream {
    /// The size in bytes.
    pub size: u64,
    /// The bytes, in order.
    pub chunks: futures::stream::BoxStream<'static, Result<Bytes, FileError>>,
}

impl std::fmt::Debug for FileStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileStream")
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// Stores output files.
#[async_trait]
pub trait FileStore: Send + Sync {
    /// Starts writing the file `key`.
    async fn create(&self, key: &FileKey) -> Result<Box<dyn FileWriter>, FileError>;

    /// Whether a complete file exists under `key`.
    async fn exists(&self, key: &FileKey) -> Result<bool, FileError>;

    /// The whole file.
    async fn read(&self, key: &FileKey) -> Result<Bytes, FileError>;

    /// Opens the file for streaming. The default reads it whole; stores that can stream
    /// override it.
    async fn open(&self, key: &FileKey) -> Result<FileStream, FileError> {
        let bytes = self.read(key).await?;
        Ok(FileStream {
            size: bytes.len() as u64,
            chunks: Box::pin(futures::stream::once(async move { Ok(bytes) })),
        })
    }

    /// Deletes the file; deleting a missing file succeeds.
    async fn delete(&self, key: &FileKey) -> Result<(), FileError>;
}

/// Makes time-limited URLs for files.
#[async_trait]
pub trait UrlSigner: Send + Sync {
    /// A URL that fetches `key` with GET until `now + valid_for`, and not after.
    async fn signed_url(
        &self,
        key: &FileKey,
        now: DateTime<Utc>,
        valid_for: Duration,
    ) -> Result<String, FileError>;
}

// ---------------------------------------------------------------------------------------------
// Webhooks.
// ---------------------------------------------------------------------------------------------

/// A signed webhook request, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRequest {
    /// The receiver's URL.
    pub url: String,
    /// The Standard Webhooks headers: `webhook-id`, `webhook-timestamp`, `webhook-signature`.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Bytes,
}

/// How an attempt failed, in classes that the delivery log and the retry policy understand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryErrorKind {
    /// The receiver could not be reached (DNS, refused connection, TLS).
    Connect,
    /// No answer within the time limit.
    Timeout,
    /// The receiver answered with a status other than 2xx (redirects included).
    Status,
    /// The URL is not allowed: a private or reserved address, or not http(s).
    Forbidden,
}

/// The result of one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebhookResponse {
    /// The HTTP status, when a response came.
    pub status: Option<u16>,
    /// How long the attempt took.
    pub latency: Duration,
    /// What went wrong, if anything; `None` means a 2xx.
    pub error: Option<DeliveryErrorKind>,
}

/// Sends webhooks.
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// Sends one request. Failures are described in the response, not returned as errors, so
    /// that every attempt can be recorded alike.
    async fn send(&self, request: &WebhookRequest) -> WebhookResponse;
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_last_use_goes_stale_after_the_resolution() {
        let t = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
        let resolution = chrono::Duration::from_std(LAST_USE_RESOLUTION).unwrap();
        assert!(last_use_is_stale(None, t), "a key never used is recorded");
        assert!(!last_use_is_stale(Some(t), t));
        assert!(!last_use_is_stale(
            Some(t),
            t + resolution - chrono::Duration::seconds(1)
        ));
        assert!(last_use_is_stale(Some(t), t + resolution));
        // A clock that went back never moves the record backwards.
        assert!(!last_use_is_stale(Some(t), t - resolution * 2));
    }
}
