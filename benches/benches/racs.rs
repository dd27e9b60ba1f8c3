//! Route scoring: a request of 50 routes of 500 vertices each (the API's route limit, walks of
//! about 7 km) handled as the server handles it, against serde_json alone on the same bytes.
//!
//! # Scoring vs parsing
//!
//! The source is the station-file source built from readings in memory: 10,000 stations over a
//! 200 km square around the routes (about 2 km apart, so every sample weighs its full ten
//! neighbours), found through the R-tree and weighed by inverse distance, as a server started
//! with `--stations` answers.
//!
//! *Full handling* is what the `POST /insights/v1/cleanest-route` handler of `insights-http` does
//! with a body it has read: `ScoreRequest::from_json_slice` reads the bytes into the request (a
//! derived `Deserialize` with JSON paths in its errors) and validates it, the `Scorer` plans,
//! samples and scores every route, and the response is serialised to bytes.
//! Authentication, rate limiting and the HTTP framing are left out: they cost the same for any
//! body, and benchmarks over HTTP cover them.
//!
//! *serde_json alone* parses the same bytes into a `serde_json::Value` and serialises the same
//! response; the ratio target (at most 3) is taken against it. For comparison the bench also
//! times a typed parse (derived structs with `Vec<[f64; 2]>` polylines, the cheapest way
//! serde_json can read this body) and prints that ratio too, without a target.
//!
//! The ratio is measured in interleaved rounds (one timed block of each side in turn, each going
//! first in its turn, ratio per round, median over rounds), so that a machine that slows down
//! part-way hurts both sides alike. Each figure is printed at the end on a line starting
//! `FIGURE:`.
//!
//! Profiling: with `RACS_BENCH_PROFILE=handling` (or `serde_value`, `serde_typed`) the binary
//! runs only that side `RACS_BENCH_PROFILE_ITERS` times (default 5) and exits, for
//! `valgrind --tool=callgrind`.
//!
//! The groups before the comparison break the handling down: parsing and validating, planning
//! (also of routes whose segments are long, where placing the samples is most of the work),
//! sampling the station source, and the pure scoring of its answers.

use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use aq_core::{
    AirQualitySource, CleanlinessIndex, Concentration, Concentrations, Pollutant, Position,
};
use aq_sources::{PollenCounts, StationFile, StationFileConfig, StationReading};
use benches::{calls_for, median, timed_block};
use chrono::{DateTime, TimeZone, Utc};
use criterion::{Criterion, Throughput};
use racs_core::{
    Limits, RacsConfig, RoutePlan, ScoreRequest, ScoreResponse, Scorer, encode_polyline,
    plan_route, score_samples,
};
use runtime_core::{FixedClock, SequentialIds, Timer};
use serde::Deserialize;
use serde_json::{Value, json};

const ROUTES: usize = 50;
const VERTICES: usize = 500;
const STATIONS: usize = 10_000;
/// Rounds of the interleaved comparison, and the least time each side runs per round.
const ROUNDS: usize = 25;
const ROUND_BLOCK: Duration = Duration::from_millis(150);
const RATIO_TARGET: f64 = 3.0;

/// Route `r`: 500 vertices about 14 m apart, winding eastwards from its own start.
fn route(r: usize) -> Vec<Position> {
    let lon0 = 13.20 + 0.004 * r as f64;
    let lat0 = 52.40 + 0.002 * r as f64;
    (0..VERTICES)
        .map(|k| {
            let k = k as f64;
            let lon = lon0 + 0.0002 * k;
            let lat = lat0 + 0.0003 * (k / 25.0).sin();
            Position::new(lon, lat).unwrap_or_else(|e| panic!("bench route: {e}"))
        })
        .collect()
}

/// Route `r` for the planner alone: 20 vertices about 1.8 km apart (just under the longest
/// segment a route may have), so that most of the work is placing samples between vertices
/// rather than measuring segments.
fn long_segment_route(r: usize) -> Vec<Position> {
    let lon0 = 13.20 + 0.004 * r as f64;
    let lat0 = 52.40 + 0.002 * r as f64;
    (0..20)
        .map(|k| {
            let k = k as f64;
            let lon = lon0 + 0.025 * k;
            let lat = lat0 + 0.005 * (k / 3.0).sin();
            Position::new(lon, lat).unwrap_or_else(|e| panic!("bench route: {e}"))
        })
        .collect()
}

