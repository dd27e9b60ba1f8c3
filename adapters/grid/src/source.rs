//! The grid as an air-quality and forecast source.

use std::collections::BTreeSet;
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};

use aq_core::{
    AirQualitySource, AirSample, CleanlinessIndex, EaqiBands, Exposure, ForecastSource, HourlyCi,
    HourlyConcentrations, ModelRun, PollenOutlook, PollenType, Pollutant, Position, Provenance,
    SampleQuery, SourceError, SourceInfo,
};

use crate::field::Product;
use crate::quantity::PointValues;
use crate::store::GridStore;

/// The attribution the Copernicus licence asks of products made from CAMS data.
pub const CAMS_ATTRIBUTION: &str = "Contains modified Copernicus Atmosphere Monitoring Service \
     information; neither the European Commission nor ECMWF is responsible for any use of it.";

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
}

impl GridSource {
    /// A source answering from `store` with the default EAQI bands.
    #[must_use]
    pub fn new(store: Arc<GridStore>) -> Self {
        Self::with_bands(store, EaqiBands::default())
    }

    /// A source answering from `store` with `bands` for the CI.
    #[must_use]
    pub fn with_bands(store: Arc<GridStore>, bands: EaqiBands) -> Self {
        Self { store, bands }
    }

    /// The store answered from.
    #[must_use]
    pub fn store(&self) -> &Arc<GridStore> {
        &self.store
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
            .values(&points)
            .await?
            .into_iter()
            .map(f)
            .collect())
    }

    async fn series<T>(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
        f: impl Fn(PointValues) -> Option<T>,
    ) -> Result<Vec<Vec<Option<T>>>, SourceError> {
        let per = hours as usize + 1;
        let points = series_points(positions, start, hours);
        let values = self.store.values(&points).await?;
        Ok(values
            .chunks(per)
            .map(|one| one.iter().map(|&v| f(v)).collect())
            .collect())
    }
}

/// The points of a series: each position at `start` and each of the `hours` after it,
/// position by position.
fn series_points(
    positions: &[Position],
    start: DateTime<Utc>,
    hours: u32,
) -> Vec<(f64, f64, DateTime<Utc>)> {
    positions
        .iter()
        .flat_map(|p| {
            (0..=hours).map(move |h| (p.lat(), p.lon(), start + Duration::hours(i64::from(h))))
        })
        .collect()
}

/// The provenance of values read from `runs` (product, reference time in seconds).
fn model_runs(runs: &BTreeSet<(Product, i64)>) -> Provenance {
    Provenance::model(runs.iter().filter_map(|&(product, run)| {
        Some(ModelRun {
            model: product.model_name().to_owned(),
            reference_time: DateTime::from_timestamp(run, 0)?,
        })
    }))
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
        info()
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
        info()
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let per = hours as usize + 1;
        let points = series_points(positions, start, hours);
        let traced = self.store.values_traced(&points).await?;
        Ok(traced
            .chunks(per)
            .map(|one| {
                let mut runs = BTreeSet::new();
                let values = one
                    .iter()
                    .map(|(v, origins)| {
                        let ci = v.ci(&self.bands);
                        if ci.is_some() {
                            // Pollen is held beside the pollutants but no CI reads it.
                            runs.extend(
                                origins
                                    .iter()
                                    .filter(|&&(_, _, k)| k < Pollutant::ALL.len())
                                    .map(|&(product, run, _)| (product, run)),
                            );
                        }
                        ci
                    })
                    .collect();
                HourlyCi::covered(start, values).map(|s| s.with_provenance(model_runs(&runs)))
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

    /// Not answered yet: the daily level of a civil day needs the point's time zone and the
    /// daily-mean rule that the station and Open-Meteo sources share inside `aq-sources`; until
    /// that rule lives where this crate can use it, every position has no outlook. The hourly
    /// grain counts are held ([`GridSource::pollen_at`]).
    async fn daily_pollen(
        &self,
        positions: &[Position],
        _at: DateTime<Utc>,
        _days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        Ok(vec![None; positions.len()])
    }
}

impl GridSource {
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
        let point = [(position.lat(), position.lon(), time)];
        Ok(self
            .store
            .values(&point)
            .await?
            .first()
            .and_then(|v| v.pollen(kind)))
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::{Field, Lattice, Layer, Quantity};

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
