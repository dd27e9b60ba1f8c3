//! The embedded store: accounts, API keys, alert rules, alert requests with their job queue,
//! the delivery log and what once-per-change rules told, in one SQLite file. It implements the
//! `alerts-core` ports [`RuleStore`](alerts_core::ports::RuleStore), [`AccountStore`](identity_core::ports::AccountStore),
//! [`JobQueue`](alerts_core::ports::JobQueue), [`DeliveryLog`](alerts_core::ports::DeliveryLog),
//! [`SentChanges`](alerts_core::ports::SentChanges) and
//! [`SessionStore`](identity_core::ports::SessionStore), and passes their conformance suite.
//!
//! The ports' statements are the ones both SQL stores share, written once in `store-sql` (in
//! this database's spelling where the two differ), and run by the port implementations its
//! `sql_store!` expands here; this crate holds how the database is opened, its migrations, and
//! what SQLite does its own way (`dialect.rs`, the `SqlDialect` trait).
//!
//! The database runs in WAL mode (readers never wait for the writer) with `synchronous = FULL`
//! (a request acknowledged to a client survives a power cut), foreign keys on, and a busy
//! timeout, so that concurrent writers queue rather than fail. Every write of the store goes
//! through one connection of its own: SQLite lets one writer in at a time anyway, and writers
//! queued for that connection are woken the moment the one before them commits, where writers
//! racing for the database's lock from several connections would meet SQLite's busy handler,
//! which sleeps up to 100 ms between tries (under a steady stream of small alert jobs, most of
//! each job's time). The busy timeout still covers other processes writing to the same file,
//! such as the admin commands. Every transaction that writes starts with `BEGIN IMMEDIATE`,
//! which takes the write lock up front: a transaction that read first and then tried to write
//! could otherwise fail at once with `SQLITE_BUSY`. No transaction is held across anything
//! outside the database, and the ones many callers wait behind (claims, and the batches of
//! accepted requests and settled jobs) run on a thread of their own, so that a busy runtime
//! never keeps the write lock waiting between two statements (`writer_thread.rs`).
//!
//! The schema is created and upgraded by the migrations in `migrations/`, embedded in the
//! binary and applied by [`SqliteStore::open`]; applying them again is a no-op.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use store_sqlite::{SqliteOptions, SqliteStore};
//!
//! let dir = tempfile::tempdir().unwrap();
//! // The parent directory is created when it is missing.
//! let path = dir.path().join("data").join("insights.sqlite3");
//! let store = SqliteStore::open(SqliteOptions::file(&path)).await.unwrap();
//! store.ping().await.unwrap();
//! assert!(path.exists());
//!
//! // A database for tests that lives as long as the store.
//! let scratch = SqliteStore::open(SqliteOptions::memory()).await.unwrap();
//! scratch.ping().await.unwrap();
//! # });
//! ```

mod dialect;
mod writer_thread;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use alerts_core::ports::{ArrivalHub, StoreError};
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use store_sql::InProcess;

use crate::writer_thread::WriterThread;

/// The migrations of this crate's schema, embedded at compile time.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Where the database lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqliteLocation {
    /// A database file; it and its parent directory are created when missing.
    File(PathBuf),
    /// A private in-memory database that lives as long as the store: for tests and demos.
    Memory,
}

/// How to open a [`SqliteStore`].
///
/// ```
/// use std::time::Duration;
/// use store_sqlite::{SqliteLocation, SqliteOptions};
///
/// let options = SqliteOptions::parse("sqlite:///var/lib/insights/insights.sqlite3")
///     .max_connections(8)
///     .busy_timeout(Duration::from_secs(10));
/// assert_eq!(
///     options.location(),
///     &SqliteLocation::File("/var/lib/insights/insights.sqlite3".into())
/// );
/// assert_eq!(SqliteOptions::parse("sqlite::memory:").location(), &SqliteLocation::Memory);
/// assert_eq!(
///     SqliteOptions::parse("data/insights.sqlite3").location(),
///     &SqliteLocation::File("data/insights.sqlite3".into())
/// );
/// ```
#[derive(Debug, Clone)]
pub struct SqliteOptions {
    location: SqliteLocation,
    max_connections: u32,
    busy_timeout: Duration,
    acquire_timeout: Duration,
}

impl SqliteOptions {
    /// A database file at `path`, with the default settings: 4 connections, a busy timeout
    /// of 5 s and a connection wait of 10 s.
    #[must_use]
    pub fn file(path: impl AsRef<Path>) -> Self {
        Self::at(SqliteLocation::File(path.as_ref().to_path_buf()))
    }

    /// A private in-memory database. It has a single connection, since every SQLite
    /// connection to `:memory:` would otherwise see a database of its own.
    #[must_use]
    pub fn memory() -> Self {
        Self::at(SqliteLocation::Memory)
    }

    /// Reads a location as the server's `--database-url` gives it: `sqlite::memory:`,
    /// `sqlite://<path>` (`sqlite:///abs/path` for an absolute one), `sqlite:<path>`, or a
    /// plain path.
    #[must_use]
    pub fn parse(url: &str) -> Self {
        if matches!(url, "sqlite::memory:" | ":memory:" | "sqlite://:memory:") {
            return Self::memory();
        }
        let path = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .unwrap_or(url);
        Self::file(path)
    }

    fn at(location: SqliteLocation) -> Self {
        Self {
            location,
            max_connections: 4,
            busy_timeout: Duration::from_secs(5),
            acquire_timeout: Duration::from_secs(10),
        }
    }

