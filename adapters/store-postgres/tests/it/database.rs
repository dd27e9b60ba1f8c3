//! Start-up, migrations, schemas, stored forms, damaged data and connection errors.

use std::time::Duration;

use alerts_core::conformance::stores;
use alerts_core::ids::{RuleId, Token};
use alerts_core::ports::{DeliveryLog, JobQueue, RuleStore, StoreError, TestDelivery};
use alerts_core::request::AlertPoint;
use alerts_core::rule::{AlertRule, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use identity_core::ids::KeyId;
use identity_core::ports::AccountStore;
use sqlx::Connection;
use store_postgres::{PgOptions, PgStore};
use uuid::Uuid;

use crate::support::{MIGRATIONS, OnTestDb as _, TestDb, account_with_key, enqueue_jobs, t0};

#[tokio::test]
async fn migrations_apply_once_whatever_the_number_of_starts() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    // Replicas starting together: the migrator's advisory lock makes them take turns.
    let (a, b, c) = tokio::join!(db.store(), db.store(), db.store());
    let key = account_with_key(&a).await;
    assert!(b.key_info(key).await.unwrap().is_some());
    assert!(c.key_info(key).await.unwrap().is_some());
    let applied: Vec<(i64, bool)> =
        sqlx::query_as("SELECT version, success FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&mut db.raw().await)
            .await
            .unwrap();
    assert_eq!(
        applied,
        MIGRATIONS
            .iter()
            .map(|m| (m.version, true))
            .collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn schemas_keep_stores_apart() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let blue = PgStore::open(PgOptions::new(&db.url).schema("blue"))
        .await
        .unwrap();
    let green = PgStore::open(PgOptions::new(&db.url).schema("green"))
        .await
        .unwrap();
    let key = account_with_key(&blue).await;
    enqueue_jobs(&blue, key, 3, t0()).await;
    assert!(green.key_info(key).await.unwrap().is_none());
    let later = t0() + chrono::Duration::hours(1);
    let claimed = stores::claim(&green, later, 10, "claim in another schema").await;
    assert!(
        claimed.is_empty(),
        "a store sees only its own schema's jobs"
    );
    let tables: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM information_schema.tables \
         WHERE table_schema = 'public' AND table_name = 'alert_jobs'",
    )
    .fetch_one(&mut db.raw().await)
    .await
    .unwrap();
    assert_eq!(
        tables, 0,
        "nothing is created in public when a schema is chosen"
    );
}

#[tokio::test]
async fn a_bad_schema_name_is_refused_before_connecting() {
    let err = PgStore::open(PgOptions::new("postgres://127.0.0.1:1/none").schema("Robert'); --"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, StoreError::Unavailable(m) if m.contains("schema name")),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_unreachable_server_is_unavailable_with_advice() {
    let err = PgStore::open(
        PgOptions::new("postgres://nobody:secret-pw@127.0.0.1:1/insights")
            .acquire_timeout(Duration::from_secs(2)),
    )
    .await
    .unwrap_err();
    let StoreError::Unavailable(msg) = err else {
        panic!("expected Unavailable, got {err:?}");
    };
    assert!(
        msg.contains("127.0.0.1:1/insights"),
        "names the server: {msg}"
    );
    assert!(
        msg.contains("check that the server runs"),
        "says what to do: {msg}"
    );
    assert!(
        !msg.contains("secret-pw"),
        "never shows the password: {msg}"
    );
}

#[tokio::test]
async fn a_malformed_url_is_unavailable_with_the_expected_form() {
    let err = PgStore::connect("mysql://x").await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Unavailable(m) if m.contains("postgres://")),
        "{err:?}"
    );
}

#[tokio::test]
async fn stored_forms_and_tampered_data() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    let key = account_with_key(&store).await;
    let hash: String = sqlx::query_scalar("SELECT key_hash FROM api_keys")
        .fetch_one(&mut db.raw().await)
        .await
        .unwrap();
    assert_eq!(hash.len(), 64, "key hashes are stored as hex");
    assert!(
        hash.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );

    let rule = AlertRule {
        id: RuleId(Uuid::new_v4()),
        key_id: key,
        spec: RuleSpec::new(
            DataType::Pollen,
            Forecast::Today,
            Sensitivity::High,
            MessageSpec::Default,
        )
        .unwrap(),
        enabled: true,
        created_at: t0(),
    };
    store.add_rule(&rule).await.unwrap();
    let forecast: String = sqlx::query_scalar("SELECT spec->>'forecast' FROM alert_rules")
        .fetch_one(&mut db.raw().await)
        .await
        .unwrap();
    assert_eq!(forecast, "today", "rules are stored as JSON");

    // Air quality does not look at "today": valid JSON, but not a rule the dashboard allows.
    sqlx::query("UPDATE alert_rules SET spec = jsonb_set(spec, '{type}', '\"aq\"')")
        .execute(&mut db.raw().await)
        .await
        .unwrap();
    let err = store.list_rules(key).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Corrupt(m) if m.contains(&rule.id.to_string())),
        "a stored rule that fails validation is Corrupt and named: {err:?}"
    );
    assert!(matches!(
        store.key_config(key, t0()).await,
        Err(StoreError::Corrupt(_))
    ));

    let tokens = enqueue_jobs(&store, key, 1, t0()).await;
    sqlx::query("UPDATE alert_point_pages SET points = '[{\"position\": [200, 0]}]'")
        .execute(&mut db.raw().await)
        .await
        .unwrap();
    let err = store.points_page(tokens[0], 0, 10).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Corrupt(m) if m.contains(&format!("page at point 0 of request {}", tokens[0]))),
        "a stored point that cannot be read is Corrupt and named: {err:?}"
    );
}

