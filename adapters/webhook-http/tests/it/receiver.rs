//! A webhook receiver on loopback: a real HTTP server that records what reaches it and answers
//! as each path asks, well-behaved or hostile.
#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alerts_core::keys::WebhookSecret;
use alerts_core::webhook::{HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, Verifier};
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use chrono::{DateTime, Utc};

/// One request that reached the receiver.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    /// Whether the signature verified; `None` when the receiver checks no signatures.
    pub(crate) verified: Option<bool>,
}

type Now = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

#[derive(Default)]
struct Shared {
    hits: Mutex<Vec<Hit>>,
    /// What `/scripted` answers, in order: a status, or `None` for "nothing for a minute".
    /// 200 once the script runs out.
    script: Mutex<VecDeque<Option<u16>>>,
    /// The secret and the clock signatures are verified with; a failed check answers 401.
    verify: Mutex<Option<(WebhookSecret, Now)>>,
}

/// The running receiver. Paths:
/// - `/ok`: 200;
/// - `/status/<code>`: that status;
/// - `/scripted`: the next answer of the script, then 200;
/// - `/redirect`: 302 to `/target` on the same server;
/// - `/target`: 200 (only a redirect would lead here);
/// - `/slow`: answers after a minute;
/// - `/huge`: 200 and a body that never ends;
/// - `/stall`: 200 and a body that never sends a byte.
#[derive(Clone)]
pub(crate) struct Receiver {
    pub(crate) addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Receiver {
    /// Starts a receiver on `127.0.0.1`, on a port the system picks.
    pub(crate) async fn start() -> Self {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, shared }
    }

    /// The URL of `path` on this receiver, by IP address.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The URL of `path` on this receiver, by the name `localhost`.
    pub(crate) fn localhost_url(&self, path: &str) -> String {
        format!("http://localhost:{}{path}", self.addr.port())
    }

    /// Makes `/scripted` answer these statuses next.
    pub(crate) fn script(&self, statuses: impl IntoIterator<Item = u16>) {
        self.shared
            .script
            .lock()
            .unwrap()
            .extend(statuses.into_iter().map(Some));
    }

    /// Makes `/scripted` keep its next caller waiting for a minute.
    pub(crate) fn script_slow(&self) {
        self.shared.script.lock().unwrap().push_back(None);
    }

    /// Makes the receiver verify every request's signature with `secret` at the time `now`
    /// gives, answering 401 when it does not verify.
    pub(crate) fn verify_with(
        &self,
        secret: WebhookSecret,
        now: impl Fn() -> DateTime<Utc> + Send + Sync + 'static,
    ) {
        *self.shared.verify.lock().unwrap() = Some((secret, Arc::new(now)));
    }

    /// Everything that reached the receiver, in order.
    pub(crate) fn hits(&self) -> Vec<Hit> {
        self.shared.hits.lock().unwrap().clone()
    }

    /// The requests that reached `path`.
    pub(crate) fn hits_on(&self, path: &str) -> Vec<Hit> {
        self.hits().into_iter().filter(|h| h.path == path).collect()
    }
}

fn verify(shared: &Shared, headers: &HeaderMap, body: &[u8]) -> Option<bool> {
    let guard = shared.verify.lock().unwrap();
    let (secret, now) = guard.as_ref()?;
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    };
    let outcome = Verifier::default().verify(
        std::slice::from_ref(secret),
        header(HEADER_ID),
        header(HEADER_TIMESTAMP),
        header(HEADER_SIGNATURE),
        body,
        now(),
    );
    Some(outcome.is_ok())
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    let verified = verify(&shared, &headers, &body);
    shared.hits.lock().unwrap().push(Hit {
        method,
        path: path.clone(),
        headers,
        body,
        verified,
    });
    if verified == Some(false) {
        return StatusCode::UNAUTHORIZED.into_response();
    }

    if let Some(code) = path.strip_prefix("/status/") {
        let status = code
            .parse()
            .ok()
            .and_then(|code| StatusCode::from_u16(code).ok())
            .unwrap_or(StatusCode::BAD_REQUEST);
        return (status, "as requested").into_response();
    }
    match path.as_str() {
        "/ok" | "/target" => (StatusCode::OK, "thanks").into_response(),
        "/scripted" => {
            let next = shared.script.lock().unwrap().pop_front();
            match next.unwrap_or(Some(200)) {
                Some(status) => StatusCode::from_u16(status).unwrap().into_response(),
                None => slow().await,
            }
        }
        "/redirect" => (StatusCode::FOUND, [(header::LOCATION, "/target")]).into_response(),
        "/slow" => slow().await,
        "/huge" => {
            static CHUNK: [u8; 16 * 1024] = [b'x'; 16 * 1024];
            let endless =
                futures::stream::repeat_with(|| Ok::<_, Infallible>(Bytes::from_static(&CHUNK)));
            (StatusCode::OK, Body::from_stream(endless)).into_response()
        }
        "/stall" => {
            let silent = futures::stream::pending::<Result<Bytes, Infallible>>();
            (StatusCode::OK, Body::from_stream(silent)).into_response()
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn slow() -> Response {
    tokio::time::sleep(Duration::from_secs(60)).await;
    StatusCode::OK.into_response()
}
