//! The [`JobQueue`](crate::ports::JobQueue) suites for working on jobs: claims and their leases,
//! concurrent claimers, updates, release and redelivery, and the counts for metrics.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::future::join_all;
use identity_core::ports::AccountStore;
use uuid::Uuid;

use crate::ids::Token;
use crate::ports::{
    AlertJob, ClaimLimits, DeliveryLog, JobOutcome, JobQueue, JobStage, JobUpdate, StoreError,
    UNFINISHED_JOB,
};

use super::fixtures::{
    LEASE, account_with_key, claim, drain, end_of_suites, enqueue_one, expect_err, lease_span, ok,
    request, secs, summary_of, t0, tokens,
};

/// Claims: due jobs only, oldest run time first, at most `max`, never a leased job until its
/// lease expires, and then it is reclaimed under a new lease.
pub async fn claims<S: AccountStore + JobQueue + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let a = request(key.id, 1, t0() + secs(10));
    let b = request(key.id, 1, t0());
    let c = request(key.id, 1, t0() + secs(5));
    let d = request(key.id, 1, t0() + secs(3_600));
    for r in [&a, &b, &c, &d] {
        enqueue_one(store, r).await;
    }

    assert!(
        claim(store, t0() - secs(1), 10, "claim leases due jobs")
            .await
            .is_empty(),
        "claim leaves jobs whose run time has not come"
    );
    let calls = AtomicUsize::new(0);
    let handed_out = Mutex::new(Vec::new());
    let lease_ids = || {
        calls.fetch_add(1, Ordering::SeqCst);
        let id = Uuid::new_v4();
        handed_out.lock().unwrap().push(id);
        id
    };
    let now = t0() + secs(20);
    let first = ok(
        store
            .claim(now, LEASE, ClaimLimits::up_to(2), &lease_ids)
            .await,
        "claim leases due jobs",
    );
    assert_eq!(
        tokens(&first),
        vec![b.token, c.token],
        "claim takes at most max jobs, oldest run time first"
    );
    assert!(
        calls.load(Ordering::SeqCst) <= 2,
        "claim calls lease_ids at most once per job it may take"
    );
    let given: HashSet<Uuid> = handed_out.lock().unwrap().iter().copied().collect();
    let used: HashSet<Uuid> = first.iter().map(|j| j.lease.id).collect();
    assert!(
        used.len() == first.len() && used.is_subset(&given),
        "each job is leased under its own id from lease_ids"
    );

    // Asked for any number of jobs, a claim takes what there is (a store that made a lease id
    // up front for each of `usize::MAX` jobs would never answer).
    let second = claim(store, now, usize::MAX, "claim leases due jobs").await;
    assert_eq!(
        tokens(&second),
        vec![a.token],
        "claim skips leased jobs and jobs not yet due"
    );
    assert!(
        claim(store, now + secs(60), 10, "claim leases due jobs")
            .await
            .is_empty(),
        "a job is not claimed again while its lease lasts"
    );

    let after_expiry = now + lease_span() + secs(1);
    let reclaimed = claim(store, after_expiry, 10, "claim reclaims expired leases").await;
    assert_eq!(
        tokens(&reclaimed),
        vec![b.token, c.token, a.token],
        "claim reclaims jobs whose lease expired, oldest run time first"
    );
    for job in &reclaimed {
        let old: Vec<&AlertJob> = first
            .iter()
            .chain(second.iter())
            .filter(|o| o.token == job.token)
            .collect();
        assert_ne!(
            old[0].lease.id, job.lease.id,
            "a reclaimed job gets a new lease id"
        );
        assert_eq!(
            job.lease.until,
            after_expiry + lease_span(),
            "a reclaimed job's lease runs from the new claim"
        );
    }
    for job in &reclaimed {
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
            "update Finish with the lease held",
        );
    }
    assert!(
        ok(
            store
                .claim(after_expiry, LEASE, ClaimLimits::up_to(0), &Uuid::new_v4)
                .await,
            "claim with max 0 succeeds"
        )
        .is_empty(),
        "claim with max 0 takes nothing"
    );
    let later = claim(store, t0() + secs(3_600), 10, "claim leases due jobs").await;
    assert_eq!(
        tokens(&later),
        vec![d.token],
        "a job is claimable once its run time comes"
    );
    drain(store).await;
}

