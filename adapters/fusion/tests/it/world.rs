//! A synthetic world: the true PM2.5 and NO₂ fields, a model of them with a bias, a scale
//! error and a blur, and stations reading the truth with noise.

use std::sync::{Arc, Mutex};

use aq_core::{
    AirQualitySource, AirSample, Concentration, Concentrations, EaqiBands, ForecastSource,
    HourlyCi, HourlyConcentrations, PollenOutlook, Pollutant, Position, Reading, SampleQuery,
    SourceError, SourceInfo, StationId, StationSeries,
};
use aq_fusion::{ExclusionSink, FusedSource, FusionConfig, MemoryStations, QcReason};
use async_trait::async_trait;
use chrono::{DateTime, Duration, TimeZone, Utc};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use runtime_core::FixedClock;

/// The hour the tests stand at.
pub(crate) fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap()
}

/// A plume: a Gaussian bump of PM2.5 and NO₂.
#[derive(Debug, Clone, Copy)]
struct Plume {
    at: Position,
    width_m: f64,
    pm25: f64,
    no2: f64,
}

/// The domain: 10° to 13° E, 50° to 52° N (about 210 × 220 km).
pub(crate) const WEST: f64 = 10.0;
pub(crate) const EAST: f64 = 13.0;
pub(crate) const SOUTH: f64 = 50.0;
pub(crate) const NORTH: f64 = 52.0;

/// The true field: a smooth background and twelve plumes 12 to 35 km wide (a city's plume).
#[derive(Debug, Clone)]
pub(crate) struct Truth {
    plumes: Vec<Plume>,
}

impl Truth {
    pub(crate) fn new(seed: u64) -> Self {
        let mut rng = Pcg64::seed_from_u64(seed);
        let plumes = (0..12)
            .map(|_| Plume {
                at: Position::new(
                    rng.random_range(WEST + 0.2..EAST - 0.2),
                    rng.random_range(SOUTH + 0.2..NORTH - 0.2),
                )
                .unwrap(),
                width_m: rng.random_range(12_000.0..35_000.0),
                pm25: rng.random_range(10.0..40.0),
                no2: rng.random_range(15.0..60.0),
            })
            .collect();
        Self { plumes }
    }

    /// µg/m³ of `p` at `x`, hour `h` after [`now`]: the plumes breathe slowly.
    pub(crate) fn at(&self, p: Pollutant, x: Position, h: f64, blur: f64) -> f64 {
        let background = match p {
            Pollutant::Pm25 => 8.0 + 3.0 * (x.lon() * 1.3).sin() * (x.lat() * 2.1).cos(),
            _ => 12.0 + 4.0 * (x.lat() * 1.7).sin(),
        };
        let breathing = 1.0 + 0.1 * (h / 6.0).sin();
        background
            + self
                .plumes
                .iter()
                .map(|plume| {
                    let width = plume.width_m * blur;
                    // A blurred plume spreads the same mass: lower and wider.
                    let peak = match p {
                        Pollutant::Pm25 => plume.pm25,
                        _ => plume.no2,
                    } / (blur * blur);
                    let d = plume.at.distance_m(x);
                    breathing * peak * (-0.5 * (d / width).powi(2)).exp()
                })
                .sum::<f64>()
    }
}

/// The model: the truth blurred to one and a half times its plumes' widths (a coarse grid),
/// scaled by `scale` and shifted by `bias`, for PM2.5 and NO₂.
#[derive(Debug, Clone)]
pub(crate) struct Model {
    pub(crate) truth: Truth,
    pub(crate) scale: f64,
    pub(crate) bias: f64,
    /// Where the model has values: the domain and some way around it.
    pub(crate) covers: fn(Position) -> bool,
}

pub(crate) fn around_domain(p: Position) -> bool {
    (WEST - 8.0..=EAST + 8.0).contains(&p.lon()) && (SOUTH - 5.0..=NORTH + 5.0).contains(&p.lat())
}

impl Model {
    pub(crate) fn new(truth: Truth) -> Self {
        Self {
            truth,
            scale: 0.6,
            bias: 5.0,
            covers: around_domain,
        }
    }

    pub(crate) fn value(&self, p: Pollutant, x: Position, t: DateTime<Utc>) -> f64 {
        let h = (t - now()).num_seconds() as f64 / 3_600.0;
        self.scale * self.truth.at(p, x, h, 1.5) + self.bias
    }

    fn concentrations(&self, x: Position, t: DateTime<Utc>) -> Option<Concentrations> {
        if !(self.covers)(x) {
            return None;
        }
        let c = |p| Concentration::new(self.value(p, x, t)).unwrap();
        Some(
            Concentrations::default()
                .with(Pollutant::Pm25, c(Pollutant::Pm25))
                .with(Pollutant::No2, c(Pollutant::No2)),
        )
    }

    fn series(&self, x: Position, start: DateTime<Utc>, hours: u32) -> Vec<Option<Concentrations>> {
        (0..=hours)
            .map(|h| self.concentrations(x, start + Duration::hours(i64::from(h))))
            .collect()
    }
}

