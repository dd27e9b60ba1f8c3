//! The fused source: a model's [`AirQualitySource`] and [`ForecastSource`] with every value
//! corrected by the analysis of its hour and place, and the analyses kept in a bounded cache.

use std::sync::Arc;

use aq_core::air_hour::hour_of;
use aq_core::{
    AirQualitySource, AirSample, CleanlinessIndex, Concentrations, ForecastSource, FusedHour,
    HourlyCi, HourlyConcentrations, HourlyFusion, ObservationSource, PollenDays, PollenOutlook,
    Pollutant, Position, SampleQuery, SourceError, SourceInfo, SourceReach, check_batch_len,
};
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use futures::{StreamExt, TryStreamExt, stream};
use runtime_core::Clock;

use crate::config::{FusionConfig, FusionConfigError};
use aq_core::position::unit_vector;

use crate::cell::Cell;
use crate::hour::{Estimates, Fused, HourAnalysis, checked_readings, per_pollutant};
use crate::qc::{Exclusions, QcReason};

/// Where a fused source reports the readings its quality control leaves out: the server
/// counts them in its metrics.
pub trait ExclusionSink: Send + Sync {
    /// `count` readings of `pollutant` were left out of one analysis for `reason`.
    fn excluded(&self, pollutant: Pollutant, reason: QcReason, count: u64);
}

/// Analyses being made at once for one batch.
const CONCURRENT_ANALYSES: usize = 4;

/// The cache's weight of an analysis: the readings it holds, and one for itself.
#[derive(Debug, Clone, Copy)]
struct ByReadings;

impl quick_cache::Weighter<(i64, Cell), Arc<HourAnalysis>> for ByReadings {
    fn weight(&self, _: &(i64, Cell), analysis: &Arc<HourAnalysis>) -> u64 {
        u64::try_from(analysis.readings())
            .unwrap_or(u64::MAX)
            .saturating_add(1)
    }
}

/// A model corrected by station readings. See the crate documentation for the method.
pub struct FusedSource {
    model_air: Arc<dyn AirQualitySource>,
    model_forecast: Arc<dyn ForecastSource>,
    stations: Arc<dyn ObservationSource>,
    clock: Arc<dyn Clock>,
    config: FusionConfig,
    analyses: quick_cache::sync::Cache<(i64, Cell), Arc<HourAnalysis>, ByReadings>,
    sink: Option<Arc<dyn ExclusionSink>>,
}

impl std::fmt::Debug for FusedSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FusedSource")
            .field("model", &self.model_forecast.info().name)
            .field("stations", &self.stations.info().name)
            .finish_non_exhaustive()
    }
}

/// An analysis's hour and cell.
type Key = (DateTime<Utc>, Cell);

/// How a correction is carried ahead of now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ahead {
    /// Relaxed towards the model with the readings' persistence: the best estimate of the
    /// value, what lookups and route scores read.
    Relaxed,
    /// Kept as it is now: what changes are read from, so that the correction fading is never
    /// taken for the air changing.
    Held,
}

/// A point to fuse: where, when, and the model's values there.
#[derive(Debug, Clone, Copy)]
struct Wanted {
    position: Position,
    time: DateTime<Utc>,
    model: Concentrations,
}

impl FusedSource {
    /// `model_air` and `model_forecast` (usually one model behind both ports) corrected by the
    /// readings of `stations`, reading the time from `clock`.
    ///
    /// # Errors
    /// [`FusionConfigError`] for a setting out of range.
    pub fn new(
        model_air: Arc<dyn AirQualitySource>,
        model_forecast: Arc<dyn ForecastSource>,
        stations: Arc<dyn ObservationSource>,
        clock: Arc<dyn Clock>,
        config: FusionConfig,
    ) -> Result<Self, FusionConfigError> {
        config.validate()?;
        // An analysis holds a few hundred readings at most: the estimate only sizes the
        // cache's table.
        let items = usize::try_from(config.cache_readings / 100).unwrap_or(usize::MAX);
        Ok(Self {
            analyses: quick_cache::sync::Cache::with_weighter(
                items.max(16),
                config.cache_readings,
                ByReadings,
            ),
            model_air,
            model_forecast,
            stations,
            clock,
            config,
            sink: None,
        })
    }

    /// The same source reporting what its quality control leaves out to `sink`.
    #[must_use]
    pub fn with_exclusion_sink(mut self, sink: Arc<dyn ExclusionSink>) -> Self {
        self.sink = Some(sink);
        self
    }

    /// The settings in force.
    #[must_use]
    pub fn config(&self) -> &FusionConfig {
        &self.config
    }

