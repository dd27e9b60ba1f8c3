//! A stand-in of ECMWF's Data Stores API (the Atmosphere Data Store), on loopback: the
//! endpoints the official Python client `ecmwf-datastores-client` and `insights-ads` call,
//! with jobs that run for one poll, results whose `asset.value` names a download, and faults
//! to script (a 429 before an execution, a download cut in the middle).
//!
//! Endpoints: `GET /catalogue/v1/messages`, `GET /retrieve/v1/processes/{dataset}`,
//! `POST /retrieve/v1/processes/{dataset}/execution`, `GET|DELETE /retrieve/v1/jobs/{id}`,
//! `GET /retrieve/v1/jobs/{id}/results`, `GET /download/{id}` (with `Range: bytes=N-`), all
//! under `/api`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// What the stand-in delivers for a request: the file's bytes from the dataset and inputs.
pub type Deliver = dyn Fn(&str, &Value) -> Vec<u8> + Send + Sync;

/// One submitted job, as the stand-in recorded it.
#[derive(Debug, Clone, PartialEq)]
pub struct Submitted {
    /// The dataset (process id).
    pub dataset: String,
    /// The request's `inputs`.
    pub inputs: Value,
    /// The `PRIVATE-TOKEN` header sent.
    pub key: Option<String>,
}

#[derive(Default)]
struct Faults {
    /// Executions answered 429 before one is taken.
    too_many: u32,
    /// Downloads cut after half their bytes.
    cut: u32,
}

struct Job {
    polls: u32,
    file: Bytes,
}

struct Shared {
    addr: SocketAddr,
    key: String,
    deliver: Box<Deliver>,
    faults: Mutex<Faults>,
    jobs: Mutex<HashMap<String, Job>>,
    submitted: Mutex<Vec<Submitted>>,
    ranges: Mutex<Vec<String>>,
}

/// A running stand-in; it stops when dropped.
pub struct AdsStandIn {
    shared: Arc<Shared>,
    serving: tokio::task::JoinHandle<()>,
}

impl Drop for AdsStandIn {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl AdsStandIn {
    /// A stand-in on a port of loopback that takes `key` and answers each job with the file
    /// `deliver` makes of its dataset and inputs.
    ///
    /// # Panics
    /// When no port can be bound.
    pub async fn start(
        key: &str,
        deliver: impl Fn(&str, &Value) -> Vec<u8> + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("cannot bind the ADS stand-in on loopback");
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        let shared = Arc::new(Shared {
            addr,
            key: key.to_owned(),
            deliver: Box::new(deliver),
            faults: Mutex::new(Faults::default()),
            jobs: Mutex::new(HashMap::new()),
            submitted: Mutex::new(Vec::new()),
            ranges: Mutex::new(Vec::new()),
        });
        let api = Router::new()
            .route("/catalogue/v1/messages", get(messages))
            .route("/retrieve/v1/processes/{dataset}", get(process))
            .route(
                "/retrieve/v1/processes/{dataset}/execution",
                axum::routing::post(execute),
            )
            .route("/retrieve/v1/jobs/{id}", get(monitor).delete(delete))
            .route("/retrieve/v1/jobs/{id}/results", get(results))
            .route("/download/{id}", get(download))
            .with_state(Arc::clone(&shared));
        let app = Router::new().nest("/api", api);
        let serving = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        AdsStandIn { shared, serving }
    }

    /// The API root, as `--ads-url` or the client's `url` takes it.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/api", self.shared.addr)
    }

    /// Answers the next `n` executions 429 with `Retry-After: 1`.
    pub fn too_many_requests(&self, n: u32) {
        lock(&self.shared.faults).too_many = n;
    }

    /// Cuts the next `n` downloads after half their bytes.
    pub fn cut_downloads(&self, n: u32) {
        lock(&self.shared.faults).cut = n;
    }

    /// The jobs submitted so far (429s not counted).
    #[must_use]
    pub fn submitted(&self) -> Vec<Submitted> {
        lock(&self.shared.submitted).clone()
    }

    /// The `Range` headers of the downloads so far (`-` for none).
    #[must_use]
    pub fn ranges(&self) -> Vec<String> {
        lock(&self.shared.ranges).clone()
    }
}

fn base(shared: &Shared) -> String {
    format!("http://{}/api", shared.addr)
}

fn problem(status: StatusCode, title: &str, detail: &str) -> Response {
    (
        status,
        axum::Json(json!({ "title": title, "detail": detail })),
    )
        .into_response()
}

/// The key sent, when it is the stand-in's.
fn authorised(shared: &Shared, headers: &HeaderMap) -> Option<String> {
    headers
        .get("PRIVATE-TOKEN")
        .and_then(|v| v.to_str().ok())
        .filter(|k| *k == shared.key)
        .map(str::to_owned)
}

fn unauthorised() -> Response {
    problem(
        StatusCode::UNAUTHORIZED,
        "Authentication failed",
        "operation requires a valid PRIVATE-TOKEN",
    )
}

async fn messages() -> Response {
    axum::Json(json!({ "messages": [] })).into_response()
}

async fn process(State(shared): State<Arc<Shared>>, Path(dataset): Path<String>) -> Response {
    let url = format!("{}/retrieve/v1/processes/{dataset}", base(&shared));
    axum::Json(json!({
        "id": dataset,
        "title": dataset,
        "links": [
            { "rel": "self", "href": url },
            { "rel": "execute", "href": format!("{url}/execution") },
        ],
    }))
    .into_response()
}