/// The request body, with every route's polyline as pairs or as an encoded string.
fn body(encoded: bool) -> Value {
    let routes: Vec<Value> = (0..ROUTES)
        .map(|r| {
            let line = route(r);
            let polyline = if encoded {
                json!(encode_polyline(&line))
            } else {
                json!(line)
            };
            json!({"id": format!("route-{r}"), "polyline": polyline, "routeDuration": 90})
        })
        .collect();
    json!({"routes": routes, "routesSort": "desc", "travelMode": "walk"})
}

/// When the trips start; the stations' last readings are from this hour.
fn departure() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 4, 9, 0, 0)
        .single()
        .unwrap_or_else(|| panic!("bench departure time"))
}

/// A small deterministic generator, so every run measures the same layout.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // The top 53 bits fill an f64 mantissa exactly.
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// 10,000 stations over 12–15° E, 51.5–53.3° N, with PM2.5 and NO₂ at 07:00, 08:00 and 09:00.
fn stations() -> StationFile {
    let mut rng = Lcg(7);
    let c = |v: f64| Concentration::new(v).unwrap_or_else(|e| panic!("bench value: {e}"));
    let mut readings = Vec::with_capacity(STATIONS * 3);
    for i in 0..STATIONS {
        let lon = 12.0 + 3.0 * rng.unit();
        let lat = 51.5 + 1.8 * rng.unit();
        let position = Position::new(lon, lat).unwrap_or_else(|e| panic!("bench station: {e}"));
        for h in 0..3 {
            readings.push(StationReading {
                station_id: format!("s{i}"),
                position,
                time: departure() - chrono::Duration::hours(2 - h),
                concentrations: Concentrations::default()
                    .with(Pollutant::Pm25, c(5.0 + 30.0 * rng.unit()))
                    .with(Pollutant::No2, c(10.0 + 60.0 * rng.unit())),
                pollen: PollenCounts::default(),
            });
        }
    }
    StationFile::from_readings(readings, StationFileConfig::default())
        .unwrap_or_else(|e| panic!("bench stations: {e}"))
}

/// A tokio sleep behind the timer port, as the server's (written out because this crate does not
/// depend on `async-trait`).
struct TokioSleep;

