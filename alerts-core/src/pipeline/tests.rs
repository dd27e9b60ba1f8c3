//! Interaction tests of the pipeline: in-memory stores and files, with mockall standing in for
//! the sender, the signer and the forecast source where the test is about how they are called.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aq_core::memory::MemoryForecast;
use aq_core::runtime::{Clock, FixedClock, IdGenerator, SequentialIds};
use aq_core::{
    CleanlinessIndex, ForecastSource, HourlyCi, PollenOutlook, Position, SourceError, SourceInfo,
};
use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use identity_core::ids::AccountId;
use identity_core::keys::{ApiKey, WebhookSecret};
use identity_core::ports::{Account, AccountStore};
use identity_core::randomness::SeededRandomness;
use mockall::mock;
use uuid::Uuid;

use super::*;
use crate::ids::RuleId;
use crate::memory::{MemoryFiles, MemoryStore, RecordingSender};
use crate::ndjson::decode_all;
use crate::ports::{
    Backlog, ClaimLimits, DeliveryErrorKind, Lease, WebhookRequest, WebhookResponse,
};
use crate::request::AlertPoint;
use crate::rule::{DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use crate::webhook::{HEADER_DATA_SOURCE, HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, Verifier};

mock! {
    Sender {}
    #[async_trait]
    impl WebhookSender for Sender {
        async fn send(&self, request: &WebhookRequest) -> WebhookResponse;
    }
}

mock! {
    Signer {}
    #[async_trait]
    impl UrlSigner for Signer {
        async fn signed_url(
            &self,
            key: &FileKey,
            now: DateTime<Utc>,
            valid_for: Duration,
        ) -> Result<String, FileError>;
    }
}

mock! {
    Forecast {}
    #[async_trait]
    impl ForecastSource for Forecast {
        fn info(&self) -> SourceInfo;
        async fn hourly_ci(
            &self,
            positions: &[Position],
            start: DateTime<Utc>,
            hours: u32,
        ) -> Result<Vec<Option<HourlyCi>>, SourceError>;
        async fn daily_pollen(
            &self,
            positions: &[Position],
            at: DateTime<Utc>,
            days: u32,
        ) -> Result<Vec<Option<PollenOutlook>>, SourceError>;
    }
}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

fn ci(v: f64) -> Option<CleanlinessIndex> {
    Some(CleanlinessIndex::new(v).unwrap())
}

fn paris() -> Position {
    Position::new(2.35, 48.85).unwrap()
}

fn status(code: u16) -> WebhookResponse {
    RecordingSender::status(code)
}

/// A job queue that fails chosen updates once, as a worker dying at that moment would leave
/// things: the change is not recorded and the lease is still held. It also records the pages
/// of points read, as (from, limit, points returned).
struct FlakyQueue {
    inner: Arc<MemoryStore>,
    fail_written: AtomicBool,
    fail_finish: AtomicBool,
    pages: Mutex<Vec<(u64, usize, usize)>>,
    /// Page reads from this index on fail as an unavailable database would.
    fail_pages_from: Option<u64>,
    /// Every enqueue answers this, as a broken store might, instead of storing.
    enqueue_answer: Option<crate::idempotency::Enqueued>,
}

impl FlakyQueue {
    fn new(inner: Arc<MemoryStore>) -> Self {
        Self {
            inner,
            fail_written: AtomicBool::new(false),
            fail_finish: AtomicBool::new(false),
            pages: Mutex::default(),
            fail_pages_from: None,
            enqueue_answer: None,
        }
    }
}

#[async_trait]
impl JobQueue for FlakyQueue {
    async fn enqueue_pages(
        &self,
        job: &NewAlertJob,
        points: &mut dyn PointPages,
        idempotency: Option<&crate::idempotency::Idempotency>,
    ) -> Result<crate::idempotency::Enqueued, StoreError> {
        if let Some(answer) = self.enqueue_answer {
            return Ok(answer);
        }
        self.inner.enqueue_pages(job, points, idempotency).await
    }
    async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_for: Duration,
        limits: ClaimLimits,
        lease_ids: &(dyn Fn() -> Uuid + Send + Sync),
    ) -> Result<Vec<AlertJob>, StoreError> {
        self.inner.claim(now, lease_for, limits, lease_ids).await
    }
    async fn points_page(
        &self,
        token: Token,
        from: u64,
        limit: usize,
    ) -> Result<Vec<AlertPoint>, StoreError> {
        if self.fail_pages_from.is_some_and(|f| from >= f) {
            return Err(StoreError::Unavailable("connection reset".into()));
        }
        let page = self.inner.points_page(token, from, limit).await?;
        self.pages.lock().unwrap().push((from, limit, page.len()));
        Ok(page)
    }
    async fn update(
        &self,
        token: Token,
        lease: &Lease,
        update: JobUpdate,
    ) -> Result<(), StoreError> {
        let fail = match update {
            JobUpdate::Written { .. } => self.fail_written.swap(false, Ordering::SeqCst),
            JobUpdate::Finish { .. } => self.fail_finish.swap(false, Ordering::SeqCst),
            JobUpdate::Retry { .. } => false,
        };
        if fail {
            return Err(StoreError::Unavailable("connection reset".into()));
        }
        self.inner.update(token, lease, update).await
    }
    async fn release(&self, token: Token, lease: &Lease) -> Result<(), StoreError> {
        self.inner.release(token, lease).await
    }
    async fn redeliver(
        &self,
        key: KeyId,
        token: Token,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.inner.redeliver(key, token, at).await
    }
    async fn counts(&self, now: DateTime<Utc>) -> Result<crate::ports::JobCounts, StoreError> {
        self.inner.counts(now).await
    }

    async fn backlog(&self, key: KeyId, now: DateTime<Utc>) -> Result<Backlog, StoreError> {
        self.inner.backlog(key, now).await
    }

    async fn purge_finished(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Token>, StoreError> {
        self.inner.purge_finished(before, limit).await
    }
}

/// Everything a test needs, with each port replaceable before the pipeline is built.
struct Harness {
    clock: Arc<FixedClock>,
    ids: Arc<SequentialIds>,
    store: Arc<MemoryStore>,
    files: Arc<MemoryFiles>,
    forecast: Arc<MemoryForecast>,
    key_id: KeyId,
    api_key: ApiKey,
    secret: WebhookSecret,
}

impl Harness {
    async fn new() -> Self {
        let clock = Arc::new(FixedClock::new(t0()));
        let ids = Arc::new(SequentialIds::default());
        let store = Arc::new(MemoryStore::new());
        let account = AccountId(ids.new_id());
        store
            .create_account(&Account {
                id: account,
                email: "dev@example.com".into(),
                password_hash: "x".into(),
                created_at: t0(),
            })
            .await
            .unwrap();
        let rng = SeededRandomness::default();
        let api_key = ApiKey::generate(&rng);
        let secret = WebhookSecret::generate(&rng);
        let key_id = KeyId(ids.new_id());
        store
            .create_key(&identity_core::ports::NewApiKey {
                id: key_id,
                account_id: account,
                label: "test".into(),
                prefix: api_key.prefix().into(),
                hash: api_key.hash(),
                secret: secret.clone(),
                created_at: t0(),
            })
            .await
            .unwrap();
        store
            .set_webhook_url(key_id, Some("https://hooks.example/in"))
            .await
            .unwrap();
        let h = Self {
            clock,
            ids,
            store,
            files: Arc::new(MemoryFiles::new()),
            forecast: Arc::new(MemoryForecast::default()),
            key_id,
            api_key,
            secret,
        };
        h.add_rule(DataType::Aq, Forecast::Hours(6), Sensitivity::Medium)
            .await;
        h.forecast
            .set_hourly(paris(), vec![ci(72.0), ci(70.0), ci(58.0)]);
        h
    }

    async fn add_rule(&self, dt: DataType, f: Forecast, s: Sensitivity) {
        self.store
            .add_rule(&AlertRule {
                id: RuleId(self.ids.new_id()),
                key_id: self.key_id,
                spec: RuleSpec::new(dt, f, s, MessageSpec::Default).unwrap(),
                enabled: true,
                created_at: t0(),
            })
            .await
            .unwrap();
    }

    fn ports(&self) -> PipelinePorts {
        PipelinePorts {
            rules: self.store.clone(),
            jobs: self.store.clone(),
            deliveries: self.store.clone(),
            sent: self.store.clone(),
            files: self.files.clone(),
            signer: self.files.clone(),
            sender: Arc::new(RecordingSender::new()),
            forecast: self.forecast.clone(),
            clock: self.clock.clone(),
            ids: self.ids.clone(),
        }
    }

    fn request(&self) -> AlertRequest {
        AlertRequest {
            points: vec![AlertPoint {
                position: paris(),
                id: "user-17".into(),
                custom_data: r#"{"tier":"gold"}"#.into(),
            }],
        }
    }

    /// Moves the clock to the job's next run time.
    fn advance_to_run_at(&self, token: Token) {
        let run_at = self.store.job_state(token).unwrap().run_at;
        if run_at > self.clock.now() {
            self.clock.set(run_at);
        }
    }
}

fn header<'a>(req: &'a WebhookRequest, name: &str) -> &'a str {
    &req.headers.iter().find(|(n, _)| n == name).unwrap().1
}