async fn execute(
    State(shared): State<Arc<Shared>>,
    Path(dataset): Path<String>,
    headers: HeaderMap,
    axum::Json(body): axum::Json<Value>,
) -> Response {
    let Some(key) = authorised(&shared, &headers) else {
        return unauthorised();
    };
    {
        let mut faults = lock(&shared.faults);
        if faults.too_many > 0 {
            faults.too_many -= 1;
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, "1")],
                axum::Json(json!({ "title": "Too many requests", "detail": "slow down" })),
            )
                .into_response();
        }
    }
    let Some(inputs) = body.get("inputs").cloned() else {
        return problem(StatusCode::BAD_REQUEST, "Invalid request", "no `inputs`");
    };
    let file = Bytes::from((shared.deliver)(&dataset, &inputs));
    let id = format!("job-{}", lock(&shared.submitted).len() + 1);
    lock(&shared.submitted).push(Submitted {
        dataset: dataset.clone(),
        inputs,
        key: Some(key),
    });
    lock(&shared.jobs).insert(id.clone(), Job { polls: 0, file });
    let monitor = format!("{}/retrieve/v1/jobs/{id}", base(&shared));
    (
        StatusCode::CREATED,
        axum::Json(json!({
            "processID": dataset,
            "type": "process",
            "jobID": id,
            "status": "accepted",
            "created": "2026-01-01T00:00:00Z",
            "updated": "2026-01-01T00:00:00Z",
            "links": [
                { "rel": "self", "href": monitor },
                { "rel": "monitor", "href": monitor },
            ],
        })),
    )
        .into_response()
}

async fn monitor(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    if authorised(&shared, &headers).is_none() {
        return unauthorised();
    }
    let status = {
        let mut jobs = lock(&shared.jobs);
        let Some(job) = jobs.get_mut(&id) else {
            return problem(StatusCode::NOT_FOUND, "Job not found", &id);
        };
        job.polls += 1;
        // One poll sees it running, the next done: both paths of a client are taken.
        if job.polls > 1 {
            "successful"
        } else {
            "running"
        }
    };
    let url = format!("{}/retrieve/v1/jobs/{id}", base(&shared));
    axum::Json(json!({
        "jobID": id,
        "status": status,
        "type": "process",
        "created": "2026-01-01T00:00:00Z",
        "updated": "2026-01-01T00:00:01Z",
        "metadata": {},
        "links": [
            { "rel": "self", "href": url },
            { "rel": "results", "href": format!("{url}/results") },
        ],
    }))
    .into_response()
}

async fn delete(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> Response {
    lock(&shared.jobs).remove(&id);
    axum::Json(json!({ "jobID": id, "status": "dismissed" })).into_response()
}

async fn results(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    if authorised(&shared, &headers).is_none() {
        return unauthorised();
    }
    let Some(size) = lock(&shared.jobs).get(&id).map(|j| j.file.len()) else {
        return problem(StatusCode::NOT_FOUND, "Job not found", &id);
    };
    axum::Json(json!({
        "asset": { "value": {
            "type": "application/x-grib",
            // Relative, as a client must resolve it against the results' URL.
            "href": format!("../../../../download/{id}"),
            "file:size": size,
            "file:local_path": format!("/cache/{id}.grib"),
        }},
    }))
    .into_response()
}

async fn download(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(file) = lock(&shared.jobs).get(&id).map(|j| j.file.clone()) else {
        return problem(StatusCode::NOT_FOUND, "Not found", &id);
    };
    let range = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    lock(&shared.ranges).push(range.clone().unwrap_or_else(|| "-".to_owned()));
    let total = file.len();
    let from = range
        .as_deref()
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .and_then(|n| n.parse::<usize>().ok());
    let (status, body, extra) = match from {
        Some(from) if from >= total => {
            return (
                StatusCode::RANGE_NOT_SATISFIABLE,
                [(header::CONTENT_RANGE, format!("bytes */{total}"))],
            )
                .into_response();
        }
        Some(from) => (
            StatusCode::PARTIAL_CONTENT,
            file.slice(from..),
            Some(format!("bytes {from}-{}/{total}", total - 1)),
        ),
        None => (StatusCode::OK, file, None),
    };
    let cut = {
        let mut faults = lock(&shared.faults);
        let cut = faults.cut > 0;
        faults.cut = faults.cut.saturating_sub(1);
        cut
    };
    let length = body.len();
    let stream_body = if cut {
        // Half the bytes, then the connection breaks: the declared length is never reached.
        let half = body.slice(..length / 2);
        // The pause lets the first half reach the client before the connection breaks.
        let broken = futures::stream::once(async {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            Err(std::io::Error::other("cut short by the stand-in"))
        });
        Body::from_stream(futures::StreamExt::chain(
            futures::stream::iter([Ok(half)]),
            broken,
        ))
    } else {
        Body::from(body)
    };
    let mut response = Response::new(stream_body);
    *response.status_mut() = status;
    let h = response.headers_mut();
    h.insert(header::CONTENT_LENGTH, length.into());
    h.insert(
        header::ACCEPT_RANGES,
        header::HeaderValue::from_static("bytes"),
    );
    h.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/x-grib"),
    );
    if let Some(v) = extra.and_then(|r| header::HeaderValue::from_str(&r).ok()) {
        h.insert(header::CONTENT_RANGE, v);
    }
    response
}
