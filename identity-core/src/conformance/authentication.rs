//! The [`KeyAuthenticator`](crate::ports::KeyAuthenticator) suite: a key found by its hash.

use crate::keys::ApiKey;
use crate::ports::{AccountStore, KeyAuthenticator};

use super::fixtures::{account_with_key, ok, secrets, secs, t0};

/// Authentication: by key hash, refusing revoked keys, recording the last use.
pub async fn authentication<S: AccountStore + KeyAuthenticator + ?Sized>(store: &S) {
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
