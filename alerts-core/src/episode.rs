//! When forecast hours or days make a change worth telling: an episode, as `docs/scoring.md`
//! says.
//!
//! A step (an hour for air quality, a day for pollen) departs from its reference (the CI now;
//! yesterday's or today's pollen level) in a direction. An **episode** starts at the first step
//! within the horizon whose departure reaches the rule's threshold, and goes on while later
//! steps stay past the threshold less the rule's hysteresis in the same direction; it ends at
//! the first step that comes back further (or turns). A step without a value neither ends an
//! episode nor counts towards it. An episode counts only once it has held for the rule's
//! minimum duration (steps with values); to see whether one that starts late in the horizon
//! lasts, up to `min_duration - 1` steps past the horizon are read. Its **peak** is its worst
//! step in its direction (the dirtiest air or highest pollen for a deterioration, the
//! cleanest or lowest for an improvement; the first of equals). Every step of an episode is
//! measured against the reference of its first step (for pollen, a rise today is measured
//! against yesterday for as long as it lasts).
//!
//! A rule tells the first episode that counts, so one ramp or one edge crossed back and forth
//! within the hysteresis is one change, never one per hour.

use aq_core::{HourlyCi, PollenLevel, PollenOutlook, PollenType};

use crate::change::{AqChange, PollenChange};

/// One step as the episode rule sees it: how bad the air or pollen is (higher is worse: the CI
/// negated, the pollen level), how bad its reference is, and the standard deviation of the
/// difference (0 where the source gives none).
#[derive(Debug, Clone, Copy)]
struct Step {
    value: f64,
    reference: f64,
    sd: f64,
}

/// An episode found among steps: its direction (+1 worse, -1 better) and its steps.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    sign: f64,
    start: usize,
    peak: usize,
    last: usize,
    end: Option<usize>,
}

/// The settings of one search: steps `from..=last_start` may start an episode; steps are read
/// up to the end of the slice given.
#[derive(Debug, Clone, Copy)]
struct Search {
    from: usize,
    last_start: usize,
    threshold: f64,
    hysteresis: f64,
    min_steps: u32,
    confidence: f64,
}

fn first_episode(steps: &[Option<Step>], search: Search) -> Option<Span> {
    let mut s = search.from;
    while s <= search.last_start && s < steps.len() {
        let Some(step) = steps[s] else {
            s += 1;
            continue;
        };
        let departure = step.value - step.reference;
        // A zero change is never an alert, whatever the configuration says; nor is one that
        // its own uncertainty could account for.
        if departure == 0.0
            || departure.abs() < search.threshold
            || departure.abs() < search.confidence * step.sd
        {
            s += 1;
            continue;
        }
        let sign = departure.signum();
        let mut span = Span {
            sign,
            start: s,
            peak: s,
            last: s,
            end: None,
        };
        let mut held = 1u32;
        let mut peak_value = sign * step.value;
        for (k, later) in steps.iter().enumerate().skip(s + 1) {
            let Some(later) = later else { continue };
            // Against the reference the episode started from: pollen compares today with
            // yesterday and later days with today, and a rise today that stays is one
            // episode, not one day long.
            let along = sign * (later.value - step.reference);
            // Over once it comes back inside the threshold by more than the hysteresis, or
            // back to (or past) its reference whatever the hysteresis.
            if along <= 0.0 || along < search.threshold - search.hysteresis {
                span.end = Some(k);
                break;
            }
            held += 1;
            span.last = k;
            if sign * later.value > peak_value {
                peak_value = sign * later.value;
                span.peak = k;
            }
        }
        if held >= search.min_steps {
            return Some(span);
        }
        // Too short: look again from where it ended, which may start the other way.
        s = span.end.unwrap_or(steps.len());
    }
    None
}

/// The steps read for a horizon: up to `horizon + min_steps - 1`, within `len`.
fn read_len(len: usize, horizon: u32, min_steps: u32) -> usize {
    let extra = min_steps.saturating_sub(1);
    let last = usize::try_from(horizon.saturating_add(extra)).unwrap_or(usize::MAX);
    len.min(last.saturating_add(1))
}

