//! A customer's webhook receiver on loopback, for every test and tool that needs one: a real
//! HTTP server that records each request, checks its Standard Webhooks signature when it has
//! the key's secret, and answers as the test asks (well-behaved, failing, slow, hostile, or not
//! listening at all).
//!
//! Deliveries to any path get the receiver's answer (204 unless [`Receiver::answer`] says
//! otherwise; 401 when a signature is checked and fails), after [`Receiver::delay`]. A few paths
//! answer for themselves, for the sender's own tests:
//!
//! - `/ok` and `/target`: 200 (only a redirect leads to `/target`);
//! - `/status/<code>`: that status;
//! - `/scripted`: the next answer of [`Receiver::script`], then 200;
//! - `/redirect`: 302 to `/target` on the same server;
//! - `/slow`: answers after a minute;
//! - `/huge`: 200 and a body that never ends;
//! - `/stall`: 200 and a body that never sends a byte.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use test_support::receiver::Receiver;
//!
//! let receiver = Receiver::start().await;
//! let reply = reqwest::Client::new()
//!     .post(receiver.url("/hook"))
//!     .body(r#"{"TOKEN": "t-1", "URL": "https://files.example/t-1"}"#)
//!     .send()
//!     .await
//!     .unwrap();
//! assert_eq!(reply.status(), 204);
//! let delivery = receiver.delivery_for("t-1").await;
//! assert_eq!(delivery.json["URL"], "https://files.example/t-1");
//! assert_eq!(delivery.verified, None, "no secret, no check");
//! # });
//! ```

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use alerts_core::webhook::{HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, Verifier};
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use identity_core::keys::WebhookSecret;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// How long [`Receiver::delivery_for`] waits.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// One request that reached the receiver.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// The request's method.
    pub method: Method,
    /// The path it was sent to.
    pub path: String,
    /// Its headers.
    pub headers: HeaderMap,
    /// Its body as sent.
    pub body: Bytes,
    /// The body as JSON; `Null` when it is not JSON.
    pub json: Value,
    /// `webhook-id`, empty without one.
    pub id: String,
    /// When it arrived.
    pub arrived: Instant,
    /// The signature check's verdict (`Ok`, or why it failed); `None` when the receiver has no
    /// secret to check with.
    pub verified: Option<Result<(), String>>,
    /// What the receiver answered (for the paths that answer for themselves, what they would).
    pub answered: StatusCode,
}

impl Delivery {
    /// The `TOKEN` of the payload, if it has one.
    #[must_use]
    pub fn token(&self) -> Option<&str> {
        self.json["TOKEN"].as_str()
    }
}

type Now = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

struct Settings {
    /// The secret and the clock signatures are checked with.
    verify: Option<(WebhookSecret, Now)>,
    /// What deliveries get.
    answer: StatusCode,
    /// How long the receiver takes before it answers.
    delay: Duration,
    /// What `/scripted` answers, in order: a status, or `None` for "nothing for a minute".
    script: VecDeque<Option<u16>>,
}

#[derive(Default)]
struct Record {
    deliveries: Vec<Delivery>,
    /// The index of the first delivery of each token.
    first: HashMap<String, usize>,
}

struct Shared {
    settings: Mutex<Settings>,
    record: Mutex<Record>,
    arrived: Notify,
}

/// A test's lock on data no test step leaves half-changed: a panic elsewhere does not poison it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The running receiver. It serves until it is dropped or its runtime stops.
pub struct Receiver {
    addr: SocketAddr,
    shared: Arc<Shared>,
    serving: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for Receiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if let Some(serving) = lock(&self.serving).take() {
            serving.abort();
        }
    }
}

