//! What reaches a receiver, and how each kind of answer is reported.

use std::time::Duration;

use alerts_core::ports::{DeliveryErrorKind, WebhookSender};
use axum::http::Method;
use identity_core::keys::WebhookSecret;
use webhook_http::config::DEFAULT_USER_AGENT;
use webhook_http::{BuildError, HttpWebhookSender, WebhookHttpConfig};

use crate::support::{loopback_sender, secret, signed, within_a_minute};
use test_support::receiver::Receiver;

const TEN_SECONDS: Duration = Duration::from_secs(10);
/// Short enough that timeout tests finish quickly, long enough for loopback to answer.
const SHORT: Duration = Duration::from_millis(500);

#[tokio::test]
async fn a_signed_delivery_arrives_intact_and_verifies() {
    let receiver = Receiver::start().await;
    receiver.verify_with(secret(), chrono::Utc::now);
    let request = signed(&receiver.url("/ok"), &secret());

    let response = loopback_sender(TEN_SECONDS).send(&request).await;

    assert_eq!(response.status, Some(200));
    assert_eq!(response.error, None);
    let hits = receiver.deliveries_to("/ok");
    assert_eq!(hits.len(), 1);
    let hit = &hits[0];
    assert_eq!(hit.method, Method::POST);
    assert_eq!(hit.body, request.body);
    assert_eq!(hit.verified, Some(Ok(())));
    for (name, value) in &request.headers {
        assert_eq!(hit.headers.get(name).unwrap(), value.as_str(), "{name}");
    }
    assert_eq!(hit.headers.get("content-type").unwrap(), "application/json");
    assert_eq!(hit.headers.get("user-agent").unwrap(), DEFAULT_USER_AGENT);
}

#[tokio::test]
async fn a_delivery_signed_with_another_secret_is_refused_by_the_receiver() {
    // Shows that the receiver's check in the test above can fail.
    let receiver = Receiver::start().await;
    receiver.verify_with(secret(), chrono::Utc::now);
    let other = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();

    let response = loopback_sender(TEN_SECONDS)
        .send(&signed(&receiver.url("/ok"), &other))
        .await;

    assert_eq!(response.status, Some(401));
    assert_eq!(response.error, Some(DeliveryErrorKind::Status));
    assert!(matches!(
        receiver.deliveries_to("/ok")[0].verified,
        Some(Err(_))
    ));
}

#[tokio::test]
async fn the_sender_sets_the_content_type_whatever_the_caller_passes() {
    let receiver = Receiver::start().await;
    let mut request = signed(&receiver.url("/ok"), &secret());
    request
        .headers
        .push(("Content-Type".to_owned(), "text/plain".to_owned()));

    let response = loopback_sender(TEN_SECONDS).send(&request).await;

    assert_eq!(response.error, None);
    let hit = &receiver.deliveries_to("/ok")[0];
    let types: Vec<_> = hit.headers.get_all("content-type").iter().collect();
    assert_eq!(types, ["application/json"]);
}

#[tokio::test]
async fn a_500_is_a_status_failure_that_keeps_the_status() {
    let receiver = Receiver::start().await;

    let response = loopback_sender(TEN_SECONDS)
        .send(&signed(&receiver.url("/status/500"), &secret()))
        .await;

    assert_eq!(response.status, Some(500));
    assert_eq!(response.error, Some(DeliveryErrorKind::Status));
}

#[tokio::test]
async fn a_410_is_reported_with_its_status_for_the_pipeline_to_stop_on() {
    let receiver = Receiver::start().await;

    let response = loopback_sender(TEN_SECONDS)
        .send(&signed(&receiver.url("/status/410"), &secret()))
        .await;

    assert_eq!(response.status, Some(410));
    assert_eq!(response.error, Some(DeliveryErrorKind::Status));
}

#[tokio::test]
async fn any_2xx_is_a_success() {
    let receiver = Receiver::start().await;
    let sender = loopback_sender(TEN_SECONDS);

    for status in [200, 201, 202, 204, 299] {
        let response = sender
            .send(&signed(
                &receiver.url(&format!("/status/{status}")),
                &secret(),
            ))
            .await;
        assert_eq!(response.status, Some(status));
        assert_eq!(response.error, None, "{status}");
    }
}

#[tokio::test]
async fn a_receiver_slower_than_the_timeout_is_a_timeout() {
    let receiver = Receiver::start().await;

    let response =
        within_a_minute(loopback_sender(SHORT).send(&signed(&receiver.url("/slow"), &secret())))
            .await;

    assert_eq!(response.status, None);
    assert_eq!(response.error, Some(DeliveryErrorKind::Timeout));
    assert!(response.latency >= SHORT, "{:?}", response.latency);
    assert_eq!(receiver.deliveries_to("/slow").len(), 1);
}

#[tokio::test]
async fn a_redirect_is_a_failure_and_its_target_is_never_requested() {
    let receiver = Receiver::start().await;

    let response = loopback_sender(TEN_SECONDS)
        .send(&signed(&receiver.url("/redirect"), &secret()))
        .await;

    assert_eq!(response.status, Some(302));
    assert_eq!(response.error, Some(DeliveryErrorKind::Status));
    assert_eq!(receiver.deliveries_to("/redirect").len(), 1);
    assert!(receiver.deliveries_to("/target").is_empty());
}

#[tokio::test]
async fn an_endless_body_does_not_hold_the_sender() {
    let receiver = Receiver::start().await;
    // A time limit far beyond the test's one-minute guard: only the body cap can end the read
    // before the guard fails the test.
    let sender = loopback_sender(Duration::from_secs(3600));

    let response = within_a_minute(sender.send(&signed(&receiver.url("/huge"), &secret()))).await;

    assert_eq!(response.status, Some(200));
    assert_eq!(response.error, None);
}

#[tokio::test]
async fn a_body_that_never_comes_ends_at_the_timeout_and_the_status_counts() {
    let receiver = Receiver::start().await;

    let response =
        within_a_minute(loopback_sender(SHORT).send(&signed(&receiver.url("/stall"), &secret())))
            .await;

    // The 2xx came within the limit; the body is not part of the contract.
    assert_eq!(response.status, Some(200));
    assert_eq!(response.error, None);
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_failure() {
    // A port that was just free: nothing listens there any more.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);

    let response = loopback_sender(TEN_SECONDS)
        .send(&signed(&format!("http://{addr}/hook"), &secret()))
        .await;

    assert_eq!(response.status, None);
    assert_eq!(response.error, Some(DeliveryErrorKind::Connect));
}

#[tokio::test]
async fn https_to_a_receiver_without_tls_is_a_connect_failure() {
    let receiver = Receiver::start().await;
    let url = format!("https://{}/ok", receiver.addr());

    let response = loopback_sender(TEN_SECONDS)
        .send(&signed(&url, &secret()))
        .await;

    assert_eq!(response.status, None);
    assert_eq!(response.error, Some(DeliveryErrorKind::Connect));
    assert!(receiver.deliveries().is_empty());
}

#[test]
fn configurations_that_cannot_work_are_refused() {
    let zero = HttpWebhookSender::new(WebhookHttpConfig {
        timeout: Duration::ZERO,
        ..WebhookHttpConfig::default()
    });
    assert!(matches!(zero, Err(BuildError::ZeroTimeout)));

    let bad_agent = HttpWebhookSender::new(WebhookHttpConfig {
        user_agent: "line\nbreak".to_owned(),
        ..WebhookHttpConfig::default()
    });
    assert!(matches!(bad_agent, Err(BuildError::UserAgent(_))));
}
