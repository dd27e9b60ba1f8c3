//! Alerts: 100,000 points evaluated against two rules (air quality 6 h Medium, pollen 2 days
//! High) with the NDJSON streamed to a sink, as the pipeline does it (1,000 points per forecast
//! call, 64 KiB chunks); and the NDJSON encoder alone against a bare `serde_json` loop writing
//! the same lines into the same sink.
//!
//! The encoder's rate is compared with the bare loop's in interleaved rounds (one pass over every
//! line with each in turn, either going first, ratio per round, median over rounds), so that a
//! machine that slows down part-way hurts both alike; the target is at least 0.90. Each figure
//! is printed at the end on a line starting `FIGURE:`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use alerts_core::evaluate::Evaluator;
use alerts_core::ids::RuleId;
use alerts_core::ndjson::{AlertLine, DEFAULT_CHUNK_BYTES, NdjsonEncoder};
use alerts_core::request::AlertPoint;
use alerts_core::rule::{AlertRule, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use aq_core::memory::MemoryForecast;
use aq_core::{CleanlinessIndex, PollenLevel, PollenLevels, PollenOutlook, PollenType, Position};
use benches::{calls_for, median, timed_block};
use criterion::{Criterion, Throughput};
use identity_core::ids::KeyId;
use runtime_core::{IdGenerator, SequentialIds};

const POINTS: usize = 100_000;
const CHUNK: usize = 1_000;
/// Rounds of the interleaved comparison, and the least time each side runs per round.
const ROUNDS: usize = 25;
const ROUND_BLOCK: Duration = Duration::from_millis(100);
const RATE_TARGET: f64 = 0.90;

/// The bench's "now", as the forecast port takes it. Built through serde so that this crate
/// needs no direct chrono dependency.
macro_rules! t0 {
    () => {
        serde_json::from_value(serde_json::json!("2026-05-01T08:00:00Z"))
            .unwrap_or_else(|e| panic!("bench start time: {e}"))
    };
}

/// A 400 × 250 grid over Europe, ids as a customer would send them.
fn points() -> Vec<AlertPoint> {
    (0..POINTS)
        .map(|i| {
            let lon = -10.0 + 0.1 * (i % 400) as f64;
            let lat = 35.0 + 0.1 * (i / 400) as f64;
            AlertPoint {
                position: Position::new(lon, lat).unwrap_or_else(|e| panic!("bench point: {e}")),
                id: format!("device-{i}"),
                custom_data: if i % 3 == 0 {
                    r#"{"user":"u-1234","tier":"gold"}"#.to_owned()
                } else {
                    "{}".to_owned()
                },
            }
        })
        .collect()
}

fn ci(v: f64) -> Option<CleanlinessIndex> {
    Some(CleanlinessIndex::clamped(v))
}

fn level(v: usize) -> PollenLevel {
    PollenLevel::new((v % 6) as u8).unwrap_or(PollenLevel::NONE)
}

/// Forecasts that trip about half of the air-quality checks at varying hours and some pollen
/// types, so the benchmark writes a realistic mix of lines.
fn forecast(points: &[AlertPoint]) -> MemoryForecast {
    let forecast = MemoryForecast::default();
    for (i, p) in points.iter().enumerate() {
        let now = 40.0 + (i % 40) as f64;
        let slope = if i % 2 == 0 { -2.5 } else { 0.6 };
        let hourly = (0..=24).map(|h| ci(now + slope * h as f64)).collect();
        forecast.set_hourly(p.position, hourly);
        let day = |d: usize| {
            PollenLevels::default()
                .with(PollenType::Tree, level(i + d))
                .with(PollenType::Grass, level(i / 7 + d))
                .with(PollenType::Weed, level(i / 3))
        };
        forecast.set_pollen(
            p.position,
            PollenOutlook {
                today: chrono::NaiveDate::MIN,
                yesterday: day(0),
                days: (0..5).map(day).collect(),
            },
        );
    }
    forecast
}

fn rules() -> Vec<AlertRule> {
    let ids = SequentialIds::default();
    let key_id = KeyId(ids.new_id());
    let rule = |dt, f, s, message| AlertRule {
        id: RuleId(ids.new_id()),
        key_id,
        spec: RuleSpec::new(dt, f, s, message).unwrap_or_else(|e| panic!("bench rule: {e}")),
        enabled: true,
        created_at: t0!(),
    };
    vec![
        rule(
            DataType::Aq,
            Forecast::Hours(6),
            Sensitivity::Medium,
            MessageSpec::Default,
        ),
        rule(
            DataType::Pollen,
            Forecast::Days(2),
            Sensitivity::High,
            MessageSpec::Custom {
                deterioration: "{kind} pollen rises to {category} in {days} days".into(),
                improvement: "{kind} pollen eases to {category}".into(),
            },
        ),
    ]
}

/// The sink every variant writes to: it takes the chunks and keeps their total length.
#[derive(Default)]
struct Sink {
    bytes: usize,
}

impl Sink {
    fn write(&mut self, chunk: &[u8]) {
        self.bytes += black_box(chunk).len();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("bench runtime: {e}"))
}

/// Everything the benchmarks share: the points, their forecasts, the rules, and the alert lines
/// they produce.
struct Setup {
    points: Vec<AlertPoint>,
    forecast: MemoryForecast,
    rules: Vec<AlertRule>,
    evaluator: Evaluator,
    rt: tokio::runtime::Runtime,
    lines: Vec<AlertLine>,
}

impl Setup {
    fn new() -> Self {
        let points = points();
        let forecast = forecast(&points);
        let rules = rules();
        let evaluator = Evaluator::default();
        let rt = runtime();
        let mut setup = Self {
            points,
            forecast,
            rules,
            evaluator,
            rt,
            lines: Vec::new(),
        };
        let mut lines = Vec::new();
        setup.rt.block_on(async {
            for chunk in setup.points.chunks(CHUNK) {
                let fc = setup
                    .evaluator
                    .fetch(&setup.forecast, &setup.rules, chunk, t0!())
                    .await
                    .unwrap_or_else(|e| panic!("bench forecast: {e}"));
                setup
                    .evaluator
                    .evaluate_chunk(&setup.rules, chunk, &fc, |alert| {
                        lines.push(alert.line().to_owned_line());
                    });
            }
        });
        setup.lines = lines;
        setup
    }

    /// The pipeline's loop: fetch forecasts per chunk of points, evaluate, encode, stream.
    /// Returns the lines and bytes written.
    fn evaluate_and_stream(&self) -> (u64, usize) {
        let now = t0!();
        self.rt.block_on(async {
            let mut encoder = NdjsonEncoder::new();
            let mut sink = Sink::default();
            for chunk in self.points.chunks(CHUNK) {
                let fc = self
                    .evaluator
                    .fetch(&self.forecast, &self.rules, chunk, now)
                    .await
                    .unwrap_or_else(|e| panic!("bench forecast: {e}"));
                self.evaluator
                    .evaluate_chunk(&self.rules, chunk, &fc, |alert| {
                        if let Err(e) = encoder.encode(&alert.line()) {
                            panic!("bench encode: {e}");
                        }
                    });
                if let Some(bytes) = encoder.take_chunk() {
                    sink.write(&bytes);
                }
            }
            let lines = encoder.lines();
            sink.write(&encoder.finish());
            (lines, sink.bytes)
        })
    }

    /// Every line through the NDJSON encoder into the sink, chunk by chunk.
    fn encoder(&self) -> usize {
        let mut encoder = NdjsonEncoder::new();
        let mut sink = Sink::default();
        for line in &self.lines {
            match encoder.push(&line.as_ref()) {
                Ok(Some(chunk)) => sink.write(&chunk),
                Ok(None) => {}
                Err(e) => panic!("bench encode: {e}"),
            }
        }
        sink.write(&encoder.finish());
        sink.bytes
    }

    /// Every line through a bare serde_json loop into the same sink, in chunks of the same size
    /// from one reused buffer.
    fn bare_serde_json(&self) -> usize {
        let mut buf: Vec<u8> = Vec::with_capacity(DEFAULT_CHUNK_BYTES + 1024);
        let mut sink = Sink::default();
        for line in &self.lines {
            if let Err(e) = serde_json::to_writer(&mut buf, &line.as_ref()) {
                panic!("bench encode: {e}");
            }
            buf.push(b'\n');
            if buf.len() >= DEFAULT_CHUNK_BYTES {
                sink.write(&buf);
                buf.clear();
            }
        }
        sink.write(&buf);
        sink.bytes
    }
}

fn evaluate_and_stream(c: &mut Criterion, setup: &Setup) {
    let (lines, bytes) = setup.evaluate_and_stream();
    eprintln!(
        "alerts: {POINTS} points, 2 rules → {lines} lines, {:.1} MiB of NDJSON",
        bytes as f64 / 1_048_576.0
    );

    let mut group = c.benchmark_group("alerts");
    group.throughput(Throughput::Elements(POINTS as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("evaluate_and_stream_100k_points_2_rules", |b| {
        b.iter(|| black_box(setup.evaluate_and_stream()));
    });
    group.finish();
}

fn encoder_vs_serde_json(c: &mut Criterion, setup: &Setup) {
    assert_eq!(
        setup.encoder(),
        setup.bare_serde_json(),
        "both sides write the same bytes"
    );
    let mut group = c.benchmark_group("ndjson");
    group.throughput(Throughput::Elements(setup.lines.len() as u64));
    group.sample_size(20);
    group.bench_function("encoder", |b| b.iter(|| black_box(setup.encoder())));
    group.bench_function("bare_serde_json_loop", |b| {
        b.iter(|| black_box(setup.bare_serde_json()))
    });
    group.finish();
}

/// The figures: the encoder's rate against the bare loop's in interleaved rounds, and the whole
/// pipeline's rate.
fn figures(setup: &Setup, rounds: usize) -> Vec<String> {
    let encoder: &dyn Fn() -> usize = &|| setup.encoder();
    let bare: &dyn Fn() -> usize = &|| setup.bare_serde_json();
    let block = if rounds > 1 {
        ROUND_BLOCK
    } else {
        Duration::ZERO
    };
    let (n_encoder, n_bare) = (calls_for(block, encoder), calls_for(block, bare));
    let (mut t_encoder, mut t_bare, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        // Each side goes first in every other round, so that neither always inherits the
        // other's caches.
        let (e, b) = if round % 2 == 0 {
            let e = timed_block(n_encoder, encoder).as_secs_f64();
            (e, timed_block(n_bare, bare).as_secs_f64())
        } else {
            let b = timed_block(n_bare, bare).as_secs_f64();
            (timed_block(n_encoder, encoder).as_secs_f64(), b)
        };
        t_encoder.push(e);
        t_bare.push(b);
        // Rates are lines per second, so the rate ratio is the inverse of the time ratio.
        ratios.push(b / e);
    }
    let lines = setup.lines.len() as f64;
    let ratio = median(ratios);
    let verdict = if rounds < ROUNDS {
        // `--test`: one cold call of each side shows the code runs, not how fast.
        "a --test run, not a measurement"
    } else if ratio >= RATE_TARGET {
        "met"
    } else {
        "MISSED"
    };

    let mut pipeline = Vec::new();
    for _ in 0..rounds.clamp(1, 5) {
        let start = Instant::now();
        black_box(setup.evaluate_and_stream());
        pipeline.push(start.elapsed().as_secs_f64());
    }
    vec![
        format!(
            "FIGURE: ndjson encoder/serde_json rate ratio = {ratio:.3} (target >= {RATE_TARGET}, \
             {verdict}; median of {rounds} interleaved rounds over {} lines)",
            setup.lines.len()
        ),
        format!(
            "FIGURE: ndjson encoder = {:.0} lines/s",
            lines / median(t_encoder)
        ),
        format!(
            "FIGURE: ndjson bare serde_json loop = {:.0} lines/s",
            lines / median(t_bare)
        ),
        format!(
            "FIGURE: alerts evaluate and stream, 100,000 points x 2 rules = {:.0} points/s",
            POINTS as f64 / median(pipeline)
        ),
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    // `cargo test --benches` passes `--test`: one quick round shows the comparison works.
    let quick = args.iter().any(|a| a == "--test");
    let setup = Setup::new();

    let mut c = Criterion::default().configure_from_args();
    evaluate_and_stream(&mut c, &setup);
    encoder_vs_serde_json(&mut c, &setup);
    c.final_summary();

    let figures = figures(&setup, if quick { 1 } else { ROUNDS });
    println!();
    for line in figures {
        println!("{line}");
    }
}
