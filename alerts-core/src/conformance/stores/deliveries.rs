//! The [`DeliveryLog`](crate::ports::DeliveryLog) suite: attempts recorded once, the request
//! summaries of the deliveries page, and the test deliveries listed beside them.

use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use identity_core::ports::AccountStore;
use uuid::Uuid;

use crate::ids::Token;
use crate::ports::{
    Activity, ActivityWindow, AttemptTally, DeliveryAttempt, DeliveryErrorKind, DeliveryLog,
    JobQueue, JobUpdate, RequestTally, StoreError, TEST_DELIVERIES_KEPT, TestDelivery,
};

use super::fixtures::{
    account_with_key, claim, drain, enqueue_one, expect_err, ok, request, secs, t0,
};

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

/// The activity of the charts: a key's requests (with the alerts written for them) and its
/// attempts per bucket and result, inside the window only, as [`Activity::tally`] counts them.
pub async fn activity<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;
    // Three hours from t0; the requests before and after fall outside.
    let window = ActivityWindow {
        since: t0(),
        bucket_seconds: 3600,
        buckets: 3,
    };
    let before = request(key.id, 1, t0() - secs(1));
    let first = request(key.id, 2, t0());
    let second = request(key.id, 1, t0() + secs(1800));
    let third = request(key.id, 1, t0() + secs(7200));
    let after = request(key.id, 1, t0() + secs(3 * 3600));
    let foreign = request(other_key.id, 1, t0() + secs(60));
    for r in [&before, &first, &second, &third, &after, &foreign] {
        enqueue_one(store, r).await;
    }
    let jobs = claim(store, t0(), 10, "claim leases due jobs").await;
    let lease = jobs
        .iter()
        .find(|j| j.token == first.token)
        .expect("the first request is due at t0")
        .lease;
    ok(
        store
            .update(first.token, &lease, JobUpdate::Written { alerts: 3 })
            .await,
        "update Written with the lease held",
    );
    let attempt = |token, n, at, status, latency_ms, error| DeliveryAttempt {
        token,
        attempt: n,
        at: t0() + secs(at),
        status,
        latency_ms,
        error,
    };
    let attempts = [
        attempt(
            first.token,
            1,
            5,
            Some(503),
            812,
            Some(DeliveryErrorKind::Status),
        ),
        attempt(
            first.token,
            2,
            35,
            None,
            10_000,
            Some(DeliveryErrorKind::Timeout),
        ),
        attempt(first.token, 3, 7201, Some(204), 41, None),
        attempt(second.token, 1, 7202, Some(204), 59, None),
        attempt(second.token, 2, 3 * 3600, Some(204), 7, None),
        attempt(before.token, 1, -1, Some(204), 9, None),
        attempt(foreign.token, 1, 61, Some(204), 11, None),
    ];
    for a in &attempts {
        ok(store.record_attempt(a).await, "record_attempt records");
    }
    let got = ok(
        store.activity(key.id, &window).await,
        "activity counts a key's requests and attempts",
    );
    let expected = Activity {
        requests: vec![
            RequestTally {
                bucket: 0,
                requests: 2,
                alerts: 3,
            },
            RequestTally {
                bucket: 2,
                requests: 1,
                alerts: 0,
            },
        ],
        attempts: vec![
            AttemptTally {
                bucket: 0,
                status: None,
                error: Some(DeliveryErrorKind::Timeout),
                attempts: 1,
                latency_ms_total: 10_000,
                latency_ms_max: 10_000,
            },
            AttemptTally {
                bucket: 0,
                status: Some(503),
                error: Some(DeliveryErrorKind::Status),
                attempts: 1,
                latency_ms_total: 812,
                latency_ms_max: 812,
            },
            AttemptTally {
                bucket: 2,
                status: Some(204),
                error: None,
                attempts: 2,
                latency_ms_total: 100,
                latency_ms_max: 59,
            },
        ],
    };
    assert_eq!(
        got, expected,
        "activity counts the key's own requests and attempts inside the window, per bucket \
         and result, sorted by bucket, status and error"
    );
    let requests = [&before, &first, &second, &third, &after]
        .map(|r| (r.received_at, (r.token == first.token).then_some(3)));
    let own: Vec<_> = attempts
        .iter()
        .filter(|a| a.token != foreign.token)
        .collect();
    assert_eq!(
        Activity::tally(&window, requests, own),
        expected,
        "a store's activity agrees with Activity::tally"
    );
    assert_eq!(
        ok(
            store.activity(other_key.id, &window).await,
            "activity counts a key's requests and attempts",
        )
        .requests,
        vec![RequestTally {
            bucket: 0,
            requests: 1,
            alerts: 0
        }],
        "another key sees only its own requests"
    );
    drain(store).await;
}

