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
//!
//! The days are the place's civil days ([`CivilDays`]), and [`daily_means`] is where every
//! source with hourly counts turns them into days, so that a day means the same whatever the
//! source.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::civil::CivilDays;
use crate::pollen::{GrainThresholds, PollenLevel, PollenLevels, PollenType};
use crate::provenance::Provenance;

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

    /// Whether no type is known: a day the source has nothing for.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.types.iter().all(Option::is_none)
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
    // Inlined into the sources' crates, which add every hour of every position of a batch.
    #[inline]
    pub fn add_hour(&mut self, counts: [Option<f64>; 3]) {
        self.hours += 1;
        for (i, count) in counts.into_iter().enumerate() {
            if let Some(c) = usable(count) {
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

/// A count the mean takes: finite and not negative.
// Inlined with `daily_means` into the sources' crates, for every hour of every position.
#[inline]
fn usable(count: Option<f64>) -> Option<f64> {
    count.filter(|c| c.is_finite() && *c >= 0.0)
}

/// The pollen of consecutive civil days at one place as a source answers them, with where the
/// values come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PollenDays {
    /// One per civil day asked, in order; a day the source has nothing for has no type.
    pub days: Vec<PollenDay>,
    /// Where the values of the days that have any come from. [`Provenance::Unstated`] unless
    /// the source says.
    #[serde(default)]
    pub provenance: Provenance,
}

impl PollenDays {
    /// The days, their provenance unstated.
    #[must_use]
    pub fn new(days: Vec<PollenDay>) -> Self {
        Self {
            days,
            provenance: Provenance::Unstated,
        }
    }

    /// The days with `provenance` stated.
    #[must_use]
    pub fn with_provenance(self, provenance: Provenance) -> Self {
        Self { provenance, ..self }
    }
}

/// Days of pollen from hourly counts ([`daily_means`]), and what the source noted of the hours
/// behind them.
#[derive(Debug, Clone, PartialEq)]
pub struct DailyMeans<T> {
    /// One per civil day, in order.
    pub days: Vec<PollenDay>,
    /// The notes of the hours behind the days' values: every hour with a count of a type that
    /// has a value that day, in order. What a source states its provenance from, since an hour
    /// of a day left without a value (too few hours) is behind nothing answered.
    pub behind: Vec<T>,
}

/// Each of `civil`'s days from the counts `hourly` gives at each of its whole UTC hours
/// (seconds since the epoch): tree, grass and weed in grains/m³, `None` where the source has
/// none, beside a note of the source's own about the hour (where its counts come from; `()`
/// when it has nothing to say). Each type's value of a day is the level of its daily mean
/// ([`DailyPollenMean`]). `None` (not covered) when no hour of any day has a count.
///
/// `hourly` is called once for each hour, in order.
///
/// ```
/// use aq_core::civil::CivilDays;
/// use aq_core::pollen_day::daily_means;
/// use aq_core::{GrainThresholds, PollenType, Position};
/// use chrono::{TimeZone, Utc};
///
/// // Berlin, two days from noon on 10 June 2026; the forecast holds grass until 06:00 UTC on
/// // 11 June: 32 hours of 40 grains/m³ from 22:00 UTC on 9 June, the start of 10 June there.
/// let berlin = Position::new(13.405, 52.52).unwrap();
/// let at = Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap();
/// let end = Utc.with_ymd_and_hms(2026, 6, 11, 6, 0, 0).unwrap().timestamp();
/// let days = CivilDays::from_today(berlin, at, 2);
/// let means = daily_means(&days, &GrainThresholds::default(), |t| {
///     ([None, (t < end).then_some(40.0), None], t)
/// })
/// .unwrap();
/// let today = means.days[0].get(PollenType::Grass).unwrap();
/// assert_eq!(today.mean_grains_m3, Some(40.0));
/// assert_eq!(today.level.name(), "High");
/// // Eight hours of 11 June are not a day: it has no value, and its hours are behind nothing.
/// assert!(means.days[1].is_empty());
/// assert_eq!(means.behind.len(), 24);
/// // The last hour behind a value: 21:00 UTC, the last hour of 10 June in Berlin.
/// assert_eq!(*means.behind.last().unwrap(), end - 9 * 3600);
/// ```
pub fn daily_means<T>(
    civil: &CivilDays,
    thresholds: &GrainThresholds,
    mut hourly: impl FnMut(i64) -> ([Option<f64>; 3], T),
) -> Option<DailyMeans<T>> {
    let mut seen = false;
    let mut days = Vec::with_capacity(civil.len());
    let mut behind = Vec::new();
    // The hours of the day being read: which types each has a count of, and its note.
    let mut hours: Vec<([bool; 3], T)> = Vec::new();
    for k in 0..civil.len() {
        let mut mean = DailyPollenMean::default();
        for t in civil.hours(k) {
            let (counts, note) = hourly(t);
            let counts = counts.map(usable);
            mean.add_hour(counts);
            hours.push((counts.map(|c| c.is_some()), note));
        }
        seen |= mean.any();
        let day = mean.day(civil.date(k), thresholds);
        behind.extend(hours.drain(..).filter_map(|(counted, note)| {
            PollenType::ALL
                .into_iter()
                .zip(counted)
                .any(|(kind, counted)| counted && day.get(kind).is_some())
                .then_some(note)
        }));
        days.push(day);
    }
    seen.then_some(DailyMeans { days, behind })
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::{PollenOutlook, Position};

    fn grass(count: f64) -> ([Option<f64>; 3], ()) {
        ([None, Some(count), None], ())
    }

    fn level(o: &PollenLevels) -> Option<u8> {
        o.get(PollenType::Grass).map(|l| l.value())
    }

    /// The outlook of `civil` (yesterday first) from `hourly`.
    fn outlook(
        civil: &CivilDays,
        hourly: impl FnMut(i64) -> ([Option<f64>; 3], ()),
    ) -> Option<PollenOutlook> {
        let means = daily_means(civil, &GrainThresholds::default(), hourly)?;
        PollenOutlook::from_days(&means.days)
    }

    #[test]
    fn a_strong_daily_cycle_with_flat_days_gives_equal_levels_from_any_hour() {
        // Madrid, grass in season: 2 grains/m³ at night, 40 at midday, every day alike. The
        // hourly values run from Very low to High; the daily mean (about 15) is Moderate on
        // every day, whatever the hour of the evaluation.
        let madrid = Position::new(-3.70, 40.42).unwrap();
        let cycle = |t: i64| {
            let local_hour = (t / 3600 + 2).rem_euclid(24) as f64;
            let x = ((local_hour - 13.0) / 3.5).powi(2);
            grass(2.0 + 38.0 * (-x / 2.0).exp())
        };
        for hour in 0..24 {
            let at = Utc.with_ymd_and_hms(2026, 6, 10, hour, 20, 0).unwrap();
            let o = outlook(&CivilDays::outlook(madrid, at, 4), cycle).unwrap();
            assert_eq!(level(&o.yesterday), Some(3), "at {hour}:20 UTC");
            assert_eq!(o.days.len(), 5);
            assert!(
                o.days.iter().all(|d| level(d) == Some(3)),
                "at {hour}:20 UTC"
            );
        }
    }

    #[test]
    fn a_civil_day_needs_three_quarters_of_its_hours() {
        let london = Position::new(-0.13, 51.5).unwrap();
        let at = Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap();
        let days = CivilDays::outlook(london, at, 1);
        let (today_start, _) = days.day(1).unwrap();
        // Today has counts for its first 18 hours only, tomorrow for 17.
        let (tomorrow_start, _) = days.day(2).unwrap();
        let hourly = |t: i64| {
            let today = t - today_start.timestamp();
            let tomorrow = t - tomorrow_start.timestamp();
            if (0..18 * 3600).contains(&today) || (0..17 * 3600).contains(&tomorrow) {
                grass(30.0)
            } else {
                ([None; 3], ())
            }
        };
        let o = outlook(&days, hourly).unwrap();
        assert_eq!(level(&o.yesterday), None);
        assert_eq!(level(&o.days[0]), Some(4));
        assert_eq!(level(&o.days[1]), None);
    }

    #[test]
    fn no_count_at_all_is_not_covered() {
        let p = Position::new(10.0, 50.0).unwrap();
        let at = Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap();
        let days = CivilDays::outlook(p, at, 2);
        assert!(outlook(&days, |_| ([None; 3], ())).is_none());
        // Counts that are not counts are none either.
        assert!(outlook(&days, |_| ([Some(f64::NAN), Some(-1.0), None], ())).is_none());
        let o = outlook(&days, |_| grass(0.0)).unwrap();
        assert_eq!(o.days.len(), 3);
        assert_eq!(level(&o.days[2]), Some(0));
    }

    #[test]
    fn only_the_hours_of_values_answered_are_behind_the_days() {
        // UTC+0 all year: Reykjavik's civil days are UTC days.
        let reykjavik = Position::new(-21.94, 64.15).unwrap();
        let at = Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap();
        let days = CivilDays::from_today(reykjavik, at, 2);
        let start = Utc
            .with_ymd_and_hms(2026, 6, 10, 0, 0, 0)
            .unwrap()
            .timestamp();
        let hour = |t: i64| (t - start) / 3600;
        // Day one: tree all day, weed for 6 hours (too few); day two: weed for 6 hours only.
        let means = daily_means(&days, &GrainThresholds::default(), |t| {
            let h = hour(t);
            let tree = (h < 24).then_some(10.0);
            let weed = (h % 24 < 6).then_some(3.0);
            ([tree, None, weed], h)
        })
        .unwrap();
        assert!(means.days[0].get(PollenType::Tree).is_some());
        assert!(means.days[0].get(PollenType::Weed).is_none());
        assert!(means.days[1].is_empty());
        // Every hour of day one had tree counts; none of day two is behind a value.
        assert_eq!(means.behind, (0..24).collect::<Vec<i64>>());

        // The weed-only hours of a day whose tree counts come later are behind nothing.
        let means = daily_means(&days, &GrainThresholds::default(), |t| {
            let h = hour(t);
            let tree = (4..24).contains(&h).then_some(10.0);
            let weed = (h < 2).then_some(3.0);
            ([tree, None, weed], h)
        })
        .unwrap();
        assert_eq!(means.behind, (4..24).collect::<Vec<i64>>());
    }

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
