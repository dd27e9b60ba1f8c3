//! Evaluating alert rules at points, exactly as `docs/scoring.md` says.
//!
//! - Air quality: the CI now (`values[0]` of the hourly series the source gives for changes,
//!   [`ForecastSource::hourly_ci_for_changes`]) against each forecast hour; a rule tells the
//!   first episode ([`crate::episode`]): hours past its threshold in one direction that last its
//!   minimum duration, with its hysteresis, named by its worst hour. Where the source gives
//!   the CI's uncertainty, a change must also exceed its own spread (`Thresholds::confidence`).
//!   Differences are taken on the unrounded CI.
//! - Pollen: for each type, daily levels compared like with like: today's level against
//!   yesterday's, each later day's against today's, from today (day 0) to the horizon (`today`
//!   checks day 0 only, `2d` days 0, 1 and 2); the first episode of each type is told.
//! - Missing data never raises an alert: a `None` value now (or a missing reference day) skips
//!   the rule (or the type); a `None` forecast value neither starts, extends nor ends an
//!   episode.
//!
//! [`Evaluator::fetch`] asks the forecast port once per data type for a whole chunk of points
//! (remote sources need batching); [`Evaluator::evaluate_chunk`] is pure and hands each alert
//! to a callback, with its description in a reused buffer, so that the NDJSON encoder can
//! stream it without the alerts ever being collected.

use std::borrow::Cow;

use aq_core::air_hour::{AVERAGING_LEAD_HOURS, window};

use aq_core::{
    ForecastSource, HourlyCi, HourlyConcentrations, HourlyFusion, PollenLevel, PollenOutlook,
    Position, SourceError, check_batch_len,
};
use chrono::{DateTime, Days, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::advice;
use crate::change::{Change, ChangeTime};
use crate::episode::{EpisodeRule, aq_episode_within, pollen_episodes};
use crate::message::{MessageConfig, write_description};
use crate::ndjson::{AlertDetails, AlertLineRef, IndexReading};
use crate::request::AlertPoint;
use crate::rule::{
    AlertRule, AqIndex, DEFAULT_AQ_HYSTERESIS, DEFAULT_AQ_MIN_HOURS, DEFAULT_POLLEN_HYSTERESIS,
    DEFAULT_POLLEN_MIN_DAYS, DataType, Forecast, RuleSpec, Sensitivity,
};

/// The thresholds on |change from now| that trip each sensitivity, the confidence a change
/// needs, and the minimum duration and hysteresis of rules that set none: the server file's
/// `[alerts]`. Defaults from `docs/scoring.md`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Thresholds {
    /// Air quality, High sensitivity, in CI points (default 5).
    pub aq_high: f64,
    /// Air quality, Medium sensitivity, in CI points (default 10).
    pub aq_medium: f64,
    /// Air quality, Low sensitivity, in CI points (default 20).
    pub aq_low: f64,
    /// Pollen, High sensitivity, in levels (default 1).
    pub pollen_high: u8,
    /// Pollen, Medium sensitivity, in levels (default 2).
    pub pollen_medium: u8,
    /// Pollen, Low sensitivity, in levels (default 3).
    pub pollen_low: u8,
    /// Where the source gives the CI's uncertainty (a fused source does), how many standard
    /// deviations of itself an air-quality change must also exceed (default 1: the change is
    /// larger than its own uncertainty, and about five times in six goes the way it is told).
    pub confidence: f64,
    /// The minimum duration of air-quality rules that set none, in hours (default 2).
    pub aq_min_hours: u8,
    /// The minimum duration of pollen rules that set none, in days (default 1).
    pub pollen_min_days: u8,
    /// The hysteresis of air-quality rules that set none, in CI points (default 2).
    pub aq_hysteresis: u8,
    /// The hysteresis of pollen rules that set none, in levels (default 0).
    pub pollen_hysteresis: u8,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            aq_high: 5.0,
            aq_medium: 10.0,
            aq_low: 20.0,
            pollen_high: 1,
            pollen_medium: 2,
            pollen_low: 3,
            confidence: 1.0,
            aq_min_hours: DEFAULT_AQ_MIN_HOURS,
            pollen_min_days: DEFAULT_POLLEN_MIN_DAYS,
            aq_hysteresis: DEFAULT_AQ_HYSTERESIS,
            pollen_hysteresis: DEFAULT_POLLEN_HYSTERESIS,
        }
    }
}

