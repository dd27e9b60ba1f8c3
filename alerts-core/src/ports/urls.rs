//! Time-limited URLs for alert files: the [`UrlSigner`] port.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{FileError, FileKey};

/// Makes time-limited URLs for files.
#[async_trait]
pub trait UrlSigner: Send + Sync {
    /// A URL that fetches `key` with GET until `now + valid_for`, and not after.
    async fn signed_url(
        &self,
        key: &FileKey,
        now: DateTime<Utc>,
        valid_for: Duration,
    ) -> Result<String, FileError>;
}
