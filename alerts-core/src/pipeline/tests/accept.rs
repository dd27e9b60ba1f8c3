//! Accepting a request: who may, what is stored before the token, idempotency keys, and
//! the admission bound that refuses a key whose queue is behind.

use super::*;

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
async fn accept_refuses_a_key_whose_queue_is_behind_and_then_everyone() {
    let h = Harness::new().await;
    let config = PipelineConfig {
        backpressure: Backpressure {
            max_queue_delay: Duration::from_secs(30),
            max_pending_per_key: 3,
            ..Backpressure::default()
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
    // The refusal stands for a moment, whatever the queue does meanwhile.
    let claimed = pipeline.claim(10).await.unwrap();
    assert_eq!(claimed[0].token, first);
    let err = pipeline.accept(h.key_id, h.request()).await.unwrap_err();
    assert!(
        matches!(
            err,
            AcceptError::Busy {
                scope: BusyScope::Key,
                ..
            }
        ),
        "{err:?}"
    );
    // Then, a worker holding the job, nothing waits: accepted again, up to the pending limit.
    h.clock.set(t0() + chrono::Duration::seconds(17));
    pipeline.accept(h.key_id, h.request()).await.unwrap();
    pipeline.accept(h.key_id, h.request()).await.unwrap();
    let err = pipeline.accept(h.key_id, h.request()).await.unwrap_err();
    assert_eq!(err, AcceptError::TooManyPending { limit: 3 });
}

/// A pipeline whose deliveries take 2 s of the clock each, two of a key's jobs at a time,
/// with a target of `target_secs` and a bound of 30 s, which has run one job of the key (so it
/// knows the key's pace).
async fn two_second_jobs(h: &Harness, target_secs: u64) -> AlertPipeline {
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
            target_queue_delay: Duration::from_secs(target_secs),
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
    pipeline
}

/// Accepts requests of the key until one is refused; how many were accepted, and the refusal.
async fn accept_until_refused(h: &Harness, pipeline: &AlertPipeline) -> (usize, AcceptError) {
    let mut accepted = 0;
    loop {
        match pipeline.accept(h.key_id, h.request()).await {
            Ok(_) => accepted += 1,
            Err(e) => return (accepted, e),
        }
        assert!(accepted <= 20, "the burst was never refused");
    }
}

/// Once the process has seen how long the key's jobs take, a burst is refused as it arrives:
/// as soon as the jobs waiting ahead, served `per_key_jobs` at a time, would take more than
/// half the bound, although none has waited yet.
#[tokio::test]
async fn a_burst_is_refused_once_its_expected_wait_passes_half_the_bound() {
    let h = Harness::new().await;
    let pipeline = two_second_jobs(&h, 1).await;
    // Two at a time, 2 s each: the request joining w waiting jobs waits ceil(w / 2) × 2 s,
    // which is 15 s or less up to w = 14.
    let (accepted, refusal) = accept_until_refused(&h, &pipeline).await;
    assert_eq!(accepted, 15);
    assert_eq!(
        refusal,
        AcceptError::Busy {
            retry_after: Duration::from_secs(1),
            scope: BusyScope::Key
        }
    );
}

/// A burst its workers take longer than the target to clear is accepted while it is new; once
/// its oldest job has waited past the target, the key's queue stands there and the key's
/// requests are refused, until workers take the oldest jobs and it is back under.
#[tokio::test]
async fn a_queue_standing_past_the_target_refuses_the_key_until_it_is_back_under() {
    let h = Harness::new().await;
    let pipeline = two_second_jobs(&h, 4).await;
    for _ in 0..2 {
        pipeline.accept(h.key_id, h.request()).await.unwrap();
    }
    // Three seconds on, past no threshold yet: more join, 4 s of work now waiting.
    h.clock.advance(chrono::Duration::seconds(3));
    for _ in 0..2 {
        pipeline.accept(h.key_id, h.request()).await.unwrap();
    }
    // Two seconds more, the oldest have waited past the 4 s target.
    h.clock.advance(chrono::Duration::seconds(2));
    let (accepted, refusal) = accept_until_refused(&h, &pipeline).await;
    assert_eq!(accepted, 0);
    assert_eq!(
        refusal,
        AcceptError::Busy {
            retry_after: Duration::from_secs(1),
            scope: BusyScope::Key
        }
    );
    // The key's two workers take the two oldest; the oldest left has waited 2 s, under the
    // target: accepted once the refusal's moment is over.
    let claimed = pipeline.claim(6).await.unwrap();
    assert_eq!(claimed.len(), 2);
    h.clock.advance(chrono::Duration::seconds(1));
    pipeline.accept(h.key_id, h.request()).await.unwrap();
}