#[tokio::test]
async fn accept_refuses_keys_that_cannot_receive_alerts() {
    let h = Harness::new().await;
    let pipeline = AlertPipeline::new(h.ports(), PipelineConfig::default());

    h.store.set_webhook_url(h.key_id, Some("  ")).await.unwrap();
    let err = pipeline.accept(h.key_id, h.request()).await.unwrap_err();
    assert_eq!(err, AcceptError::WebhookNotConfigured);

    h.store
        .set_webhook_url(h.key_id, Some("https://hooks.example/in"))
        .await
        .unwrap();
    for mut rule in h.store.list_rules(h.key_id).await.unwrap() {
        rule.enabled = false;
        h.store.update_rule(&rule).await.unwrap();
    }
    let err = pipeline.accept(h.key_id, h.request()).await.unwrap_err();
    assert_eq!(err, AcceptError::NoAlertRules);

    h.store.revoke_key(h.key_id, t0()).await.unwrap();
    let err = pipeline.accept(h.key_id, h.request()).await.unwrap_err();
    assert_eq!(err, AcceptError::UnknownKey);
    assert!(
        h.store
            .list_requests(h.key_id, 10)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn accept_stores_the_request_before_returning() {
    let h = Harness::new().await;
    let pipeline = AlertPipeline::new(h.ports(), PipelineConfig::default());
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
    let state = h.store.job_state(token).unwrap();
    assert_eq!(state.stage, JobStage::Evaluate);
    assert_eq!(state.run_at, t0());
    assert_eq!(
        h.store.points_page(token, 0, 100).await.unwrap(),
        h.request().points
    );
}

#[tokio::test]
async fn a_retry_with_the_same_idempotency_key_gets_the_first_token_and_stores_nothing() {
    let h = Harness::new().await;
    let pipeline = AlertPipeline::new(h.ports(), PipelineConfig::default());
    let key = || Some(IdempotencyKey::parse("retry-1").unwrap());
    let first = pipeline
        .accept_idempotent(h.key_id, h.request(), key())
        .await
        .unwrap();
    let again = pipeline
        .accept_idempotent(h.key_id, h.request(), key())
        .await
        .unwrap();
    assert!(!first.replayed);
    assert_eq!(
        again.token, first.token,
        "the retry names the first request"
    );
    assert!(again.replayed);
    assert_eq!(
        h.store.counts(t0()).await.unwrap().waiting,
        1,
        "one job, not two"
    );

    // Without a key, the same points are a new request.
    let plain = pipeline.accept(h.key_id, h.request()).await.unwrap();
    assert_ne!(plain, first.token);
}

#[tokio::test]
async fn an_idempotency_key_reused_with_other_points_is_refused() {
    let h = Harness::new().await;
    let pipeline = AlertPipeline::new(h.ports(), PipelineConfig::default());
    let key = || Some(IdempotencyKey::parse("k").unwrap());
    pipeline
        .accept_idempotent(h.key_id, h.request(), key())
        .await
        .unwrap();
    let mut other = h.request();
    other.points[0].id = "user-18".into();
    let err = pipeline
        .accept_idempotent(h.key_id, other, key())
        .await
        .unwrap_err();
    assert!(matches!(err, AcceptError::IdempotencyKeyReused), "{err:?}");
    assert_eq!(h.store.counts(t0()).await.unwrap().waiting, 1);
}

#[tokio::test]
async fn a_request_is_evaluated_written_and_delivered_signed_under_one_claim() {
    let h = Harness::new().await;
    let sender = Arc::new(RecordingSender::new());
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            sender: sender.clone(),
            ..h.ports()
        },
        PipelineConfig::default(),
    );
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
    let run = pipeline.run_once(10).await.unwrap();
    assert_eq!(
        run.processed,
        vec![(
            token,
            Processed::Finished {
                outcome: JobOutcome::Delivered,
                attempts: 1
            }
        )]
    );
    assert_eq!(pipeline.run_once(10).await.unwrap().claimed(), 0);
    assert_eq!(h.store.job_state(token).unwrap().alerts, Some(1));

    let sent = sender.requests();
    assert_eq!(sent.len(), 1);
    let req = &sent[0];
    assert_eq!(req.url, "https://hooks.example/in");
    // The delivery names the forecast source its alerts came from (the memory source is
    // synthetic).
    assert_eq!(header(req, HEADER_DATA_SOURCE), "memory; synthetic");
    Verifier::default()
        .verify(
            std::slice::from_ref(&h.secret),
            header(req, HEADER_ID),
            header(req, HEADER_TIMESTAMP),
            header(req, HEADER_SIGNATURE),
            &req.body,
            h.clock.now(),
        )
        .unwrap();
    let payload: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
    assert_eq!(payload["KEY"], h.api_key.prefix());
    assert_eq!(payload["TOKEN"], token.to_string());
    let url = payload["URL"].as_str().unwrap();
    let expected = format!(
        "memory://alerts/{token}.ndjson?expires={}&signature=",
        t0().timestamp() + 900
    );
    assert!(url.starts_with(&expected), "{url}");
    let lines = decode_all(&h.files.fetch(url, h.clock.now()).unwrap()).unwrap();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].id, "user-17");
    assert_eq!(lines[0].custom_data, r#"{"tier":"gold"}"#);
    assert_eq!(
        lines[0].description,
        "In 2 hours the air quality is expected to be worse (58 AQI)."
    );
    let attempts = h.store.list_attempts(h.key_id, token).await.unwrap();
    assert_eq!(attempts.len(), 1);
    assert_eq!((attempts[0].attempt, attempts[0].status), (1, Some(200)));
}

