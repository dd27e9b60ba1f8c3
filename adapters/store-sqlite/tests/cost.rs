//! What a small alert request costs the embedded store, in statements: its own test binary,
//! since the statement count is process-wide.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use alerts_core::conformance::stores::small_job_cost;
use store_sqlite::{SqliteOptions, SqliteStore};

#[tokio::test]
async fn a_small_alert_request_costs_a_bounded_number_of_statements() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(SqliteOptions::file(dir.path().join("cost.db")))
        .await
        .unwrap();
    let cost = small_job_cost(Arc::new(store), &test_support::statements::issued).await;
    println!("{cost:?}, {} in all", cost.total());
    // Authenticate 1, the key configuration's version 1 (the configuration itself is kept
    // from the warm-up request), backlog 1, request, points and job 3; the claim and its
    // leases 2; the configuration's version 1, points 1, the attempt and the job's outcome 2.
    assert!(
        cost.accept <= 6 && cost.claim <= 2 && cost.process <= 4,
        "{cost:?}"
    );
}
