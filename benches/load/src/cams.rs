//! A CAMS-like grid store the load tool writes for itself, so that a server started with
//! `--aq-source cams:DIR` has fresh grids to answer from: the global forecast's 0.4° grid round
//! the globe with the six pollutants, and the European forecast's 0.1° grid (30°N to 72°N,
//! 25°W to 45°E) with the six pollutants and the three pollen types, one run of each, re-dated
//! to the hour it is written.
//!
//! The values are smooth waves in latitude, longitude and time, so that the index and the
//! daily pollen levels move from hour to hour and day to day and rules at high sensitivity
//! raise alerts. Only the hours the alert rules of `alerts-scale` read are written: the
//! pollutants from the hour before now to 27 hours after it (a 24 h air-quality rule), the
//! pollen from 27 hours before today's 00 UTC to 72 hours after it (yesterday, today and two
//! more civil days in every European time zone, the outlook of a 2-day pollen rule).

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use aq_core::Pollutant;
use aq_grid::{Field, GridStore, Lattice, Layer, Product, Quantity, StoreConfig};
use chrono::{DateTime, DurationRound, TimeDelta, Utc};

/// Hours written per commit: one batch holds this many hours of one quantity, which bounds the
/// load tool's memory to that many fields.
const HOURS_PER_BATCH: i64 = 8;

/// The CAMS global forecast's grid: 0.4°, 451 rows from 90°N southwards, 900 columns from 0°E.
fn global() -> Result<Lattice> {
    Ok(Lattice::new(90.0, -0.4, 451, 0.0, 0.4, 900)?)
}

/// The CAMS European forecast's grid: 0.1°, 421 rows from 72°N southwards, 701 columns from
/// 25°W.
fn europe() -> Result<Lattice> {
    Ok(Lattice::new(72.0, -0.1, 421, -25.0, 0.1, 701)?)
}

/// A quantity's typical level and how far its waves move it, as a fraction of the level.
fn level(quantity: Quantity) -> (f64, f64) {
    match quantity {
        Quantity::Pollutant(Pollutant::Pm25) => (15.0, 0.8),
        Quantity::Pollutant(Pollutant::Pm10) => (25.0, 0.8),
        Quantity::Pollutant(Pollutant::No2) => (30.0, 0.7),
        Quantity::Pollutant(Pollutant::O3) => (70.0, 0.5),
        Quantity::Pollutant(Pollutant::So2) => (8.0, 0.6),
        Quantity::Pollutant(Pollutant::Co) => (300.0, 0.4),
        Quantity::Pollen(_) | Quantity::Plant(_) => (40.0, 1.5),
    }
}

/// One quantity at hour `hour` (hours since the epoch) on `lattice`: a wave along the rows
/// plus a wave along the columns, each drifting with time; never negative.
fn layer(lattice: Lattice, quantity: Quantity, hour: i64) -> Result<Layer> {
    let (base, swing) = level(quantity);
    let k = quantity.index() as f64;
    let h = hour as f64;
    let (nlat, nlon) = lattice.shape();
    // Separable, so each row's and each column's term is computed once per hour; whole
    // waves round the globe, so there is no seam at 0°E.
    let rows: Vec<f64> = (0..nlat)
        .map(|j| (lattice.node(j, 0).0.to_radians() * 7.0 + h * 0.21 + k).sin())
        .collect();
    let columns: Vec<f64> = (0..nlon)
        .map(|i| (lattice.node(0, i).1.to_radians() * 5.0 - h * 0.17 + 2.0 * k).cos())
        .collect();
    let values: Vec<f32> = rows
        .iter()
        .flat_map(|r| {
            columns.iter().map(move |c| {
                #[allow(clippy::cast_possible_truncation)]
                let v = (base * (1.0 + swing * 0.5 * (r + c))).max(0.0) as f32;
                v
            })
        })
        .collect();
    Ok(Layer::new(lattice, values.into())?)
}

/// The quantities of a product.
fn quantities(product: Product) -> Vec<Quantity> {
    let pollutants = Pollutant::ALL.into_iter().map(Quantity::Pollutant);
    match product {
        Product::Global => pollutants.collect(),
        Product::Europe => pollutants
            .chain(Quantity::ALL.into_iter().filter(|q| q.is_pollen()))
            .collect(),
    }
}

/// The whole hours (seconds since the epoch) written of `quantity` at `now`.
fn hours(quantity: Quantity, now: DateTime<Utc>) -> Result<std::ops::Range<i64>> {
    let hour = 3600;
    Ok(match quantity {
        Quantity::Pollutant(_) => {
            let now = now.duration_trunc(TimeDelta::hours(1))?.timestamp() / hour;
            now - 1..now + 28
        }
        Quantity::Pollen(_) | Quantity::Plant(_) => {
            let today = now.duration_trunc(TimeDelta::days(1))?.timestamp() / hour;
            today - 27..today + 73
        }
    })
}

/// Writes the grids into the grid store in `dir` as of `now`; the bytes of chunks written.
///
/// # Errors
/// When the store cannot be written.
pub async fn write(dir: &Path, now: DateTime<Utc>) -> Result<u64> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let objects = Arc::new(
        object_store::local::LocalFileSystem::new_with_prefix(dir)
            .with_context(|| format!("cannot open {}", dir.display()))?,
    );
    let store = GridStore::new(objects, StoreConfig::default());
    let mut bytes = 0;
    for (product, lattice) in [(Product::Global, global()?), (Product::Europe, europe()?)] {
        for quantity in quantities(product) {
            let hours = hours(quantity, now)?;
            // One run per product, dated its first hour.
            let run = DateTime::from_timestamp(hours.start * 3600, 0).context("run time")?;
            let mut from = hours.start;
            while from < hours.end {
                let to = (from + HOURS_PER_BATCH).min(hours.end);
                let mut fields = Vec::new();
                for hour in from..to {
                    fields.push(Field {
                        product,
                        quantity,
                        run,
                        valid: DateTime::from_timestamp(hour * 3600, 0).context("valid time")?,
                        layer: layer(lattice, quantity, hour)?,
                    });
                }
                bytes += 4 * (lattice.len() * fields.len()) as u64;
                store
                    .commit(fields)
                    .await
                    .context("cannot write the grids")?;
                from = to;
            }
        }
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use aq_core::Plant;

    use super::*;

    #[test]
    fn the_waves_are_finite_and_never_negative() {
        let lattice = Lattice::new(72.0, -1.0, 43, -25.0, 1.0, 71).unwrap();
        for q in Quantity::ALL {
            let l = layer(lattice, q, 490_000).unwrap();
            assert!(l.values().iter().all(|v| v.is_finite() && *v >= 0.0));
            // The field moves across space.
            assert!(l.values().iter().any(|&v| v != l.values()[0]));
        }
    }

    #[test]
    fn the_pollen_hours_cover_four_civil_days_in_europe() {
        let now = DateTime::parse_from_rfc3339("2026-11-26T15:20:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let today = DateTime::parse_from_rfc3339("2026-11-26T00:00:00Z")
            .unwrap()
            .timestamp();
        let pollen = hours(Quantity::Plant(Plant::Birch), now).unwrap();
        // Yesterday's local midnight at UTC+3 to the end of the day after tomorrow at UTC+0.
        assert!(pollen.start * 3600 <= today - 27 * 3600);
        assert!(pollen.end * 3600 > today + 71 * 3600);
        let air = hours(Quantity::Pollutant(Pollutant::Pm25), now).unwrap();
        assert!(air.start * 3600 <= now.timestamp() - 3600);
        assert!(air.end * 3600 >= now.timestamp() + 26 * 3600);
    }
}