#[tokio::test]
async fn zero_alerts_still_make_a_file_and_a_delivery() {
    let h = Harness::new().await;
    h.forecast.set_hourly(paris(), vec![ci(72.0), ci(71.0)]);
    let sender = Arc::new(RecordingSender::new());
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            sender: sender.clone(),
            ..h.ports()
        },
        PipelineConfig::default(),
    );
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
    pipeline.run_once(1).await.unwrap();
    pipeline.run_once(1).await.unwrap();
    assert_eq!(sender.requests().len(), 1);
    let file = h.files.read(&FileKey::for_token(token)).await.unwrap();
    assert!(file.is_empty());
    assert_eq!(h.store.job_state(token).unwrap().alerts, Some(0));
}

/// Retries follow the schedule (5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then hourly, each
/// ±10 %) and stop once the next would be more than 24 h after the first attempt.
#[tokio::test]
async fn retries_follow_the_schedule_until_the_window_closes() {
    let h = Harness::new().await;
    let mut sender = MockSender::new();
    let attempts_seen = Arc::new(AtomicUsize::new(0));
    let seen = attempts_seen.clone();
    sender.expect_send().returning(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        status(503)
    });
    let config = PipelineConfig::default();
    let schedule = config.retry.clone();
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            sender: Arc::new(sender),
            ..h.ports()
        },
        config,
    );
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();

    let first = h.clock.now();
    let mut attempt = 0u32;
    loop {
        h.advance_to_run_at(token);
        let now = h.clock.now();
        let run = pipeline.run_once(1).await.unwrap();
        attempt += 1;
        match run.processed[0].1 {
            Processed::Retrying { attempt: a, at } => {
                assert_eq!(a, attempt);
                assert_eq!(
                    at,
                    now + chrono::Duration::from_std(schedule.delay(token, a)).unwrap()
                );
                let nominal = schedule
                    .delays
                    .get(a as usize - 1)
                    .copied()
                    .unwrap_or(schedule.then_every);
                let waited = (at - now).to_std().unwrap();
                assert!(
                    waited.as_secs_f64() >= nominal.as_secs_f64() * 0.9
                        && waited.as_secs_f64() <= nominal.as_secs_f64() * 1.1,
                    "attempt {a}: waited {waited:?}, nominal {nominal:?}"
                );
                assert!(at <= first + chrono::Duration::hours(24));
            }
            Processed::Finished {
                outcome: JobOutcome::GaveUp,
                attempts,
            } => {
                assert_eq!(attempts, attempt);
                let next =
                    now + chrono::Duration::from_std(schedule.delay(token, attempt)).unwrap();
                assert!(next > first + chrono::Duration::hours(24));
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(attempt < 100, "never gave up");
    }
    // 6 fixed delays (about 1 h 43 min) then hourly until 24 h: 6 + 22 or 23 more.
    assert!((27..=30).contains(&attempt), "{attempt} attempts");
    assert_eq!(attempts_seen.load(Ordering::SeqCst), attempt as usize);
    let log = h.store.list_attempts(h.key_id, token).await.unwrap();
    assert_eq!(log.len(), attempt as usize);
    assert!(
        log.iter()
            .enumerate()
            .all(|(i, a)| a.attempt as usize == i + 1
                && a.status == Some(503)
                && a.error == Some(DeliveryErrorKind::Status))
    );
}

/// Each attempt gets a freshly signed URL and its own timestamp; the webhook-id stays.
#[tokio::test]
async fn each_attempt_gets_a_new_url_and_timestamp_and_the_same_id() {
    let h = Harness::new().await;

    let mut signer = MockSigner::new();
    signer
        .expect_signed_url()
        .withf(|key, _, valid_for| {
            key.0.starts_with("alerts/") && *valid_for == Duration::from_secs(900)
        })
        .times(3)
        .returning(|key, now, valid_for| {
            Ok(format!(
                "https://files.example/{}?exp={}",
                key.0,
                now.timestamp() + i64::try_from(valid_for.as_secs()).unwrap()
            ))
        });

    let sent: Arc<Mutex<Vec<WebhookRequest>>> = Arc::default();
    let log = sent.clone();
    let mut sender = MockSender::new();
    let mut answers = vec![
        status(200),
        status(502),
        RecordingSender::failure(DeliveryErrorKind::Timeout),
    ];
    sender.expect_send().times(3).returning(move |req| {
        log.lock().unwrap().push(req.clone());
        answers.pop().unwrap()
    });

    let pipeline = AlertPipeline::new(
        PipelinePorts {
            sender: Arc::new(sender),
            signer: Arc::new(signer),
            ..h.ports()
        },
        PipelineConfig::default(),
    );
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
    let mut times = Vec::new();
    for _ in 0..3 {
        h.advance_to_run_at(token);
        times.push(h.clock.now());
        pipeline.run_once(1).await.unwrap();
    }
    assert_eq!(
        h.store.job_state(token).unwrap().outcome,
        Some(JobOutcome::Delivered)
    );

    let sent = sent.lock().unwrap();
    assert_eq!(sent.len(), 3);
    let ids: Vec<&str> = sent.iter().map(|r| header(r, HEADER_ID)).collect();
    assert!(
        ids.iter()
            .all(|id| *id == crate::webhook::message_id(token))
    );
    let stamps: Vec<String> = sent
        .iter()
        .map(|r| header(r, HEADER_TIMESTAMP).to_owned())
        .collect();
    let expected: Vec<String> = times.iter().map(|t| t.timestamp().to_string()).collect();
    assert_eq!(stamps, expected);
    let urls: Vec<String> = sent
        .iter()
        .map(|r| {
            let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
            v["URL"].as_str().unwrap().to_owned()
        })
        .collect();
    for (url, t) in urls.iter().zip(&times) {
        assert!(
            url.ends_with(&format!("?exp={}", t.timestamp() + 900)),
            "{url}"
        );
    }
    assert!(urls[0] != urls[1] && urls[1] != urls[2]);
    for (req, t) in sent.iter().zip(&times) {
        Verifier::default()
            .verify(
                std::slice::from_ref(&h.secret),
                header(req, HEADER_ID),
                header(req, HEADER_TIMESTAMP),
                header(req, HEADER_SIGNATURE),
                &req.body,
                *t,
            )
            .unwrap();
    }
}

/// The worker dies after the file is written and before the job records it. Another worker
/// claims the job after the lease expires, finds the file, does not evaluate again, and
/// delivers once: exactly one file, one delivery.
#[tokio::test]
async fn a_crash_between_writing_and_recording_ends_in_one_delivered_file() {
    let h = Harness::new().await;
    let queue = Arc::new(FlakyQueue {
        fail_written: AtomicBool::new(true),
        ..FlakyQueue::new(h.store.clone())
    });
    let mut forecast = MockForecast::new();
    forecast
        .expect_info()
        .returning(|| SourceInfo::demo("mock"));
    forecast
        .expect_hourly_ci()
        .times(1)
        .returning(|positions, start, _| {
            Ok(positions
                .iter()
                .map(|_| HourlyCi::covered(start, vec![ci(72.0), ci(50.0)]))
                .collect())
        });
    forecast.expect_daily_pollen().never();
    let sender = Arc::new(RecordingSender::new());
    let config = PipelineConfig::default();
    let lease_for = config.lease_for;
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            jobs: queue,
            sender: sender.clone(),
            forecast: Arc::new(forecast),
            ..h.ports()
        },
        config,
    );
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();

    let run = pipeline.run_once(1).await.unwrap();
    assert_eq!(
        run.failed.len(),
        1,
        "the update failed after the file was written"
    );
    let first_file = h.files.read(&FileKey::for_token(token)).await.unwrap();
    assert_eq!(
        h.store.job_state(token).unwrap().stage,
        JobStage::Evaluate,
        "the store never heard of the file"
    );

    // Still leased: nobody may take the job yet.
    h.clock.advance(chrono::Duration::seconds(60));
    assert_eq!(pipeline.run_once(1).await.unwrap().claimed(), 0);

    h.clock
        .advance(chrono::Duration::from_std(lease_for).unwrap());
    let run = pipeline.run_once(1).await.unwrap();
    assert_eq!(
        run.processed,
        vec![(
            token,
            Processed::Finished {
                outcome: JobOutcome::Delivered,
                attempts: 1
            }
        )]
    );

    assert_eq!(h.files.keys(), vec![FileKey::for_token(token)]);
    assert_eq!(
        h.files.read(&FileKey::for_token(token)).await.unwrap(),
        first_file
    );
    assert_eq!(sender.requests().len(), 1);
    assert_eq!(
        h.store.job_state(token).unwrap().outcome,
        Some(JobOutcome::Delivered)
    );
}

