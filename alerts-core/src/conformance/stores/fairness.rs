//! The [`JobQueue`](crate::ports::JobQueue) suites for sharing the workers among customers and
//! keeping the store bounded: fair claims with a cap per key, the backlog that backpressure
//! reads, and the retention purge.

use identity_core::ports::AccountStore;

use crate::idempotency::Enqueued;
use crate::ports::{ClaimLimits, DeliveryLog, JobOutcome, JobQueue, JobUpdate, StoreError};

use super::fixtures::{
    LEASE, account_with_key, claim_with, drain, enqueue_one, expect_err, idempotency, ok, request,
    secs, t0, tokens,
};

/// Claims take every key's oldest job before any key's second one, and never leave a key
/// with more live leases than the cap.
pub async fn fair_claims<S: AccountStore + JobQueue + ?Sized>(store: &S) {
    drain(store).await;
    let (_, busy, _) = account_with_key(store).await;
    let (_, quiet, _) = account_with_key(store).await;
    let flood: Vec<_> = (0..5)
        .map(|i| request(busy.id, 1, t0() + secs(i)))
        .collect();
    for r in &flood {
        enqueue_one(store, r).await;
    }
    let lone = request(quiet.id, 1, t0() + secs(10));
    enqueue_one(store, &lone).await;
    let now = t0() + secs(60);

    let first = claim_with(store, now, ClaimLimits::up_to(2), "claim leases due jobs").await;
    assert_eq!(
        tokens(&first),
        vec![flood[0].token, lone.token],
        "a claim takes each key's oldest job before any key's second one"
    );

    let capped = claim_with(
        store,
        now,
        ClaimLimits::up_to(10).per_key(2),
        "claim leases due jobs",
    )
    .await;
    assert_eq!(
        tokens(&capped),
        vec![flood[1].token],
        "a claim counts the leases a key holds already against its cap"
    );
    let none = claim_with(
        store,
        now,
        ClaimLimits::up_to(10).per_key(2),
        "claim leases due jobs",
    )
    .await;
    assert!(none.is_empty(), "a key at its cap gets no more jobs");

    for job in first.iter().chain(&capped) {
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
    let freed = claim_with(
        store,
        now,
        ClaimLimits::up_to(10).per_key(2),
        "claim leases due jobs",
    )
    .await;
    assert_eq!(
        tokens(&freed),
        vec![flood[2].token, flood[3].token],
        "finished jobs free their key's places, oldest jobs first"
    );
    let expired = claim_with(
        store,
        now + chrono::Duration::from_std(LEASE).unwrap() + secs(1),
        ClaimLimits::up_to(10).per_key(2),
        "claim reclaims expired leases",
    )
    .await;
    assert_eq!(
        expired.len(),
        2,
        "expired leases do not count against the cap (two expired, one waiting: two fit)"
    );
    drain(store).await;
}

/// The backlog: a key's unfinished jobs, how many of them wait, and since when its
/// longest-waiting job and any key's longest-waiting job wait; leased jobs and jobs not yet
/// due do not wait.
pub async fn backlog<S: AccountStore + JobQueue + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let (_, other, _) = account_with_key(store).await;
    let (_, idle, _) = account_with_key(store).await;
    let oldest = request(key.id, 1, t0());
    let next = request(key.id, 1, t0() + secs(5));
    let later = request(key.id, 1, t0() + secs(3_600));
    let others = request(other.id, 1, t0() - secs(10));
    for r in [&oldest, &next, &later, &others] {
        enqueue_one(store, r).await;
    }
    let now = t0() + secs(60);

    let seen = ok(store.backlog(key.id, now).await, "backlog reads the queue");
    assert_eq!(
        seen.key_pending, 3,
        "every unfinished job of the key is pending"
    );
    assert_eq!(
        seen.key_waiting, 2,
        "the key's due jobs wait; one not yet due does not"
    );
    assert_eq!(
        seen.key_oldest_waiting,
        Some(t0()),
        "the key's oldest due job"
    );
    assert_eq!(
        seen.oldest_waiting,
        Some(t0() - secs(10)),
        "the oldest due job of any key"
    );

    let empty = ok(store.backlog(idle.id, now).await, "backlog reads the queue");
    assert_eq!((empty.key_pending, empty.key_waiting), (0, 0));
    assert_eq!(
        empty.key_oldest_waiting, None,
        "a key without jobs waits for nothing"
    );

    // Leased jobs do not wait: the first claim takes the other key's job and the key's oldest.
    let claimed = claim_with(store, now, ClaimLimits::up_to(2), "claim leases due jobs").await;
    assert_eq!(tokens(&claimed), vec![others.token, oldest.token]);
    let seen = ok(store.backlog(key.id, now).await, "backlog reads the queue");
    assert_eq!(seen.key_pending, 3, "a leased job is still pending");
    assert_eq!(seen.key_waiting, 1, "a leased job does not wait");
    assert_eq!(
        seen.key_oldest_waiting,
        Some(t0() + secs(5)),
        "a leased job does not wait"
    );
    assert_eq!(seen.oldest_waiting, Some(t0() + secs(5)));
    drain(store).await;
}

/// The retention purge: finished requests older than the cut-off go, oldest first and at most
/// `limit` at a time, with their points and idempotency keys; unfinished ones stay.
pub async fn purge_finished<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    // Times no other suite uses, and nothing older left by an earlier run of this one, so that
    // the purge sees this suite's requests alone.
    let cut = t0() - secs(3_650 * 86_400);
    while !ok(
        store.purge_finished(cut, 100).await,
        "purge_finished deletes finished requests",
    )
    .is_empty()
    {}
    let (_, key, _) = account_with_key(store).await;
    let first = request(key.id, 3, cut - secs(7_200));
    let second = request(key.id, 3, cut - secs(3_600));
    let young = request(key.id, 3, cut + secs(1));
    let unfinished = request(key.id, 3, cut - secs(9_000));
    let reused = idempotency("purge-me", &second);
    for r in [&first, &young] {
        enqueue_one(store, r).await;
    }
    ok(
        store.enqueue_idempotent(&second, &reused).await,
        "enqueue stores a request with an idempotency key",
    );
    // Everything claimable now is finished; the unfinished request is stored after.
    drain(store).await;
    enqueue_one(store, &unfinished).await;

    let purged = ok(
        store.purge_finished(cut, 1).await,
        "purge_finished deletes finished requests",
    );
    assert_eq!(purged, vec![first.token], "oldest first, at most `limit`");
    let purged = ok(
        store.purge_finished(cut, 10).await,
        "purge_finished deletes finished requests",
    );
    assert_eq!(
        purged,
        vec![second.token],
        "younger and unfinished requests are kept"
    );
    for gone in [first.token, second.token] {
        expect_err(
            store.points_page(gone, 0, 10).await,
            &StoreError::NotFound,
            "a purged request's points are gone",
        );
    }
    ok(
        store.points_page(unfinished.token, 0, 10).await,
        "an unfinished request is kept whatever its age",
    );
    ok(
        store.points_page(young.token, 0, 10).await,
        "a request received after the cut-off is kept",
    );
    let again = request(key.id, 2, t0());
    let outcome = ok(
        store
            .enqueue_idempotent(&again, &idempotency("purge-me", &again))
            .await,
        "enqueue stores a request with an idempotency key",
    );
    assert_eq!(
        outcome,
        Enqueued::Stored,
        "a purged request's idempotency key is free again"
    );
    drain(store).await;
}
