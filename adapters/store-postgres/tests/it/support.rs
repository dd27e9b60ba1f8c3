//! Test databases and fixtures.

use alerts_core::ids::{AccountId, KeyId, Token};
use alerts_core::keys::{ApiKey, WebhookSecret};
use alerts_core::ports::{Account, AccountStore, JobQueue, NewAlertRequest, NewApiKey};
use alerts_core::randomness::SeededRandomness;
use alerts_core::request::AlertPoint;

use chrono::{DateTime, TimeZone, Utc};
use sqlx::{Connection, PgConnection};
use store_postgres::{PgOptions, PgStore};
use uuid::Uuid;

/// Where the tests find PostgreSQL: a URL whose user may create databases, naming a database
/// that exists (it is only used to create and drop the tests' own).
fn admin_url() -> String {
    std::env::var("INSIGHTS_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// `url` with its database replaced by `database`.
fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let server = match base[after_scheme..].find('/') {
        Some(i) => &base[..after_scheme + i],
        None => base,
    };
    format!("{server}/{database}{query}")
}

/// A connection to the admin database, or `None` (after saying why) when the test is to skip.
async fn admin_connection(admin: &str) -> Option<PgConnection> {
    match PgConnection::connect(admin).await {
        Ok(conn) => Some(conn),
        Err(e) => test_support::absent(
            &format!("PostgreSQL at {admin} ({e})"),
            "these tests need a running server whose user may create databases: start the \
             local one (`pg_ctlcluster <version> main start`), or set \
             INSIGHTS_TEST_POSTGRES_URL to such a server",
        ),
    }
}

/// A database of the test's own, dropped when the value is dropped (also while a failing
/// test unwinds).
pub(crate) struct TestDb {
    admin: String,
    name: String,
    pub(crate) url: String,
}

impl TestDb {
    /// A new database, or `None` when PostgreSQL is absent and the test is to skip.
    pub(crate) async fn create() -> Option<Self> {
        let admin = admin_url();
        let mut conn = admin_connection(&admin).await?;
        let name = format!("insights_test_{}", Uuid::new_v4().simple());
        // Databases are copied from template1, which allows one copy at a time: tests running
        // in parallel retry for a moment.
        let mut tries = 0;
        loop {
            let created = sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&mut conn)
                .await;
            match created {
                Ok(_) => break,
                Err(_) if tries < 50 => {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
                Err(e) => panic!("cannot create the test database {name}: {e}"),
            }
        }
        let url = with_database(&admin, &name);
        Some(Self { admin, name, url })
    }

    pub(crate) async fn store(&self) -> PgStore {
        PgStore::open(PgOptions::new(&self.url)).await.unwrap()
    }

    pub(crate) async fn raw(&self) -> PgConnection {
        PgConnection::connect(&self.url).await.unwrap()
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let admin = self.admin.clone();
        let drop_sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        // Drop runs inside the test's runtime, which cannot be blocked on: use a thread with a
        // runtime of its own, and wait for it so the database is gone when the test ends.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            runtime.block_on(async {
                let mut conn = PgConnection::connect(&admin)
                    .await
                    .map_err(|e| e.to_string())?;
                sqlx::raw_sql(sqlx::AssertSqlSafe(drop_sql))
                    .execute(&mut conn)
                    .await
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!(
                "could not drop the test database {}: {dropped:?}",
                self.name
            );
        }
    }
}

pub(crate) fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

/// An account with one key, stored; returns the key's id.
pub(crate) async fn account_with_key(store: &impl AccountStore) -> KeyId {
    let rng = SeededRandomness::default();
    let account = Account {
        id: AccountId(Uuid::new_v4()),
        email: format!("{}@example.com", Uuid::new_v4().simple()),
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".to_owned(),
        created_at: t0(),
    };
    store.create_account(&account).await.unwrap();
    let key = ApiKey::generate(&rng);
    let new = NewApiKey {
        id: KeyId(Uuid::new_v4()),
        account_id: account.id,
        label: "test".to_owned(),
        prefix: key.prefix().to_owned(),
        hash: key.hash(),
        secret: WebhookSecret::generate(&rng),
        created_at: t0(),
    };
    store.create_key(&new).await.unwrap();
    new.id
}

/// Enqueues `n` one-point requests received at `from`, one millisecond apart.
pub(crate) async fn enqueue_jobs(
    store: &impl JobQueue,
    key: KeyId,
    n: usize,
    from: DateTime<Utc>,
) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(n);
    for i in 0..n {
        let token = Token(Uuid::new_v4());
        let request = NewAlertRequest {
            token,
            key_id: key,
            points: vec![AlertPoint {
                position: aq_core::Position::new(-74.0, 40.7).unwrap(),
                id: format!("p{i}"),
                custom_data: "{}".to_owned(),
            }],
            received_at: from + chrono::Duration::milliseconds(i64::try_from(i).unwrap()),
        };
        store.enqueue(&request).await.unwrap();
        tokens.push(token);
    }
    tokens
}

#[test]
fn database_names_replace_the_url_path() {
    assert_eq!(
        with_database("postgres://postgres@127.0.0.1:5432/postgres", "t1"),
        "postgres://postgres@127.0.0.1:5432/t1"
    );
    assert_eq!(
        with_database("postgres://u:p@h/db?sslmode=disable", "t1"),
        "postgres://u:p@h/t1?sslmode=disable"
    );
    assert_eq!(with_database("postgres://h", "t1"), "postgres://h/t1");
}