impl Receiver {
    /// A receiver on `127.0.0.1`, on a port the system picks, that checks no signatures.
    ///
    /// # Panics
    /// When no port can be bound.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("cannot bind the webhook receiver on loopback");
        let receiver = Self {
            addr: listener
                .local_addr()
                .expect("a bound listener has an address"),
            shared: Arc::new(Shared {
                settings: Mutex::new(Settings {
                    verify: None,
                    answer: StatusCode::NO_CONTENT,
                    delay: Duration::ZERO,
                    script: VecDeque::new(),
                }),
                record: Mutex::new(Record::default()),
                arrived: Notify::new(),
            }),
            serving: Mutex::new(None),
        };
        receiver.serve(listener);
        receiver
    }

    /// A receiver that checks every signature with `secret` (`whsec_...`), the key's webhook
    /// secret, at the system's time, and refuses (401) what does not verify.
    ///
    /// # Panics
    /// When the secret is malformed or no port can be bound.
    pub async fn verifying(secret: &str) -> Self {
        let receiver = Self::start().await;
        let secret = WebhookSecret::parse(secret)
            .unwrap_or_else(|_| panic!("`{secret}` is not a whsec_ webhook secret"));
        receiver.verify_with(secret, Utc::now);
        receiver
    }

    fn serve(&self, listener: TcpListener) {
        let app = Router::new()
            .fallback(receive)
            .with_state(Arc::clone(&self.shared));
        let serving = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        if let Some(old) = lock(&self.serving).replace(serving) {
            old.abort();
        }
    }

    /// Checks every signature from now on with `secret` at the time `now` gives, refusing
    /// (401) what does not verify.
    pub fn verify_with(
        &self,
        secret: WebhookSecret,
        now: impl Fn() -> DateTime<Utc> + Send + Sync + 'static,
    ) {
        lock(&self.shared.settings).verify = Some((secret, Arc::new(now)));
    }

    /// What deliveries get from now on (204 until this is called).
    pub fn answer(&self, status: StatusCode) {
        lock(&self.shared.settings).answer = status;
    }

    /// Takes `delay` before answering each request from now on.
    pub fn delay(&self, delay: Duration) {
        lock(&self.shared.settings).delay = delay;
    }

    /// Makes `/scripted` answer these statuses next.
    pub fn script(&self, statuses: impl IntoIterator<Item = u16>) {
        lock(&self.shared.settings)
            .script
            .extend(statuses.into_iter().map(Some));
    }

    /// Makes `/scripted` keep its next caller waiting for a minute.
    pub fn script_slow(&self) {
        lock(&self.shared.settings).script.push_back(None);
    }

    /// Stops listening: from now on connections are refused, and open ones are closed.
    pub async fn down(&self) {
        let serving = lock(&self.serving).take();
        if let Some(serving) = serving {
            serving.abort();
            let _ = serving.await;
        }
    }

    /// Listens again on the same port.
    ///
    /// # Panics
    /// When the port cannot be bound again within [`PATIENCE`].
    pub async fn up(&self) {
        let deadline = Instant::now() + PATIENCE;
        let listener = loop {
            match TcpListener::bind(self.addr).await {
                Ok(listener) => break listener,
                Err(e) if Instant::now() > deadline => panic!("cannot listen again: {e}"),
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        };
        self.serve(listener);
    }

    /// The receiver's address.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL of `path` on this receiver, by IP address.
    #[must_use]
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The URL of `path` on this receiver, by the name `localhost`.
    #[must_use]
    pub fn localhost_url(&self, path: &str) -> String {
        format!("http://localhost:{}{path}", self.addr.port())
    }

    /// Everything that reached the receiver, in order.
    #[must_use]
    pub fn deliveries(&self) -> Vec<Delivery> {
        lock(&self.shared.record).deliveries.clone()
    }

    /// The requests that reached `path`.
    #[must_use]
    pub fn deliveries_to(&self, path: &str) -> Vec<Delivery> {
        lock(&self.shared.record)
            .deliveries
            .iter()
            .filter(|d| d.path == path)
            .cloned()
            .collect()
    }

    /// How many requests reached the receiver, repeats included.
    #[must_use]
    pub fn received(&self) -> usize {
        lock(&self.shared.record).deliveries.len()
    }

    /// How many requests were refused because their signature did not verify, and why the
    /// first was.
    #[must_use]
    pub fn refused(&self) -> (usize, Option<String>) {
        let record = lock(&self.shared.record);
        let refusals: Vec<&String> = record
            .deliveries
            .iter()
            .filter_map(|d| d.verified.as_ref()?.as_ref().err())
            .collect();
        (refusals.len(), refusals.first().map(|why| (*why).clone()))
    }

    /// The first delivery of `token`, if it came.
    #[must_use]
    pub fn first_delivery(&self, token: &str) -> Option<Delivery> {
        let record = lock(&self.shared.record);
        record
            .first
            .get(token)
            .map(|&i| record.deliveries[i].clone())
    }

    /// The tokens among `tokens` not delivered yet.
    #[must_use]
    pub fn missing<'a>(&self, tokens: &'a [String]) -> Vec<&'a String> {
        let record = lock(&self.shared.record);
        tokens
            .iter()
            .filter(|t| !record.first.contains_key(*t))
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
            if missing.is_empty() || tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return self.missing(tokens);
            }
        }
    }

    /// Waits at most `patience` for the first delivery of `token`.
    pub async fn wait_for(&self, token: &str, patience: Duration) -> Option<Delivery> {
        let tokens = [token.to_owned()];
        self.wait_for_all(&tokens, patience).await;
        self.first_delivery(token)
    }

    /// The first delivery of `token`, waiting for it at most [`PATIENCE`].
    ///
    /// # Panics
    /// When it does not come in time.
    pub async fn delivery_for(&self, token: &str) -> Delivery {
        match self.wait_for(token, PATIENCE).await {
            Some(delivery) => delivery,
            None => {
                let (refused, why) = self.refused();
                panic!(
                    "no delivery of {token} within {PATIENCE:?} ({refused} refused{})",
                    why.map(|w| format!(": {w}")).unwrap_or_default()
                )
            }
        }
    }
}

