//! Workers in separate connection pools, as separate replicas would be: every job is done
//! exactly once, also when a worker dies holding leases.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alerts_core::ids::Token;
use alerts_core::ports::{
    ClaimLimits, DeliveryLog, JobOutcome, JobQueue, JobStage, JobUpdate, StoreError,
};
use chrono::{DateTime, Utc};
use store_postgres::{PgOptions, PgStore};
use uuid::Uuid;

use crate::support::{OnTestDb as _, TestDb, account_with_key, enqueue_jobs, t0};

const JOBS: usize = 1_000;
const WORKERS: usize = 4;

async fn worker_store(db: &TestDb) -> PgStore {
    PgStore::open(PgOptions::new(&db.url).max_connections(2))
        .await
        .unwrap()
}

/// Per job: how many times a worker finished it, and when it was claimed for that.
type Done = Arc<Mutex<HashMap<Token, Vec<DateTime<Utc>>>>>;

async fn finish(
    store: &PgStore,
    done: &Done,
    token: Token,
    lease: &alerts_core::ports::Lease,
    claimed_at: DateTime<Utc>,
) -> bool {
    let finished = store
        .update(
            token,
            lease,
            JobUpdate::Finish {
                outcome: JobOutcome::Delivered,
                attempts: 1,
            },
        )
        .await;
    match finished {
        Ok(()) => {
            done.lock()
                .unwrap()
                .entry(token)
                .or_default()
                .push(claimed_at);
            true
        }
        // Only possible when this worker stalled past its lease; the job is someone else's.
        Err(StoreError::LeaseLost) => false,
        Err(e) => panic!("finishing a job failed: {e}"),
    }
}

fn assert_each_done_once(done: &Done, tokens: &[Token]) {
    let done = done.lock().unwrap();
    let twice = done.values().filter(|claims| claims.len() > 1).count();
    assert_eq!(twice, 0, "{twice} jobs were done more than once");
    let missing = tokens.iter().filter(|t| !done.contains_key(t)).count();
    assert_eq!(
        missing,
        0,
        "{missing} of {} jobs were never done",
        tokens.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn four_workers_in_separate_pools_do_every_job_exactly_once() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let setup = db.store().await;
    let key = account_with_key(&setup).await;
    let tokens = enqueue_jobs(&setup, key, JOBS, t0()).await;
    let now = t0() + chrono::Duration::hours(1);
    let done: Done = Arc::default();
    let mut handles = Vec::new();
    for _ in 0..WORKERS {
        let store = worker_store(&db).await;
        let done = done.clone();
        handles.push(tokio::spawn(async move {
            let mut mine = 0usize;
            loop {
                let jobs = store
                    .claim(
                        now,
                        Duration::from_secs(600),
                        ClaimLimits::up_to(10),
                        &Uuid::new_v4,
                    )
                    .await
                    .unwrap();
                if jobs.is_empty() {
                    return mine;
                }
                for job in jobs {
                    assert!(
                        finish(&store, &done, job.token, &job.lease, now).await,
                        "a lease of ten minutes is never lost in this test"
                    );
                    mine += 1;
                }
            }
        }));
    }
    let mut per_worker = Vec::new();
    for handle in handles {
        per_worker.push(handle.await.unwrap());
    }
    assert_each_done_once(&done, &tokens);
    assert_eq!(per_worker.iter().sum::<usize>(), JOBS);
    let summaries = setup.list_requests(key, JOBS + 1).await.unwrap();
    assert_eq!(summaries.len(), JOBS);
    assert!(
        summaries.iter().all(|s| s.stage == JobStage::Done),
        "every job is recorded as done"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn jobs_of_a_worker_killed_mid_lease_are_finished_by_the_others() {
    // Real time: leases of two seconds must actually run out.
    const LEASE: Duration = Duration::from_secs(2);
    const KILLED_TAKES: usize = 50;
    let Some(db) = TestDb::create().await else {
        return;
    };
    let setup = db.store().await;
    let key = account_with_key(&setup).await;
    let start = Utc::now() - chrono::Duration::seconds(60);
    let tokens = enqueue_jobs(&setup, key, JOBS, start).await;

    // The doomed worker takes a batch and dies: its pool is closed, nothing is updated.
    let doomed = worker_store(&db).await;
    let held = doomed
        .claim(
            Utc::now(),
            LEASE,
            ClaimLimits::up_to(KILLED_TAKES),
            &Uuid::new_v4,
        )
        .await
        .unwrap();
    assert_eq!(held.len(), KILLED_TAKES);
    doomed.close().await;
    drop(doomed);
    let held_until = held[0].lease.until;

    let done: Done = Arc::default();
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut handles = Vec::new();
    for _ in 1..WORKERS {
        let store = worker_store(&db).await;
        let done = done.clone();
        handles.push(tokio::spawn(async move {
            loop {
                let now = Utc::now();
                let jobs = store
                    .claim(now, LEASE, ClaimLimits::up_to(10), &Uuid::new_v4)
                    .await
                    .unwrap();
                if jobs.is_empty() {
                    if done.lock().unwrap().len() >= JOBS {
                        return;
                    }
                    assert!(
                        Instant::now() < deadline,
                        "the jobs of the dead worker were not reclaimed within 90 s"
                    );
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
                for job in jobs {
                    finish(&store, &done, job.token, &job.lease, now).await;
                }
            }
        }));
    }
    for handle in handles {
        handle.await.unwrap();
    }

    assert_each_done_once(&done, &tokens);
    let taken_over: Vec<DateTime<Utc>> = {
        let done = done.lock().unwrap();
        held.iter().map(|job| done[&job.token][0]).collect()
    };
    for claimed_at in taken_over {
        assert!(
            claimed_at >= held_until,
            "a job of the dead worker was taken over at {claimed_at}, before its lease ended at \
             {held_until}"
        );
    }
    // Had the dead worker come back, its work would be refused.
    let late = setup
        .update(
            held[0].token,
            &held[0].lease,
            JobUpdate::Finish {
                outcome: JobOutcome::GaveUp,
                attempts: 9,
            },
        )
        .await;
    assert_eq!(late, Err(StoreError::LeaseLost));
}
