//! What the two SQL stores, `store-sqlite` and `store-postgres`, share: every port they
//! implement, written once, and how a database error becomes the ports' [`StoreError`]. Not
//! an adapter of its own: it opens no database and names no store type.
//!
//! Both stores keep the same tables under the same names, and SQLite reads PostgreSQL's `$1`
//! placeholders, so most queries are the same text on both. The few that are not differ by
//! dialect only, and the two spellings of each stand side by side in [`dialect`]. What differs
//! in Rust rather than in SQL (how a time is kept, how claims take turns, how leases and told
//! changes are written in bulk) is the [`SqlDialect`] trait, which each store implements.
//!
//! The ports are implemented by macros, [`sql_store!`] for all of them, rather than by generic
//! code over [`sqlx::Database`]: generic sqlx code must repeat, on every `impl`, that each
//! Rust type it binds or reads has an encoding in the database, which would bury the queries.
//! Expanded in a store crate, the macros' code is ordinary sqlx code on that store's concrete
//! types.
//!
//! The rules of the job queue live in one place each: as SQL, which job is held or claimable,
//! which jobs a claim takes and how an update checks its lease, in [`claims`] and [`jobs`]; in
//! Rust, the same claim rule (`is_claimable`), a lease's end, and when a delivery is tried
//! again or given up, with the ports and the pipeline in `alerts-core`.
//!
//! ```
//! use alerts_core::ports::StoreError;
//! use store_sql::{db_error, db_error_or_conflict};
//!
//! assert_eq!(db_error("SQLite", sqlx::Error::RowNotFound), StoreError::NotFound);
//! assert!(matches!(
//!     db_error("PostgreSQL", sqlx::Error::PoolTimedOut),
//!     StoreError::Unavailable(m) if m.starts_with("PostgreSQL: ")
//! ));
//! // Any other failure passes through unchanged.
//! let e = db_error_or_conflict("SQLite", || "that email is taken".to_owned());
//! assert_eq!(e(sqlx::Error::RowNotFound), StoreError::NotFound);
//! ```

pub mod accounts;
pub mod batch;
pub mod claims;
pub mod configs;
pub mod deliveries;
pub mod dialect;
pub mod jobs;
pub mod rows;
pub mod sent;
pub mod sessions;

use std::future::Future;

use alerts_core::ids::Token;
use alerts_core::ports::{AlertJob, Arrivals, SentChange, StoreError};
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use sqlx::error::ErrorKind;
use sqlx::migrate::MigrateError;

/// Maps an error of the `database` (named in messages, such as `SQLite`) to the ports' error.
/// Unique violations are conflicts and foreign-key violations a missing parent record; check
/// and not-null violations and decoding failures mean stored data is damaged; anything else (a
/// busy database, I/O, a lost connection, a timeout, a closed pool, a serialisation failure)
/// is worth retrying later.
#[must_use]
pub fn db_error(database: &str, e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::Database(db) => match db.kind() {
            ErrorKind::UniqueViolation => StoreError::Conflict(db.message().to_owned()),
            ErrorKind::ForeignKeyViolation => StoreError::NotFound,
            ErrorKind::CheckViolation | ErrorKind::NotNullViolation => {
                StoreError::Corrupt(db.message().to_owned())
            }
            _ => StoreError::Unavailable(format!("{database}: {e}")),
        },
        sqlx::Error::RowNotFound => StoreError::NotFound,
        sqlx::Error::ColumnDecode { .. }
        | sqlx::Error::Decode(_)
        | sqlx::Error::ColumnNotFound(_)
        | sqlx::Error::TypeNotFound { .. }
        | sqlx::Error::ColumnIndexOutOfBounds { .. } => StoreError::Corrupt(e.to_string()),
        _ => StoreError::Unavailable(format!("{database}: {e}")),
    }
}

/// Like [`db_error`], with the caller's `message` for a unique violation (the database's own
/// names a constraint, which means nothing to a user).
pub fn db_error_or_conflict(
    database: &str,
    message: impl FnOnce() -> String,
) -> impl FnOnce(sqlx::Error) -> StoreError {
    move |e| match db_error(database, e) {
        StoreError::Conflict(_) => StoreError::Conflict(message()),
        other => other,
    }
}

/// The error of a failed migration of `what` (the database as the store names it), with what
/// to do about it; `otherwise` is the advice for failures that are not about versions.
///
/// ```
/// use alerts_core::ports::StoreError;
/// use sqlx::migrate::MigrateError;
///
/// let e = store_sql::migrate_error("db.sqlite3", &MigrateError::VersionMissing(7), "check it");
/// assert!(matches!(e, StoreError::Unavailable(m) if m.contains("newer version")));
/// ```
#[must_use]
pub fn migrate_error(what: &str, e: &MigrateError, otherwise: &str) -> StoreError {
    let advice = match e {
        MigrateError::VersionMissing(_) | MigrateError::VersionNotPresent(_) => {
            "the database was migrated by a newer version of this server; run that version or \
             restore a backup"
        }
        MigrateError::VersionMismatch(_) => {
            "an applied migration was changed after release; this is a bug, please report it"
        }
        _ => otherwise,
    };
    StoreError::Unavailable(format!("cannot migrate {what}: {e}; {advice}"))
}

