//! What a rule's evaluation finds: a change of the air or of one pollen type, which way it
//! goes for the people at the point, and when it happens.
//!
//! These are the types that evaluating, describing, advising on and repeating a change all
//! share, so they live below every one of those modules.

use aq_core::{CleanlinessIndex, PollenLevel, PollenType};
use chrono::{DateTime, Days, DurationRound, NaiveDate, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use crate::rule::DataType;

/// Which way a change goes for the people at the point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Air worse (CI fell) or pollen up.
    Deterioration,
    /// Air better (CI rose) or pollen down.
    Improvement,
}

impl Direction {
    /// The wire name: `deterioration` or `improvement`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Deterioration => "deterioration",
            Direction::Improvement => "improvement",
        }
    }

    /// The other direction.
    #[must_use]
    pub fn opposite(self) -> Self {
        match self {
            Direction::Deterioration => Direction::Improvement,
            Direction::Improvement => Direction::Deterioration,
        }
    }
}

/// An air-quality change that tripped a rule: an episode of hours that all differ from now in
/// one direction, from its first hour to its worst and, when the hours read show it, its end
/// ([`crate::episode`] says when hours make an episode).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AqChange {
    /// Hours from now to the episode's first hour (1 or more).
    pub hours: u32,
    /// The CI now.
    pub now: CleanlinessIndex,
    /// The CI of the episode's first hour.
    pub forecast: CleanlinessIndex,
    /// Hours from now to the episode's worst hour in its direction (the first of equals).
    pub peak_hours: u32,
    /// The CI of that hour.
    pub peak: CleanlinessIndex,
    /// Hours from now to the last hour read inside the episode.
    pub last_hours: u32,
    /// Hours from now to the first hour read past the episode; `None` when the episode lasts
    /// to the end of the hours read.
    pub end_hours: Option<u32>,
}

impl AqChange {
    /// A change of one hour, `hours` from now: its own peak, its end not known. What previews
    /// and examples show.
    ///
    /// ```
    /// use alerts_core::change::AqChange;
    /// use aq_core::CleanlinessIndex;
    ///
    /// let ci = |v| CleanlinessIndex::new(v).unwrap();
    /// let change = AqChange::new(3, ci(72.0), ci(31.4));
    /// assert_eq!((change.peak_hours, change.peak), (3, ci(31.4)));
    /// assert_eq!(change.duration(), alerts_core::change::Duration::AtLeast(1));
    /// ```
    #[must_use]
    pub fn new(hours: u32, now: CleanlinessIndex, forecast: CleanlinessIndex) -> Self {
        Self {
            hours,
            now,
            forecast,
            peak_hours: hours,
            peak: forecast,
            last_hours: hours,
            end_hours: None,
        }
    }

    /// How long the episode lasts, in hours.
    #[must_use]
    pub fn duration(&self) -> Duration {
        Duration::between(self.hours, self.last_hours, self.end_hours)
    }

    /// Deterioration when the CI falls.
    #[must_use]
    pub fn direction(&self) -> Direction {
        if self.forecast.value() < self.now.value() {
            Direction::Deterioration
        } else {
            Direction::Improvement
        }
    }
}

/// A pollen change of one type that tripped a rule: an episode of days, from its first to its
/// worst and, when the days read show it, its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PollenChange {
    /// The pollen type.
    pub kind: PollenType,
    /// The episode's first day: 0 for today, 1 for tomorrow, and so on.
    pub day: u32,
    /// The level of the day compared with: yesterday's for today, today's for later days.
    pub reference: PollenLevel,
    /// The first day's level.
    pub forecast: PollenLevel,
    /// The episode's worst day in its direction (the first of equals).
    pub peak_day: u32,
    /// That day's level.
    pub peak: PollenLevel,
    /// The last day read inside the episode.
    pub last_day: u32,
    /// The first day read past the episode; `None` when it lasts to the end of the days read.
    pub end_day: Option<u32>,
}

impl PollenChange {
    /// A change of one day: its own peak, its end not known. What previews and examples show.
    ///
    /// ```
    /// use alerts_core::change::PollenChange;
    /// use aq_core::{PollenLevel, PollenType};
    ///
    /// let high = PollenLevel::new(4).unwrap();
    /// let change = PollenChange::new(PollenType::Grass, 1, PollenLevel::NONE, high);
    /// assert_eq!((change.peak_day, change.peak), (1, high));
    /// ```
    #[must_use]
    pub fn new(kind: PollenType, day: u32, reference: PollenLevel, forecast: PollenLevel) -> Self {
        Self {
            kind,
            day,
            reference,
            forecast,
            peak_day: day,
            peak: forecast,
            last_day: day,
            end_day: None,
        }
    }

