//! The [`FileStore`] over any [`ObjectStore`]: streamed writes, reads, deletes and the retention
//! clean-up.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use alerts_core::ports::{FileError, FileKey, FileStore, FileStream, FileWriter};
use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use futures::{StreamExt, TryStreamExt};
use object_store::buffered::BufWriter;
use object_store::path::Path;
use object_store::{Attribute, Attributes, ObjectStore, ObjectStoreExt};
use tokio::io::AsyncWriteExt as _;

use crate::local_writer::LocalFileWriter;

/// How long output files are kept by default: 24 hours.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

/// The smallest part of a multipart upload that S3 accepts (5 MiB); every part but the last
/// must be at least this big.
pub const MIN_PART_SIZE: usize = 5 * 1024 * 1024;

/// The part size of [`FileStoreOptions::local`]: 1 MiB.
pub const LOCAL_PART_SIZE: usize = 1024 * 1024;

/// The media type of the output files.
pub const NDJSON_CONTENT_TYPE: &str = "application/x-ndjson";

/// How an [`ObjectFileStore`] writes. Build with [`FileStoreOptions::default`] and the `with_`
/// methods, so that options added later do not break callers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileStoreOptions {
    /// Bytes buffered before a write turns into a multipart upload, and the size of each part.
    /// Default 5 MiB, S3's minimum ([`MIN_PART_SIZE`]); [`FileStoreOptions::local`] uses
    /// [`LOCAL_PART_SIZE`].
    pub part_size: usize,
    /// Parts uploaded at once by one writer. Default 4.
    pub max_concurrency: usize,
    /// The `Content-Type` stored with each file, for backends that keep one (S3 returns it on
    /// a presigned GET). `None` for backends that refuse attributes, such as the local
    /// filesystem. Default `None`.
    pub content_type: Option<String>,
    /// The data source stored with each file as the user metadata `insights-data-source`,
    /// which S3 returns on every GET, presigned ones included, as the header
    /// `x-amz-meta-insights-data-source` (S3 cannot send arbitrary headers, and a presigned
    /// URL may override only its `response-*` headers). `None` for backends that refuse
    /// attributes; the server labels the downloads it serves itself. Default `None`.
    pub data_source: Option<String>,
}

/// The user-metadata name under which [`FileStoreOptions::data_source`] is stored.
pub const DATA_SOURCE_METADATA: &str = "insights-data-source";

impl Default for FileStoreOptions {
    fn default() -> Self {
        Self {
            part_size: MIN_PART_SIZE,
            max_concurrency: 4,
            content_type: None,
            data_source: None,
        }
    }
}

impl FileStoreOptions {
    /// The options of a local-filesystem store: parts of [`LOCAL_PART_SIZE`], one at a time.
    /// S3's 5 MiB minimum does not bind a local file, and a writer holds up to a part per
    /// upload in flight, so small parts keep a large file's memory to about 2 MiB.
    #[must_use]
    pub fn local() -> Self {
        Self {
            part_size: LOCAL_PART_SIZE,
            max_concurrency: 1,
            content_type: None,
            data_source: None,
        }
    }

    /// Sets the part size; values below [`MIN_PART_SIZE`] are raised to it.
    #[must_use]
    pub fn with_part_size(mut self, part_size: usize) -> Self {
        self.part_size = part_size.max(MIN_PART_SIZE);
        self
    }

    /// Sets how many parts one writer uploads at once (at least 1).
    #[must_use]
    pub fn with_max_concurrency(mut self, max_concurrency: usize) -> Self {
        self.max_concurrency = max_concurrency.max(1);
        self
    }

    /// Sets the `Content-Type` stored with each file.
    #[must_use]
    pub fn with_content_type(mut self, content_type: impl Into<String>) -> Self {
        self.content_type = Some(content_type.into());
        self
    }

    /// Sets the data source stored with each file ([`FileStoreOptions::data_source`]).
    #[must_use]
    pub fn with_data_source(mut self, data_source: impl Into<String>) -> Self {
        self.data_source = Some(data_source.into());
        self
    }
}

