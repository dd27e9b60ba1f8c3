//! Each civil day's pollen from one statistic: the daily mean of the hourly counts
//! ([`DailyPollenMean`], whose rules are aq-core's), over the whole UTC hours within the
//! point's civil day ([`CivilDays::hours`]). Every source that has hourly counts (the demo
//! field, station files, Open-Meteo) turns its hours into days here.

use aq_core::{DailyPollenMean, GrainThresholds, PollenDay, PollenOutlook, PollenType};

use crate::civil::CivilDays;
use crate::values::Values;

/// Each of `days`' pollen from the values `hourly` gives at each of its whole hours (seconds
/// since the epoch). `None` (not covered) when no hour of any day has a pollen count.
pub(crate) fn days(
    days: &CivilDays,
    thresholds: &GrainThresholds,
    mut hourly: impl FnMut(i64) -> Values,
) -> Option<Vec<PollenDay>> {
    let mut seen = false;
    let out = (0..days.len())
        .map(|k| {
            let mut mean = DailyPollenMean::default();
            for t in days.hours(k) {
                let values = hourly(t);
                mean.add_hour(PollenType::ALL.map(|kind| values.get(Values::pollen_index(kind))));
            }
            seen |= mean.any();
            mean.day(days.date(k), thresholds)
        })
        .collect();
    seen.then_some(out)
}

/// The outlook over `days`, whose first day is yesterday: each day's level from the daily mean
/// of the values `hourly` gives at each of its whole hours. `None` (not covered) when no hour
/// of any day has a pollen count.
pub(crate) fn outlook(
    civil: &CivilDays,
    thresholds: &GrainThresholds,
    hourly: impl FnMut(i64) -> Values,
) -> Option<PollenOutlook> {
    let mut all = days(civil, thresholds, hourly)?
        .into_iter()
        .map(|d| d.levels());
    let yesterday = all.next().unwrap_or_default();
    Some(PollenOutlook {
        today: civil.date(1),
        yesterday,
        days: all.collect(),
    })
}

/// The civil days an outlook of `days` days after today needs at `position`: yesterday, today
/// and `days` more.
pub(crate) fn outlook_days(
    position: aq_core::Position,
    at: chrono::DateTime<chrono::Utc>,
    days: u32,
) -> CivilDays {
    CivilDays::at(position, at, -1, days.saturating_add(2))
}

/// The civil days of a lookup of `days` days from today at `position`.
pub(crate) fn lookup_days(
    position: aq_core::Position,
    at: chrono::DateTime<chrono::Utc>,
    days: u32,
) -> CivilDays {
    CivilDays::at(position, at, 0, days)
}

#[cfg(test)]
mod tests {
    use aq_core::{PollenLevels, Position};
    use chrono::{TimeZone, Utc};

    use super::*;

    fn grass(count: f64) -> Values {
        let mut v = Values::MISSING;
        v.0[Values::pollen_index(PollenType::Grass)] = count;
        v
    }

    fn level(o: &PollenLevels) -> Option<u8> {
        o.get(PollenType::Grass).map(|l| l.value())
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
            let o = outlook(
                &outlook_days(madrid, at, 4),
                &GrainThresholds::default(),
                cycle,
            )
            .unwrap();
            assert_eq!(level(&o.yesterday), Some(3), "at {hour}:20 UTC");
            assert!(
                o.days.iter().all(|d| level(d) == Some(3)),
                "at {hour}:20 UTC"
            );
        }
    }

    #[test]
    fn a_day_needs_three_quarters_of_its_hours() {
        let london = Position::new(-0.13, 51.5).unwrap();
        let at = Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap();
        let days = outlook_days(london, at, 1);
        let (today_start, _) = days.day(1).unwrap();
        // Today has counts for its first 18 hours only, tomorrow for 17.
        let (tomorrow_start, _) = days.day(2).unwrap();
        let hourly = |t: i64| {
            let today = t - today_start.timestamp();
            let tomorrow = t - tomorrow_start.timestamp();
            if (0..18 * 3600).contains(&today) || (0..17 * 3600).contains(&tomorrow) {
                grass(30.0)
            } else {
                Values::MISSING
            }
        };
        let o = outlook(&days, &GrainThresholds::default(), hourly).unwrap();
        assert_eq!(level(&o.yesterday), None);
        assert_eq!(level(&o.days[0]), Some(4));
        assert_eq!(level(&o.days[1]), None);
    }

    #[test]
    fn no_count_at_all_is_not_covered() {
        let p = Position::new(10.0, 50.0).unwrap();
        let at = Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap();
        let days = outlook_days(p, at, 2);
        assert!(outlook(&days, &GrainThresholds::default(), |_| Values::MISSING).is_none());
        let o = outlook(&days, &GrainThresholds::default(), |_| grass(0.0)).unwrap();
        assert_eq!(o.days.len(), 3);
        assert_eq!(level(&o.days[2]), Some(0));
    }
}
