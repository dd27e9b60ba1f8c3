//! A revoked key acts no more: nothing is sent, changed or redelivered for it.

use crate::harness::Deployment;

use super::browser::{Browser, text};
use super::canned::Canned;
use super::fixtures::{account_with_key, key_listing, new_email, serve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_key_sends_no_test_delivery_and_cannot_be_renamed() {
    let deployment = Deployment::new();
    let email = new_email();
    let key = account_with_key(&deployment, &email);
    let receiver = Canned::start(204, &[]).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let csrf = browser.signed_in(&email).await;

    // While the key is live, the test reaches the receiver.
    let live = browser
        .post(
            "/dashboard/alerts/test",
            &[("key", &key.id), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(live.status, 200, "{}", text(&live));
    assert_eq!(receiver.hits().len(), 1);

    deployment.admin(&["revoke-key", "--key", &key.id]);
    let test = browser
        .post(
            "/dashboard/alerts/test",
            &[("key", &key.id), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(test.status, 409, "{}", text(&test));
    assert!(
        text(&test).contains("This key is revoked"),
        "{}",
        text(&test)
    );
    assert_eq!(
        receiver.hits().len(),
        1,
        "nothing was sent for the revoked key"
    );

    let renamed = browser
        .post(
            "/dashboard/keys/label",
            &[("key", &key.id), ("label", "renamed"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(renamed.status, 409, "{}", text(&renamed));
    let listed = key_listing(&deployment, &email, &key.id);
    assert_eq!(listed["label"], "security", "{listed}");

    let rotated = browser
        .post(
            "/dashboard/alerts/rotate",
            &[("key", &key.id), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(rotated.status, 409, "{}", text(&rotated));
    let redelivered = browser
        .post(
            "/dashboard/deliveries/redeliver",
            &[
                ("key", &key.id),
                ("token", &uuid::Uuid::new_v4().to_string()),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(redelivered.status, 409, "{}", text(&redelivered));
    assert_eq!(receiver.hits().len(), 1);
}