/// Output files in an object store, under an optional prefix.
///
/// Small files are written with one atomic `PUT` when they are finished; a file that outgrows
/// [`FileStoreOptions::part_size`] is streamed as a multipart upload, which the backend makes
/// visible only when it is completed. Either way a file appears whole or not at all.
///
/// ```
/// use std::sync::Arc;
///
/// use alerts_core::ports::{FileKey, FileStore};
/// use insights_objects::ObjectFileStore;
/// use object_store::memory::InMemory;
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let files = ObjectFileStore::new(Arc::new(InMemory::new()));
/// let key = FileKey("alerts/example.ndjson".to_owned());
/// let mut writer = files.create(&key).await?;
/// writer.write("{\"a\":1}\n".into()).await?;
/// assert!(!files.exists(&key).await?, "invisible until finished");
/// assert_eq!(writer.finish().await?, 8);
/// assert_eq!(files.read(&key).await?, "{\"a\":1}\n");
/// # Ok::<(), alerts_core::ports::FileError>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct ObjectFileStore {
    store: Arc<dyn ObjectStore>,
    prefix: Option<Path>,
    options: FileStoreOptions,
    // Set for the local filesystem, whose files are written privately by hand, and whose
    // staging files of crashed writers are invisible to listing and so are swept separately.
    staging_dir: Option<PathBuf>,
}

impl fmt::Debug for ObjectFileStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectFileStore")
            .field("store", &self.store.to_string())
            .field("prefix", &self.prefix)
            .field("options", &self.options)
            .finish()
    }
}

impl ObjectFileStore {
    /// Files at the root of `store`, with default options.
    #[must_use]
    pub fn new(store: Arc<dyn ObjectStore>) -> Self {
        Self {
            store,
            prefix: None,
            options: FileStoreOptions::default(),
            staging_dir: None,
        }
    }

    /// Keeps the files under `prefix` (such as `insights/files`) rather than at the root.
    ///
    /// # Errors
    ///
    /// [`FileError::Other`] when the prefix is not a valid object path (empty segments, `.` or
    /// `..`).
    pub fn with_prefix(mut self, prefix: &str) -> Result<Self, FileError> {
        let prefix = prefix.trim_matches('/');
        self.prefix = if prefix.is_empty() {
            None
        } else {
            Some(Path::parse(prefix).map_err(|e| {
                FileError::Other(format!(
                    "the prefix {prefix:?} is not a valid object path: {e}"
                ))
            })?)
        };
        Ok(self)
    }

    /// Tells the store that `dir` is the local directory under the object store: files are then
    /// written there directly, each created readable by its owner only (0600, in directories
    /// made 0700) before its first byte and renamed into place when finished, and
    /// [`ObjectFileStore::delete_older_than`] also removes the staging files that writers of a
    /// crashed process left there.
    #[must_use]
    pub fn with_staging_dir(mut self, dir: PathBuf) -> Self {
        self.staging_dir = Some(dir);
        self
    }

    /// Replaces the write options.
    #[must_use]
    pub fn with_options(mut self, options: FileStoreOptions) -> Self {
        self.options = options;
        self
    }

    /// The object store underneath.
    #[must_use]
    pub fn object_store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The object path of `key`, prefix included: what a presigning backend must sign.
    ///
    /// # Errors
    ///
    /// [`FileError::Other`] when the key is not a valid relative object path.
    pub fn object_path(&self, key: &FileKey) -> Result<Path, FileError> {
        object_path(self.prefix.as_ref(), key)
    }

    /// Deletes every file last modified before `cutoff`, and returns how many it deleted.
    /// The server runs it periodically with `now - retention` ([`DEFAULT_RETENTION`] unless
    /// configured). Files deleted meanwhile by another replica are not counted, and are no
    /// error.
    ///
    /// # Errors
    ///
    /// When the store cannot be listed or a deletion fails; files deleted before the failure
    /// stay deleted, and the next run picks up the rest.
    pub async fn delete_older_than(&self, cutoff: DateTime<Utc>) -> Result<u64, FileError> {
        let old: Vec<Path> = self
            .store
            .list(self.prefix.as_ref())
            .try_filter_map(|meta| async move {
                Ok::<_, object_store::Error>((meta.last_modified < cutoff).then_some(meta.location))
            })
            .try_collect()
            .await
            .map_err(file_error)?;
        let mut deleted = 0;
        let mut results = self
            .store
            .delete_stream(futures::stream::iter(old.into_iter().map(Ok)).boxed());
        while let Some(result) = results.next().await {
            match result {
                Ok(_) => deleted += 1,
                Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(file_error(e)),
            }
        }
        if let Some(dir) = self.staging_dir.clone() {
            let swept = tokio::task::spawn_blocking(move || sweep_staging_files(&dir, cutoff))
                .await
                .map_err(|e| FileError::Other(e.to_string()))?;
            if swept > 0 {
                tracing::info!(files = swept, "removed staging files of abandoned uploads");
            }
        }
        Ok(deleted)
    }
}

