//! The CAMS grid source side by side with its floors, in one run:
//!
//! - samples per second of `GridSource::sample_ci` (six pollutants, two hours blended, the CI)
//!   on a 0.4° global grid held as chunks (an in-memory object store, every chunk in the cache
//!   after the first batch: the hot path), against a bare bilinear lookup of one quantity at
//!   one hour in a `Vec<f32>`: the least any grid lookup can cost;
//! - ingesting the global fixture (`adapters/grid/fixtures/global.grib2`: 21 messages, 684
//!   nodes each) into an empty in-memory store with `aq_grid::ingest_file` (decoding, chunks,
//!   manifest), against ecCodes's `grib_get_data` decoding the same file
//!   as a command. The ecCodes figure includes starting its process (a few milliseconds on this
//!   scale); set `GRIB_GET_DATA` to the tool's path, or have it on `PATH` (`pip install
//!   eccodeslib` ships it under `eccodeslib/bin`), else that side is left out.
//!
//! - one page of an alert job (1,000 points around four European cities, within half a degree
//!   of each): `hourly_ci` over 24 hours and `daily_pollen` over 2 days, as the alert worker
//!   asks them for a 24 h air-quality rule and a 2-day pollen rule, on a 0.1° European grid of
//!   the six pollutants and three pollen types over 130 hours (every chunk cached), on a
//!   runtime of two threads as the server's alert workers.
//!
//! - decoding one chunk as the store holds it (64 × 64 nodes × 8 hours, 128 KiB) into the
//!   node-by-node order sampling reads: what the first request after a start pays for every
//!   chunk it reads.
//!
//! Each rate is also printed at the end on a line starting `FIGURE:`.

use std::hint::black_box;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use aq_core::{AirQualitySource, ForecastSource, Pollutant, Position, SampleQuery};
use aq_grid::{Field, GridSource, GridStore, Lattice, Layer, Product, Quantity};
use chrono::{DateTime, Duration, TimeZone, Utc};
use criterion::{Criterion, Throughput};

const BATCH: usize = 10_000;

fn lcg(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    #[allow(clippy::cast_precision_loss)]
    let v = (*state >> 11) as f64;
    v / (1u64 << 53) as f64
}

fn run() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 10, 0, 0, 0)
        .single()
        .unwrap_or_else(|| panic!("bench run time"))
}

/// The CAMS global grid's shape: 0.4°, 451 rows from 90°N, 900 columns from 0°E.
fn global() -> Lattice {
    Lattice::new(90.0, -0.4, 451, 0.0, 0.4, 900).unwrap_or_else(|e| panic!("{e}"))
}

fn values(seed: u64, n: usize) -> Vec<f32> {
    let mut s = seed;
    #[allow(clippy::cast_possible_truncation)]
    (0..n).map(|_| (5.0 + 40.0 * lcg(&mut s)) as f32).collect()
}

/// A store of `product` on `lattice` holding `quantities` at each of `hours` hours from [`run`],
/// every value drawn from a seeded generator.
fn filled(
    rt: &tokio::runtime::Runtime,
    product: Product,
    lattice: Lattice,
    quantities: &[Quantity],
    hours: u64,
) -> Arc<GridStore> {
    let store = Arc::new(GridStore::in_memory());
    let mut fields = Vec::new();
    for h in 0..hours {
        for (k, &quantity) in quantities.iter().enumerate() {
            let layer = Layer::new(lattice, values(k as u64 * 1000 + h, lattice.len()).into())
                .unwrap_or_else(|e| panic!("{e}"));
            fields.push(Field {
                product,
                quantity,
                run: run(),
                valid: run() + Duration::hours(h as i64),
                layer,
            });
        }
    }
    rt.block_on(store.commit(fields))
        .unwrap_or_else(|e| panic!("{e}"));
    store
}

/// The six pollutants on the global grid over 3 hours.
fn store(rt: &tokio::runtime::Runtime) -> Arc<GridStore> {
    let pollutants = Pollutant::ALL.map(Quantity::Pollutant);
    filled(rt, Product::Global, global(), &pollutants, 3)
}

