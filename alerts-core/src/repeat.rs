//! Once per episode: when two alerts tell the same change, and the filter that leaves out what
//! a point id was told already.
//!
//! A rule whose repeat is [`Repeat::Once`] tells each episode ([`crate::episode`]) once per
//! point id. What was told is kept per rule, point id and subject (air quality, or one pollen
//! type): the episode's direction, its peak, and when it ends (`until`: the first hour or day
//! past it, or the end of the forecast read when it lasts beyond). While that record holds, an
//! alert of the same slot is the same episode, and is left out, unless
//!
//! - it goes the other way (the forecast turned), or
//! - its peak reaches a category beyond the told one's (worse air or more pollen for a
//!   deterioration, cleaner or less for an improvement) by more than the rule's hysteresis, so
//!   a peak hovering on a category's edge is not news each time it crosses it.
//!
//! A left-out alert of a running episode moves the record's `until` to the episode's newest
//! end, so an episode that the forecast stretches stays one episode; the told peak is kept,
//! so that a peak creeping worse hour by hour is told once it has crept past the margin. Once
//! `until` has passed the episode is over, and the next one is news. So a ramp whose first hour
//! past the threshold moves at each evaluation, or a value flapping across a line, is one
//! alert.

use std::collections::HashMap;

use aq_core::{CiCategory, CleanlinessIndex};
use chrono::{DateTime, Days, TimeDelta, Utc};

use crate::change::{Change, ChangeTime, Direction};
use crate::evaluate::Alert;
use crate::ids::RuleId;
use crate::ports::SentChange;
use crate::rule::Repeat;

/// What changes: `aq`, or the pollen type's name.
#[must_use]
pub fn subject(change: &Change) -> &'static str {
    match change {
        Change::Aq(_) => "aq",
        Change::Pollen(c) => c.kind.name(),
    }
}

/// The record of a told episode: its direction and its peak (the CI, or the pollen level).
///
/// ```
/// use alerts_core::change::{AqChange, Change};
/// use alerts_core::repeat::mark;
/// use aq_core::{CiCategory, CleanlinessIndex};
///
/// let ci = |v| CleanlinessIndex::new(v).unwrap();
/// let change = Change::Aq(AqChange { peak: ci(17.5), ..AqChange::new(3, ci(72.0), ci(31.4)) });
/// assert_eq!(mark(&change), "deterioration 17.5");
/// ```
#[must_use]
pub fn mark(change: &Change) -> String {
    let peak = match change {
        Change::Aq(c) => c.peak.value(),
        Change::Pollen(c) => f64::from(c.peak.value()),
    };
    format!("{} {peak}", change.direction().as_str())
}

/// A told record's direction and peak; `None` for a record in another form (one written before
/// episodes, which then counts as a different change and is told again once).
fn parse_mark(mark: &str) -> Option<(Direction, f64)> {
    let (direction, peak) = mark.split_once(' ')?;
    let direction = match direction {
        "deterioration" => Direction::Deterioration,
        "improvement" => Direction::Improvement,
        _ => return None,
    };
    Some((
        direction,
        peak.parse().ok().filter(|v: &f64| v.is_finite())?,
    ))
}

/// Whether `change` is the episode a record of direction and peak `told` tells: the same
/// direction, and a peak no further than the told one's category by more than `hysteresis`
/// (CI points or levels).
fn same_episode(told: (Direction, f64), change: &Change, hysteresis: f64) -> bool {
    let (direction, told_peak) = told;
    if direction != change.direction() {
        return false;
    }
    let beyond = match change {
        // The new peak pulled back towards the told one by the margin: still in a category
        // beyond the told one's, it is news.
        Change::Aq(c) => {
            let told = CleanlinessIndex::clamped(told_peak).category();
            match direction {
                // The floor is a single value, so no margin could pull a peak off it: reaching
                // it is always news.
                Direction::Deterioration if c.peak.category() == CiCategory::ExtremelyPoor => {
                    told != CiCategory::ExtremelyPoor
                }
                Direction::Deterioration => {
                    CleanlinessIndex::clamped(c.peak.value() + hysteresis).category() < told
                }
                Direction::Improvement => {
                    CleanlinessIndex::clamped(c.peak.value() - hysteresis).category() > told
                }
            }
        }
        Change::Pollen(c) => {
            let peak = f64::from(c.peak.value());
            match direction {
                Direction::Deterioration => peak - hysteresis > told_peak,
                Direction::Improvement => peak + hysteresis < told_peak,
            }
        }
    };
    !beyond
}

