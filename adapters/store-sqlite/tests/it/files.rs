//! Start-up, migrations, durability, concurrent stores on one file, and damaged data.

use std::collections::HashMap;
use std::time::Duration;

use alerts_core::conformance::stores;
use alerts_core::ids::{RuleId, Token};
use alerts_core::ports::{ClaimLimits, JobOutcome, JobQueue, JobUpdate, RuleStore, StoreError};
use alerts_core::rule::{AlertRule, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use identity_core::ids::KeyId;
use identity_core::ports::{AccountStore, KeyAuthenticator};
use sqlx::Connection;
use store_sqlite::{SqliteOptions, SqliteStore};
use uuid::Uuid;

use crate::support::{FileStore, MIGRATIONS, account_with_key, enqueue_jobs, t0};

#[tokio::test]
async fn open_creates_missing_directories_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a").join("b").join("state.db");
    let store = SqliteStore::open(SqliteOptions::file(&path)).await.unwrap();
    store.ping().await.unwrap();
    assert!(path.is_file(), "the database file is created");
}

#[tokio::test]
async fn open_names_the_path_when_it_cannot_create_it() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("not-a-dir");
    std::fs::write(&blocker, b"a file where a directory should be").unwrap();
    let path = blocker.join("state.db");
    let err = SqliteStore::open(SqliteOptions::file(&path))
        .await
        .unwrap_err();
    match err {
        StoreError::Unavailable(msg) => {
            assert!(
                msg.contains("not-a-dir"),
                "the message names the path: {msg}"
            );
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
}

#[tokio::test]
async fn reopening_applies_no_migration_twice_and_keeps_the_data() {
    let file = FileStore::new().await;
    let key = account_with_key(&file.store).await;
    let tokens = enqueue_jobs(&file.store, key, 3, t0()).await;
    file.store.close().await;

    for _ in 0..2 {
        let store = SqliteStore::open(SqliteOptions::file(file.path()))
            .await
            .unwrap();
        assert!(store.key_info(key).await.unwrap().is_some());
        assert_eq!(store.points_page(tokens[2], 0, 10).await.unwrap().len(), 1);
        store.close().await;
    }
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", file.path().display()))
        .await
        .unwrap();
    let applied: Vec<(i64, bool)> =
        sqlx::query_as("SELECT version, success FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    assert_eq!(
        applied,
        MIGRATIONS
            .iter()
            .map(|m| (m.version, true))
            .collect::<Vec<_>>(),
        "each migration is recorded once"
    );
    let journal: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(journal, "wal", "the database is in WAL mode");
}

#[tokio::test]
async fn an_acknowledged_enqueue_survives_the_store_being_dropped_without_closing() {
    // What a crash leaves: the pool is dropped without a clean close. WAL with synchronous=FULL
    // has the request on disk once enqueue returned.
    let dir = tempfile::tempdir().unwrap();
    let path = FileStore::path_in(&dir);
    let (key, tokens) = {
        let store = SqliteStore::open(SqliteOptions::file(&path)).await.unwrap();
        let key = account_with_key(&store).await;
        let tokens = enqueue_jobs(&store, key, 5, t0()).await;
        drop(store);
        (key, tokens)
    };
    let store = SqliteStore::open(SqliteOptions::file(&path)).await.unwrap();
    let later = t0() + chrono::Duration::hours(1);
    let jobs = stores::claim(&store, later, 10, "claim after reopening").await;
    let claimed: Vec<Token> = jobs.iter().map(|j| j.token).collect();
    assert_eq!(
        claimed, tokens,
        "every acknowledged request is there, oldest first"
    );
    assert!(jobs.iter().all(|j| j.key_id == key));
}

#[tokio::test]
async fn two_stores_on_one_file_never_claim_the_same_job() {
    // Two stores are two connection pools, as two server processes sharing a data directory
    // would have: BEGIN IMMEDIATE serialises their claims through the file lock.
    const JOBS: usize = 300;
    let file = FileStore::new().await;
    let key = account_with_key(&file.store).await;
    let tokens = enqueue_jobs(&file.store, key, JOBS, t0()).await;
    let second = SqliteStore::open(SqliteOptions::file(file.path()))
        .await
        .unwrap();
    let now = t0() + chrono::Duration::hours(1);
    let mut workers = Vec::new();
    for (i, store) in [
        file.store.clone(),
        second,
        file.store.clone(),
        file.store.clone(),
    ]
    .into_iter()
    .enumerate()
    {
        workers.push(tokio::spawn(async move {
            let mut done = Vec::new();
            loop {
                let jobs = store
                    .claim(
                        now,
                        Duration::from_secs(600),
                        ClaimLimits::up_to(7),
                        &Uuid::new_v4,
                    )
                    .await
                    .unwrap();
                if jobs.is_empty() {
                    return (i, done);
                }
                for job in jobs {
                    store
                        .update(
                            job.token,
                            &job.lease,
                            JobUpdate::Finish {
                                outcome: JobOutcome::Delivered,
                                attempts: 1,
                            },
                        )
                        .await
                        .unwrap();
                    done.push(job.token);
                }
            }
        }));
    }
    let mut count: HashMap<Token, usize> = HashMap::new();
    for worker in workers {
        let (_, done) = worker.await.unwrap();
        for token in done {
            *count.entry(token).or_default() += 1;
        }
    }
    assert_eq!(count.len(), JOBS, "every job was done");
    assert!(count.values().all(|n| *n == 1), "no job was done twice");
    assert!(tokens.iter().all(|t| count.contains_key(t)));
}

async fn raw(file: &FileStore) -> sqlx::SqliteConnection {
    sqlx::SqliteConnection::connect(&format!("sqlite://{}", file.path().display()))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_tampered_rule_is_reported_as_corrupt() {
    let file = FileStore::new().await;
    let key = account_with_key(&file.store).await;
    let rule = AlertRule {
        id: RuleId(Uuid::new_v4()),
        key_id: key,
        spec: RuleSpec::new(
            DataType::Aq,
            Forecast::Hours(6),
            Sensitivity::Low,
            MessageSpec::Default,
        )
        .unwrap(),
        enabled: true,
        created_at: t0(),
    };
    file.store.add_rule(&rule).await.unwrap();
    let stored: String = sqlx::query_scalar("SELECT spec FROM alert_rules")
        .fetch_one(&mut raw(&file).await)
        .await
        .unwrap();
    assert!(
        stored.contains(r#""forecast":"6h""#),
        "rules are stored as JSON: {stored}"
    );

    // Pollen does not look hours ahead: valid JSON, but not a rule the dashboard allows.
    sqlx::query("UPDATE alert_rules SET spec = replace(spec, '\"aq\"', '\"pollen\"')")
        .execute(&mut raw(&file).await)
        .await
        .unwrap();
    let err = file.store.list_rules(key).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Corrupt(msg) if msg.contains(&rule.id.to_string())),
        "a stored rule that fails validation is Corrupt and named: {err:?}"
    );
    assert!(matches!(
        file.store.key_config(key, t0()).await,
        Err(StoreError::Corrupt(_))
    ));
}

#[tokio::test]
async fn key_hashes_are_stored_as_hex_and_tampered_points_are_corrupt() {
    let file = FileStore::new().await;
    let key: KeyId = account_with_key(&file.store).await;
    let hash: String = sqlx::query_scalar("SELECT key_hash FROM api_keys")
        .fetch_one(&mut raw(&file).await)
        .await
        .unwrap();
    assert_eq!(hash.len(), 64);
    assert!(
        hash.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );

    let tokens = enqueue_jobs(&file.store, key, 1, t0()).await;
    sqlx::query("UPDATE alert_point_pages SET points = '[{\"position\":[0,95]}]'")
        .execute(&mut raw(&file).await)
        .await
        .unwrap();
    let err = file.store.points_page(tokens[0], 0, 10).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Corrupt(m) if m.contains(&format!("page at point 0 of request {}", tokens[0]))),
        "a stored point that cannot be read is Corrupt and named: {err:?}"
    );
}