/// The worker dies after the receiver answered 2xx and before the job is finished: the
/// delivery is repeated (at least once) with the same webhook-id, and the job ends delivered.
#[tokio::test]
async fn a_crash_after_sending_repeats_the_delivery_with_the_same_id() {
    let h = Harness::new().await;
    let queue = Arc::new(FlakyQueue {
        fail_finish: AtomicBool::new(true),
        ..FlakyQueue::new(h.store.clone())
    });
    let sender = Arc::new(RecordingSender::new());
    let config = PipelineConfig::default();
    let lease_for = config.lease_for;
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            jobs: queue,
            sender: sender.clone(),
            ..h.ports()
        },
        config,
    );
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
    assert_eq!(pipeline.run_once(1).await.unwrap().failed.len(), 1);
    h.clock
        .advance(chrono::Duration::from_std(lease_for).unwrap() + chrono::Duration::seconds(1));
    pipeline.run_once(1).await.unwrap();

    let sent = sender.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(header(&sent[0], HEADER_ID), header(&sent[1], HEADER_ID));
    assert_ne!(
        header(&sent[0], HEADER_TIMESTAMP),
        header(&sent[1], HEADER_TIMESTAMP)
    );
    // The job never learned of the first send, so the repeat is attempt 1 again, and the
    // log keeps one record per (token, attempt).
    let state = h.store.job_state(token).unwrap();
    assert_eq!(
        (state.outcome, state.attempts),
        (Some(JobOutcome::Delivered), 1)
    );
    assert_eq!(
        h.store.list_attempts(h.key_id, token).await.unwrap().len(),
        1
    );
}

