//! Any source at street level: its background with the near-road increment added.
//!
//! [`StreetLevel`] wraps an [`AirQualitySource`] or a [`ForecastSource`] and a [`RoadMap`]: each
//! answer's concentrations get the [`NearRoadModel`]'s increment for the roads near the place
//! asked, and its cleanliness index is derived again from them. An answer that carries only an
//! index (a source without concentrations) is left as it is, since an increment is a
//! concentration. The wrapped source's name gains `+near-road` and the map's attribution, so
//! every answer that used the increment says so.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::fused::HourlyFusion;
use crate::index::{CleanlinessIndex, EaqiBands};
use crate::near_road::{NearRoadModel, NearbyRoads, RoadMap};
use crate::pollen_day::PollenDays;
use crate::pollutant::Concentrations;
use crate::position::Position;
use crate::source::{
    AirQualitySource, AirSample, ForecastSource, HourlyCi, HourlyConcentrations, PollenOutlook,
    SampleQuery, SourceError, SourceInfo, SourceReach,
};

/// The word a street-level source's name gains.
pub const NEAR_ROAD_LABEL: &str = "near-road";

/// A source with the near-road increment added to its background.
///
/// ```
/// use std::sync::Arc;
/// use aq_core::memory::UniformAir;
/// use aq_core::street_level::StreetLevel;
/// use aq_core::{AirQualitySource, Concentration, Concentrations, NearRoadModel, NearbyRoads,
///     Pollutant, Position, RoadClass, RoadMap, RoadMapInfo, SampleQuery};
///
/// /// A primary road along the equator.
/// struct Equator;
/// impl RoadMap for Equator {
///     fn info(&self) -> RoadMapInfo {
///         RoadMapInfo { name: "equator".into(), attribution: None }
///     }
///     fn nearby(&self, p: Position, within_m: f64) -> NearbyRoads {
///         let d = p.lat().abs() * aq_core::position::M_PER_DEGREE;
///         if d <= within_m { NearbyRoads::default().with(RoadClass::Primary, d) } else { NearbyRoads::default() }
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// // A flat background: NO₂ at 15 µg/m³, PM2.5 at 5 (a CI of 73 everywhere, NO₂'s).
/// let background = Concentrations::default()
///     .with(Pollutant::No2, Concentration::new(15.0).unwrap())
///     .with(Pollutant::Pm25, Concentration::new(5.0).unwrap());
/// let source: Arc<dyn AirQualitySource> = Arc::new(UniformAir::new(background));
/// let street = StreetLevel::new(source, Arc::new(Equator), NearRoadModel::default());
/// let at = |lat| SampleQuery { position: Position::new(10.0, lat).unwrap(), time: chrono::Utc::now() };
/// let answers = street.sample(&[at(0.0), at(0.01)]).await.unwrap();
/// let kerb = answers[0].unwrap();
/// let away = answers[1].unwrap();
/// // On the road NO₂ is 35 µg/m³; 1.1 km away it is the background again.
/// assert_eq!(kerb.concentrations.unwrap().get(Pollutant::No2).unwrap().ug_m3(), 35.0);
/// assert_eq!(away.concentrations.unwrap().get(Pollutant::No2).unwrap().ug_m3(), 15.0);
/// assert!(kerb.ci < away.ci);
/// assert_eq!(street.info().name, "uniform+near-road");
/// # });
/// ```
pub struct StreetLevel<S: ?Sized> {
    background: Arc<S>,
    roads: Arc<dyn RoadMap>,
    model: NearRoadModel,
    bands: EaqiBands,
}

impl<S: ?Sized> std::fmt::Debug for StreetLevel<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreetLevel")
            .field("roads", &self.roads.info().name)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl<S: ?Sized> StreetLevel<S> {
    /// `background` at street level, with the roads of `roads` and the increments of `model`,
    /// indexes derived with the default [`EaqiBands`].
    pub fn new(background: Arc<S>, roads: Arc<dyn RoadMap>, model: NearRoadModel) -> Self {
        Self {
            background,
            roads,
            model,
            bands: EaqiBands::default(),
        }
    }

    /// The source without the increment.
    #[must_use]
    pub fn background(&self) -> &Arc<S> {
        &self.background
    }

    /// The near-road model in use.
    #[must_use]
    pub fn model(&self) -> &NearRoadModel {
        &self.model
    }

    fn roads_at(&self, position: Position) -> NearbyRoads {
        self.roads.nearby(position, self.model.reach_m)
    }

    /// The background's information with the increment named and the map's attribution added.
    fn label(&self, mut info: SourceInfo) -> SourceInfo {
        let map = self.roads.info();
        info.name = format!("{}+{NEAR_ROAD_LABEL}", info.name);
        info.attribution = match (info.attribution.take(), map.attribution) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        };
        info
    }

    /// A sample at street level: the concentrations raised, and the index lowered by as much
    /// as the raise lowers it.
    fn raise(&self, sample: AirSample, roads: &NearbyRoads) -> AirSample {
        let Some(background) = sample.concentrations else {
            return sample;
        };
        if roads.is_empty() {
            return sample;
        }
        let street = self.model.apply(&background, roads);
        AirSample {
            ci: self.index(sample.ci, &background, &street),
            concentrations: Some(street),
        }
    }

    /// The background's index less the drop the increment makes on the EAQI scale. The drop,
    /// not the street's index itself: a source may derive its index on bands of its own (the
    /// fused source's are configurable), and the street's must stay on the same scale, or
    /// crossing the model's reach would jump between two scales. Never above the background's,
    /// since the increment only adds.
    fn index(
        &self,
        index: CleanlinessIndex,
        background: &Concentrations,
        street: &Concentrations,
    ) -> CleanlinessIndex {
        let (Some(before), Some(after)) = (self.bands.ci(background), self.bands.ci(street)) else {
            return index;
        };
        let drop = (before.value() - after.value()).max(0.0);
        CleanlinessIndex::new((index.value() - drop).max(0.0)).unwrap_or(index)
    }

    /// Whether any of `positions` has a road within the model's reach: where none has, every
    /// answer is the background's as it is.
    fn any_roads(&self, positions: impl Iterator<Item = Position>) -> bool {
        positions.into_iter().any(|p| !self.roads_at(p).is_empty())
    }
}

