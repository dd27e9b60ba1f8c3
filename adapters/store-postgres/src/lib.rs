//! The scale-out store: accounts, API keys, alert rules, alert requests with their job queue,
//! the delivery log and what once-per-change rules told, on PostgreSQL. It implements the
//! `alerts-core` ports [`RuleStore`](alerts_core::ports::RuleStore), [`AccountStore`](identity_core::ports::AccountStore),
//! [`JobQueue`](alerts_core::ports::JobQueue), [`DeliveryLog`](alerts_core::ports::DeliveryLog),
//! [`SentChanges`](alerts_core::ports::SentChanges) and
//! [`SessionStore`](identity_core::ports::SessionStore), and passes their conformance suite.
//! It also keeps the rate limits every replica shares
//! ([`LimitStore`](identity_core::ports::LimitStore), `limits.rs`): one unlogged row per
//! limited key, updated by one upsert per request.
//!
//! The ports' statements are the ones both SQL stores share, written once in `store-sql` (in
//! this database's spelling where the two differ), and run by the port implementations its
//! `sql_store!` expands here; this crate holds how the database is opened, its migrations, and
//! what PostgreSQL does its own way (`dialect.rs`, the `SqlDialect` trait).
//!
//! Any number of replicas share one database: workers claim jobs with
//! `SELECT ... FOR UPDATE SKIP LOCKED`, so concurrent claimers never wait for one another nor
//! get the same job, and a job whose lease expired (its worker died) is claimed again. No
//! transaction is held across anything outside the database. Idle workers wait for
//! `LISTEN/NOTIFY`: a job stored by any replica wakes them all.
//!
//! The schema is created and upgraded by the migrations in `migrations/`, embedded in the
//! binary and applied by [`PgStore::open`]; replicas starting together take turns (an advisory
//! lock), and applied migrations are skipped.
//!
//! ```no_run
//! # async fn demo() -> Result<(), alerts_core::ports::StoreError> {
//! use store_postgres::{PgOptions, PgStore};
//!
//! let store = PgStore::open(
//!     PgOptions::new("postgres://insights@db.internal/insights")
//!         .schema("alerts")
//!         .max_connections(16),
//! )
//! .await?;
//! store.ping().await?;
//! # Ok(()) }
//! ```

mod arrivals;
mod dialect;
mod limits;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use alerts_core::ports::StoreError;
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use store_sql::InProcess;

/// The migrations of this crate's schema, embedded at compile time.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// The longest schema name PostgreSQL keeps (longer ones are cut, which would be a surprise).
const MAX_SCHEMA_LEN: usize = 63;

/// How to connect a [`PgStore`].
///
/// ```
/// use std::time::Duration;
/// use store_postgres::PgOptions;
///
/// let options = PgOptions::new("postgres://insights@127.0.0.1/insights")
///     .schema("alerts_staging")
///     .max_connections(8)
///     .acquire_timeout(Duration::from_secs(3));
/// assert_eq!(options.schema_name(), Some("alerts_staging"));
/// ```
#[derive(Debug, Clone)]
pub struct PgOptions {
    url: String,
    schema: Option<String>,
    max_connections: u32,
    acquire_timeout: Duration,
}

impl PgOptions {
    /// A connection URL such as `postgres://user:password@host:5432/database`, with the
    /// defaults: the `public` schema, 10 connections, and a 10 s wait for a free connection.
    #[must_use]
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            schema: None,
            max_connections: 10,
            acquire_timeout: Duration::from_secs(10),
        }
    }

    /// Keeps every table in this schema (created when missing) rather than in `public`: to
    /// share a database with other applications, or to isolate tests. A lower-case SQL
    /// identifier: letters, digits and `_`, starting with a letter or `_`, at most 63 bytes.
    #[must_use]
    pub fn schema(mut self, name: impl Into<String>) -> Self {
        self.schema = Some(name.into());
        self
    }

    /// The schema chosen with [`PgOptions::schema`].
    #[must_use]
    pub fn schema_name(&self) -> Option<&str> {
        self.schema.as_deref()
    }

    /// The most connections this store opens (at least 1).
    #[must_use]
    pub fn max_connections(mut self, n: u32) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// How long an operation waits for a free connection before it fails with
    /// [`StoreError::Unavailable`].
    #[must_use]
    pub fn acquire_timeout(mut self, timeout: Duration) -> Self {
        self.acquire_timeout = timeout;
        self
    }
}

