//! The [`AccountStore`](crate::ports::AccountStore) suites: accounts and API keys.

use uuid::Uuid;

use crate::ids::{AccountId, KeyId};
use crate::ports::{Account, AccountStore, ApiKeyInfo, NewApiKey, StoreError};

use super::fixtures::{expect_err, new_account, new_key, ok, secs, t0};

/// Accounts: stored and found by id and by email; an email is taken only once.
pub async fn accounts<S: AccountStore + ?Sized>(store: &S) {
    // Other suites may have filled the store already: only the "some" side is checkable here.
    new_account(store).await;
    assert!(
        ok(store.has_accounts().await, "has_accounts answers"),
        "has_accounts is true once an account exists"
    );
    let account = new_account(store).await;
    assert_eq!(
        ok(store.account(account.id).await, "account finds an account"),
        Some(account.clone()),
        "account returns the account as it was created"
    );
    assert_eq!(
        ok(
            store.account_by_email(&account.email).await,
            "account_by_email finds an account"
        ),
        Some(account.clone()),
        "account_by_email returns the account with that email"
    );
    let twin = Account {
        id: AccountId(Uuid::new_v4()),
        ..account.clone()
    };
    expect_err(
        store.create_account(&twin).await,
        &StoreError::Conflict(String::new()),
        "create_account refuses an email that is taken with Conflict",
    );
    assert_eq!(
        ok(
            store.account(twin.id).await,
            "account answers for unknown ids"
        ),
        None,
        "a refused account is not stored"
    );
    assert_eq!(
        ok(
            store.account_by_email("nobody-at-all@example.com").await,
            "account_by_email answers for unknown emails"
        ),
        None,
        "account_by_email returns None for an unknown email"
    );
}

/// Passwords: a new hash replaces the old one for that account only; an unknown account is
/// `NotFound`.
pub async fn passwords<S: AccountStore + ?Sized>(store: &S) {
    let account = new_account(store).await;
    let other = new_account(store).await;
    let new_hash = "$argon2id$v=19$m=19456,t=2,p=1$bmV3c2FsdA$bmV3aGFzaA";
    assert_eq!(
        ok(
            store
                .set_password_hash(account.id, new_hash, account.credential_version)
                .await,
            "set_password_hash replaces a password hash",
        ),
        account.credential_version + 1,
        "set_password_hash raises the credential version by one and returns it"
    );
    assert_eq!(
        ok(store.account(account.id).await, "account reads")
            .map(|a| (a.password_hash, a.credential_version)),
        Some((new_hash.to_owned(), account.credential_version + 1)),
        "the account has the new hash and the raised version"
    );
    assert_eq!(
        ok(
            store
                .set_password_hash(account.id, new_hash, account.credential_version + 1)
                .await,
            "set_password_hash replaces a password hash",
        ),
        account.credential_version + 2,
        "every change raises the version, even to the same hash"
    );
    assert_eq!(
        ok(
            store.account_by_email(&account.email).await,
            "account_by_email reads"
        )
        .map(|a| a.password_hash),
        Some(new_hash.to_owned()),
        "account_by_email sees the new hash too"
    );
    assert_eq!(
        ok(store.account(other.id).await, "account reads"),
        Some(other),
        "another account keeps its hash"
    );
    expect_err(
        store
            .set_password_hash(AccountId(Uuid::new_v4()), new_hash, 0)
            .await,
        &StoreError::NotFound,
        "set_password_hash of an unknown account is NotFound",
    );
    expect_err(
        store
            .set_password_hash(account.id, new_hash, account.credential_version)
            .await,
        &StoreError::CredentialsChanged,
        "set_password_hash against a version another change replaced is refused",
    );
    assert_eq!(
        ok(store.account(account.id).await, "account reads").map(|a| a.credential_version),
        Some(account.credential_version + 2),
        "a refused change raises nothing"
    );
}