/// Concurrent claims: several claimers at once never get the same job, and together they get
/// every job.
pub async fn concurrent_claims<S: AccountStore + JobQueue + ?Sized>(store: &S) {
    const JOBS: usize = 60;
    const CLAIMERS: usize = 6;
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let mut all = HashSet::new();
    for i in 0..JOBS {
        let r = request(key.id, 1, t0() + secs(i as i64));
        enqueue_one(store, &r).await;
        all.insert(r.token);
    }
    let now = t0() + secs(3_600);
    let claimer = |_: usize| async move {
        let mut mine = Vec::new();
        loop {
            let jobs = claim(store, now, 3, "concurrent claims succeed").await;
            if jobs.is_empty() {
                return mine;
            }
            mine.extend(tokens(&jobs));
        }
    };
    let results = join_all((0..CLAIMERS).map(claimer)).await;
    let mut seen: HashMap<Token, usize> = HashMap::new();
    for token in results.iter().flatten() {
        *seen.entry(*token).or_default() += 1;
    }
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        twice.is_empty(),
        "no two concurrent claimers get the same job: {} jobs were handed out more than once",
        twice.len()
    );
    let got: HashSet<Token> = seen.keys().copied().collect();
    assert_eq!(
        got.len(),
        JOBS,
        "concurrent claimers together claim every due job"
    );
    assert_eq!(got, all, "claimers get exactly the jobs that were enqueued");
    drain(store).await;
}

