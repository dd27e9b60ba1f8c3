//! The [`DeliveryLog`](crate::ports::DeliveryLog) suite: attempts recorded once, and the request
//! summaries of the deliveries page.

use crate::ids::Token;
use crate::ports::{AccountStore, DeliveryAttempt, DeliveryErrorKind, DeliveryLog, JobQueue};

use super::fixtures::{account_with_key, drain, enqueue_one, ok, request, secs, t0};

/// The delivery log: requests newest first with their counts; attempts in order, recorded once
/// per number, visible only to the request's key.
pub async fn delivery_log<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;
    let r1 = request(key.id, 1, t0());
    let r2 = request(key.id, 2, t0() + secs(60));
    let r3 = request(key.id, 3, t0() + secs(120));
    let foreign = request(other_key.id, 4, t0() + secs(90));
    for r in [&r2, &r1, &foreign, &r3] {
        enqueue_one(store, r).await;
    }

    let listed = ok(
        store.list_requests(key.id, 10).await,
        "list_requests lists requests",
    );
    assert_eq!(
        listed
            .iter()
            .map(|s| (s.token, s.points))
            .collect::<Vec<_>>(),
        vec![(r3.token, 3), (r2.token, 2), (r1.token, 1)],
        "list_requests lists the key's requests only, newest first, with their point counts"
    );
    assert_eq!(
        tokens_of(&ok(
            store.list_requests(key.id, 2).await,
            "list_requests lists requests"
        )),
        vec![r3.token, r2.token],
        "list_requests returns at most limit requests, the newest"
    );
    assert_eq!(
        tokens_of(&ok(
            store.list_requests(other_key.id, 10).await,
            "list_requests lists requests"
        )),
        vec![foreign.token],
        "list_requests shows another key only its own requests"
    );

    let a1 = DeliveryAttempt {
        token: r1.token,
        attempt: 1,
        at: t0() + secs(5),
        status: Some(503),
        latency_ms: 812,
        error: Some(DeliveryErrorKind::Status),
    };
    let a2 = DeliveryAttempt {
        token: r1.token,
        attempt: 2,
        at: t0() + secs(35),
        status: None,
        latency_ms: 10_000,
        error: Some(DeliveryErrorKind::Timeout),
    };
    let a3 = DeliveryAttempt {
        token: r1.token,
        attempt: 3,
        at: t0() + secs(155),
        status: Some(204),
        latency_ms: 41,
        error: None,
    };
    for a in [&a1, &a2, &a2, &a3, &a1] {
        ok(store.record_attempt(a).await, "record_attempt records");
    }
    assert_eq!(
        ok(
            store.list_attempts(key.id, r1.token).await,
            "list_attempts lists attempts"
        ),
        vec![a1.clone(), a2.clone(), a3.clone()],
        "record_attempt keeps one record per (token, attempt); list_attempts lists them in order"
    );
    assert!(
        ok(
            store.list_attempts(other_key.id, r1.token).await,
            "list_attempts answers for another key's token"
        )
        .is_empty(),
        "list_attempts shows nothing of another key's request"
    );
    assert!(
        ok(
            store.list_attempts(key.id, r2.token).await,
            "list_attempts lists attempts"
        )
        .is_empty(),
        "a request without attempts has none listed"
    );
    drain(store).await;
}

fn tokens_of(list: &[crate::ports::RequestSummary]) -> Vec<Token> {
    list.iter().map(|s| s.token).collect()
}