/// API keys: listed newest first with what the dashboard shows; label, webhook URL and
/// revocation; a hash is stored only once; unknown keys are `NotFound`.
pub async fn api_keys<S: AccountStore + ?Sized>(store: &S) {
    let account = new_account(store).await;
    let other = new_account(store).await;
    let (k1, _) = new_key(store, account.id, t0()).await;
    let (k2, _) = new_key(store, account.id, t0() + secs(60)).await;
    let (k3, _) = new_key(store, other.id, t0() + secs(30)).await;

    let info = |k: &NewApiKey| ApiKeyInfo {
        id: k.id,
        account_id: k.account_id,
        label: k.label.clone(),
        prefix: k.prefix.clone(),
        created_at: k.created_at,
        last_used_at: None,
        revoked_at: None,
        webhook_url: None,
        secret: k.secret.clone(),
    };
    assert_eq!(
        ok(store.list_keys(account.id).await, "list_keys lists keys"),
        vec![info(&k2), info(&k1)],
        "list_keys lists the account's keys only, newest first, as created"
    );
    assert_eq!(
        ok(store.key_info(k3.id).await, "key_info finds a key"),
        Some(info(&k3)),
        "key_info returns the key as it was created"
    );
    assert_eq!(
        ok(
            store.key_info(KeyId(Uuid::new_v4())).await,
            "key_info answers for unknown keys"
        ),
        None,
        "key_info returns None for an unknown key"
    );

    let by_prefix = ok(
        store.keys_with_prefix(&k3.prefix).await,
        "keys_with_prefix finds keys",
    );
    assert!(
        by_prefix.contains(&info(&k3)) && by_prefix.iter().all(|k| k.prefix == k3.prefix),
        "keys_with_prefix finds the key by its prefix, whatever its account, and only keys with it"
    );
    assert!(
        ok(
            store.keys_with_prefix("ik_nothere").await,
            "keys_with_prefix answers for unknown prefixes"
        )
        .is_empty(),
        "keys_with_prefix finds nothing for a prefix no key has"
    );

    let same_hash = NewApiKey {
        id: KeyId(Uuid::new_v4()),
        ..k1.clone()
    };
    expect_err(
        store.create_key(&same_hash).await,
        &StoreError::Conflict(String::new()),
        "create_key refuses a hash that exists with Conflict",
    );
    assert_eq!(
        ok(store.list_keys(account.id).await, "list_keys lists keys").len(),
        2,
        "a refused key is not stored"
    );

    ok(
        store.set_key_label(k1.id, "staging (old)").await,
        "set_key_label renames a key",
    );
    ok(
        store
            .set_webhook_url(k1.id, Some("https://hooks.example.com/insights?x=1"))
            .await,
        "set_webhook_url sets a URL",
    );
    let got = ok(store.key_info(k1.id).await, "key_info finds a key").unwrap();
    assert_eq!(
        got.label, "staging (old)",
        "set_key_label changes the label"
    );
    assert_eq!(
        got.webhook_url.as_deref(),
        Some("https://hooks.example.com/insights?x=1"),
        "set_webhook_url stores the URL"
    );
    ok(
        store.set_webhook_url(k1.id, None).await,
        "set_webhook_url clears a URL",
    );
    assert_eq!(
        ok(store.key_info(k1.id).await, "key_info finds a key")
            .unwrap()
            .webhook_url,
        None,
        "set_webhook_url(None) clears the URL"
    );

    ok(
        store.revoke_key(k2.id, t0() + secs(120)).await,
        "revoke_key revokes",
    );
    ok(
        store.revoke_key(k2.id, t0() + secs(999)).await,
        "revoke_key on a revoked key succeeds",
    );
    let revoked = ok(store.key_info(k2.id).await, "key_info finds a key").unwrap();
    assert_eq!(
        revoked.revoked_at,
        Some(t0() + secs(120)),
        "revoking twice keeps the first time"
    );
    assert_eq!(
        ok(store.list_keys(account.id).await, "list_keys lists keys").len(),
        2,
        "list_keys includes revoked keys"
    );
    let other_untouched = ok(store.key_info(k3.id).await, "key_info finds a key").unwrap();
    assert_eq!(
        other_untouched,
        info(&k3),
        "changing one key leaves other keys alone"
    );

    let unknown = KeyId(Uuid::new_v4());
    expect_err(
        store.set_key_label(unknown, "x").await,
        &StoreError::NotFound,
        "set_key_label on an unknown key is NotFound",
    );
    expect_err(
        store
            .set_webhook_url(unknown, Some("https://example.com"))
            .await,
        &StoreError::NotFound,
        "set_webhook_url on an unknown key is NotFound",
    );
    expect_err(
        store.revoke_key(unknown, t0()).await,
        &StoreError::NotFound,
        "revoke_key on an unknown key is NotFound",
    );
}