impl Timer for TokioSleep {
    fn sleep<'life0, 'async_trait>(
        &'life0 self,
        duration: Duration,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// The typed reading of the body: the cheapest parse serde_json offers for it, for comparison.
/// Its fields are only ever written by the parser.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct TypedRequest {
    routes: Vec<TypedRoute>,
    routes_sort: String,
    travel_mode: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct TypedRoute {
    id: String,
    polyline: Vec<[f64; 2]>,
    route_duration: f64,
}

/// Everything both sides of the comparison need.
struct Setup {
    bytes: Vec<u8>,
    limits: Limits,
    scorer: Scorer,
    source: Arc<StationFile>,
    runtime: tokio::runtime::Runtime,
    /// The response full handling produces, which serde_json alone serialises.
    response: ScoreResponse,
}

impl Setup {
    fn new() -> Self {
        let bytes = serde_json::to_vec(&body(false)).unwrap_or_else(|e| panic!("bench body: {e}"));
        let source = Arc::new(stations());
        let scorer = Scorer::new(
            source.clone(),
            Arc::new(FixedClock::new(departure())),
            Arc::new(TokioSleep),
            Arc::new(SequentialIds::default()),
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap_or_else(|e| panic!("bench runtime: {e}"));
        let limits = Limits::default();
        let response = score(&bytes, &limits, &scorer, &runtime);
        let scored = response.racss.iter().filter(|e| e.racs.is_some()).count();
        assert_eq!(scored, ROUTES, "every bench route is scored");
        Self {
            bytes,
            limits,
            scorer,
            source,
            runtime,
            response,
        }
    }

    /// Full handling, bytes to bytes.
    fn handle(&self) -> Vec<u8> {
        let response = score(&self.bytes, &self.limits, &self.scorer, &self.runtime);
        serde_json::to_vec(&response).unwrap_or_else(|e| panic!("bench response: {e}"))
    }

    /// serde_json alone: the same bytes into a `Value`, the same response out to bytes.
    fn serde_value(&self) -> Vec<u8> {
        let body: Value = serde_json::from_slice(black_box(&self.bytes))
            .unwrap_or_else(|e| panic!("bench body: {e}"));
        drop(black_box(body));
        serde_json::to_vec(black_box(&self.response))
            .unwrap_or_else(|e| panic!("bench response: {e}"))
    }

    /// serde_json alone with the typed parse.
    fn serde_typed(&self) -> Vec<u8> {
        let body: TypedRequest = serde_json::from_slice(black_box(&self.bytes))
            .unwrap_or_else(|e| panic!("bench body: {e}"));
        drop(black_box(body));
        serde_json::to_vec(black_box(&self.response))
            .unwrap_or_else(|e| panic!("bench response: {e}"))
    }
}

/// The handler's steps up to the response: the request read from the body's bytes, then
/// scored.
fn score(
    bytes: &[u8],
    limits: &Limits,
    scorer: &Scorer,
    runtime: &tokio::runtime::Runtime,
) -> ScoreResponse {
    let request = ScoreRequest::from_json_slice(bytes, limits)
        .unwrap_or_else(|e| panic!("bench request: {e}"));
    runtime.block_on(scorer.score(&request))
}

/// The breakdown: parsing, planning, sampling and scoring separately.
fn breakdown(c: &mut Criterion, setup: &Setup) {
    let limits = Limits::default();
    let pairs = body(false).to_string();
    let encoded = body(true).to_string();
    let request = ScoreRequest::from_json_slice(pairs.as_bytes(), &limits)
        .unwrap_or_else(|e| panic!("bench request: {e}"));
    let config = RacsConfig::default();

    let mut group = c.benchmark_group("racs");
    group.throughput(Throughput::Elements(ROUTES as u64));

    group.bench_function("parse_validate_50x500_pairs", |b| {
        b.iter(|| ScoreRequest::from_json_slice(black_box(pairs.as_bytes()), &limits))
    });
    group.bench_function("parse_validate_50x500_encoded", |b| {
        b.iter(|| ScoreRequest::from_json_slice(black_box(encoded.as_bytes()), &limits))
    });

    let plan_all = || -> Vec<RoutePlan> {
        request
            .routes
            .iter()
            .map(|r| {
                plan_route(&r.polyline, request.duration_s(r), departure(), &config)
                    .unwrap_or_else(|e| panic!("bench plan: {e}"))
            })
            .collect()
    };
    group.bench_function("plan_50x500", |b| b.iter(plan_all));

    // Three hours over some 34 km: a sample every 30 s, about 360 per route between 19
    // segments, where `plan_50x500` has 70 per route between 499.
    let long: Vec<Vec<Position>> = (0..ROUTES).map(long_segment_route).collect();
    group.bench_function("plan_50x20_long_segments", |b| {
        b.iter(|| {
            long.iter()
                .map(|line| {
                    plan_route(black_box(line), 10_800.0, departure(), &config)
                        .unwrap_or_else(|e| panic!("bench plan: {e}"))
                })
                .collect::<Vec<_>>()
        })
    });

    let plans = plan_all();
    let sample_all = || -> Vec<Vec<Option<CleanlinessIndex>>> {
        setup.runtime.block_on(async {
            let mut all = Vec::with_capacity(plans.len());
            for p in &plans {
                let answers = setup
                    .source
                    .sample_ci(black_box(p.queries()))
                    .await
                    .unwrap_or_else(|e| panic!("bench sample: {e}"));
                all.push(answers);
            }
            all
        })
    };
    group.bench_function("sample_station_file_50x500", |b| b.iter(sample_all));

    let answers = sample_all();
    let assumptions = config.dose_assumptions(request.travel_mode);
    group.bench_function("score_samples_50x500", |b| {
        b.iter(|| {
            plans
                .iter()
                .zip(&answers)
                .map(|(p, a)| score_samples(p, black_box(a), assumptions, &config))
                .collect::<Vec<_>>()
        })
    });
    group.finish();
}

/// Both sides of the comparison under criterion, for their distributions.
fn side_by_side(c: &mut Criterion, setup: &Setup) {
    let mut group = c.benchmark_group("racs_vs_serde_json");
    group.throughput(Throughput::Bytes(setup.bytes.len() as u64));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("full_handling_50x500_10k_stations", |b| {
        b.iter(|| setup.handle())
    });
    group.bench_function("serde_json_value_parse_and_serialize", |b| {
        b.iter(|| setup.serde_value())
    });
    group.bench_function("serde_json_typed_parse_and_serialize", |b| {
        b.iter(|| setup.serde_typed())
    });
    group.finish();
}

/// The comparison in interleaved rounds: returns the figure lines.
fn interleaved(setup: &Setup, rounds: usize) -> Vec<String> {
    let full: &dyn Fn() -> Vec<u8> = &|| setup.handle();
    let value: &dyn Fn() -> Vec<u8> = &|| setup.serde_value();
    let typed: &dyn Fn() -> Vec<u8> = &|| setup.serde_typed();
    let block = if rounds > 1 {
        ROUND_BLOCK
    } else {
        Duration::ZERO
    };
    let n_full = calls_for(block, full);
    let n_value = calls_for(block, value);
    let n_typed = calls_for(block, typed);

    let (mut t_full, mut t_value, mut t_typed) = (Vec::new(), Vec::new(), Vec::new());
    let (mut r_value, mut r_typed) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        // The sides take turns at going first, so that none always inherits another's caches.
        let (f, v, t) = match round % 3 {
            0 => {
                let f = timed_block(n_full, full).as_secs_f64();
                let v = timed_block(n_value, value).as_secs_f64();
                (f, v, timed_block(n_typed, typed).as_secs_f64())
            }
            1 => {
                let v = timed_block(n_value, value).as_secs_f64();
                let t = timed_block(n_typed, typed).as_secs_f64();
                (timed_block(n_full, full).as_secs_f64(), v, t)
            }
            _ => {
                let t = timed_block(n_typed, typed).as_secs_f64();
                let f = timed_block(n_full, full).as_secs_f64();
                (f, timed_block(n_value, value).as_secs_f64(), t)
            }
        };
        t_full.push(f);
        t_value.push(v);
        t_typed.push(t);
        r_value.push(f / v);
        r_typed.push(f / t);
    }
    let ms = |v: Vec<f64>| median(v) * 1e3;
    let ratio = median(r_value);
    let verdict = if rounds < ROUNDS {
        // `--test`: one cold call of each side shows the code runs, not how fast.
        "a --test run, not a measurement"
    } else if ratio <= RATIO_TARGET {
        "met"
    } else {
        "MISSED"
    };
    vec![
        format!(
            "FIGURE: racs scoring/parsing ratio = {ratio:.2} (target <= {RATIO_TARGET}, {verdict}; \
             full handling / serde_json Value parse + serialize, median of {rounds} interleaved \
             rounds)"
        ),
        format!(
            "FIGURE: racs scoring/typed-parsing ratio = {:.2} (no target; full handling / \
             serde_json typed parse + serialize)",
            median(r_typed)
        ),
        format!(
            "FIGURE: racs full handling, 50 routes x 500 vertices, 10,000 stations = {:.2} ms \
             per request",
            ms(t_full)
        ),
        format!(
            "FIGURE: racs serde_json Value parse + serialize of the same request ({} KiB) and \
             response = {:.2} ms",
            setup.bytes.len() / 1024,
            ms(t_value)
        ),
        format!(
            "FIGURE: racs serde_json typed parse + serialize of the same request and response = \
             {:.2} ms",
            ms(t_typed)
        ),
    ]
}

/// Runs one side alone, for a profiler; true when asked to. Never inlined, so that
/// `valgrind --tool=callgrind --toggle-collect=racs::profile_only` counts only the profiled calls.
#[inline(never)]
fn profile_only(setup: &Setup) -> bool {
    let Ok(side) = std::env::var("RACS_BENCH_PROFILE") else {
        return false;
    };
    let iters: usize = std::env::var("RACS_BENCH_PROFILE_ITERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let f: &dyn Fn() -> Vec<u8> = match side.as_str() {
        "handling" => &|| setup.handle(),
        "serde_value" => &|| setup.serde_value(),
        "serde_typed" => &|| setup.serde_typed(),
        other => {
            panic!("RACS_BENCH_PROFILE={other}: expected handling, serde_value or serde_typed")
        }
    };
    for _ in 0..iters {
        black_box(f());
    }
    true
}

fn main() {
    let setup = Setup::new();
    if profile_only(&setup) {
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    // `cargo test --benches` passes `--test`: one quick round shows the comparison works.
    let quick = args.iter().any(|a| a == "--test");

    let mut c = Criterion::default().configure_from_args();
    breakdown(&mut c, &setup);
    side_by_side(&mut c, &setup);
    c.final_summary();

    let figures = interleaved(&setup, if quick { 1 } else { ROUNDS });
    println!();
    for line in figures {
        println!("{line}");
    }
}
