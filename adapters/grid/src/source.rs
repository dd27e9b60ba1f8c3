//! The grid as an air-quality and forecast source.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};

use aq_core::civil::CivilDays;
use aq_core::pollen_day::{PollenCounts, daily_means};
use aq_core::{
    AirQualitySource, AirSample, CleanlinessIndex, EaqiBands, Exposure, ForecastSource,
    GrainThresholds, HourlyCi, HourlyConcentrations, ModelRun, Plant, PollenDay, PollenDays,
    PollenOutlook, PollenType, Position, Provenance, SampleQuery, SourceError, SourceInfo,
};

use crate::field::Product;
use crate::quantity::{POLLEN, POLLEN_AND_PLANTS, POLLUTANTS, PointValues, Quantity, Wanted};
use crate::sampling::{Hourly, hours_for};
use crate::store::GridStore;

/// The attribution the Copernicus licence asks of products made from CAMS data.
pub const CAMS_ATTRIBUTION: &str = "Contains modified Copernicus Atmosphere Monitoring Service \
     information; neither the European Commission nor ECMWF is responsible for any use of it.";

/// The most days after today for which the grids give pollen for whole days: the CAMS European
/// forecast, the product that carries pollen, runs once a day from 00 UTC for 96 hours, so day
/// 3 after today is its last whole civil day in Europe, and a rule looking 4 days ahead would
/// never find a day to compare.
pub const POLLEN_FORECAST_DAYS: u32 = 3;

/// Why [`POLLEN_FORECAST_DAYS`] is what it is, for refusals that must say so.
pub const POLLEN_FORECAST_REASON: &str = "the CAMS grids' pollen comes from the European \
     forecast, which runs 96 hours ahead from 00 UTC each day";

/// An [`AirQualitySource`] and [`ForecastSource`] answering from a [`GridStore`]'s chunks: bilinear
/// between the four grid nodes around a point, linear in time between the whole hours around
/// the instant asked, and `None` (not covered) outside every grid or its hours.
///
/// ```
/// use std::sync::Arc;
///
/// use aq_core::{AirQualitySource, Pollutant, Position, SampleQuery};
/// use aq_grid::{Field, GridSource, GridStore, Lattice, Layer, Product, Quantity};
/// use chrono::{TimeZone, Utc};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = Arc::new(GridStore::in_memory());
/// // A 1° square over Berlin with PM2.5 of 10, 20 (north row) and 30, 40 (south row) µg/m³.
/// let lattice = Lattice::new(53.0, -1.0, 2, 13.0, 1.0, 2).unwrap();
/// let run = Utc.with_ymd_and_hms(2026, 6, 10, 0, 0, 0).unwrap();
/// let field = |hour: u32, base: f32| Field {
///     product: Product::Europe,
///     quantity: Quantity::Pollutant(Pollutant::Pm25),
///     run,
///     valid: Utc.with_ymd_and_hms(2026, 6, 10, hour, 0, 0).unwrap(),
///     layer: Layer::new(lattice, vec![base, base + 10.0, base + 20.0, base + 30.0].into())
///         .unwrap(),
/// };
/// store.commit(vec![field(8, 10.0), field(9, 20.0)]).await.unwrap();
/// let source = GridSource::new(store);
///
/// let centre = Position::new(13.5, 52.5).unwrap();
/// let at = |h, m| SampleQuery {
///     position: centre,
///     time: Utc.with_ymd_and_hms(2026, 6, 10, h, m, 0).unwrap(),
/// };
/// let pm25 = |s: Option<aq_core::AirSample>| {
///     s.unwrap().concentrations.unwrap().get(Pollutant::Pm25).unwrap().ug_m3()
/// };
/// let answers = source.sample(&[at(8, 0), at(8, 30), at(9, 30)]).await.unwrap();
/// assert_eq!(pm25(answers[0]), 25.0); // the mean of the four nodes
/// assert_eq!(pm25(answers[1]), 30.0); // halfway to 09:00's 35
/// assert!(answers[2].is_none()); // no 10:00 field to blend towards
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct GridSource {
    store: Arc<GridStore>,
    bands: EaqiBands,
    pollen: GrainThresholds,
}

