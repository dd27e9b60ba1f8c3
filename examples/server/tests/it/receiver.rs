//! A customer's webhook receiver on loopback: records every delivery and checks its Standard
//! Webhooks signature with the key's secret, as a real receiver would.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use alerts_core::keys::WebhookSecret;
use alerts_core::webhook::{HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, Verifier};
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use bytes::Bytes;
use serde_json::Value;

use crate::harness::eventually;

/// One delivery that reached the receiver.
#[derive(Debug, Clone)]
pub(crate) struct Delivery {
    /// The path it was posted to.
    pub(crate) path: String,
    /// `webhook-id`.
    pub(crate) id: String,
    /// The JSON body.
    pub(crate) body: Value,
    /// The signature check's verdict: `Ok`, or why it failed.
    pub(crate) verified: Result<(), String>,
}

struct Shared {
    secret: WebhookSecret,
    deliveries: Mutex<Vec<Delivery>>,
    /// How long the receiver takes before it answers.
    delay: std::time::Duration,
}

/// The running receiver; it stops with the test's runtime.
pub(crate) struct Receiver {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Receiver {
    /// Starts a receiver on `127.0.0.1`, on a port the system picks, verifying with `secret`.
    pub(crate) async fn start(secret: &str) -> Self {
        Self::start_slow(secret, std::time::Duration::ZERO).await
    }

    /// A receiver that takes `delay` to answer each delivery (it records the delivery when
    /// it answers).
    pub(crate) async fn start_slow(secret: &str, delay: std::time::Duration) -> Self {
        let shared = Arc::new(Shared {
            secret: WebhookSecret::parse(secret).unwrap(),
            deliveries: Mutex::new(Vec::new()),
            delay,
        });
        let app = Router::new().fallback(receive).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, shared }
    }

    /// The URL of `path` on the receiver.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Everything received so far.
    pub(crate) fn deliveries(&self) -> Vec<Delivery> {
        self.shared.deliveries.lock().unwrap().clone()
    }

    /// Waits for the first delivery whose `TOKEN` is `token`.
    pub(crate) async fn delivery_for(&self, token: &str) -> Delivery {
        eventually(&format!("the delivery of {token}"), || {
            self.deliveries()
                .into_iter()
                .find(|d| d.body["TOKEN"] == token)
        })
        .await
    }
}

async fn receive(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    tokio::time::sleep(shared.delay).await;
    let verified = verify_delivery(&shared.secret, &headers, &body);
    let id = headers
        .get(HEADER_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let ok = verified.is_ok();
    shared.deliveries.lock().unwrap().push(Delivery {
        path: uri.path().to_owned(),
        id,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        verified,
    });
    // A receiver refuses what it cannot verify; the test reads the verdict it recorded.
    if ok {
        StatusCode::NO_CONTENT
    } else {
        StatusCode::UNAUTHORIZED
    }
}

/// Checks a delivery's Standard Webhooks headers against `secret`, as a receiver would; why it
/// fails, if it does.
pub(crate) fn verify_delivery(
    secret: &WebhookSecret,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(), String> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    Verifier::default()
        .verify(
            std::slice::from_ref(secret),
            &header(HEADER_ID),
            &header(HEADER_TIMESTAMP),
            &header(HEADER_SIGNATURE),
            body,
            chrono::Utc::now(),
        )
        .map_err(|e| e.to_string())
}