fn step_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The rule's settings that decide episodes, in the units of the data type: CI points and
/// hours for air quality, levels and days for pollen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpisodeRule {
    /// How far ahead an episode may start (hours, or days after today).
    pub horizon: u32,
    /// The departure from the reference that starts an episode.
    pub threshold: f64,
    /// How far back inside the threshold a step must come to end it.
    pub hysteresis: f64,
    /// How many steps with values it must hold.
    pub min_duration: u32,
    /// How many standard deviations of the change (where the source gives them) its first
    /// step must exceed; 0 ignores them.
    pub confidence: f64,
}

/// The first air-quality episode of `series` under `rule`: hours `1..=horizon` may start it,
/// against the CI now (`values[0]`).
///
/// ```
/// use alerts_core::change::{Direction, Duration};
/// use alerts_core::episode::{aq_episode, EpisodeRule};
/// use aq_core::{CleanlinessIndex, HourlyCi};
///
/// let ci = |v| Some(CleanlinessIndex::new(v).unwrap());
/// let rule = EpisodeRule { horizon: 6, threshold: 10.0, hysteresis: 2.0, min_duration: 2, confidence: 1.0 };
/// // One hour at 58 is a wiggle; from 4 hours on the air stays worse for three hours, at its
/// // worst in 6 hours.
/// let values = [70.0, 58.0, 69.0, 66.0, 59.0, 52.0, 47.0, 70.0];
/// let series = HourlyCi::covered(chrono::Utc::now(), values.iter().map(|v| ci(*v)).collect())
///     .unwrap();
/// let change = aq_episode(&series, rule).unwrap();
/// assert_eq!(change.direction(), Direction::Deterioration);
/// assert_eq!((change.hours, change.peak_hours, change.end_hours), (4, 6, Some(7)));
/// assert_eq!(change.duration(), Duration::Exactly(3));
/// // Two hours at least: the one-hour dip alone is not told.
/// let short = HourlyCi::covered(chrono::Utc::now(), vec![ci(70.0), ci(58.0), ci(69.0)]).unwrap();
/// assert!(aq_episode(&short, rule).is_none());
/// ```
#[must_use]
pub fn aq_episode(series: &HourlyCi, rule: EpisodeRule) -> Option<AqChange> {
    aq_episode_within(series, &[], rule)
}

/// As [`aq_episode`], where `uncertainty[h]` is the standard deviation of hour `h`'s CI (`None`
/// or missing where the source gives none): a change must also exceed `rule.confidence`
/// standard deviations of itself to start an episode. A change ahead is read with the
/// correction held ([`aq_core::ForecastSource::hourly_ci_for_changes`]), so it shares now's
/// error: its own spread is what the hour's variance adds to now's, `√(σₕ² − σ₀²)`.
///
/// ```
/// use alerts_core::episode::{aq_episode_within, EpisodeRule};
/// use aq_core::{CleanlinessIndex, HourlyCi};
///
/// let ci = |v| Some(CleanlinessIndex::new(v).unwrap());
/// let series = HourlyCi::covered(chrono::Utc::now(), vec![ci(60.0), ci(48.0), ci(48.0)]).unwrap();
/// let rule = EpisodeRule { horizon: 2, threshold: 10.0, hysteresis: 2.0, min_duration: 2, confidence: 1.0 };
/// // 12 points worse, its hours known to within 3 where now is to within 2: an episode.
/// assert!(aq_episode_within(&series, &[Some(2.0), Some(3.0), Some(3.0)], rule).is_some());
/// // Its hours known only to within 15 (a change spread of 14.9), the same forecast is no news.
/// assert!(aq_episode_within(&series, &[Some(2.0), Some(15.0), Some(15.0)], rule).is_none());
/// ```
#[must_use]
pub fn aq_episode_within(
    series: &HourlyCi,
    uncertainty: &[Option<f64>],
    rule: EpisodeRule,
) -> Option<AqChange> {
    let now = (*series.values.first()?)?;
    let len = read_len(series.values.len(), rule.horizon, rule.min_duration);
    let sd = |h: usize| uncertainty.get(h).copied().flatten().unwrap_or(0.0);
    let steps: Vec<Option<Step>> = series.values[..len]
        .iter()
        .enumerate()
        .map(|(h, v)| {
            v.map(|ci| Step {
                value: -ci.value(),
                reference: -now.value(),
                // The spread a change ahead has beyond now's: hours read with the correction
                // held share now's error, and what they add is the variance that grows ahead.
                sd: (sd(h).powi(2) - sd(0).powi(2)).max(0.0).sqrt(),
            })
        })
        .collect();
    let span = first_episode(
        &steps,
        Search {
            from: 1,
            last_start: usize::try_from(rule.horizon).unwrap_or(usize::MAX),
            threshold: rule.threshold,
            hysteresis: rule.hysteresis,
            min_steps: rule.min_duration,
            confidence: rule.confidence,
        },
    )?;
    let at = |n: usize| series.values[n].unwrap_or(now);
    Some(AqChange {
        hours: step_u32(span.start),
        now,
        forecast: at(span.start),
        peak_hours: step_u32(span.peak),
        peak: at(span.peak),
        last_hours: step_u32(span.last),
        end_hours: span.end.map(step_u32),
    })
}

