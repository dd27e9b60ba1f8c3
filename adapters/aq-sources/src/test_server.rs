//! A small axum server on 127.0.0.1, port 0, for testing the HTTP sources against recorded
//! response shapes: each request is answered by a closure, optionally after a delay, and every
//! request is kept for the test to inspect.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;

/// A request as the handler sees it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) path: String,
    pub(crate) query: Vec<(String, String)>,
    pub(crate) headers: HeaderMap,
}

impl Request {
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// An answer: status, JSON body, and how long to wait before sending it.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: String,
    pub(crate) delay: Duration,
}

impl Reply {
    pub(crate) fn json(body: impl Into<String>) -> Self {
        Self::status(200, body)
    }

    pub(crate) fn status(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    pub(crate) fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

type Handler = Arc<dyn Fn(&Request) -> Reply + Send + Sync>;

/// What every request shares: the test's handler and the log of requests.
#[derive(Clone)]
struct Shared {
    handler: Handler,
    requests: Arc<Mutex<Vec<Request>>>,
}

async fn answer(State(shared): State<Shared>, uri: Uri, headers: HeaderMap) -> Response {
    let request = Request {
        path: uri.path().to_owned(),
        query: form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .into_owned()
            .collect(),
        headers,
    };
    shared.requests.lock().unwrap().push(request.clone());
    let reply = (shared.handler)(&request);
    tokio::time::sleep(reply.delay).await;
    let status = StatusCode::from_u16(reply.status).unwrap();
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        reply.body,
    )
        .into_response()
}

pub(crate) struct TestServer {
    pub(crate) base_url: String,
    requests: Arc<Mutex<Vec<Request>>>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    pub(crate) async fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let shared = Shared {
            handler: Arc::new(handler),
            requests: Arc::default(),
        };
        let requests = Arc::clone(&shared.requests);
        let app = Router::new().fallback(answer).with_state(shared);
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            base_url,
            requests,
            task,
        }
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A base URL where nothing listens: a port that was just free.
pub(crate) async fn dead_base_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}
