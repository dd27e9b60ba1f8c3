//! Alerts: 100,000 points evaluated against two rules (air quality 6 h Medium, pollen 2 days
//! High) with the NDJSON streamed to a sink, as the pipeline does it (1,000 points per forecast
//! call, 64 KiB chunks); and the NDJSON encoder alone against a bare `serde_json` loop writing
//! the same lines into the same sink.

use std::hint::black_box;
use std::time::Duration;

use alerts_core::evaluate::Evaluator;
use alerts_core::ids::{KeyId, RuleId};
use alerts_core::ndjson::{AlertLine, DEFAULT_CHUNK_BYTES, NdjsonEncoder};
use alerts_core::request::AlertPoint;
use alerts_core::rule::{AlertRule, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use aq_core::memory::MemoryForecast;
use aq_core::runtime::{IdGenerator, SequentialIds};
use aq_core::{CleanlinessIndex, PollenLevel, PollenLevels, PollenOutlook, PollenType, Position};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const POINTS: usize = 100_000;
const CHUNK: usize = 1_000;

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
                now: day(0),
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

fn evaluate_and_stream(c: &mut Criterion) {
    let points = points();
    let forecast = forecast(&points);
    let rules = rules();
    let evaluator = Evaluator::default();
    let now = t0!();
    let rt = runtime();

    let run = || {
        rt.block_on(async {
            let mut encoder = NdjsonEncoder::new();
            let mut sink = Sink::default();
            for chunk in points.chunks(CHUNK) {
                let fc = evaluator
                    .fetch(&forecast, &rules, chunk, now)
                    .await
                    .unwrap_or_else(|e| panic!("bench forecast: {e}"));
                evaluator.evaluate_chunk(&rules, chunk, &fc, |alert| {
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
    };
    let (lines, bytes) = run();
    eprintln!(
        "alerts: {POINTS} points, 2 rules → {lines} lines, {:.1} MiB of NDJSON",
        bytes as f64 / 1_048_576.0
    );

    let mut group = c.benchmark_group("alerts");
    group.throughput(Throughput::Elements(POINTS as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("evaluate_and_stream_100k_points_2_rules", |b| {
        b.iter(|| black_box(run()));
    });
    group.finish();
}

fn encoder_vs_serde_json(c: &mut Criterion) {
    let points = points();
    let forecast = forecast(&points);
    let rules = rules();
    let evaluator = Evaluator::default();
    let now = t0!();
    let mut lines: Vec<AlertLine> = Vec::new();
    runtime().block_on(async {
        for chunk in points.chunks(CHUNK) {
            let fc = evaluator
                .fetch(&forecast, &rules, chunk, now)
                .await
                .unwrap_or_else(|e| panic!("bench forecast: {e}"));
            evaluator.evaluate_chunk(&rules, chunk, &fc, |alert| {
                lines.push(alert.line().to_owned_line());
            });
        }
    });

    let mut group = c.benchmark_group("ndjson");
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.sample_size(20);
    group.bench_function("encoder", |b| {
        b.iter(|| {
            let mut encoder = NdjsonEncoder::new();
            let mut sink = Sink::default();
            for line in &lines {
                match encoder.push(&line.as_ref()) {
                    Ok(Some(chunk)) => sink.write(&chunk),
                    Ok(None) => {}
                    Err(e) => panic!("bench encode: {e}"),
                }
            }
            sink.write(&encoder.finish());
            black_box(sink.bytes)
        });
    });
    group.bench_function("bare_serde_json_loop", |b| {
        b.iter(|| {
            let mut buf: Vec<u8> = Vec::with_capacity(DEFAULT_CHUNK_BYTES + 1024);
            let mut sink = Sink::default();
            for line in &lines {
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
            black_box(sink.bytes)
        });
    });
    group.finish();
}

criterion_group!(benches, evaluate_and_stream, encoder_vs_serde_json);
criterion_main!(benches);
