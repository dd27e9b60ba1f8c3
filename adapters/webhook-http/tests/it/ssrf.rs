//! The address policy at send time: refused targets get no request at all.

use std::time::Duration;

use alerts_core::ports::{DeliveryErrorKind, WebhookSender};
use webhook_http::{AddressPolicy, HttpWebhookSender, WebhookHttpConfig};

use crate::support::{loopback_sender, secret, signed, strict_sender};
use test_support::receiver::Receiver;

#[tokio::test]
async fn loopback_without_the_allow_list_is_forbidden_and_never_reached() {
    let receiver = Receiver::start().await;

    let response = strict_sender()
        .send(&signed(&receiver.url("/ok"), &secret()))
        .await;

    assert_eq!(response.status, None);
    assert_eq!(response.error, Some(DeliveryErrorKind::Forbidden));
    assert!(receiver.deliveries().is_empty());
}

#[tokio::test]
async fn every_spelling_of_this_machine_is_forbidden_and_never_reached() {
    let receiver = Receiver::start().await;
    let sender = strict_sender();
    let port = receiver.addr().port();

    // 0.0.0.0 and [::] reach the local host on Linux, so they matter as much as 127.0.0.1.
    for host in [
        "127.1",
        "2130706433",
        "0x7f000001",
        "127.0.0.1.",
        "0.0.0.0",
        "0",
        "[::ffff:127.0.0.1]",
        "[::127.0.0.1]",
        "[::1]",
        "[::]",
    ] {
        let url = format!("http://{host}:{port}/ok");
        let response = sender.send(&signed(&url, &secret())).await;
        assert_eq!(response.status, None, "{url}");
        assert_eq!(response.error, Some(DeliveryErrorKind::Forbidden), "{url}");
    }
    assert!(receiver.deliveries().is_empty());
}

#[tokio::test]
async fn a_name_that_resolves_to_loopback_is_forbidden_without_the_allow_list() {
    // `localhost` is not an IP literal, so only the resolver can catch it.
    let receiver = Receiver::start().await;

    let response = strict_sender()
        .send(&signed(&receiver.localhost_url("/ok"), &secret()))
        .await;

    assert_eq!(response.status, None);
    assert_eq!(response.error, Some(DeliveryErrorKind::Forbidden));
    assert!(receiver.deliveries().is_empty());
}

#[tokio::test]
async fn a_name_that_resolves_to_loopback_is_delivered_with_the_allow_list() {
    let receiver = Receiver::start().await;

    let response = loopback_sender(Duration::from_secs(10))
        .send(&signed(&receiver.localhost_url("/ok"), &secret()))
        .await;

    assert_eq!(response.status, Some(200));
    assert_eq!(response.error, None);
    assert_eq!(receiver.deliveries_to("/ok").len(), 1);
}

#[tokio::test]
async fn an_allow_list_for_another_network_does_not_open_loopback() {
    let receiver = Receiver::start().await;
    let sender = HttpWebhookSender::new(WebhookHttpConfig {
        policy: AddressPolicy::allowing(["10.0.0.0/8".parse().unwrap()]),
        ..WebhookHttpConfig::default()
    })
    .unwrap();

    for url in [receiver.url("/ok"), receiver.localhost_url("/ok")] {
        let response = sender.send(&signed(&url, &secret())).await;
        assert_eq!(response.error, Some(DeliveryErrorKind::Forbidden), "{url}");
    }
    assert!(receiver.deliveries().is_empty());
}

#[tokio::test]
async fn the_cloud_metadata_service_stays_forbidden_with_private_networks_allowed() {
    let sender = HttpWebhookSender::new(WebhookHttpConfig {
        policy: AddressPolicy::private_networks(),
        ..WebhookHttpConfig::default()
    })
    .unwrap();

    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::a9fe:a9fe]/",
        "http://[::ffff:169.254.169.254]/",
    ] {
        let response = sender.send(&signed(url, &secret())).await;
        assert_eq!(response.status, None, "{url}");
        assert_eq!(response.error, Some(DeliveryErrorKind::Forbidden), "{url}");
    }
}

#[tokio::test]
async fn urls_that_are_not_http_or_carry_credentials_are_forbidden() {
    let receiver = Receiver::start().await;
    let sender = loopback_sender(Duration::from_secs(10));
    let port = receiver.addr().port();

    for url in [
        format!("ftp://127.0.0.1:{port}/ok"),
        format!("http://user:secret@127.0.0.1:{port}/ok"),
        "not a url".to_owned(),
    ] {
        let response = sender.send(&signed(&url, &secret())).await;
        assert_eq!(response.error, Some(DeliveryErrorKind::Forbidden), "{url}");
    }
    assert!(receiver.deliveries().is_empty());
}
