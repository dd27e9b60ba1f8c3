//! How a database's error, a failed migration or an update that touched nothing becomes the
//! ports' [`StoreError`].

use alerts_core::ports::StoreError;
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