/// A position's days of pollen, with the runs (product, reference time in seconds) behind
/// their values.
type RunDays = (Vec<PollenDay>, Runs);

impl GridSource {
    /// A source answering from `store` with the default EAQI bands and pollen thresholds.
    #[must_use]
    pub fn new(store: Arc<GridStore>) -> Self {
        Self::with_bands(store, EaqiBands::default())
    }

    /// A source answering from `store` with `bands` for the CI.
    #[must_use]
    pub fn with_bands(store: Arc<GridStore>, bands: EaqiBands) -> Self {
        Self {
            store,
            bands,
            pollen: GrainThresholds::default(),
        }
    }

    /// The source with `thresholds` for the levels of the daily mean pollen counts.
    #[must_use]
    pub fn with_pollen_thresholds(self, thresholds: GrainThresholds) -> Self {
        Self {
            pollen: thresholds,
            ..self
        }
    }

    /// The store answered from.
    #[must_use]
    pub fn store(&self) -> &Arc<GridStore> {
        &self.store
    }

    /// The CAMS grids', or a model's ([`GridStore::from_model`]).
    fn source_info(&self) -> SourceInfo {
        self.store.model_info().unwrap_or_else(info)
    }

    /// Where every answer of a model comes from: made-up values for the demo, else unstated
    /// (a model has no runs to name); `None` for stored grids, whose answers name their runs.
    fn model_provenance(&self) -> Option<Provenance> {
        let model = self.store.model_info()?;
        Some(if model.demo {
            Provenance::Synthetic
        } else {
            Provenance::Unstated
        })
    }

    async fn each<T>(
        &self,
        queries: &[SampleQuery],
        f: impl Fn(PointValues) -> T,
    ) -> Result<Vec<T>, SourceError> {
        let points: Vec<_> = queries
            .iter()
            .map(|q| (q.position.lat(), q.position.lon(), q.time))
            .collect();
        Ok(self
            .store
            .values(&points, POLLUTANTS)
            .await?
            .into_iter()
            .map(f)
            .collect())
    }

    /// Each position's values at `start` and each of the `hours` after it, read once per
    /// whole hour, mapped by `f`.
    async fn series<T>(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
        f: impl Fn(PointValues) -> Option<T>,
    ) -> Result<Vec<Vec<Option<T>>>, SourceError> {
        let hourly = self.hourly(positions, start, hours, POLLUTANTS).await?;
        Ok((0..positions.len())
            .map(|p| hourly.series(p, start, hours).map(&f).collect())
            .collect())
    }

    /// The `wanted` values at `positions` over the whole hours that `start` and the `hours`
    /// after it are blended from.
    async fn hourly(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
        wanted: crate::quantity::Wanted,
    ) -> Result<Hourly, SourceError> {
        let last = start + Duration::hours(i64::from(hours));
        let range = hours_for(start, last);
        let at: Vec<(f64, f64)> = positions.iter().map(|p| (p.lat(), p.lon())).collect();
        self.store.hourly(&at, range, wanted).await
    }
}

/// `start` and each of the `hours` after it.
fn instants(start: DateTime<Utc>, hours: u32) -> impl Iterator<Item = DateTime<Utc>> {
    (0..=hours).map(move |h| start + Duration::hours(i64::from(h)))
}

/// The runs (product, reference time in seconds) behind a series: a few at most, so a list
/// that refuses repeats.
#[derive(Debug, Default)]
struct Runs(Vec<(Product, i64)>);

impl Runs {
    fn add(&mut self, run: (Product, i64)) {
        if !self.0.contains(&run) {
            self.0.push(run);
        }
    }

