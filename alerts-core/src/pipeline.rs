//! The alert pipeline: accept a request, evaluate it into an NDJSON file, deliver the webhook.
//!
//! ```text
//! accept ──enqueue──▶ [Evaluate] ──file written──▶ [Deliver] ──2xx──▶ Done(Delivered)
//!                          │                          │ ├─410──▶ Done(Gone)
//!                          │ key revoked              │ ├─fail─▶ [Deliver] at the next retry time
//!                          ▼                          │ └─fail past the window─▶ Done(GaveUp)
//!                    Done(Cancelled) ◀──key revoked or webhook URL removed
//! ```
//!
//! Every step goes through a port, and every state change is a [`JobUpdate`] under the
//! worker's lease, so any worker can pick up any job and a crash anywhere is repaired by the
//! next claim:
//! - The output file's name depends on the token alone ([`FileKey::for_token`]); a job that
//!   finds its file written already (the worker died between writing it and recording it)
//!   does not evaluate again, so one request never yields two different files.
//! - The `webhook-id` depends on the token alone ([`message_id`]), so a delivery repeated after
//!   a crash carries the same id and receivers deduplicate it.
//! - A step that fails on an unavailable dependency keeps its lease; the job is claimed again
//!   when the lease expires, which spaces the retries by the lease length. Evaluation is given
//!   up, like delivery, once the retry window after the request has passed.
//! - A delivery attempt is recorded with the job's next state in one store write
//!   ([`JobQueue::settle`]); after a crash before it the attempt is repeated (at least once, as
//!   `docs/api.md` promises).
//! - The retry window is measured from the first recorded attempt, so a job put back with
//!   [`JobQueue::redeliver`] after its window closed gets one more attempt, not another day.
//! - Writing the file keeps the job's lease: the worker that wrote it makes the first delivery
//!   attempt at once ([`AlertPipeline::process`]) and records the file with that attempt's
//!   outcome; a worker that stops in between leaves the job to be claimed when the lease
//!   expires, and the next worker finds the file written. A job that told a once-per-change
//!   alert records its file before delivering, since only a recorded file's alerts count as
//!   told for the key's other jobs.
//! - A job's key configuration is read once per job step and serves its evaluation and its
//!   delivery.

use std::sync::Arc;
use std::time::Duration;

use aq_core::ForecastSource;
use aq_core::SourceError;
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use runtime_core::{Clock, IdGenerator};
use thiserror::Error;

use crate::breaker::{BreakerConfig, Breakers};
use crate::evaluate::Evaluator;
use crate::idempotency::{Enqueued, Fingerprint, Idempotency, IdempotencyKey};
use crate::ids::Token;
use crate::ndjson::{EncodeError, count_lines};
use crate::ports::{
    AlertJob, ClaimLimits, DeliveryAttempt, DeliveryLog, FileError, FileKey, FileStore, JobOutcome,
    JobQueue, JobStage, JobUpdate, KeyConfig, NewAlertJob, POINT_PAGE, PointPages, RuleStore,
    SentChanges, Settlement, SlicePages, StoreError, UrlSigner, WebhookSender,
};
use crate::request::AlertRequest;
use crate::rule::AlertRule;
use crate::webhook::{DeliveryPayload, HEADER_DATA_SOURCE, message_id, signed_request};