/// Updates: Written moves the job on to delivery under the same lease; Retry and Finish end
/// the lease; an update under a lease that was lost or ended fails with `LeaseLost` and
/// changes nothing.
pub async fn updates<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let req = request(key.id, 2, t0());
    enqueue_one(store, &req).await;
    let j1 = claim(store, t0(), 1, "claim leases due jobs").await;
    assert_eq!(tokens(&j1), vec![req.token], "claim takes the due job");
    let l1 = j1[0].lease;

    ok(
        store
            .update(req.token, &l1, JobUpdate::Written { alerts: 3 })
            .await,
        "update Written with the lease held",
    );
    let s = summary_of(store, key.id, req.token).await;
    assert_eq!(
        (s.stage, s.alerts, s.attempts),
        (JobStage::Deliver, Some(3), 0),
        "Written moves the job to delivery and records the alert count"
    );
    assert!(
        claim(store, t0() + secs(5), 1, "claim leases due jobs")
            .await
            .is_empty(),
        "Written keeps the lease: nobody else may claim the job"
    );
    let until = l1.until;
    let j2 = claim(store, until, 1, "claim leases due jobs").await;
    assert_eq!(
        tokens(&j2),
        vec![req.token],
        "a written job whose lease expired is claimable"
    );
    assert_eq!(
        j2[0].stage,
        JobStage::Deliver,
        "the job is claimed for delivery"
    );
    let l2 = j2[0].lease;

    expect_err(
        store
            .update(
                req.token,
                &l1,
                JobUpdate::Finish {
                    outcome: JobOutcome::Delivered,
                    attempts: 1,
                },
            )
            .await,
        &StoreError::LeaseLost,
        "update under a lease that ended is LeaseLost",
    );
    ok(
        store
            .update(
                req.token,
                &l2,
                JobUpdate::Retry {
                    attempts: 1,
                    run_at: t0() + secs(60),
                },
            )
            .await,
        "update Retry with the lease held",
    );
    let s = summary_of(store, key.id, req.token).await;
    assert_eq!(
        (s.stage, s.attempts, s.outcome),
        (JobStage::Deliver, 1, None),
        "Retry keeps the job in delivery and records the attempts"
    );
    assert!(
        claim(store, t0() + secs(59), 1, "claim leases due jobs")
            .await
            .is_empty(),
        "a retry waits for its run time"
    );
    let j3 = claim(store, t0() + secs(60), 1, "claim leases due jobs").await;
    assert_eq!(
        tokens(&j3),
        vec![req.token],
        "a retry is claimable at run_at"
    );
    assert_eq!(j3[0].attempts, 1, "a claimed retry carries its attempts");
    let l3 = j3[0].lease;

    // The worker holding l3 stalls past its lease; another worker takes the job over.
    let j4 = claim(
        store,
        t0() + secs(60) + lease_span() + secs(1),
        1,
        "claim reclaims expired leases",
    )
    .await;
    assert_eq!(
        tokens(&j4),
        vec![req.token],
        "an expired lease is reclaimed"
    );
    let l4 = j4[0].lease;
    expect_err(
        store
            .update(
                req.token,
                &l3,
                JobUpdate::Retry {
                    attempts: 9,
                    run_at: t0(),
                },
            )
            .await,
        &StoreError::LeaseLost,
        "update under a lease taken over by another worker is LeaseLost",
    );
    expect_err(
        store.release(req.token, &l3).await,
        &StoreError::LeaseLost,
        "release under a lease taken over by another worker is LeaseLost",
    );
    assert_eq!(
        summary_of(store, key.id, req.token).await.attempts,
        1,
        "a refused update changes nothing"
    );

    ok(
        store
            .update(
                req.token,
                &l4,
                JobUpdate::Finish {
                    outcome: JobOutcome::Delivered,
                    attempts: 2,
                },
            )
            .await,
        "update Finish with the lease held",
    );
    let s = summary_of(store, key.id, req.token).await;
    assert_eq!(
        (s.stage, s.outcome, s.attempts, s.alerts),
        (JobStage::Done, Some(JobOutcome::Delivered), 2, Some(3)),
        "Finish marks the job done with its outcome and attempts"
    );
    assert!(
        claim(store, end_of_suites(), 10, "claim leases due jobs")
            .await
            .is_empty(),
        "a finished job is never claimed again"
    );
    expect_err(
        store
            .update(
                req.token,
                &l4,
                JobUpdate::Finish {
                    outcome: JobOutcome::Gone,
                    attempts: 3,
                },
            )
            .await,
        &StoreError::LeaseLost,
        "Finish ends the lease: a second update under it is LeaseLost",
    );
}