#[tokio::test]
async fn a_closed_store_is_unavailable() {
    let file = FileStore::new().await;
    file.store.close().await;
    assert!(matches!(
        file.store.ping().await,
        Err(StoreError::Unavailable(_))
    ));
    assert!(matches!(
        file.store
            .authenticate(&identity_core::keys::KeyHash([0; 32]), t0())
            .await,
        Err(StoreError::Unavailable(_))
    ));
}

#[tokio::test]
async fn a_request_that_cannot_be_stored_fails_alone_among_requests_stored_together() {
    use alerts_core::ports::NewAlertRequest;
    use alerts_core::request::AlertPoint;

    let file = FileStore::new().await;
    let key = account_with_key(&file.store).await;
    let request = |key: KeyId| NewAlertRequest {
        token: Token(Uuid::new_v4()),
        key_id: key,
        points: vec![AlertPoint {
            position: aq_core::Position::new(13.4, 52.5).unwrap(),
            id: "p".to_owned(),
            custom_data: "{}".to_owned(),
        }],
        received_at: t0(),
    };
    // Small requests posted at once are written together; one of them names a key the
    // database does not have, which no transaction can store.
    let mut requests: Vec<NewAlertRequest> = (0..20).map(|_| request(key)).collect();
    requests.insert(10, request(KeyId(Uuid::new_v4())));
    let stored = futures::future::join_all(requests.iter().map(|r| file.store.enqueue(r))).await;
    for (i, stored) in stored.into_iter().enumerate() {
        if i == 10 {
            assert_eq!(stored, Err(StoreError::NotFound), "the request of no key");
        } else {
            assert!(stored.is_ok(), "request {i}: {stored:?}");
        }
    }
    assert_eq!(
        file.store.counts(t0()).await.unwrap().waiting,
        20,
        "every other request has its job"
    );
}
