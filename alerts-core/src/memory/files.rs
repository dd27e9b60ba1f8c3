//! [`MemoryFiles`]: files and their signed URLs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::ports::{FileError, FileKey, FileStore, FileWriter, UrlSigner};

use super::{after, lock};

// ---------------------------------------------------------------------------------------------
// Files.
// ---------------------------------------------------------------------------------------------

/// Files in memory, with signed URLs of the form
/// `memory://alerts/<token>.ndjson?expires=<unix>&signature=<hex>` that [`MemoryFiles::fetch`]
/// checks and resolves as a file server would. The signature is an HMAC-SHA256 of the path and
/// the expiry under the store's own key, so a URL cannot be pointed at another file or
/// extended.
#[derive(Debug)]
pub struct MemoryFiles {
    files: Arc<Mutex<HashMap<FileKey, Bytes>>>,
    url_key: [u8; 32],
}

impl Default for MemoryFiles {
    fn default() -> Self {
        Self::with_url_key(*b"memory-files url key, tests only")
    }
}

impl MemoryFiles {
    /// An empty file store with a fixed URL-signing key.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty file store signing URLs with `url_key`.
    #[must_use]
    pub fn with_url_key(url_key: [u8; 32]) -> Self {
        Self {
            files: Arc::default(),
            url_key,
        }
    }

    fn url_mac(&self, path: &str, expires: i64) -> Hmac<Sha256> {
        // HMAC takes keys of any length; the fallback is never taken.
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.url_key)
            .unwrap_or_else(|_| Hmac::<Sha256>::new(&Default::default()));
        mac.update(path.as_bytes());
        mac.update(b"\n");
        mac.update(expires.to_string().as_bytes());
        mac
    }

    /// Fetches a URL made by this signer at time `now`, as the file server would: the file
    /// when the signature matches and the URL has not expired.
    ///
    /// # Errors
    /// [`FileError::Other`] for a URL this store did not sign, a tampered one, or one that has
    /// expired; [`FileError::NotFound`] for a file that is gone.
    pub fn fetch(&self, url: &str, now: DateTime<Utc>) -> Result<Bytes, FileError> {
        let bad = || FileError::Other(format!("not a URL signed by this store: {url}"));
        let rest = url.strip_prefix("memory://").ok_or_else(bad)?;
        let (path, query) = rest.split_once("?expires=").ok_or_else(bad)?;
        let (expires, signature) = query.split_once("&signature=").ok_or_else(bad)?;
        let expires: i64 = expires.parse().map_err(|_| bad())?;
        let signature = hex::decode(signature).map_err(|_| bad())?;
        self.url_mac(path, expires)
            .verify_slice(&signature)
            .map_err(|_| bad())?;
        if now.timestamp() > expires {
            return Err(FileError::Other(format!("the URL expired at {expires}")));
        }
        lock(&self.files)
            .get(&FileKey(path.to_owned()))
            .cloned()
            .ok_or(FileError::NotFound)
    }

    /// The keys of the files stored, sorted.
    #[must_use]
    pub fn keys(&self) -> Vec<FileKey> {
        let mut keys: Vec<FileKey> = lock(&self.files).keys().cloned().collect();
        keys.sort_by(|a, b| a.0.cmp(&b.0));
        keys
    }
}

struct MemoryWriter {
    files: Arc<Mutex<HashMap<FileKey, Bytes>>>,
    key: FileKey,
    buf: BytesMut,
}

#[async_trait]
impl FileWriter for MemoryWriter {
    async fn write(&mut self, chunk: Bytes) -> Result<(), FileError> {
        self.buf.extend_from_slice(&chunk);
        Ok(())
    }

    async fn finish(self: Box<Self>) -> Result<u64, FileError> {
        let len = self.buf.len() as u64;
        lock(&self.files).insert(self.key, self.buf.freeze());
        Ok(len)
    }

    async fn abort(self: Box<Self>) -> Result<(), FileError> {
        Ok(())
    }
}

#[async_trait]
impl FileStore for MemoryFiles {
    async fn create(&self, key: &FileKey) -> Result<Box<dyn FileWriter>, FileError> {
        Ok(Box::new(MemoryWriter {
            files: Arc::clone(&self.files),
            key: key.clone(),
            buf: BytesMut::new(),
        }))
    }

    async fn exists(&self, key: &FileKey) -> Result<bool, FileError> {
        Ok(lock(&self.files).contains_key(key))
    }

    async fn read(&self, key: &FileKey) -> Result<Bytes, FileError> {
        lock(&self.files)
            .get(key)
            .cloned()
            .ok_or(FileError::NotFound)
    }

    async fn delete(&self, key: &FileKey) -> Result<(), FileError> {
        lock(&self.files).remove(key);
        Ok(())
    }
}

#[async_trait]
impl UrlSigner for MemoryFiles {
    async fn signed_url(
        &self,
        key: &FileKey,
        now: DateTime<Utc>,
        valid_for: Duration,
    ) -> Result<String, FileError> {
        let expires = after(now, valid_for).timestamp();
        let signature = hex::encode(self.url_mac(&key.0, expires).finalize().into_bytes());
        Ok(format!(
            "memory://{}?expires={expires}&signature={signature}",
            key.0
        ))
    }
}
