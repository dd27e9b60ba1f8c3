//! The synthetic test set of the fusion, written as an operator's files are: CAMS-like grids
//! in a grid store (`--aq-source cams:DIR`) and a station CSV (`--fuse-stations stations:FILE`).
//! Shared by the server's tests and `cargo run --example fusion_set`, whose run the README
//! shows.
//!
//! - **Truth**: the project's demo field (seed 20,240,506) over Paris, 0.85° to 3.85° E and
//!   47.86° to 49.86° N (about 220 × 220 km), every hour of 14 January 2026 (UTC): the city's
//!   plume, its road corridors a kilometre and a half wide, the weather and the daily cycle.
//! - **Model**: a grid of 0.1° (the CAMS European grid's spacing), 21 × 31 nodes, each node
//!   the mean of the truth at 3 × 3 points across its cell, so that it misses what is smaller
//!   than a cell as a model does; then scaled and shifted per pollutant ([`MODEL_ERRORS`]):
//!   PM2.5 × 0.7 + 3, PM10 × 0.75 + 4, NO₂ × 0.6 + 5, O₃ × 1.15 − 6 µg/m³ (never below 0).
//!   One run, of 14 January 00:00 UTC, with steps 0 to 23 h.
//! - **Stations**: 25 in central Paris (within about 20 km of its centre) and 35 scattered over
//!   the domain, at places drawn from a seeded generator (PCG-64, seed [`SEED`]); each reads
//!   the truth at its own point every hour plus noise: 5 % of the value and 1 µg/m³ (normal,
//!   independent), rounded to 0.1. Two faulty stations join them: `FR-BROKEN` reading about
//!   900 µg/m³ of PM2.5 in central Paris, and `FR-STUCK` whose NO₂ reads 42.0 all day.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use aq_core::{Pollutant, Position};
use aq_grid::{Field, GridStore, Lattice, Layer, Product, Quantity, StoreConfig};
use aq_sources::DemoField;
use chrono::{DateTime, Duration, TimeZone, Utc};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

/// The seed of the stations' places and noise.
pub(crate) const SEED: u64 = 28;

/// The domain.
const WEST: f64 = 0.85;
const NORTH: f64 = 49.86;
const NODES_LON: usize = 31;
const NODES_LAT: usize = 21;
const STEP: f64 = 0.1;

/// Paris's centre, as the demo field places the city.
const PARIS: (f64, f64) = (2.35, 48.86);

/// The hours of the set: 14 January 2026, 00:00 to 23:00 UTC.
pub(crate) const HOURS: u32 = 24;

/// The model's error per pollutant: scale, then bias in µg/m³.
pub(crate) const MODEL_ERRORS: [(Pollutant, f64, f64); 4] = [
    (Pollutant::Pm25, 0.7, 3.0),
    (Pollutant::Pm10, 0.75, 4.0),
    (Pollutant::No2, 0.6, 5.0),
    (Pollutant::O3, 1.15, -6.0),
];

/// The first hour of the set.
pub(crate) fn first_hour() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 14, 0, 0, 0).unwrap()
}

/// The last hour of the set.
pub(crate) fn last_hour() -> DateTime<Utc> {
    first_hour() + Duration::hours(i64::from(HOURS) - 1)
}

/// Where the set was written.
#[derive(Debug, Clone)]
pub(crate) struct FusionSet {
    /// The grid store, for `--aq-source cams:...`.
    pub(crate) cams: PathBuf,
    /// The station CSV, for `--fuse-stations stations:...`.
    pub(crate) stations: PathBuf,
}

/// The truth: the demo field's µg/m³ of each pollutant at `x` and `t`.
fn truth(field: &DemoField, x: Position, t: DateTime<Utc>) -> aq_core::Concentrations {
    field.sample_at(x, t).unwrap().concentrations.unwrap()
}

