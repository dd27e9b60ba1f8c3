//! Air-quality source throughput: station-file queries per second with 10,000 stations, and
//! demo-field samples per second, in batches of 1,000 queries as route scoring asks for them.
//! The queries of a batch are scattered over the whole area, so that none can reuse the
//! neighbourhood of the one before (route samples, a few tens of metres apart, do).
//!
//! Each rate is also printed at the end on a line starting `FIGURE:` (median of 15 batches).

use std::hint::black_box;
use std::time::Instant;

use aq_core::{AirQualitySource, Concentration, Concentrations, Pollutant, Position, SampleQuery};
use aq_sources::{DemoField, PollenCounts, StationFile, StationFileConfig, StationReading};
use criterion::{Criterion, Throughput};

const STATIONS: usize = 10_000;
const BATCH: usize = 1_000;

/// A small deterministic generator, so every run measures the same layout.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // The top 53 bits fill an f64 mantissa exactly.
        #[allow(clippy::cast_precision_loss)]
        let v = (self.0 >> 11) as f64;
        v / (1u64 << 53) as f64
    }

    fn in_box(&mut self, (lon0, lon1): (f64, f64), (lat0, lat1): (f64, f64)) -> Position {
        let lon = lon0 + (lon1 - lon0) * self.unit();
        let lat = lat0 + (lat1 - lat0) * self.unit();
        Position::new(lon, lat).unwrap_or_else(|e| panic!("bench box out of range: {e}"))
    }
}

/// A query at `position`, `secs` seconds after 2026-05-04T08:00:00Z. Built through serde so
/// that this crate needs no direct chrono dependency.
fn query(position: Position, secs: i64) -> SampleQuery {
    let time = rfc3339(1_777_881_600 + secs);
    serde_json::from_value(serde_json::json!({ "position": position, "time": time }))
        .unwrap_or_else(|e| panic!("bench query: {e}"))
}

/// Seconds since the epoch as RFC 3339 UTC text (proleptic Gregorian, days-from-civil inverse).
fn rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// 10,000 stations in the box, three hourly readings each.
fn station_file(lon: (f64, f64), lat: (f64, f64)) -> StationFile {
    let mut rng = Lcg(7);
    let mut readings = Vec::with_capacity(STATIONS * 3);
    for i in 0..STATIONS {
        let position = rng.in_box(lon, lat);
        for h in 0..3i64 {
            let c = |v: f64| Concentration::new(v).unwrap_or_else(|e| panic!("{e}"));
            readings.push(StationReading {
                station_id: format!("s{i}"),
                position,
                time: query(position, h * 3600).time,
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

fn queries(lon: (f64, f64), lat: (f64, f64)) -> Vec<SampleQuery> {
    let mut rng = Lcg(11);
    (0..BATCH)
        .map(|i| query(rng.in_box(lon, lat), i64::try_from(i).unwrap_or(0) * 9))
        .collect()
}

/// Queries per second over `batch`: the median of 15 timed batches.
fn rate(rt: &tokio::runtime::Runtime, source: &dyn AirQualitySource, batch: &[SampleQuery]) -> f64 {
    let mut times: Vec<f64> = (0..15)
        .map(|_| {
            let start = Instant::now();
            black_box(rt.block_on(source.sample(black_box(batch))))
                .unwrap_or_else(|e| panic!("bench sample: {e}"));
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    batch.len() as f64 / times[times.len() / 2]
}

fn bench_sources(c: &mut Criterion, figures: &mut Vec<String>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    let mut group = c.benchmark_group("aq-sources");
    group.throughput(Throughput::Elements(BATCH as u64));

    // A national network: 10,000 stations over western and central Europe (about 29 km apart).
    let (lon, lat) = ((-10.0, 30.0), (35.0, 60.0));
    let file = station_file(lon, lat);
    let batch = queries(lon, lat);
    group.bench_function("station_file/10k_stations_europe", |b| {
        b.iter(|| rt.block_on(file.sample(black_box(&batch))));
    });
    figures.push(format!(
        "FIGURE: station file, 10,000 stations over Europe, scattered queries = {:.0} queries/s",
        rate(&rt, &file, &batch)
    ));

    // A dense sensor network: 10,000 stations over a 200 km square, about 2 km apart, so every
    // query weighs its full 10 neighbours.
    let (lon, lat) = ((12.0, 15.0), (51.5, 53.3));
    let file = station_file(lon, lat);
    let batch = queries(lon, lat);
    group.bench_function("station_file/10k_stations_dense", |b| {
        b.iter(|| rt.block_on(file.sample(black_box(&batch))));
    });
    figures.push(format!(
        "FIGURE: station file, 10,000 stations 2 km apart, scattered queries = {:.0} queries/s",
        rate(&rt, &file, &batch)
    ));

    let field = DemoField::default();
    let batch = queries((-180.0, 180.0), (-70.0, 70.0));
    group.bench_function("demo_field/global", |b| {
        b.iter(|| rt.block_on(field.sample(black_box(&batch))));
    });
    figures.push(format!(
        "FIGURE: demo field = {:.0} samples/s",
        rate(&rt, &field, &batch)
    ));
    group.finish();
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    let mut figures = Vec::new();
    bench_sources(&mut c, &mut figures);
    c.final_summary();
    println!();
    for line in figures {
        println!("{line}");
    }
}