    /// The provenance of values read from these runs.
    fn provenance(mut self) -> Provenance {
        self.0.sort_unstable();
        Provenance::model(self.0.into_iter().filter_map(|(product, run)| {
            Some(ModelRun {
                model: product.model_name().to_owned(),
                reference_time: DateTime::from_timestamp(run, 0)?,
            })
        }))
    }
}

/// Whether the quantity of index `k` is pollen.
fn is_pollen(k: usize) -> bool {
    Quantity::ALL.get(k).is_some_and(|q| q.is_pollen())
}

fn info() -> SourceInfo {
    SourceInfo {
        attribution: Some(CAMS_ATTRIBUTION.to_owned()),
        ..SourceInfo::real("cams")
    }
}

#[async_trait]
impl AirQualitySource for GridSource {
    fn info(&self) -> SourceInfo {
        self.source_info()
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        self.each(queries, |v| v.sample(&self.bands)).await
    }

    async fn sample_ci(
        &self,
        queries: &[SampleQuery],
    ) -> Result<Vec<Option<CleanlinessIndex>>, SourceError> {
        self.each(queries, |v| v.ci(&self.bands)).await
    }

    async fn sample_exposure(
        &self,
        queries: &[SampleQuery],
    ) -> Result<Vec<Option<Exposure>>, SourceError> {
        self.each(queries, |v| v.sample(&self.bands).map(Exposure::from))
            .await
    }
}

#[async_trait]
impl ForecastSource for GridSource {
    fn info(&self) -> SourceInfo {
        self.source_info()
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let hourly = self.hourly(positions, start, hours, POLLUTANTS).await?;
        let instants: Vec<(i64, u32)> = instants(start, hours)
            .map(|t| (t.timestamp(), t.timestamp_subsec_nanos()))
            .collect();
        let fixed = self.model_provenance();
        Ok((0..positions.len())
            .map(|p| {
                let values: Vec<Option<CleanlinessIndex>> = hourly
                    .series(p, start, hours)
                    .map(|values| values.ci(&self.bands))
                    .collect();
                let series = HourlyCi::covered(start, values)?;
                let provenance = fixed.clone().unwrap_or_else(|| {
                    // The runs behind the hours that have a CI.
                    let answered = instants
                        .iter()
                        .zip(&series.values)
                        .filter_map(|(&t, ci)| ci.is_some().then_some(t));
                    let mut runs = Runs::default();
                    hourly.origins(p, answered, &mut |(product, run, k)| {
                        if !is_pollen(k) {
                            runs.add((product, run));
                        }
                    });
                    runs.provenance()
                });
                Some(series.with_provenance(provenance))
            })
            .collect())
    }

    async fn hourly_concentrations(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
        // Concentrations only in the hours that have a CI, the ones it is derived from.
        Ok(self
            .series(positions, start, hours, |v| {
                v.sample(&self.bands).and_then(|s| s.concentrations)
            })
            .await?
            .into_iter()
            .map(|values| HourlyConcentrations::covered(start, values))
            .collect())
    }

    /// Each civil day's level from the daily mean of the hourly counts of the grids that carry
    /// pollen (the European product), as for every source
    /// ([`aq_core::pollen_day::daily_means`]); a position outside them, or with no count in
    /// any hour of the days, has no outlook.
    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        let civil: Vec<CivilDays> = positions
            .iter()
            .map(|&p| CivilDays::outlook(p, at, days))
            .collect();
        Ok(self
            .pollen_means(positions, &civil, POLLEN, false)
            .await?
            .into_iter()
            .map(|d| PollenOutlook::from_days(&d?.0))
            .collect())
    }

    /// Each civil day's mean count and level, as [`daily_pollen`](Self::daily_pollen), naming
    /// the runs the counts behind the days' values were read from.
    async fn pollen_days(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenDays>>, SourceError> {
        let civil: Vec<CivilDays> = positions
            .iter()
            .map(|&p| CivilDays::from_today(p, at, days))
            .collect();
        let fixed = self.model_provenance();
        Ok(self
            .pollen_means(positions, &civil, POLLEN_AND_PLANTS, fixed.is_none())
            .await?
            .into_iter()
            .map(|d| {
                let (days, runs) = d?;
                let provenance = fixed.clone().unwrap_or_else(|| runs.provenance());
                Some(PollenDays::new(days).with_provenance(provenance))
            })
            .collect())
    }
}