/// When the episode `alert` tells is over: the start of its first hour past it, or the end of
/// the last hour (or day at the point) of the forecast read.
#[must_use]
pub fn until(alert: &Alert<'_>) -> DateTime<Utc> {
    episode_until(alert.when, alert.details.duration)
}

/// When an episode that starts at `starts` and lasts `steps` hours (or days) is over.
///
/// ```
/// use alerts_core::change::ChangeTime;
/// use alerts_core::repeat::episode_until;
/// use chrono::{NaiveDate, TimeZone, Utc};
///
/// let at = ChangeTime::hour_of(Utc.with_ymd_and_hms(2026, 5, 1, 11, 0, 0).unwrap());
/// assert_eq!(episode_until(at, 3), Utc.with_ymd_and_hms(2026, 5, 1, 14, 0, 0).unwrap());
/// // Two days of pollen from 1 May: over once 2 May has ended everywhere.
/// let day = ChangeTime::Day(NaiveDate::from_ymd_opt(2026, 5, 1).unwrap());
/// assert_eq!(episode_until(day, 2), Utc.with_ymd_and_hms(2026, 5, 4, 0, 0, 0).unwrap());
/// ```
#[must_use]
pub fn episode_until(starts: ChangeTime, steps: u32) -> DateTime<Utc> {
    match starts {
        ChangeTime::Hour(start) => start
            .checked_add_signed(TimeDelta::hours(i64::from(steps)))
            .unwrap_or(DateTime::<Utc>::MAX_UTC),
        ChangeTime::Day(first) => first
            .checked_add_days(Days::new(u64::from(steps.saturating_sub(1))))
            .map_or(DateTime::<Utc>::MAX_UTC, |last| {
                ChangeTime::Day(last).until()
            }),
    }
}

/// How a change compares with what its slot was told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Not told yet, told something else, or told an episode that is over: tell it.
    News,
    /// The episode told, still running; its end moved later when `later_end`.
    Same { later_end: bool },
}

/// The verdict on `change`, which starts at `starts` and ends by `until`, for a slot told
/// `told` (its record: mark and end; the caller leaves out records already over). A change
/// that starts once the told episode is over is a new episode, whatever its peak.
fn verdict(
    told: Option<(&str, DateTime<Utc>)>,
    change: &Change,
    starts: ChangeTime,
    until: DateTime<Utc>,
    hysteresis: f64,
) -> Verdict {
    match told {
        Some((mark, told_until))
            if !starts_after(starts, told_until)
                && parse_mark(mark).is_some_and(|t| same_episode(t, change, hysteresis)) =>
        {
            Verdict::Same {
                later_end: until > told_until,
            }
        }
        _ => Verdict::News,
    }
}

/// Whether a change starting at `starts` starts after an episode over at `until`: its hour at
/// or after `until`; its day after the told episode's last day (whose end in every time zone
/// `until` is, a day after that day's own end).
fn starts_after(starts: ChangeTime, until: DateTime<Utc>) -> bool {
    match starts {
        ChangeTime::Hour(t) => t >= until,
        ChangeTime::Day(d) => d
            .and_hms_opt(0, 0, 0)
            .map(|midnight| midnight.and_utc() + TimeDelta::days(1))
            .is_some_and(|next| next >= until),
    }
}