    /// The hour analysed for an instant `t` and how many hours after it `t` lies: an instant
    /// up to now reads its own hour's analysis in full (0); a later one reads the newest
    /// hour's, whose correction relaxes with the time ahead.
    fn plan(&self, t: DateTime<Utc>, now: DateTime<Utc>) -> (DateTime<Utc>, f64) {
        if t <= now {
            return (hour_of(t), 0.0);
        }
        let newest = hour_of(now);
        #[allow(clippy::cast_precision_loss)]
        let ahead = (t - newest).num_seconds() as f64 / 3_600.0;
        (newest, ahead)
    }

    /// Whether an analysis made at `made` of `hour` may still be served at `now`: once made
    /// after every reading of its hour could have arrived, always; before, for `refresh_s`.
    fn fresh(&self, analysis: &HourAnalysis, now: DateTime<Utc>) -> bool {
        let settled = analysis.hour
            + Duration::seconds(i64::try_from(self.config.max_age_s).unwrap_or(i64::MAX));
        let refresh = Duration::seconds(i64::try_from(self.config.refresh_s).unwrap_or(i64::MAX));
        analysis.made >= settled || now - analysis.made < refresh
    }

    /// The analysis of `hour` over `cell`, from the cache or made now.
    async fn analysis(
        &self,
        hour: DateTime<Utc>,
        cell: Cell,
        now: DateTime<Utc>,
    ) -> Result<Arc<HourAnalysis>, SourceError> {
        let key = (hour.timestamp(), cell);
        let held = self.analyses.get(&key);
        if let Some(held) = &held
            && self.fresh(held, now)
        {
            return Ok(held.clone());
        }
        let area = cell.area(self.config.cell_deg, self.config.max_radius_m);
        let cell_deg = self.config.cell_deg;
        let own = move |p: Position| Cell::of(p, cell_deg) == cell;
        let (checked, excluded) = checked_readings(
            self.model_air.as_ref(),
            self.stations.as_ref(),
            area,
            &own,
            hour,
            &self.config,
        )
        .await?;
        self.report(hour, held.as_deref().map(|h| &h.excluded), &excluded);
        let analysis = Arc::new(HourAnalysis {
            hour,
            made: now,
            pollutants: per_pollutant(&checked, &self.config),
            excluded,
        });
        self.analyses.insert(key, analysis.clone());
        Ok(analysis)
    }

    /// Counts and logs what an analysis left out beyond what the analysis it replaces (of the
    /// same hour and cell, made before the hour's readings had all arrived) left out already.
    fn report(&self, hour: DateTime<Utc>, before: Option<&Exclusions>, excluded: &Exclusions) {
        let new: Vec<(Pollutant, QcReason, u64)> = excluded
            .iter()
            .map(|(p, r, n)| (p, r, n.saturating_sub(before.map_or(0, |b| b.count(p, r)))))
            .filter(|&(_, _, n)| n > 0)
            .collect();
        if new.is_empty() {
            return;
        }
        if let Some(sink) = &self.sink {
            for &(p, reason, n) in &new {
                sink.excluded(p, reason, n);
            }
        }
        let counts: Vec<String> = new
            .iter()
            .map(|(p, r, n)| format!("{p} {} {n}", r.as_str()))
            .collect();
        let named: Vec<String> = excluded
            .named()
            .iter()
            .map(|(r, p, s)| format!("{s} ({p}, {})", r.as_str()))
            .collect();
        tracing::info!(
            %hour,
            left_out = %counts.join(", "),
            stations = %named.join("; "),
            "station readings left out by quality control"
        );
    }

