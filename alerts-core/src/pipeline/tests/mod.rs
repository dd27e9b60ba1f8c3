//! Interaction tests of the pipeline: in-memory stores and files, with mockall standing in for
//! the sender, the signer and the forecast source where the test is about how they are called.

mod accept;
mod delivery;
mod once;
mod paging;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aq_core::memory::MemoryForecast;
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
use runtime_core::{Clock, FixedClock, IdGenerator, SequentialIds};
use uuid::Uuid;

use super::*;
use crate::ids::RuleId;
use crate::memory::{MemoryFiles, MemoryStore, RecordingSender};
use crate::ndjson::decode_all;
use crate::ports::{
    Backlog, ClaimLimits, DeliveryErrorKind, FileWriter, Lease, WebhookRequest, WebhookResponse,
};
use crate::request::AlertPoint;
use crate::rule::{AlertRule, DataType, Forecast, MessageSpec, Repeat, RuleSpec, Sensitivity};
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
    async fn settle(
        &self,
        token: Token,
        lease: &Lease,
        settlement: &Settlement,
    ) -> Result<(), StoreError> {
        // A settlement is one write: it fails whole, as the update it carries would.
        let fail = match settlement.next {
            JobUpdate::Written { .. } => self.fail_written.swap(false, Ordering::SeqCst),
            JobUpdate::Finish { .. } => self.fail_finish.swap(false, Ordering::SeqCst),
            JobUpdate::Retry { .. } => false,
        } || (settlement.written.is_some()
            && self.fail_written.swap(false, Ordering::SeqCst));
        if fail {
            return Err(StoreError::Unavailable("connection reset".into()));
        }
        self.inner.settle(token, lease, settlement).await
    }
    async fn arrivals(&self) -> Result<Box<dyn crate::ports::Arrivals>, StoreError> {
        self.inner.arrivals().await
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
                credential_version: 0,
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
            .set_hourly(paris(), vec![ci(72.0), ci(70.0), ci(58.0), ci(58.0)]);
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
