//! Once per change: when two alerts tell the same change, and the filter that leaves out what
//! a point id was told already.
//!
//! A rule whose repeat is [`Repeat::Once`] tells each change once per point id. Two alerts of
//! the same rule and point id, and the same subject (air quality, or one pollen type), tell the
//! same change when they agree on
//!
//! - the direction (a deterioration is never the same change as an improvement: the forecast
//!   turned),
//! - when it happens: the forecast hour for air quality, the point's civil day for pollen, and
//! - the category the change reaches (the CI category, or the pollen level).
//!
//! So a change is told again when the forecast turns, reaches another category, or moves to
//! another hour or day; and once its hour or day has passed it can never be the same change
//! again. A forecast that goes quiet and comes back with the same change does not repeat it:
//! the reader was told of that change and nothing says it was called off.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::change::{Change, ChangeTime};
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

/// The text that two alerts of one rule, point id and subject share exactly when they tell the
/// same change: direction, time and category reached.
///
/// ```
/// use alerts_core::change::{AqChange, Change};
/// use alerts_core::change::ChangeTime;
/// use alerts_core::repeat::mark;
/// use aq_core::CleanlinessIndex;
/// use chrono::{TimeZone, Utc};
///
/// let ci = |v| CleanlinessIndex::new(v).unwrap();
/// let change = Change::Aq(AqChange { hours: 3, now: ci(72.0), forecast: ci(31.4) });
/// let at = ChangeTime::hour_of(Utc.with_ymd_and_hms(2026, 5, 1, 11, 20, 0).unwrap());
/// assert_eq!(mark(&change, at), "deterioration 2026-05-01T11:00:00Z Low");
/// ```
#[must_use]
pub fn mark(change: &Change, when: ChangeTime) -> String {
    let mut text = String::with_capacity(48);
    text.push_str(change.direction().as_str());
    // Writing to a String cannot fail.
    let _ = match when {
        ChangeTime::Hour(at) => write!(text, " {}", at.format("%Y-%m-%dT%H:%M:%SZ")),
        ChangeTime::Day(date) => write!(text, " {date}"),
    };
    text.push(' ');
    text.push_str(match change {
        Change::Aq(c) => c.forecast.category().name(),
        Change::Pollen(c) => c.forecast.name(),
    });
    text
}

/// The change `alert` tells, as a store keeps it.
#[must_use]
pub fn sent_change(alert: &Alert<'_>) -> SentChange {
    SentChange {
        rule_id: alert.rule.id,
        point_id: alert.point.id.clone(),
        subject: subject(&alert.change).to_owned(),
        mark: mark(&alert.change, alert.when),
        until: alert.when.until(),
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
    before: HashMap<(RuleId, String, String), String>,
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
                .map(|c| ((c.rule_id, c.point_id, c.subject), c.mark))
                .collect(),
            told: Vec::new(),
        }
    }

    /// Whether `alert` goes into the file. An alert of a rule that repeats every request always
    /// does; one of a once-per-change rule does unless its point id was told the same change,
    /// and is then recorded as told.
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
        if self.before.get(&slot) == Some(&change.mark) {
            return false;
        }
        self.told.push(change);
        true
    }

    /// The changes admitted so far for once-per-change rules, for
    /// [`crate::ports::SentChanges::record_sent`].
    #[must_use]
    pub fn told(&self) -> &[SentChange] {
        &self.told
    }
}

#[cfg(test)]
mod tests {
    use aq_core::{CleanlinessIndex, PollenLevel, PollenType};
    use chrono::{NaiveDate, TimeZone, Utc};
    use proptest::prelude::*;

    use super::*;
    use crate::change::{AqChange, PollenChange};

    fn aq(now: f64, forecast: f64) -> Change {
        Change::Aq(AqChange {
            hours: 2,
            now: CleanlinessIndex::new(now).unwrap(),
            forecast: CleanlinessIndex::new(forecast).unwrap(),
        })
    }

    fn grass(day: u32, reference: u8, forecast: u8) -> Change {
        Change::Pollen(PollenChange {
            kind: PollenType::Grass,
            day,
            reference: PollenLevel::new(reference).unwrap(),
            forecast: PollenLevel::new(forecast).unwrap(),
        })
    }

    fn may(day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 5, day).unwrap()
    }

    #[test]
    fn tomorrows_pollen_change_is_the_same_change_as_todays_the_next_day() {
        // Told on 1 May of 2 May (day 1); on 2 May the same rise is day 0.
        let told = mark(&grass(1, 2, 4), ChangeTime::Day(may(2)));
        assert_eq!(told, "deterioration 2026-05-02 High");
        assert_eq!(mark(&grass(0, 2, 4), ChangeTime::Day(may(2))), told);
        assert_ne!(mark(&grass(1, 2, 4), ChangeTime::Day(may(3))), told);
        assert_eq!(subject(&grass(0, 2, 4)), "grass");
        assert_eq!(subject(&aq(70.0, 50.0)), "aq");
    }

    proptest! {
        /// Two air-quality changes share a mark exactly when they agree on direction, hour and
        /// category reached.
        #[test]
        fn marks_agree_exactly_when_direction_hour_and_category_do(
            now in 0.0..=100.0f64,
            a in 0.0..=100.0f64,
            b in 0.0..=100.0f64,
            minute_a in 0u32..180,
            minute_b in 0u32..180,
        ) {
            prop_assume!(a != now && b != now);
            let start = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
            let at = |m: u32| ChangeTime::hour_of(start + chrono::Duration::minutes(i64::from(m)));
            let (x, y) = (aq(now, a), aq(now, b));
            let same = x.direction() == y.direction()
                && minute_a / 60 == minute_b / 60
                && CleanlinessIndex::new(a).unwrap().category()
                    == CleanlinessIndex::new(b).unwrap().category();
            prop_assert_eq!(mark(&x, at(minute_a)) == mark(&y, at(minute_b)), same);
        }
    }
}
