//! The port conformance suite, on a database file and in memory.

use alerts_core::conformance::stores;
use store_sqlite::{SqliteOptions, SqliteStore};

use crate::support::FileStore;

#[tokio::test]
async fn file_store_passes_the_store_suite() {
    let file = FileStore::new().await;
    stores::run_all(&file.store).await;
}

#[tokio::test]
async fn in_memory_store_passes_the_store_suite() {
    let store = SqliteStore::open(SqliteOptions::memory()).await.unwrap();
    stores::run_all(&store).await;
}

#[tokio::test]
async fn the_suite_passes_again_on_a_store_it_ran_on() {
    // Ids are fresh on every run, and leftover jobs are drained: a database that has seen the
    // suite (or real traffic) does not disturb it.
    let file = FileStore::new().await;
    stores::run_all(&file.store).await;
    file.store.close().await;
    let reopened = SqliteStore::open(SqliteOptions::file(file.path()))
        .await
        .unwrap();
    stores::run_all(&reopened).await;
}

#[tokio::test]
async fn a_single_connection_store_passes_the_store_suite() {
    // One connection serialises everything, including the concurrent-claim suite's claimers.
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(SqliteOptions::file(FileStore::path_in(&dir)).max_connections(1))
        .await
        .unwrap();
    stores::run_all(&store).await;
}

#[tokio::test]
async fn a_file_store_tells_waiting_workers_of_arriving_jobs() {
    let file = FileStore::new().await;
    stores::arrivals(&file.store, &|d| Box::pin(tokio::time::sleep(d))).await;
}

#[tokio::test]
async fn a_key_configuration_changed_through_another_handle_on_the_file_is_read_at_once() {
    // Two stores on one file, as the server and an admin command are.
    let file = FileStore::new().await;
    let other = SqliteStore::open(SqliteOptions::file(file.path()))
        .await
        .unwrap();
    stores::key_config_changes_are_seen_everywhere(&other, &file.store).await;
}

#[tokio::test]
async fn file_store_passes_the_lease_suite() {
    let file = FileStore::new().await;
    identity_core::conformance::leases(&file.store).await;
}
