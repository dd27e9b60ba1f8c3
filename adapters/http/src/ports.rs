//! The ports this adapter defines, which the server wires: the check of the server's own file
//! URLs, and the dependencies `/readyz` asks.

use alerts_core::ports::FileKey;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// Why a file URL was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileUrlRejection {
    /// The URL is not one the server makes (missing or malformed parameters): 403.
    Malformed(String),
    /// The signature does not match, or its key is unknown: 403 `forbidden`.
    BadSignature,
    /// The URL's validity has passed: 403 `expired_url`.
    Expired,
}

/// Checks the URLs the server signs for its own files. Implemented by the file adapter that
/// signs them, and wired in by the server.
pub trait FileUrlVerifier: Send + Sync {
    /// The file a request for `path` with `query` may fetch at `now`.
    ///
    /// # Errors
    /// [`FileUrlRejection`] saying why the URL is refused.
    fn verify(
        &self,
        path: &str,
        query: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<FileKey, FileUrlRejection>;
}

/// A dependency that `/readyz` checks: the database, the object store.
#[async_trait]
pub trait ReadinessCheck: Send + Sync {
    /// A short name, such as `database`.
    fn name(&self) -> &str;

    /// `Ok` when the dependency answers; otherwise what is wrong.
    async fn check(&self) -> Result<(), String>;
}
