//! What a small alert request costs PostgreSQL, in statements: its own test binary, since the
//! statement count is process-wide.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use alerts_core::conformance::stores::small_job_cost;
use test_support::postgres::TestDb;

#[tokio::test]
async fn a_small_alert_request_costs_a_bounded_number_of_statements() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = store_postgres::PgStore::connect(&db.url).await.unwrap();
    let cost = small_job_cost(Arc::new(store), &test_support::statements::issued).await;
    println!("{cost:?}, {} in all", cost.total());
    // As on SQLite (authenticate 1, the key configuration's version 1, backlog 1, request,
    // points and job 3; the claim and its leases 2; the configuration's version 1, points 1,
    // the attempt and the job's outcome 2), with what PostgreSQL's log counts besides: the
    // writes' explicit `BEGIN`, and the claim's turn on its advisory lock.
    assert!(
        cost.accept <= 8 && cost.claim <= 4 && cost.process <= 6,
        "{cost:?}"
    );
}
