//! A job from claim to delivery: evaluation, the file, signed deliveries, the retry schedule,
//! crashes at each step, leases, revocation, secrets in rotation, stopping workers and the
//! receiver's breaker.

use super::*;

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

/// The worker dies after the file is written and before the job records it (which it does with
/// the first attempt's outcome). Another worker claims the job after the lease expires, finds
/// the file, does not evaluate again, and delivers it again with the same webhook-id: exactly
/// one file, delivered at least once.
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
                .map(|_| HourlyCi::covered(start, vec![ci(72.0), ci(50.0), ci(50.0)]))
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
    let sent = sender.requests();
    assert_eq!(sent.len(), 2, "the unrecorded attempt is repeated");
    assert_eq!(header(&sent[0], HEADER_ID), header(&sent[1], HEADER_ID));
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
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            forecast: Arc::new(forecast),
            ..h.ports()
        },
        PipelineConfig::default(),
    );
    let token = fails_keeping_its_lease_then_gives_up(&h, &pipeline, |e| {
        matches!(e, PipelineError::Source(_))
    })
    .await;
    assert!(!h.files.exists(&FileKey::for_token(token)).await.unwrap());
}

/// Accepts a request that `pipeline` fails to evaluate with an error `failed` accepts: the job
/// keeps its lease, and once the retry window and the lease are over it is given up. Its token.
async fn fails_keeping_its_lease_then_gives_up(
    h: &Harness,
    pipeline: &AlertPipeline,
    failed: impl Fn(&PipelineError) -> bool,
) -> Token {
    let lease_for = chrono::Duration::from_std(PipelineConfig::default().lease_for).unwrap();
    let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
    let run = pipeline.run_once(1).await.unwrap();
    assert!(failed(&run.failed[0].1), "{run:?}");
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
    token
}

/// A file store that cannot start a file (its disk full, its bucket unreachable).
struct NoNewFiles(Arc<MemoryFiles>);

#[async_trait]
impl FileStore for NoNewFiles {
    async fn create(&self, _: &FileKey) -> Result<Box<dyn FileWriter>, FileError> {
        Err(FileError::Unavailable("no space left".into()))
    }
    async fn exists(&self, key: &FileKey) -> Result<bool, FileError> {
        self.0.exists(key).await
    }
    async fn read(&self, key: &FileKey) -> Result<bytes::Bytes, FileError> {
        self.0.read(key).await
    }
    async fn delete(&self, key: &FileKey) -> Result<(), FileError> {
        self.0.delete(key).await
    }
}

#[tokio::test]
async fn a_file_that_cannot_be_started_keeps_the_lease_then_gives_up_after_the_window() {
    let h = Harness::new().await;
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            files: Arc::new(NoNewFiles(h.files.clone())),
            ..h.ports()
        },
        PipelineConfig::default(),
    );
    fails_keeping_its_lease_then_gives_up(&h, &pipeline, |e| matches!(e, PipelineError::File(_)))
        .await;
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
