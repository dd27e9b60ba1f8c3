//! Heatmap tiles per second: whole `GET /insights/v1/tiles/{z}/{x}/{y}.png` requests through
//! the API's router in the process (key check, rate limiter, one batch source call for the
//! tile's 17 × 17 grid, interpolation, PNG encoding), on one thread, on the demo field (as
//! computed per point, and as the server serves it, on its 0.02° grid), on 10,000 in-memory
//! stations and on the CAMS grid source (the European forecast's 0.1° grid
//! held as chunks in an in-memory store, the chunks in the cache after the first round). No
//! sockets: the figure is the handler's cost, what a server core spends per tile.
//!
//! Each rate is also printed at the end on a line starting `FIGURE:` (median of 9 rounds of
//! 64 distinct tiles).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use alerts_core::manage::{AnyWebhookUrl, Manager};
use alerts_core::memory::{MemoryFiles, MemoryStore, RecordingSender};
use alerts_core::pipeline::{AlertPipeline, PipelineConfig, PipelinePorts};
use aq_core::memory::MemoryForecast;
use aq_core::{AirQualitySource, Concentration, Concentrations, Pollutant, Position};
use aq_grid::{Field, GridSource, GridStore, Lattice, Layer, ModelGrid, Product, Quantity};
use aq_sources::{DemoField, PollenCounts, StationFile, StationFileConfig, StationReading};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::{TimeZone, Utc};
use criterion::{Criterion, Throughput};
use identity_core::randomness::SeededRandomness;
use insights_http::{ApiConfig, AppStateBuilder, router};
use racs_core::Scorer;
use runtime_core::{FixedClock, SequentialIds};
use tower::ServiceExt;

const STATIONS: usize = 10_000;
const TILES: u32 = 64;

/// A router over `source` and the key that opens it, with a rate far above the benchmark's.
async fn app(source: Arc<dyn AirQualitySource>) -> (axum::Router, String) {
    let store = Arc::new(MemoryStore::new());
    let files = Arc::new(MemoryFiles::new());
    let now = Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap();
    let clock = Arc::new(FixedClock::new(now));
    let ids = Arc::new(SequentialIds::default());
    let manager = Manager::with_store(
        store.clone(),
        clock.clone(),
        ids.clone(),
        Arc::new(SeededRandomness::default()),
        Arc::new(AnyWebhookUrl),
    );
    let account = manager
        .identity()
        .create_account("bench@example.org", "a long enough password")
        .await
        .unwrap_or_else(|e| panic!("account: {e}"));
    let key = manager
        .identity()
        .create_key(account.id, "bench")
        .await
        .unwrap_or_else(|e| panic!("key: {e}"));
    let pipeline = Arc::new(AlertPipeline::new(
        PipelinePorts {
            rules: store.clone(),
            jobs: store.clone(),
            deliveries: store.clone(),
            sent: store.clone(),
            files: files.clone(),
            signer: files.clone(),
            sender: Arc::new(RecordingSender::new()),
            forecast: Arc::new(MemoryForecast::default()),
            clock: clock.clone(),
            ids: ids.clone(),
        },
        PipelineConfig::default(),
    ));
    let scorer = Scorer::new(
        source,
        clock.clone(),
        Arc::new(insights_system::TokioTimer),
        ids,
    );
    let config = ApiConfig {
        rate_per_second: std::num::NonZeroU32::new(1_000_000).unwrap_or(std::num::NonZeroU32::MIN),
        rate_burst: std::num::NonZeroU32::new(1_000_000).unwrap_or(std::num::NonZeroU32::MIN),
        ..ApiConfig::default()
    };
    let state = AppStateBuilder::new(store, pipeline, scorer, files, clock)
        .config(config)
        .build();
    (router(state), key.key.expose().to_owned())
}

/// The `TILES` paths of a square of tiles at `z` whose north-west tile is (`x`, `y`).
fn paths(key: &str, z: u32, x: u32, y: u32) -> Vec<String> {
    (0..TILES)
        .map(|i| {
            format!(
                "/insights/v1/tiles/{z}/{}/{}.png?key={key}&time=2026-05-04T08:00:00Z",
                x + i % 8,
                y + i / 8
            )
        })
        .collect()
}

async fn fetch_all(router: &axum::Router, paths: &[String]) {
    for path in paths {
        let request = Request::get(path.as_str())
            .body(Body::empty())
            .unwrap_or_else(|e| panic!("request: {e}"));
        let response = router
            .clone()
            .oneshot(request)
            .await
            .unwrap_or_else(|e| match e {});
        assert_eq!(response.status(), StatusCode::OK);
        black_box(
            axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap_or_else(|e| panic!("body: {e}")),
        );
    }
}