    /// How long the episode lasts, in days.
    #[must_use]
    pub fn duration(&self) -> Duration {
        Duration::between(self.day, self.last_day, self.end_day)
    }

    /// Deterioration when the level rises.
    #[must_use]
    pub fn direction(&self) -> Direction {
        if self.forecast > self.reference {
            Direction::Deterioration
        } else {
            Direction::Improvement
        }
    }

    /// The size of the change in levels.
    #[must_use]
    pub fn levels(&self) -> u8 {
        self.forecast.value().abs_diff(self.reference.value())
    }
}

/// How long an episode lasts, in its steps (hours for air quality, days for pollen).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Duration {
    /// It ends within the steps read, after this many.
    Exactly(u32),
    /// It lasts at least this many steps: to the end of what was read.
    AtLeast(u32),
}

impl Duration {
    /// The duration of an episode from step `first` to step `last` read inside it, ending at
    /// step `end` when one was read past it.
    #[must_use]
    pub fn between(first: u32, last: u32, end: Option<u32>) -> Self {
        match end {
            Some(end) => Duration::Exactly(end.saturating_sub(first)),
            None => Duration::AtLeast(last.saturating_sub(first).saturating_add(1)),
        }
    }

    /// The number of steps, exact or at least.
    #[must_use]
    pub fn steps(self) -> u32 {
        match self {
            Duration::Exactly(n) | Duration::AtLeast(n) => n,
        }
    }
}

/// A change that tripped a rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "data_type", rename_all = "snake_case")]
pub enum Change {
    /// Air quality.
    Aq(AqChange),
    /// Pollen.
    Pollen(PollenChange),
}

impl Change {
    /// Which way the change goes.
    #[must_use]
    pub fn direction(&self) -> Direction {
        match self {
            Change::Aq(c) => c.direction(),
            Change::Pollen(c) => c.direction(),
        }
    }

    /// The data type, as in the NDJSON `data_type`.
    #[must_use]
    pub fn data_type(&self) -> DataType {
        match self {
            Change::Aq(_) => DataType::Aq,
            Change::Pollen(_) => DataType::Pollen,
        }
    }
}

/// When a change happens: the forecast hour (air quality) or the civil day at the point
/// (pollen). Written as RFC 3339 (`2026-05-01T11:00:00Z`) or as a date (`2026-05-01`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ChangeTime {
    /// The hour that starts at this instant.
    Hour(DateTime<Utc>),
    /// This civil date at the point.
    Day(NaiveDate),
}

impl ChangeTime {
    /// The forecast hour that contains `at`.
    ///
    /// ```
    /// use alerts_core::change::ChangeTime;
    /// use chrono::{TimeZone, Utc};
    ///
    /// let at = Utc.with_ymd_and_hms(2026, 5, 1, 11, 20, 5).unwrap();
    /// let hour = Utc.with_ymd_and_hms(2026, 5, 1, 11, 0, 0).unwrap();
    /// assert_eq!(ChangeTime::hour_of(at), ChangeTime::Hour(hour));
    /// ```
    #[must_use]
    pub fn hour_of(at: DateTime<Utc>) -> Self {
        ChangeTime::Hour(at.duration_trunc(TimeDelta::hours(1)).unwrap_or(at))
    }

    /// When the change has passed: the end of its hour, or the moment its date has ended in
    /// every time zone (the store does not know the point's zone; two days after the date's
    /// UTC midnight is past the end of it everywhere).
    ///
    /// ```
    /// use alerts_core::change::ChangeTime;
    /// use chrono::{NaiveDate, TimeZone, Utc};
    ///
    /// let hour = ChangeTime::hour_of(Utc.with_ymd_and_hms(2026, 5, 1, 11, 20, 0).unwrap());
    /// assert_eq!(hour.until(), Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap());
    /// let day = ChangeTime::Day(NaiveDate::from_ymd_opt(2026, 5, 1).unwrap());
    /// assert_eq!(day.until(), Utc.with_ymd_and_hms(2026, 5, 3, 0, 0, 0).unwrap());
    /// ```
    #[must_use]
    pub fn until(self) -> DateTime<Utc> {
        match self {
            ChangeTime::Hour(start) => start
                .checked_add_signed(TimeDelta::hours(1))
                .unwrap_or(DateTime::<Utc>::MAX_UTC),
            ChangeTime::Day(date) => date
                .checked_add_days(Days::new(2))
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .map_or(DateTime::<Utc>::MAX_UTC, |d| d.and_utc()),
        }
    }
}
