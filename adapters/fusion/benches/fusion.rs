//! The fused source's work: one hourly analysis of 400 stations (reading them, quality control,
//! the model at each, the fit of the error statistics, the interpolation's index), and a
//! heatmap tile's 289 points corrected from an analysis already made.
//!
//! Each time is also printed at the end on a line starting `FIGURE:` (median of 15 runs).
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use aq_core::{
    AirQualitySource, AirSample, Concentration, Concentrations, EaqiBands, ForecastSource,
    HourlyCi, PollenOutlook, Pollutant, Position, Reading, SampleQuery, SourceError, SourceInfo,
    StationId, StationSeries,
};
use aq_fusion::{FusedSource, FusionConfig, MemoryStations};
use chrono::{DateTime, Duration, TimeZone, Utc};
use criterion::Criterion;
use runtime_core::FixedClock;

const STATIONS: usize = 400;

/// A model of PM2.5 and NO₂ rising gently eastwards and northwards.
struct Gradient;

fn air(p: Position) -> Concentrations {
    Concentrations::default()
        .with(
            Pollutant::Pm25,
            Concentration::new(p.lon()).unwrap_or_else(|e| panic!("{e}")),
        )
        .with(
            Pollutant::No2,
            Concentration::new(p.lat() - 30.0).unwrap_or_else(|e| panic!("{e}")),
        )
}

#[async_trait::async_trait]
impl AirQualitySource for Gradient {
    fn info(&self) -> SourceInfo {
        SourceInfo::real("gradient")
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        Ok(queries
            .iter()
            .map(|q| {
                let c = air(q.position);
                Some(AirSample {
                    ci: EaqiBands::default().ci(&c)?,
                    concentrations: Some(c),
                })
            })
            .collect())
    }
}

#[async_trait::async_trait]
impl ForecastSource for Gradient {
    fn info(&self) -> SourceInfo {
        SourceInfo::real("gradient")
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        _start: DateTime<Utc>,
        _hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        Ok(vec![None; positions.len()])
    }

    async fn daily_pollen(
        &self,
        positions: &[Position],
        _at: DateTime<Utc>,
        _days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        Ok(vec![None; positions.len()])
    }
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0)
        .single()
        .unwrap_or_else(|| panic!("time"))
}

/// A small deterministic generator, so every run measures the same layout.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        #[allow(clippy::cast_precision_loss)]
        let v = (self.0 >> 11) as f64;
        v / (1u64 << 53) as f64
    }
}

/// 400 stations over 10° to 13° E and 50° to 52° N, six hourly readings of PM2.5 and NO₂ each.
fn stations() -> MemoryStations {
    let mut rng = Lcg(28);
    let mut series = Vec::new();
    for i in 0..STATIONS {
        let position = Position::new(10.0 + 3.0 * rng.unit(), 50.0 + 2.0 * rng.unit())
            .unwrap_or_else(|e| panic!("{e}"));
        for (p, level) in [(Pollutant::Pm25, 18.0), (Pollutant::No2, 30.0)] {
            let readings = (0..6)
                .map(|h| Reading {
                    time: now() - Duration::hours(h),
                    value: level + 10.0 * rng.unit(),
                })
                .collect();
            series.push(StationSeries {
                station: StationId(format!("S{i}")),
                position,
                pollutant: p,
                readings,
            });
        }
    }
    MemoryStations::new("bench", series)
}

fn source(stations: &MemoryStations) -> FusedSource {
    let model = Arc::new(Gradient);
    FusedSource::new(
        model.clone(),
        model,
        Arc::new(stations.clone()),
        Arc::new(FixedClock::new(now())),
        FusionConfig::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A tile's 17 × 17 points over one cell.
fn tile() -> Vec<SampleQuery> {
    (0..17)
        .flat_map(|row| {
            (0..17).map(move |col| SampleQuery {
                position: Position::new(11.0 + f64::from(col) / 17.0, 51.0 + f64::from(row) / 17.0)
                    .unwrap_or_else(|e| panic!("{e}")),
                time: now(),
            })
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let stations = stations();
    let one = [SampleQuery {
        position: Position::new(11.5, 51.5).unwrap_or_else(|e| panic!("{e}")),
        time: now(),
    }];
    let tile = tile();
    let warm = source(&stations);
    rt.block_on(warm.sample(&tile))
        .unwrap_or_else(|e| panic!("{e}"));

    let mut c = Criterion::default().configure_from_args();
    c.bench_function("fusion/analysis of 400 stations and one point", |b| {
        b.iter(|| {
            let fresh = source(&stations);
            black_box(
                rt.block_on(fresh.sample(&one))
                    .unwrap_or_else(|e| panic!("{e}")),
            )
        });
    });
    c.bench_function("fusion/a tile's 289 points from a made analysis", |b| {
        b.iter(|| {
            black_box(
                rt.block_on(warm.sample(&tile))
                    .unwrap_or_else(|e| panic!("{e}")),
            )
        });
    });
    c.final_summary();

    let time = |f: &dyn Fn()| {
        median(
            (0..15)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect(),
        )
    };
    let analysis = time(&|| {
        let fresh = source(&stations);
        black_box(
            rt.block_on(fresh.sample(&one))
                .unwrap_or_else(|e| panic!("{e}")),
        );
    });
    let points = time(&|| {
        black_box(
            rt.block_on(warm.sample(&tile))
                .unwrap_or_else(|e| panic!("{e}")),
        );
    });
    println!("FIGURE: one analysis of {STATIONS} stations and one point: {analysis:.2} ms");
    println!("FIGURE: a tile's 289 points from a made analysis: {points:.2} ms");
}