impl Thresholds {
    /// The air-quality threshold of `sensitivity`, in CI points.
    #[must_use]
    pub fn aq(&self, sensitivity: Sensitivity) -> f64 {
        match sensitivity {
            Sensitivity::High => self.aq_high,
            Sensitivity::Medium => self.aq_medium,
            Sensitivity::Low => self.aq_low,
        }
    }

    /// The minimum duration in force for `spec`: its own, or this default for its data type.
    #[must_use]
    pub fn min_duration(&self, spec: &RuleSpec) -> u8 {
        spec.persistence()
            .min_duration
            .unwrap_or(match spec.data_type() {
                DataType::Aq => self.aq_min_hours,
                DataType::Pollen => self.pollen_min_days,
            })
    }

    /// The hysteresis in force for `spec`: its own, or this default for its data type.
    #[must_use]
    pub fn hysteresis(&self, spec: &RuleSpec) -> u8 {
        spec.persistence()
            .hysteresis
            .unwrap_or(match spec.data_type() {
                DataType::Aq => self.aq_hysteresis,
                DataType::Pollen => self.pollen_hysteresis,
            })
    }

    /// Checks settings read from an operator's file: every threshold above zero, the
    /// confidence finite and not negative, and the default durations and margins within what
    /// a rule may set ([`crate::rule::persistence_ranges`]).
    ///
    /// ```
    /// use alerts_core::evaluate::Thresholds;
    ///
    /// assert!(Thresholds::default().validate().is_ok());
    /// let wrong = Thresholds { aq_min_hours: 0, ..Thresholds::default() };
    /// assert_eq!(wrong.validate().unwrap_err(), "aq_min_hours: 0 is outside 1 to 24 hours");
    /// ```
    ///
    /// # Errors
    /// The first setting out of range, named.
    pub fn validate(&self) -> Result<(), String> {
        for (name, value) in [
            ("aq_high", self.aq_high),
            ("aq_medium", self.aq_medium),
            ("aq_low", self.aq_low),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("{name}: {value} must be a number above 0"));
            }
        }
        for (name, value) in [
            ("pollen_high", self.pollen_high),
            ("pollen_medium", self.pollen_medium),
            ("pollen_low", self.pollen_low),
        ] {
            if !(1..=5).contains(&value) {
                return Err(format!("{name}: {value} is outside 1 to 5 levels"));
            }
        }
        if !(self.confidence.is_finite() && self.confidence >= 0.0) {
            return Err(format!(
                "confidence: {} must be a number of 0 or more",
                self.confidence
            ));
        }
        for (name, data_type, duration, value) in [
            ("aq_min_hours", DataType::Aq, true, self.aq_min_hours),
            (
                "pollen_min_days",
                DataType::Pollen,
                true,
                self.pollen_min_days,
            ),
            ("aq_hysteresis", DataType::Aq, false, self.aq_hysteresis),
            (
                "pollen_hysteresis",
                DataType::Pollen,
                false,
                self.pollen_hysteresis,
            ),
        ] {
            let (durations, margins) = crate::rule::persistence_ranges(data_type);
            let (min, max, unit) = if duration { durations } else { margins };
            if !(min..=max).contains(&value) {
                return Err(format!("{name}: {value} is outside {min} to {max} {unit}"));
            }
        }
        Ok(())
    }

    /// The pollen threshold of `sensitivity`, in levels.
    #[must_use]
    pub fn pollen(&self, sensitivity: Sensitivity) -> u8 {
        match sensitivity {
            Sensitivity::High => self.pollen_high,
            Sensitivity::Medium => self.pollen_medium,
            Sensitivity::Low => self.pollen_low,
        }
    }
}

