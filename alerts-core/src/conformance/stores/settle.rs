//! The job queue's settlements (a delivery attempt, the file's lines and the job's next state in
//! one write) and its arrivals (idle workers told that jobs became claimable).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use futures::FutureExt as _;
use identity_core::ports::AccountStore;

use super::fixtures::{
    account_with_key, claim, drain, enqueue_one, expect_err, ok, request, secs, summary_of, t0,
};
use crate::ports::{
    Arrivals, DeliveryAttempt, DeliveryLog, JobOutcome, JobQueue, JobStage, JobUpdate, Settlement,
    StoreError,
};

fn attempt(token: crate::ids::Token, n: u32, status: u16) -> DeliveryAttempt {
    DeliveryAttempt {
        token,
        attempt: n,
        at: t0() + secs(i64::from(n)),
        status: Some(status),
        latency_ms: 12,
        error: None,
    }
}

/// A settlement records the attempt, the file's lines and the job's next state together; the
/// attempt is kept when the lease was lost, and nothing else changes then.
pub async fn settlements<S>(store: &S)
where
    S: AccountStore + JobQueue + DeliveryLog,
{
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let req = request(key.id, 2, t0());
    enqueue_one(store, &req).await;
    let job = claim(store, t0(), 1, "claim leases the new job")
        .await
        .remove(0);
    assert_eq!(job.stage, JobStage::Evaluate);

    // The first attempt failed: file recorded, job due again later, past evaluation.
    let retry_at = t0() + secs(60);
    ok(
        store
            .settle(
                job.token,
                &job.lease,
                &Settlement {
                    written: Some(3),
                    attempt: Some(attempt(job.token, 1, 503)),
                    next: JobUpdate::Retry {
                        attempts: 1,
                        run_at: retry_at,
                    },
                },
            )
            .await,
        "settle with the lease held stores the settlement",
    );
    let summary = summary_of(store, key.id, job.token).await;
    assert_eq!(
        (summary.stage, summary.alerts, summary.attempts),
        (JobStage::Deliver, Some(3), 1),
        "a retry with the file's lines moves the job on to delivery and records the lines"
    );
    let log = ok(
        store.list_attempts(key.id, job.token).await,
        "list_attempts lists the settled attempt",
    );
    assert_eq!(log, vec![attempt(job.token, 1, 503)]);
    assert!(
        claim(store, retry_at - secs(1), 1, "claim before the retry time")
            .await
            .is_empty(),
        "a settled retry ends the lease and is due at its run time, not before"
    );

    let again = claim(store, retry_at, 1, "claim at the retry time")
        .await
        .remove(0);
    assert_eq!((again.stage, again.attempts), (JobStage::Deliver, 1));
    ok(
        store
            .settle(
                again.token,
                &again.lease,
                &Settlement {
                    written: None,
                    attempt: Some(attempt(again.token, 2, 200)),
                    next: JobUpdate::Finish {
                        outcome: JobOutcome::Delivered,
                        attempts: 2,
                    },
                },
            )
            .await,
        "settle finishes a held job",
    );
    let summary = summary_of(store, key.id, job.token).await;
    assert_eq!(
        (
            summary.stage,
            summary.outcome,
            summary.alerts,
            summary.attempts
        ),
        (JobStage::Done, Some(JobOutcome::Delivered), Some(3), 2),
        "a settlement without lines keeps those recorded"
    );
    assert_eq!(
        ok(
            store.list_attempts(key.id, job.token).await,
            "list_attempts"
        )
        .len(),
        2
    );

    // A worker whose lease was taken over: its attempt is kept, its change is not made.
    let lost = request(key.id, 1, t0() + secs(1));
    enqueue_one(store, &lost).await;
    let stale = claim(store, t0() + secs(1), 1, "claim the second job")
        .await
        .remove(0);
    let later = t0() + secs(1) + super::fixtures::lease_span();
    let _current = claim(store, later, 1, "claim after the lease expired")
        .await
        .remove(0);
    expect_err(
        store
            .settle(
                stale.token,
                &stale.lease,
                &Settlement {
                    written: Some(1),
                    attempt: Some(attempt(stale.token, 1, 200)),
                    next: JobUpdate::Finish {
                        outcome: JobOutcome::Delivered,
                        attempts: 1,
                    },
                },
            )
            .await,
        &StoreError::LeaseLost,
        "settle with a lost lease fails with LeaseLost",
    );
    let summary = summary_of(store, key.id, stale.token).await;
    assert_eq!(
        (summary.stage, summary.alerts, summary.attempts),
        (JobStage::Evaluate, None, 0),
        "a settlement under a lost lease changes nothing of the job"
    );
    assert_eq!(
        ok(
            store.list_attempts(key.id, stale.token).await,
            "list_attempts"
        )
        .len(),
        1,
        "the attempt made under a lost lease is recorded all the same"
    );

    expect_err(
        store
            .settle(
                crate::ids::Token(uuid::Uuid::new_v4()),
                &stale.lease,
                &Settlement {
                    written: None,
                    attempt: None,
                    next: JobUpdate::Finish {
                        outcome: JobOutcome::Cancelled,
                        attempts: 0,
                    },
                },
            )
            .await,
        &StoreError::NotFound,
        "settle of an unknown token is NotFound",
    );
    drain(store).await;
}

/// A timer for [`arrivals`], from the adapter's runtime (the suites read no clock).
pub type Sleep = dyn Fn(Duration) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync;

