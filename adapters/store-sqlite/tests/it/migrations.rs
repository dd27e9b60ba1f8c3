//! Migrations that move data: requests stored before a migration read the same after it; and
//! what goes with a deleted request or account.

use alerts_core::conformance::stores;
use alerts_core::ids::Token;
use alerts_core::ports::{DeliveryLog, JobQueue, TestDelivery};
use alerts_core::request::AlertPoint;
use identity_core::ids::KeyId;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, SqliteConnection};
use store_sqlite::{SqliteOptions, SqliteStore};
use uuid::Uuid;

use crate::support::{FileStore, enqueue_jobs, t0};

/// Points whose `custom_data` and ids carry escapes, spacing and number spellings that a
/// migration must not touch: the conformance suites' own.
fn awkward_points(n: usize) -> Vec<AlertPoint> {
    alerts_core::conformance::stores::awkward_points("old", n)
}

#[tokio::test]
async fn points_stored_in_a_json_column_are_kept_as_written_through_every_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = FileStore::path_in(&dir);
    let mut conn = SqliteConnection::connect_with(
        &SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .foreign_keys(true),
    )
    .await
    .unwrap();
    sqlx::migrate!("./migrations")
        .run_to(3, &mut conn)
        .await
        .unwrap();

    // A key and its requests as a server before the migration stored them: the points as one
    // JSON array in alert_requests.points.
    let (account, key) = (Uuid::new_v4(), Uuid::new_v4());
    sqlx::query(
        "INSERT INTO accounts (id, email, password_hash, created_at) \
         VALUES (?1, 'old@example.com', 'x', 0)",
    )
    .bind(account)
    .execute(&mut conn)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO api_keys (id, account_id, label, prefix, key_hash, created_at) \
         VALUES (?1, ?2, 'old', 'ik_00000000', ?3, 0)",
    )
    .bind(key)
    .bind(account)
    .bind("0".repeat(64))
    .execute(&mut conn)
    .await
    .unwrap();
    let requests: Vec<(Token, Vec<AlertPoint>)> = [1, 3, 450]
        .into_iter()
        .map(|n| (Token(Uuid::new_v4()), awkward_points(n)))
        .collect();
    for (i, (token, points)) in requests.iter().enumerate() {
        let received = t0().timestamp_micros() + i64::try_from(i).unwrap();
        sqlx::query(
            "INSERT INTO alert_requests (token, key_id, points, point_count, received_at) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .bind(token.0)
        .bind(key)
        .bind(serde_json::to_string(points).unwrap())
        .bind(i64::try_from(points.len()).unwrap())
        .bind(received)
        .execute(&mut conn)
        .await
        .unwrap();
        sqlx::query("INSERT INTO alert_jobs (token, stage, run_at) VALUES (?1, 'evaluate', ?2)")
            .bind(token.0)
            .bind(received)
            .execute(&mut conn)
            .await
            .unwrap();
    }
    conn.close().await.unwrap();

    let store = SqliteStore::open(SqliteOptions::file(&path)).await.unwrap();
    let mut raw = SqliteConnection::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    for (token, points) in &requests {
        let read = stores::read_points(&store, *token, 7).await.unwrap();
        assert_eq!(&read, points, "a migrated request reads as it was posted");
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT points FROM alert_point_pages WHERE token = ?1 ORDER BY first_seq",
        )
        .bind(token.0)
        .fetch_all(&mut raw)
        .await
        .unwrap();
        assert_eq!(
            rows,
            stores::one_point_pages(points),
            "each migrated point is a page of its own, its text exactly as the store writes it"
        );
    }
    let columns: Vec<String> =
        sqlx::query_scalar("SELECT name FROM pragma_table_info('alert_requests')")
            .fetch_all(&mut raw)
            .await
            .unwrap();
    assert!(
        !columns.iter().any(|c| c == "points"),
        "the JSON array column is gone: {columns:?}"
    );
    let listed = store.list_requests(KeyId(key), 10).await.unwrap();
    let mut counts: Vec<u64> = listed.iter().map(|s| s.points).collect();
    counts.sort_unstable();
    assert_eq!(counts, vec![1, 3, 450], "point counts are kept");

    let fresh = enqueue_jobs(&store, KeyId(key), 1, t0()).await;
    assert_eq!(
        store.points_page(fresh[0], 0, 10).await.unwrap().len(),
        1,
        "requests stored after the migration read too"
    );
}

#[tokio::test]
async fn deleting_a_request_deletes_its_points() {
    let file = FileStore::new().await;
    let key = crate::support::account_with_key(&file.store).await;
    let tokens = enqueue_jobs(&file.store, key, 2, t0()).await;
    let mut raw = SqliteConnection::connect_with(
        &SqliteConnectOptions::new()
            .filename(file.path())
            .foreign_keys(true),
    )
    .await
    .unwrap();
    sqlx::query("DELETE FROM alert_requests WHERE token = ?1")
        .bind(tokens[0].0)
        .execute(&mut raw)
        .await
        .unwrap();
    let left: Vec<Uuid> = sqlx::query_scalar("SELECT token FROM alert_point_pages")
        .fetch_all(&mut raw)
        .await
        .unwrap();
    assert_eq!(left, vec![tokens[1].0], "the points go with their request");
    assert!(matches!(
        file.store.points_page(tokens[0], 0, 10).await,
        Err(alerts_core::ports::StoreError::NotFound)
    ));
}

#[tokio::test]
async fn deleting_an_account_deletes_its_keys_test_deliveries() {
    let file = FileStore::new().await;
    let key = crate::support::account_with_key(&file.store).await;
    let other = crate::support::account_with_key(&file.store).await;
    for k in [key, other] {
        file.store
            .record_test(&TestDelivery {
                token: Token(Uuid::new_v4()),
                key: k,
                at: t0(),
                url: "https://hooks.example.org/in".to_owned(),
                status: Some(204),
                latency_ms: 12,
                error: None,
            })
            .await
            .unwrap();
    }
    let mut raw = SqliteConnection::connect_with(
        &SqliteConnectOptions::new()
            .filename(file.path())
            .foreign_keys(true),
    )
    .await
    .unwrap();
    sqlx::query("DELETE FROM accounts WHERE id = (SELECT account_id FROM api_keys WHERE id = ?1)")
        .bind(key.0)
        .execute(&mut raw)
        .await
        .expect("a key's test deliveries do not hold its account back");
    let left: Vec<Uuid> = sqlx::query_scalar("SELECT key_id FROM test_deliveries")
        .fetch_all(&mut raw)
        .await
        .unwrap();
    assert_eq!(left, vec![other.0], "the tests go with their key");
    assert!(file.store.list_tests(key, 10).await.unwrap().is_empty());
}
