//! A server that answers every request the same way: a receiver that redirects, or an internal
//! service that nothing may reach.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;

/// One request a [`Canned`] server received.
#[derive(Debug, Clone)]
pub(super) struct Hit {
    pub(super) headers: HeaderMap,
    pub(super) body: Bytes,
}

pub(super) type CannedState = (
    Arc<Mutex<Vec<Hit>>>,
    Arc<(StatusCode, Vec<(String, String)>)>,
);

/// A server on loopback that answers every request with one status and set of headers, and
/// records what it receives: a receiver that redirects, or an internal service that nothing
/// may reach. It stops with the test's runtime.
pub(super) struct Canned {
    pub(super) addr: SocketAddr,
    pub(super) hits: Arc<Mutex<Vec<Hit>>>,
}

impl Canned {
    pub(super) async fn start(status: u16, headers: &[(&str, &str)]) -> Self {
        let hits = Arc::new(Mutex::new(Vec::new()));
        let answer = (
            StatusCode::from_u16(status).unwrap(),
            headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        );
        let state: CannedState = (hits.clone(), Arc::new(answer));
        let app = Router::new().fallback(canned).with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, hits }
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub(super) fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }
}

pub(super) async fn canned(
    State((hits, answer)): State<CannedState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    hits.lock().unwrap().push(Hit { headers, body });
    let mut response = answer.0.into_response();
    for (name, value) in &answer.1 {
        response.headers_mut().insert(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    response
}
