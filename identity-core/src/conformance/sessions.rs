//! The [`SessionStore`](crate::ports::SessionStore) suite: dashboard sessions.

use uuid::Uuid;

use crate::ids::AccountId;
use crate::ports::{AccountStore, Session, SessionStore, StoreError};

use super::fixtures::{expect_err, new_account, ok, secs, t0};

/// Sessions: stored by hash, found until they expire, deleted on sign-out, swept when expired.
pub async fn sessions<S: AccountStore + SessionStore + ?Sized>(store: &S) {
    let account = new_account(store).await;
    let session = |hours: i64| Session {
        id_hash: format!("{:x}{:x}", Uuid::new_v4().simple(), Uuid::new_v4().simple()),
        account_id: account.id,
        csrf_secret: Uuid::new_v4().simple().to_string(),
        credential_version: 0,
        created_at: t0(),
        expires_at: t0() + chrono::Duration::hours(hours),
    };
    let live = session(12);
    ok(
        store.create_session(&live).await,
        "create_session stores a new session",
    );
    assert_eq!(
        ok(store.session(&live.id_hash, t0()).await, "session reads"),
        Some(live.clone()),
        "session returns what create_session stored"
    );
    expect_err(
        store.create_session(&live).await,
        &StoreError::Conflict(String::new()),
        "create_session refuses a hash that exists already",
    );
    assert_eq!(
        ok(
            store.session("0".repeat(64).as_str(), t0()).await,
            "session reads"
        ),
        None,
        "session returns None for an unknown hash"
    );
    assert_eq!(
        ok(
            store
                .session(&live.id_hash, live.expires_at - secs(1))
                .await,
            "session reads"
        ),
        Some(live.clone()),
        "a session is valid until its last second"
    );
    assert_eq!(
        ok(
            store.session(&live.id_hash, live.expires_at).await,
            "session reads"
        ),
        None,
        "a session is not returned once it has expired"
    );

    let short = session(1);
    ok(
        store.create_session(&short).await,
        "create_session stores a session",
    );
    let swept = ok(
        store.delete_expired_sessions(t0() + secs(3600)).await,
        "delete_expired_sessions sweeps",
    );
    assert!(swept >= 1, "delete_expired_sessions counts what it deleted");
    assert_eq!(
        ok(store.session(&short.id_hash, t0()).await, "session reads"),
        None,
        "delete_expired_sessions deletes a session that expired"
    );
    assert_eq!(
        ok(store.session(&live.id_hash, t0()).await, "session reads"),
        Some(live.clone()),
        "delete_expired_sessions keeps sessions that are still valid"
    );

    ok(
        store.delete_session(&live.id_hash).await,
        "delete_session signs out",
    );
    assert_eq!(
        ok(store.session(&live.id_hash, t0()).await, "session reads"),
        None,
        "a deleted session is gone"
    );
    ok(
        store.delete_session(&live.id_hash).await,
        "deleting a missing session succeeds",
    );
}

/// Ending an account's sessions: every one of them, or every one but the session that asks;
/// other accounts' sessions stay.
pub async fn account_sessions<S: AccountStore + SessionStore + ?Sized>(store: &S) {
    let account = new_account(store).await;
    let other = new_account(store).await;
    let session = |account: AccountId| Session {
        id_hash: format!("{:x}{:x}", Uuid::new_v4().simple(), Uuid::new_v4().simple()),
        account_id: account,
        csrf_secret: Uuid::new_v4().simple().to_string(),
        credential_version: 0,
        created_at: t0(),
        expires_at: t0() + chrono::Duration::hours(12),
    };
    let (current, second, third, others) = (
        session(account.id),
        session(account.id),
        session(account.id),
        session(other.id),
    );
    for s in [&current, &second, &third, &others] {
        ok(
            store.create_session(s).await,
            "create_session stores a session",
        );
    }
    let live = |s: &Session| {
        let hash = s.id_hash.clone();
        async move { ok(store.session(&hash, t0()).await, "session reads").is_some() }
    };

    assert_eq!(
        ok(
            store
                .delete_account_sessions(account.id, Some(&current.id_hash))
                .await,
            "delete_account_sessions ends sessions"
        ),
        2,
        "delete_account_sessions counts the sessions it ended"
    );
    assert!(live(&current).await, "the session that asked stays");
    assert!(!live(&second).await, "the account's other sessions end");
    assert!(!live(&third).await, "the account's other sessions end");
    assert!(live(&others).await, "another account's session stays");

    assert_eq!(
        ok(
            store.delete_account_sessions(account.id, None).await,
            "delete_account_sessions ends sessions"
        ),
        1,
        "without an exception, the last session ends too"
    );
    assert!(!live(&current).await, "every session of the account ended");
    assert!(live(&others).await, "another account's session stays");
    assert_eq!(
        ok(
            store.delete_account_sessions(account.id, None).await,
            "delete_account_sessions answers for an account without sessions"
        ),
        0,
        "an account without sessions has none to end"
    );
}

/// Sessions bound to the password they were signed in with: one checked against an older
/// password is not stored, and one stored before the password changed is not found, even when
/// nothing deleted it (a sign-in that raced a change).
pub async fn credential_versions<S: AccountStore + SessionStore + ?Sized>(store: &S) {
    let account = new_account(store).await;
    let other = new_account(store).await;
    let session = |account: AccountId, version: i64| Session {
        id_hash: format!("{:x}{:x}", Uuid::new_v4().simple(), Uuid::new_v4().simple()),
        account_id: account,
        csrf_secret: Uuid::new_v4().simple().to_string(),
        credential_version: version,
        created_at: t0(),
        expires_at: t0() + chrono::Duration::hours(12),
    };
    let found = |s: &Session| {
        let hash = s.id_hash.clone();
        async move { ok(store.session(&hash, t0()).await, "session reads") }
    };
    let before = session(account.id, 0);
    let others = session(other.id, 0);
    ok(
        store.create_session(&before).await,
        "create_session stores a session of the current version",
    );
    ok(
        store.create_session(&others).await,
        "create_session stores another account's session",
    );
    let raised = ok(
        store
            .set_password_hash(
                account.id,
                "$argon2id$v=19$m=19456,t=2,p=1$bmV3c2FsdA$bmV3aGFzaA",
                0,
            )
            .await,
        "set_password_hash replaces a password hash",
    );
    assert_eq!(raised, 1, "the first change raises the version to 1");
    assert_eq!(
        found(&before).await,
        None,
        "a session made under the old password is not found once it changed"
    );
    assert_eq!(
        found(&others).await,
        Some(others.clone()),
        "another account's session stays valid"
    );
    expect_err(
        store.create_session(&session(account.id, 0)).await,
        &StoreError::CredentialsChanged,
        "create_session refuses a session checked against the old password",
    );
    expect_err(
        store
            .create_session(&session(AccountId(Uuid::new_v4()), 0))
            .await,
        &StoreError::CredentialsChanged,
        "create_session refuses a session of an account that does not exist",
    );
    let after = session(account.id, raised);
    ok(
        store.create_session(&after).await,
        "create_session stores a session of the new version",
    );
    assert_eq!(
        found(&after).await,
        Some(after.clone()),
        "a session of the current version is found"
    );
}