    /// Where the database lives.
    #[must_use]
    pub fn location(&self) -> &SqliteLocation {
        &self.location
    }

    /// The most connections the store opens for reads (at least 1); they run in parallel.
    /// Writes have one more connection of their own, whatever this says. Ignored for
    /// in-memory databases.
    #[must_use]
    pub fn max_connections(mut self, n: u32) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// How long a writer waits for another writer to finish before the operation fails with
    /// [`StoreError::Unavailable`].
    #[must_use]
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.busy_timeout = timeout;
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

/// The embedded store. Cheap to clone: clones share one connection pool.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    /// Reads.
    pool: SqlitePool,
    /// Writes: one connection, see the crate's documentation. The same pool as `pool` for an
    /// in-memory database, which has only one connection.
    writer: SqlitePool,
    /// What the store keeps in the process, shared by clones.
    in_process: Arc<InProcess>,
    /// Tells the workers of this process that jobs arrived.
    arrivals: ArrivalHub,
    /// Where the claim and the batch writers run (see `writer_thread.rs`).
    writer_thread: WriterThread,
}

impl SqliteStore {
    /// Opens (creating when missing) the database and applies the migrations it lacks.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the file or its directory cannot be created or opened,
    /// or a migration fails; the message names the path and what to check.
    pub async fn open(options: SqliteOptions) -> Result<Self, StoreError> {
        let (connect, pool_options, shared) = match &options.location {
            SqliteLocation::File(path) => {
                create_parent_dir(path)?;
                create_private_file(path)?;
                let connect = SqliteConnectOptions::new()
                    .filename(path)
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Full);
                let pool = SqlitePoolOptions::new().max_connections(options.max_connections);
                (connect, pool, false)
            }
            SqliteLocation::Memory => {
                let connect = SqliteConnectOptions::from_str("sqlite::memory:")
                    .map_err(|e| StoreError::Unavailable(format!("SQLite in memory: {e}")))?;
                // The database dies with its last connection: keep exactly one, forever.
                let pool = SqlitePoolOptions::new()
                    .max_connections(1)
                    .min_connections(1)
                    .idle_timeout(None)
                    .max_lifetime(None);
                (connect, pool, true)
            }
        };
        let connect = connect
            .foreign_keys(true)
            .busy_timeout(options.busy_timeout);
        let describe = || match &options.location {
            SqliteLocation::File(path) => format!("the SQLite database {}", path.display()),
            SqliteLocation::Memory => "the in-memory SQLite database".to_owned(),
        };
        let cannot_open = |e: sqlx::Error| {
            StoreError::Unavailable(format!(
                "cannot open {}: {e}; check that the path is a writable file or directory the \
                 server may create",
                describe()
            ))
        };
        let pool = pool_options
            .acquire_timeout(options.acquire_timeout)
            .connect_with(connect.clone())
            .await
            .map_err(cannot_open)?;
        let writer = if shared {
            pool.clone()
        } else {
            // Waiting for the writer is waiting for the writes before it: as long a wait as a
            // writer's busy timeout allows, and at least the wait for a connection.
            SqlitePoolOptions::new()
                .max_connections(1)
                .acquire_timeout(options.acquire_timeout.max(options.busy_timeout))
                .connect_with(connect)
                .await
                .map_err(cannot_open)?
        };
        MIGRATOR.run(&writer).await.map_err(|e| {
            store_sql::migrate_error(
                &describe(),
                &e,
                "check that the database file is writable and not damaged",
            )
        })?;
        let writer_thread = WriterThread::start().map_err(|e| {
            StoreError::Unavailable(format!(
                "cannot start the thread that writes to {}: {e}",
                describe()
            ))
        })?;
        Ok(Self {
            pool,
            writer,
            in_process: Arc::default(),
            arrivals: ArrivalHub::default(),
            writer_thread,
        })
    }
}

// The ports, `ping` and `close`, in the SQL both stores share.
store_sql::sql_store!(SqliteStore, sqlite);

/// Creates the database's missing directories readable by the owner only (0700 on Unix):
/// the database holds password hashes and webhook secrets. Directories that exist keep their
/// permissions.
fn create_parent_dir(path: &Path) -> Result<(), StoreError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                builder.mode(0o700);
            }
            builder.create(dir).map_err(|e| {
                StoreError::Unavailable(format!(
                    "cannot create the data directory {}: {e}; create it or choose another \
                     --data-dir",
                    dir.display()
                ))
            })
        }
        _ => Ok(()),
    }
}

/// Creates the database file, when missing, readable and writable by the owner only (0600
/// on Unix); SQLite gives its journal and shared-memory files the database's permissions.
fn create_private_file(path: &Path) -> Result<(), StoreError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(StoreError::Unavailable(format!(
            "cannot create the SQLite database {}: {e}; check that its directory is writable",
            path.display()
        ))),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path)
            .expect("the file exists")
            .permissions()
            .mode()
            & 0o777
    }

    #[tokio::test]
    async fn a_new_database_and_its_directory_are_the_owners_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        let path = dir.join("insights.db");
        let store = SqliteStore::open(SqliteOptions::file(&path)).await.unwrap();
        store.ping().await.unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&path), 0o600);
        for side in ["insights.db-wal", "insights.db-shm"] {
            let side = dir.join(side);
            if side.exists() {
                assert_eq!(mode(&side), 0o600, "{}", side.display());
            }
        }
    }
}