#[tokio::test]
async fn gone_stops_at_once_and_revocation_cancels() {
    let h = Harness::new().await;
    let sender = Arc::new(RecordingSender::scripted([status(410)]));
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            sender: sender.clone(),
            ..h.ports()
        },
        PipelineConfig::default(),
    );
    let gone = pipeline.accept(h.key_id, h.request()).await.unwrap();
    pipeline.run_once(1).await.unwrap();
    let state = h.store.job_state(gone).unwrap();
    assert_eq!((state.outcome, state.attempts), (Some(JobOutcome::Gone), 1));

    // The URL removed after the request was accepted: the file is written, then the
    // delivery is cancelled.
    let cancelled = pipeline.accept(h.key_id, h.request()).await.unwrap();
    h.store.set_webhook_url(h.key_id, None).await.unwrap();
    let run = pipeline.run_once(1).await.unwrap();
    assert_eq!(
        run.processed,
        vec![(
            cancelled,
            Processed::Finished {
                outcome: JobOutcome::Cancelled,
                attempts: 0
            }
        )]
    );
    assert_eq!(sender.requests().len(), 1);

    let revoked = {
        h.store
            .set_webhook_url(h.key_id, Some("https://hooks.example/in"))
            .await
            .unwrap();
        pipeline.accept(h.key_id, h.request()).await.unwrap()
    };
    h.store.revoke_key(h.key_id, h.clock.now()).await.unwrap();
    pipeline.run_once(1).await.unwrap();
    assert_eq!(
        h.store.job_state(revoked).unwrap().outcome,
        Some(JobOutcome::Cancelled)
    );
    assert!(!h.files.exists(&FileKey::for_token(revoked)).await.unwrap());
}

#[tokio::test]
async fn a_worker_that_lost_its_lease_changes_nothing() {
    let h = Harness::new().await;
    let pipeline = AlertPipeline::new(h.ports(), PipelineConfig::default());
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
    let slow = h
        .store
        .claim(
            t0(),
            Duration::from_secs(10),
            ClaimLimits::up_to(1),
            &|| Uuid::from_u128(999),
        )
        .await
        .unwrap()
        .remove(0);
    h.clock.advance(chrono::Duration::seconds(11));
    let fast = pipeline.run_once(1).await.unwrap();
    assert!(matches!(
        fast.processed[0].1,
        Processed::Finished {
            outcome: JobOutcome::Delivered,
            ..
        }
    ));
    assert_eq!(pipeline.process(&slow).await.unwrap(), Processed::LeaseLost);
    assert_eq!(h.store.job_state(token).unwrap().stage, JobStage::Done);
}

#[tokio::test]
async fn evaluation_failures_keep_the_lease_then_give_up_after_the_window() {
    let h = Harness::new().await;
    let mut forecast = MockForecast::new();
    forecast
        .expect_info()
        .returning(|| SourceInfo::demo("mock"));
    forecast
        .expect_hourly_ci()
        .returning(|_, _, _| Err(SourceError::Unavailable("down".into())));
    let config = PipelineConfig::default();
    let lease_for = chrono::Duration::from_std(config.lease_for).unwrap();
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            forecast: Arc::new(forecast),
            ..h.ports()
        },
        config,
    );
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
    let run = pipeline.run_once(1).await.unwrap();
    assert!(matches!(run.failed[0].1, PipelineError::Source(_)));
    assert!(!h.files.exists(&FileKey::for_token(token)).await.unwrap());
    assert_eq!(
        h.store.job_state(token).unwrap().leased_until,
        Some(t0() + lease_for)
    );

    h.clock.set(t0() + chrono::Duration::hours(24) + lease_for);
    let run = pipeline.run_once(1).await.unwrap();
    assert_eq!(
        run.processed[0].1,
        Processed::Finished {
            outcome: JobOutcome::GaveUp,
            attempts: 0
        }
    );
}

#[tokio::test]
async fn rotated_secrets_sign_side_by_side_until_their_grace_ends() {
    let h = Harness::new().await;
    let new = WebhookSecret::generate(&SeededRandomness::new(1));
    h.store
        .rotate_secret(h.key_id, &new, t0() + chrono::Duration::hours(1))
        .await
        .unwrap();
    let sender = Arc::new(RecordingSender::scripted([status(500)]));
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            sender: sender.clone(),
            ..h.ports()
        },
        PipelineConfig::default(),
    );
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
    pipeline.run_once(1).await.unwrap();
    pipeline.run_once(1).await.unwrap();
    h.clock.advance(chrono::Duration::hours(2));
    pipeline.run_once(1).await.unwrap();
    let sent = sender.requests();
    assert_eq!(
        h.store.job_state(token).unwrap().outcome,
        Some(JobOutcome::Delivered)
    );
    let during = header(&sent[0], HEADER_SIGNATURE);
    let after = header(&sent[1], HEADER_SIGNATURE);
    assert_eq!(during.split(' ').count(), 2);
    assert_eq!(after.split(' ').count(), 1);
    for secret in [&new, &h.secret] {
        Verifier::default()
            .verify(
                std::slice::from_ref(secret),
                header(&sent[0], HEADER_ID),
                header(&sent[0], HEADER_TIMESTAMP),
                during,
                &sent[0].body,
                t0(),
            )
            .unwrap();
    }
}

#[tokio::test]
async fn points_are_fetched_in_chunks_with_one_call_per_data_type() {
    let h = Harness::new().await;
    h.add_rule(DataType::Pollen, Forecast::Days(2), Sensitivity::High)
        .await;
    type Calls = Arc<Mutex<Vec<(&'static str, usize, u32)>>>;
    let calls: Calls = Arc::default();
    let (aq_calls, pollen_calls) = (calls.clone(), calls.clone());
    let mut forecast = MockForecast::new();
    forecast
        .expect_info()
        .returning(|| SourceInfo::demo("mock"));
    forecast
        .expect_hourly_ci()
        .returning(move |positions, start, hours| {
            aq_calls
                .lock()
                .unwrap()
                .push(("aq", positions.len(), hours));
            Ok(positions
                .iter()
                .map(|_| HourlyCi::covered(start, vec![ci(72.0), ci(40.0)]))
                .collect())
        });
    forecast
        .expect_daily_pollen()
        .returning(move |positions, _, days| {
            pollen_calls
                .lock()
                .unwrap()
                .push(("pollen", positions.len(), days));
            Ok(vec![None; positions.len()])
        });
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            forecast: Arc::new(forecast),
            ..h.ports()
        },
        PipelineConfig {
            points_chunk: 4,
            file_chunk_bytes: 256,
            ..PipelineConfig::default()
        },
    );
    let points = (0..10)
        .map(|i| AlertPoint {
            position: Position::new(f64::from(i), 10.0).unwrap(),
            id: format!("p{i}"),
            custom_data: "{}".into(),
        })
        .collect();
    let token = pipeline
        .accept(h.key_id, AlertRequest { points })
        .await
        .unwrap();
    pipeline.run_once(1).await.unwrap();
    assert_eq!(
        *calls.lock().unwrap(),
        vec![
            ("aq", 4, 6),
            ("pollen", 4, 2),
            ("aq", 4, 6),
            ("pollen", 4, 2),
            ("aq", 2, 6),
            ("pollen", 2, 2)
        ]
    );
    let lines = decode_all(&h.files.read(&FileKey::for_token(token)).await.unwrap()).unwrap();
    let ids: Vec<String> = lines.into_iter().map(|l| l.id).collect();
    assert_eq!(ids, (0..10).map(|i| format!("p{i}")).collect::<Vec<_>>());
}