/// The pipeline's settings.
#[derive(Debug, Clone)]
pub struct PipelineConfig {
    /// When failed deliveries are tried again (default: [`RetrySchedule::default`]).
    pub retry: RetrySchedule,
    /// How long a delivered file URL stays valid (default 900 s, as the spec says).
    pub url_valid_for: Duration,
    /// How long a claimed job stays with its worker before others may take it (default
    /// 5 min). It must exceed the time one claim batch takes to process; it also spaces the
    /// retries of steps that fail on an unavailable dependency.
    pub lease_for: Duration,
    /// The most jobs one [`AlertPipeline::run_once`] claims (default 8).
    pub claim_batch: usize,
    /// Points read from the job queue and evaluated per forecast call (default 1,000; 0 counts
    /// as 1). A worker holds a few chunks of a request's points at a time ([`Self::pages_ahead`]
    /// and one more), whatever the request's size. Larger chunks mean fewer store reads and
    /// source calls, and more memory for the points and their buffered alert lines.
    pub points_chunk: usize,
    /// Pages of a job's points the forecast source is asked about at once (default 2; 0
    /// counts as 1): while one page is evaluated and written, the source works on the next.
    /// A source that answers from memory then keeps the processor's cores busy throughout a
    /// job; a remote source has that many pages' requests in flight, so an operator bound by
    /// its limits on concurrent requests may want 1.
    pub pages_ahead: usize,
    /// File bytes buffered before a chunk is written (default 64 KiB).
    pub file_chunk_bytes: usize,
    /// Thresholds and message settings.
    pub evaluator: Evaluator,
    /// The most jobs of one key that workers hold at once, across every worker and replica
    /// (default 16, half the server's default workers), so that one customer's slow receiver
    /// cannot take every worker.
    pub per_key_jobs: usize,
    /// When deliveries to a failing URL wait (default: [`BreakerConfig::default`]).
    pub breaker: BreakerConfig,
    /// When new requests are refused (default: [`Backpressure::default`]).
    pub backpressure: Backpressure,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            retry: RetrySchedule::default(),
            url_valid_for: Duration::from_secs(900),
            lease_for: Duration::from_secs(300),
            claim_batch: 8,
            points_chunk: 1000,
            pages_ahead: 2,
            file_chunk_bytes: crate::ndjson::DEFAULT_CHUNK_BYTES,
            evaluator: Evaluator::default(),
            per_key_jobs: 16,
            breaker: BreakerConfig::default(),
            backpressure: Backpressure::default(),
        }
    }
}

/// Every port the pipeline uses. One adapter value may serve several (a database adapter is
/// typically the rule store, the job queue and the delivery log at once).
#[derive(Clone)]
pub struct PipelinePorts {
    /// Keys and their rules.
    pub rules: Arc<dyn RuleStore>,
    /// The job queue.
    pub jobs: Arc<dyn JobQueue>,
    /// The record of delivery attempts.
    pub deliveries: Arc<dyn DeliveryLog>,
    /// What once-per-change rules told; the same store as `jobs`.
    pub sent: Arc<dyn SentChanges>,
    /// Where output files go.
    pub files: Arc<dyn FileStore>,
    /// Signs file URLs.
    pub signer: Arc<dyn UrlSigner>,
    /// Sends webhooks.
    pub sender: Arc<dyn WebhookSender>,
    /// Air-quality and pollen forecasts.
    pub forecast: Arc<dyn ForecastSource>,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Tokens and lease ids.
    pub ids: Arc<dyn IdGenerator>,
}

impl std::fmt::Debug for PipelinePorts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelinePorts")
            .field("forecast", &self.forecast.info().name)
            .finish_non_exhaustive()
    }
}

/// Why an alert request was refused before it was stored.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AcceptError {
    /// The key does not exist or was revoked since it was authenticated.
    #[error("the API key is unknown or revoked")]
    UnknownKey,
    /// The key has no webhook URL to deliver to.
    #[error(
        "this API key has no webhook URL; set one for the key in the dashboard before requesting alerts"
    )]
    WebhookNotConfigured,
    /// The key has no enabled alert rule, so the request could never raise an alert.
    #[error(
        "this API key has no enabled alert rule; add one in the dashboard before requesting alerts"
    )]
    NoAlertRules,
    /// The idempotency key was used before, by this API key, for a request with other points.
    #[error(
        "Idempotency-Key: this key was used for another request (other points); use a new key for a new request"
    )]
    IdempotencyKeyReused,
    /// The queue is behind: the request would wait, or requests already wait, longer than
    /// [`Backpressure`] allows.
    #[error("{}", busy_message(*scope, *retry_after))]
    Busy {
        /// When the client may try again.
        retry_after: Duration,
        /// Whose backlog it is.
        scope: BusyScope,
    },
    /// The key has as many unfinished requests as it may have.
    #[error(
        "this API key has {limit} alert requests still being processed or retried \
         (max_pending_per_key); wait for them to finish, or check that the webhook receiver answers"
    )]
    TooManyPending {
        /// The limit.
        limit: u64,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn busy_message(scope: BusyScope, retry_after: Duration) -> String {
    let why = match scope {
        BusyScope::Key => {
            "behind this API key's alert requests already queued, it would be waiting longer"
        }
        BusyScope::Service => "alert requests are waiting longer",
    };
    format!(
        "{why} than the service allows before delivery; the request was not accepted: retry in \
         {} s",
        retry_after.as_secs().max(1)
    )
}

/// An accepted alert request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepted {
    /// The request's token.
    pub token: Token,
    /// Whether this answers a retry of a request stored before under the same idempotency key.
    pub replayed: bool,
}