impl GridSource {
    /// Each position's `civil` days from the `wanted` pollen counts (the types, with or without
    /// the plants) at each of their hours, read in one batch per span of hours the days cover,
    /// with the runs behind the days' values when `trace` is set (none otherwise); `None` for a
    /// position with no count at all.
    async fn pollen_means(
        &self,
        positions: &[Position],
        civil: &[CivilDays],
        wanted: Wanted,
        trace: bool,
    ) -> Result<Vec<Option<RunDays>>, SourceError> {
        let time = |t: i64| DateTime::from_timestamp(t, 0).unwrap_or(DateTime::<Utc>::MIN_UTC);
        // The positions whose days span the same hours (those of one zone) are read together
        // over those hours alone: one span for the whole batch would read every position over
        // the hours of the zones furthest east and west of it too, a day and more for a batch
        // round the world.
        let mut spans: BTreeMap<(i64, i64), Vec<usize>> = BTreeMap::new();
        for (p, c) in civil.iter().enumerate() {
            let first = (0..c.len()).flat_map(|k| c.hours(k)).next();
            let last = (0..c.len()).rev().flat_map(|k| c.hours(k).last()).next();
            if let (Some(first), Some(last)) = (first, last) {
                spans.entry((first, last)).or_default().push(p);
            }
        }
        let mut out: Vec<Option<RunDays>> = std::iter::repeat_with(|| None)
            .take(positions.len())
            .collect();
        for ((first, last), members) in spans {
            let at: Vec<(f64, f64)> = members
                .iter()
                .map(|&p| (positions[p].lat(), positions[p].lon()))
                .collect();
            let span = hours_for(time(first), time(last));
            let hourly = self.store.hourly(&at, span, wanted).await?;
            for (i, &p) in members.iter().enumerate() {
                out[p] = self.days_from(&hourly, i, &civil[p], trace);
            }
        }
        Ok(out)
    }

    /// The days of position `p` of `hourly` over its `civil` days, with the runs behind them
    /// when `trace` is set; `None` without a count at all.
    fn days_from(
        &self,
        hourly: &Hourly,
        p: usize,
        civil: &CivilDays,
        trace: bool,
    ) -> Option<RunDays> {
        // Plants only when the read asked for them (the lookup does, alerts do not); the grass
        // plant's layer is the grass type's, held either way, so it is left out with the rest.
        let series = |q: Quantity| hourly.hours_of(p, q.index());
        let types = PollenType::ALL.map(|kind| series(Quantity::Pollen(kind)));
        let with_plants = hourly.holds(Quantity::Plant(Plant::Birch).index());
        let plants = Plant::ALL.map(|plant| series(Quantity::Plant(plant)).filter(|_| with_plants));
        let at =
            |s: Option<&[f64]>, h: usize| s.and_then(|s| s.get(h)).copied().filter(|c| !c.is_nan());
        let hour_counts = |t: i64| match hourly.whole_hour_index(t) {
            // The civil days' hours are whole hours: each value is read as held.
            Some(h) => PollenCounts {
                types: types.map(|s| at(s, h)),
                plants: plants.map(|s| at(s, h)),
            },
            None => {
                let counts = hourly.at_seconds(p, t).pollen_counts();
                if with_plants {
                    counts
                } else {
                    counts.types.into()
                }
            }
        };
        if !trace {
            let means = daily_means(civil, &self.pollen, |t| (hour_counts(t), ()))?;
            return Some((means.days, Runs::default()));
        }
        let means = daily_means(civil, &self.pollen, |t| (hour_counts(t), t))?;
        let mut runs = Runs::default();
        let behind = means.behind.iter().map(|&t| (t, 0));
        hourly.origins(p, behind, &mut |(product, run, k)| {
            if is_pollen(k) {
                runs.add((product, run));
            }
        });
        Some((means.days, runs))
    }