/// How long [`arrivals`] waits for a notice that must come.
const NOTICE_PATIENCE: Duration = Duration::from_secs(10);
/// How long [`arrivals`] watches for a notice that must not come.
const QUIET: Duration = Duration::from_millis(300);

async fn told(arrivals: &mut dyn Arrivals, sleep: &Sleep, within: Duration) -> bool {
    futures::select! {
        told = arrivals.next().fuse() => {
            ok(told, "Arrivals::next returns a notice");
            true
        }
        () = sleep(within).fuse() => false,
    }
}

/// Subscriptions are told of jobs stored, released and redelivered, each subscription once per
/// notice however many were sent; a job retried later tells nobody.
pub async fn arrivals<S>(store: &S, sleep: &Sleep)
where
    S: AccountStore + JobQueue + DeliveryLog,
{
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let mut first = ok(store.arrivals().await, "arrivals subscribes");
    let mut second = ok(
        store.arrivals().await,
        "arrivals subscribes a second worker",
    );

    let req = request(key.id, 1, t0());
    enqueue_one(store, &req).await;
    assert!(
        told(first.as_mut(), sleep, NOTICE_PATIENCE).await,
        "a stored job is told to a waiting subscription"
    );
    assert!(
        told(second.as_mut(), sleep, NOTICE_PATIENCE).await,
        "a stored job is told to every subscription"
    );

    let job = claim(store, t0(), 1, "claim the stored job")
        .await
        .remove(0);
    ok(
        store
            .update(
                job.token,
                &job.lease,
                JobUpdate::Retry {
                    attempts: 1,
                    run_at: t0() + secs(3600),
                },
            )
            .await,
        "update schedules a retry",
    );
    let job = claim(store, t0() + secs(3600), 1, "claim the retry")
        .await
        .remove(0);
    assert!(
        !told(first.as_mut(), sleep, QUIET).await,
        "neither a claim nor a retry due later is told"
    );

    ok(
        store.release(job.token, &job.lease).await,
        "release gives the job back",
    );
    assert!(
        told(first.as_mut(), sleep, NOTICE_PATIENCE).await,
        "a released job is told"
    );
    let job = claim(store, t0() + secs(3600), 1, "claim the released job")
        .await
        .remove(0);
    ok(
        store
            .update(job.token, &job.lease, JobUpdate::Written { alerts: 0 })
            .await,
        "record the file",
    );
    ok(
        store
            .update(
                job.token,
                &job.lease,
                JobUpdate::Finish {
                    outcome: JobOutcome::Delivered,
                    attempts: 1,
                },
            )
            .await,
        "finish the job",
    );
    // Whatever the finish told (nothing, or a notice a store sends on any change) is taken.
    let _ = told(first.as_mut(), sleep, QUIET).await;
    ok(
        store.redeliver(key.id, job.token, t0()).await,
        "redeliver puts the finished job back",
    );
    assert!(
        told(first.as_mut(), sleep, NOTICE_PATIENCE).await,
        "a redelivered job is told"
    );
    // Several notices while a worker was busy (not waiting) wake it once.
    for i in 0..3 {
        enqueue_one(store, &request(key.id, 1, t0() + secs(i))).await;
    }
    sleep(QUIET).await;
    assert!(told(second.as_mut(), sleep, NOTICE_PATIENCE).await);
    assert!(
        !told(second.as_mut(), sleep, QUIET).await,
        "notices do not pile up: a busy worker is woken once, not once per job"
    );
    drain(store).await;
}

/// Settlements made at once (as many workers finish together): each is stored with its own
/// attempt and outcome, whatever the store does to write several together, and one whose
/// lease was lost fails alone.
pub async fn concurrent_settlements<S>(store: &S)
where
    S: AccountStore + JobQueue + DeliveryLog,
{
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    for i in 0..12 {
        enqueue_one(store, &request(key.id, 1, t0() + secs(i))).await;
    }
    let mut jobs = claim(store, t0() + secs(20), 12, "claim leases the new jobs").await;
    assert_eq!(jobs.len(), 12, "every new job is claimed");
    // A worker whose lease was taken over: its settlement must change nothing.
    jobs[5].lease.id = uuid::Uuid::new_v4();
    let settlements: Vec<Settlement> = jobs
        .iter()
        .map(|job| Settlement {
            written: Some(2),
            attempt: Some(attempt(job.token, 1, 200)),
            next: JobUpdate::Finish {
                outcome: JobOutcome::Delivered,
                attempts: 1,
            },
        })
        .collect();
    let settled = futures::future::join_all(
        jobs.iter()
            .zip(&settlements)
            .map(|(job, settlement)| store.settle(job.token, &job.lease, settlement)),
    )
    .await;
    for (i, (job, settled)) in jobs.iter().zip(settled).enumerate() {
        let summary = summary_of(store, key.id, job.token).await;
        if i == 5 {
            assert_eq!(
                settled,
                Err(StoreError::LeaseLost),
                "a settlement of a lost lease made beside others fails with LeaseLost"
            );
            assert_eq!(
                summary.stage,
                JobStage::Evaluate,
                "a settlement of a lost lease changes nothing"
            );
        } else {
            ok(settled, "each of many settlements made at once is stored");
            assert_eq!(
                (summary.stage, summary.outcome, summary.alerts),
                (JobStage::Done, Some(JobOutcome::Delivered), Some(2)),
                "each settlement made at once records its own outcome and lines"
            );
        }
        assert_eq!(
            ok(
                store.list_attempts(key.id, job.token).await,
                "list_attempts lists the settled attempt"
            ),
            vec![attempt(job.token, 1, 200)],
            "each attempt is kept, the lost lease's too"
        );
    }
}