/// The horizon of a forecast selector: hours for air quality, days after today for pollen
/// (`today` is 0).
#[must_use]
pub fn horizon(forecast: Forecast) -> u32 {
    match forecast {
        Forecast::Hours(n) | Forecast::Days(n) => u32::from(n),
        Forecast::Today => 0,
    }
}

/// The episode rule of `spec` under `thresholds`: its horizon, threshold, hysteresis and
/// minimum duration, in the units of its data type.
#[must_use]
pub fn episode_rule(spec: &RuleSpec, thresholds: &Thresholds) -> EpisodeRule {
    EpisodeRule {
        horizon: horizon(spec.forecast()),
        threshold: match spec.data_type() {
            DataType::Aq => thresholds.aq(spec.sensitivity()),
            DataType::Pollen => f64::from(thresholds.pollen(spec.sensitivity())),
        },
        hysteresis: f64::from(thresholds.hysteresis(spec)),
        min_duration: u32::from(thresholds.min_duration(spec)),
        confidence: thresholds.confidence,
    }
}

/// How many steps (hours, or days after today) a rule reads: its horizon, and past it enough
/// to see an episode that starts at the horizon last its minimum duration.
#[must_use]
pub fn steps_read(spec: &RuleSpec, thresholds: &Thresholds) -> u32 {
    horizon(spec.forecast()) + u32::from(thresholds.min_duration(spec)).saturating_sub(1)
}

/// The civil date of day `day` of `outlook` (0 is today).
#[must_use]
pub fn day_of(outlook: &PollenOutlook, day: u32) -> NaiveDate {
    outlook
        .today
        .checked_add_days(Days::new(u64::from(day)))
        .unwrap_or(NaiveDate::MAX)
}

/// The standard deviation of each hour's CI of `series`, from `fusion` aligned by time; empty
/// when the source gives none.
#[must_use]
pub fn ci_uncertainties(series: &HourlyCi, fusion: Option<&HourlyFusion>) -> Vec<Option<f64>> {
    let Some(fusion) = fusion else {
        return Vec::new();
    };
    (0..series.values.len())
        .map(|h| {
            let at = series.valid_at(u32::try_from(h).unwrap_or(u32::MAX));
            let k = usize::try_from((at - fusion.start).num_hours()).ok()?;
            fusion.values.get(k).copied().flatten()?.ci_uncertainty
        })
        .collect()
}

/// The probability that the air at the peak of `change` is in the peak's category or one
/// beyond it (dirtier for a deterioration, cleaner for an improvement), taking the true CI as
/// normal around the peak's value with standard deviation `sd`; `None` without a spread.
///
/// ```
/// use alerts_core::change::AqChange;
/// use alerts_core::evaluate::reach_probability;
/// use aq_core::CleanlinessIndex;
///
/// let ci = |v| CleanlinessIndex::new(v).unwrap();
/// // A peak of 30 (Low, below 40) known to within 10 points: Low or worse about 84 % sure.
/// let worse = AqChange::new(3, ci(60.0), ci(30.0));
/// assert!((reach_probability(&worse, 10.0).unwrap() - 0.841).abs() < 0.001);
/// // On the edge itself, even odds.
/// let edge = AqChange::new(3, ci(60.0), ci(39.999_999));
/// assert!((reach_probability(&edge, 5.0).unwrap() - 0.5).abs() < 0.001);
/// ```
#[must_use]
pub fn reach_probability(change: &crate::change::AqChange, sd: f64) -> Option<f64> {
    if !(sd > 0.0 && sd.is_finite()) {
        return None;
    }
    let peak = change.peak.value();
    let (low, high) = change.peak.category().range();
    let z = match change.direction() {
        crate::change::Direction::Deterioration => (high - peak) / sd,
        crate::change::Direction::Improvement => (peak - low) / sd,
    };
    Some(0.5 * (1.0 + libm::erf(z / std::f64::consts::SQRT_2)))
}

