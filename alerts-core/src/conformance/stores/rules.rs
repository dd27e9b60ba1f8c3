//! The [`RuleStore`](crate::ports::RuleStore) suites: the configuration the pipeline reads
//! for a key, signing-secret rotation as it shows there, and the rules a key owns.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use identity_core::conformance::fixtures::{
    account_with_key, expect_err, new_key, ok, secrets, secs, t0,
};
use identity_core::ids::KeyId;
use identity_core::keys::WebhookSecret;
use identity_core::ports::{AccountStore, StoreError};
use uuid::Uuid;

use crate::ports::RuleStore;
use crate::rule::AlertRule;

use super::fixtures::{aq_spec, pollen_custom_spec, rule};

/// The pipeline's view of a key: prefix, webhook URL and enabled rules oldest first; nothing
/// for revoked or unknown keys.
pub async fn key_config<S: AccountStore + RuleStore + ?Sized>(store: &S) {
    let (account, key, _) = account_with_key(store).await;
    let (other, _) = new_key(store, account.id, t0()).await;
    ok(
        store
            .set_webhook_url(key.id, Some("https://receiver.example.com/hook"))
            .await,
        "set_webhook_url sets a URL",
    );
    let late = rule(key.id, aq_spec(3), true, t0() + secs(300));
    let off = rule(key.id, aq_spec(6), false, t0() + secs(100));
    let early = rule(key.id, pollen_custom_spec(), true, t0() + secs(50));
    let foreign = rule(other.id, aq_spec(12), true, t0());
    for r in [&late, &off, &early, &foreign] {
        ok(store.add_rule(r).await, "add_rule stores a rule");
    }

    let config = ok(
        store.key_config(key.id, t0()).await,
        "key_config reads a key",
    )
    .unwrap_or_else(|| panic!("key_config returns the configuration of a live key"));
    assert_eq!(config.key_id, key.id, "key_config names the key");
    assert_eq!(
        config.prefix, key.prefix,
        "key_config carries the key's prefix"
    );
    assert_eq!(
        config.webhook_url.as_deref(),
        Some("https://receiver.example.com/hook"),
        "key_config carries the webhook URL"
    );
    assert_eq!(
        config.secrets.len(),
        1,
        "a key never rotated has one secret"
    );
    assert_eq!(
        config.secrets[0].secret, key.secret,
        "the first secret is current"
    );
    assert_eq!(
        config.secrets[0].valid_until, None,
        "the current secret has no end"
    );
    assert_eq!(
        config.rules,
        vec![early, late],
        "key_config lists the key's enabled rules only, oldest first"
    );

    ok(
        store.revoke_key(key.id, t0() + secs(1)).await,
        "revoke_key revokes",
    );
    assert_eq!(
        ok(
            store.key_config(key.id, t0() + secs(2)).await,
            "key_config reads a key"
        ),
        None,
        "key_config returns None for a revoked key"
    );
    assert_eq!(
        ok(
            store.key_config(KeyId(Uuid::new_v4()), t0()).await,
            "key_config answers for unknown keys"
        ),
        None,
        "key_config returns None for an unknown key"
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
pub async fn rules<S: AccountStore + RuleStore + ?Sized>(store: &S) {
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

/// For stores that share one database between processes (`seen` another handle on the same
/// database than `changed`, as a second replica or the admin command opens it): every change
/// to a key's configuration made through `changed` shows in the next [`RuleStore::key_config`]
/// of `seen`, however recently `seen` read the key.
pub async fn key_config_changes_are_seen_everywhere<S: AccountStore + RuleStore + ?Sized>(
    changed: &S,
    seen: &S,
) {
    let (_, key, _) = account_with_key(changed).await;
    let read = |at: i64| async move {
        ok(
            seen.key_config(key.id, t0() + secs(at)).await,
            "key_config reads a key",
        )
    };
    assert_eq!(
        read(0).await.map(|c| c.webhook_url),
        Some(None),
        "a new key has no webhook URL"
    );

    ok(
        changed
            .set_webhook_url(key.id, Some("https://receiver.example.com/a"))
            .await,
        "set_webhook_url sets a URL",
    );
    assert_eq!(
        read(1).await.and_then(|c| c.webhook_url).as_deref(),
        Some("https://receiver.example.com/a"),
        "a URL set elsewhere is read at once"
    );

    let mut added = rule(key.id, aq_spec(3), true, t0());
    ok(changed.add_rule(&added).await, "add_rule stores a rule");
    assert_eq!(
        read(2).await.map(|c| c.rules),
        Some(vec![added.clone()]),
        "a rule added elsewhere is read at once"
    );
    added.enabled = false;
    ok(
        changed.update_rule(&added).await,
        "update_rule changes a rule",
    );
    assert_eq!(
        read(3).await.map(|c| c.rules),
        Some(Vec::new()),
        "a rule disabled elsewhere is read at once"
    );
    let other = rule(key.id, aq_spec(6), true, t0() + secs(1));
    ok(changed.add_rule(&other).await, "add_rule stores a rule");
    assert_eq!(read(4).await.map(|c| c.rules.len()), Some(1));
    ok(
        changed.delete_rule(key.id, other.id).await,
        "delete_rule deletes a rule",
    );
    assert_eq!(
        read(5).await.map(|c| c.rules),
        Some(Vec::new()),
        "a rule deleted elsewhere is read at once"
    );

    let next = WebhookSecret::generate(secrets());
    ok(
        changed.rotate_secret(key.id, &next, t0() + secs(100)).await,
        "rotate_secret rotates",
    );
    let config = read(6).await.unwrap();
    assert_eq!(
        config.secrets.first().map(|s| s.secret.clone()),
        Some(next),
        "a secret rotated elsewhere is current at once"
    );
    assert_eq!(
        config.secrets.len(),
        2,
        "the previous secret signs until its grace period ends"
    );
    assert_eq!(
        read(101).await.map(|c| c.secrets.len()),
        Some(1),
        "a read after the grace period leaves the previous secret out"
    );

    ok(
        changed.revoke_key(key.id, t0() + secs(7)).await,
        "revoke_key revokes",
    );
    assert_eq!(
        read(8).await,
        None,
        "a key revoked elsewhere is gone at once"
    );
}