/// Removes the staging files (`<name>#<n>`, invisible to listing) last modified before
/// `cutoff` under `dir`: what a process that died mid-upload leaves. Best effort: a file that
/// cannot be read or removed is left for the next run.
fn sweep_staging_files(dir: &std::path::Path, cutoff: DateTime<Utc>) -> u64 {
    let mut swept = 0;
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                dirs.push(entry.path());
                continue;
            }
            let staging = entry.file_name().to_string_lossy().contains('#');
            let old = meta
                .modified()
                .is_ok_and(|modified| DateTime::<Utc>::from(modified) < cutoff);
            if staging && old && std::fs::remove_file(entry.path()).is_ok() {
                swept += 1;
            }
        }
    }
    swept
}

fn object_path(prefix: Option<&Path>, key: &FileKey) -> Result<Path, FileError> {
    let relative = Path::parse(&key.0)
        .ok()
        .filter(|p| !key.0.is_empty() && p.as_ref() == key.0)
        .ok_or_else(|| {
            FileError::Other(format!(
                "the file key {:?} is not a valid object path (use FileKey::for_token)",
                key.0
            ))
        })?;
    Ok(match prefix {
        Some(prefix) => prefix.parts().chain(relative.parts()).collect(),
        None => relative,
    })
}

/// Maps an object-store error to the port's error, keeping its message.
pub(crate) fn file_error(error: object_store::Error) -> FileError {
    match error {
        object_store::Error::NotFound { .. } => FileError::NotFound,
        // The remote backends report exhausted retries, timeouts and refused connections as
        // generic errors; all of them are worth trying again later.
        object_store::Error::Generic { .. } | object_store::Error::JoinError { .. } => {
            FileError::Unavailable(error.to_string())
        }
        object_store::Error::PermissionDenied { .. }
        | object_store::Error::Unauthenticated { .. } => FileError::Other(format!(
            "{error} (check the object store's credentials and permissions)"
        )),
        other => FileError::Other(other.to_string()),
    }
}

#[async_trait]
impl FileStore for ObjectFileStore {
    async fn create(&self, key: &FileKey) -> Result<Box<dyn FileWriter>, FileError> {
        let path = self.object_path(key)?;
        if let Some(dir) = &self.staging_dir {
            // Written by hand rather than through the local backend, so that the file and its
            // directories are private from the start.
            let writer = LocalFileWriter::create(dir.join(path.as_ref())).await?;
            return Ok(Box::new(writer));
        }
        Ok(Box::new(ObjectFileWriter::new(
            Arc::clone(&self.store),
            path,
            &self.options,
        )))
    }

    /// On the local filesystem the target is looked for in the step that creates the staging
    /// file; elsewhere a `HEAD` request, then the writer.
    async fn create_unless_exists(
        &self,
        key: &FileKey,
    ) -> Result<Option<Box<dyn FileWriter>>, FileError> {
        let Some(dir) = &self.staging_dir else {
            if self.exists(key).await? {
                return Ok(None);
            }
            return self.create(key).await.map(Some);
        };
        let target = dir.join(self.object_path(key)?.as_ref());
        let writer = LocalFileWriter::create_unless_exists(target).await?;
        Ok(writer.map(|w| Box::new(w) as Box<dyn FileWriter>))
    }