fn queries() -> Vec<SampleQuery> {
    let mut s = 11;
    (0..BATCH)
        .map(|_| SampleQuery {
            position: Position::new(-180.0 + 360.0 * lcg(&mut s), -89.0 + 178.0 * lcg(&mut s))
                .unwrap_or_else(|e| panic!("{e}")),
            // Between the hours, so every sample blends two of them.
            #[allow(clippy::cast_possible_truncation)]
            time: run() + Duration::seconds((7200.0 * lcg(&mut s)) as i64 + 1),
        })
        .collect()
}

/// One quantity at one hour: the bilinear blend of a `Vec<f32>` written out by hand.
fn bare(grid: &[f32], lat: f64, lon: f64) -> f64 {
    let fj = ((90.0 - lat) / 0.4).clamp(0.0, 449.999);
    let fi = lon.rem_euclid(360.0) / 0.4;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let (j, i) = (fj as usize, (fi as usize).min(899));
    let (u, t) = (fj - j as f64, fi - i as f64);
    let i1 = (i + 1) % 900;
    let v = |j: usize, i: usize| f64::from(grid[j * 900 + i]);
    (1.0 - u) * ((1.0 - t) * v(j, i) + t * v(j, i1))
        + u * ((1.0 - t) * v(j + 1, i) + t * v(j + 1, i1))
}

fn median_rate(mut run: impl FnMut(), per_run: usize) -> f64 {
    let mut times: Vec<f64> = (0..15)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    per_run as f64 / times[times.len() / 2]
}

fn bench_sampling(c: &mut Criterion, figures: &mut Vec<String>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    let source = GridSource::new(store(&rt));
    let batch = queries();
    let grid = values(1, global().len());
    let mut group = c.benchmark_group("grid");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function("grid_source/sample_ci", |b| {
        b.iter(|| rt.block_on(source.sample_ci(black_box(&batch))));
    });
    group.bench_function("bare_bilinear_vec/one_quantity_one_hour", |b| {
        b.iter(|| {
            batch
                .iter()
                .map(|q| bare(black_box(&grid), q.position.lat(), q.position.lon()))
                .sum::<f64>()
        });
    });
    group.finish();
    figures.push(format!(
        "FIGURE: grid source sample_ci (6 pollutants x 2 hours + CI) = {:.0} samples/s",
        median_rate(
            || {
                black_box(rt.block_on(source.sample_ci(&batch))).unwrap_or_else(|e| panic!("{e}"));
            },
            BATCH
        )
    ));
    figures.push(format!(
        "FIGURE: bare bilinear Vec lookup (1 quantity x 1 hour) = {:.0} samples/s",
        median_rate(
            || {
                black_box(
                    batch
                        .iter()
                        .map(|q| bare(&grid, q.position.lat(), q.position.lon()))
                        .sum::<f64>(),
                );
            },
            BATCH
        )
    ));
}

/// Points in one page of an alert job.
const PAGE: usize = 1_000;

/// A 0.1° European grid around Paris and Berlin (46°N to 54°N, 0°E to 15°E), every quantity
/// (the pollutants, the pollen types and the plants) over 130 hours from [`run`].
fn europe_store(rt: &tokio::runtime::Runtime) -> Arc<GridStore> {
    let lattice = Lattice::new(54.0, -0.1, 81, 0.0, 0.1, 151).unwrap_or_else(|e| panic!("{e}"));
    filled(rt, Product::Europe, lattice, &Quantity::ALL, 130)
}