/// Points for the paging tests: all where the harness's forecast has data, so that every one
/// yields a line, with ids and custom data that tell them apart.
fn paris_points(n: usize) -> Vec<AlertPoint> {
    (0..n)
        .map(|i| AlertPoint {
            position: paris(),
            id: format!("p{i}"),
            custom_data: format!(r#"{{"n": {i},  "k":"\u00e9"}}"#),
        })
        .collect()
}

#[tokio::test]
async fn the_worker_reads_one_page_of_points_chunk_points_at_a_time() {
    for (n, pages) in [
        (10, vec![(0, 4, 4), (4, 4, 4), (8, 4, 2)]),
        // A last page that is full: one more read finds the end.
        (8, vec![(0, 4, 4), (4, 4, 4), (8, 4, 0)]),
        (3, vec![(0, 4, 3)]),
    ] {
        let h = Harness::new().await;
        let queue = Arc::new(FlakyQueue::new(h.store.clone()));
        let pipeline = AlertPipeline::new(
            PipelinePorts {
                jobs: queue.clone(),
                ..h.ports()
            },
            PipelineConfig {
                points_chunk: 4,
                ..PipelineConfig::default()
            },
        );
        let token = pipeline
            .accept(
                h.key_id,
                AlertRequest {
                    points: paris_points(n),
                },
            )
            .await
            .unwrap();
        pipeline.run_once(1).await.unwrap();
        assert_eq!(*queue.pages.lock().unwrap(), pages, "{n} points");
        let lines = decode_all(&h.files.read(&FileKey::for_token(token)).await.unwrap()).unwrap();
        let ids: Vec<String> = lines.into_iter().map(|l| l.id).collect();
        assert_eq!(ids, (0..n).map(|i| format!("p{i}")).collect::<Vec<_>>());
    }
}

#[tokio::test]
async fn the_file_is_the_same_whatever_the_page_size() {
    let mut files = Vec::new();
    for points_chunk in [1, 3, 7, 1000] {
        let h = Harness::new().await;
        let pipeline = AlertPipeline::new(
            h.ports(),
            PipelineConfig {
                points_chunk,
                file_chunk_bytes: 100,
                ..PipelineConfig::default()
            },
        );
        let token = pipeline
            .accept(
                h.key_id,
                AlertRequest {
                    points: paris_points(23),
                },
            )
            .await
            .unwrap();
        pipeline.run_once(1).await.unwrap();
        files.push(h.files.read(&FileKey::for_token(token)).await.unwrap());
    }
    assert_eq!(decode_all(&files[0]).unwrap().len(), 23);
    for file in &files[1..] {
        assert_eq!(file, &files[0], "the same bytes in the same order");
    }
}

#[tokio::test]
async fn a_page_that_fails_to_load_leaves_no_file_and_the_job_leased() {
    let h = Harness::new().await;
    let queue = Arc::new(FlakyQueue {
        fail_pages_from: Some(4),
        ..FlakyQueue::new(h.store.clone())
    });
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            jobs: queue.clone(),
            ..h.ports()
        },
        PipelineConfig {
            points_chunk: 4,
            ..PipelineConfig::default()
        },
    );
    let token = pipeline
        .accept(
            h.key_id,
            AlertRequest {
                points: paris_points(10),
            },
        )
        .await
        .unwrap();
    let report = pipeline.run_once(1).await.unwrap();
    assert!(
        matches!(
            report.failed.as_slice(),
            [(t, PipelineError::Store(StoreError::Unavailable(_)))] if *t == token
        ),
        "{report:?}"
    );
    assert!(
        !h.files.exists(&FileKey::for_token(token)).await.unwrap(),
        "a file cut short is never made visible"
    );
    let state = h.store.job_state(token).unwrap();
    assert_eq!(state.stage, JobStage::Evaluate);
    assert!(
        state.leased_until.is_some(),
        "the job is retried when its lease ends"
    );
}

#[tokio::test]
async fn a_stopping_worker_gives_unstarted_jobs_back() {
    let h = Harness::new().await;
    let pipeline = AlertPipeline::new(h.ports(), PipelineConfig::default());
    let mut tokens = Vec::new();
    for _ in 0..3 {
        tokens.push(pipeline.accept(h.key_id, h.request()).await.unwrap());
    }
    // Stop after the first job: the other two are released, not left leased.
    let started = std::sync::atomic::AtomicUsize::new(0);
    let stopping = || started.fetch_add(1, Ordering::SeqCst) >= 1;
    let report = pipeline.run_once_until(10, &stopping).await.unwrap();
    assert_eq!(report.processed.len(), 1);
    assert_eq!(report.released.len(), 2);
    assert_eq!(report.claimed(), 3);
    for token in &report.released {
        let state = h.store.job_state(*token).unwrap();
        assert_eq!(
            state.stage,
            JobStage::Evaluate,
            "a released job is unchanged"
        );
    }
    // Without moving the clock, another worker can take them at once.
    let again = pipeline.run_once(10).await.unwrap();
    let mut taken: Vec<Token> = again.processed.iter().map(|(t, _)| *t).collect();
    let mut released = report.released.clone();
    taken.sort();
    released.sort();
    assert!(
        released.iter().all(|t| taken.contains(t)),
        "{released:?} not in {taken:?}"
    );
}

