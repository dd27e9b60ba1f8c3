//! The port conformance suite on PostgreSQL.

use alerts_core::conformance::stores;
use store_postgres::{PgOptions, PgStore};

use crate::support::{OnTestDb as _, TestDb};

#[tokio::test]
async fn store_passes_the_store_suite() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    stores::run_all(&store).await;
}

#[tokio::test]
async fn store_in_a_schema_passes_the_store_suite() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = PgStore::open(PgOptions::new(&db.url).schema("alerts"))
        .await
        .unwrap();
    stores::run_all(&store).await;
}

#[tokio::test]
async fn the_suite_passes_again_after_a_restart() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    stores::run_all(&store).await;
    store.close().await;
    // Opening again applies no migration twice, and the suite copes with the data it left.
    let again = db.store().await;
    stores::run_all(&again).await;
}

fn sleep(
    d: std::time::Duration,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    Box::pin(tokio::time::sleep(d))
}

#[tokio::test]
async fn store_tells_waiting_workers_of_arriving_jobs() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    stores::arrivals(&store, &sleep).await;
    // And in a schema of its own.
    let in_schema = PgStore::open(PgOptions::new(&db.url).schema("alerts"))
        .await
        .unwrap();
    stores::arrivals(&in_schema, &sleep).await;
}

#[tokio::test]
async fn a_job_stored_by_one_replica_wakes_the_others_and_no_other_schema() {
    use alerts_core::conformance::stores::{drain, enqueue_jobs};
    use alerts_core::ports::JobQueue as _;
    use identity_core::conformance::fixtures::{account_with_key, t0};

    let Some(db) = TestDb::create().await else {
        return;
    };
    let writer = db.store().await;
    let other_replica = db.store().await;
    let other_schema = PgStore::open(PgOptions::new(&db.url).schema("elsewhere"))
        .await
        .unwrap();
    drain(&writer).await;
    let mut woken = other_replica.arrivals().await.unwrap();
    let mut elsewhere = other_schema.arrivals().await.unwrap();
    let (_, key, _) = account_with_key(&writer).await;
    enqueue_jobs(&writer, key.id, 1, t0()).await;
    tokio::time::timeout(std::time::Duration::from_secs(10), woken.next())
        .await
        .expect("a job stored by one replica wakes another's waiting worker")
        .unwrap();
    assert!(
        tokio::time::timeout(std::time::Duration::from_millis(500), elsewhere.next())
            .await
            .is_err(),
        "a store in another schema of the same database is not woken"
    );
}

#[tokio::test]
async fn store_passes_the_limit_suite() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    identity_core::conformance::limits(&store).await;
}

#[tokio::test]
async fn refilled_limits_are_purged_and_live_ones_kept() {
    use identity_core::ports::{Decision, LimitStore, Quota};
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    let quota = Quota::per_minute(std::num::NonZeroU32::new(1).unwrap());
    let now = chrono::Utc::now();
    for key in ["a", "b", "c"] {
        assert!(
            store
                .take("purge", key, quota, 1, now)
                .await
                .is_ok_and(|d| d.is_allowed())
        );
    }
    assert_eq!(
        store.purge_limits(now, 100).await,
        Ok(0),
        "all three are live"
    );
    let later = now + chrono::Duration::seconds(61);
    assert_eq!(
        store.purge_limits(later, 2).await,
        Ok(2),
        "a batch at a time"
    );
    assert_eq!(store.purge_limits(later, 2).await, Ok(1));
    assert!(matches!(
        store.take("purge", "a", quota, 1, later).await,
        Ok(Decision::Allowed { .. })
    ));
}

#[tokio::test]
async fn a_key_configuration_changed_on_one_replica_is_read_at_once_on_another() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let (one, other) = (db.store().await, db.store().await);
    stores::key_config_changes_are_seen_everywhere(&one, &other).await;
}

#[tokio::test]
async fn store_passes_the_lease_suite() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    identity_core::conformance::leases(&store).await;
}
