//! The grid store's error: what the object store, or what it holds, did wrong.

/// The object store failed, or what it holds cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("grid store: {0}")]
pub struct StoreError(String);

impl StoreError {
    pub(crate) fn new(why: String) -> Self {
        Self(why)
    }
}
