//! In-memory sources for tests and examples: a field given as a function, and a forecast table.

use std::collections::HashMap;
use std::sync::RwLock;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::index::{CleanlinessIndex, EaqiBands};
use crate::pollutant::Concentrations;
use crate::position::Position;
use crate::provenance::Provenance;
use crate::source::{
    AirQualitySource, AirSample, ForecastSource, HourlyCi, HourlyConcentrations, PollenOutlook,
    SampleQuery, SourceError, SourceInfo,
};

/// An [`AirQualitySource`] whose field is a function of position and time.
///
/// ```
/// use aq_core::memory::FnSource;
/// use aq_core::{AirQualitySource, Position, SampleQuery};
///
/// # tokio_test_block_on(async {
/// // Cleaner towards the north: CI = 50 + latitude / 2.
/// let source = FnSource::new("gradient", |p: Position, _| {
///     aq_core::CleanlinessIndex::new(50.0 + p.lat() / 2.0).ok()
/// });
/// let q = SampleQuery { position: Position::new(0.0, 40.0).unwrap(), time: chrono::Utc::now() };
/// let answers = source.sample(&[q]).await.unwrap();
/// assert_eq!(answers[0].unwrap().ci.value(), 70.0);
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub struct FnSource<F> {
    name: String,
    field: F,
}

impl<F> FnSource<F>
where
    F: Fn(Position, DateTime<Utc>) -> Option<CleanlinessIndex> + Send + Sync,
{
    /// A source named `name` answering every query with `field(position, time)`.
    pub fn new(name: impl Into<String>, field: F) -> Self {
        Self {
            name: name.into(),
            field,
        }
    }
}

/// A source with the same CI everywhere and always.
///
/// ```
/// use aq_core::{memory, AirQualitySource, CleanlinessIndex};
///
/// let source = memory::constant(CleanlinessIndex::new(42.0).unwrap());
/// assert_eq!(source.info().name, "constant");
/// ```
#[must_use]
pub fn constant(
    ci: CleanlinessIndex,
) -> FnSource<impl Fn(Position, DateTime<Utc>) -> Option<CleanlinessIndex> + Send + Sync> {
    FnSource::new("constant", move |_, _| Some(ci))
}

impl<F> std::fmt::Debug for FnSource<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnSource")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl<F> AirQualitySource for FnSource<F>
where
    F: Fn(Position, DateTime<Utc>) -> Option<CleanlinessIndex> + Send + Sync,
{
    fn info(&self) -> SourceInfo {
        SourceInfo::demo(self.name.clone())
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        Ok(queries
            .iter()
            .map(|q| (self.field)(q.position, q.time).map(AirSample::from_ci))
            .collect())
    }
}

/// The same concentrations everywhere and always: a flat background, for tests and examples of
/// what is added to one (the near-road increment, say). Its index is the default
/// [`EaqiBands`]' of the concentrations; it has no pollen.
///
/// ```
/// use aq_core::memory::UniformAir;
/// use aq_core::{AirQualitySource, Concentration, Concentrations, Pollutant, Position, SampleQuery};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let air = Concentrations::default().with(Pollutant::No2, Concentration::new(15.0).unwrap());
/// let source = UniformAir::new(air);
/// let q = SampleQuery { position: Position::new(24.94, 60.17).unwrap(), time: chrono::Utc::now() };
/// let sample = source.sample(&[q]).await.unwrap()[0].unwrap();
/// assert_eq!(sample.concentrations, Some(air));
/// assert_eq!(sample.ci.rounded(), 73);
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct UniformAir {
    air: Concentrations,
    ci: Option<CleanlinessIndex>,
}

impl UniformAir {
    /// `air` everywhere, always.
    #[must_use]
    pub fn new(air: Concentrations) -> Self {
        Self {
            air,
            ci: EaqiBands::default().ci(&air),
        }
    }

    fn sample(&self) -> Option<AirSample> {
        self.ci.map(|ci| AirSample {
            ci,
            concentrations: Some(self.air),
        })
    }
}

#[async_trait]
impl AirQualitySource for UniformAir {
    fn info(&self) -> SourceInfo {
        SourceInfo::demo("uniform")
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        Ok(vec![UniformAir::sample(self); queries.len()])
    }
}

#[async_trait]
impl ForecastSource for UniformAir {
    fn info(&self) -> SourceInfo {
        SourceInfo::demo("uniform")
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let values = vec![self.ci; hours as usize + 1];
        Ok(vec![HourlyCi::covered(start, values); positions.len()])
    }

