//! The [`RuleStore`](crate::ports::RuleStore) suites: authenticating a key by its hash, and the
//! configuration the pipeline reads for it.

use uuid::Uuid;

use crate::ids::KeyId;
use crate::keys::ApiKey;
use crate::ports::{AccountStore, RuleStore};

use super::fixtures::{
    account_with_key, aq_spec, new_key, ok, pollen_custom_spec, rule, secrets, secs, t0,
};

/// Authentication: by key hash, refusing revoked keys, recording the last use.
pub async fn authentication<S: AccountStore + RuleStore + ?Sized>(store: &S) {
    let (_, key, api_key) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;

    assert_eq!(
        ok(
            store.authenticate(&api_key.hash(), t0() + secs(10)).await,
            "authenticate looks a key up"
        ),
        Some(key.id),
        "authenticate finds a key by its hash"
    );
    assert_eq!(
        ok(store.key_info(key.id).await, "key_info finds a key")
            .unwrap()
            .last_used_at,
        Some(t0() + secs(10)),
        "authenticate records its time as the key's last use"
    );
    ok(
        store.authenticate(&api_key.hash(), t0() + secs(20)).await,
        "authenticate looks a key up",
    );
    assert_eq!(
        ok(store.key_info(key.id).await, "key_info finds a key")
            .unwrap()
            .last_used_at,
        Some(t0() + secs(10)),
        "a use within LAST_USE_RESOLUTION of the recorded one need not be written"
    );
    ok(
        store.authenticate(&api_key.hash(), t0() + secs(80)).await,
        "authenticate looks a key up",
    );
    assert_eq!(
        ok(store.key_info(key.id).await, "key_info finds a key")
            .unwrap()
            .last_used_at,
        Some(t0() + secs(80)),
        "a use LAST_USE_RESOLUTION after the recorded one is recorded"
    );
    assert_eq!(
        ok(store.key_info(other_key.id).await, "key_info finds a key")
            .unwrap()
            .last_used_at,
        None,
        "authenticating one key records nothing on another"
    );

    let stranger = ApiKey::generate(secrets());
    assert_eq!(
        ok(
            store.authenticate(&stranger.hash(), t0()).await,
            "authenticate answers for unknown keys"
        ),
        None,
        "authenticate refuses an unknown key"
    );

    ok(
        store.revoke_key(key.id, t0() + secs(100)).await,
        "revoke_key revokes",
    );
    assert_eq!(
        ok(
            store.authenticate(&api_key.hash(), t0() + secs(200)).await,
            "authenticate answers for revoked keys"
        ),
        None,
        "authenticate refuses a revoked key"
    );
    assert_eq!(
        ok(store.key_info(key.id).await, "key_info finds a key")
            .unwrap()
            .last_used_at,
        Some(t0() + secs(80)),
        "a refused authentication is not a use"
    );
}

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
