//! Start-up, migrations, schemas, stored forms, damaged data and connection errors.

use std::time::Duration;

use alerts_core::ids::RuleId;
use alerts_core::ports::{AccountStore, JobQueue, RuleStore, StoreError};
use alerts_core::rule::{AlertRule, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use store_postgres::{PgOptions, PgStore};
use uuid::Uuid;

use crate::support::{TestDb, account_with_key, enqueue_jobs, t0};

#[tokio::test]
async fn migrations_apply_once_whatever_the_number_of_starts() {
    let db = TestDb::create().await;
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
    assert_eq!(applied, vec![(1, true), (2, true), (3, true)]);
}

#[tokio::test]
async fn schemas_keep_stores_apart() {
    let db = TestDb::create().await;
    let blue = PgStore::open(PgOptions::new(&db.url).schema("blue"))
        .await
        .unwrap();
    let green = PgStore::open(PgOptions::new(&db.url).schema("green"))
        .await
        .unwrap();
    let key = account_with_key(&blue).await;
    enqueue_jobs(&blue, key, 3, t0()).await;
    assert!(green.key_info(key).await.unwrap().is_none());
    let claimed = green
        .claim(
            t0() + chrono::Duration::hours(1),
            Duration::from_secs(60),
            10,
            &Uuid::new_v4,
        )
        .await
        .unwrap();
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
    let db = TestDb::create().await;
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
    sqlx::query("UPDATE alert_requests SET points = '[{\"position\": [200, 0]}]'")
        .execute(&mut db.raw().await)
        .await
        .unwrap();
    assert!(matches!(
        store.points(tokens[0]).await,
        Err(StoreError::Corrupt(_))
    ));
}

#[tokio::test]
async fn a_closed_store_is_unavailable() {
    let db = TestDb::create().await;
    let store = db.store().await;
    store.close().await;
    assert!(matches!(
        store.ping().await,
        Err(StoreError::Unavailable(_))
    ));
}