/// Release gives a job back at once and unchanged; redeliver puts a finished job whose file
/// was written back to delivery, keeping its attempts, only for its own key, and never a job
/// still in progress.
pub async fn release_and_redeliver<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;
    let req = request(key.id, 1, t0());
    enqueue_one(store, &req).await;

    let j1 = claim(store, t0(), 1, "claim leases due jobs").await;
    ok(
        store.release(req.token, &j1[0].lease).await,
        "release gives a held job back",
    );
    let j2 = claim(store, t0(), 1, "claim leases due jobs").await;
    assert_eq!(
        tokens(&j2),
        vec![req.token],
        "a released job is claimable again at once"
    );
    assert_eq!(
        (j2[0].stage, j2[0].attempts),
        (JobStage::Evaluate, 0),
        "release leaves the job unchanged"
    );
    expect_err(
        store.release(req.token, &j1[0].lease).await,
        &StoreError::LeaseLost,
        "release under a lease already given back is LeaseLost",
    );
    expect_err(
        store.redeliver(key.id, req.token, t0()).await,
        &StoreError::Conflict(UNFINISHED_JOB.to_owned()),
        "redeliver of a job still being written is a Conflict",
    );

    ok(
        store
            .update(req.token, &j2[0].lease, JobUpdate::Written { alerts: 0 })
            .await,
        "update Written with the lease held",
    );
    expect_err(
        store.redeliver(key.id, req.token, t0()).await,
        &StoreError::Conflict(UNFINISHED_JOB.to_owned()),
        "redeliver of a job being delivered is a Conflict: it is never delivered twice at once",
    );
    ok(
        store
            .update(
                req.token,
                &j2[0].lease,
                JobUpdate::Finish {
                    outcome: JobOutcome::GaveUp,
                    attempts: 5,
                },
            )
            .await,
        "update Finish with the lease held",
    );

    expect_err(
        store.redeliver(other_key.id, req.token, t0()).await,
        &StoreError::NotFound,
        "redeliver of another key's token is NotFound",
    );
    expect_err(
        store.redeliver(key.id, Token(Uuid::new_v4()), t0()).await,
        &StoreError::NotFound,
        "redeliver of an unknown token is NotFound",
    );
    assert_eq!(
        summary_of(store, key.id, req.token).await.stage,
        JobStage::Done,
        "a refused redeliver changes nothing"
    );

    ok(
        store.redeliver(key.id, req.token, t0() + secs(7_200)).await,
        "redeliver puts a finished job back",
    );
    let s = summary_of(store, key.id, req.token).await;
    assert_eq!(
        (s.stage, s.outcome, s.attempts, s.alerts),
        (JobStage::Deliver, None, 5, Some(0)),
        "redeliver puts the job back to delivery with its attempts and file kept"
    );
    assert!(
        claim(store, t0() + secs(3_600), 1, "claim leases due jobs")
            .await
            .is_empty(),
        "a redelivered job waits for the time given"
    );
    let j4 = claim(store, t0() + secs(7_200), 1, "claim leases due jobs").await;
    assert_eq!(
        tokens(&j4),
        vec![req.token],
        "a redelivered job is claimable at the time given"
    );
    assert_eq!(
        (j4[0].stage, j4[0].attempts),
        (JobStage::Deliver, 5),
        "a redelivered job is claimed for delivery with its attempts"
    );
    drain(store).await;
}

/// `counts` tells waiting jobs from leased ones, counts a job whose lease expired as waiting,
/// and leaves finished jobs out.
pub async fn job_counts<S: AccountStore + JobQueue + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let now = t0();
    let count = |at| async move { ok(store.counts(at).await, "counts answers") };
    assert_eq!(
        count(now).await,
        crate::ports::JobCounts::default(),
        "counts is zero on a drained queue"
    );
    let due = request(key.id, 1, now);
    let later = request(key.id, 1, now + secs(60));
    enqueue_one(store, &due).await;
    enqueue_one(store, &later).await;
    assert_eq!(
        count(now).await,
        crate::ports::JobCounts {
            waiting: 2,
            leased: 0,
            oldest_waiting: Some(now),
        },
        "enqueued jobs count as waiting, due or not; the oldest is the due one"
    );
    let jobs = claim(store, now, 10, "claim leases the due job").await;
    assert_eq!(
        tokens(&jobs),
        vec![due.token],
        "only the due job is claimed"
    );
    assert_eq!(
        count(now).await,
        crate::ports::JobCounts {
            waiting: 1,
            leased: 1,
            oldest_waiting: None,
        },
        "a claimed job counts as leased, and a job not yet due does not wait"
    );
    assert_eq!(
        count(now + lease_span() + secs(1)).await,
        crate::ports::JobCounts {
            waiting: 2,
            leased: 0,
            oldest_waiting: Some(now),
        },
        "a job whose lease expired counts as waiting again"
    );
    ok(
        store
            .update(
                due.token,
                &jobs[0].lease,
                JobUpdate::Finish {
                    outcome: JobOutcome::Delivered,
                    attempts: 1,
                },
            )
            .await,
        "update with the lease finishes the job",
    );
    assert_eq!(
        count(now).await,
        crate::ports::JobCounts {
            waiting: 1,
            leased: 0,
            oldest_waiting: None,
        },
        "finished jobs are not counted"
    );
    drain(store).await;
}