/// Checks a delivery's Standard Webhooks headers against `secret` at `now`, as a receiver
/// must; why it fails, if it does.
///
/// # Errors
/// Why the signature does not verify.
pub fn verify_delivery(
    secret: &WebhookSecret,
    headers: &HeaderMap,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<(), String> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    Verifier::default()
        .verify(
            std::slice::from_ref(secret),
            header(HEADER_ID),
            header(HEADER_TIMESTAMP),
            header(HEADER_SIGNATURE),
            body,
            now,
        )
        .map_err(|e| e.to_string())
}

/// What a path answers: a status at once, or a response that takes its time.
enum Answer {
    Status(StatusCode),
    Scripted(Option<u16>),
    Redirect,
    Slow,
    Huge,
    Stall,
}

fn answer_for(path: &str, settings: &mut Settings) -> Answer {
    if let Some(code) = path.strip_prefix("/status/") {
        let status = code
            .parse()
            .ok()
            .and_then(|code| StatusCode::from_u16(code).ok())
            .unwrap_or(StatusCode::BAD_REQUEST);
        return Answer::Status(status);
    }
    match path {
        "/ok" | "/target" => Answer::Status(StatusCode::OK),
        "/scripted" => Answer::Scripted(settings.script.pop_front().unwrap_or(Some(200))),
        "/redirect" => Answer::Redirect,
        "/slow" => Answer::Slow,
        "/huge" => Answer::Huge,
        "/stall" => Answer::Stall,
        _ => Answer::Status(settings.answer),
    }
}

async fn receive(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    let (verified, answer, delay) = {
        let mut settings = lock(&shared.settings);
        let verified = settings
            .verify
            .as_ref()
            .map(|(secret, now)| verify_delivery(secret, &headers, &body, now()));
        (verified, answer_for(&path, &mut settings), settings.delay)
    };
    tokio::time::sleep(delay).await;
    // A receiver refuses what it cannot verify; the test reads the verdict it recorded.
    let answer = match verified {
        Some(Err(_)) => Answer::Status(StatusCode::UNAUTHORIZED),
        _ => answer,
    };
    let answered = match &answer {
        Answer::Status(status) => *status,
        Answer::Scripted(Some(code)) => StatusCode::from_u16(*code).unwrap_or(StatusCode::OK),
        Answer::Redirect => StatusCode::FOUND,
        Answer::Scripted(None) | Answer::Slow | Answer::Huge | Answer::Stall => StatusCode::OK,
    };
    let delivery = Delivery {
        method,
        path,
        id: headers
            .get(HEADER_ID)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned(),
        headers,
        json: serde_json::from_slice(&body).unwrap_or(Value::Null),
        body,
        arrived: Instant::now(),
        verified,
        answered,
    };
    {
        let mut record = lock(&shared.record);
        let index = record.deliveries.len();
        if let Some(token) = delivery.token() {
            record.first.entry(token.to_owned()).or_insert(index);
        }
        record.deliveries.push(delivery);
    }
    shared.arrived.notify_waiters();
    respond(answer).await
}

async fn respond(answer: Answer) -> Response {
    match answer {
        Answer::Status(status) => status.into_response(),
        Answer::Scripted(Some(code)) => StatusCode::from_u16(code)
            .unwrap_or(StatusCode::OK)
            .into_response(),
        Answer::Redirect => (StatusCode::FOUND, [(header::LOCATION, "/target")]).into_response(),
        Answer::Scripted(None) | Answer::Slow => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            StatusCode::OK.into_response()
        }
        Answer::Huge => {
            static CHUNK: [u8; 16 * 1024] = [b'x'; 16 * 1024];
            let endless =
                futures::stream::repeat_with(|| Ok::<_, Infallible>(Bytes::from_static(&CHUNK)));
            (StatusCode::OK, Body::from_stream(endless)).into_response()
        }
        Answer::Stall => {
            let silent = futures::stream::pending::<Result<Bytes, Infallible>>();
            (StatusCode::OK, Body::from_stream(silent)).into_response()
        }
    }
}
