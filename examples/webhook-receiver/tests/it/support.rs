//! The receiver binary run as a customer would run it, a file server standing in for the
//! insights server's signed file URLs, and signed deliveries built as the service builds them.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use alerts_core::ids::Token;
use alerts_core::ndjson::{AlertLine, NdjsonEncoder};
use alerts_core::rule::DataType;
use alerts_core::webhook::{DeliveryPayload, message_id, signed_request};
use axum::Router;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use identity_core::keys::WebhookSecret;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The secret the receivers are started with.
pub(crate) const SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
/// Another valid secret: the previous one of a rotation, or an attacker's guess.
pub(crate) const OTHER: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
/// The key prefix the deliveries carry.
pub(crate) const KEY: &str = "ik_0123abcd";

/// Serves the alert file: 200 with NDJSON.
pub(crate) const OK: &str = "/files/ok.ndjson";
/// As `OK`, after two seconds.
pub(crate) const SLOW: &str = "/files/slow.ndjson";
/// 403, as the service answers once the URL has expired.
pub(crate) const EXPIRED: &str = "/files/expired.ndjson";
/// 404, as the service answers once the file was deleted after its retention.
pub(crate) const GONE: &str = "/files/gone.ndjson";

pub(crate) fn secret(text: &str) -> WebhookSecret {
    WebhookSecret::parse(text).unwrap()
}

pub(crate) fn now() -> i64 {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    i64::try_from(secs).unwrap()
}

/// A distinct token per test, so that tests never deduplicate each other's deliveries.
pub(crate) fn token(n: u8) -> Token {
    format!("6f1c2b0e-8a4d-4e0f-9c3b-2d7e5a1f0b{n:02x}")
        .parse()
        .unwrap()
}

/// The two alerts the file server serves.
pub(crate) fn alerts() -> Vec<AlertLine> {
    vec![
        AlertLine {
            description: "In 3 hours the air quality is expected to be worse (54 AQI).".into(),
            recommendation: "Sensitive groups should limit prolonged outdoor exertion.".into(),
            lat: 40.7,
            lon: -74.0,
            id: "user-17".into(),
            data_type: DataType::Aq,
            custom_data: "{}".into(),
            details: None,
        },
        AlertLine {
            description: "Today grass pollen levels will rise.".into(),
            recommendation: "Keep windows closed in the morning.".into(),
            lat: 48.85,
            lon: 2.35,
            id: "user-18".into(),
            data_type: DataType::Pollen,
            custom_data: r#"{"plan":"pro"}"#.into(),
            details: None,
        },
    ]
}

/// The NDJSON file the file server serves.
pub(crate) fn ndjson_file() -> Vec<u8> {
    let mut encoder = NdjsonEncoder::new();
    for alert in alerts() {
        encoder.encode(&alert.as_ref()).unwrap();
    }
    encoder.finish().to_vec()
}

/// A local file server counting the requests on each path.
pub(crate) struct FileServer {
    addr: SocketAddr,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

impl FileServer {
    pub(crate) async fn start() -> Self {
        let hits = Arc::new(Mutex::new(HashMap::new()));
        let counted = Arc::clone(&hits);
        let app = Router::new().fallback(move |uri: Uri| {
            let hits = Arc::clone(&counted);
            async move { serve_file(&hits, &uri).await }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, hits }
    }

    /// The URL of `path`, with a query string standing in for the signature.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}?expires=1&signature=ab", self.addr)
    }

    /// How many requests reached `path`.
    pub(crate) fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }

    /// How many requests reached the server.
    pub(crate) fn total_hits(&self) -> usize {
        self.hits.lock().unwrap().values().sum()
    }
}

