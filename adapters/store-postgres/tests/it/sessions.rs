//! A sign-in that races a password change on another replica: the session it would store rests
//! on the old password, so the store waits for the change and then refuses it.

use std::time::Duration;

use identity_core::conformance::fixtures::{new_account, t0};
use identity_core::ports::{Session, SessionStore, StoreError};
use sqlx::Connection;

use crate::support::{OnTestDb as _, TestDb};

#[tokio::test]
async fn a_session_checked_before_a_password_change_under_way_is_refused_when_it_commits() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = db.store().await;
    let account = new_account(&store).await;

    // Another replica changes the password and has not committed yet.
    let mut change = db.raw().await;
    let mut tx = change.begin().await.unwrap();
    sqlx::query(
        "UPDATE accounts SET password_hash = 'changed', \
         credential_version = credential_version + 1 WHERE id = $1",
    )
    .bind(account.id.0)
    .execute(&mut *tx)
    .await
    .unwrap();

    let session = Session {
        id_hash: "a".repeat(64),
        account_id: account.id,
        csrf_secret: "csrf".to_owned(),
        credential_version: account.credential_version,
        created_at: t0(),
        expires_at: t0() + chrono::Duration::hours(12),
    };
    let signing_in = {
        let store = store.clone();
        let session = session.clone();
        tokio::spawn(async move { store.create_session(&session).await })
    };
    // The insert holds on the account's row until the change ends, rather than storing a
    // session of the password being replaced: it is seen waiting on a lock before the change
    // commits.
    let mut watch = db.raw().await;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock' \
             AND query LIKE 'INSERT INTO sessions%'",
        )
        .fetch_one(&mut watch)
        .await
        .unwrap();
        if waiting > 0 {
            break;
        }
        assert!(
            !signing_in.is_finished(),
            "the session was stored or refused without waiting for the change"
        );
        assert!(
            std::time::Instant::now() < deadline,
            "the insert never waited on the account's row"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tx.commit().await.unwrap();
    assert_eq!(
        signing_in.await.unwrap(),
        Err(StoreError::CredentialsChanged),
        "once the change commits, the session of the old password is refused"
    );
    assert_eq!(store.session(&session.id_hash, t0()).await.unwrap(), None);
}
