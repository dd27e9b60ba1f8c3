//! A PostgreSQL database of a test's own, for the store and scale-out tests.

use std::time::Duration;

use sqlx::{Connection, PgConnection};

/// The variable naming the server the tests use: a URL whose user may create databases,
/// naming a database that exists (used only to create and drop the tests' own).
pub const POSTGRES_URL: &str = "INSIGHTS_TEST_POSTGRES_URL";

/// The server when [`POSTGRES_URL`] is not set: the local one, trust authentication.
const DEFAULT_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

fn admin_url() -> String {
    std::env::var(POSTGRES_URL).unwrap_or_else(|_| DEFAULT_URL.to_owned())
}

/// `url` with its database replaced by `database`, keeping any query.
///
/// ```
/// use test_support::postgres::with_database;
///
/// assert_eq!(
///     with_database("postgres://postgres@127.0.0.1:5432/postgres", "t1"),
///     "postgres://postgres@127.0.0.1:5432/t1"
/// );
/// assert_eq!(
///     with_database("postgres://u:p@h/db?sslmode=disable", "t1"),
///     "postgres://u:p@h/t1?sslmode=disable"
/// );
/// assert_eq!(with_database("postgres://h", "t1"), "postgres://h/t1");
/// ```
#[must_use]
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, String::new()), |(b, q)| (b, format!("?{q}")));
    let server_end = base
        .find("://")
        .map(|i| i + 3)
        .and_then(|from| base[from..].find('/').map(|j| from + j))
        .unwrap_or(base.len());
    format!("{}/{database}{query}", &base[..server_end])
}

/// A database of the test's own, dropped when the value is dropped (also while a failing
/// test unwinds).
#[derive(Debug)]
pub struct TestDb {
    admin: String,
    name: String,
    /// The URL of the test's database.
    pub url: String,
}

impl TestDb {
    /// A new, empty database, or `None` when PostgreSQL is absent and the test is to skip
    /// (see [`crate::absent`]).
    ///
    /// # Panics
    /// When the server answers but the database cannot be created.
    pub async fn create() -> Option<Self> {
        let admin = admin_url();
        let mut conn = match PgConnection::connect(&admin).await {
            Ok(conn) => conn,
            Err(e) => {
                return crate::absent(
                    &format!("PostgreSQL at {admin} ({e})"),
                    &format!(
                        "start a server whose user may create databases (the local one: \
                         `pg_ctlcluster <version> main start`), or set {POSTGRES_URL} to one"
                    ),
                );
            }
        };
        let name = format!("insights_test_{}", uuid::Uuid::new_v4().simple());
        // Databases are copied from template1, which allows one copy at a time: tests running
        // in parallel retry for a moment.
        let mut tries = 0;
        loop {
            let sql = format!("CREATE DATABASE {name}");
            match sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut conn)
                .await
            {
                Ok(_) => break,
                Err(_) if tries < 100 => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("cannot create the test database {name}: {e}"),
            }
        }
        let url = with_database(&admin, &name);
        Some(Self { admin, name, url })
    }

    /// Drops the database now, cutting off whoever is connected, as an outage would.
    ///
    /// # Panics
    /// When the server refuses.
    pub async fn drop_now(&self) {
        let mut conn = PgConnection::connect(&self.admin)
            .await
            .expect("a connection to the admin database");
        let sql = format!("DROP DATABASE {} WITH (FORCE)", self.name);
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await
            .expect("the database dropped");
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let admin = self.admin.clone();
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
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
                sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
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
