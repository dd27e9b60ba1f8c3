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
//!
//! A source that counts plants one by one ([`Plant`]) gives each plant's day beside its type's
//! ([`PlantDay`]), by the same rule: the mean of the plant's hourly counts over a day they
//! cover three quarters of. A plant's level is its type's [`GrainThresholds`] applied to the
//! plant's own mean. No count categories are published per plant, the plants of a type share
//! the type's allergenic season and the grains of one plant are as many grains of its type, so
//! a birch day of 100 grains/m³ reads as a tree day of 100 would. The type's value stays the
//! level of the sum of its plants, which is what alerts compare: a tree day can be High while
//! alder and birch are each Moderate.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::civil::CivilDays;
use crate::plant::{N_PLANTS, Plant, type_sums};
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

/// One plant on one day: always from counts, since only sources that count grains tell the
/// plants apart.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlantDay {
    /// The level of the daily mean, on the thresholds of the plant's type.
    pub level: PollenLevel,
    /// The daily mean count in grains/m³.
    pub mean_grains_m3: f64,
}

impl PlantDay {
    /// Whether the plant is flowering that day: any of its grains are counted.
    ///
    /// ```
    /// use aq_core::{PlantDay, PollenLevel};
    ///
    /// // Half a grain a cubic metre is level None, but grains are in the air.
    /// let day = PlantDay { level: PollenLevel::NONE, mean_grains_m3: 0.5 };
    /// assert!(day.in_season());
    /// assert!(!PlantDay { mean_grains_m3: 0.0, ..day }.in_season());
    /// ```
    #[must_use]
    pub fn in_season(&self) -> bool {
        self.mean_grains_m3 > 0.0
    }
}

/// The pollen of one civil day at one place.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PollenDay {
    /// The civil date at the place.
    pub date: NaiveDate,
    types: [Option<PollenTypeDay>; 3],
    // Days serialised before plants were kept have none; days of a source of types alone keep
    // their old form.
    #[serde(default, skip_serializing_if = "no_plants")]
    plants: [Option<PlantDay>; N_PLANTS],
}

fn no_plants(plants: &[Option<PlantDay>; N_PLANTS]) -> bool {
    plants.iter().all(Option::is_none)
}

impl PollenDay {
    /// A day with no type known.
    #[must_use]
    pub fn new(date: NaiveDate) -> Self {
        Self {
            date,
            types: [None; 3],
            plants: [None; N_PLANTS],
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
        self.types.iter().all(Option::is_none) && no_plants(&self.plants)
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

    /// The value of `plant`, if the source tells it apart and it has one that day.
    #[must_use]
    pub fn plant(&self, plant: Plant) -> Option<PlantDay> {
        self.plants[plant.index()]
    }

    /// Records the value of `plant`. The type's value is set on its own ([`PollenDay::set`]):
    /// it is the level of the sum of the type's plants, not a level of the plants' levels.
    pub fn set_plant(&mut self, plant: Plant, value: PlantDay) {
        self.plants[plant.index()] = Some(value);
    }

    /// The plants that have a value, in [`Plant::ALL`] order (by type, then by name).
    pub fn plants(&self) -> impl Iterator<Item = (Plant, PlantDay)> + '_ {
        Plant::ALL
            .into_iter()
            .zip(self.plants)
            .filter_map(|(p, v)| Some((p, v?)))
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

/// One hour's pollen counts in grains/m³, per type and, for a source that tells them apart,
/// per plant; `None` where not measured.
///
/// ```
/// use aq_core::pollen_day::PollenCounts;
///
/// // A source of types alone.
/// let hour = PollenCounts::from([None, Some(12.0), None]);
/// assert_eq!(hour.plants, [None; 6]);
/// // Birch 40 and alder 2: 42 grains/m³ of tree pollen.
/// let hour = PollenCounts::from_plants([Some(2.0), Some(40.0), None, None, None, None]);
/// assert_eq!(hour.types, [Some(42.0), None, None]);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PollenCounts {
    /// Tree, grass and weed ([`PollenType::ALL`] order).
    pub types: [Option<f64>; 3],
    /// Each plant ([`Plant::ALL`] order); all `None` for a source of types alone.
    pub plants: [Option<f64>; N_PLANTS],
}

impl PollenCounts {
    /// The counts of the plants, each type the sum of its plants ([`type_sums`]).
    #[must_use]
    pub fn from_plants(plants: [Option<f64>; N_PLANTS]) -> Self {
        Self {
            types: type_sums(plants),
            plants,
        }
    }
}

impl From<[Option<f64>; 3]> for PollenCounts {
    fn from(types: [Option<f64>; 3]) -> Self {
        Self {
            types,
            plants: [None; N_PLANTS],
        }
    }
}

/// Sums and counts one day's hourly pollen counts, per type and per plant.
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
    types: Tally<3>,
    plants: Tally<N_PLANTS>,
    hours: u32,
}

/// The sum and the number of hourly counts of each of `N` quantities.
#[derive(Debug, Clone, Copy)]
struct Tally<const N: usize> {
    sum: [f64; N],
    present: [u32; N],
}

impl<const N: usize> Default for Tally<N> {
    fn default() -> Self {
        Self {
            sum: [0.0; N],
            present: [0; N],
        }
    }
}

impl<const N: usize> Tally<N> {
    #[inline]
    fn add(&mut self, counts: [Option<f64>; N]) {
        for (i, count) in counts.into_iter().enumerate() {
            if let Some(c) = usable(count) {
                self.sum[i] += c;
                self.present[i] += 1;
            }
        }
    }