async fn serve_file(hits: &Mutex<HashMap<String, usize>>, uri: &Uri) -> Response {
    let path = uri.path().to_owned();
    *hits.lock().unwrap().entry(path.clone()).or_default() += 1;
    let ndjson = [(header::CONTENT_TYPE, "application/x-ndjson")];
    match path.as_str() {
        OK => (ndjson, ndjson_file()).into_response(),
        SLOW => {
            tokio::time::sleep(Duration::from_secs(2)).await;
            (ndjson, ndjson_file()).into_response()
        }
        EXPIRED => (StatusCode::FORBIDDEN, r#"{"error":"expired_url"}"#).into_response(),
        _ => (StatusCode::NOT_FOUND, r#"{"error":"not_found"}"#).into_response(),
    }
}

/// A running `webhook-receiver` process, killed when dropped.
pub(crate) struct Running {
    _child: Child,
    /// The delivery URL it printed at start-up.
    pub(crate) url: String,
    stdout: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<Vec<String>>>,
    http: reqwest::Client,
}

impl Running {
    /// Starts the receiver on a free port with these arguments and environment variables.
    pub(crate) async fn start(args: &[&str], envs: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_webhook-receiver"));
        command.args(["--listen", "127.0.0.1:0"]).args(args);
        for var in [
            "WEBHOOK_LISTEN",
            "WEBHOOK_SECRET",
            "WEBHOOK_PATH",
            "WEBHOOK_TOLERANCE_SECS",
            "WEBHOOK_DEDUPE_CAPACITY",
            "WEBHOOK_OUT",
        ] {
            command.env_remove(var);
        }
        let mut child = command
            .envs(envs.iter().copied())
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stderr = collect_lines(child.stderr.take().unwrap(), None);
        let (first_tx, first_rx) = tokio::sync::oneshot::channel();
        let stdout = collect_lines(child.stdout.take().unwrap(), Some(first_tx));
        let first = tokio::time::timeout(Duration::from_secs(30), first_rx)
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_else(|| {
                panic!(
                    "the receiver did not start; stderr:\n{}",
                    stderr.lock().unwrap().join("\n")
                )
            });
        let url = first
            .strip_prefix("webhook-receiver listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {first}"))
            .to_owned();
        Self {
            _child: child,
            url,
            stdout,
            stderr,
            http: reqwest::Client::new(),
        }
    }

    /// Everything printed on stdout after the start-up line.
    pub(crate) fn stdout(&self) -> Vec<String> {
        self.stdout.lock().unwrap().clone()
    }

    /// Everything logged on stderr.
    pub(crate) fn stderr(&self) -> Vec<String> {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits until stdout has a line equal to `line`.
    pub(crate) async fn wait_for_stdout(&self, line: &str) {
        for _ in 0..200 {
            if self.stdout().iter().any(|l| l == line) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!(
            "no line `{line}` on stdout:\n{}\nstderr:\n{}",
            self.stdout().join("\n"),
            self.stderr().join("\n")
        );
    }

    /// POSTs `body` with these headers; the status and body of the answer.
    pub(crate) async fn post(&self, headers: &[(String, String)], body: Vec<u8>) -> (u16, String) {
        let mut request = self
            .http
            .post(&self.url)
            .header(header::CONTENT_TYPE, "application/json");
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = request.body(body).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    }

    /// Delivers `token`'s file at `file_url` as the service does, signed with `secrets` at
    /// `timestamp`, under the token's `webhook-id`.
    pub(crate) async fn deliver(
        &self,
        secrets: &[WebhookSecret],
        token: Token,
        file_url: &str,
        timestamp: i64,
    ) -> (u16, String) {
        let body = DeliveryPayload {
            key: KEY,
            token,
            url: file_url,
        }
        .to_bytes();
        let request = signed_request(&self.url, secrets, &message_id(token), timestamp, body);
        self.post(&request.headers, request.body.to_vec()).await
    }
}

/// Collects the lines of `pipe`, sending the first one to `first` too.
fn collect_lines(
    pipe: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    mut first: Option<tokio::sync::oneshot::Sender<String>>,
) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    tokio::spawn(async move {
        let mut reader = BufReader::new(pipe).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            match first.take() {
                Some(tx) => {
                    let _ = tx.send(line);
                }
                None => sink.lock().unwrap().push(line),
            }
        }
    });
    lines
}