    async fn exists(&self, key: &FileKey) -> Result<bool, FileError> {
        match self.store.head(&self.object_path(key)?).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(file_error(e)),
        }
    }

    async fn read(&self, key: &FileKey) -> Result<Bytes, FileError> {
        let result = self
            .store
            .get(&self.object_path(key)?)
            .await
            .map_err(file_error)?;
        result.bytes().await.map_err(file_error)
    }

    async fn open(&self, key: &FileKey) -> Result<FileStream, FileError> {
        let result = self
            .store
            .get(&self.object_path(key)?)
            .await
            .map_err(file_error)?;
        Ok(FileStream {
            size: result.meta.size,
            chunks: Box::pin(result.into_stream().map_err(file_error)),
        })
    }

    async fn delete(&self, key: &FileKey) -> Result<(), FileError> {
        match self.store.delete(&self.object_path(key)?).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(file_error(e)),
        }
    }
}

/// A file being written to an [`ObjectFileStore`], through object_store's [`BufWriter`].
///
/// It buffers up to one part and writes a small file with one `PUT` when finished; past that it
/// streams parts as a multipart upload. Dropping it before [`FileWriter::finish`] abandons the
/// upload: in the background when a tokio runtime is running, otherwise as far as the backend
/// cleans up on its own (the local filesystem removes its staging file; S3 keeps the invisible
/// parts until a bucket lifecycle rule for incomplete multipart uploads removes them).
pub struct ObjectFileWriter {
    path: Path,
    /// `None` once the file is finished or its upload failed.
    writer: Option<BufWriter>,
    written: u64,
}

impl fmt::Debug for ObjectFileWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectFileWriter")
            .field("path", &self.path)
            .field("open", &self.writer.is_some())
            .field("written", &self.written)
            .finish()
    }
}

impl ObjectFileWriter {
    fn new(store: Arc<dyn ObjectStore>, path: Path, options: &FileStoreOptions) -> Self {
        let mut attributes = Attributes::new();
        if let Some(content_type) = &options.content_type {
            attributes.insert(Attribute::ContentType, content_type.clone().into());
        }
        if let Some(source) = &options.data_source {
            attributes.insert(
                Attribute::Metadata(DATA_SOURCE_METADATA.into()),
                source.clone().into(),
            );
        }
        let writer = BufWriter::with_capacity(store, path.clone(), options.part_size)
            .with_max_concurrency(options.max_concurrency)
            .with_attributes(attributes);
        Self {
            path,
            writer: Some(writer),
            written: 0,
        }
    }
}

/// The error of a writer whose upload failed before, or that was finished already.
fn closed() -> FileError {
    FileError::Other(
        "this file's upload failed earlier; abandon the writer and create the file again"
            .to_owned(),
    )
}

/// The object_store error behind `error` when there is one, so that it maps as every other.
fn io_error(error: std::io::Error) -> FileError {
    match error.downcast::<object_store::Error>() {
        Ok(e) => file_error(e),
        Err(e) => FileError::Other(e.to_string()),
    }
}

#[async_trait]
impl FileWriter for ObjectFileWriter {
    async fn write(&mut self, chunk: Bytes) -> Result<(), FileError> {
        let len = chunk.len() as u64;
        let writer = self.writer.as_mut().ok_or_else(closed)?;
        if let Err(e) = writer.put(chunk).await {
            // Best effort: the upload is invisible either way, and the caller hears about the
            // error that matters.
            let _ = writer.abort().await;
            self.writer = None;
            return Err(file_error(e));
        }
        self.written += len;
        Ok(())
    }

    async fn finish(mut self: Box<Self>) -> Result<u64, FileError> {
        let mut writer = self.writer.take().ok_or_else(closed)?;
        // A failed part or completion aborts the multipart upload inside `shutdown`.
        writer.shutdown().await.map_err(io_error)?;
        Ok(self.written)
    }

    async fn abort(mut self: Box<Self>) -> Result<(), FileError> {
        match self.writer.take() {
            Some(mut writer) => writer.abort().await.map_err(file_error),
            None => Ok(()),
        }
    }
}

impl Drop for ObjectFileWriter {
    fn drop(&mut self) {
        if let (Some(mut writer), Ok(runtime)) =
            (self.writer.take(), tokio::runtime::Handle::try_current())
        {
            let path = self.path.clone();
            runtime.spawn(async move {
                if let Err(e) = writer.abort().await {
                    tracing::warn!(%path, error = %e, "could not abandon an unfinished upload");
                }
            });
        }
    }
}
