//! Shared support for the two SQL stores, `store-sqlite` and `store-postgres`: not an adapter of
//! its own, and it implements no port.
//!
//! Both stores speak to their database through sqlx and must report its failures to the
//! pipeline alike, as the [`StoreError`] of the `alerts-core` ports: a conflict must be a
//! conflict on either database, a lost connection worth a retry on either. That rule depends on
//! sqlx, which `alerts-core` (a pure core) does not, and the adapters never depend on one
//! another; so it lives here, once, and both stores depend on this crate. What does not need
//! sqlx (the names of stages and outcomes, integer columns, leases) lives with the ports in
//! `alerts-core`. Each store keeps its own SQL: the two dialects differ, and each query is
//! written for its database.
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

use alerts_core::ports::StoreError;
use sqlx::error::ErrorKind;

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
