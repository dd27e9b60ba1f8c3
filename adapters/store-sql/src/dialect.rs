//! What the two databases do their own way. In SQL, little: both read `$1` placeholders (SQLite
//! reads them as PostgreSQL does), `ON CONFLICT`, `RETURNING`, `IS DISTINCT FROM`,
//! `CAST(x AS TEXT)`, and integer columns read as `i32` when PostgreSQL keeps them as `integer`.
//! The few statements they spell differently stand side by side in the module of their
//! concept, in a `sqlite` and a `postgres` submodule of the same names, which
//! [`sql_store!`](crate::sql_store) picks by its dialect argument:
//!
//! - here, how a transaction that writes begins;
//! - [`rules`](crate::rules): a rule's spec, JSON text that PostgreSQL keeps as `jsonb`;
//! - [`sent`](crate::sent): the point ids of a lookup, a JSON array read as rows, and the
//!   upsert of told changes, row by row on SQLite and from arrays on PostgreSQL;
//! - [`deliveries`](crate::deliveries): the activity's buckets of time (SQLite keeps times as
//!   microseconds);
//! - [`claims`](crate::claims): the claim, with `LATERAL` and row locks on PostgreSQL;
//! - [`sessions`](crate::sessions): a new session, which locks its account on PostgreSQL.
//!
//! What differs in Rust rather than in SQL is the [`SqlDialect`] trait, which each store
//! implements.
//!
//! ```
//! use store_sql::dialect::{postgres, sqlite};
//!
//! assert_eq!(sqlite::BEGIN_WRITE, "BEGIN IMMEDIATE");
//! assert_eq!(postgres::BEGIN_WRITE, "BEGIN");
//! ```

use std::future::Future;

use alerts_core::ids::Token;
use alerts_core::ports::{AlertJob, Arrivals, SentChange, StoreError};
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;

use crate::InProcess;
use crate::errors::{db_error, db_error_or_conflict};

/// SQLite's spelling.
pub mod sqlite {
    /// How a transaction that writes begins: with the write lock taken up front, since a
    /// transaction that read first and then tried to write could fail at once with
    /// `SQLITE_BUSY`.
    pub const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";
}

/// PostgreSQL's spelling.
pub mod postgres {
    /// How a transaction that writes begins: PostgreSQL locks rows as it goes.
    pub const BEGIN_WRITE: &str = "BEGIN";
}

/// What one SQL store does its own way, in Rust rather than in SQL; [`sql_store!`] implements
/// the ports on a type that implements this.
///
/// [`sql_store!`]: crate::sql_store
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