#[tokio::test]
async fn a_closed_store_is_unavailable() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    store.close().await;
    assert!(matches!(
        store.ping().await,
        Err(StoreError::Unavailable(_))
    ));
}

/// Points whose `custom_data` and ids carry escapes, spacing and number spellings that a
/// migration must not touch: the conformance suites' own.
fn awkward_points(n: usize) -> Vec<AlertPoint> {
    alerts_core::conformance::stores::awkward_points("old", n)
}

#[tokio::test]
async fn points_stored_in_a_json_column_are_kept_as_written_through_every_migration() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let mut conn = db.raw().await;
    sqlx::migrate!("./migrations")
        .run_to(3, &mut conn)
        .await
        .unwrap();

    // A key and its requests as a server before the migration stored them: the points as one
    // JSON array in alert_requests.points.
    let (account, key) = (Uuid::new_v4(), Uuid::new_v4());
    sqlx::query(
        "INSERT INTO accounts (id, email, password_hash, created_at) \
         VALUES ($1, 'old@example.com', 'x', $2)",
    )
    .bind(account)
    .bind(t0())
    .execute(&mut conn)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO api_keys (id, account_id, label, prefix, key_hash, created_at) \
         VALUES ($1, $2, 'old', 'ik_00000000', $3, $4)",
    )
    .bind(key)
    .bind(account)
    .bind("0".repeat(64))
    .bind(t0())
    .execute(&mut conn)
    .await
    .unwrap();
    let requests: Vec<(Token, Vec<AlertPoint>)> = [1, 3, 450]
        .into_iter()
        .map(|n| (Token(Uuid::new_v4()), awkward_points(n)))
        .collect();
    for (i, (token, points)) in requests.iter().enumerate() {
        let received = t0() + chrono::Duration::seconds(i64::try_from(i).unwrap());
        sqlx::query(
            "INSERT INTO alert_requests (token, key_id, points, point_count, received_at) \
             VALUES ($1, $2, $3::json, $4, $5)",
        )
        .bind(token.0)
        .bind(key)
        .bind(serde_json::to_string(points).unwrap())
        .bind(i64::try_from(points.len()).unwrap())
        .bind(received)
        .execute(&mut conn)
        .await
        .unwrap();
        sqlx::query("INSERT INTO alert_jobs (token, stage, run_at) VALUES ($1, 'evaluate', $2)")
            .bind(token.0)
            .bind(received)
            .execute(&mut conn)
            .await
            .unwrap();
    }
    conn.close().await.unwrap();

    let store = db.store().await;
    let mut raw = db.raw().await;
    for (token, points) in &requests {
        let read = stores::read_points(&store, *token, 7).await.unwrap();
        assert_eq!(&read, points, "a migrated request reads as it was posted");
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT points FROM alert_point_pages WHERE token = $1 ORDER BY first_seq",
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
    let points_column: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM information_schema.columns \
         WHERE table_schema = 'public' AND table_name = 'alert_requests' AND column_name = 'points'",
    )
    .fetch_one(&mut raw)
    .await
    .unwrap();
    assert_eq!(points_column, 0, "the JSON array column is gone");
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
async fn points_are_stored_as_text_and_go_with_their_request() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    let key = account_with_key(&store).await;
    let tokens = enqueue_jobs(&store, key, 2, t0()).await;
    let mut raw = db.raw().await;
    let kind: String = sqlx::query_scalar(
        "SELECT data_type FROM information_schema.columns \
         WHERE table_name = 'alert_point_pages' AND column_name = 'points'",
    )
    .fetch_one(&mut raw)
    .await
    .unwrap();
    assert_eq!(
        kind, "text",
        "text keeps the points as written; jsonb would not"
    );
    sqlx::query("DELETE FROM alert_requests WHERE token = $1")
        .bind(tokens[0].0)
        .execute(&mut raw)
        .await
        .unwrap();
    let left: Vec<Uuid> = sqlx::query_scalar("SELECT DISTINCT token FROM alert_point_pages")
        .fetch_all(&mut raw)
        .await
        .unwrap();
    assert_eq!(left, vec![tokens[1].0], "the points go with their request");
    assert!(matches!(
        store.points_page(tokens[0], 0, 10).await,
        Err(StoreError::NotFound)
    ));
}

#[tokio::test]
async fn a_keys_test_deliveries_go_with_its_account() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    let key = account_with_key(&store).await;
    let other = account_with_key(&store).await;
    for k in [key, other] {
        store
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
    let mut raw = db.raw().await;
    sqlx::query("DELETE FROM accounts WHERE id = (SELECT account_id FROM api_keys WHERE id = $1)")
        .bind(key.0)
        .execute(&mut raw)
        .await
        .expect("a key's test deliveries do not hold its account back");
    let left: Vec<Uuid> = sqlx::query_scalar("SELECT key_id FROM test_deliveries")
        .fetch_all(&mut raw)
        .await
        .unwrap();
    assert_eq!(left, vec![other.0], "the tests go with their key");
    assert!(store.list_tests(key, 10).await.unwrap().is_empty());
}
