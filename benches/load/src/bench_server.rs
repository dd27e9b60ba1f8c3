//! The server of the HTTP ratio: the API's real router ([`insights_http::router_with`]) over
//! in-memory stores and an air-quality source ([`BenchSource`]), plus [`EMPTY_PATH`], a
//! handler that does nothing, behind the same middleware. Comparing the two isolates what the
//! scoring endpoint costs beyond HTTP itself.
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
use aq_core::{AirQualitySource, Concentration, Concentrations, Pollutant, Position};
use aq_grid::{GridSource, GridStore, ModelGrid};
use aq_sources::{DemoField, PollenCounts, StationFile, StationFileConfig, StationReading};
use axum::Router;
use axum::routing::get;
use insights_http::{ApiConfig, AppStateBuilder};
use insights_system::{OsRandomness, RandomIds, SystemClock, TokioTimer};
use racs_core::Scorer;
use runtime_core::{Clock, IdGenerator};

/// The air-quality source the scoring endpoint samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchSource {
    /// The route-scoring benchmark's source: a station file of [`STATIONS`] stations in
    /// memory over a 200 km square around Berlin (about 2 km apart, so every sample weighs
    /// its full ten neighbours), with hourly readings around the present.
    Stations,
    /// The synthetic demo field, the server's embedded default.
    Demo,
}

impl BenchSource {
    /// The name on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Stations => "stations",
            Self::Demo => "demo",
        }
    }
}

/// Stations of [`BenchSource::Stations`].
pub const STATIONS: usize = 10_000;

/// The path of the empty handler.
pub const EMPTY_PATH: &str = "/bench/empty";

/// The demo field's seed, the one `insights-server` uses, so that both score the same air.
const DEMO_SEED: u64 = 2026;

/// A per-key rate far above what two cores can serve, so that the limiter is checked on every
/// request, as in production, but never refuses one.
const UNLIMITED: u32 = 1_000_000;

const LISTENING: &str = "bench-server listening on ";
const KEY: &str = "bench-server key ";

/// Serves until stdin closes, scoring routes on `source`. Prints
/// `bench-server listening on http://ADDR` and `bench-server key ik_...` on stdout once ready.
///
/// # Errors
/// When the key cannot be made, the stations cannot be built or the port cannot be bound.
pub async fn serve(source: BenchSource) -> Result<()> {
    init_tracing();
    let store = Arc::new(MemoryStore::new());
    let files = Arc::new(MemoryFiles::new());
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let ids: Arc<dyn IdGenerator> = Arc::new(RandomIds);
    let manager = Manager::with_store(
        store.clone(),
        clock.clone(),
        ids.clone(),
        Arc::new(OsRandomness),
        Arc::new(AnyWebhookUrl),
    );
    let account = manager
        .identity()
        .create_account("bench@example.org", "correct horse battery")
        .await?;
    let key = manager.identity().create_key(account.id, "bench").await?;
    // The demo field on its grid, as `insights-server` serves it.
    let field = Arc::new(GridSource::new(Arc::new(GridStore::from_model(
        Arc::new(DemoField::new(DEMO_SEED)),
        ModelGrid::default(),
    ))));
    let pipeline = Arc::new(AlertPipeline::new(
        PipelinePorts {
            rules: store.clone(),
            jobs: store.clone(),
            deliveries: store.clone(),
            sent: store.clone(),
            files: files.clone(),
            signer: files.clone(),
            sender: Arc::new(RecordingSender::new()),
            forecast: field.clone(),
            clock: clock.clone(),
            ids: ids.clone(),
        },
        PipelineConfig::default(),
    ));
    let air: Arc<dyn AirQualitySource> = match source {
        BenchSource::Demo => field,
        BenchSource::Stations => Arc::new(stations(clock.now())?),
    };
    let scorer = Scorer::new(air, clock.clone(), Arc::new(TokioTimer), ids);
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
    .await;
    Ok(())
}

/// [`STATIONS`] stations at deterministic places over 12–15° E, 51.5–53.3° N, with PM2.5 and
/// NO₂ every hour from six hours before `now` to two hours after, so that any request during a
/// run finds readings on both sides of its time.
fn stations(now: chrono::DateTime<chrono::Utc>) -> Result<StationFile> {
    // A linear congruential generator: every run measures the same layout.
    let mut state: u64 = 7;
    let mut unit = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // The top 53 bits fill an f64 mantissa exactly.
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let hour = now - chrono::Duration::seconds(now.timestamp().rem_euclid(3600));
    let mut readings = Vec::with_capacity(STATIONS * 9);
    for i in 0..STATIONS {
        let position = Position::new(12.0 + 3.0 * unit(), 51.5 + 1.8 * unit())?;
        for h in -6..=2 {
            readings.push(StationReading {
                station_id: format!("s{i}"),
                position,
                time: hour + chrono::Duration::hours(h),
                concentrations: Concentrations::default()
                    .with(Pollutant::Pm25, Concentration::new(5.0 + 30.0 * unit())?)
                    .with(Pollutant::No2, Concentration::new(10.0 + 60.0 * unit())?),
                pollen: PollenCounts::default(),
            });
        }
    }
    StationFile::from_readings(readings, StationFileConfig::default())
        .context("cannot build the bench stations")
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
    /// Starts `exe bench-server --source SOURCE` (this very binary, normally) and waits for
    /// its address and key. Its log goes to `log`.
    ///
    /// # Errors
    /// When it does not start or does not announce itself within 30 s.
    pub fn spawn(exe: &Path, source: BenchSource, log: std::fs::File) -> Result<Self> {
        let mut child = Command::new(exe)
            .args(["bench-server", "--source", source.name()])
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