    async fn hourly_concentrations(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
        let values = vec![Some(self.air); hours as usize + 1];
        Ok(vec![
            HourlyConcentrations::covered(start, values);
            positions.len()
        ])
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

/// Hourly CI values and pollen outlooks stored per position, for tests of alert evaluation.
///
/// Positions are matched exactly (bit for bit); a position with nothing stored is not covered.
/// Stored hourly series are returned from the query's start, cut to the requested horizon;
/// with [`MemoryForecast::anchored`], they are read by time instead: `values[0]` is the hour of
/// the anchor, and hours outside the stored values are `None`.
///
/// ```
/// use aq_core::memory::MemoryForecast;
/// use aq_core::{CleanlinessIndex, ForecastSource, Position};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let forecast = MemoryForecast::default();
/// let here = Position::new(2.35, 48.85).unwrap();
/// let ci = |v| Some(CleanlinessIndex::new(v).unwrap());
/// forecast.set_hourly(here, vec![ci(80.0), ci(75.0), ci(60.0)]);
/// let series = forecast.hourly_ci(&[here], chrono::Utc::now(), 1).await.unwrap();
/// assert_eq!(series[0].as_ref().unwrap().values.len(), 2);
/// # });
/// ```
#[derive(Debug, Default)]
pub struct MemoryForecast {
    hourly: RwLock<HashMap<(u64, u64), HourlySeries>>,
    concentrations: RwLock<HashMap<(u64, u64), ConcentrationSeries>>,
    pollen: RwLock<HashMap<(u64, u64), PollenOutlook>>,
    anchor: Option<DateTime<Utc>>,
}

type HourlySeries = Vec<Option<CleanlinessIndex>>;
type ConcentrationSeries = Vec<Option<Concentrations>>;

fn key(p: Position) -> (u64, u64) {
    (p.lon().to_bits(), p.lat().to_bits())
}

impl MemoryForecast {
    /// A forecast whose stored series begin at `anchor`, so that a query from another start
    /// (such as the hours before now, which a US AQI averages) reads the hours it asks for.
    #[must_use]
    pub fn anchored(anchor: DateTime<Utc>) -> Self {
        Self {
            anchor: Some(anchor),
            ..Self::default()
        }
    }

    /// The stored values of a series for the hours from `start`, `hours` after it included.
    fn slice<T: Copy>(
        &self,
        values: &[Option<T>],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Vec<Option<T>> {
        let len = usize::try_from(hours)
            .unwrap_or(usize::MAX)
            .saturating_add(1);
        match self.anchor {
            None => values.iter().copied().take(len).collect(),
            Some(anchor) => {
                let first = (start - anchor).num_hours();
                (0..len)
                    .map(|k| {
                        let h = first + i64::try_from(k).unwrap_or(i64::MAX);
                        usize::try_from(h)
                            .ok()
                            .and_then(|h| values.get(h).copied().flatten())
                    })
                    .collect()
            }
        }
    }

    /// Stores the hourly CI series of `position`, `values[0]` being the value now.
    pub fn set_hourly(&self, position: Position, values: Vec<Option<CleanlinessIndex>>) {
        self.hourly
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key(position), values);
    }

    /// Stores the hourly concentrations of `position`, `values[0]` being those now.
    pub fn set_hourly_concentrations(
        &self,
        position: Position,
        values: Vec<Option<Concentrations>>,
    ) {
        self.concentrations
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key(position), values);
    }

    /// Stores the pollen outlook of `position`.
    pub fn set_pollen(&self, position: Position, outlook: PollenOutlook) {
        self.pollen
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key(position), outlook);
    }
}

/// Hourly values by position, as the forecast keeps them.
type HourlyTable<T> = std::sync::RwLock<HashMap<(u64, u64), Vec<Option<T>>>>;

/// The values set for each position in `table` over the hours asked, made a series by
/// `series`; `None` for a position with none set.
fn window<T: Copy, S>(
    forecast: &MemoryForecast,
    table: &HourlyTable<T>,
    positions: &[Position],
    start: DateTime<Utc>,
    hours: u32,
    series: impl Fn(Vec<Option<T>>) -> S,
) -> Vec<Option<S>> {
    let table = table
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    positions
        .iter()
        .map(|&p| {
            table
                .get(&key(p))
                .map(|values| series(forecast.slice(values, start, hours)))
        })
        .collect()
}

#[async_trait]
impl ForecastSource for MemoryForecast {
    fn info(&self) -> SourceInfo {
        SourceInfo::demo("memory")
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        Ok(window(
            self,
            &self.hourly,
            positions,
            start,
            hours,
            |values| HourlyCi {
                start,
                values,
                provenance: Provenance::Unstated,
            },
        ))
    }

    async fn hourly_concentrations(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
        Ok(window(
            self,
            &self.concentrations,
            positions,
            start,
            hours,
            |values| HourlyConcentrations { start, values },
        ))
    }

    async fn daily_pollen(
        &self,
        positions: &[Position],
        _at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        let table = self
            .pollen
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let len = usize::try_from(days)
            .unwrap_or(usize::MAX)
            .saturating_add(1);
        Ok(positions
            .iter()
            .map(|&p| {
                table.get(&key(p)).map(|o| PollenOutlook {
                    today: o.today,
                    yesterday: o.yesterday,
                    days: o.days.iter().copied().take(len).collect(),
                })
            })
            .collect())
    }
}