#[async_trait]
impl AirQualitySource for Model {
    fn info(&self) -> SourceInfo {
        SourceInfo::real("model")
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        Ok(queries
            .iter()
            .map(|q| {
                let c = self.concentrations(q.position, q.time)?;
                Some(AirSample {
                    ci: EaqiBands::default().ci(&c)?,
                    concentrations: Some(c),
                })
            })
            .collect())
    }
}

#[async_trait]
impl ForecastSource for Model {
    fn info(&self) -> SourceInfo {
        SourceInfo::real("model")
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        Ok(positions
            .iter()
            .map(|&x| {
                let values = self
                    .series(x, start, hours)
                    .iter()
                    .map(|c| c.and_then(|c| EaqiBands::default().ci(&c)))
                    .collect();
                HourlyCi::covered(start, values)
            })
            .collect())
    }

    async fn hourly_concentrations(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
        Ok(positions
            .iter()
            .map(|&x| HourlyConcentrations::covered(start, self.series(x, start, hours)))
            .collect())
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

/// A normal draw (Box–Muller).
pub(crate) fn normal(rng: &mut Pcg64) -> f64 {
    let u: f64 = rng.random_range(1e-12..1.0);
    let v: f64 = rng.random_range(0.0..1.0);
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// `n` stations scattered over the domain, each reading PM2.5 and NO₂ hourly for the twelve
/// hours up to [`now`]: the truth plus noise of 1.5 µg/m³ and 5 % of the value.
pub(crate) fn stations(truth: &Truth, n: usize, seed: u64) -> Vec<StationSeries> {
    stations_within(truth, n, seed, WEST..EAST)
}

/// [`stations`] between the longitudes `lon`.
pub(crate) fn stations_within(
    truth: &Truth,
    n: usize,
    seed: u64,
    lon: std::ops::Range<f64>,
) -> Vec<StationSeries> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut out = Vec::new();
    for i in 0..n {
        let x = Position::new(
            rng.random_range(lon.clone()),
            rng.random_range(SOUTH..NORTH),
        )
        .unwrap();
        for p in [Pollutant::Pm25, Pollutant::No2] {
            let readings = (-12..=0)
                .map(|h| {
                    let v = truth.at(p, x, f64::from(h), 1.0);
                    Reading {
                        time: now() + Duration::hours(i64::from(h)),
                        value: v + normal(&mut rng) * (1.5 + 0.05 * v),
                    }
                })
                .collect();
            out.push(StationSeries {
                station: StationId(format!("S{i:03}")),
                position: x,
                pollutant: p,
                readings,
            });
        }
    }
    out
}

/// Exclusions reported, by reason.
#[derive(Debug, Default)]
pub(crate) struct Counted(pub(crate) Mutex<Vec<(Pollutant, QcReason, u64)>>);

impl ExclusionSink for Counted {
    fn excluded(&self, pollutant: Pollutant, reason: QcReason, count: u64) {
        self.0.lock().unwrap().push((pollutant, reason, count));
    }
}

impl Counted {
    pub(crate) fn total(&self, reason: QcReason) -> u64 {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.1 == reason)
            .map(|e| e.2)
            .sum()
    }
}

/// The model corrected by `series`, at [`now`].
pub(crate) fn fused(
    model: &Model,
    series: Vec<StationSeries>,
    counted: Arc<Counted>,
) -> FusedSource {
    fused_with(model, series, FusionConfig::default()).with_exclusion_sink(counted)
}

/// [`fused`] with `config`.
pub(crate) fn fused_with(
    model: &Model,
    series: Vec<StationSeries>,
    config: FusionConfig,
) -> FusedSource {
    let model = Arc::new(model.clone());
    FusedSource::new(
        model.clone(),
        model,
        Arc::new(MemoryStations::new("stations", series)),
        Arc::new(FixedClock::new(now())),
        config,
    )
    .unwrap()
}

/// `p` at each of `places` as `source` answers at `t`.
pub(crate) async fn answered(
    source: &dyn AirQualitySource,
    p: Pollutant,
    places: &[Position],
    t: DateTime<Utc>,
) -> Vec<f64> {
    let queries: Vec<SampleQuery> = places
        .iter()
        .map(|&position| SampleQuery { position, time: t })
        .collect();
    source
        .sample(&queries)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.unwrap().concentrations.unwrap().get(p).unwrap().ug_m3())
        .collect()
}

/// Places scattered over the domain, none of them a station's.
pub(crate) fn held_out(n: usize, seed: u64) -> Vec<Position> {
    let mut rng = Pcg64::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            Position::new(
                rng.random_range(WEST + 0.1..EAST - 0.1),
                rng.random_range(SOUTH + 0.1..NORTH - 0.1),
            )
            .unwrap()
        })
        .collect()
}

pub(crate) fn rmse(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    (a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>() / n).sqrt()
}