    /// Each point's values corrected; ahead of now the correction relaxes towards the model,
    /// unless `ahead` is [`Ahead::Held`].
    async fn fuse(&self, points: &[Wanted], ahead: Ahead) -> Result<Vec<Fused>, SourceError> {
        let now = self.clock.now();
        let plans: Vec<((DateTime<Utc>, Cell), f64)> = points
            .iter()
            .map(|p| {
                let (hour, hours_ahead) = self.plan(p.time, now);
                let hours_ahead = match ahead {
                    Ahead::Relaxed => hours_ahead,
                    Ahead::Held => 0.0,
                };
                (
                    (hour, Cell::of(p.position, self.config.cell_deg)),
                    hours_ahead,
                )
            })
            .collect();
        let mut wanted: std::collections::BTreeMap<Key, usize> = std::collections::BTreeMap::new();
        for (key, _) in &plans {
            *wanted.entry(*key).or_default() += 1;
        }
        // The analyses to make now: those most points wait on, up to the budget; the points of
        // the others keep the model's values until a later call has made theirs.
        let mut missing: Vec<(usize, Key)> = wanted
            .iter()
            .filter(|((hour, cell), _)| {
                self.analyses
                    .get(&(hour.timestamp(), *cell))
                    .is_none_or(|a| !self.fresh(&a, now))
            })
            .map(|(key, n)| (*n, *key))
            .collect();
        missing.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let left = missing.len().saturating_sub(self.config.max_new_analyses);
        if left > 0 {
            let later: Vec<Key> = missing
                .split_off(self.config.max_new_analyses)
                .into_iter()
                .map(|(_, key)| key)
                .collect();
            for key in later {
                wanted.remove(&key);
            }
            tracing::debug!(
                left,
                "analyses left to later requests; the model stands there for now"
            );
        }
        let analyses: Vec<(Key, Arc<HourAnalysis>)> = stream::iter(wanted.into_keys())
            .map(|(hour, cell)| async move {
                self.analysis(hour, cell, now)
                    .await
                    .map(|a| ((hour, cell), a))
            })
            .buffer_unordered(CONCURRENT_ANALYSES)
            .try_collect()
            .await?;
        let by_key: std::collections::HashMap<(i64, Cell), Arc<HourAnalysis>> = analyses
            .into_iter()
            .map(|((h, c), a)| ((h.timestamp(), c), a))
            .collect();
        // A series' hours ahead of now all read the newest analysis at the same place: the
        // estimates made for one of them serve the next while place and analysis stay the same.
        let mut last: Option<(Position, Key, Estimates)> = None;
        Ok(points
            .iter()
            .zip(&plans)
            .map(|(p, (key, ahead))| {
                let Some(a) = by_key.get(&(key.0.timestamp(), key.1)) else {
                    return Fused {
                        concentrations: p.model,
                        uncertainty: aq_core::Uncertainties::default(),
                        stations_used: 0,
                        newest: None,
                        changed: false,
                    };
                };
                if last
                    .as_ref()
                    .is_some_and(|(position, k, _)| *position != p.position || k != key)
                {
                    last = None;
                }
                let (_, _, estimates) = last.get_or_insert_with(|| {
                    (p.position, *key, a.estimates(unit_vector(p.position)))
                });
                a.fuse(estimates, &p.model, *ahead)
            })
            .collect())
    }

    /// The model's hourly concentrations at `positions`, each hour corrected.
    async fn fused_series(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
        ahead: Ahead,
    ) -> Result<Vec<Option<(DateTime<Utc>, Vec<Option<Fused>>)>>, SourceError> {
        let model = check_batch_len(
            positions.len(),
            self.model_forecast
                .hourly_concentrations(positions, start, hours)
                .await?,
        )?;
        let mut wanted = Vec::new();
        for (&position, series) in positions.iter().zip(&model) {
            let Some(series) = series else { continue };
            for (h, values) in series.values.iter().enumerate() {
                if let Some(model) = values {
                    wanted.push(Wanted {
                        position,
                        time: series.start + Duration::hours(i64::try_from(h).unwrap_or(0)),
                        model: *model,
                    });
                }
            }
        }
        let mut fused = self.fuse(&wanted, ahead).await?.into_iter();
        Ok(model
            .into_iter()
            .map(|series| {
                series.map(|s| {
                    let values = s
                        .values
                        .iter()
                        .map(|v| v.and_then(|_| fused.next()))
                        .collect();
                    (s.start, values)
                })
            })
            .collect())
    }

    /// The model's hourly CI with each hour's concentrations corrected, ahead of now as
    /// `ahead` says.
    async fn ci_series(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
        ahead: Ahead,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let model = check_batch_len(
            positions.len(),
            self.model_forecast
                .hourly_ci(positions, start, hours)
                .await?,
        )?;
        let fused = self.fused_series(positions, start, hours, ahead).await?;
        Ok(model
            .into_iter()
            .zip(fused)
            .map(|(ci, fused)| {
                let mut ci = ci?;
                if let Some((fused_start, values)) = fused {
                    for (h, value) in ci.values.iter_mut().enumerate() {
                        let t = ci.start + Duration::hours(i64::try_from(h).unwrap_or(0));
                        let offset = (t - fused_start).num_hours();
                        let f = usize::try_from(offset)
                            .ok()
                            .and_then(|k| values.get(k))
                            .and_then(Option::as_ref);
                        if let Some(f) = f {
                            *value = self.ci(f, *value);
                        }
                    }
                }
                Some(ci)
            })
            .collect())
    }