/// A normal draw (Box–Muller).
fn normal(rng: &mut Pcg64) -> f64 {
    let u: f64 = rng.random_range(1e-12..1.0);
    let v: f64 = rng.random_range(0.0..1.0);
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Writes the set into `dir` (which must exist): `dir/cams` and `dir/stations.csv`.
pub(crate) async fn write(dir: &Path, seed: u64) -> FusionSet {
    let field = DemoField::default();
    let cams = dir.join("cams");
    std::fs::create_dir_all(&cams).unwrap();
    let objects = object_store::local::LocalFileSystem::new_with_prefix(&cams).unwrap();
    let store = GridStore::new(Arc::new(objects), StoreConfig::default());
    let lattice = Lattice::new(NORTH, -STEP, NODES_LAT, WEST, STEP, NODES_LON).unwrap();
    let mut fields = Vec::new();
    for h in 0..HOURS {
        let t = first_hour() + Duration::hours(i64::from(h));
        // Each node the mean of the truth at 3 × 3 points across its cell.
        let means: Vec<[f64; 6]> = (0..NODES_LAT)
            .flat_map(|j| (0..NODES_LON).map(move |i| (j, i)))
            .map(|(j, i)| {
                let (lat, lon) = (NORTH - STEP * j as f64, WEST + STEP * i as f64);
                let mut sum = [0.0; 6];
                for dj in [-1.0, 0.0, 1.0] {
                    for di in [-1.0, 0.0, 1.0] {
                        let x =
                            Position::new(lon + di * STEP / 3.0, lat + dj * STEP / 3.0).unwrap();
                        let c = truth(&field, x, t);
                        for (k, p) in Pollutant::ALL.iter().enumerate() {
                            sum[k] += c.get(*p).map_or(0.0, |c| c.ug_m3()) / 9.0;
                        }
                    }
                }
                sum
            })
            .collect();
        for (p, scale, bias) in MODEL_ERRORS {
            let k = Pollutant::ALL.iter().position(|&q| q == p).unwrap();
            let values: Box<[f32]> = means
                .iter()
                .map(|m| (scale * m[k] + bias).max(0.0) as f32)
                .collect();
            fields.push(Field {
                product: Product::Europe,
                quantity: Quantity::Pollutant(p),
                run: first_hour(),
                valid: t,
                layer: Layer::new(lattice, values).unwrap(),
            });
        }
    }
    store.commit(fields).await.unwrap();

    let mut rng = Pcg64::seed_from_u64(seed);
    let mut places = Vec::new();
    for k in 0..60 {
        let (lon, lat) = if k < 25 {
            (
                PARIS.0 + rng.random_range(-0.27..0.27),
                PARIS.1 + rng.random_range(-0.18..0.18),
            )
        } else {
            (
                rng.random_range(WEST + 0.1..WEST + STEP * 30.0 - 0.1),
                rng.random_range(NORTH - STEP * 20.0 + 0.1..NORTH - 0.1),
            )
        };
        places.push((format!("FR-{k:03}"), Position::new(lon, lat).unwrap()));
    }
    places.push((
        "FR-BROKEN".to_owned(),
        Position::new(PARIS.0 + 0.03, PARIS.1 - 0.02).unwrap(),
    ));
    places.push((
        "FR-STUCK".to_owned(),
        Position::new(PARIS.0 - 0.12, PARIS.1 + 0.05).unwrap(),
    ));
    let mut csv = String::from("station_id,lon,lat,time,pm25,pm10,no2,o3\n");
    for h in 0..HOURS {
        let t = first_hour() + Duration::hours(i64::from(h));
        for (id, x) in &places {
            let c = truth(&field, *x, t);
            let mut read = |p: Pollutant| {
                let v = c.get(p).map_or(0.0, |c| c.ug_m3());
                let noisy = v * (1.0 + 0.05 * normal(&mut rng)) + normal(&mut rng);
                (noisy.max(0.0) * 10.0).round() / 10.0
            };
            let mut values = [
                read(Pollutant::Pm25),
                read(Pollutant::Pm10),
                read(Pollutant::No2),
                read(Pollutant::O3),
            ];
            if id == "FR-BROKEN" {
                values[0] = ((900.0 + 20.0 * normal(&mut rng)) * 10.0).round() / 10.0;
            }
            if id == "FR-STUCK" {
                values[2] = 42.0;
            }
            csv.push_str(&format!(
                "{id},{:.5},{:.5},{},{},{},{},{}\n",
                x.lon(),
                x.lat(),
                t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                values[0],
                values[1],
                values[2],
                values[3]
            ));
        }
    }
    let stations = dir.join("stations.csv");
    std::fs::write(&stations, csv).unwrap();
    FusionSet { cams, stations }
}
