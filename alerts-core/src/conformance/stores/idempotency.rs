//! The [`JobQueue`](crate::ports::JobQueue) suites for idempotency keys: a repeated key stores
//! nothing new, even when the repeats race.

use std::collections::HashSet;

use futures::future::join_all;
use identity_core::ports::AccountStore;

use crate::idempotency::{Enqueued, Fingerprint};
use crate::ports::{DeliveryLog, JobQueue, NewAlertRequest, StoreError};

use super::fixtures::{
    account_with_key, drain, enqueue_one, expect_err, idempotency, ok, points, read_points,
    request, secs, t0,
};

/// Idempotent enqueueing: the first request with a key is stored; a second one with the same
/// key (for the same API key) stores nothing and names the first; other API keys have keys of
/// their own.
pub async fn idempotent_enqueue<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;
    let first = request(key.id, 2, t0());
    let stored = ok(
        store
            .enqueue_idempotent(&first, &idempotency("order-1", &first))
            .await,
        "enqueue_idempotent stores a request with a new key",
    );
    assert_eq!(stored, Enqueued::Stored, "a new key stores the request");
    assert_eq!(
        ok(
            read_points(store, first.token, 1000).await,
            "points_page of the stored request"
        ),
        first.points,
        "the request stored with a key is stored whole"
    );

    let retry = request(key.id, 3, t0() + secs(1));
    let again = ok(
        store
            .enqueue_idempotent(&retry, &idempotency("order-1", &retry))
            .await,
        "enqueue_idempotent answers a key stored already",
    );
    assert_eq!(
        again,
        Enqueued::Existing {
            token: first.token,
            fingerprint: Fingerprint::of_points(&first.points),
        },
        "a key stored already names the first request and its fingerprint"
    );
    expect_err(
        store.points_page(retry.token, 0, 1000).await,
        &StoreError::NotFound,
        "nothing is stored for a request whose key was stored already",
    );
    assert_eq!(
        ok(
            read_points(store, first.token, 1000).await,
            "points_page of the stored request"
        ),
        first.points,
        "a replayed request adds no points to the stored one"
    );

    let elsewhere = request(other_key.id, 1, t0());
    assert_eq!(
        ok(
            store
                .enqueue_idempotent(&elsewhere, &idempotency("order-1", &elsewhere))
                .await,
            "enqueue_idempotent with another API key",
        ),
        Enqueued::Stored,
        "idempotency keys belong to one API key: another key's same name is new"
    );
    let plain = request(key.id, 1, t0());
    enqueue_one(store, &plain).await;
    let requests = ok(store.list_requests(key.id, 1000).await, "list_requests");
    assert_eq!(
        requests.len(),
        2,
        "the key has its idempotent request and its plain one, and no more"
    );
}

/// Concurrent idempotent enqueueing: many callers at once with the same key store exactly one
/// request, and every caller learns its token.
pub async fn concurrent_idempotent_enqueue<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(
    store: &S,
) {
    const CALLERS: usize = 8;
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let requests: Vec<NewAlertRequest> = (0..CALLERS).map(|_| request(key.id, 1, t0())).collect();
    let shared = points(1);
    let calls = requests
        .iter()
        .map(|r| {
            let r = NewAlertRequest {
                points: shared.clone(),
                ..r.clone()
            };
            async move {
                let idem = idempotency("same-key", &r);
                let result = store.enqueue_idempotent(&r, &idem).await;
                (r.token, result)
            }
        })
        .collect::<Vec<_>>();
    let results = join_all(calls).await;
    let mut stored = Vec::new();
    let mut named = HashSet::new();
    for (token, result) in results {
        match ok(result, "concurrent enqueue_idempotent calls succeed") {
            Enqueued::Stored => {
                stored.push(token);
                named.insert(token);
            }
            Enqueued::Existing { token, .. } => {
                named.insert(token);
            }
        }
    }
    assert_eq!(
        stored.len(),
        1,
        "exactly one of the concurrent callers stores the request"
    );
    assert_eq!(
        named.len(),
        1,
        "every concurrent caller is told the one stored token"
    );
    let listed = ok(store.list_requests(key.id, 1000).await, "list_requests");
    assert_eq!(listed.len(), 1, "one request is stored");
}
