//! Sending signed webhooks: the [`WebhookSender`] port.

use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

/// A signed webhook request, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRequest {
    /// The receiver's URL.
    pub url: String,
    /// The Standard Webhooks headers: `webhook-id`, `webhook-timestamp`, `webhook-signature`.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Bytes,
}

/// How an attempt failed, in classes that the delivery log and the retry policy understand.
///
/// Its names are those the delivery log keeps:
///
/// ```
/// use alerts_core::ports::DeliveryErrorKind;
///
/// assert_eq!(DeliveryErrorKind::Timeout.as_str(), "timeout");
/// assert!("dns".parse::<DeliveryErrorKind>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryErrorKind {
    /// The receiver could not be reached (DNS, refused connection, TLS).
    Connect,
    /// No answer within the time limit.
    Timeout,
    /// The receiver answered with a status other than 2xx (redirects included).
    Status,
    /// The URL is not allowed: a private or reserved address, or not http(s).
    Forbidden,
}

names!(DeliveryErrorKind, "delivery error", {
    Connect => "connect",
    Timeout => "timeout",
    Status => "status",
    Forbidden => "forbidden",
});

/// The result of one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebhookResponse {
    /// The HTTP status, when a response came.
    pub status: Option<u16>,
    /// How long the attempt took.
    pub latency: Duration,
    /// What went wrong, if anything; `None` means a 2xx.
    pub error: Option<DeliveryErrorKind>,
}

/// Sends webhooks.
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// Sends one request. Failures are described in the response, not returned as errors, so
    /// that every attempt can be recorded alike.
    async fn send(&self, request: &WebhookRequest) -> WebhookResponse;
}