#[tokio::test]
async fn a_store_that_names_a_stored_request_for_one_without_a_key_is_a_store_fault() {
    let h = Harness::new().await;
    let stored = Token(Uuid::from_u128(7));
    let queue = Arc::new(FlakyQueue {
        enqueue_answer: Some(crate::idempotency::Enqueued::Existing {
            token: stored,
            fingerprint: Fingerprint::of_points(&[]),
        }),
        ..FlakyQueue::new(h.store.clone())
    });
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            jobs: queue,
            ..h.ports()
        },
        PipelineConfig::default(),
    );
    let err = pipeline.accept(h.key_id, h.request()).await.unwrap_err();
    assert!(
        matches!(err, AcceptError::Store(StoreError::Corrupt(_))),
        "not the client's reuse of a key: {err:?}"
    );
}

#[tokio::test]
async fn an_open_breaker_defers_deliveries_without_spending_attempts_until_a_probe() {
    let h = Harness::new().await;
    let sender = Arc::new(RecordingSender::scripted((0..3).map(|_| status(503))));
    let config = PipelineConfig {
        breaker: crate::breaker::BreakerConfig {
            failures: 2,
            cool_down: Duration::from_secs(60),
            max_urls: 10,
        },
        ..PipelineConfig::default()
    };
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            sender: sender.clone(),
            ..h.ports()
        },
        config,
    );
    let mut tokens = Vec::new();
    for _ in 0..3 {
        tokens.push(pipeline.accept(h.key_id, h.request()).await.unwrap());
    }
    let run = pipeline.run_once(10).await.unwrap();
    let outcomes: Vec<Processed> = run.processed.iter().map(|(_, p)| *p).collect();
    assert!(matches!(
        outcomes[0],
        Processed::Retrying { attempt: 1, .. }
    ));
    assert!(matches!(
        outcomes[1],
        Processed::Retrying { attempt: 1, .. }
    ));
    let opens = t0() + chrono::Duration::seconds(60);
    assert_eq!(
        outcomes[2],
        Processed::Deferred { until: opens },
        "two failures in a row open the URL's breaker"
    );
    let deferred = run.processed[2].0;
    assert!(
        h.store
            .list_attempts(h.key_id, deferred)
            .await
            .unwrap()
            .is_empty(),
        "a deferred delivery spends no attempt"
    );
    assert_eq!(sender.requests().len(), 2, "nothing was sent for it");
    assert_eq!(pipeline.open_breakers(), 1);

    // After the cool-down one delivery goes through as the probe while the others wait
    // another cool-down; the probe fails, so the breaker stays open.
    h.clock.set(opens);
    let probe = pipeline.run_once(10).await.unwrap();
    assert_eq!(sender.requests().len(), 3, "one probe, no more");
    let retried = probe
        .processed
        .iter()
        .filter(|(_, p)| matches!(p, Processed::Retrying { .. }))
        .count();
    let waiting = probe
        .processed
        .iter()
        .filter(|(_, p)| {
            *p == Processed::Deferred {
                until: opens + chrono::Duration::seconds(60),
            }
        })
        .count();
    assert_eq!((retried, waiting), (1, 2), "{:?}", probe.processed);

    // The next probe succeeds and closes the breaker: every delivery goes through.
    h.clock.set(opens + chrono::Duration::seconds(60));
    let rest = pipeline.run_once(10).await.unwrap();
    assert_eq!(rest.processed.len(), 3);
    assert!(
        rest.processed.iter().all(|(_, p)| matches!(
            p,
            Processed::Finished {
                outcome: JobOutcome::Delivered,
                ..
            }
        )),
        "{:?}",
        rest.processed
    );
    assert_eq!(pipeline.open_breakers(), 0);
}

#[tokio::test]
async fn accept_refuses_a_key_whose_queue_is_behind_and_then_everyone() {
    let h = Harness::new().await;
    let config = PipelineConfig {
        backpressure: Backpressure {
            max_queue_delay: Duration::from_secs(30),
            max_pending_per_key: 3,
        },
        ..PipelineConfig::default()
    };
    let pipeline = AlertPipeline::new(h.ports(), config);
    let first = pipeline.accept(h.key_id, h.request()).await.unwrap();
    // Half the bound later the key's own waiting job refuses its next request.
    h.clock.set(t0() + chrono::Duration::seconds(16));
    let err = pipeline.accept(h.key_id, h.request()).await.unwrap_err();
    assert_eq!(
        err,
        AcceptError::Busy {
            retry_after: Duration::from_secs(1),
            scope: BusyScope::Key
        }
    );
    // Once a worker holds it, nothing waits: accepted again, up to the pending limit.
    let claimed = pipeline.claim(10).await.unwrap();
    assert_eq!(claimed[0].token, first);
    pipeline.accept(h.key_id, h.request()).await.unwrap();
    pipeline.accept(h.key_id, h.request()).await.unwrap();
    let err = pipeline.accept(h.key_id, h.request()).await.unwrap_err();
    assert_eq!(err, AcceptError::TooManyPending { limit: 3 });
}

/// Once the process has seen how long the key's jobs take, a burst is refused as it arrives:
/// as soon as the jobs waiting ahead, served `per_key_jobs` at a time, and the new one would
/// take more than half the bound, although none has waited yet.
#[tokio::test]
async fn a_burst_is_refused_once_its_expected_wait_passes_half_the_bound() {
    let h = Harness::new().await;
    // Every delivery takes 2 s of the clock.
    let clock = h.clock.clone();
    let mut sender = MockSender::new();
    sender.expect_send().returning(move |_| {
        clock.advance(chrono::Duration::seconds(2));
        status(200)
    });
    let config = PipelineConfig {
        per_key_jobs: 2,
        backpressure: Backpressure {
            max_queue_delay: Duration::from_secs(30),
            max_pending_per_key: 1_000,
        },
        ..PipelineConfig::default()
    };
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            sender: Arc::new(sender),
            ..h.ports()
        },
        config,
    );
    pipeline.accept(h.key_id, h.request()).await.unwrap();
    pipeline.run_once(1).await.unwrap();

    // Two at a time, 2 s each: the request joining w waiting jobs expects (w / 2 + 1) × 2 s,
    // which is 15 s or less up to w = 13.
    let mut accepted = 0;
    let refusal = loop {
        match pipeline.accept(h.key_id, h.request()).await {
            Ok(_) => accepted += 1,
            Err(e) => break e,
        }
        assert!(accepted <= 20, "the burst was never refused");
    };
    assert_eq!(accepted, 14);
    assert_eq!(
        refusal,
        AcceptError::Busy {
            retry_after: Duration::from_secs(1),
            scope: BusyScope::Key
        }
    );
}