    /// The mean of quantity `i` over a day of `hours` hours, when its counts cover at least
    /// three quarters of them.
    fn mean(&self, i: usize, hours: u32) -> Option<f64> {
        let n = self.present[i];
        (n > 0 && 4 * n >= 3 * hours).then(|| self.sum[i] / f64::from(n))
    }
}

impl DailyPollenMean {
    /// Adds one hour of the day: its counts ([`PollenCounts`], or the counts of tree, grass and
    /// weed pollen alone) in grains/m³, `None` where not measured. An hour counts towards the
    /// day's length either way.
    // Inlined into the sources' crates, which add every hour of every position of a batch.
    #[inline]
    pub fn add_hour(&mut self, counts: impl Into<PollenCounts>) {
        let counts = counts.into();
        self.hours += 1;
        self.types.add(counts.types);
        self.plants.add(counts.plants);
    }

    /// Whether any hour had any count.
    #[must_use]
    pub fn any(&self) -> bool {
        self.types.present.iter().any(|&n| n > 0) || self.plants.present.iter().any(|&n| n > 0)
    }

    /// The day: each type and each plant whose counts cover at least three quarters of its
    /// hours, a plant's level on its type's thresholds.
    #[must_use]
    pub fn day(&self, date: NaiveDate, thresholds: &GrainThresholds) -> PollenDay {
        let mut day = PollenDay::new(date);
        for (i, kind) in PollenType::ALL.into_iter().enumerate() {
            if let Some(mean) = self.types.mean(i, self.hours)
                && let Ok(level) = thresholds.level(kind, mean)
            {
                day.set(
                    kind,
                    PollenTypeDay {
                        level,
                        mean_grains_m3: Some(mean),
                    },
                );
            }
        }
        for (i, plant) in Plant::ALL.into_iter().enumerate() {
            if let Some(mean) = self.plants.mean(i, self.hours)
                && let Ok(level) = thresholds.level(plant.pollen_type(), mean)
            {
                day.set_plant(
                    plant,
                    PlantDay {
                        level,
                        mean_grains_m3: mean,
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
/// (seconds since the epoch): tree, grass and weed in grains/m³ (with the plants', for a
/// source that tells them apart: [`PollenCounts`]), `None` where the source has none, beside
/// a note of the source's own about the hour (where its counts come from; `()`
/// when it has nothing to say). Each type's value of a day is the level of its daily mean
/// ([`DailyPollenMean`]), and so is each plant's. `None` (not covered) when no hour of any day
/// has a count.
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
pub fn daily_means<T, C: Into<PollenCounts>>(
    civil: &CivilDays,
    thresholds: &GrainThresholds,
    mut hourly: impl FnMut(i64) -> (C, T),
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
            let counts: PollenCounts = counts.into();
            mean.add_hour(counts);
            // A plant's hour is its type's too: a type with a value is behind every plant's.
            hours.push((counts.types.map(|c| usable(c).is_some()), note));
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

    /// Birch and alder all day, olive for 17 hours only, grass all day; no weed.
    fn plants_day() -> PollenDay {
        let date = NaiveDate::from_ymd_opt(2026, 4, 10).unwrap();
        let mut mean = DailyPollenMean::default();
        for hour in 0..24 {
            let birch = if (10..16).contains(&hour) {
                120.0
            } else {
                40.0
            };
            mean.add_hour(PollenCounts::from_plants([
                Some(3.0),
                Some(birch),
                (hour < 17).then_some(50.0),
                Some(6.0),
                None,
                None,
            ]));
        }
        mean.day(date, &GrainThresholds::default())
    }

    #[test]
    fn a_days_plants_have_their_own_means_and_levels_on_their_types_thresholds() {
        let day = plants_day();
        let birch = day.plant(Plant::Birch).unwrap();
        assert_eq!(birch.mean_grains_m3, 60.0);
        // 60 grains/m³ is Moderate for trees (15 to 90), where it would be High for grass.
        assert_eq!(birch.level.name(), "Moderate");
        let alder = day.plant(Plant::Alder).unwrap();
        assert_eq!(
            (alder.mean_grains_m3, alder.level.name()),
            (3.0, "Very low")
        );
        let grass = day.plant(Plant::Grass).unwrap();
        assert_eq!(
            (grass.mean_grains_m3, grass.level.name()),
            (6.0, "Moderate")
        );
        assert!(birch.in_season() && alder.in_season());
        // The plants come by type, then by name; weeds have none.
        let listed: Vec<Plant> = day.plants().map(|(p, _)| p).collect();
        assert_eq!(listed, [Plant::Alder, Plant::Birch, Plant::Grass]);
    }

    #[test]
    fn a_plant_needs_three_quarters_of_its_hours_as_a_type_does() {
        let day = plants_day();
        assert!(day.plant(Plant::Olive).is_none(), "17 of 24 hours");
        assert!(day.plant(Plant::Ragweed).is_none());
        // The type sums what was counted each hour: olive's 17 hours are in the tree mean.
        let tree = day.get(PollenType::Tree).unwrap().mean_grains_m3.unwrap();
        let expected = 3.0 + 60.0 + 50.0 * 17.0 / 24.0;
        assert!((tree - expected).abs() < 1e-9, "{tree}");
        assert!(day.get(PollenType::Weed).is_none());
    }

    #[test]
    fn a_types_mean_is_the_sum_of_its_plants_when_they_share_their_hours() {
        let date = NaiveDate::from_ymd_opt(2026, 8, 20).unwrap();
        let mut mean = DailyPollenMean::default();
        for hour in 0..24u32 {
            let h = f64::from(hour);
            mean.add_hour(PollenCounts::from_plants([
                None,
                None,
                None,
                None,
                Some(2.0 + h),
                Some(0.5 * h),
            ]));
        }
        let day = mean.day(date, &GrainThresholds::default());
        let weed = day.get(PollenType::Weed).unwrap();
        let plants: f64 = day.plants().map(|(_, v)| v.mean_grains_m3).sum();
        assert_eq!(weed.mean_grains_m3, Some(plants));
        // Each plant's level is no higher than its type's.
        assert!(day.plants().all(|(_, v)| v.level <= weed.level));
    }

    #[test]
    fn a_day_serialised_without_plants_reads_with_none() {
        let date = NaiveDate::from_ymd_opt(2026, 6, 10).unwrap();
        let levels = PollenLevels::default().with(PollenType::Grass, PollenLevel::VERY_HIGH);
        let day = PollenDay::from_levels(date, &levels);
        let json = serde_json::to_value(day).unwrap();
        assert!(json.get("plants").is_none(), "{json}");
        assert_eq!(serde_json::from_value::<PollenDay>(json).unwrap(), day);

        // A day with plants keeps them (whole grains here: JSON's decimals read back exactly).
        let day = plants_day();
        let back: PollenDay = serde_json::from_str(&serde_json::to_string(&day).unwrap()).unwrap();
        assert_eq!(
            back.plants().collect::<Vec<_>>(),
            day.plants().collect::<Vec<_>>()
        );
        assert_eq!(back.levels(), day.levels());
    }
}