/// What one slot (a rule, a point id, a subject) was told: the once-per-change rule for a
/// caller that keeps its own record, such as a backtest.
///
/// ```
/// use alerts_core::change::{AqChange, Change, ChangeTime};
/// use alerts_core::repeat::Told;
/// use aq_core::{CiCategory, CleanlinessIndex};
/// use chrono::{Duration, TimeZone, Utc};
///
/// let ci = |v| CleanlinessIndex::new(v).unwrap();
/// let now = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
/// let worse = Change::Aq(AqChange::new(2, ci(70.0), ci(55.0)));
/// let at = |h| ChangeTime::Hour(now + Duration::hours(h));
/// let mut told = Told::default();
/// assert!(told.tell(&worse, at(2), now + Duration::hours(5), now, 2.0));
/// assert!(!told.tell(&worse, at(2), now + Duration::hours(5), now + Duration::hours(1), 2.0));
/// // A change that starts after the told one ends is a new one.
/// assert!(told.tell(&worse, at(5), now + Duration::hours(8), now + Duration::hours(1), 2.0));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Told {
    record: Option<(String, DateTime<Utc>)>,
}

impl Told {
    /// Whether `change`, which starts at `starts` and ends by `until`, is news at `now` under
    /// `hysteresis` (CI points or levels); records it when it is, or the later end of the
    /// episode told when it is not.
    pub fn tell(
        &mut self,
        change: &Change,
        starts: ChangeTime,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        hysteresis: f64,
    ) -> bool {
        let running = self
            .record
            .as_ref()
            .filter(|(_, end)| *end > now)
            .map(|(mark, end)| (mark.as_str(), *end));
        match verdict(running, change, starts, until, hysteresis) {
            Verdict::News => {
                self.record = Some((mark(change), until));
                true
            }
            Verdict::Same { later_end } => {
                if later_end && let Some((_, end)) = &mut self.record {
                    *end = until;
                }
                false
            }
        }
    }
}

/// The episode `alert` tells, as a store keeps it.
#[must_use]
pub fn sent_change(alert: &Alert<'_>) -> SentChange {
    SentChange {
        rule_id: alert.rule.id,
        point_id: alert.point.id.clone(),
        subject: subject(&alert.change).to_owned(),
        mark: mark(&alert.change),
        until: until(alert),
    }
}

/// The filter of one chunk of points: what earlier requests told these point ids, and what
/// this chunk tells.
///
/// ```
/// use alerts_core::repeat::OnceFilter;
///
/// let filter = OnceFilter::new(Vec::new());
/// assert!(filter.told().is_empty());
/// ```
#[derive(Debug, Default)]
pub struct OnceFilter {
    before: HashMap<(RuleId, String, String), (String, DateTime<Utc>)>,
    told: Vec<SentChange>,
}

impl OnceFilter {
    /// A filter that knows `before`, the changes [`crate::ports::SentChanges::sent_changes`]
    /// gave for the chunk's point ids.
    #[must_use]
    pub fn new(before: Vec<SentChange>) -> Self {
        Self {
            before: before
                .into_iter()
                .map(|c| ((c.rule_id, c.point_id, c.subject), (c.mark, c.until)))
                .collect(),
            told: Vec::new(),
        }
    }

    /// Whether `alert` goes into the file. An alert of a rule that repeats every request always
    /// does; one of a once-per-change rule does unless its point id was told the same episode,
    /// and is then recorded as told. A left-out alert whose episode now ends later records the
    /// later end under the told peak.
    pub fn admit(&mut self, alert: &Alert<'_>) -> bool {
        if alert.rule.spec.repeat() == Repeat::Every {
            return true;
        }
        let change = sent_change(alert);
        let slot = (
            change.rule_id,
            change.point_id.clone(),
            change.subject.clone(),
        );
        let hysteresis = alert.hysteresis;
        let before = self.before.get(&slot);
        match verdict(
            before.map(|(mark, end)| (mark.as_str(), *end)),
            &alert.change,
            alert.when,
            change.until,
            hysteresis,
        ) {
            Verdict::News => {
                self.told.push(change);
                true
            }
            Verdict::Same { later_end } => {
                if later_end && let Some((told_mark, _)) = before {
                    self.told.push(SentChange {
                        mark: told_mark.clone(),
                        ..change
                    });
                }
                false
            }
        }
    }

    /// The changes admitted so far for once-per-change rules, and the later ends of episodes
    /// told before, for [`crate::ports::SentChanges::record_sent`].
    #[must_use]
    pub fn told(&self) -> &[SentChange] {
        &self.told
    }
}

#[cfg(test)]
mod tests;
