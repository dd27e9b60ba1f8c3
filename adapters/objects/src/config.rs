//! From the server's `--object-store` value to a file store and URL signer, in one call.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use alerts_core::ports::{FileStore, UrlSigner};
use object_store::local::LocalFileSystem;
use thiserror::Error;

use crate::local_urls::{LocalUrlSigner, UrlKeys, UrlSetupError};
use crate::s3::{S3ConfigError, S3Settings};
use crate::store::{FileStoreOptions, ObjectFileStore};

/// The name of the URL key file in the data directory (see [`UrlKeys`] for its format).
pub const URL_KEY_FILE: &str = "url-keys";

/// The directory of the data directory where local files are kept by default.
pub const FILES_DIR: &str = "files";

/// Why the file storage could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FilesConfigError {
    /// The `--object-store` value has a scheme other than `file://` or `s3://`.
    #[error(
        "unsupported object store {0:?}: leave it empty for files in the data directory, or use file:///<absolute dir> or s3://<bucket>[/<prefix>]"
    )]
    Scheme(String),
    /// A `file://` value that is not an absolute local path.
    #[error(
        "{0:?} is not an absolute file:// URL; use something like file:///var/lib/insights/files"
    )]
    FileUrl(String),
    /// The local directory could not be created or opened.
    #[error("cannot use the directory {path} for files: {message}")]
    Directory {
        /// The directory.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The URL keys or public URL were refused.
    #[error(transparent)]
    Urls(#[from] UrlSetupError),
    /// The S3 settings were refused.
    #[error(transparent)]
    S3(#[from] S3ConfigError),
}

/// Where files go, as parsed from `--object-store`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectStoreLocation {
    /// A local directory; files are served by the server itself through signed URLs.
    Local(PathBuf),
    /// An S3 bucket; files are fetched from S3 through presigned URLs.
    S3(S3Settings),
}

impl ObjectStoreLocation {
    /// Parses an `--object-store` value: empty for `<data_dir>/files`, `file:///<dir>` for
    /// another directory, `s3://<bucket>[/<prefix>]` for S3 (completed from the AWS
    /// variables, see [`S3Settings::from_env`]).
    ///
    /// ```
    /// use std::path::{Path, PathBuf};
    ///
    /// use insights_objects::ObjectStoreLocation;
    ///
    /// let data = Path::new("/var/lib/insights");
    /// assert_eq!(
    ///     ObjectStoreLocation::parse("", data)?,
    ///     ObjectStoreLocation::Local(PathBuf::from("/var/lib/insights/files"))
    /// );
    /// assert_eq!(
    ///     ObjectStoreLocation::parse("file:///srv/files", data)?,
    ///     ObjectStoreLocation::Local(PathBuf::from("/srv/files"))
    /// );
    /// assert!(matches!(
    ///     ObjectStoreLocation::parse("s3://insights-files", data)?,
    ///     ObjectStoreLocation::S3(_)
    /// ));
    /// # Ok::<(), insights_objects::FilesConfigError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`FilesConfigError`] saying what to write instead.
    pub fn parse(value: &str, data_dir: &Path) -> Result<Self, FilesConfigError> {
        let value = value.trim();
        if value.is_empty() {
            return Ok(Self::Local(data_dir.join(FILES_DIR)));
        }
        if value.starts_with("file:") {
            let path = url::Url::parse(value)
                .ok()
                .filter(|u| u.query().is_none() && u.fragment().is_none())
                .and_then(|u| u.to_file_path().ok())
                .ok_or_else(|| FilesConfigError::FileUrl(value.to_owned()))?;
            return Ok(Self::Local(path));
        }
        if value.starts_with("s3://") {
            return Ok(Self::S3(S3Settings::from_env(value)?));
        }
        Err(FilesConfigError::Scheme(value.to_owned()))
    }
}

/// The file storage, wired: what the server hands to the alert pipeline and the HTTP layer.
#[derive(Clone)]
pub struct Files {
    /// The file store; it also runs the retention clean-up
    /// ([`ObjectFileStore::delete_older_than`]).
    pub store: Arc<ObjectFileStore>,
    /// Signs the URLs sent in webhooks.
    pub signer: Arc<dyn UrlSigner>,
    /// With local files, the signer whose [`LocalUrlSigner::verify`] the HTTP layer calls
    /// before it serves a file from [`Files::store`]; `None` with S3, whose URLs S3 serves.
    pub local_urls: Option<Arc<LocalUrlSigner>>,
}

impl std::fmt::Debug for Files {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Files")
            .field("store", &self.store)
            .field("local_urls", &self.local_urls)
            .finish_non_exhaustive()
    }
}

impl Files {
    /// The file store as the port.
    #[must_use]
    pub fn file_store(&self) -> Arc<dyn FileStore> {
        self.store.clone()
    }
}

/// Sets up file storage from the server's configuration: `object_store` is the
/// `--object-store` value (see [`ObjectStoreLocation::parse`]), `data_dir` the `--data-dir`
/// (which also keeps the URL keys, in [`URL_KEY_FILE`], created on first use), and
/// `public_url` the `--public-url` that local file URLs start with, and `data_source` the
/// label of the source the files' alerts come from, kept with each file in S3 (local files are
/// labelled by the server that serves them).
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("insights-doc-{}", uuid::Uuid::new_v4()));
/// let files = insights_objects::open_files("", &dir, "http://127.0.0.1:8080", None)?;
/// assert!(files.local_urls.is_some());
/// assert!(dir.join("files").is_dir() && dir.join("url-keys").is_file());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), insights_objects::FilesConfigError>(())
/// ```
///
/// # Errors
///
/// A [`FilesConfigError`] saying what to fix.
pub fn open_files(
    object_store: &str,
    data_dir: &Path,
    public_url: &str,
    data_source: Option<&str>,
) -> Result<Files, FilesConfigError> {
    match ObjectStoreLocation::parse(object_store, data_dir)? {
        ObjectStoreLocation::Local(dir) => {
            let keys = UrlKeys::load_or_create(&data_dir.join(URL_KEY_FILE))?;
            let signer = Arc::new(LocalUrlSigner::new(public_url, keys)?);
            Ok(Files {
                store: Arc::new(open_local(&dir)?),
                signer: signer.clone(),
                local_urls: Some(signer),
            })
        }
        ObjectStoreLocation::S3(settings) => {
            let (store, signer) = settings.open(data_source)?;
            Ok(Files {
                store: Arc::new(store),
                signer: Arc::new(signer),
                local_urls: None,
            })
        }
    }
}

/// A file store in the local directory `dir`, created if missing (readable by the owner
/// only). Files and the directories under `dir` are created readable by the owner only before
/// anything is written to them, and synced to disk before
/// [`alerts_core::ports::FileWriter::finish`] returns, because a webhook announcing the file
/// follows.
///
/// # Errors
///
/// [`FilesConfigError::Directory`] when the directory cannot be created or opened.
pub fn open_local(dir: &Path) -> Result<ObjectFileStore, FilesConfigError> {
    let bad = |message: String| FilesConfigError::Directory {
        path: dir.display().to_string(),
        message,
    };
    // Files carry customers' points and custom data: the directory is the owner's only
    // (0700 on Unix) when it is made here, and each file is created 0600 (see `local_writer`).
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| bad(e.to_string()))?;
    let local = LocalFileSystem::new_with_prefix(dir)
        .map_err(|e| bad(e.to_string()))?
        .with_fsync(true);
    Ok(ObjectFileStore::new(Arc::new(local))
        .with_staging_dir(dir.to_path_buf())
        .with_options(FileStoreOptions::local()))
}
