//! What the two SQL stores, `store-sqlite` and `store-postgres`, share: every port they
//! implement, written once, and how a database error becomes the ports'
//! [`StoreError`](alerts_core::ports::StoreError). Not an adapter of its own: it opens no
//! database and names no store type.
//!
//! Both stores keep the same tables under the same names, and SQLite reads PostgreSQL's `$1`
//! placeholders, so most statements are the same text on both. Each concept has a module of
//! plain items: its statements as `const`s, the rows they read as tuple types, and the
//! functions that make the ports' values of those rows ([`accounts`], [`sessions`],
//! [`rules`], [`configs`], [`requests`], [`claims`], [`jobs`], [`deliveries`], [`sent`]). The
//! few statements the databases spell differently stand side by side in their module, in a
//! `sqlite` and a `postgres` submodule ([`dialect`] lists them). What differs in Rust rather
//! than in SQL (how a time is kept, how claims take turns, how leases and told changes are
//! written in bulk) is the [`SqlDialect`] trait, which each store implements.
//!
//! The ports themselves are implemented by a macro, [`sql_store!`], rather than by generic
//! code over [`sqlx::Database`]: generic sqlx code must repeat, on every `impl`, that each
//! Rust type it binds or reads has an encoding in the database, which would bury the queries.
//! The macro holds only that glue: which statement each port method runs, what it binds, in
//! which transaction, and which function reads the rows; how writes are stored together is
//! plain code too ([`batch`]), over the transactions the macro gives it. Expanded in a store
//! crate, the macro is ordinary sqlx code on that store's concrete types. A job's claim (`JobQueue::claim`), for
//! one, runs [`claims::sqlite::CLAIM`] or [`claims::postgres::CLAIM`] and reads what it
//! took with [`claims::leased_jobs`].
//!
//! The rules of the job queue live in one place each: as SQL, which job is held or claimable,
//! in [`claims`], and how an update checks its lease, in [`jobs`]; in Rust, the same claim
//! rule (`is_claimable`), a lease's end, and when a delivery is tried again or given up, with
//! the ports and the pipeline in `alerts-core`.
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
mod errors;
mod impls;
pub mod jobs;
pub mod leases;
pub mod requests;
pub mod rules;
pub mod sent;
pub mod sessions;

pub use dialect::SqlDialect;
pub use errors::{affected_one, db_error, db_error_or_conflict, migrate_error};

/// What a readiness probe asks the database.
pub const PING: &str = "SELECT 1";

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
    pub use sqlx;
    pub use uuid;
}
