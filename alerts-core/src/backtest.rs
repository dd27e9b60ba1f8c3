//! What an air-quality rule would have sent at a place over past days, so that a customer can
//! tune its sensitivity, duration and margin before switching it on.
//!
//! The rule is evaluated once an hour over the days, each time on the hours that followed as
//! they were analysed (the source's history), not on the forecasts issued then, which no source
//! here keeps: a backtest shows what the rule makes of the air that came, with a perfect
//! forecast. It counts the alerts a once-per-change rule would have sent (each episode once,
//! [`crate::repeat`]) and an every-request rule would have sent to a client posting hourly (one
//! per hour an episode was ahead), and lists the episodes.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::change::{ChangeTime, Direction};
use crate::episode::aq_episode;
use crate::evaluate::{Thresholds, episode_rule};
use crate::repeat::{Told, episode_until};
use crate::rule::{DataType, Repeat, RuleSpec};
use aq_core::{CleanlinessIndex, HourlyCi};

/// The most days a backtest covers.
pub const MAX_BACKTEST_DAYS: u32 = 7;

/// One episode the rule would have told.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BacktestEpisode {
    /// When it was first told: the evaluation hour.
    pub told_at: DateTime<Utc>,
    /// Worse or better.
    pub direction: Direction,
    /// Its first hour.
    pub starts_at: DateTime<Utc>,
    /// Its worst hour.
    pub peak_at: DateTime<Utc>,
    /// The CI then.
    pub peak: CleanlinessIndex,
    /// Its hours with values, as far as the history read.
    pub hours: u32,
}

/// What a rule would have sent over the past days.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Backtest {
    /// The hourly evaluations made: one per hour with a value.
    pub evaluations: u32,
    /// The alerts the rule would have sent with its repeat setting, posting once an hour.
    pub alerts: u32,
    /// The alerts a once-per-change rule sends: one per episode (or per materially worse peak).
    pub alerts_once: u32,
    /// The alerts an every-request rule sends to a client posting once an hour.
    pub alerts_every: u32,
    /// Each episode when first told, oldest first.
    pub episodes: Vec<BacktestEpisode>,
}