    /// How far the CI of `fused`'s values, each raised by its standard deviation, lies below
    /// their CI; `None` without an estimate for any pollutant.
    fn ci_uncertainty(&self, fused: &Fused) -> Option<f64> {
        let mut raised = fused.concentrations;
        let mut any = false;
        for (p, sd) in fused.uncertainty.iter() {
            if let Some(c) = fused.concentrations.get(p)
                && let Ok(up) = aq_core::Concentration::new(c.ug_m3() + sd)
            {
                raised.set(p, up);
                any = true;
            }
        }
        if !any {
            return None;
        }
        let bands = &self.config.bands;
        let (ci, up) = (bands.ci(&fused.concentrations)?, bands.ci(&raised)?);
        Some((ci.value() - up.value()).max(0.0))
    }

    /// The CI of fused values: the model's own when nothing changed, so that far from every
    /// station the answer is the model's to the last bit.
    fn ci(&self, fused: &Fused, model: Option<CleanlinessIndex>) -> Option<CleanlinessIndex> {
        if fused.changed {
            self.config.bands.ci(&fused.concentrations).or(model)
        } else {
            model
        }
    }
}

#[async_trait]
impl AirQualitySource for FusedSource {
    fn info(&self) -> SourceInfo {
        info(&self.model_air.info(), &self.stations.info())
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        let model = check_batch_len(queries.len(), self.model_air.sample(queries).await?)?;
        let wanted: Vec<Wanted> = queries
            .iter()
            .zip(&model)
            .filter_map(|(q, m)| {
                Some(Wanted {
                    position: q.position,
                    time: q.time,
                    model: m.as_ref()?.concentrations?,
                })
            })
            .collect();
        let mut fused = self.fuse(&wanted, Ahead::Relaxed).await?.into_iter();
        Ok(model
            .into_iter()
            .map(|m| {
                let m = m?;
                if m.concentrations.is_none() {
                    return Some(m);
                }
                let f = fused.next()?;
                Some(AirSample {
                    ci: self.ci(&f, Some(m.ci)).unwrap_or(m.ci),
                    concentrations: Some(f.concentrations),
                })
            })
            .collect())
    }
}

/// What a fused source is: the model's name and the stations', both attributions.
fn info(model: &SourceInfo, stations: &SourceInfo) -> SourceInfo {
    let attribution: Vec<String> = [&model.attribution, &stations.attribution]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    SourceInfo {
        name: format!("{}+{}", model.name, stations.name),
        demo: model.demo || stations.demo,
        attribution: (!attribution.is_empty()).then(|| attribution.join(" ")),
    }
}

#[async_trait]
impl ForecastSource for FusedSource {
    fn info(&self) -> SourceInfo {
        info(&self.model_forecast.info(), &self.stations.info())
    }

    /// The model's hourly CI with each hour's concentrations corrected; the model's
    /// provenance, since the hours come from its runs (the stations behind them are in
    /// [`ForecastSource::hourly_fusion`]).
    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        self.ci_series(positions, start, hours, Ahead::Relaxed)
            .await
    }

    /// As [`hourly_ci`](ForecastSource::hourly_ci), with each hour ahead corrected as fully as
    /// now: a change in it is the model's, never the correction fading.
    async fn hourly_ci_for_changes(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        self.ci_series(positions, start, hours, Ahead::Held).await
    }

    async fn hourly_concentrations(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
        Ok(self
            .fused_series(positions, start, hours, Ahead::Relaxed)
            .await?
            .into_iter()
            .map(|series| {
                let (start, values) = series?;
                HourlyConcentrations::covered(
                    start,
                    values
                        .into_iter()
                        .map(|f| f.map(|f| f.concentrations))
                        .collect(),
                )
            })
            .collect())
    }

    async fn hourly_fusion(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyFusion>>, SourceError> {
        Ok(self
            .fused_series(positions, start, hours, Ahead::Relaxed)
            .await?
            .into_iter()
            .map(|series| {
                let (start, values) = series?;
                Some(HourlyFusion {
                    start,
                    values: values
                        .into_iter()
                        .map(|f| {
                            f.map(|f| FusedHour {
                                uncertainty: f.uncertainty,
                                stations_used: f.stations_used,
                                newest_observation: f.newest,
                                ci_uncertainty: self.ci_uncertainty(&f),
                            })
                        })
                        .collect(),
                })
            })
            .collect())
    }

    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        self.model_forecast.daily_pollen(positions, at, days).await
    }

    async fn pollen_days(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenDays>>, SourceError> {
        self.model_forecast.pollen_days(positions, at, days).await
    }

    fn reach(&self) -> SourceReach {
        self.model_forecast.reach()
    }
}
