//! The [`AccountStore`](crate::ports::AccountStore) suites: accounts, API keys, signing-secret
//! rotation, and the rules a key owns.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::ids::{AccountId, KeyId};
use crate::keys::WebhookSecret;
use crate::ports::{Account, AccountStore, ApiKeyInfo, NewApiKey, RuleStore, StoreError};
use crate::rule::AlertRule;

use super::fixtures::{
    account_with_key, aq_spec, expect_err, new_account, new_key, ok, pollen_custom_spec, rule,
    secrets, secs, t0,
};

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
    ok(
        store.set_password_hash(account.id, new_hash).await,
        "set_password_hash replaces a password hash",
    );
    assert_eq!(
        ok(store.account(account.id).await, "account reads").map(|a| a.password_hash),
        Some(new_hash.to_owned()),
        "the account has the new hash"
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
            .set_password_hash(AccountId(Uuid::new_v4()), new_hash)
            .await,
        &StoreError::NotFound,
        "set_password_hash of an unknown account is NotFound",
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

/// Secret rotation: the new secret is current; the previous one keeps signing until its grace
/// period ends, then drops out of the key's configuration.
pub async fn secret_rotation<S: AccountStore + RuleStore + ?Sized>(store: &S) {
    let (_, key, _) = account_with_key(store).await;
    let s1 = key.secret.clone();
    let s2 = WebhookSecret::generate(secrets());
    let s3 = WebhookSecret::generate(secrets());

    ok(
        store.rotate_secret(key.id, &s2, t0() + secs(86_400)).await,
        "rotate_secret rotates",
    );
    assert_eq!(
        ok(store.key_info(key.id).await, "key_info finds a key")
            .unwrap()
            .secret,
        s2,
        "after rotate_secret, key_info shows the new secret"
    );
    let config = ok(
        store.key_config(key.id, t0() + secs(3_600)).await,
        "key_config reads a key",
    )
    .unwrap();
    let pairs: Vec<(WebhookSecret, Option<DateTime<Utc>>)> = config
        .secrets
        .iter()
        .map(|s| (s.secret.clone(), s.valid_until))
        .collect();
    assert_eq!(
        pairs,
        vec![(s2.clone(), None), (s1.clone(), Some(t0() + secs(86_400)))],
        "key_config lists the current secret first, then the previous one in its grace period"
    );

    ok(
        store
            .rotate_secret(key.id, &s3, t0() + secs(2 * 86_400))
            .await,
        "rotate_secret rotates again",
    );
    let config = ok(
        store.key_config(key.id, t0() + secs(3_600)).await,
        "key_config reads a key",
    )
    .unwrap();
    assert_eq!(
        config.secrets.first().map(|s| (&s.secret, s.valid_until)),
        Some((&s3, None)),
        "the newest secret is current and first"
    );
    let previous: HashSet<(String, Option<DateTime<Utc>>)> = config.secrets[1..]
        .iter()
        .map(|s| (s.secret.expose().to_owned(), s.valid_until))
        .collect();
    let expected: HashSet<(String, Option<DateTime<Utc>>)> = [
        (s2.expose().to_owned(), Some(t0() + secs(2 * 86_400))),
        (s1.expose().to_owned(), Some(t0() + secs(86_400))),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        previous, expected,
        "every previous secret in its grace period keeps signing"
    );

    let later = ok(
        store.key_config(key.id, t0() + secs(86_400 + 60)).await,
        "key_config reads a key",
    )
    .unwrap();
    assert_eq!(
        later
            .secrets
            .iter()
            .map(|s| s.secret.clone())
            .collect::<Vec<_>>(),
        vec![s3.clone(), s2.clone()],
        "key_config leaves out a previous secret whose grace period has ended"
    );
    let much_later = ok(
        store.key_config(key.id, t0() + secs(30 * 86_400)).await,
        "key_config reads a key",
    )
    .unwrap();
    assert_eq!(
        much_later.secrets.len(),
        1,
        "after every grace period only the current secret is left"
    );
    assert_eq!(
        much_later.secrets[0].secret, s3,
        "the current secret never expires"
    );

    expect_err(
        store.rotate_secret(KeyId(Uuid::new_v4()), &s3, t0()).await,
        &StoreError::NotFound,
        "rotate_secret on an unknown key is NotFound",
    );
}

/// Rules: listed oldest first, disabled ones included; updates and deletes are scoped by key.
pub async fn rules<S: AccountStore + ?Sized>(store: &S) {
    let (account, k1, _) = account_with_key(store).await;
    let (k2, _) = new_key(store, account.id, t0()).await;
    let r1 = rule(k1.id, aq_spec(6), true, t0());
    let r2 = rule(k1.id, pollen_custom_spec(), false, t0() + secs(60));
    let r3 = rule(k1.id, aq_spec(24), true, t0() + secs(120));
    let r4 = rule(k2.id, aq_spec(1), true, t0() + secs(30));
    // Added out of order: the list is ordered by creation time, not by insertion.
    for r in [&r3, &r1, &r4, &r2] {
        ok(store.add_rule(r).await, "add_rule stores a rule");
    }
    assert_eq!(
        ok(store.list_rules(k1.id).await, "list_rules lists rules"),
        vec![r1.clone(), r2.clone(), r3.clone()],
        "list_rules lists the key's rules only, disabled ones included, oldest first, as stored"
    );

    let r2_changed = AlertRule {
        spec: aq_spec(48),
        enabled: true,
        ..r2.clone()
    };
    ok(
        store.update_rule(&r2_changed).await,
        "update_rule changes a rule",
    );
    assert_eq!(
        ok(store.list_rules(k1.id).await, "list_rules lists rules"),
        vec![r1.clone(), r2_changed.clone(), r3.clone()],
        "update_rule replaces the spec and the enabled flag"
    );

    let r1_hijacked = AlertRule {
        key_id: k2.id,
        enabled: false,
        ..r1.clone()
    };
    expect_err(
        store.update_rule(&r1_hijacked).await,
        &StoreError::NotFound,
        "update_rule of a rule under another key is NotFound",
    );
    expect_err(
        store.delete_rule(k2.id, r1.id).await,
        &StoreError::NotFound,
        "delete_rule of a rule under another key is NotFound",
    );
    assert_eq!(
        ok(store.list_rules(k1.id).await, "list_rules lists rules")[0],
        r1,
        "another key cannot change or delete a rule"
    );

    ok(store.delete_rule(k1.id, r1.id).await, "delete_rule deletes");
    assert_eq!(
        ok(store.list_rules(k1.id).await, "list_rules lists rules"),
        vec![r2_changed, r3],
        "a deleted rule is gone"
    );
    expect_err(
        store.delete_rule(k1.id, r1.id).await,
        &StoreError::NotFound,
        "delete_rule of a deleted rule is NotFound",
    );
    expect_err(
        store
            .update_rule(&rule(k1.id, aq_spec(6), true, t0()))
            .await,
        &StoreError::NotFound,
        "update_rule of an unknown rule is NotFound",
    );
    assert_eq!(
        ok(store.list_rules(k2.id).await, "list_rules lists rules"),
        vec![r4],
        "another key's rules are untouched"
    );
}