/// For each pollen type in [`PollenType::ALL`] order, the first episode of days `0..=horizon`
/// under `rule`: today against yesterday, each later day against today, the day the reader is
/// in.
///
/// ```
/// use alerts_core::change::Direction;
/// use alerts_core::episode::{pollen_episodes, EpisodeRule};
/// use aq_core::{PollenLevel, PollenLevels, PollenOutlook, PollenType};
///
/// let grass = |v| PollenLevels::default().with(PollenType::Grass, PollenLevel::new(v).unwrap());
/// // Yesterday Low, today Low, tomorrow High, then Very high.
/// let today = chrono::NaiveDate::from_ymd_opt(2026, 5, 1).unwrap();
/// let outlook = PollenOutlook {
///     today,
///     yesterday: grass(2),
///     days: vec![grass(2), grass(4), grass(5)],
/// };
/// let rule = EpisodeRule { horizon: 1, threshold: 1.0, hysteresis: 0.0, min_duration: 1, confidence: 1.0 };
/// let [_, change, _] = pollen_episodes(&outlook, rule);
/// let change = change.unwrap();
/// assert_eq!((change.day, change.direction()), (1, Direction::Deterioration));
/// // Its worst day is read as far as the horizon: tomorrow, at High.
/// assert_eq!((change.peak_day, change.peak.value()), (1, 4));
/// ```
#[must_use]
pub fn pollen_episodes(outlook: &PollenOutlook, rule: EpisodeRule) -> [Option<PollenChange>; 3] {
    let len = read_len(outlook.days.len(), rule.horizon, rule.min_duration);
    PollenType::ALL.map(|kind| {
        let yesterday = outlook.yesterday.get(kind);
        let today = outlook.days.first().and_then(|d| d.get(kind));
        let reference = |day: usize| if day == 0 { yesterday } else { today };
        let steps: Vec<Option<Step>> = outlook.days[..len]
            .iter()
            .enumerate()
            .map(|(day, levels)| {
                let (level, reference) = (levels.get(kind)?, reference(day)?);
                Some(Step {
                    value: f64::from(level.value()),
                    reference: f64::from(reference.value()),
                    sd: 0.0,
                })
            })
            .collect();
        let span = first_episode(
            &steps,
            Search {
                from: 0,
                last_start: usize::try_from(rule.horizon).unwrap_or(usize::MAX),
                threshold: rule.threshold,
                hysteresis: rule.hysteresis,
                min_steps: rule.min_duration,
                confidence: rule.confidence,
            },
        )?;
        let level = |day: usize| outlook.days[day].get(kind).unwrap_or(PollenLevel::NONE);
        Some(PollenChange {
            kind,
            day: step_u32(span.start),
            reference: reference(span.start)?,
            forecast: level(span.start),
            peak_day: step_u32(span.peak),
            peak: level(span.peak),
            last_day: step_u32(span.last),
            end_day: span.end.map(step_u32),
        })
    })
}

#[cfg(test)]
mod tests;
