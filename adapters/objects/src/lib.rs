//! Output files on [`object_store`]: the file-store and URL-signer ports of `alerts-core`.
//!
//! - [`ObjectFileStore`] implements [`FileStore`](alerts_core::ports::FileStore) over any
//!   object store: streamed writes (multipart past one part), reads, deletes, and the retention
//!   clean-up [`ObjectFileStore::delete_older_than`] ([`DEFAULT_RETENTION`], 24 h).
//! - Local filesystem, the embedded default: [`open_local`], with [`LocalUrlSigner`] making and
//!   verifying the server's own HMAC-signed URLs (see [`local_urls`] for the format).
//! - S3, for scale-out: [`S3Settings`], with [`S3UrlSigner`] making presigned GET URLs.
//! - [`open_files`] builds the pair from the server's `--object-store` value.

pub mod config;
pub mod local_urls;
mod local_writer;
pub mod s3;
pub mod store;

pub use config::{Files, FilesConfigError, ObjectStoreLocation, open_files, open_local};
pub use local_urls::{
    DEFAULT_URL_VALIDITY, FILES_PATH, LocalUrlSigner, UrlKey, UrlKeys, UrlSetupError, VerifyError,
};
pub use s3::{S3ConfigError, S3Settings, S3UrlSigner};
pub use store::{
    DATA_SOURCE_METADATA, DEFAULT_RETENTION, FileStoreOptions, LOCAL_PART_SIZE, MIN_PART_SIZE,
    ObjectFileStore, ObjectFileWriter,
};