/// A pollen level as the NDJSON `index` and `peak` members give it.
fn pollen_reading(level: PollenLevel) -> IndexReading {
    IndexReading {
        code: Cow::Borrowed("pollen_level"),
        value: Some(f64::from(level.value())),
        category: Cow::Borrowed(level.name()),
        at_least: false,
    }
}

/// An alert as the evaluator produces it, borrowed from the point, the rule and the reused
/// description buffer.
#[derive(Debug, Clone, Copy)]
pub struct Alert<'a> {
    /// The point.
    pub point: &'a AlertPoint,
    /// The rule that tripped.
    pub rule: &'a AlertRule,
    /// The change.
    pub change: Change,
    /// When the change happens.
    pub when: ChangeTime,
    /// The rendered description.
    pub description: &'a str,
    /// The predefined recommendation for the rule's audience.
    pub recommendation: &'static str,
    /// What a program reads of it: the NDJSON members after the spec's.
    pub details: &'a AlertDetails,
    /// The rule's hysteresis in force (its own, or the evaluator's default), in CI points or
    /// levels: what tells a later alert of the same episode from news.
    pub hysteresis: f64,
}

impl Alert<'_> {
    /// The NDJSON line of this alert.
    #[must_use]
    pub fn line(&self) -> AlertLineRef<'_> {
        AlertLineRef {
            description: self.description,
            recommendation: self.recommendation,
            lat: self.point.position.lat(),
            lon: self.point.position.lon(),
            id: &self.point.id,
            data_type: self.change.data_type(),
            custom_data: &self.point.custom_data,
            details: Some(self.details),
        }
    }
}

/// The forecasts of one chunk of points, one entry per point, as fetched for a set of rules.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChunkForecast {
    /// Hourly CI series, when some rule watches air quality (else empty).
    pub aq: Vec<Option<HourlyCi>>,
    /// Pollen outlooks, when some rule watches pollen (else empty).
    pub pollen: Vec<Option<PollenOutlook>>,
    /// Hourly concentrations beside `aq` and over the 11 hours before it (what the US AQI
    /// averages), when some air-quality rule shows the US AQI (else empty).
    pub concentrations: Vec<Option<HourlyConcentrations>>,
    /// How sure a fused source is of the hours of `aq` (the CI's uncertainty), when some rule
    /// watches air quality (else empty; `None` entries from sources that fuse nothing).
    pub fusion: Vec<Option<HourlyFusion>>,
    /// The moment the forecasts were asked for: the "now" of every change.
    pub evaluated_at: DateTime<Utc>,
}

/// Evaluates rules with configured thresholds and messages.
#[derive(Debug, Clone, Default)]
pub struct Evaluator {
    /// The thresholds per sensitivity.
    pub thresholds: Thresholds,
    /// How messages are rendered.
    pub messages: MessageConfig,
}

impl Evaluator {
    /// An evaluator with these thresholds and message settings.
    #[must_use]
    pub fn new(thresholds: Thresholds, messages: MessageConfig) -> Self {
        Self {
            thresholds,
            messages,
        }
    }

    /// Every change that `spec` raises at a point with these forecasts, with when it happens:
    /// the first episode ([`crate::episode`]), at most one for air quality and one per pollen
    /// type.
    ///
    /// `uncertainty[h]` is the standard deviation of the CI of hour `h` of `aq` where the
    /// source gives one (empty where it gives none, as for every source but a fused one).
    pub fn changes(
        &self,
        spec: &RuleSpec,
        aq: Option<&HourlyCi>,
        uncertainty: &[Option<f64>],
        pollen: Option<&PollenOutlook>,
        mut on_change: impl FnMut(Change, ChangeTime),
    ) {
        let rule = episode_rule(spec, &self.thresholds);
        match spec.data_type() {
            DataType::Aq => {
                let Some(series) = aq else { return };
                if let Some(c) = aq_episode_within(series, uncertainty, rule) {
                    // The hour of the value the source used, not of now + n: a source that
                    // reads the nearest hour gives 09:00 at 08:40, and the change must keep
                    // its name on either side of the half hour.
                    on_change(Change::Aq(c), ChangeTime::hour_of(series.valid_at(c.hours)));
                }
            }
            DataType::Pollen => {
                let Some(outlook) = pollen else { return };
                for c in pollen_episodes(outlook, rule).into_iter().flatten() {
                    on_change(Change::Pollen(c), ChangeTime::Day(day_of(outlook, c.day)));
                }
            }
        }
    }

