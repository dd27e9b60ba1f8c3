//! How the SQL stores keep the ports' counts in integer columns and read them back: SQL has
//! signed integers only, and a value read back that does not fit its type is damaged data, not a
//! reason to panic.
//!
//! ```
//! use alerts_core::ports::StoreError;
//! use alerts_core::ports::stored::{to_i32, to_i64, to_u32, to_u64};
//!
//! assert_eq!(to_i64(7), 7);
//! assert_eq!(to_i64(u64::MAX), i64::MAX);
//! assert_eq!(to_i32(u32::MAX), i32::MAX);
//! assert_eq!(to_u64(7, "a count"), Ok(7));
//! assert_eq!(
//!     to_u64(-1, "a count"),
//!     Err(StoreError::Corrupt("a count is negative: -1".to_owned()))
//! );
//! assert!(matches!(to_u32(1 << 40, "attempts"), Err(StoreError::Corrupt(_))));
//! ```

use super::StoreError;

/// A count for a `BIGINT` column; counts beyond `i64::MAX` (never met in practice) are kept as
/// `i64::MAX` rather than wrapping to a negative number.
#[must_use]
pub fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A count for an `INTEGER` column, kept as `i32::MAX` beyond it.
#[must_use]
pub fn to_i32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A count read back from a column; `what` names it in the error.
///
/// # Errors
/// [`StoreError::Corrupt`] when the stored value is negative.
pub fn to_u64(n: i64, what: &str) -> Result<u64, StoreError> {
    u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("{what} is negative: {n}")))
}

/// A small count (such as attempts) read back from a column; `what` names it in the error.
///
/// # Errors
/// [`StoreError::Corrupt`] when the stored value is negative or too large.
pub fn to_u32(n: i64, what: &str) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| StoreError::Corrupt(format!("{what} is out of range: {n}")))
}
