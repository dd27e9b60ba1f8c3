//! The real sender inside the alert pipeline, with in-memory stores and a fixed clock: retries
//! follow the schedule and stop on success or 410.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use alerts_core::ids::{RuleId, Token};
use alerts_core::memory::{MemoryFiles, MemoryStore};
use alerts_core::pipeline::{AlertPipeline, PipelineConfig, PipelinePorts, Processed};
use alerts_core::ports::{DeliveryErrorKind, DeliveryLog, JobOutcome, RuleStore};
use alerts_core::request::{AlertRequest, RequestLimits};
use alerts_core::rule::{AlertRule, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use alerts_core::webhook::{HEADER_ID, HEADER_TIMESTAMP};
use aq_core::memory::MemoryForecast;
use chrono::{DateTime, TimeZone, Utc};
use identity_core::ids::{AccountId, KeyId};
use identity_core::keys::{ApiKey, WebhookSecret};
use identity_core::ports::{Account, AccountStore, NewApiKey};
use identity_core::randomness::SeededRandomness;
use runtime_core::{Clock, FixedClock, IdGenerator, SequentialIds};

use crate::support::loopback_sender;
use test_support::receiver::Receiver;

/// One account with one key whose webhook goes to `/scripted` on the receiver.
struct Setup {
    clock: Arc<FixedClock>,
    store: Arc<MemoryStore>,
    pipeline: AlertPipeline,
    key_id: KeyId,
    receiver: Receiver,
}

impl Setup {
    async fn new(timeout: Duration) -> Self {
        let clock = Arc::new(FixedClock::new(
            Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap(),
        ));
        let ids = Arc::new(SequentialIds::default());
        let store = Arc::new(MemoryStore::new());
        let files = Arc::new(MemoryFiles::new());
        let receiver = Receiver::start().await;

        let account = AccountId(ids.new_id());
        store
            .create_account(&Account {
                id: account,
                email: "dev@example.com".into(),
                password_hash: "$argon2id$unused".into(),
                credential_version: 0,
                created_at: clock.now(),
            })
            .await
            .unwrap();
        let rng = SeededRandomness::default();
        let api_key = ApiKey::generate(&rng);
        let secret = WebhookSecret::generate(&rng);
        let key_id = KeyId(ids.new_id());
        store
            .create_key(&NewApiKey {
                id: key_id,
                account_id: account,
                label: "quick start".into(),
                prefix: api_key.prefix().into(),
                hash: api_key.hash(),
                secret: secret.clone(),
                created_at: clock.now(),
            })
            .await
            .unwrap();
        store
            .set_webhook_url(key_id, Some(&receiver.url("/scripted")))
            .await
            .unwrap();
        store
            .add_rule(&AlertRule {
                id: RuleId(ids.new_id()),
                key_id,
                enabled: true,
                created_at: clock.now(),
                spec: RuleSpec::new(
                    DataType::Aq,
                    Forecast::Hours(6),
                    Sensitivity::Medium,
                    MessageSpec::Default,
                )
                .unwrap(),
            })
            .await
            .unwrap();

        // The receiver checks signatures against the pipeline's clock, as a receiver whose
        // clock agrees with the sender's would.
        let receiver_clock = Arc::clone(&clock);
        receiver.verify_with(secret, move || receiver_clock.now());

        let pipeline = AlertPipeline::new(
            PipelinePorts {
                rules: store.clone(),
                jobs: store.clone(),
                deliveries: store.clone(),
                sent: store.clone(),
                files: files.clone(),
                signer: files,
                sender: Arc::new(loopback_sender(timeout)),
                forecast: Arc::new(MemoryForecast::default()),
                clock: clock.clone(),
                ids,
            },
            PipelineConfig::default(),
        );
        Self {
            clock,
            store,
            pipeline,
            key_id,
            receiver,
        }
    }

    /// Accepts a request and runs one worker round, which writes its file and makes the
    /// first delivery attempt; returns the token and what that round did.
    async fn accepted(&self) -> (Token, Vec<(Token, Processed)>) {
        let body = br#"{"points": [{"lon": 2.35, "lat": 48.85, "id": "user-17"}]}"#;
        let request = AlertRequest::from_json_slice(body, &RequestLimits::default()).unwrap();
        let token = self.pipeline.accept(self.key_id, request).await.unwrap();
        (token, self.run().await)
    }

    /// One worker round; no job may fail in it.
    async fn run(&self) -> Vec<(Token, Processed)> {
        let report = self.pipeline.run_once(8).await.unwrap();
        assert!(report.failed.is_empty(), "{:?}", report.failed);
        report.processed
    }

    /// When the schedule puts the attempt after failed attempt `attempt` made at `now`.
    fn retry_at(&self, token: Token, attempt: u32, now: DateTime<Utc>) -> DateTime<Utc> {
        let delay = self.pipeline.config().retry.delay(token, attempt);
        now + chrono::Duration::from_std(delay).unwrap()
    }
}

#[tokio::test]
async fn two_500s_then_success_take_three_attempts_on_the_retry_schedule() {
    let setup = Setup::new(Duration::from_secs(10)).await;
    setup.receiver.script([500, 500]);
    let (token, first_round) = setup.accepted().await;
    let t0 = setup.clock.now();

    let at1 = setup.retry_at(token, 1, t0);
    assert_eq!(
        first_round,
        [(
            token,
            Processed::Retrying {
                attempt: 1,
                at: at1
            }
        )]
    );
    // Not due yet: a worker round just before the scheduled time claims nothing.
    setup.clock.set(at1 - chrono::Duration::seconds(1));
    assert_eq!(setup.run().await, []);

    setup.clock.set(at1);
    let at2 = setup.retry_at(token, 2, at1);
    assert_eq!(
        setup.run().await,
        [(
            token,
            Processed::Retrying {
                attempt: 2,
                at: at2
            }
        )]
    );

    setup.clock.set(at2);
    assert_eq!(
        setup.run().await,
        [(
            token,
            Processed::Finished {
                outcome: JobOutcome::Delivered,
                attempts: 3
            }
        )]
    );

    let attempts = setup
        .store
        .list_attempts(setup.key_id, token)
        .await
        .unwrap();
    let log: Vec<_> = attempts.iter().map(|a| (a.at, a.status, a.error)).collect();
    assert_eq!(
        log,
        [
            (t0, Some(500), Some(DeliveryErrorKind::Status)),
            (at1, Some(500), Some(DeliveryErrorKind::Status)),
            (at2, Some(200), None),
        ]
    );

    let hits = setup.receiver.deliveries_to("/scripted");
    assert_eq!(hits.len(), 3);
    let header = |i: usize, name: &str| {
        hits[i]
            .headers
            .get(name)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned()
    };
    for (i, at) in [t0, at1, at2].into_iter().enumerate() {
        assert_eq!(hits[i].verified, Some(Ok(())), "attempt {}", i + 1);
        assert_eq!(header(i, HEADER_TIMESTAMP), at.timestamp().to_string());
        assert_eq!(header(i, HEADER_ID), header(0, HEADER_ID));
    }
}

#[tokio::test]
async fn a_410_stops_the_retries() {
    let setup = Setup::new(Duration::from_secs(10)).await;
    setup.receiver.script([410]);
    let (token, first_round) = setup.accepted().await;

    assert_eq!(
        first_round,
        [(
            token,
            Processed::Finished {
                outcome: JobOutcome::Gone,
                attempts: 1
            }
        )]
    );

    // A day later, nothing is due and the receiver heard from us once.
    setup.clock.advance(chrono::Duration::days(2));
    assert_eq!(setup.run().await, []);
    assert_eq!(setup.receiver.deliveries_to("/scripted").len(), 1);
    let state = setup.store.job_state(token).unwrap();
    assert_eq!(state.outcome, Some(JobOutcome::Gone));
}

#[tokio::test]
async fn a_timed_out_attempt_is_retried() {
    let setup = Setup::new(Duration::from_millis(500)).await;
    setup.receiver.script_slow();
    let (token, first_round) = setup.accepted().await;
    let t0 = setup.clock.now();

    let at1 = setup.retry_at(token, 1, t0);
    assert_eq!(
        first_round,
        [(
            token,
            Processed::Retrying {
                attempt: 1,
                at: at1
            }
        )]
    );
    setup.clock.set(at1);
    assert_eq!(
        setup.run().await,
        [(
            token,
            Processed::Finished {
                outcome: JobOutcome::Delivered,
                attempts: 2
            }
        )]
    );

    let attempts = setup
        .store
        .list_attempts(setup.key_id, token)
        .await
        .unwrap();
    let errors: Vec<_> = attempts.iter().map(|a| (a.status, a.error)).collect();
    assert_eq!(
        errors,
        [(None, Some(DeliveryErrorKind::Timeout)), (Some(200), None)]
    );
}