/// What one SQL store does its own way, in Rust rather than in SQL; [`sql_store!`] implements
/// the ports on a type that implements this.
pub trait SqlDialect: Send + Sync + Sized + 'static {
    /// The sqlx driver.
    type Db: sqlx::Database;

    /// How the database keeps a time: a column type sqlx binds and reads.
    type Time;

    /// The database's name in messages, such as `SQLite`.
    const NAME: &'static str;

    /// The store's connection pool, for reads.
    fn pool(&self) -> &sqlx::Pool<Self::Db>;

    /// What the store keeps in the process beside its database, shared by its clones.
    fn in_process(&self) -> &std::sync::Arc<InProcess>;

    /// The pool every write goes through. A database that lets one writer in at a time gives
    /// it a single connection, so that writers wait their turn in the process, woken the
    /// moment the writer before them is done, rather than on the database's lock, whose busy
    /// handler sleeps and retries; a database with concurrent writers gives [`Self::pool`].
    fn writer(&self) -> &sqlx::Pool<Self::Db>;

    /// A time as the database keeps it.
    fn to_time(t: DateTime<Utc>) -> Self::Time;

    /// A time the database kept.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`] when it is not a time this store could have written.
    fn from_time(t: Self::Time) -> Result<DateTime<Utc>, StoreError>;

    /// Makes a claim wait for any other claim to finish, inside the claim's transaction `tx`
    /// (the limit per key counts the leases other claims hold, which a concurrent claim would
    /// not see before it commits). A database whose write transactions take turns anyway does
    /// nothing here.
    fn claims_take_turns(
        tx: &mut <Self::Db as sqlx::Database>::Connection,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Writes the lease of each of `jobs`, which the claim's transaction `tx` just selected.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`] when a selected job could not be leased, which short of a bug
    /// cannot happen; the database's errors.
    fn lease_jobs(
        tx: &mut <Self::Db as sqlx::Database>::Connection,
        jobs: &[AlertJob],
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Starts `write`, a write transaction complete in itself or a batch writer, where this
    /// store runs those: on SQLite on a thread that does nothing else, so that the write lock
    /// is never held while the next statement waits for a busy runtime; on PostgreSQL, whose
    /// writers each hold only their rows, on the caller's runtime.
    fn spawn_write<F>(&self, write: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;

    /// Runs `write`, a write transaction complete in itself, where
    /// [`SqlDialect::spawn_write`] would start it, and gives its outcome. On PostgreSQL it runs
    /// in the caller's task, so that a caller going away rolls it back; on SQLite it runs to
    /// its end on the writer's thread even then (a claim whose caller went away leaves its
    /// jobs to be taken over once their leases end).
    fn run_write<T: Send + 'static>(
        &self,
        write: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> impl Future<Output = Result<T, StoreError>> + Send;

    /// Tells this store's waiting workers ([`JobQueue::arrivals`]) that a commit just made jobs
    /// claimable: stored, redelivered or released. A database that tells every listener
    /// itself on commit does nothing here.
    ///
    /// [`JobQueue::arrivals`]: alerts_core::ports::JobQueue::arrivals
    fn jobs_arrived(&self);

    /// A subscription to the notices of [`SqlDialect::jobs_arrived`], or the database's own.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the database cannot be reached to subscribe.
    fn subscribe(&self) -> impl Future<Output = Result<Box<dyn Arrivals>, StoreError>> + Send;

    /// Stores `changes`, told by the request `token` of `key`, in one transaction; of changes
    /// for the same rule, point id and subject the last wins, and those of a rule that no
    /// longer exists are dropped.
    ///
    /// # Errors
    /// The database's.
    fn write_sent(
        &self,
        token: Token,
        key: KeyId,
        changes: &[SentChange],
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// [`db_error`] for this database.
    fn db_error(e: sqlx::Error) -> StoreError {
        db_error(Self::NAME, e)
    }

    /// [`db_error_or_conflict`] for this database.
    fn db_error_or_conflict(
        message: impl FnOnce() -> String,
    ) -> impl FnOnce(sqlx::Error) -> StoreError {
        db_error_or_conflict(Self::NAME, message)
    }

    /// [`Self::from_time`] of a time that may be missing.
    ///
    /// # Errors
    /// As [`Self::from_time`].
    fn from_opt_time(t: Option<Self::Time>) -> Result<Option<DateTime<Utc>>, StoreError> {
        t.map(Self::from_time).transpose()
    }
}

/// What a SQL store keeps in the process beside its database: the key configurations it read
/// lately ([`configs`]), and the small requests and the settlements waiting to be stored
/// together ([`batch`]).
#[derive(Debug, Default)]
pub struct InProcess {
    /// The key configurations read lately, each at its version.
    pub configs: configs::KeyConfigs,
    /// Small requests waiting for the next write.
    pub enqueues: batch::BatchQueue<batch::SmallRequest>,
    /// Settlements of held jobs waiting for the next write.
    pub settlements: batch::BatchQueue<batch::HeldSettlement>,
}

/// What the macros' code names, so that it does not depend on the names the calling crate
/// gives its dependencies.
#[doc(hidden)]
pub mod __private {
    pub use alerts_core;
    pub use async_trait;
    pub use chrono;
    pub use identity_core;
    pub use serde_json;
    pub use sqlx;
    pub use tokio;
    pub use uuid;
}

/// `Ok` when an update or delete touched a row, [`StoreError::NotFound`] when it did not.
///
/// # Errors
/// [`StoreError::NotFound`] when `rows` is 0.
pub fn affected_one(rows: u64) -> Result<(), StoreError> {
    if rows == 0 {
        Err(StoreError::NotFound)
    } else {
        Ok(())
    }
}

/// Implements every port of a SQL store on `$store`, a type of the calling crate that
/// implements [`SqlDialect`], in the SQL of `$dialect` (`sqlite` or `postgres`, see
/// [`dialect`]): identity's `KeyAuthenticator`, `AccountStore` and `SessionStore`, and alerts'
/// `RuleStore`, `JobQueue`, `DeliveryLog` and `SentChanges`; and gives it `ping` and `close`.
/// `store-sqlite`, for one, says `store_sql::sql_store!(SqliteStore, sqlite);` beside its
/// `impl SqlDialect for SqliteStore`.
#[macro_export]
macro_rules! sql_store {
    ($store:ty, $dialect:ident) => {
        const _: () = {
            use $crate::__private::alerts_core::idempotency::{Enqueued, Idempotency};
            use $crate::__private::alerts_core::ids::{RuleId, Token};
            use $crate::__private::alerts_core::ports::stored::{to_i32, to_i64, to_u32, to_u64};
            use $crate::__private::alerts_core::ports::{
                Activity, ActivityWindow, AlertJob, Arrivals, Backlog, ClaimLimits,
                DeliveryAttempt, DeliveryErrorKind, DeliveryLog, JobCounts, JobQueue, JobStage,
                JobUpdate, KeyConfig, Lease, NewAlertJob, POINT_PAGE, PointPages, RequestSummary,
                RuleStore, SentChange, SentChanges, Settlement, SigningSecret, SlicePages,
                StoreError, UNFINISHED_JOB, check_page_total, encode_stored_points,
                points_of_pages,
            };
            use $crate::__private::alerts_core::request::AlertPoint;
            use $crate::__private::alerts_core::rule::AlertRule;
            use $crate::__private::async_trait::async_trait;
            use $crate::__private::chrono::{DateTime, Utc};
            use $crate::__private::identity_core::ids::{AccountId, KeyId};
            use $crate::__private::identity_core::keys::{KeyHash, WebhookSecret};
            use $crate::__private::identity_core::ports::{
                Account, AccountStore, ApiKeyInfo, KeyAuthenticator, NewApiKey, Session,
                SessionStore, last_use_is_stale,
            };
            use $crate::__private::sqlx;
            use $crate::__private::uuid::Uuid;
            use $crate::SqlDialect as _;
            use $crate::{affected_one, rows};

            /// This store's sqlx driver.
            type Db = <$store as $crate::SqlDialect>::Db;
            /// A time as this store's database keeps it.
            type Time = <$store as $crate::SqlDialect>::Time;

            impl $store {
                /// Checks that the database answers, for readiness probes.
                ///
                /// # Errors
                /// [`StoreError::Unavailable`] when it does not.
                pub async fn ping(&self) -> Result<(), StoreError> {
                    sqlx::query("SELECT 1")
                        .execute(self.pool())
                        .await
                        .map(|_| ())
                        .map_err(Self::db_error)
                }

                /// Closes every connection, waiting for operations under way; later
                /// operations fail with [`StoreError::Unavailable`].
                pub async fn close(&self) {
                    self.writer().close().await;
                    self.pool().close().await;
                }

                /// A transaction that writes, begun in the dialect's way.
                async fn begin_write(&self) -> Result<sqlx::Transaction<'static, Db>, StoreError> {
                    self.writer()
                        .begin_with($crate::dialect_sql!($dialect, begin_write))
                        .await
                        .map_err(Self::db_error)
                }
            }

            $crate::accounts_sql!($store, $dialect);
            $crate::sessions_sql!($store, $dialect);
            $crate::jobs_sql!($store, $dialect);
            $crate::deliveries_sql!($store, $dialect);
            $crate::sent_sql!($store, $dialect);
        };
    };
}