#[async_trait]
impl<S: AirQualitySource + ?Sized> AirQualitySource for StreetLevel<S> {
    fn info(&self) -> SourceInfo {
        self.label(self.background.info())
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        let roads: Vec<NearbyRoads> = queries.iter().map(|q| self.roads_at(q.position)).collect();
        self.sample_near(queries, &roads).await
    }

    /// The background's own (often cheaper) index answer where no road is near any query,
    /// which is exactly what [`sample`](Self::sample) gives there.
    async fn sample_ci(
        &self,
        queries: &[SampleQuery],
    ) -> Result<Vec<Option<CleanlinessIndex>>, SourceError> {
        let roads: Vec<NearbyRoads> = queries.iter().map(|q| self.roads_at(q.position)).collect();
        if roads.iter().all(NearbyRoads::is_empty) {
            return self.background.sample_ci(queries).await;
        }
        Ok(self
            .sample_near(queries, &roads)
            .await?
            .into_iter()
            .map(|answer| answer.map(|s| s.ci))
            .collect())
    }
}

impl<S: AirQualitySource + ?Sized> StreetLevel<S> {
    /// The background's samples at `queries`, raised by `roads`, the roads near each query
    /// (found once by the caller).
    async fn sample_near(
        &self,
        queries: &[SampleQuery],
        roads: &[NearbyRoads],
    ) -> Result<Vec<Option<AirSample>>, SourceError> {
        let answers = self.background.sample(queries).await?;
        let answers = crate::source::check_batch_len(queries.len(), answers)?;
        Ok(answers
            .into_iter()
            .zip(roads)
            .map(|(answer, roads)| answer.map(|s| self.raise(s, roads)))
            .collect())
    }
}

#[async_trait]
impl<S: ForecastSource + ?Sized> ForecastSource for StreetLevel<S> {
    fn info(&self) -> SourceInfo {
        self.label(self.background.info())
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let indexes = self.background.hourly_ci(positions, start, hours).await?;
        let indexes = crate::source::check_batch_len(positions.len(), indexes)?;
        if !self.any_roads(positions.iter().copied()) {
            return Ok(indexes);
        }
        let background = self
            .background
            .hourly_concentrations(positions, start, hours)
            .await?;
        let background = crate::source::check_batch_len(positions.len(), background)?;
        Ok(indexes
            .into_iter()
            .zip(background)
            .zip(positions)
            .map(|((series, air), &p)| {
                let mut series = series?;
                let Some(air) = air else { return Some(series) };
                let roads = self.roads_at(p);
                // Hours are matched by their time: both series answer the same hours, but each
                // says itself which hour its first value is.
                let offset = (series.start - air.start).num_hours();
                for (h, value) in series.values.iter_mut().enumerate() {
                    let k = i64::try_from(h).unwrap_or(i64::MAX).saturating_add(offset);
                    let hour = usize::try_from(k)
                        .ok()
                        .and_then(|k| air.values.get(k).copied().flatten());
                    if let (Some(ci), Some(hour)) = (value.as_mut(), hour) {
                        *ci = self.index(*ci, &hour, &self.model.apply(&hour, &roads));
                    }
                }
                Some(series)
            })
            .collect())
    }

    async fn hourly_concentrations(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
        let air = self
            .background
            .hourly_concentrations(positions, start, hours)
            .await?;
        let air = crate::source::check_batch_len(positions.len(), air)?;
        Ok(air
            .into_iter()
            .zip(positions)
            .map(|(series, &p)| {
                let mut series = series?;
                let roads = self.roads_at(p);
                for hour in series.values.iter_mut().flatten() {
                    *hour = self.model.apply(hour, &roads);
                }
                Some(series)
            })
            .collect())
    }

    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        self.background.daily_pollen(positions, at, days).await
    }

    async fn pollen_days(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenDays>>, SourceError> {
        self.background.pollen_days(positions, at, days).await
    }

    /// The background's: the increment does not change with time, so it forecasts no change,
    /// and alert rules read the background (docs/scoring.md says why).
    async fn hourly_ci_for_changes(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        self.background
            .hourly_ci_for_changes(positions, start, hours)
            .await
    }

    fn reach(&self) -> SourceReach {
        self.background.reach()
    }

    async fn hourly_fusion(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyFusion>>, SourceError> {
        self.background.hourly_fusion(positions, start, hours).await
    }
}
