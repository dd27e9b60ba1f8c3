//! The [`WebhookSender`] that posts deliveries over HTTP(S).

use std::error::Error as _;
use std::sync::Arc;

use alerts_core::ports::{DeliveryErrorKind, WebhookRequest, WebhookResponse, WebhookSender};
use async_trait::async_trait;
use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use thiserror::Error;
use tokio::time::Instant;

use crate::config::WebhookHttpConfig;
use crate::policy::AddressPolicy;
use crate::resolver::{AllAddressesBlocked, GuardedResolver};
use crate::webhook_url::validate_webhook_url;

/// Headers the sender sets itself: the body's type, the client's name and the message framing.
/// A caller's value for them is ignored, so a delivery is always framed the same way.
const OWNED_HEADERS: [HeaderName; 5] = [
    header::CONTENT_TYPE,
    header::CONTENT_LENGTH,
    header::TRANSFER_ENCODING,
    header::HOST,
    header::USER_AGENT,
];

/// Why a sender could not be built from its configuration.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The time limit is zero, so every delivery would time out.
    #[error("the webhook timeout is zero; set it to a few seconds (the default is 10 s)")]
    ZeroTimeout,
    /// The user agent cannot be sent as an HTTP header.
    #[error("the webhook user agent {0:?} is not a valid HTTP header value; use printable ASCII")]
    UserAgent(String),
    /// The HTTP client (its TLS setup, for one) could not be created.
    #[error("the webhook HTTP client could not be set up: {0}")]
    Client(#[source] reqwest::Error),
}

/// Sends deliveries as JSON `POST`s.
///
/// Each attempt:
/// - refuses URLs that are not `http`/`https`, carry credentials, or name a refused literal IP
///   address ([`DeliveryErrorKind::Forbidden`], nothing sent);
/// - resolves host names through a resolver that drops the addresses the
///   [`AddressPolicy`] refuses, at connect time, so DNS rebinding cannot slip past it; when
///   nothing is left the attempt is [`DeliveryErrorKind::Forbidden`] and nothing is sent;
/// - goes direct, never through a proxy from the environment;
/// - sends the request's headers plus `Content-Type: application/json` and the configured
///   `User-Agent`;
/// - follows no redirect: a 3xx is a [`DeliveryErrorKind::Status`] failure like any non-2xx;
/// - gives up at the configured timeout ([`DeliveryErrorKind::Timeout`]);
/// - reads at most the configured number of response body bytes, within the same time limit,
///   and drops the rest; the status decides the outcome.
///
/// Connections to a receiver are kept open and reused between deliveries.
///
/// ```
/// use alerts_core::ports::{DeliveryErrorKind, WebhookRequest, WebhookSender};
/// use webhook_http::{HttpWebhookSender, WebhookHttpConfig};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let sender = HttpWebhookSender::new(WebhookHttpConfig::default())?;
/// let request = WebhookRequest {
///     url: "http://169.254.169.254/latest/meta-data/".to_owned(),
///     headers: vec![],
///     body: bytes::Bytes::from_static(b"{}"),
/// };
/// let response = sender.send(&request).await;
/// assert_eq!(response.error, Some(DeliveryErrorKind::Forbidden));
/// assert_eq!(response.status, None);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct HttpWebhookSender {
    client: reqwest::Client,
    policy: Arc<AddressPolicy>,
    timeout: std::time::Duration,
    max_response_body: usize,
}