/// Why processing a job stopped early. The job keeps its lease and is claimed again when the
/// lease expires.
#[derive(Debug, Error)]
pub enum PipelineError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The file store or URL signer failed.
    #[error(transparent)]
    File(#[from] FileError),
    /// The forecast source failed.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// An alert line could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
}

/// What processing a job did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Processed {
    /// A delivery attempt failed; the next is due at `at`.
    Retrying {
        /// The attempt that failed (1-based).
        attempt: u32,
        /// When the next attempt is due.
        at: DateTime<Utc>,
    },
    /// The job finished.
    Finished {
        /// How.
        outcome: JobOutcome,
        /// Delivery attempts made.
        attempts: u32,
    },
    /// Another worker took the job over (this worker's lease expired); nothing was changed.
    LeaseLost,
    /// The job was finished already; nothing was done.
    AlreadyDone,
    /// The webhook URL's circuit breaker is open: the job waits until `until`, no attempt
    /// spent.
    Deferred {
        /// When the job is due again.
        until: DateTime<Utc>,
    },
}

/// What one [`AlertPipeline::run_once`] did.
#[derive(Debug, Default)]
pub struct RunReport {
    /// Jobs that made progress, with what they did.
    pub processed: Vec<(Token, Processed)>,
    /// Jobs that stopped on an error; they are retried when their lease expires.
    pub failed: Vec<(Token, PipelineError)>,
    /// Jobs claimed but given back untouched because the worker is stopping.
    pub released: Vec<Token>,
}

impl RunReport {
    /// Jobs claimed in this run.
    #[must_use]
    pub fn claimed(&self) -> usize {
        self.processed.len() + self.failed.len() + self.released.len()
    }
}

/// The alert pipeline over its ports. See the [crate documentation](crate) for how a service
/// wires it.
#[derive(Debug, Clone)]
pub struct AlertPipeline {
    ports: PipelinePorts,
    config: PipelineConfig,
    breakers: Arc<Breakers>,
    pace: Arc<Pace>,
    refusals: Arc<Refusals>,
}

impl AlertPipeline {
    /// A pipeline over `ports` with `config`.
    #[must_use]
    pub fn new(ports: PipelinePorts, config: PipelineConfig) -> Self {
        let breakers = Arc::new(Breakers::new(config.breaker));
        let refusals = Arc::new(Refusals::new(config.backpressure.target()));
        Self {
            ports,
            config,
            breakers,
            pace: Arc::default(),
            refusals,
        }
    }

