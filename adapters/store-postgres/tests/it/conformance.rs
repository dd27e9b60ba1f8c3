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