/// The descriptions in the file of the request `token`.
async fn descriptions(h: &Harness, token: Token) -> Vec<String> {
    let file = h.files.read(&FileKey::for_token(token)).await.unwrap();
    decode_all(&file)
        .unwrap()
        .into_iter()
        .map(|line| line.description)
        .collect()
}

#[tokio::test]
async fn a_once_rule_tells_a_change_once_and_again_when_the_forecast_turns() {
    let h = Harness::new().await;
    let once = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(6),
        Sensitivity::Medium,
        MessageSpec::Custom {
            deterioration: "once: worse in {hours} h ({category})".into(),
            improvement: "once: better in {hours} h ({category})".into(),
        },
    )
    .unwrap()
    .with_repeat(Repeat::Once);
    h.store
        .add_rule(&AlertRule {
            id: RuleId(h.ids.new_id()),
            key_id: h.key_id,
            spec: once,
            enabled: true,
            created_at: t0(),
        })
        .await
        .unwrap();
    let pipeline = AlertPipeline::new(h.ports(), PipelineConfig::default());
    let post = || async {
        let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
        assert_eq!(pipeline.run_once(1).await.unwrap().claimed(), 1);
        descriptions(&h, token).await
    };
    let every = "In 2 hours the air quality is expected to be worse (58 AQI).";

    // 72 now, 58 at 10:00: told once, while the rule that repeats tells it every time.
    let worse = "once: worse in 2 h (Moderate)";
    assert_eq!(post().await, [every, worse]);
    assert_eq!(post().await, [every], "the same change is not told again");
    h.clock.set(t0() + chrono::Duration::minutes(40));
    assert_eq!(
        post().await,
        [every],
        "forty minutes on, the change at 10:00 is the same change"
    );

    // The forecast turns: the air gets better instead, and that is news.
    h.forecast
        .set_hourly(paris(), vec![ci(72.0), ci(75.0), ci(85.0)]);
    let every_better = "In 2 hours the air quality is expected to be better (85 AQI).";
    assert_eq!(
        post().await,
        [every_better, "once: better in 2 h (Excellent)"]
    );
    assert_eq!(
        post().await,
        [every_better],
        "the better air is told once too"
    );

    // It turns back to the first change: told again, the reader last heard the opposite.
    h.forecast
        .set_hourly(paris(), vec![ci(72.0), ci(70.0), ci(58.0)]);
    assert_eq!(post().await, [every, worse]);

    // Deeper into the same hour's change: another category is news.
    h.forecast
        .set_hourly(paris(), vec![ci(72.0), ci(70.0), ci(38.0)]);
    let every_low = "In 2 hours the air quality is expected to be worse (38 AQI).";
    assert_eq!(post().await, [every_low, "once: worse in 2 h (Low)"]);

    // Three hours later the same numbers speak of 13:00: another change.
    h.clock.set(t0() + chrono::Duration::hours(3));
    assert_eq!(post().await, [every_low, "once: worse in 2 h (Low)"]);
}

#[tokio::test]
async fn a_once_rule_tells_each_point_id_its_own_change() {
    let h = Harness::new().await;
    for mut rule in h.store.list_rules(h.key_id).await.unwrap() {
        rule.spec = rule.spec.with_repeat(Repeat::Once);
        h.store.update_rule(&rule).await.unwrap();
    }
    let pipeline = AlertPipeline::new(h.ports(), PipelineConfig::default());
    let mut first = h.request();
    let token = pipeline.accept(h.key_id, first.clone()).await.unwrap();
    pipeline.run_once(1).await.unwrap();
    assert_eq!(descriptions(&h, token).await.len(), 1);

    // Another point id at the same place has not been told.
    first.points.push(AlertPoint {
        id: "user-18".into(),
        ..first.points[0].clone()
    });
    let token = pipeline.accept(h.key_id, first).await.unwrap();
    pipeline.run_once(1).await.unwrap();
    let file = h.files.read(&FileKey::for_token(token)).await.unwrap();
    let ids: Vec<String> = decode_all(&file)
        .unwrap()
        .into_iter()
        .map(|l| l.id)
        .collect();
    assert_eq!(ids, ["user-18"]);
}

/// A source that holds one value per clock hour and answers an instant with the nearest
/// hour's, as Open-Meteo does: clean air up to 09:00, dirty from 10:00.
struct NearestHour;

#[async_trait]
impl ForecastSource for NearestHour {
    fn info(&self) -> SourceInfo {
        SourceInfo::demo("nearest-hour")
    }
    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let read = DateTime::from_timestamp((start.timestamp() + 1800).div_euclid(3600) * 3600, 0)
            .unwrap();
        let dirty_from = t0() + chrono::Duration::hours(2);
        let values = (0..=hours)
            .map(|h| {
                let at = read + chrono::Duration::hours(i64::from(h));
                ci(if at < dirty_from { 72.0 } else { 50.0 })
            })
            .collect();
        Ok(vec![
            Some(HourlyCi {
                start: read,
                values,
                provenance: aq_core::Provenance::Unstated,
            });
            positions.len()
        ])
    }
    async fn daily_pollen(
        &self,
        positions: &[Position],
        _at: DateTime<Utc>,
        _days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        Ok(vec![None; positions.len()])
    }
}

#[tokio::test]
async fn a_once_rule_over_a_source_reading_the_nearest_hour_tells_a_change_once_across_the_half_hour()
 {
    let h = Harness::new().await;
    for mut rule in h.store.list_rules(h.key_id).await.unwrap() {
        rule.spec = rule.spec.with_repeat(Repeat::Once);
        h.store.update_rule(&rule).await.unwrap();
    }
    let mut ports = h.ports();
    ports.forecast = Arc::new(NearestHour);
    let pipeline = AlertPipeline::new(ports, PipelineConfig::default());
    let post = |minute| {
        h.clock.set(t0() + chrono::Duration::minutes(minute));
        async {
            let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
            assert_eq!(pipeline.run_once(1).await.unwrap().claimed(), 1);
            descriptions(&h, token).await
        }
    };
    // At 08:20 the source reads 08:00 and the change is two hours on; at 08:40 it reads 09:00
    // and the change is one hour on. Both speak of 10:00.
    assert_eq!(
        post(20).await,
        ["In 2 hours the air quality is expected to be worse (50 AQI)."]
    );
    assert_eq!(
        post(40).await,
        Vec::<String>::new(),
        "the change at 10:00, read past the half hour, is the same change"
    );
}