/// Tiles per second: the median of 9 rounds over `paths`.
fn rate(rt: &tokio::runtime::Runtime, router: &axum::Router, paths: &[String]) -> f64 {
    let mut times: Vec<f64> = (0..9)
        .map(|_| {
            let start = Instant::now();
            rt.block_on(fetch_all(router, paths));
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    paths.len() as f64 / times[times.len() / 2]
}

/// 10,000 stations about 2 km apart over a 200 km square around Berlin, one hourly reading
/// each, from a fixed layout.
fn stations() -> StationFile {
    let mut seed: u64 = 7;
    let mut unit = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        #[allow(clippy::cast_precision_loss)]
        let v = (seed >> 11) as f64 / (1u64 << 53) as f64;
        v
    };
    let time = Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap();
    let readings: Vec<_> = (0..STATIONS)
        .map(|i| {
            let position = Position::new(12.0 + 3.0 * unit(), 51.5 + 1.8 * unit())
                .unwrap_or_else(|e| panic!("{e}"));
            let c = |v: f64| Concentration::new(v).unwrap_or_else(|e| panic!("{e}"));
            StationReading {
                station_id: format!("s{i}"),
                position,
                time,
                concentrations: Concentrations::default()
                    .with(Pollutant::Pm25, c(5.0 + 30.0 * unit()))
                    .with(Pollutant::No2, c(10.0 + 60.0 * unit())),
                pollen: PollenCounts::default(),
            }
        })
        .collect();
    StationFile::from_readings(readings, StationFileConfig::default())
        .unwrap_or_else(|e| panic!("bench stations: {e}"))
}

/// The CAMS European forecast's 0.1° grid (30°N to 72°N, 25°W to 45°E) with the six pollutants
/// at 08:00 and 09:00 of the benchmark's day, smooth waves over space, as chunks in memory.
fn grid(rt: &tokio::runtime::Runtime) -> GridSource {
    let lattice = Lattice::new(72.0, -0.1, 421, -25.0, 0.1, 701).unwrap_or_else(|e| panic!("{e}"));
    let (nlat, nlon) = lattice.shape();
    let run = Utc.with_ymd_and_hms(2026, 5, 4, 0, 0, 0).unwrap();
    let mut fields = Vec::new();
    for hour in [8, 9] {
        for (k, p) in Pollutant::ALL.into_iter().enumerate() {
            let k = k as f64;
            #[allow(clippy::cast_possible_truncation)]
            let values: Vec<f32> = (0..nlat * nlon)
                .map(|n| {
                    let (lat, lon) = lattice.node(n / nlon, n % nlon);
                    let wave = (lat.to_radians() * 40.0 + k).sin()
                        + (lon.to_radians() * 30.0 + f64::from(hour)).cos();
                    (20.0 + 8.0 * wave) as f32
                })
                .collect();
            fields.push(Field {
                product: Product::Europe,
                quantity: Quantity::Pollutant(p),
                run,
                valid: Utc.with_ymd_and_hms(2026, 5, 4, hour, 0, 0).unwrap(),
                layer: Layer::new(lattice, values.into()).unwrap_or_else(|e| panic!("{e}")),
            });
        }
    }
    let store = Arc::new(GridStore::in_memory());
    rt.block_on(store.commit(fields))
        .unwrap_or_else(|e| panic!("grid: {e}"));
    GridSource::new(store)
}

/// The demo field as the server serves it: on its 0.02° grid, the blocks computed on first
/// use and then held.
fn demo_grid() -> GridSource {
    let model = GridStore::from_model(Arc::new(DemoField::default()), ModelGrid::default());
    GridSource::new(Arc::new(model))
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    // The API's request timeout needs the timer.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    let mut c = Criterion::default().configure_from_args();
    let mut figures = Vec::new();
    let mut group = c.benchmark_group("tiles");
    group.throughput(Throughput::Elements(u64::from(TILES)));
    group.sample_size(10);

    // Zoom 10 over Berlin: 64 tiles of about 25 km each, inside the stations' square.
    let cases: [(&str, Arc<dyn AirQualitySource>); 4] = [
        ("demo field", Arc::new(DemoField::default())),
        ("demo field on its 0.02° grid", Arc::new(demo_grid())),
        ("10,000 stations", Arc::new(stations())),
        ("CAMS grid, 0.1°", Arc::new(grid(&rt))),
    ];
    for (name, source) in cases {
        let (router, key) = rt.block_on(app(source));
        let paths = paths(&key, 10, 546, 332);
        group.bench_function(name, |b| b.iter(|| rt.block_on(fetch_all(&router, &paths))));
        figures.push(format!(
            "FIGURE: heatmap tiles, {name}, zoom 10 = {:.0} tiles/s (one thread)",
            rate(&rt, &router, &paths)
        ));
    }
    group.finish();
    c.final_summary();
    println!();
    for line in figures {
        println!("{line}");
    }
}