    /// Asks `source` for what `rules` need at `points`: one hourly call up to the longest
    /// air-quality horizon, one pollen call up to the longest pollen horizon, and none for a
    /// data type no enabled rule watches. The calls are made at once: a source that answers
    /// from memory spreads them over the processor's cores together, and a remote one waits
    /// for them together.
    ///
    /// # Errors
    /// [`SourceError`] when the source fails, or answers with the wrong number of entries.
    pub async fn fetch(
        &self,
        source: &dyn ForecastSource,
        rules: &[AlertRule],
        points: &[AlertPoint],
        now: DateTime<Utc>,
    ) -> Result<ChunkForecast, SourceError> {
        let longest = |dt: DataType| {
            rules
                .iter()
                .filter(|r| r.enabled && r.spec.data_type() == dt)
                .map(|r| steps_read(&r.spec, &self.thresholds))
                .max()
        };
        if points.is_empty() {
            return Ok(ChunkForecast {
                evaluated_at: now,
                ..ChunkForecast::default()
            });
        }
        let positions: Vec<Position> = points.iter().map(|p| p.position).collect();
        let positions = positions.as_slice();
        let n = points.len();
        let aq_hours = longest(DataType::Aq);
        let us_aqi = rules.iter().any(|r| {
            r.enabled && r.spec.data_type() == DataType::Aq && r.spec.aq_index() == AqIndex::UsEpa
        });
        let aq = async {
            match aq_hours {
                // The hours changes are read from: a source correcting a model keeps its
                // correction ahead, so a fading correction is never told as the air changing.
                Some(hours) => check_batch_len(
                    n,
                    source.hourly_ci_for_changes(positions, now, hours).await?,
                ),
                None => Ok(Vec::new()),
            }
        };
        let concentrations = async {
            match aq_hours.filter(|_| us_aqi) {
                // From the hours before now too: the US AQI of an hour averages them as EPA
                // does.
                Some(hours) => {
                    let lead = AVERAGING_LEAD_HOURS;
                    let start = now - chrono::Duration::hours(i64::from(lead));
                    check_batch_len(
                        n,
                        source
                            .hourly_concentrations(positions, start, hours + lead)
                            .await?,
                    )
                }
                None => Ok(Vec::new()),
            }
        };
        let pollen = async {
            match longest(DataType::Pollen) {
                Some(days) => check_batch_len(n, source.daily_pollen(positions, now, days).await?),
                None => Ok(Vec::new()),
            }
        };
        let fusion = async {
            match aq_hours {
                Some(hours) => {
                    check_batch_len(n, source.hourly_fusion(positions, now, hours).await?)
                }
                None => Ok(Vec::new()),
            }
        };
        let (aq, concentrations, pollen, fusion) =
            futures::try_join!(aq, concentrations, pollen, fusion)?;
        Ok(ChunkForecast {
            aq,
            pollen,
            concentrations,
            fusion,
            evaluated_at: now,
        })
    }

