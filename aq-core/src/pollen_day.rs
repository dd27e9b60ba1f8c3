//! A civil day's pollen at a place: per type, the daily mean of the hourly counts and the
//! level it reaches.
//!
//! The NAB count categories behind [`GrainThresholds`] are defined on daily (24-hour) mean
//! counts, the figure a volumetric trap reports, so every source that has hourly counts turns
//! a day into one number the same way: the mean of the counts of the day's hours, then its
//! level. A type whose counts cover fewer than three quarters of the day's hours has no value
//! that day (the completeness the EU air-quality directive asks of a daily mean:
//! Directive 2008/50/EC, Annex XI, "at least 18 hourly values"), so a forecast that ends
//! part-way through a day never produces a misleading day.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::pollen::{GrainThresholds, PollenLevel, PollenLevels, PollenType};

/// One pollen type on one day.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PollenTypeDay {
    /// The level of the daily mean.
    pub level: PollenLevel,
    /// The daily mean count in grains/m³, when the source gives counts (a source that only
    /// gives levels leaves it out).
    pub mean_grains_m3: Option<f64>,
}

/// The pollen of one civil day at one place.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PollenDay {
    /// The civil date at the place.
    pub date: NaiveDate,
    types: [Option<PollenTypeDay>; 3],
}

impl PollenDay {
    /// A day with no type known.
    #[must_use]
    pub fn new(date: NaiveDate) -> Self {
        Self {
            date,
            types: [None; 3],
        }
    }

    /// A day from levels alone, for sources that give no counts.
    #[must_use]
    pub fn from_levels(date: NaiveDate, levels: &PollenLevels) -> Self {
        let mut day = Self::new(date);
        for kind in PollenType::ALL {
            if let Some(level) = levels.get(kind) {
                day.set(
                    kind,
                    PollenTypeDay {
                        level,
                        mean_grains_m3: None,
                    },
                );
            }
        }
        day
    }

    /// The value of `kind`, if known.
    #[must_use]
    pub fn get(&self, kind: PollenType) -> Option<PollenTypeDay> {
        self.types[kind as usize]
    }

    /// Records the value of `kind`.
    pub fn set(&mut self, kind: PollenType, value: PollenTypeDay) {
        self.types[kind as usize] = Some(value);
    }

    /// The levels alone, as alerts compare them.
    #[must_use]
    pub fn levels(&self) -> PollenLevels {
        let mut levels = PollenLevels::default();
        for kind in PollenType::ALL {
            if let Some(v) = self.get(kind) {
                levels.set(kind, v.level);
            }
        }
        levels
    }
}

/// Sums and counts one day's hourly pollen counts, per type.
///
/// ```
/// use aq_core::pollen_day::DailyPollenMean;
/// use aq_core::{GrainThresholds, PollenType};
/// use chrono::NaiveDate;
///
/// let mut mean = DailyPollenMean::default();
/// for hour in 0..24 {
///     // Grass: 2 grains/m³ at night, 40 in the six middle hours of the day.
///     let grass = if (9..15).contains(&hour) { 40.0 } else { 2.0 };
///     mean.add_hour([None, Some(grass), None]);
/// }
/// let date = NaiveDate::from_ymd_opt(2026, 6, 10).unwrap();
/// let day = mean.day(date, &GrainThresholds::default());
/// let grass = day.get(PollenType::Grass).unwrap();
/// assert_eq!(grass.mean_grains_m3, Some(11.5));
/// assert_eq!(grass.level.name(), "Moderate");
/// assert!(day.get(PollenType::Tree).is_none());
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct DailyPollenMean {
    sum: [f64; 3],
    present: [u32; 3],
    hours: u32,
}

impl DailyPollenMean {
    /// Adds one hour of the day: the counts of tree, grass and weed pollen in grains/m³,
    /// `None` where not measured. An hour counts towards the day's length either way.
    pub fn add_hour(&mut self, counts: [Option<f64>; 3]) {
        self.hours += 1;
        for (i, count) in counts.into_iter().enumerate() {
            if let Some(c) = count.filter(|c| c.is_finite() && *c >= 0.0) {
                self.sum[i] += c;
                self.present[i] += 1;
            }
        }
    }

    /// Whether any hour had any count.
    #[must_use]
    pub fn any(&self) -> bool {
        self.present.iter().any(|&n| n > 0)
    }

    /// The day: each type whose counts cover at least three quarters of its hours.
    #[must_use]
    pub fn day(&self, date: NaiveDate, thresholds: &GrainThresholds) -> PollenDay {
        let mut day = PollenDay::new(date);
        for (i, kind) in PollenType::ALL.into_iter().enumerate() {
            let n = self.present[i];
            if n == 0 || 4 * n < 3 * self.hours {
                continue;
            }
            let mean = self.sum[i] / f64::from(n);
            if let Ok(level) = thresholds.level(kind, mean) {
                day.set(
                    kind,
                    PollenTypeDay {
                        level,
                        mean_grains_m3: Some(mean),
                    },
                );
            }
        }
        day
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_needs_three_quarters_of_its_hours() {
        let date = NaiveDate::from_ymd_opt(2026, 6, 10).unwrap();
        let mut mean = DailyPollenMean::default();
        for hour in 0..24 {
            mean.add_hour([
                (hour < 18).then_some(30.0),
                (hour < 17).then_some(30.0),
                None,
            ]);
        }
        let day = mean.day(date, &GrainThresholds::default());
        assert_eq!(
            day.get(PollenType::Tree).unwrap().mean_grains_m3,
            Some(30.0)
        );
        assert!(day.get(PollenType::Grass).is_none(), "17 of 24 hours");
        assert_eq!(day.levels().get(PollenType::Tree).unwrap().value(), 3);
    }

    #[test]
    fn levels_round_trip() {
        let date = NaiveDate::from_ymd_opt(2026, 6, 10).unwrap();
        let levels = PollenLevels::default().with(PollenType::Weed, PollenLevel::VERY_HIGH);
        let day = PollenDay::from_levels(date, &levels);
        assert_eq!(day.levels(), levels);
        assert_eq!(day.get(PollenType::Weed).unwrap().mean_grains_m3, None);
    }
}
