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

/// An air-quality change that tripped a rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AqChange {
    /// Hours from now (1 or more).
    pub hours: u32,
    /// The CI now.
    pub now: CleanlinessIndex,
    /// The CI forecast `hours` from now.
    pub forecast: CleanlinessIndex,
}

impl AqChange {
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

/// A pollen change of one type that tripped a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PollenChange {
    /// The pollen type.
    pub kind: PollenType,
    /// 0 for today, 1 for tomorrow, and so on.
    pub day: u32,
    /// The level of the day compared with: yesterday's for today, today's for later days.
    pub reference: PollenLevel,
    /// That day's level.
    pub forecast: PollenLevel,
}

impl PollenChange {
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
/// (pollen).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
