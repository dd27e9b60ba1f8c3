//! Senders and requests shared by the test modules.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use alerts_core::ports::WebhookRequest;
use alerts_core::webhook::signed_request;
use bytes::Bytes;
use identity_core::keys::WebhookSecret;
use webhook_http::{AddressPolicy, HttpWebhookSender, WebhookHttpConfig};

/// The Standard Webhooks specification's example secret.
pub(crate) const SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";

pub(crate) fn secret() -> WebhookSecret {
    WebhookSecret::parse(SECRET).unwrap()
}

/// A sender allowed to reach loopback, as in the local quick start.
pub(crate) fn loopback_sender(timeout: Duration) -> HttpWebhookSender {
    HttpWebhookSender::new(WebhookHttpConfig {
        timeout,
        policy: AddressPolicy::loopback(),
        ..WebhookHttpConfig::default()
    })
    .unwrap()
}

/// A sender with the default configuration: public addresses only.
pub(crate) fn strict_sender() -> HttpWebhookSender {
    HttpWebhookSender::new(WebhookHttpConfig::default()).unwrap()
}

/// A delivery to `url` signed now with `secret`.
pub(crate) fn signed(url: &str, secret: &WebhookSecret) -> WebhookRequest {
    let body = Bytes::from_static(
        br#"{"KEY":"ik_0123abcd","TOKEN":"6f1c2b0e-8a4d-4e0f-9c3b-2d7e5a1f0b9c","URL":"http://127.0.0.1/f"}"#,
    );
    signed_request(
        url,
        [secret],
        "msg_6f1c2b0e8a4d4e0f9c3b2d7e5a1f0b9c",
        chrono::Utc::now().timestamp(),
        body,
    )
}

/// Fails the test instead of hanging it when the sender does not come back.
pub(crate) async fn within_a_minute<F: std::future::Future>(sending: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), sending)
        .await
        .expect("the sender did not come back within a minute")
}
