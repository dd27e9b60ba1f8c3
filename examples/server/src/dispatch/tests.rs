//! The dispatcher on in-memory stores: how often it claims, idle and when work arrives. It
//! runs in real time, a safety poll long.

#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};

use alerts_core::idempotency::{Enqueued, Idempotency};
use alerts_core::ids::{RuleId, Token};
use alerts_core::memory::{MemoryFiles, MemoryStore, RecordingSender};
use alerts_core::pipeline::{PipelineConfig, PipelinePorts};
use alerts_core::ports::{
    Backlog, ClaimLimits, JobCounts, JobUpdate, Lease, NewAlertJob, PointPages, RuleStore as _,
    Settlement,
};
use alerts_core::request::{AlertPoint, AlertRequest};
use alerts_core::rule::{AlertRule, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use aq_core::memory::MemoryForecast;
use aq_core::{CleanlinessIndex, Position};
use async_trait::async_trait;
use chrono::TimeZone as _;
use identity_core::ids::{AccountId, KeyId};
use identity_core::keys::{ApiKey, WebhookSecret};
use identity_core::ports::{Account, AccountStore as _, NewApiKey};
use identity_core::randomness::SeededRandomness;
use runtime_core::{FixedClock, SequentialIds};
use uuid::Uuid;

use super::*;

/// The memory store, counting claims.
struct CountingQueue {
    inner: Arc<MemoryStore>,
    claims: AtomicUsize,
}

#[async_trait]
impl JobQueue for CountingQueue {
    async fn enqueue_pages(
        &self,
        job: &NewAlertJob,
        points: &mut dyn PointPages,
        idempotency: Option<&Idempotency>,
    ) -> Result<Enqueued, StoreError> {
        self.inner.enqueue_pages(job, points, idempotency).await
    }
    async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_for: Duration,
        limits: ClaimLimits,
        lease_ids: &(dyn Fn() -> Uuid + Send + Sync),
    ) -> Result<Vec<AlertJob>, StoreError> {
        self.claims.fetch_add(1, Ordering::SeqCst);
        self.inner.claim(now, lease_for, limits, lease_ids).await
    }
    async fn points_page(
        &self,
        token: Token,
        from: u64,
        limit: usize,
    ) -> Result<Vec<AlertPoint>, StoreError> {
        self.inner.points_page(token, from, limit).await
    }
    async fn update(
        &self,
        token: Token,
        lease: &Lease,
        update: JobUpdate,
    ) -> Result<(), StoreError> {
        self.inner.update(token, lease, update).await
    }
    async fn settle(
        &self,
        token: Token,
        lease: &Lease,
        settlement: &Settlement,
    ) -> Result<(), StoreError> {
        self.inner.settle(token, lease, settlement).await
    }
    async fn arrivals(&self) -> Result<Box<dyn Arrivals>, StoreError> {
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
    async fn counts(&self, now: DateTime<Utc>) -> Result<JobCounts, StoreError> {
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

struct Setup {
    queue: Arc<CountingQueue>,
    pipeline: Arc<AlertPipeline>,
    sender: Arc<RecordingSender>,
    key: KeyId,
    here: Position,
}

async fn setup() -> Setup {
    let t0 = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
    let store = Arc::new(MemoryStore::new());
    let account = AccountId(Uuid::new_v4());
    store
        .create_account(&Account {
            id: account,
            email: "dev@example.com".into(),
            password_hash: "x".into(),
            credential_version: 0,
            created_at: t0,
        })
        .await
        .unwrap();
    let rng = SeededRandomness::default();
    let api_key = ApiKey::generate(&rng);
    let key = KeyId(Uuid::new_v4());
    store
        .create_key(&NewApiKey {
            id: key,
            account_id: account,
            label: "test".into(),
            prefix: api_key.prefix().into(),
            hash: api_key.hash(),
            secret: WebhookSecret::generate(&rng),
            created_at: t0,
        })
        .await
        .unwrap();
    store
        .set_webhook_url(key, Some("https://hooks.example/in"))
        .await
        .unwrap();
    store
        .add_rule(&AlertRule {
            id: RuleId(Uuid::new_v4()),
            key_id: key,
            spec: RuleSpec::new(
                DataType::Aq,
                Forecast::Hours(6),
                Sensitivity::Medium,
                MessageSpec::Default,
            )
            .unwrap(),
            enabled: true,
            created_at: t0,
        })
        .await
        .unwrap();
    let here = Position::new(2.35, 48.85).unwrap();
    let forecast = MemoryForecast::default();
    let ci = |v| CleanlinessIndex::new(v).ok();
    forecast.set_hourly(here, vec![ci(72.0), ci(70.0), ci(58.0)]);
    let queue = Arc::new(CountingQueue {
        inner: store.clone(),
        claims: AtomicUsize::new(0),
    });
    let files = Arc::new(MemoryFiles::new());
    let sender = Arc::new(RecordingSender::new());
    let pipeline = Arc::new(AlertPipeline::new(
        PipelinePorts {
            rules: store.clone(),
            jobs: queue.clone(),
            deliveries: store.clone(),
            sent: store,
            files: files.clone(),
            signer: files,
            sender: sender.clone(),
            forecast: Arc::new(forecast),
            clock: Arc::new(FixedClock::new(t0)),
            ids: Arc::new(SequentialIds::default()),
        },
        PipelineConfig::default(),
    ));
    Setup {
        queue,
        pipeline,
        sender,
        key,
        here,
    }
}

fn claims(setup: &Setup) -> usize {
    setup.queue.claims.load(Ordering::SeqCst)
}

#[tokio::test]
async fn an_idle_dispatcher_claims_only_when_told_or_at_the_safety_poll() {
    let setup = setup().await;
    let (stop_tx, stop_rx) = watch::channel(false);
    let workers = Workers {
        places: 4,
        pipeline: setup.pipeline.clone(),
        jobs: setup.queue.clone(),
        clock: Arc::new(FixedClock::new(Utc::now())),
        metrics: Metrics::new(),
    };
    let dispatcher = tokio::spawn(dispatch(workers, stop_rx));

    tokio::time::sleep(SAFETY_POLL / 2).await;
    assert_eq!(
        claims(&setup),
        1,
        "one claim at start, then none while idle"
    );

    let request = AlertRequest {
        points: vec![AlertPoint {
            position: setup.here,
            id: "home".into(),
            custom_data: "{}".into(),
        }],
    };
    setup.pipeline.accept(setup.key, request).await.unwrap();
    let accepted = Instant::now();
    while setup.sender.requests().is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert!(
            accepted.elapsed() < SAFETY_POLL / 2,
            "the job is delivered when it arrives, not at the next poll"
        );
    }
    // Give the dispatcher the moment it takes to see the job finish.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        claims(&setup) <= 3,
        "the arrival's claim and the one after the job finished: {} claims",
        claims(&setup)
    );
    let after_job = claims(&setup);

    tokio::time::sleep(SAFETY_POLL + Duration::from_millis(500)).await;
    assert_eq!(
        claims(&setup),
        after_job + 1,
        "idle for a safety poll: one claim untold"
    );
    stop_tx.send(true).unwrap();
    dispatcher.await.unwrap();
}

#[test]
fn a_claim_waits_for_a_quarter_of_the_places_while_others_run() {
    let none = Duration::ZERO;
    assert!(!worth_claiming(16, 3, 13, none), "3 of 16 free, 13 running");
    assert!(worth_claiming(16, 4, 12, none), "a quarter free");
    assert!(worth_claiming(16, 1, 0, none), "nothing running: at once");
    assert!(
        worth_claiming(2, 1, 1, none),
        "a quarter of 2 places is one"
    );
    assert!(
        worth_claiming(16, 1, 15, GATHER_PLACES),
        "a free place waits no longer than GATHER_PLACES"
    );
}

#[test]
fn claims_never_come_without_a_free_place_and_always_come_after_the_wait() {
    // Every case of up to 64 places, at every wait around the bound.
    for places in 1..=64 {
        for running in 0..=places {
            let free = places - running;
            for waited in [0, 1, 19, 20, 21, 1_000].map(Duration::from_millis) {
                let claims = worth_claiming(places, free, running, waited);
                if free == 0 {
                    assert!(!claims, "{places} places, none free");
                } else if waited >= GATHER_PLACES || running == 0 {
                    assert!(claims, "{places} places, {free} free, waited {waited:?}");
                }
                // More free places, or a longer wait, never turn a claim into none.
                if claims && running > 0 {
                    assert!(worth_claiming(places, free + 1, running - 1, waited));
                    assert!(worth_claiming(places, free, running, waited * 2));
                }
            }
        }
    }
}