    /// Webhook URLs whose circuit breaker is open now, for the metrics.
    #[must_use]
    pub fn open_breakers(&self) -> usize {
        self.breakers.open_count(self.ports.clock.now())
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &PipelineConfig {
        &self.config
    }

    /// The forecast source alerts are evaluated on: what the dashboard draws a place's
    /// forecast from, so that it shows what the rules see.
    #[must_use]
    pub fn forecast_source(&self) -> &Arc<dyn ForecastSource> {
        &self.ports.forecast
    }

    /// Where the alert files are written: what the dashboard reads a delivery's alerts from.
    #[must_use]
    pub fn files(&self) -> &Arc<dyn FileStore> {
        &self.ports.files
    }

    /// The alert rules of `key`, enabled or not: what a backtest replays.
    ///
    /// # Errors
    /// [`StoreError`] when the store fails.
    pub async fn rules(&self, key: KeyId) -> Result<Vec<AlertRule>, StoreError> {
        self.ports.rules.list_rules(key).await
    }

    /// Accepts a validated alert request made with `key_id`: checks that the key can receive
    /// alerts, stores the request and its job durably, and returns the token. A crash after
    /// this returns loses nothing.
    ///
    /// # Errors
    /// [`AcceptError`]: the key cannot receive alerts, or the store failed.
    pub async fn accept(&self, key_id: KeyId, request: AlertRequest) -> Result<Token, AcceptError> {
        self.accept_idempotent(key_id, request, None)
            .await
            .map(|accepted| accepted.token)
    }

    /// [`AlertPipeline::accept`] with the client's idempotency key, if it sent one: a retry of
    /// a stored request (same key, same points) gets the stored request's token back, marked
    /// as a replay, and nothing new is stored or delivered.
    ///
    /// # Errors
    /// As [`AlertPipeline::accept`], and [`AcceptError::IdempotencyKeyReused`] for a key used
    /// before with other points.
    pub async fn accept_idempotent(
        &self,
        key_id: KeyId,
        request: AlertRequest,
        idempotency_key: Option<IdempotencyKey>,
    ) -> Result<Accepted, AcceptError> {
        let idempotency = idempotency_key.map(|key| Idempotency {
            key,
            fingerprint: Fingerprint::of_points(&request.points),
        });
        let mut pages = SlicePages::new(&request.points, POINT_PAGE);
        self.accept_pages(key_id, &mut pages, idempotency).await
    }

    /// [`AlertPipeline::accept_idempotent`] for validated points that reach the store page by
    /// page (a large body spooled to a file and parsed as it is stored), so that accepting a
    /// request holds a page of it rather than all of it. `idempotency` carries the client's
    /// key and the [`Fingerprint`] of the points (see
    /// [`Fingerprinter`](crate::idempotency::Fingerprinter)), when the client sent a key.
    ///
    /// The key's configuration is checked before the first page is read. A key refused as
    /// busy (or every key, when the service was) is refused again for up to a second without
    /// the store being asked (see `pipeline/refusals.rs`).
    ///
    /// # Errors
    /// As [`AlertPipeline::accept_idempotent`]; an error of `points` comes back as
    /// [`AcceptError::Store`], and nothing is stored.
    pub async fn accept_pages(
        &self,
        key_id: KeyId,
        points: &mut dyn PointPages,
        idempotency: Option<Idempotency>,
    ) -> Result<Accepted, AcceptError> {
        let now = self.ports.clock.now();
        if let Some(refused) = self.refusals.standing(key_id, now) {
            return Err(refused);
        }
        let config = self
            .ports
            .rules
            .key_config(key_id, now)
            .await?
            .ok_or(AcceptError::UnknownKey)?;
        if webhook_url(&config).is_none() {
            return Err(AcceptError::WebhookNotConfigured);
        }
        if !config.rules.iter().any(|r| r.enabled) {
            return Err(AcceptError::NoAlertRules);
        }
        let backlog = self.ports.jobs.backlog(key_id, now).await?;
        let pace = self.pace.job_time(key_id).map(|job_time| KeyPace {
            job_time,
            workers: self.config.per_key_jobs.max(1),
        });
        if let Err(refused) = self.config.backpressure.admit(&backlog, now, pace) {
            self.refusals.remember(key_id, &refused, now);
            return Err(refused);
        }
        let job = NewAlertJob {
            token: Token(self.ports.ids.new_id()),
            key_id,
            received_at: now,
        };
        match self
            .ports
            .jobs
            .enqueue_pages(&job, points, idempotency.as_ref())
            .await?
        {
            Enqueued::Stored => Ok(Accepted {
                token: job.token,
                replayed: false,
            }),
            Enqueued::Existing { token, fingerprint }
                if idempotency
                    .as_ref()
                    .is_some_and(|i| i.fingerprint == fingerprint) =>
            {
                Ok(Accepted {
                    token,
                    replayed: true,
                })
            }
            Enqueued::Existing { token, .. } if idempotency.is_none() => {
                Err(AcceptError::Store(StoreError::Corrupt(format!(
                    "a request without an idempotency key was matched to the stored request \
                     {token}"
                ))))
            }
            Enqueued::Existing { .. } => Err(AcceptError::IdempotencyKeyReused),
        }
    }

    /// Claims up to `max` due jobs (at most [`PipelineConfig::claim_batch`]) and processes
    /// each as far as it goes (see [`AlertPipeline::process`]). A service's workers call this
    /// in a loop, pausing briefly when it claims nothing.
    ///
    /// # Errors
    /// [`StoreError`] when the claim itself fails; failures of single jobs are in the report.
    pub async fn run_once(&self, max: usize) -> Result<RunReport, StoreError> {
        self.run_once_until(max, &|| false).await
    }

    /// [`AlertPipeline::run_once`] for a worker that may be told to stop: once `stopping()`
    /// turns true, the claimed jobs not yet started are released, due at once, for another
    /// worker or replica to take, instead of waiting for their leases to expire.
    ///
    /// # Errors
    /// [`StoreError`] when claiming failed.
    pub async fn run_once_until(
        &self,
        max: usize,
        stopping: &(dyn Fn() -> bool + Send + Sync),
    ) -> Result<RunReport, StoreError> {
        let jobs = self.claim(max.min(self.config.claim_batch)).await?;
        let mut report = RunReport::default();
        for job in jobs {
            if stopping() {
                // A failed release only delays the job until its lease expires.
                let _ = self.ports.jobs.release(job.token, &job.lease).await;
                report.released.push(job.token);
                continue;
            }
            match self.process(&job).await {
                Ok(done) => report.processed.push((job.token, done)),
                Err(e) => report.failed.push((job.token, e)),
            }
        }
        Ok(report)
    }

    /// Claims up to `max` due jobs, fairly across keys and at most
    /// [`PipelineConfig::per_key_jobs`] of one key held at once, for a service that runs each
    /// with [`AlertPipeline::process`] as it likes (concurrently, say).
    ///
    /// # Errors
    /// [`StoreError`] when claiming failed.
    pub async fn claim(&self, max: usize) -> Result<Vec<AlertJob>, StoreError> {
        let ids = &self.ports.ids;
        let lease_id = || ids.new_id();
        let limits = ClaimLimits::up_to(max).per_key(self.config.per_key_jobs.max(1));
        self.ports
            .jobs
            .claim(
                self.ports.clock.now(),
                self.config.lease_for,
                limits,
                &lease_id,
            )
            .await
    }

    /// Takes a claimed job as far as it goes now: a job to evaluate has its file written and
    /// then its first delivery attempt, under the same lease; a job to deliver has one
    /// delivery attempt.
    ///
    /// # Errors
    /// [`PipelineError`] when a dependency failed; the job keeps its lease and is claimed
    /// again when it expires.
    pub async fn process(&self, job: &AlertJob) -> Result<Processed, PipelineError> {
        let started = self.ports.clock.now();
        let processed = self.step(job).await;
        if matches!(
            processed,
            Ok(Processed::Finished { .. } | Processed::Retrying { .. })
        ) {
            let held = (self.ports.clock.now() - started)
                .to_std()
                .unwrap_or_default();
            self.pace.record(job.key_id, held);
        }
        processed
    }

    async fn step(&self, job: &AlertJob) -> Result<Processed, PipelineError> {
        let step = match job.stage {
            JobStage::Evaluate => match self.evaluate(job).await {
                Ok(Evaluated::Written { config, unrecorded }) => {
                    let delivering = AlertJob {
                        stage: JobStage::Deliver,
                        ..job.clone()
                    };
                    self.deliver(&delivering, Some(config), unrecorded).await
                }
                Ok(Evaluated::Ended(processed)) => Ok(processed),
                Err(e) => Err(e),
            },
            JobStage::Deliver => self.deliver(job, None, None).await,
            JobStage::Done => return Ok(Processed::AlreadyDone),
        };
        match step {
            Err(PipelineError::Store(StoreError::LeaseLost)) => Ok(Processed::LeaseLost),
            other => other,
        }
    }

    async fn finish(
        &self,
        job: &AlertJob,
        outcome: JobOutcome,
        attempts: u32,
    ) -> Result<Processed, PipelineError> {
        self.settle(
            job,
            Settlement {
                written: None,
                attempt: None,
                next: JobUpdate::Finish { outcome, attempts },
            },
        )
        .await?;
        Ok(Processed::Finished { outcome, attempts })
    }

    /// Stores what became of a held job in one store write.
    async fn settle(&self, job: &AlertJob, settlement: Settlement) -> Result<(), PipelineError> {
        if settlement.written.is_none() && settlement.attempt.is_none() {
            self.ports
                .jobs
                .update(job.token, &job.lease, settlement.next)
                .await?;
        } else {
            self.ports
                .jobs
                .settle(job.token, &job.lease, &settlement)
                .await?;
        }
        Ok(())
    }

    /// Writes the job's file (or finds it written by an earlier run). The key's configuration
    /// read here serves the delivery too, so that a job reads it once.
    async fn evaluate(&self, job: &AlertJob) -> Result<Evaluated, PipelineError> {
        let now = self.ports.clock.now();
        let key = FileKey::for_token(job.token);
        let Some(config) = self.ports.rules.key_config(job.key_id, now).await? else {
            let ended = self
                .finish(job, JobOutcome::Cancelled, job.attempts)
                .await?;
            return Ok(Evaluated::Ended(ended));
        };
        let written = match self.ports.files.create_unless_exists(&key).await {
            Ok(Some(writer)) => self.write_file(writer, job, &config.rules, now).await,
            Ok(None) => {
                // Written by an earlier run that died before recording it: keep that file.
                // What that run told is stored already.
                let bytes = self.ports.files.read(&key).await?;
                Ok((count_lines(&bytes), true))
            }
            Err(e) => Err(e.into()),
        };
        let (alerts, told) = match written {
            Ok(written) => written,
            Err(e) => {
                // A file that cannot be started or written past the retry window ends the job.
                let past_window = add(job.received_at, self.config.retry.window)
                    .is_some_and(|deadline| now > deadline);
                if past_window && !matches!(e, PipelineError::Store(StoreError::LeaseLost)) {
                    let ended = self.finish(job, JobOutcome::GaveUp, job.attempts).await?;
                    return Ok(Evaluated::Ended(ended));
                }
                return Err(e);
            }
        };
        if told {
            // What this job told counts for other jobs of the key once its file is recorded
            // (see `crate::repeat`): record it now, not after the delivery.
            self.ports
                .jobs
                .update(job.token, &job.lease, JobUpdate::Written { alerts })
                .await?;
            return Ok(Evaluated::Written {
                config,
                unrecorded: None,
            });
        }
        // Recorded with the delivery's outcome, in the same store write. A crash before then
        // finds the job to evaluate and its file written, which it keeps.
        Ok(Evaluated::Written {
            config,
            unrecorded: Some(alerts),
        })
    }

    /// One delivery attempt, with the key's configuration when evaluation just read it, and
    /// the file's lines when they are still to be recorded.
    async fn deliver(
        &self,
        job: &AlertJob,
        config: Option<KeyConfig>,
        unrecorded: Option<u64>,
    ) -> Result<Processed, PipelineError> {
        let now = self.ports.clock.now();
        let config = match config {
            Some(config) => Some(config),
            None => self.ports.rules.key_config(job.key_id, now).await?,
        };
        let Some((config, url)) =
            config.and_then(|c| webhook_url(&c).map(str::to_owned).map(|u| (c, u)))
        else {
            let outcome = JobOutcome::Cancelled;
            let attempts = job.attempts;
            self.settle(
                job,
                Settlement {
                    written: unrecorded,
                    attempt: None,
                    next: JobUpdate::Finish { outcome, attempts },
                },
            )
            .await?;
            return Ok(Processed::Finished { outcome, attempts });
        };

        if let Some(until) = self.breakers.wait_until(&url, now) {
            return self.defer(job, until, unrecorded).await;
        }

        // A fresh URL on every attempt, so a late success still has its full validity.
        let file_url = self
            .ports
            .signer
            .signed_url(
                &FileKey::for_token(job.token),
                now,
                self.config.url_valid_for,
            )
            .await?;
        let body = DeliveryPayload {
            key: &config.prefix,
            token: job.token,
            url: &file_url,
        }
        .to_bytes();
        let secrets = config
            .secrets
            .iter()
            .filter(|s| s.valid_until.is_none_or(|until| until > now))
            .map(|s| &s.secret);
        let mut request =
            signed_request(&url, secrets, &message_id(job.token), now.timestamp(), body);
        request.headers.push((
            HEADER_DATA_SOURCE.to_owned(),
            self.ports.forecast.info().label(),
        ));

        let response = self.ports.sender.send(&request).await;
        let attempt = job.attempts.saturating_add(1);
        // Recorded with the job's next state, in one store write: the attempt first, so that
        // a crash before it repeats the attempt (at least once) rather than loses it.
        let record = DeliveryAttempt {
            token: job.token,
            attempt,
            at: now,
            status: response.status,
            latency_ms: u64::try_from(response.latency.as_millis()).unwrap_or(u64::MAX),
            error: response.error,
        };

        let ok =
            response.error.is_none() && response.status.is_none_or(|s| (200..300).contains(&s));
        // 410 is the receiver's answer, not a failure of it.
        self.breakers
            .record(&url, ok || response.status == Some(410), now);
        let (next, processed) = if ok || response.status == Some(410) {
            let outcome = if ok {
                JobOutcome::Delivered
            } else {
                JobOutcome::Gone
            };
            let next = JobUpdate::Finish {
                outcome,
                attempts: attempt,
            };
            (
                next,
                Processed::Finished {
                    outcome,
                    attempts: attempt,
                },
            )
        } else {
            let first_attempt_at = if attempt == 1 {
                now
            } else {
                self.first_attempt_at(job).await?
            };
            match self
                .config
                .retry
                .next_attempt(job.token, attempt, first_attempt_at, now)
            {
                Some(at) => (
                    JobUpdate::Retry {
                        attempts: attempt,
                        run_at: at,
                    },
                    Processed::Retrying { attempt, at },
                ),
                None => (
                    JobUpdate::Finish {
                        outcome: JobOutcome::GaveUp,
                        attempts: attempt,
                    },
                    Processed::Finished {
                        outcome: JobOutcome::GaveUp,
                        attempts: attempt,
                    },
                ),
            }
        };
        self.settle(
            job,
            Settlement {
                written: unrecorded,
                attempt: Some(record),
                next,
            },
        )
        .await?;
        Ok(processed)
    }
}

impl AlertPipeline {
    /// When the job's first delivery attempt was made; its reception for a job not yet tried.
    async fn first_attempt_at(&self, job: &AlertJob) -> Result<DateTime<Utc>, PipelineError> {
        Ok(self
            .ports
            .deliveries
            .list_attempts(job.key_id, job.token)
            .await?
            .first()
            .map_or(job.received_at, |a| a.at))
    }