/// The scale-out store. Cheap to clone: clones share one connection pool.
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
    /// What the store keeps in the process, shared by clones.
    in_process: Arc<InProcess>,
}

impl PgStore {
    /// Connects with the default options; see [`PgStore::open`].
    ///
    /// # Errors
    /// As [`PgStore::open`].
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::open(PgOptions::new(url)).await
    }

    /// Connects, creates the schema when one is chosen and missing, and applies the
    /// migrations the database lacks.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the URL is malformed, the server cannot be reached or
    /// refuses the login, the schema name is not allowed, or a migration fails; the message
    /// says what to check. The password in the URL is never part of a message.
    pub async fn open(options: PgOptions) -> Result<Self, StoreError> {
        let bad_url = |why: String| {
            StoreError::Unavailable(format!(
                "the database URL is not valid ({why}); expected \
                 postgres://user:password@host:port/database"
            ))
        };
        if !(options.url.starts_with("postgres://") || options.url.starts_with("postgresql://")) {
            return Err(bad_url("it does not start with postgres://".to_owned()));
        }
        let mut connect =
            PgConnectOptions::from_str(&options.url).map_err(|e| bad_url(e.to_string()))?;
        let target = format!(
            "PostgreSQL at {}:{}/{}",
            connect.get_host(),
            connect.get_port(),
            connect.get_database().unwrap_or("(default database)")
        );
        if let Some(schema) = &options.schema {
            check_schema_name(schema)?;
            // A start-up parameter, so every connection of the pool uses the schema, also
            // those opened after a server restart.
            connect = connect.options([("search_path", schema.as_str())]);
        }
        let pool = PgPoolOptions::new()
            .max_connections(options.max_connections)
            .acquire_timeout(options.acquire_timeout)
            .connect_with(connect)
            .await
            .map_err(|e| {
                StoreError::Unavailable(format!(
                    "cannot connect to {target}: {e}; check that the server runs, the URL's \
                     host, port, user, password and database, and that the database exists"
                ))
            })?;
        if let Some(schema) = &options.schema {
            // The name was checked above to be a plain identifier, so quoting it is enough.
            let create = format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\"");
            sqlx::raw_sql(sqlx::AssertSqlSafe(create))
                .execute(&pool)
                .await
                .map_err(|e| {
                    StoreError::Unavailable(format!(
                        "cannot create the schema {schema} on {target}: {e}; create it, or \
                         grant the user CREATE on the database"
                    ))
                })?;
        }
        MIGRATOR.run(&pool).await.map_err(|e| {
            store_sql::migrate_error(
                &target,
                &e,
                "check that the user may create tables in the database (or schema)",
            )
        })?;
        Ok(Self {
            pool,
            in_process: Arc::default(),
        })
    }
}

// The ports, `ping` and `close`, in the SQL both stores share.
store_sql::sql_store!(PgStore, postgres);

fn check_schema_name(name: &str) -> Result<(), StoreError> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
    let rest_ok = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if first_ok && rest_ok && name.len() <= MAX_SCHEMA_LEN {
        Ok(())
    } else {
        Err(StoreError::Unavailable(format!(
            "the schema name `{name}` is not allowed: use lower-case letters, digits and `_`, \
             starting with a letter or `_`, at most {MAX_SCHEMA_LEN} characters"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_are_plain_identifiers() {
        for good in ["alerts", "_t", "insights_test_0a1b", &"s".repeat(63)] {
            assert!(check_schema_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "Alerts",
            "1abc",
            "a-b",
            "a b",
            "x\"; DROP TABLE accounts; --",
            &"s".repeat(64),
        ] {
            assert!(check_schema_name(bad).is_err(), "{bad}");
        }
    }
}
