//! Alert files: the [`FileStore`] port and the [`FileWriter`] it hands out.

use async_trait::async_trait;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::ids::Token;

/// The name of a file in the file store, such as `alerts/<token>.ndjson`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileKey(pub String);

impl FileKey {
    /// The output file of an alert request. The name is derived from the token alone, so that
    /// processing a job twice writes the same file rather than a second one.
    #[must_use]
    pub fn for_token(token: Token) -> Self {
        Self(format!("alerts/{token}.ndjson"))
    }
}

/// Why a file operation failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FileError {
    /// The store could not be reached; worth retrying later (HTTP 503).
    #[error("file store unavailable: {0}")]
    Unavailable(String),
    /// The file does not exist.
    #[error("file not found")]
    NotFound,
    /// Anything else the backend reported.
    #[error("file store error: {0}")]
    Other(String),
}

/// A file being written. Nothing is visible under its key until [`FileWriter::finish`]
/// succeeds; a writer dropped or aborted before that leaves nothing behind.
#[async_trait]
pub trait FileWriter: Send {
    /// Appends a chunk.
    async fn write(&mut self, chunk: Bytes) -> Result<(), FileError>;

    /// Completes the file and makes it visible, replacing any file of the same key; returns
    /// its size in bytes.
    async fn finish(self: Box<Self>) -> Result<u64, FileError>;

    /// Abandons the file.
    async fn abort(self: Box<Self>) -> Result<(), FileError>;
}

/// A file opened for reading: its size, and its bytes as a stream of chunks, so that serving
/// a large file needs no more memory than a chunk.
pub struct FileStream {
    /// The size in bytes.
    pub size: u64,
    /// The bytes, in order.
    pub chunks: futures::stream::BoxStream<'static, Result<Bytes, FileError>>,
}

impl std::fmt::Debug for FileStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileStream")
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// Stores output files.
#[async_trait]
pub trait FileStore: Send + Sync {
    /// Starts writing the file `key`.
    async fn create(&self, key: &FileKey) -> Result<Box<dyn FileWriter>, FileError>;

    /// Whether a complete file exists under `key`.
    async fn exists(&self, key: &FileKey) -> Result<bool, FileError>;

    /// Starts writing the file `key`, unless a complete file exists under it already (then
    /// `None`): what a worker asks before it evaluates a job, whose file an earlier run may
    /// have written before it stopped. The default asks [`exists`](Self::exists), then
    /// [`create`](Self::create); a store that can look in the step that creates the file
    /// overrides it, so that a job pays for one step instead of two.
    async fn create_unless_exists(
        &self,
        key: &FileKey,
    ) -> Result<Option<Box<dyn FileWriter>>, FileError> {
        if self.exists(key).await? {
            return Ok(None);
        }
        self.create(key).await.map(Some)
    }

    /// The whole file.
    async fn read(&self, key: &FileKey) -> Result<Bytes, FileError>;

    /// Opens the file for streaming. The default reads it whole; stores that can stream
    /// override it.
    async fn open(&self, key: &FileKey) -> Result<FileStream, FileError> {
        let bytes = self.read(key).await?;
        Ok(FileStream {
            size: bytes.len() as u64,
            chunks: Box::pin(futures::stream::once(async move { Ok(bytes) })),
        })
    }

    /// Deletes the file; deleting a missing file succeeds.
    async fn delete(&self, key: &FileKey) -> Result<(), FileError>;
}
