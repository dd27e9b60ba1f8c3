//! Why a store operation failed.

use thiserror::Error;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// The database could not be reached or is overloaded; worth retrying later (HTTP 503).
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// A uniqueness rule was broken (an email or key that exists already).
    #[error("conflict: {0}")]
    Conflict(String),
    /// The record to change does not exist (or belongs to someone else).
    #[error("not found")]
    NotFound,
    /// The account's password changed (or the account is gone) since the credentials a new
    /// session rests on were checked: the session is not made, and whoever asked signs in again.
    #[error("the account's password changed since it was checked")]
    CredentialsChanged,
    /// The job's lease expired and another worker took it; this worker must stop on it.
    #[error("the job's lease was lost to another worker")]
    LeaseLost,
    /// A stored record could not be read back (a bug or manual tampering).
    #[error("stored data is invalid: {0}")]
    Corrupt(String),
}