    /// Grains/m³ of `kind` at `position` and `time`, blended like every other quantity; `None`
    /// outside the grids that carry pollen.
    ///
    /// # Errors
    /// [`SourceError::Unavailable`] when the object store fails.
    pub async fn pollen_at(
        &self,
        position: Position,
        time: DateTime<Utc>,
        kind: PollenType,
    ) -> Result<Option<f64>, SourceError> {
        Ok(self
            .pollen_values(position, time, POLLEN)
            .await?
            .and_then(|v| v.pollen(kind)))
    }

    /// Grains/m³ of `plant` at `position` and `time`, blended like every other quantity;
    /// `None` outside the grids that carry the plant.
    ///
    /// # Errors
    /// [`SourceError::Unavailable`] when the object store fails.
    pub async fn plant_at(
        &self,
        position: Position,
        time: DateTime<Utc>,
        plant: Plant,
    ) -> Result<Option<f64>, SourceError> {
        Ok(self
            .pollen_values(position, time, POLLEN_AND_PLANTS)
            .await?
            .and_then(|v| v.plant(plant)))
    }

    async fn pollen_values(
        &self,
        position: Position,
        time: DateTime<Utc>,
        wanted: Wanted,
    ) -> Result<Option<PointValues>, SourceError> {
        let point = [(position.lat(), position.lon(), time)];
        Ok(self.store.values(&point, wanted).await?.first().copied())
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use aq_core::Pollutant;

    use super::*;
    use crate::{Field, Lattice, Layer};

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 6, 10, h, 0, 0).unwrap()
    }

    fn field(product: Product, quantity: Quantity, run: u32, valid: u32) -> Field {
        let lattice = match product {
            Product::Europe => Lattice::new(53.0, -1.0, 2, 13.0, 1.0, 2).unwrap(),
            Product::Global => Lattice::new(90.0, -10.0, 19, 0.0, 10.0, 36).unwrap(),
        };
        let values = vec![12.0; lattice.len()].into();
        Field {
            product,
            quantity,
            run: at(run),
            valid: at(valid),
            layer: Layer::new(lattice, values).unwrap(),
        }
    }

    #[tokio::test]
    async fn a_series_names_the_runs_its_pollutants_were_read_from() {
        let store = Arc::new(GridStore::in_memory());
        let pm25 = Quantity::Pollutant(Pollutant::Pm25);
        store
            .commit(vec![
                // 08:00 from the European run of 06:00, 09:00 only from the global run of 00:00.
                field(Product::Europe, pm25, 6, 8),
                field(Product::Global, pm25, 0, 8),
                field(Product::Global, pm25, 0, 9),
                // Pollen of a later run: held, but no CI reads it.
                field(Product::Europe, Quantity::Pollen(PollenType::Tree), 7, 8),
            ])
            .await
            .unwrap();
        let source = GridSource::new(store);
        let berlin = Position::new(13.4, 52.5).unwrap();
        let run = |model: &str, h| ModelRun {
            model: model.to_owned(),
            reference_time: at(h),
        };

        let series = source.hourly_ci(&[berlin], at(8), 1).await.unwrap();
        assert_eq!(
            series[0].as_ref().unwrap().provenance,
            Provenance::model([run("cams-global", 0), run("cams-europe", 6)])
        );
        // An hour that is not answered names no run: 10:00 is held nowhere.
        let series = source.hourly_ci(&[berlin], at(9), 1).await.unwrap();
        assert_eq!(
            series[0].as_ref().unwrap().provenance,
            Provenance::model([run("cams-global", 0)])
        );
    }
}
