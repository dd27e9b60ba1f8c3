//! In-memory implementations of every port of the alert pipeline, for tests, examples and
//! benchmarks: [`MemoryStore`] (rules, accounts, jobs, deliveries), [`MemoryFiles`] (files and
//! URL signing) and [`RecordingSender`] (a webhook sender with scripted answers that records
//! what it was asked to send).
//!
//! They keep the promises of the ports exactly, lease semantics included, and pass the
//! conformance suites; they are not meant for production (nothing survives the process).

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};

mod files;
mod jobs;
mod sender;
mod sent;
mod store;

pub use files::MemoryFiles;
pub use sender::RecordingSender;
pub use store::{JobState, MemoryStore};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic in another test thread must not hide this store's state from the rest.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn after(now: DateTime<Utc>, d: Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(d)
        .ok()
        .and_then(|d| now.checked_add_signed(d))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

#[cfg(test)]
mod tests {
    use async_trait::async_trait;
    use bytes::Bytes;
    use chrono::TimeZone;
    use runtime_core::{Clock, FixedClock, IdGenerator, SequentialIds};

    use super::*;
    use crate::conformance;
    use crate::ids::Token;
    use crate::ports::{FileKey, FileStore, UrlSigner};

    #[async_trait]
    impl conformance::files::Fetcher for MemoryFiles {
        async fn get(&self, url: &str, now: DateTime<Utc>) -> Result<Bytes, String> {
            self.fetch(url, now).map_err(|e| e.to_string())
        }

        async fn wait(&self, now: DateTime<Utc>, duration: Duration) -> DateTime<Utc> {
            after(now, duration)
        }
    }

    #[tokio::test]
    async fn memory_store_passes_the_store_suites() {
        conformance::stores::run_all(&MemoryStore::new()).await;
    }

    #[tokio::test]
    async fn memory_store_tells_waiting_workers_of_arriving_jobs() {
        conformance::stores::arrivals(&MemoryStore::new(), &|d| Box::pin(tokio::time::sleep(d)))
            .await;
    }

    #[tokio::test]
    async fn memory_files_pass_the_file_and_signer_suites() {
        let files = MemoryFiles::new();
        conformance::files::run_file_store_suite(&files).await;
        let now = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
        conformance::files::run_url_signer_suite(&files, &files, &files, now).await;
    }

    #[tokio::test]
    async fn urls_expire_and_cannot_be_altered() {
        let files = MemoryFiles::new();
        let clock = FixedClock::new(Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap());
        let key = FileKey::for_token(Token(SequentialIds::default().new_id()));
        let mut w = files.create(&key).await.unwrap();
        w.write(Bytes::from_static(b"x\n")).await.unwrap();
        w.finish().await.unwrap();
        let url = files
            .signed_url(&key, clock.now(), Duration::from_secs(900))
            .await
            .unwrap();
        assert!(
            url.starts_with(&format!("memory://{}?expires=", key.0)),
            "{url}"
        );
        assert_eq!(
            files.fetch(&url, clock.now()).unwrap(),
            Bytes::from_static(b"x\n")
        );
        clock.advance(chrono::Duration::seconds(900));
        assert!(
            files.fetch(&url, clock.now()).is_ok(),
            "valid through its last second"
        );
        clock.advance(chrono::Duration::seconds(1));
        assert!(files.fetch(&url, clock.now()).is_err());
        let extended = url.replace("expires=1777", "expires=1778");
        assert!(files.fetch(&extended, clock.now()).is_err());
        let other = MemoryFiles::with_url_key([9; 32]);
        assert!(other.fetch(&url, clock.now()).is_err());
    }
}

#[cfg(test)]
mod account_tests {
    use chrono::Utc;

    use super::*;
    use identity_core::ids::AccountId;
    use identity_core::ports::{Account, AccountStore};

    #[tokio::test]
    async fn a_fresh_store_has_no_account_until_one_is_made() {
        let store = MemoryStore::new();
        assert!(!store.has_accounts().await.unwrap());
        store
            .create_account(&Account {
                id: AccountId(uuid::Uuid::from_u128(1)),
                email: "ada@example.org".into(),
                password_hash: "x".into(),
                credential_version: 0,
                created_at: Utc::now(),
            })
            .await
            .unwrap();
        assert!(store.has_accounts().await.unwrap());
    }
}
