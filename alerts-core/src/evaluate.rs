//! Evaluating alert rules at points, exactly as `docs/scoring.md` says.
//!
//! - Air quality: the CI now (`values[0]` of the hourly series) against each forecast hour
//!   `1..=horizon`; the first hour whose CI differs from now by at least the threshold raises one
//!   alert, a deterioration when the CI fell and an improvement when it rose. Differences are
//!   taken on the unrounded CI.
//! - Pollen: for each type, daily levels compared like with like: today's level against
//!   yesterday's, each later day's against today's, from today (day 0) to the horizon (`today`
//!   checks day 0 only, `2d` days 0, 1 and 2); the first day with a change of at least the
//!   threshold raises one alert for that type.
//! - Missing data never raises an alert: a `None` value now (or a missing reference day) skips
//!   the rule (or the type); a `None` forecast value skips that hour (or day).
//!
//! [`Evaluator::fetch`] asks the forecast port once per data type for a whole chunk of points
//! (remote sources need batching); [`Evaluator::evaluate_chunk`] is pure and hands each alert
//! to a callback, with its description in a reused buffer, so that the NDJSON encoder can
//! stream it without the alerts ever being collected.

use aq_core::air_hour::{AVERAGING_LEAD_HOURS, window};
use aq_core::{
    ForecastSource, HourlyCi, HourlyConcentrations, PollenOutlook, PollenType, Position,
    SourceError, check_batch_len,
};
use chrono::{DateTime, Days, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::advice;
use crate::change::{AqChange, Change, ChangeTime, PollenChange};
use crate::message::{MessageConfig, write_description};
use crate::ndjson::AlertLineRef;
use crate::request::AlertPoint;
use crate::rule::{AlertRule, AqIndex, DataType, Forecast, RuleSpec, Sensitivity};

/// The thresholds on |change from now| that trip each sensitivity. Defaults from `docs/scoring.md`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
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

/// The first hour in `1..=hours` whose CI differs from the CI now by at least `threshold`.
///
/// ```
/// use alerts_core::change::Direction;
/// use alerts_core::evaluate::aq_change;
/// use aq_core::{CleanlinessIndex, HourlyCi};
///
/// let ci = |v| Some(CleanlinessIndex::new(v).unwrap());
/// let series = HourlyCi::covered(chrono::Utc::now(), vec![ci(70.0), ci(66.0), None, ci(59.5)])
///     .unwrap();
/// let change = aq_change(&series, 6, 10.0).unwrap();
/// assert_eq!((change.hours, change.direction()), (3, Direction::Deterioration));
/// assert!(aq_change(&series, 2, 10.0).is_none());
/// ```
#[must_use]
pub fn aq_change(series: &HourlyCi, hours: u32, threshold: f64) -> Option<AqChange> {
    let now = (*series.values.first()?)?;
    let last = usize::try_from(hours).unwrap_or(usize::MAX);
    series
        .values
        .iter()
        .enumerate()
        .skip(1)
        .take(last)
        .find_map(|(n, value)| {
            let forecast = (*value)?;
            let delta = (forecast.value() - now.value()).abs();
            // A zero change is never an alert, whatever the configuration says.
            (delta > 0.0 && delta >= threshold).then(|| AqChange {
                hours: u32::try_from(n).unwrap_or(u32::MAX),
                now,
                forecast,
            })
        })
}

/// For each pollen type in [`PollenType::ALL`] order, the first day in `0..=days` whose level
/// differs from its reference day's by at least `threshold` levels. The reference of today
/// (day 0) is yesterday; the reference of every later day is today, the day the reader is in.
///
/// ```
/// use alerts_core::change::Direction;
/// use alerts_core::evaluate::pollen_changes;
/// use aq_core::{PollenLevel, PollenLevels, PollenOutlook, PollenType};
///
/// let grass = |v| PollenLevels::default().with(PollenType::Grass, PollenLevel::new(v).unwrap());
/// // Yesterday Low, today Low, tomorrow High: tomorrow rises by two levels over today.
/// let today = chrono::NaiveDate::from_ymd_opt(2026, 5, 1).unwrap();
/// let outlook = PollenOutlook { today, yesterday: grass(2), days: vec![grass(2), grass(4)] };
/// let [_, change, _] = pollen_changes(&outlook, 1, 1);
/// let change = change.unwrap();
/// assert_eq!((change.day, change.levels(), change.direction()), (1, 2, Direction::Deterioration));
/// assert!(pollen_changes(&outlook, 0, 1)[1].is_none(), "today equals yesterday");
/// ```
#[must_use]
pub fn pollen_changes(
    outlook: &PollenOutlook,
    days: u32,
    threshold: u8,
) -> [Option<PollenChange>; 3] {
    let last = usize::try_from(days).unwrap_or(usize::MAX);
    PollenType::ALL.map(|kind| {
        let yesterday = outlook.yesterday.get(kind);
        let today = outlook.days.first().and_then(|d| d.get(kind));
        outlook
            .days
            .iter()
            .take(last.saturating_add(1))
            .enumerate()
            .find_map(|(day, levels)| {
                let reference = if day == 0 { yesterday } else { today }?;
                let forecast = levels.get(kind)?;
                let delta = forecast.value().abs_diff(reference.value());
                (delta > 0 && delta >= threshold).then(|| PollenChange {
                    kind,
                    day: u32::try_from(day).unwrap_or(u32::MAX),
                    reference,
                    forecast,
                })
            })
    })
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
    /// at most one for air quality, at most one per pollen type.
    pub fn changes(
        &self,
        spec: &RuleSpec,
        aq: Option<&HourlyCi>,
        pollen: Option<&PollenOutlook>,
        mut on_change: impl FnMut(Change, ChangeTime),
    ) {
        let h = horizon(spec.forecast());
        match spec.data_type() {
            DataType::Aq => {
                let Some(series) = aq else { return };
                if let Some(c) = aq_change(series, h, self.thresholds.aq(spec.sensitivity())) {
                    // The hour of the value the source used, not of now + n: a source that
                    // reads the nearest hour gives 09:00 at 08:40, and the change must keep
                    // its name on either side of the half hour.
                    on_change(Change::Aq(c), ChangeTime::hour_of(series.valid_at(c.hours)));
                }
            }
            DataType::Pollen => {
                let Some(outlook) = pollen else { return };
                let threshold = self.thresholds.pollen(spec.sensitivity());
                for c in pollen_changes(outlook, h, threshold).into_iter().flatten() {
                    let day = outlook
                        .today
                        .checked_add_days(Days::new(u64::from(c.day)))
                        .unwrap_or(NaiveDate::MAX);
                    on_change(Change::Pollen(c), ChangeTime::Day(day));
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
                .map(|r| horizon(r.spec.forecast()))
                .max()
        };
        if points.is_empty() {
            return Ok(ChunkForecast::default());
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
                Some(hours) => check_batch_len(n, source.hourly_ci(positions, now, hours).await?),
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
        let (aq, concentrations, pollen) = futures::try_join!(aq, concentrations, pollen)?;
        Ok(ChunkForecast {
            aq,
            pollen,
            concentrations,
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
            // The concentrations of the hour an air-quality change speaks of, and of the hours
            // before it.
            let air_at = |change: &Change| match change {
                Change::Aq(c) => air.zip(aq).map(|(s, series)| {
                    window(
                        s,
                        series.start + chrono::Duration::hours(i64::from(c.hours)),
                    )
                }),
                Change::Pollen(_) => None,
            };
            for rule in rules.iter().filter(|r| r.enabled) {
                self.changes(&rule.spec, aq, pollen, |change, when| {
                    description.clear();
                    let hours = air_at(&change);
                    write_description(
                        &mut description,
                        rule.spec.message(),
                        &change,
                        rule.spec.aq_index(),
                        hours.as_ref().map(|h| &h[..]),
                        &self.messages,
                    );
                    on_alert(&Alert {
                        point,
                        rule,
                        change,
                        when,
                        description: &description,
                        recommendation: advice::recommendation(&change, rule.spec.audience()),
                    });
                    count += 1;
                });
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use aq_core::PollenLevels;
    use aq_core::memory::MemoryForecast;
    use aq_core::{CleanlinessIndex, PollenLevel};

    use crate::change::Direction;
    use chrono::TimeZone;
    use proptest::prelude::*;

    use super::*;
    use crate::ids::RuleId;
    use crate::rule::MessageSpec;
    use identity_core::ids::KeyId;

    fn ci(v: f64) -> Option<CleanlinessIndex> {
        Some(CleanlinessIndex::new(v).unwrap())
    }

    fn lvl(v: u8) -> PollenLevel {
        PollenLevel::new(v).unwrap()
    }

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
    }

    fn may_day() -> chrono::NaiveDate {
        t0().date_naive()
    }

    fn series(values: Vec<Option<CleanlinessIndex>>) -> HourlyCi {
        HourlyCi {
            start: t0(),
            values,
            provenance: aq_core::Provenance::Unstated,
        }
    }

    fn rule(n: u128, dt: DataType, f: Forecast, s: Sensitivity) -> AlertRule {
        AlertRule {
            id: RuleId(uuid::Uuid::from_u128(n)),
            key_id: KeyId(uuid::Uuid::from_u128(1)),
            spec: RuleSpec::new(dt, f, s, MessageSpec::Default).unwrap(),
            enabled: true,
            created_at: t0(),
        }
    }

    fn point(id: &str, lon: f64, lat: f64) -> AlertPoint {
        AlertPoint {
            position: Position::new(lon, lat).unwrap(),
            id: id.into(),
            custom_data: "{}".into(),
        }
    }

    #[test]
    fn default_thresholds_match_scoring_md() {
        let t = Thresholds::default();
        let aq: Vec<f64> = Sensitivity::ALL.iter().map(|s| t.aq(*s)).collect();
        let pollen: Vec<u8> = Sensitivity::ALL.iter().map(|s| t.pollen(*s)).collect();
        assert_eq!(aq, [5.0, 10.0, 20.0]);
        assert_eq!(pollen, [1, 2, 3]);
    }

    #[test]
    fn aq_takes_the_first_hour_past_the_threshold() {
        let s = series(vec![ci(60.0), ci(57.0), ci(65.0), ci(40.0), ci(30.0)]);
        let c = aq_change(&s, 4, 5.0).unwrap();
        assert_eq!((c.hours, c.direction()), (2, Direction::Improvement));
        let c = aq_change(&s, 4, 10.0).unwrap();
        assert_eq!((c.hours, c.direction()), (3, Direction::Deterioration));
        assert_eq!(c.forecast, ci(40.0).unwrap());
        assert!(
            aq_change(&s, 2, 10.0).is_none(),
            "hour 3 is past a 2 hour horizon"
        );
        assert!(aq_change(&s, 96, 31.0).is_none());
    }

    #[test]
    fn aq_threshold_is_inclusive_and_ignores_hour_zero() {
        let s = series(vec![ci(50.0), ci(45.0)]);
        assert_eq!(aq_change(&s, 1, 5.0).unwrap().hours, 1);
        assert!(aq_change(&s, 1, 5.000_001).is_none());
        assert!(aq_change(&s, 0, 1.0).is_none());
    }

    #[test]
    fn aq_missing_data_never_alerts() {
        assert!(aq_change(&series(vec![None, ci(0.0)]), 1, 5.0).is_none());
        assert!(aq_change(&series(vec![]), 1, 5.0).is_none());
        let s = series(vec![ci(90.0), None, ci(10.0)]);
        assert_eq!(aq_change(&s, 2, 5.0).unwrap().hours, 2);
    }

    #[test]
    fn pollen_compares_today_with_yesterday_and_later_days_with_today() {
        let yesterday = PollenLevels::default()
            .with(PollenType::Tree, lvl(1))
            .with(PollenType::Grass, lvl(3));
        let outlook = PollenOutlook {
            today: may_day(),
            yesterday,
            days: vec![
                PollenLevels::default()
                    .with(PollenType::Tree, lvl(1))
                    .with(PollenType::Grass, lvl(4))
                    .with(PollenType::Weed, lvl(5)),
                PollenLevels::default()
                    .with(PollenType::Tree, lvl(4))
                    .with(PollenType::Grass, lvl(0)),
            ],
        };
        let [tree, grass, weed] = pollen_changes(&outlook, 1, 1);
        assert_eq!(tree.unwrap().day, 1);
        assert_eq!(tree.unwrap().levels(), 3);
        assert_eq!(grass.unwrap().day, 0, "today compares with yesterday");
        assert_eq!(grass.unwrap().direction(), Direction::Deterioration);
        assert!(
            weed.is_none(),
            "no level yesterday means no alert for today"
        );

        let [tree, grass, _] = pollen_changes(&outlook, 0, 1);
        assert!(tree.is_none(), "tomorrow is outside `today`");
        assert!(grass.is_some());

        let [tree, grass, _] = pollen_changes(&outlook, 4, 3);
        assert_eq!(tree.unwrap().day, 1);
        assert_eq!(grass.unwrap().day, 1, "tomorrow compares with today");
        assert_eq!(grass.unwrap().levels(), 4);
        assert_eq!(grass.unwrap().direction(), Direction::Improvement);
    }

    fn grass(v: u8) -> PollenLevels {
        PollenLevels::default().with(PollenType::Grass, lvl(v))
    }

    #[test]
    fn flat_daily_levels_never_alert_at_any_sensitivity_or_horizon() {
        for level in 0..=5 {
            let outlook = PollenOutlook {
                today: may_day(),
                yesterday: grass(level),
                days: vec![grass(level); 5],
            };
            for s in Sensitivity::ALL {
                let t = Thresholds::default().pollen(s);
                assert_eq!(pollen_changes(&outlook, 4, t), [None; 3], "{level} {s:?}");
            }
        }
    }

    #[test]
    fn a_rise_of_k_levels_day_over_day_gives_its_wording() {
        let ev = Evaluator::default();
        let spec = |f| RuleSpec::new(DataType::Pollen, f, Sensitivity::High, MessageSpec::Default);
        for (k, size) in [(1, "slightly"), (2, "moderately"), (3, "drastically")] {
            let today = PollenOutlook {
                today: may_day(),
                yesterday: grass(1),
                days: vec![grass(1 + k), grass(1 + k)],
            };
            let tomorrow = PollenOutlook {
                today: may_day(),
                yesterday: grass(2),
                days: vec![grass(2), grass(2 + k)],
            };
            for (outlook, forecast, when) in [
                (today, Forecast::Today, "Today"),
                (tomorrow, Forecast::Days(1), "Tomorrow"),
            ] {
                let mut text = String::new();
                ev.changes(&spec(forecast).unwrap(), None, Some(&outlook), |c, _| {
                    write_description(
                        &mut text,
                        &MessageSpec::Default,
                        &c,
                        AqIndex::Cleanliness,
                        None,
                        &ev.messages,
                    );
                });
                assert_eq!(
                    text,
                    format!("{when} grass pollen levels will {size} rise.")
                );
            }
        }
    }

    #[tokio::test]
    async fn a_chunk_costs_one_call_per_data_type_and_emits_in_order() {
        let forecast = MemoryForecast::default();
        let a = point("a", 2.35, 48.85);
        let b = point("b", 13.4, 52.5);
        let c = point("c", 0.0, 0.0); // not covered
        forecast.set_hourly(a.position, vec![ci(80.0), ci(70.0), ci(50.0)]);
        forecast.set_hourly(b.position, vec![ci(50.0), ci(52.0)]);
        forecast.set_pollen(
            b.position,
            PollenOutlook {
                today: may_day(),
                yesterday: grass(1),
                days: vec![grass(2)],
            },
        );
        let rules = vec![
            rule(1, DataType::Aq, Forecast::Hours(2), Sensitivity::Medium),
            rule(2, DataType::Pollen, Forecast::Today, Sensitivity::High),
            AlertRule {
                enabled: false,
                ..rule(3, DataType::Aq, Forecast::Hours(1), Sensitivity::High)
            },
        ];
        let points = vec![a, b, c];
        let ev = Evaluator::default();
        let fc = ev.fetch(&forecast, &rules, &points, t0()).await.unwrap();
        assert_eq!((fc.aq.len(), fc.pollen.len()), (3, 3));
        let mut lines = Vec::new();
        let n = ev.evaluate_chunk(&rules, &points, &fc, |alert| {
            lines.push(alert.line().to_owned_line());
        });
        assert_eq!(n, 2);
        assert_eq!(lines[0].id, "a");
        assert_eq!(
            lines[0].description,
            "In 1 hour the air quality is expected to be worse (70 AQI)."
        );
        assert_eq!(lines[1].id, "b");
        assert_eq!(lines[1].data_type, DataType::Pollen);
        assert_eq!(
            lines[1].description,
            "Today grass pollen levels will slightly rise."
        );
    }

    #[tokio::test]
    async fn a_us_epa_rule_shows_the_us_aqi_of_the_forecast_hour_and_the_default_the_ci() {
        use aq_core::{Concentration, Concentrations, Pollutant};
        let pm25 = |v| {
            Some(Concentrations::default().with(Pollutant::Pm25, Concentration::new(v).unwrap()))
        };
        let forecast = MemoryForecast::anchored(t0());
        let a = point("a", 2.35, 48.85);
        let b = point("b", 13.4, 52.5); // CI but no concentrations
        forecast.set_hourly(a.position, vec![ci(80.0), ci(70.0), ci(50.0)]);
        forecast.set_hourly(b.position, vec![ci(80.0), ci(70.0)]);
        // Hour 1, the hour the change speaks of: PM2.5 80 µg/m³ after 5 the hour before. The
        // NowCast weighs them (80 + 5 / 2) / 1.5 = 55.0 µg/m³: US AQI 149 in the 2024 table,
        // where the hour alone would read 168.
        forecast.set_hourly_concentrations(a.position, vec![pm25(5.0), pm25(80.0), pm25(30.0)]);
        let us = |id| AlertRule {
            spec: RuleSpec::new(
                DataType::Aq,
                Forecast::Hours(2),
                Sensitivity::Medium,
                MessageSpec::Default,
            )
            .unwrap()
            .with_aq_index(AqIndex::UsEpa),
            ..rule(id, DataType::Aq, Forecast::Hours(2), Sensitivity::Medium)
        };
        let rules = vec![
            us(1),
            rule(2, DataType::Aq, Forecast::Hours(2), Sensitivity::Medium),
        ];
        let points = vec![a, b];
        let ev = Evaluator::default();
        let fc = ev.fetch(&forecast, &rules, &points, t0()).await.unwrap();
        let mut lines = Vec::new();
        ev.evaluate_chunk(&rules, &points, &fc, |alert| {
            lines.push(alert.line().to_owned_line().description);
        });
        assert_eq!(
            lines,
            [
                "In 1 hour the air quality is expected to be worse (US AQI 149).",
                "In 1 hour the air quality is expected to be worse (70 AQI).",
                "In 1 hour the air quality is expected to be worse (US AQI not available).",
                "In 1 hour the air quality is expected to be worse (70 AQI).",
            ]
        );

        // Without a US AQI rule the concentrations are not asked for.
        let fc = ev
            .fetch(&forecast, &rules[1..], &points, t0())
            .await
            .unwrap();
        assert!(fc.concentrations.is_empty());
    }

    #[tokio::test]
    async fn each_rule_recommends_for_its_audience_the_general_one_as_before() {
        use crate::rule::Audience;
        let forecast = MemoryForecast::default();
        let a = point("a", 2.35, 48.85);
        // 80 now, 35 (Low) in an hour: worse, reaching Low.
        forecast.set_hourly(a.position, vec![ci(80.0), ci(35.0)]);
        let of = |id, audience| AlertRule {
            spec: RuleSpec::new(
                DataType::Aq,
                Forecast::Hours(1),
                Sensitivity::Medium,
                MessageSpec::Default,
            )
            .unwrap()
            .with_audience(audience),
            ..rule(id, DataType::Aq, Forecast::Hours(1), Sensitivity::Medium)
        };
        let rules = vec![of(1, Audience::General), of(2, Audience::Children)];
        let points = vec![a];
        let ev = Evaluator::default();
        let fc = ev.fetch(&forecast, &rules, &points, t0()).await.unwrap();
        let mut lines = Vec::new();
        ev.evaluate_chunk(&rules, &points, &fc, |alert| {
            lines.push(alert.line().to_owned_line());
        });
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].description, lines[1].description);
        assert_eq!(
            lines[0].recommendation,
            "Limit prolonged or heavy outdoor exertion, especially if you are sensitive to air pollution."
        );
        assert_eq!(
            lines[1].recommendation,
            "Children should avoid long or heavy outdoor exertion; move sport and active play indoors."
        );
    }

    #[tokio::test]
    async fn no_rules_of_a_type_means_no_call_for_it() {
        let forecast = MemoryForecast::default();
        let rules = vec![rule(
            1,
            DataType::Pollen,
            Forecast::Days(4),
            Sensitivity::Low,
        )];
        let points = vec![point("a", 1.0, 1.0)];
        let fc = Evaluator::default()
            .fetch(&forecast, &rules, &points, t0())
            .await
            .unwrap();
        assert!(fc.aq.is_empty());
        assert_eq!(fc.pollen, vec![None]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Alerts exactly when some hour is at or past the threshold, and at the first such hour.
        #[test]
        fn aq_alerts_iff_a_change_reaches_the_threshold(
            now in 0.0f64..=100.0,
            values in prop::collection::vec(prop::option::weighted(0.9, 0.0f64..=100.0), 0..30),
            hours in 0u32..40,
            threshold in 0.5f64..40.0,
        ) {
            let mut all = vec![ci(now)];
            all.extend(values.iter().map(|v| v.map(|v| CleanlinessIndex::new(v).unwrap())));
            let s = series(all);
            let first = values
                .iter()
                .take(hours as usize)
                .position(|v| v.is_some_and(|v| (v - now).abs() >= threshold));
            match (aq_change(&s, hours, threshold), first) {
                (None, None) => {}
                (Some(c), Some(i)) => {
                    prop_assert_eq!(c.hours as usize, i + 1);
                    prop_assert!((c.forecast.value() - now).abs() >= threshold);
                }
                (got, want) => prop_assert!(false, "got {:?}, expected hour {:?}", got, want),
            }
        }

        /// Mirroring the series around the CI now swaps the direction and keeps the hour.
        #[test]
        fn aq_deterioration_and_improvement_are_mirror_images(
            now in 20.0f64..=80.0,
            deltas in prop::collection::vec(-20.0f64..=20.0, 1..24),
            threshold in 0.5f64..20.0,
        ) {
            let up = series(std::iter::once(now).chain(deltas.iter().map(|d| now + d)).map(ci).collect());
            let down = series(std::iter::once(now).chain(deltas.iter().map(|d| now - d)).map(ci).collect());
            let h = deltas.len() as u32;
            match (aq_change(&up, h, threshold), aq_change(&down, h, threshold)) {
                (None, None) => {}
                (Some(a), Some(b)) => {
                    prop_assert_eq!(a.hours, b.hours);
                    prop_assert_eq!(a.direction(), b.direction().opposite());
                }
                (a, b) => prop_assert!(false, "{:?} vs {:?}", a, b),
            }
        }

        /// Pollen: alerts at the first day whose change from its reference day (yesterday for
        /// today, today for later days) is at least the threshold; mirrored levels swap the
        /// direction.
        #[test]
        fn pollen_alerts_iff_a_change_reaches_the_threshold(
            yesterday in 0u8..=5,
            days in prop::collection::vec(prop::option::weighted(0.9, 0u8..=5), 0..6),
            horizon in 0u32..5,
            threshold in 1u8..=5,
        ) {
            let levels = |v: Option<u8>| v.map_or_else(PollenLevels::default, |v| PollenLevels::default().with(PollenType::Weed, lvl(v)));
            let outlook = PollenOutlook { today: may_day(), yesterday: levels(Some(yesterday)), days: days.iter().map(|d| levels(*d)).collect() };
            let mirrored = PollenOutlook {
                today: may_day(),
                yesterday: levels(Some(5 - yesterday)),
                days: days.iter().map(|d| levels(d.map(|v| 5 - v))).collect(),
            };
            let today = days.first().copied().flatten();
            let first = days
                .iter()
                .take(horizon as usize + 1)
                .enumerate()
                .position(|(day, d)| {
                    let reference = if day == 0 { Some(yesterday) } else { today };
                    matches!((reference, d), (Some(r), Some(v)) if v.abs_diff(r) >= threshold)
                });
            let got = pollen_changes(&outlook, horizon, threshold)[2];
            let mirror = pollen_changes(&mirrored, horizon, threshold)[2];
            prop_assert_eq!(got.map(|c| c.day as usize), first);
            prop_assert_eq!(mirror.map(|c| c.day), got.map(|c| c.day));
            if let (Some(a), Some(b)) = (got, mirror) {
                prop_assert_eq!(a.direction(), b.direction().opposite());
                prop_assert!(a.levels() >= threshold);
            }
            prop_assert!(pollen_changes(&outlook, horizon, threshold)[0].is_none());
        }
    }
}
