//! What the suites share, here and in the suites of the cores above: fixed times, and
//! accounts and keys made with fresh ids.

use std::sync::LazyLock;

use chrono::{DateTime, TimeZone, Utc};
use uuid::Uuid;

use crate::ids::{AccountId, KeyId};
use crate::keys::{ApiKey, WebhookSecret};
use crate::ports::{Account, AccountStore, NewApiKey, StoreError};
use crate::randomness::SeededRandomness;

/// The suites' "now": every time is an offset from it.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

/// `n` seconds.
pub fn secs(n: i64) -> chrono::Duration {
    chrono::Duration::seconds(n)
}

/// A time after every time the suites use: claiming at it reaches every unfinished job.
pub fn end_of_suites() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2200, 1, 1, 0, 0, 0).unwrap()
}

/// Secrets seeded afresh in every run, so that keys never collide with those of earlier runs
/// kept in the store.
pub fn secrets() -> &'static SeededRandomness {
    static RNG: LazyLock<SeededRandomness> =
        LazyLock::new(|| SeededRandomness::new(Uuid::new_v4().as_u64_pair().0));
    &RNG
}

/// The value of `result`, or a panic naming the broken `promise` and the store's error.
pub fn ok<T>(result: Result<T, StoreError>, promise: &str) -> T {
    result.unwrap_or_else(|e| panic!("{promise}: the store failed with `{e}` ({e:?})"))
}

/// Panics, naming the broken `promise`, unless `result` is an error of `want`'s kind.
pub fn expect_err<T: std::fmt::Debug>(
    result: Result<T, StoreError>,
    want: &StoreError,
    promise: &str,
) {
    match result {
        Err(e) if std::mem::discriminant(&e) == std::mem::discriminant(want) => {}
        other => panic!("{promise}: expected {want:?}, got {other:?}"),
    }
}

/// A new account with a fresh id and email.
pub async fn new_account<S: AccountStore + ?Sized>(store: &S) -> Account {
    let id = Uuid::new_v4();
    let account = Account {
        id: AccountId(id),
        email: format!("dev-{}@example.com", id.simple()),
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo".to_owned(),
        credential_version: 0,
        created_at: t0(),
    };
    ok(
        store.create_account(&account).await,
        "create_account stores a new account",
    );
    account
}

/// A new key of `account`, created at `created_at`, with the key text it hashes.
pub async fn new_key<S: AccountStore + ?Sized>(
    store: &S,
    account: AccountId,
    created_at: DateTime<Utc>,
) -> (NewApiKey, ApiKey) {
    let key = ApiKey::generate(secrets());
    let new = NewApiKey {
        id: KeyId(Uuid::new_v4()),
        account_id: account,
        label: "production".to_owned(),
        prefix: key.prefix().to_owned(),
        hash: key.hash(),
        secret: WebhookSecret::generate(secrets()),
        created_at,
    };
    ok(store.create_key(&new).await, "create_key stores a new key");
    (new, key)
}

/// A fresh account with one key: what most suites start from.
pub async fn account_with_key<S: AccountStore + ?Sized>(store: &S) -> (Account, NewApiKey, ApiKey) {
    let account = new_account(store).await;
    let (key, api_key) = new_key(store, account.id, t0()).await;
    (account, key, api_key)
}
