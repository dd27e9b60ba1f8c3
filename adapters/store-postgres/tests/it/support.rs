//! Test databases and fixtures.

pub(crate) use alerts_core::conformance::stores::enqueue_jobs;
use identity_core::conformance::fixtures;
pub(crate) use identity_core::conformance::fixtures::t0;
use identity_core::ids::KeyId;
use identity_core::ports::AccountStore;
use sqlx::{Connection, PgConnection};
use store_postgres::{PgOptions, PgStore};

pub(crate) use test_support::postgres::TestDb;

/// What these tests open on their database.
pub(crate) trait OnTestDb {
    /// The store on the database, migrated.
    async fn store(&self) -> PgStore;
    /// A plain connection, to look at the tables.
    async fn raw(&self) -> PgConnection;
}

impl OnTestDb for TestDb {
    async fn store(&self) -> PgStore {
        PgStore::open(PgOptions::new(&self.url)).await.unwrap()
    }

    async fn raw(&self) -> PgConnection {
        PgConnection::connect(&self.url).await.unwrap()
    }
}

/// An account with one key, stored; returns the key's id.
pub(crate) async fn account_with_key(store: &impl AccountStore) -> KeyId {
    fixtures::account_with_key(store).await.1.id
}

/// The store's migrations, as its binary embeds them.
pub(crate) static MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");
