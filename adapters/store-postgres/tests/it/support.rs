//! Test databases and fixtures.

use alerts_core::ids::Token;
use alerts_core::ports::{JobQueue, NewAlertRequest};
use alerts_core::request::AlertPoint;
use identity_core::ids::{AccountId, KeyId};
use identity_core::keys::{ApiKey, WebhookSecret};
use identity_core::ports::{Account, AccountStore, NewApiKey};
use identity_core::randomness::SeededRandomness;

use chrono::{DateTime, TimeZone, Utc};
use sqlx::{Connection, PgConnection};
use store_postgres::{PgOptions, PgStore};
use uuid::Uuid;

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

/// Enqueues `n` one-point requests received at `from`, one millisecond apart.
pub(crate) async fn enqueue_jobs(
    store: &impl JobQueue,
    key: KeyId,
    n: usize,
    from: DateTime<Utc>,
) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(n);
    for i in 0..n {
        let token = Token(Uuid::new_v4());
        let request = NewAlertRequest {
            token,
            key_id: key,
            points: vec![AlertPoint {
                position: aq_core::Position::new(-74.0, 40.7).unwrap(),
                id: format!("p{i}"),
                custom_data: "{}".to_owned(),
            }],
            received_at: from + chrono::Duration::milliseconds(i64::try_from(i).unwrap()),
        };
        store.enqueue(&request).await.unwrap();
        tokens.push(token);
    }
    tokens
}
