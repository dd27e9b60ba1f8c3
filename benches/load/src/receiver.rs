//! A customer's webhook receiver on loopback: verifies each delivery's Standard Webhooks
//! signature with the key's secret, as a real receiver must, and remembers the tokens and file
//! URLs it was told about. Deliveries that do not verify are refused (401) and counted.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use alerts_core::keys::WebhookSecret;
use alerts_core::webhook::{HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, Verifier};
use anyhow::{Context, Result, anyhow, bail};
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use bytes::Bytes;
use tokio::sync::Notify;

#[derive(Default)]
struct Record {
    /// Each token delivered, with the file URL of its first delivery and when it arrived.
    delivered: HashMap<String, (String, Instant)>,
    /// Deliveries received, repeats included.
    received: u64,
    /// Deliveries refused: bad signature or body.
    refused: u64,
    /// Why the first refused delivery was refused.
    first_refusal: Option<String>,
}

struct Shared {
    secret: WebhookSecret,
    record: Mutex<Record>,
    arrived: Notify,
}

impl Shared {
    fn record(&self) -> std::sync::MutexGuard<'_, Record> {
        // A panic while holding the lock leaves the record itself intact.
        self.record.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The running receiver. It serves until the runtime it was started on stops.
#[derive(Clone)]
pub struct Receiver {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Receiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Receiver {
    /// Starts a receiver on `127.0.0.1` at a port the system picks, verifying deliveries with
    /// `secret` (`whsec_...`).
    ///
    /// # Errors
    /// When the secret is malformed or no port can be bound.
    pub async fn start(secret: &str) -> Result<Self> {
        let secret = WebhookSecret::parse(secret)
            .map_err(|_| anyhow!("`{secret}` is not a whsec_ webhook secret"))?;
        let shared = Arc::new(Shared {
            secret,
            record: Mutex::new(Record::default()),
            arrived: Notify::new(),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .context("cannot bind the webhook receiver")?;
        let addr = listener.local_addr()?;
        let app = Router::new().fallback(receive).with_state(shared.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Ok(Self { addr, shared })
    }

    /// The URL deliveries are posted to.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    /// Distinct tokens delivered so far.
    #[must_use]
    pub fn delivered(&self) -> usize {
        self.shared.record().delivered.len()
    }

    /// Deliveries received so far, repeats included.
    #[must_use]
    pub fn received(&self) -> u64 {
        self.shared.record().received
    }

    /// Deliveries refused so far because they did not verify, and why the first was.
    #[must_use]
    pub fn refused(&self) -> (u64, Option<String>) {
        let record = self.shared.record();
        (record.refused, record.first_refusal.clone())
    }

    /// The tokens among `tokens` not delivered yet.
    #[must_use]
    pub fn missing<'a>(&self, tokens: &'a [String]) -> Vec<&'a String> {
        let record = self.shared.record();
        tokens
            .iter()
            .filter(|t| !record.delivered.contains_key(*t))
            .collect()
    }

    /// Waits until every token of `tokens` has been delivered, at most `patience`; the tokens
    /// still missing then.
    pub async fn wait_for_all<'a>(
        &self,
        tokens: &'a [String],
        patience: Duration,
    ) -> Vec<&'a String> {
        let deadline = tokio::time::Instant::now() + patience;
        loop {
            // Registered before looking, so that a delivery between the look and the wait
            // still wakes this waiter.
            let arrived = self.shared.arrived.notified();
            let missing = self.missing(tokens);
            if missing.is_empty() {
                return missing;
            }
            // Waking on each delivery is cheap; a timer bounds the wait when none comes.
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return self.missing(tokens);
            }
        }
    }

    /// When the first delivery of `token` arrived, if it did.
    #[must_use]
    pub fn arrival(&self, token: &str) -> Option<Instant> {
        self.shared.record().delivered.get(token).map(|(_, at)| *at)
    }

    /// Waits for the delivery of `token`, at most `patience`; when it arrived and the file
    /// URL it carried.
    ///
    /// # Errors
    /// When the delivery does not come in time.
    pub async fn wait_for(&self, token: &str, patience: Duration) -> Result<(Instant, String)> {
        let tokens = [token.to_owned()];
        if !self.wait_for_all(&tokens, patience).await.is_empty() {
            let (refused, why) = self.refused();
            bail!(
                "no delivery of {token} within {patience:?} ({refused} refused{})",
                why.map(|w| format!(": {w}")).unwrap_or_default()
            );
        }
        let record = self.shared.record();
        let (url, at) = record
            .delivered
            .get(token)
            .ok_or_else(|| anyhow!("the delivery of {token} was forgotten"))?;
        Ok((*at, url.clone()))
    }
}

async fn receive(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let arrived = Instant::now();
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    let verdict = Verifier::default()
        .verify(
            std::slice::from_ref(&shared.secret),
            header(HEADER_ID),
            header(HEADER_TIMESTAMP),
            header(HEADER_SIGNATURE),
            &body,
            chrono::Utc::now(),
        )
        .map_err(|e| e.to_string())
        .and_then(|()| {
            let payload: serde_json::Value =
                serde_json::from_slice(&body).map_err(|e| format!("the body is not JSON: {e}"))?;
            let text = |name: &str| {
                payload[name]
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("the body has no {name}: {payload}"))
            };
            Ok((text("TOKEN")?, text("URL")?))
        });
    let mut record = shared.record();
    record.received += 1;
    let status = match verdict {
        Ok((token, url)) => {
            record.delivered.entry(token).or_insert((url, arrived));
            StatusCode::NO_CONTENT
        }
        Err(why) => {
            record.refused += 1;
            record.first_refusal.get_or_insert(why);
            StatusCode::UNAUTHORIZED
        }
    };
    drop(record);
    shared.arrived.notify_waiters();
    status
}
