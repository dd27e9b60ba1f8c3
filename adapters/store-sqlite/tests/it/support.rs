//! Shared set-up: stores on temporary files, and fixtures.

pub(crate) use alerts_core::conformance::stores::enqueue_jobs;
use identity_core::conformance::fixtures;
pub(crate) use identity_core::conformance::fixtures::t0;
use identity_core::ids::KeyId;
use identity_core::ports::AccountStore;
use store_sqlite::{SqliteOptions, SqliteStore};
use tempfile::TempDir;

/// A store on a database file in a directory that is removed when the value is dropped.
pub(crate) struct FileStore {
    pub(crate) store: SqliteStore,
    pub(crate) dir: TempDir,
}

impl FileStore {
    pub(crate) async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(SqliteOptions::file(Self::path_in(&dir)))
            .await
            .unwrap();
        Self { store, dir }
    }

    pub(crate) fn path_in(dir: &TempDir) -> std::path::PathBuf {
        dir.path().join("insights.sqlite3")
    }

    pub(crate) fn path(&self) -> std::path::PathBuf {
        Self::path_in(&self.dir)
    }
}

/// An account with one key, stored; returns the key's id.
pub(crate) async fn account_with_key(store: &impl AccountStore) -> KeyId {
    fixtures::account_with_key(store).await.1.id
}

/// The store's migrations, as its binary embeds them.
pub(crate) static MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");
