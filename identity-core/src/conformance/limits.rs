//! The [`LimitStore`](crate::ports::LimitStore) suite: shared rate limits.
//!
//! Every key is fresh, so that the suite can run on a store that other tests (or earlier runs)
//! share; the times are [`t0`] and offsets from it.

use std::num::NonZeroU32;
use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::ports::{Decision, LimitError, LimitStore, Quota};

use super::fixtures::{secs, t0};

fn n(v: u32) -> NonZeroU32 {
    NonZeroU32::new(v).unwrap()
}

fn fresh() -> String {
    Uuid::new_v4().simple().to_string()
}

async fn take<S: LimitStore + ?Sized>(
    store: &S,
    bucket: &str,
    key: &str,
    quota: Quota,
    cost: u32,
    now: DateTime<Utc>,
) -> Decision {
    let result: Result<Decision, LimitError> = store.take(bucket, key, quota, cost, now).await;
    result.unwrap_or_else(|e| panic!("take answers a decision: the store failed with `{e}`"))
}

/// Runs every promise of the port on `store`.
pub async fn limits<S: LimitStore + ?Sized>(store: &S) {
    bursts_then_intervals(store).await;
    refused_requests_are_not_counted(store).await;
    keys_and_buckets_are_apart(store).await;
    costs(store).await;
    sustained_rate(store).await;
    concurrent_takes(store).await;
}

/// A full allowance is usable at once; the next request waits one emission interval.
async fn bursts_then_intervals<S: LimitStore + ?Sized>(store: &S) {
    let (bucket, key) = (fresh(), fresh());
    let quota = Quota::per_minute(n(5));
    for i in 0..5_u64 {
        assert_eq!(
            take(store, &bucket, &key, quota, 1, t0()).await,
            Decision::Allowed {
                full_in: Duration::from_secs(12 * (i + 1))
            },
            "request {i} of a burst of 5 is allowed, and the allowance is whole again one \
             interval (12 s) per unit taken later"
        );
    }
    assert_eq!(
        take(store, &bucket, &key, quota, 1, t0()).await,
        Decision::Limited {
            retry_after: Duration::from_secs(12)
        },
        "the 6th request of 5 a minute waits one interval (12 s)"
    );
    assert_eq!(
        take(store, &bucket, &key, quota, 1, t0() + secs(60)).await,
        Decision::Allowed {
            full_in: Duration::from_secs(12)
        },
        "a minute later the allowance has refilled, and one unit of it is taken"
    );
}

/// A refused request leaves the key as it was: waiting out the answer is enough.
async fn refused_requests_are_not_counted<S: LimitStore + ?Sized>(store: &S) {
    let (bucket, key) = (fresh(), fresh());
    let quota = Quota::per_minute(n(2));
    for _ in 0..2 {
        take(store, &bucket, &key, quota, 1, t0()).await;
    }
    for _ in 0..10 {
        assert!(
            matches!(
                take(store, &bucket, &key, quota, 1, t0()).await,
                Decision::Limited { .. }
            ),
            "an exhausted key is limited"
        );
    }
    assert!(
        take(store, &bucket, &key, quota, 1, t0() + secs(30))
            .await
            .is_allowed(),
        "refused requests did not push the wait further"
    );
}

/// Keys of one bucket, and one key in two buckets, have allowances of their own.
async fn keys_and_buckets_are_apart<S: LimitStore + ?Sized>(store: &S) {
    let (bucket, other_bucket, key, other_key) = (fresh(), fresh(), fresh(), fresh());
    let quota = Quota::per_minute(n(1));
    assert!(
        take(store, &bucket, &key, quota, 1, t0())
            .await
            .is_allowed()
    );
    assert!(matches!(
        take(store, &bucket, &key, quota, 1, t0()).await,
        Decision::Limited { .. }
    ));
    assert!(
        take(store, &bucket, &other_key, quota, 1, t0())
            .await
            .is_allowed(),
        "another key of the bucket has its own allowance"
    );
    assert!(
        take(store, &other_bucket, &key, quota, 1, t0())
            .await
            .is_allowed(),
        "the same key in another bucket has its own allowance"
    );
}

/// A cost takes as many units; a cost above the burst is never allowed.
async fn costs<S: LimitStore + ?Sized>(store: &S) {
    let (bucket, key) = (fresh(), fresh());
    let quota = Quota::per_minute(n(5));
    assert!(
        take(store, &bucket, &key, quota, 3, t0())
            .await
            .is_allowed()
    );
    assert!(
        take(store, &bucket, &key, quota, 2, t0())
            .await
            .is_allowed()
    );
    assert!(
        matches!(
            take(store, &bucket, &key, quota, 1, t0()).await,
            Decision::Limited { .. }
        ),
        "3 and 2 units use an allowance of 5"
    );
    assert!(
        matches!(
            take(store, &fresh(), &key, quota, 6, t0()).await,
            Decision::Limited { .. }
        ),
        "6 units never fit an allowance of 5"
    );
}

/// After the burst, the sustained rate: 50 a second with bursts of 100.
async fn sustained_rate<S: LimitStore + ?Sized>(store: &S) {
    let (bucket, key) = (fresh(), fresh());
    let quota = Quota::per_second(n(50), n(100));
    let mut allowed = 0;
    for _ in 0..150 {
        if take(store, &bucket, &key, quota, 1, t0())
            .await
            .is_allowed()
        {
            allowed += 1;
        }
    }
    assert_eq!(allowed, 100, "the burst is 100");
    let later = t0() + chrono::Duration::milliseconds(1000);
    let mut allowed = 0;
    for _ in 0..100 {
        if take(store, &bucket, &key, quota, 1, later)
            .await
            .is_allowed()
        {
            allowed += 1;
        }
    }
    assert_eq!(allowed, 50, "a second later, 50 more");
}

/// Requests at once on one key are each counted once: the step is atomic.
async fn concurrent_takes<S: LimitStore + ?Sized>(store: &S) {
    let (bucket, key) = (fresh(), fresh());
    let quota = Quota::per_minute(n(10));
    let takes = (0..30).map(|_| take(store, &bucket, &key, quota, 1, t0()));
    let decisions = futures::future::join_all(takes).await;
    let allowed = decisions.iter().filter(|d| d.is_allowed()).count();
    assert_eq!(
        allowed, 10,
        "30 requests at once on 10 a minute: exactly 10 allowed"
    );
}