    /// Puts a job whose URL's breaker is open back in the queue, due `until`, with no attempt
    /// spent; or gives it up when `until` is past its retry window.
    async fn defer(
        &self,
        job: &AlertJob,
        until: DateTime<Utc>,
        unrecorded: Option<u64>,
    ) -> Result<Processed, PipelineError> {
        let first = self.first_attempt_at(job).await?;
        let past_window = add(first, self.config.retry.window).is_none_or(|end| until > end);
        let (next, processed) = if past_window {
            let (outcome, attempts) = (JobOutcome::GaveUp, job.attempts);
            (
                JobUpdate::Finish { outcome, attempts },
                Processed::Finished { outcome, attempts },
            )
        } else {
            (
                JobUpdate::Retry {
                    attempts: job.attempts,
                    run_at: until,
                },
                Processed::Deferred { until },
            )
        };
        self.settle(
            job,
            Settlement {
                written: unrecorded,
                attempt: None,
                next,
            },
        )
        .await?;
        Ok(processed)
    }
}

/// Where evaluating a job left it.
enum Evaluated {
    /// The file is written; the job, still leased, is to be delivered, with the key's
    /// configuration read for the evaluation. `unrecorded`: the file's lines, when they are
    /// to be recorded with the delivery's outcome rather than already.
    Written {
        config: KeyConfig,
        unrecorded: Option<u64>,
    },
    /// The job finished without a file (its key is gone, or it gave up).
    Ended(Processed),
}

fn webhook_url(config: &KeyConfig) -> Option<&str> {
    config
        .webhook_url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
}

mod backpressure;
mod pace;
mod refusals;
mod retry;
#[cfg(test)]
mod tests;
mod writing;

pub use backpressure::{Backpressure, BusyScope, KeyPace};
use pace::Pace;
use refusals::Refusals;
pub use retry::RetrySchedule;
pub(crate) use retry::{add, secs};