/// Evaluates `spec` (an air-quality rule) under `thresholds` once an hour over `history` (the
/// analysed hourly CI at one place, oldest first), from its first hour up to the hour before
/// the last `evaluations` allow; each evaluation reads the hours after it as its forecast.
///
/// ```
/// use alerts_core::backtest::backtest;
/// use alerts_core::evaluate::Thresholds;
/// use alerts_core::rule::{DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
/// use aq_core::{CleanlinessIndex, HourlyCi};
/// use chrono::{TimeZone, Utc};
///
/// let ci = |v| Some(CleanlinessIndex::new(v).unwrap());
/// // A day at 70 with a four-hour dip to 45 in the afternoon.
/// let values = (0..24).map(|h| if (14..18).contains(&h) { ci(45.0) } else { ci(70.0) }).collect();
/// let start = Utc.with_ymd_and_hms(2026, 5, 1, 0, 0, 0).unwrap();
/// let history = HourlyCi::covered(start, values).unwrap();
/// let spec = RuleSpec::new(DataType::Aq, Forecast::Hours(6), Sensitivity::Medium,
///     MessageSpec::Default).unwrap();
/// let result = backtest(&spec, &Thresholds::default(), &history, 18).unwrap();
/// // One dip, one episode worse, and one better as it ends (seen from inside the dip).
/// assert_eq!(result.episodes.len(), 2);
/// assert!(result.alerts_every > result.alerts_once);
/// ```
///
/// `None` for a pollen rule: pollen is daily and sources keep no daily history to replay.
#[must_use]
pub fn backtest(
    spec: &RuleSpec,
    thresholds: &Thresholds,
    history: &HourlyCi,
    evaluations: u32,
) -> Option<Backtest> {
    if spec.data_type() != DataType::Aq {
        return None;
    }
    let rule = episode_rule(spec, thresholds);
    let hysteresis = f64::from(thresholds.hysteresis(spec));
    let mut told = Told::default();
    let mut result = Backtest {
        evaluations: 0,
        alerts: 0,
        alerts_once: 0,
        alerts_every: 0,
        episodes: Vec::new(),
    };
    let count = usize::try_from(evaluations).unwrap_or(usize::MAX);
    for e in 0..history.values.len().min(count) {
        // An hour without a value is no evaluation: there was no "now" to compare with.
        if history.values[e].is_none() {
            continue;
        }
        let now = history.valid_at(u32::try_from(e).unwrap_or(u32::MAX));
        let series = HourlyCi {
            start: now,
            values: history.values[e..].to_vec(),
            provenance: history.provenance.clone(),
        };
        result.evaluations += 1;
        let Some(change) = aq_episode(&series, rule) else {
            continue;
        };
        result.alerts_every += 1;
        let starts = ChangeTime::hour_of(series.valid_at(change.hours));
        let until = episode_until(starts, change.duration().steps());
        let change = crate::change::Change::Aq(change);
        if told.tell(&change, starts, until, now, hysteresis) {
            result.alerts_once += 1;
            if let crate::change::Change::Aq(c) = change {
                result.episodes.push(BacktestEpisode {
                    told_at: now,
                    direction: c.direction(),
                    starts_at: series.valid_at(c.hours),
                    peak_at: series.valid_at(c.peak_hours),
                    peak: c.peak,
                    hours: c.duration().steps(),
                });
            }
        }
    }
    result.alerts = match spec.repeat() {
        Repeat::Once => result.alerts_once,
        Repeat::Every => result.alerts_every,
    };
    Some(result)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use proptest::prelude::*;

    use super::*;
    use crate::rule::{Forecast, MessageSpec, Persistence, Sensitivity};

    fn history(values: &[f64]) -> HourlyCi {
        HourlyCi {
            start: Utc.with_ymd_and_hms(2026, 5, 1, 0, 0, 0).unwrap(),
            values: values
                .iter()
                .map(|v| Some(CleanlinessIndex::clamped(*v)))
                .collect(),
            provenance: aq_core::Provenance::Unstated,
        }
    }

    fn spec(min_duration: u8) -> RuleSpec {
        RuleSpec::new(
            DataType::Aq,
            Forecast::Hours(12),
            Sensitivity::Medium,
            MessageSpec::Default,
        )
        .unwrap()
        .with_persistence(Persistence {
            min_duration: Some(min_duration),
            hysteresis: None,
        })
        .unwrap()
    }

    #[test]
    fn a_longer_minimum_duration_never_sends_more() {
        // Wiggles of one and two hours and one dip of five.
        let mut values = vec![70.0; 48];
        values[5] = 55.0;
        values[12] = 55.0;
        values[13] = 55.0;
        for v in &mut values[30..35] {
            *v = 50.0;
        }
        let h = history(&values);
        let counts: Vec<u32> = (1..=6)
            .map(|d| {
                backtest(&spec(d), &Thresholds::default(), &h, 40)
                    .unwrap()
                    .alerts_once
            })
            .collect();
        assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
        assert!(
            counts[0] > counts[2],
            "one-hour wiggles count only at one hour: {counts:?}"
        );
        assert!(
            counts[4] > 0,
            "the five-hour dip lasts five hours: {counts:?}"
        );
    }

    #[test]
    fn pollen_rules_are_not_backtested() {
        let pollen = RuleSpec::new(
            DataType::Pollen,
            Forecast::Days(1),
            Sensitivity::Medium,
            MessageSpec::Default,
        )
        .unwrap();
        assert!(backtest(&pollen, &Thresholds::default(), &history(&[50.0]), 1).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Once per change never sends more than every request, every episode was ahead when
        /// it was told, and flat air sends nothing.
        #[test]
        fn once_never_sends_more_than_every_and_flat_air_nothing(
            values in prop::collection::vec(0.0f64..=100.0, 1..80),
            flat in 0.0f64..=100.0,
        ) {
            let h = history(&values);
            let n = u32::try_from(values.len()).unwrap();
            let r = backtest(&spec(2), &Thresholds::default(), &h, n).unwrap();
            prop_assert!(r.alerts_once <= r.alerts_every);
            prop_assert_eq!(r.episodes.len() as u32, r.alerts_once);
            prop_assert!(r.episodes.iter().all(|e| e.starts_at > e.told_at && e.peak_at >= e.starts_at));
            let still = backtest(&spec(2), &Thresholds::default(), &history(&vec![flat; values.len()]), n).unwrap();
            prop_assert_eq!((still.alerts_once, still.alerts_every), (0, 0));
        }
    }
}