/// A page of points around Paris, Brussels, Frankfurt and Berlin, spread as the load tool
/// spreads an alert request's.
fn page() -> Vec<Position> {
    const CITIES: [(f64, f64); 4] = [(2.35, 48.86), (4.35, 50.85), (8.68, 50.11), (13.40, 52.52)];
    (0..PAGE)
        .map(|i| {
            let (lon, lat) = CITIES[i % CITIES.len()];
            let dx = ((i * 37) % 101) as f64 / 100.0 - 0.5;
            let dy = ((i * 53) % 97) as f64 / 96.0 - 0.5;
            Position::new(lon + dx, lat + dy).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

fn bench_alert_page(c: &mut Criterion, figures: &mut Vec<String>) {
    // Two threads, as the server's alert workers have on two cores.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    let source = GridSource::new(europe_store(&rt));
    let positions = page();
    // Between two whole hours, as a job's clock is.
    let now = run() + Duration::minutes(30 * 60 + 20);
    let one_page = || {
        rt.block_on(async {
            let aq = source.hourly_ci(&positions, now, 24).await;
            let pollen = source.daily_pollen(&positions, now, 2).await;
            let pollen = pollen.unwrap_or_else(|e| panic!("{e}"));
            black_box((aq.unwrap_or_else(|e| panic!("{e}")), pollen))
        })
    };
    let mut group = c.benchmark_group("grid_alerts");
    group.throughput(Throughput::Elements(PAGE as u64));
    group.bench_function("grid_source/alert_page_aq_24h_pollen_2d", |b| {
        b.iter(one_page)
    });
    group.finish();
    figures.push(format!(
        "FIGURE: grid source alert page (24 h index + 2-day pollen) = {:.0} points/s",
        median_rate(
            || {
                one_page();
            },
            PAGE
        )
    ));
}

fn grib_get_data() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GRIB_GET_DATA") {
        return Some(p.into());
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join("grib_get_data"))
            .find(|p| p.is_file())
    })
}

fn bench_ingest(c: &mut Criterion, figures: &mut Vec<String>) {
    let file =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../adapters/grid/fixtures/global.grib2");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    // A store of its own each time: a batch already in a store is not written again.
    let ingest = || {
        let store = GridStore::in_memory();
        black_box(rt.block_on(aq_grid::ingest_file(&store, &file)))
            .unwrap_or_else(|e| panic!("{e}"));
    };
    let mut group = c.benchmark_group("grid_ingest");
    group.bench_function("aq_grid_ingest_file/global_fixture", |b| b.iter(ingest));
    figures.push(format!(
        "FIGURE: aq_grid::ingest_file into an in-memory store, global fixture = {:.1} files/s",
        median_rate(ingest, 1)
    ));
    // An ecCodes too old for CAMS's product definition template 4.50 misreads the fixture:
    // then there is no honest figure to set beside ours.
    let reads_fixture = |tool: &PathBuf| {
        Command::new(tool)
            .arg(&file)
            .stdout(Stdio::null())
            .output()
            .is_ok_and(|out| {
                out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("ERROR")
            })
    };
    match grib_get_data() {
        Some(tool) if !reads_fixture(&tool) => figures.push(format!(
            "FIGURE: ecCodes grib_get_data ({}) cannot read the fixture: not measured",
            tool.display()
        )),
        Some(tool) => {
            let decode = || {
                let status = Command::new(&tool)
                    .arg(&file)
                    .stdout(Stdio::null())
                    .status()
                    .unwrap_or_else(|e| panic!("{}: {e}", tool.display()));
                assert!(status.success(), "grib_get_data failed");
            };
            group.bench_function("eccodes_grib_get_data/global_fixture", |b| b.iter(decode));
            figures.push(format!(
                "FIGURE: ecCodes grib_get_data (a process each), global fixture = {:.1} files/s",
                median_rate(decode, 1)
            ));
        }
        None => figures.push(
            "FIGURE: ecCodes grib_get_data not found (set GRIB_GET_DATA): not measured".to_owned(),
        ),
    }
    group.finish();
}

fn bench_chunk_decode(c: &mut Criterion, figures: &mut Vec<String>) {
    let (rows, cols, hours) = (64, 64, 8);
    let values = values(7, rows * cols * hours);
    let bytes = aq_grid::chunk::Chunk::encode_values(rows, cols, hours, &values)
        .unwrap_or_else(|e| panic!("{e}"));
    let decode = || {
        black_box(aq_grid::chunk::Chunk::decode(black_box(&bytes)))
            .unwrap_or_else(|e| panic!("{e}"));
    };
    let mut group = c.benchmark_group("grid_chunk");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("decode_64x64x8", |b| b.iter(decode));
    group.finish();
    figures.push(format!(
        "FIGURE: chunk decode (64 x 64 nodes x 8 hours, 128 KiB) = {:.0} chunks/s",
        median_rate(decode, 1)
    ));
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    let mut figures = Vec::new();
    bench_sampling(&mut c, &mut figures);
    bench_alert_page(&mut c, &mut figures);
    bench_ingest(&mut c, &mut figures);
    bench_chunk_decode(&mut c, &mut figures);
    c.final_summary();
    println!();
    for line in figures {
        println!("{line}");
    }
}