impl HttpWebhookSender {
    /// Builds a sender. Fails only on a configuration that cannot work.
    pub fn new(config: WebhookHttpConfig) -> Result<Self, BuildError> {
        if config.timeout.is_zero() {
            return Err(BuildError::ZeroTimeout);
        }
        let user_agent = HeaderValue::from_str(&config.user_agent)
            .map_err(|_| BuildError::UserAgent(config.user_agent.clone()))?;
        let policy = Arc::new(config.policy);
        let client = reqwest::Client::builder()
            .user_agent(user_agent)
            .timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none())
            // A proxy would resolve the host itself, out of the guarded resolver's reach.
            .no_proxy()
            .dns_resolver(GuardedResolver::new(Arc::clone(&policy)))
            .build()
            .map_err(BuildError::Client)?;
        Ok(Self {
            client,
            policy,
            timeout: config.timeout,
            max_response_body: config.max_response_body,
        })
    }

    /// The addresses this sender may deliver to; the same policy should check URLs when they
    /// are saved ([`validate_webhook_url`]).
    pub fn policy(&self) -> &AddressPolicy {
        &self.policy
    }

    async fn attempt(
        &self,
        request: &WebhookRequest,
        deadline: Instant,
    ) -> (Option<u16>, Option<DeliveryErrorKind>) {
        let url = match validate_webhook_url(&request.url, &self.policy) {
            Ok(url) => url,
            Err(error) => {
                tracing::warn!(%error, "webhook not sent: its URL is refused");
                return (None, Some(DeliveryErrorKind::Forbidden));
            }
        };
        let host = url.host_str().unwrap_or_default().to_owned();

        let mut headers = HeaderMap::with_capacity(request.headers.len() + 1);
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        for (name, value) in &request.headers {
            let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) else {
                // The headers come from the signing code, so this is a bug, not a receiver's
                // fault; the attempt is logged as unsent and retried like a failed connection.
                tracing::error!(header = %name, "webhook not sent: a header is not valid HTTP");
                return (None, Some(DeliveryErrorKind::Connect));
            };
            if !OWNED_HEADERS.contains(&name) {
                headers.append(name, value);
            }
        }

        let sending = self
            .client
            .post(url)
            .headers(headers)
            .body(request.body.clone())
            .send();
        let mut response = match tokio::time::timeout_at(deadline, sending).await {
            Err(_elapsed) => {
                tracing::debug!(%host, "webhook timed out");
                return (None, Some(DeliveryErrorKind::Timeout));
            }
            Ok(Err(error)) => {
                let kind = classify(&error);
                if kind == DeliveryErrorKind::Forbidden {
                    tracing::warn!(%host, error = %error_chain(&error), "webhook not sent");
                } else {
                    tracing::debug!(%host, error = %error_chain(&error), "webhook failed");
                }
                return (None, Some(kind));
            }
            Ok(Ok(response)) => response,
        };

        let status = response.status();
        // The answer is already decided by the status; whatever the body does (end, stall,
        // stream forever) only costs up to the cap and the rest of the time limit.
        let _ =
            tokio::time::timeout_at(deadline, drain(&mut response, self.max_response_body)).await;
        drop(response);

        let error = (!status.is_success()).then_some(DeliveryErrorKind::Status);
        (Some(status.as_u16()), error)
    }
}

#[async_trait]
impl WebhookSender for HttpWebhookSender {
    async fn send(&self, request: &WebhookRequest) -> WebhookResponse {
        let started = Instant::now();
        let (status, error) = self.attempt(request, started + self.timeout).await;
        WebhookResponse {
            status,
            latency: started.elapsed(),
            error,
        }
    }
}

/// Reads and discards up to `cap` bytes of the body, or to its end.
async fn drain(response: &mut reqwest::Response, cap: usize) {
    let mut read = 0;
    while read < cap {
        match response.chunk().await {
            Ok(Some(chunk)) => read += chunk.len(),
            Ok(None) | Err(_) => break,
        }
    }
}

/// Sorts a failed request into the delivery log's classes.
fn classify(error: &reqwest::Error) -> DeliveryErrorKind {
    let mut source = error.source();
    while let Some(cause) = source {
        if cause.is::<AllAddressesBlocked>() {
            return DeliveryErrorKind::Forbidden;
        }
        source = cause.source();
    }
    if error.is_timeout() {
        DeliveryErrorKind::Timeout
    } else {
        // Refused or reset connections, DNS failures, TLS failures and receivers that hang up
        // without answering: in every case no response came.
        DeliveryErrorKind::Connect
    }
}

/// The error and its causes on one line, for the log.
/// What went wrong, for the log: the kind of failure and its causes, but not reqwest's own
/// message, which quotes the whole URL, and a receiver's URL may carry its own credentials.
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = String::from(if error.is_connect() {
        "connection failed"
    } else if error.is_timeout() {
        "timed out"
    } else if error.is_body() || error.is_decode() {
        "reading the response failed"
    } else {
        "request failed"
    });
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod log_tests {
    use super::error_chain;

    #[tokio::test]
    async fn logged_errors_leave_the_url_out() {
        // Port 9 on loopback has nothing listening: a connection error, quickly.
        let url = "http://127.0.0.1:9/hook?token=s3cret-in-the-url";
        let error = reqwest::Client::new().post(url).send().await.unwrap_err();
        assert!(
            error.to_string().contains("s3cret"),
            "reqwest quotes the URL: {error}"
        );
        let text = error_chain(&error);
        assert!(text.starts_with("connection failed"), "{text}");
        assert!(
            !text.contains("s3cret") && !text.contains("/hook"),
            "{text}"
        );
    }
}
