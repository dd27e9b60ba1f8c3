//! What a small alert request costs a store: the statements it issues from the key's
//! authentication to the recorded delivery, counted by the adapter (a SQL store counts its
//! statement log). Not a promise of the ports, a figure each adapter bounds in its own tests.

use std::sync::Arc;

use aq_core::CleanlinessIndex;
use aq_core::memory::MemoryForecast;
use identity_core::ports::{AccountStore, KeyAuthenticator};
use runtime_core::{FixedClock, IdGenerator};
use uuid::Uuid;

use super::fixtures::{account_with_key, aq_spec, drain, ok, points, rule, t0};
use crate::memory::{MemoryFiles, RecordingSender};
use crate::pipeline::{AlertPipeline, PipelineConfig, PipelinePorts, Processed};
use crate::ports::{DeliveryLog, JobOutcome, JobQueue, RuleStore, SentChanges};
use crate::request::AlertRequest;

/// Statements issued for one small alert request, step by step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobCost {
    /// Authenticating the key and accepting the request (the API's part, up to its 200).
    pub accept: u64,
    /// The claim that leased the job (shared by every job of a batch).
    pub claim: u64,
    /// Evaluating, writing the file, delivering and recording the outcome.
    pub process: u64,
}

impl JobCost {
    /// Every statement of the request.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.accept + self.claim + self.process
    }
}

struct RandomIds;

impl IdGenerator for RandomIds {
    fn new_id(&self) -> Uuid {
        Uuid::new_v4()
    }
}

/// Points of the measured request: as many as a small request of the load tests has.
const POINTS: usize = 10;

/// Runs one request of ten points from authentication to a 2xx delivery on `store`, with
/// in-memory files, sender and forecast, and returns what `statements` (a count of the
/// statements the store issued so far) rose by at each step: the least of three requests, after
/// a first that warms the store up, so that a connection the pool opens on the way (and the
/// statements that set it up) is not taken for the cost of a request. Nothing else may use
/// the store meanwhile.
///
/// # Panics
/// When the request is not accepted, claimed and delivered.
pub async fn small_job_cost<S>(
    store: Arc<S>,
    statements: &(dyn Fn() -> u64 + Send + Sync),
) -> JobCost
where
    S: RuleStore + AccountStore + KeyAuthenticator + JobQueue + DeliveryLog + SentChanges + 'static,
{
    drain(store.as_ref()).await;
    let (_, key, api_key) = account_with_key(store.as_ref()).await;
    ok(
        store
            .set_webhook_url(key.id, Some("https://hooks.example/in"))
            .await,
        "set_webhook_url",
    );
    ok(
        store.add_rule(&rule(key.id, aq_spec(6), true, t0())).await,
        "add_rule",
    );
    let forecast = MemoryForecast::default();
    let request = AlertRequest {
        points: points(POINTS),
    };
    let ci = |v| CleanlinessIndex::new(v).ok();
    for point in &request.points {
        forecast.set_hourly(point.position, vec![ci(72.0), ci(70.0), ci(58.0)]);
    }
    let files = Arc::new(MemoryFiles::new());
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            rules: store.clone(),
            jobs: store.clone(),
            deliveries: store.clone(),
            sent: store.clone(),
            files: files.clone(),
            signer: files,
            sender: Arc::new(RecordingSender::new()),
            forecast: Arc::new(forecast),
            clock: Arc::new(FixedClock::new(t0())),
            ids: Arc::new(RandomIds),
        },
        PipelineConfig::default(),
    );
    let mut cost: Option<JobCost> = None;
    for round in 0..4 {
        let before = statements();
        let authenticated = ok(
            store.authenticate(&api_key.hash(), t0()).await,
            "authenticate",
        );
        assert_eq!(authenticated, Some(key.id), "the key authenticates");
        let token = pipeline
            .accept(key.id, request.clone())
            .await
            .unwrap_or_else(|e| panic!("the request is accepted: {e}"));
        let accepted = statements();
        let jobs = ok(pipeline.claim(8).await, "the job is claimed");
        assert_eq!(jobs.len(), 1, "one job to claim");
        assert_eq!(jobs[0].token, token);
        let claimed = statements();
        let processed = pipeline
            .process(&jobs[0])
            .await
            .unwrap_or_else(|e| panic!("the job is processed: {e}"));
        assert_eq!(
            processed,
            Processed::Finished {
                outcome: JobOutcome::Delivered,
                attempts: 1
            }
        );
        let done = statements();
        if round == 0 {
            continue;
        }
        let this = JobCost {
            accept: accepted - before,
            claim: claimed - accepted,
            process: done - claimed,
        };
        cost = Some(cost.map_or(this, |least| JobCost {
            accept: least.accept.min(this.accept),
            claim: least.claim.min(this.claim),
            process: least.process.min(this.process),
        }));
    }
    drain(store.as_ref()).await;
    cost.unwrap_or_else(|| unreachable!("four requests ran"))
}
