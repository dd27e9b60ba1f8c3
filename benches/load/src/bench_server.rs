//! The server of the HTTP ratio: the API's real router ([`insights_http::router_with`]) over
//! in-memory stores and the demo air-quality field, plus [`EMPTY_PATH`], a handler that does
//! nothing, behind the same middleware. Comparing the two isolates what the scoring endpoint
//! costs beyond HTTP itself.
//!
//! It runs as a process of its own (the hidden `insights-load bench-server` subcommand), so
//! that the load generator's work is not counted as the server's. It prints its address and
//! an API key on stdout, and exits when its stdin closes, so that it never outlives the
//! process that started it.

use std::io::{BufRead, BufReader, Read};
use std::num::NonZeroU32;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use alerts_core::manage::{AnyWebhookUrl, Manager};
use alerts_core::memory::{MemoryFiles, MemoryStore, RecordingSender};
use alerts_core::pipeline::{AlertPipeline, PipelineConfig, PipelinePorts};
use anyhow::{Context, Result, anyhow, bail};
use aq_core::runtime::{Clock, IdGenerator};
use aq_sources::DemoField;
use axum::Router;
use axum::routing::get;
use insights_http::{ApiConfig, AppStateBuilder};
use insights_system::{RandomIds, SystemClock, TokioTimer};
use racs_core::Scorer;

/// The path of the empty handler.
pub const EMPTY_PATH: &str = "/bench/empty";

/// The demo field's seed, the one `insights-server` uses, so that both score the same air.
const DEMO_SEED: u64 = 2026;

/// A per-key rate far above what two cores can serve, so that the limiter is checked on every
/// request, as in production, but never refuses one.
const UNLIMITED: u32 = 1_000_000;

const LISTENING: &str = "bench-server listening on ";
const KEY: &str = "bench-server key ";

/// Serves until stdin closes. Prints `bench-server listening on http://ADDR` and
/// `bench-server key ik_...` on stdout once ready.
///
/// # Errors
/// When the key cannot be made or the port cannot be bound.
pub async fn serve() -> Result<()> {
    init_tracing();
    let store = Arc::new(MemoryStore::new());
    let files = Arc::new(MemoryFiles::new());
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let ids: Arc<dyn IdGenerator> = Arc::new(RandomIds);
    let manager = Manager::new(
        store.clone(),
        store.clone(),
        clock.clone(),
        ids.clone(),
        Arc::new(AnyWebhookUrl),
    );
    let account = manager
        .create_account("bench@example.org", "correct horse battery")
        .await?;
    let key = manager.create_key(account.id, "bench").await?;
    let field = Arc::new(DemoField::new(DEMO_SEED));
    let pipeline = Arc::new(AlertPipeline::new(
        PipelinePorts {
            rules: store.clone(),
            jobs: store.clone(),
            deliveries: store.clone(),
            files: files.clone(),
            signer: files.clone(),
            sender: Arc::new(RecordingSender::new()),
            forecast: field.clone(),
            clock: clock.clone(),
            ids: ids.clone(),
        },
        PipelineConfig::default(),
    ));
    let scorer = Scorer::new(field, clock.clone(), Arc::new(TokioTimer), ids);
    let config = ApiConfig {
        rate_per_second: NonZeroU32::new(UNLIMITED).unwrap_or(NonZeroU32::MAX),
        rate_burst: NonZeroU32::new(UNLIMITED).unwrap_or(NonZeroU32::MAX),
        ..ApiConfig::default()
    };
    let state = AppStateBuilder::new(store, pipeline, scorer, files, clock)
        .config(config)
        .build();
    let router = insights_http::router_with(state, Router::new().route(EMPTY_PATH, get(empty)));

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .context("cannot bind the bench server")?;
    let addr = listener.local_addr()?;
    println!("{LISTENING}http://{addr}");
    println!("{KEY}{}", key.key.expose());

    let (closed_tx, closed_rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
        let _ = closed_tx.send(());
    });
    insights_http::serve(listener, router, async {
        let _ = closed_rx.await;
    })
    .await
    .context("the bench server failed")
}

/// Nothing at all: the cost of HTTP and the middleware alone.
async fn empty() {}

/// Logs as `insights-server` does: info and above, to stderr.
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// A bench server started as a child process; it exits when this value is dropped.
#[derive(Debug)]
pub struct BenchServer {
    child: Child,
    /// Its process id.
    pub pid: u32,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// An API key it accepts.
    pub key: String,
}

impl BenchServer {
    /// Starts `exe bench-server` (this very binary, normally) and waits for its address and
    /// key. Its log goes to `log`.
    ///
    /// # Errors
    /// When it does not start or does not announce itself within 30 s.
    pub fn spawn(exe: &Path, log: std::fs::File) -> Result<Self> {
        let mut child = Command::new(exe)
            .arg("bench-server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .with_context(|| format!("cannot start {} bench-server", exe.display()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("the bench server's stdout is not piped"))?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                let _ = tx.send(line.trim().to_owned());
                line.clear();
            }
        });
        let pid = child.id();
        let mut server = Self {
            child,
            pid,
            base: String::new(),
            key: String::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while server.base.is_empty() || server.key.is_empty() {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => {
                    if let Some(base) = line.strip_prefix(LISTENING) {
                        server.base = base.to_owned();
                    } else if let Some(key) = line.strip_prefix(KEY) {
                        server.key = key.to_owned();
                    }
                }
                Err(_) => {
                    if let Some(status) = server.child.try_wait()? {
                        bail!("the bench server exited ({status}) at start");
                    }
                    if Instant::now() > deadline {
                        bail!("the bench server did not announce itself within 30 s");
                    }
                }
            }
        }
        Ok(server)
    }
}

impl Drop for BenchServer {
    fn drop(&mut self) {
        // Closing stdin asks it to stop; a kill makes sure.
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