    /// Evaluates every enabled rule at every point of a chunk, point by point and rule by rule
    /// in order, and hands each alert to `on_alert`. Returns the number of alerts.
    ///
    /// `forecast` must come from [`Evaluator::fetch`] for the same rules and points; a shorter
    /// one is treated as missing data, never as an error.
    pub fn evaluate_chunk(
        &self,
        rules: &[AlertRule],
        points: &[AlertPoint],
        forecast: &ChunkForecast,
        mut on_alert: impl FnMut(&Alert<'_>),
    ) -> u64 {
        let mut description = String::with_capacity(128);
        let mut count = 0;
        for (i, point) in points.iter().enumerate() {
            let aq = forecast.aq.get(i).and_then(Option::as_ref);
            let pollen = forecast.pollen.get(i).and_then(Option::as_ref);
            if aq.is_none() && pollen.is_none() {
                continue;
            }
            let air = forecast.concentrations.get(i).and_then(Option::as_ref);
            let uncertainty = aq.map_or_else(Vec::new, |series| {
                ci_uncertainties(series, forecast.fusion.get(i).and_then(Option::as_ref))
            });
            // The concentrations of an hour `h` hours from the series' start, and of the hours
            // before it: what a US AQI of that hour averages.
            let air_at = |h: u32| {
                air.zip(aq).map(|(s, series)| {
                    window(s, series.start + chrono::Duration::hours(i64::from(h)))
                })
            };
            for rule in rules.iter().filter(|r| r.enabled) {
                self.changes(&rule.spec, aq, &uncertainty, pollen, |change, when| {
                    description.clear();
                    let start = match change {
                        Change::Aq(c) => air_at(c.hours),
                        Change::Pollen(_) => None,
                    };
                    let start = start.as_ref().map(|h| &h[..]);
                    write_description(
                        &mut description,
                        rule.spec.message(),
                        &change,
                        rule.spec.aq_index(),
                        start,
                        &self.messages,
                        rule.spec.language(),
                    );
                    let details = match change {
                        Change::Aq(c) => {
                            let hour = |h: u32| {
                                ChangeTime::hour_of(
                                    aq.map_or(forecast.evaluated_at, |s| s.valid_at(h)),
                                )
                            };
                            let peak = air_at(c.peak_hours);
                            let index = rule.spec.aq_index();
                            AlertDetails {
                                rule_id: rule.id,
                                evaluated_at: forecast.evaluated_at,
                                direction: change.direction(),
                                subject: Cow::Borrowed("aq"),
                                starts_at: when,
                                index: self.messages.reading(index, c.forecast, start),
                                peak_at: hour(c.peak_hours),
                                peak: self.messages.reading(
                                    index,
                                    c.peak,
                                    peak.as_ref().map(|h| &h[..]),
                                ),
                                ends_at: c.end_hours.map(hour),
                                duration: c.duration().steps(),
                                probability: uncertainty
                                    .get(usize::try_from(c.peak_hours).unwrap_or(usize::MAX))
                                    .copied()
                                    .flatten()
                                    .and_then(|sd| reach_probability(&c, sd)),
                                language: rule.spec.language(),
                            }
                        }
                        Change::Pollen(c) => {
                            let day = |d: u32| {
                                ChangeTime::Day(pollen.map_or(NaiveDate::MAX, |o| day_of(o, d)))
                            };
                            AlertDetails {
                                rule_id: rule.id,
                                evaluated_at: forecast.evaluated_at,
                                direction: change.direction(),
                                subject: Cow::Borrowed(c.kind.name()),
                                starts_at: when,
                                index: pollen_reading(c.forecast),
                                peak_at: day(c.peak_day),
                                peak: pollen_reading(c.peak),
                                ends_at: c.end_day.map(day),
                                duration: c.duration().steps(),
                                probability: None,
                                language: rule.spec.language(),
                            }
                        }
                    };
                    on_alert(&Alert {
                        point,
                        rule,
                        change,
                        when,
                        description: &description,
                        recommendation: advice::recommendation(
                            &change,
                            rule.spec.audience(),
                            rule.spec.language(),
                        ),
                        details: &details,
                        hysteresis: f64::from(self.thresholds.hysteresis(&rule.spec)),
                    });
                    count += 1;
                });
            }
        }
        count
    }
}

#[cfg(test)]
mod tests;
