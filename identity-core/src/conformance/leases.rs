//! The [`LeaseStore`](crate::ports::LeaseStore) suite: named leases, one holder at a time.
//!
//! Every lease name is fresh, so that the suite can run on a store that other tests share.

use uuid::Uuid;

use crate::ports::LeaseStore;

use super::fixtures::{ok, secs, t0};

/// One holder at a time until the lease expires; renewed by its holder; given up only by it.
pub async fn leases<S: LeaseStore + ?Sized>(store: &S) {
    let name = format!("lease-{}", Uuid::new_v4().simple());
    let other_name = format!("lease-{}", Uuid::new_v4().simple());
    let take = |holder: &'static str, now: i64, until: i64| {
        let name = name.clone();
        async move {
            ok(
                store
                    .take_lease(&name, holder, t0() + secs(now), t0() + secs(until))
                    .await,
                "take_lease answers",
            )
        }
    };
    assert!(take("a", 0, 60).await, "a free lease is taken");
    assert!(
        !take("b", 10, 70).await,
        "a held lease is refused to another"
    );
    assert!(take("a", 30, 90).await, "its holder renews it");
    assert!(
        !take("b", 60, 120).await,
        "the renewal holds past the first expiry"
    );
    assert!(
        ok(
            store
                .take_lease(&other_name, "b", t0(), t0() + secs(60))
                .await,
            "take_lease answers"
        ),
        "leases of other names are apart"
    );
    ok(
        store.release_lease(&name, "b").await,
        "release_lease of a lease held by another is no error",
    );
    assert!(
        !take("b", 61, 120).await,
        "a lease is given up by its holder only"
    );
    assert!(
        take("b", 90, 150).await,
        "an expired lease passes to the next taker"
    );
    assert!(!take("a", 100, 160).await, "and its old holder is refused");
    ok(
        store.release_lease(&name, "b").await,
        "release_lease gives the lease up",
    );
    assert!(
        take("a", 101, 160).await,
        "a lease given up is free at once"
    );
}
