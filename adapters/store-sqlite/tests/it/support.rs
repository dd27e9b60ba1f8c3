//! Shared set-up: stores on temporary files, and fixtures.

use alerts_core::ids::Token;
use alerts_core::ports::{JobQueue, NewAlertRequest};
use alerts_core::request::AlertPoint;
use identity_core::ids::{AccountId, KeyId};
use identity_core::keys::{ApiKey, WebhookSecret};
use identity_core::ports::{Account, AccountStore, NewApiKey};
use identity_core::randomness::SeededRandomness;

use chrono::{DateTime, TimeZone, Utc};
use store_sqlite::{SqliteOptions, SqliteStore};
use tempfile::TempDir;
use uuid::Uuid;

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

pub(crate) fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

/// An account with one key, stored; returns the key's id.
pub(crate) async fn account_with_key(store: &impl AccountStore) -> KeyId {
    let rng = SeededRandomness::default();
    let account = Account {
        id: AccountId(Uuid::new_v4()),
        email: format!("{}@example.com", Uuid::new_v4().simple()),
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".to_owned(),
        created_at: t0(),
    };
    store.create_account(&account).await.unwrap();
    let key = ApiKey::generate(&rng);
    let new = NewApiKey {
        id: KeyId(Uuid::new_v4()),
        account_id: account.id,
        label: "test".to_owned(),
        prefix: key.prefix().to_owned(),
        hash: key.hash(),
        secret: WebhookSecret::generate(&rng),
        created_at: t0(),
    };
    store.create_key(&new).await.unwrap();
    new.id
}

/// Enqueues `n` one-point requests, one second apart from `t0`.
pub(crate) async fn enqueue_jobs(store: &impl JobQueue, key: KeyId, n: usize) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(n);
    for i in 0..n {
        let token = Token(Uuid::new_v4());
        let request = NewAlertRequest {
            token,
            key_id: key,
            points: vec![AlertPoint {
                position: aq_core::Position::new(2.35, 48.85).unwrap(),
                id: format!("p{i}"),
                custom_data: "{}".to_owned(),
            }],
            received_at: t0() + chrono::Duration::seconds(i64::try_from(i).unwrap()),
        };
        store.enqueue(&request).await.unwrap();
        tokens.push(token);
    }
    tokens
}