/// A test delivery of `key` at `at`, with a fresh token.
fn test_at(key: KeyId, at: DateTime<Utc>, status: Option<u16>) -> TestDelivery {
    TestDelivery {
        token: Token(Uuid::new_v4()),
        key,
        at,
        url: "https://hooks.example.org/in?from=«test»".to_owned(),
        status,
        latency_ms: 37,
        error: match status {
            Some(200..=299) => None,
            Some(_) => Some(DeliveryErrorKind::Status),
            None => Some(DeliveryErrorKind::Connect),
        },
    }
}

/// Test deliveries: listed for their key only, newest first, at most `limit`, recorded once
/// per token, at most [`TEST_DELIVERIES_KEPT`] kept per key, and apart from the key's
/// requests.
pub async fn test_deliveries<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    let (_, key, _) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;
    let first = test_at(key.id, t0(), Some(204));
    let mut failed = test_at(key.id, t0() + secs(60), None);
    failed.latency_ms = 10_000;
    failed.error = Some(DeliveryErrorKind::Timeout);
    let refused = test_at(key.id, t0() + secs(120), Some(500));
    let foreign = test_at(other_key.id, t0() + secs(90), Some(200));
    for t in [&failed, &first, &foreign, &refused] {
        ok(store.record_test(t).await, "record_test records a test");
    }
    assert_eq!(
        ok(store.list_tests(key.id, 10).await, "list_tests lists tests"),
        vec![refused.clone(), failed.clone(), first.clone()],
        "list_tests lists the key's tests only, newest first, each as it was recorded"
    );
    assert_eq!(
        ok(store.list_tests(key.id, 2).await, "list_tests lists tests"),
        vec![refused.clone(), failed.clone()],
        "list_tests returns at most limit tests, the newest"
    );
    assert_eq!(
        ok(
            store.list_tests(other_key.id, 10).await,
            "list_tests lists tests"
        ),
        vec![foreign.clone()],
        "list_tests shows another key only its own tests"
    );
    assert!(
        ok(
            store.list_requests(key.id, 10).await,
            "list_requests lists requests"
        )
        .is_empty(),
        "a test is no alert request"
    );

    let again = TestDelivery {
        status: Some(200),
        error: None,
        at: t0() + secs(600),
        ..first.clone()
    };
    ok(
        store.record_test(&again).await,
        "record_test accepts a token recorded already",
    );
    assert_eq!(
        ok(store.list_tests(key.id, 10).await, "list_tests lists tests"),
        vec![refused.clone(), failed.clone(), first.clone()],
        "recording the same token twice keeps the first record"
    );

    // Two tests sent in the same instant: the later token first, as every store orders them.
    let (_, tied_key, _) = account_with_key(store).await;
    let (a, b) = (
        test_at(tied_key.id, t0(), Some(204)),
        test_at(tied_key.id, t0(), Some(204)),
    );
    for t in [&a, &b] {
        ok(store.record_test(t).await, "record_test records a test");
    }
    let later_token_first = if a.token > b.token {
        vec![a, b]
    } else {
        vec![b, a]
    };
    assert_eq!(
        ok(
            store.list_tests(tied_key.id, 10).await,
            "list_tests lists tests"
        ),
        later_token_first,
        "tests of the same instant are listed later token first"
    );

    // More tests than a key keeps, recorded out of order: the newest are kept, whichever came
    // last, and other keys' tests are untouched.
    let (_, busy, _) = account_with_key(store).await;
    let extra = 3;
    let count = TEST_DELIVERIES_KEPT + extra;
    let mut tests: Vec<TestDelivery> = (0..count)
        .map(|i| test_at(busy.id, t0() + secs(i64::try_from(i).unwrap()), Some(204)))
        .collect();
    // The oldest last: it is forgotten as soon as it is recorded.
    tests.rotate_left(1);
    for t in &tests {
        ok(store.record_test(t).await, "record_test records a test");
    }
    tests.sort_by_key(|t| std::cmp::Reverse(t.at));
    tests.truncate(TEST_DELIVERIES_KEPT);
    assert_eq!(
        ok(
            store.list_tests(busy.id, count + 10).await,
            "list_tests lists tests"
        ),
        tests,
        "a key keeps its newest TEST_DELIVERIES_KEPT tests and forgets older ones"
    );
    assert_eq!(
        ok(store.list_tests(key.id, 10).await, "list_tests lists tests").len(),
        3,
        "another key's tests are kept"
    );

    let stranger = TestDelivery {
        key: KeyId(Uuid::new_v4()),
        ..test_at(key.id, t0(), Some(204))
    };
    expect_err(
        store.record_test(&stranger).await,
        &StoreError::NotFound,
        "record_test refuses a test of an unknown key",
    );
}
