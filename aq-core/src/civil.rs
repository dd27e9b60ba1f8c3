//! Civil days at a point: the calendar days of the time zone its coordinates lie in.
//!
//! "Today" at a point is the date its people read on their clocks, so pollen days (and the
//! words "Today" and "Tomorrow" that name them) follow the point's civil time zone: the IANA
//! zone whose boundary holds the coordinates (`tzf-rs`, with the boundary data embedded in the
//! crate: timezone-boundary-builder, from OpenStreetMap), then that zone's rules, daylight
//! saving included (`chrono-tz`, the IANA tz database compiled in). At sea, where the boundary
//! data has nautical zones (`Etc/GMT±n`), those give the day; should a lookup ever find no zone
//! the chrono-tz database knows, the day falls back to local mean solar time in whole hours.
//!
//! Every source turns hours into days over these days, so that a day means the same whatever
//! the source: the boundaries are data compiled in, not read, so the crate still does no I/O.

use std::sync::LazyLock;

use chrono::{
    DateTime, Days, FixedOffset, LocalResult, NaiveDate, NaiveTime, Offset, TimeZone, Utc,
};
use chrono_tz::Tz;
use tzf_rs::DefaultFinder;

use crate::position::Position;

/// Loading the boundaries takes a few hundred milliseconds, so it happens once, on first use.
static FINDER: LazyLock<DefaultFinder> = LazyLock::new(DefaultFinder::new);

/// Loads the time zone boundaries now unless they are loaded already. Whatever first needs
/// civil days (an alert job's pollen, a lookup) otherwise waits for the load; a server calls
/// this once at start-up, away from any request.
pub fn load_time_zones() {
    LazyLock::force(&FINDER);
}

/// The time zone at `position`: its IANA zone, or `None` where no known zone covers it.
fn zone(position: Position) -> Option<Tz> {
    FINDER
        .get_tz_name(position.lon(), position.lat())
        .parse()
        .ok()
}

/// The offset of local mean solar time from UTC at `lon`, in whole hours: the fallback where
/// no time zone is known.
fn solar_offset(lon: f64) -> FixedOffset {
    // |lon| / 15 is at most 12, so the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation)]
    let hours = (lon / 15.0).round() as i32;
    FixedOffset::east_opt(hours * 3600).unwrap_or_else(|| Utc.fix())
}

/// Consecutive civil days at one place, as UTC instants: day `k` runs from its local midnight
/// (inclusive) to the next day's (exclusive). A day is 24 hours long except on a daylight
/// saving change (23 or 25 hours, or other lengths where a zone changed its offset).
///
/// ```
/// use aq_core::Position;
/// use aq_core::civil::CivilDays;
/// use chrono::{NaiveDate, TimeZone, Utc};
///
/// // 23:30 UTC on 1 May is already 2 May in Berlin (UTC+2 in summer).
/// let berlin = Position::new(13.405, 52.52).unwrap();
/// let at = Utc.with_ymd_and_hms(2026, 5, 1, 23, 30, 0).unwrap();
/// let days = CivilDays::from_today(berlin, at, 2);
/// assert_eq!(days.date(0), NaiveDate::from_ymd_opt(2026, 5, 2).unwrap());
/// let (start, end) = days.day(0).unwrap();
/// assert_eq!(start, Utc.with_ymd_and_hms(2026, 5, 1, 22, 0, 0).unwrap());
/// assert_eq!(end - start, chrono::Duration::hours(24));
/// assert_eq!(days.hours(0).count(), 24);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CivilDays {
    first: NaiveDate,
    bounds: Vec<DateTime<Utc>>,
}

impl CivilDays {
    /// `count` civil days at `position`, the first being the day `first` days from the one
    /// that contains `at` (so `first = -1` starts with yesterday).
    #[must_use]
    pub fn at(position: Position, at: DateTime<Utc>, first: i64, count: u32) -> Self {
        match zone(position) {
            Some(tz) => Self::in_zone(&tz, at, first, count),
            None => Self::in_zone(&solar_offset(position.lon()), at, first, count),
        }
    }

    /// `days` civil days at `position` from today, the day that contains `at`: the days of a
    /// lookup.
    #[must_use]
    pub fn from_today(position: Position, at: DateTime<Utc>, days: u32) -> Self {
        Self::at(position, at, 0, days)
    }

    /// The civil days an outlook of `days` days after today needs at `position`: yesterday,
    /// today and `days` more ([`PollenOutlook`](crate::PollenOutlook)).
    #[must_use]
    pub fn outlook(position: Position, at: DateTime<Utc>, days: u32) -> Self {
        Self::at(position, at, -1, days.saturating_add(2))
    }

    /// As [`CivilDays::at`], in the time zone `tz`.
    #[must_use]
    pub fn in_zone<Z: TimeZone>(tz: &Z, at: DateTime<Utc>, first: i64, count: u32) -> Self {
        let today = at.with_timezone(tz).date_naive();
        let bounds = (0..=i64::from(count))
            .map(|k| {
                let date = shift(today, first + k);
                midnight(tz, date)
            })
            .collect();
        Self {
            first: shift(today, first),
            bounds,
        }
    }

    /// The civil date of day `k`.
    #[must_use]
    pub fn date(&self, k: usize) -> NaiveDate {
        shift(self.first, i64::try_from(k).unwrap_or(i64::MAX))
    }

    /// How many days there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    /// Whether there is no day at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The start and end of day `k`, or `None` past the last day.
    #[must_use]
    pub fn day(&self, k: usize) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        Some((*self.bounds.get(k)?, *self.bounds.get(k + 1)?))
    }

    /// The whole UTC hours that fall in day `k`, as seconds since the epoch: the hours of an
    /// hourly series that belong to that day (24 of them, 23 or 25 on a daylight saving change;
    /// in a zone with a half- or quarter-hour offset they begin at the first whole UTC hour
    /// after local midnight).
    pub fn hours(&self, k: usize) -> impl Iterator<Item = i64> + use<> {
        let (start, end) = self
            .day(k)
            .map_or((0, 0), |(s, e)| (s.timestamp(), e.timestamp()));
        let first = start.div_euclid(3600) + i64::from(start.rem_euclid(3600) != 0);
        (first..).map(|h| h * 3600).take_while(move |&t| t < end)
    }
}

/// `date` moved by `days` days (either way); dates past chrono's range stay put.
fn shift(date: NaiveDate, days: i64) -> NaiveDate {
    let n = Days::new(days.unsigned_abs());
    let moved = if days >= 0 {
        date.checked_add_days(n)
    } else {
        date.checked_sub_days(n)
    };
    moved.unwrap_or(date)
}

/// The instant `date` begins in `tz`: local midnight, or, where a daylight saving change skips
/// midnight (as in some zones that change at 00:00), the first local time that exists after it.
fn midnight<Z: TimeZone>(tz: &Z, date: NaiveDate) -> DateTime<Utc> {
    let local = date.and_time(NaiveTime::MIN);
    let resolve = |r: LocalResult<DateTime<Z>>| r.earliest().map(|t| t.with_timezone(&Utc));
    resolve(tz.from_local_datetime(&local))
        .or_else(|| {
            // Gaps are at most a few hours; the first whole quarter hour that exists begins
            // the day.
            (1..=16).find_map(|q| {
                resolve(tz.from_local_datetime(&(local + chrono::Duration::minutes(15 * q))))
            })
        })
        .unwrap_or_else(|| local.and_utc())
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn utc(y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, h, min, 0).unwrap()
    }

    fn pos(lon: f64, lat: f64) -> Position {
        Position::new(lon, lat).unwrap()
    }

    #[test]
    fn zones_come_from_the_coordinates() {
        assert_eq!(zone(pos(-3.70, 40.42)), Some(chrono_tz::Europe::Madrid));
        assert_eq!(zone(pos(85.32, 27.72)), Some(chrono_tz::Asia::Kathmandu));
        assert_eq!(
            zone(pos(-176.56, -43.95)),
            Some(chrono_tz::Pacific::Chatham)
        );
        assert_eq!(zone(pos(77.21, 28.61)), Some(chrono_tz::Asia::Kolkata));
    }

    #[test]
    fn madrid_days_follow_its_clock_not_the_sun() {
        // 23:30 UTC on 1 May is 01:30 on 2 May in Madrid (UTC+2 in summer); by longitude
        // (3.7° W, solar UTC+0) it would still be 1 May.
        let days = CivilDays::at(pos(-3.70, 40.42), utc(2026, 5, 1, 23, 30), 0, 1);
        assert_eq!(
            days.day(0),
            Some((utc(2026, 5, 1, 22, 0), utc(2026, 5, 2, 22, 0)))
        );
        let may = |d| NaiveDate::from_ymd_opt(2026, 5, d).unwrap();
        assert_eq!(days.date(0), may(2), "the day is named by Madrid's date");
        let outlook = CivilDays::at(pos(-3.70, 40.42), utc(2026, 5, 1, 23, 30), -1, 3);
        assert_eq!((outlook.date(0), outlook.date(1)), (may(1), may(2)));
    }

    #[test]
    fn kathmandu_days_start_at_a_quarter_hour() {
        // Nepal is UTC+5:45: 2 May begins at 18:15 UTC on 1 May.
        let days = CivilDays::at(pos(85.32, 27.72), utc(2026, 5, 1, 19, 0), -1, 2);
        assert_eq!(days.len(), 2);
        assert_eq!(
            days.day(1),
            Some((utc(2026, 5, 1, 18, 15), utc(2026, 5, 2, 18, 15)))
        );
        let hours: Vec<i64> = days.hours(1).collect();
        assert_eq!(hours.len(), 24);
        assert_eq!(hours[0], utc(2026, 5, 1, 19, 0).timestamp());
        assert_eq!(hours[23], utc(2026, 5, 2, 18, 0).timestamp());
    }

    #[test]
    fn chatham_days_start_at_twelve_forty_five() {
        // The Chatham Islands keep UTC+12:45 in their winter (July): 2 July begins at 11:15 UTC
        // on 1 July.
        let days = CivilDays::at(pos(-176.56, -43.95), utc(2026, 7, 1, 12, 0), 0, 1);
        assert_eq!(
            days.day(0),
            Some((utc(2026, 7, 1, 11, 15), utc(2026, 7, 2, 11, 15)))
        );
    }

    #[test]
    fn a_daylight_saving_change_makes_a_23_and_a_25_hour_day() {
        // Europe moves its clocks forward on 29 March 2026 and back on 25 October 2026.
        let madrid = pos(-3.70, 40.42);
        let spring = CivilDays::at(madrid, utc(2026, 3, 29, 12, 0), 0, 1);
        assert_eq!(
            spring.day(0),
            Some((utc(2026, 3, 28, 23, 0), utc(2026, 3, 29, 22, 0)))
        );
        assert_eq!(spring.hours(0).count(), 23);
        let autumn = CivilDays::at(madrid, utc(2026, 10, 25, 12, 0), 0, 1);
        assert_eq!(autumn.hours(0).count(), 25);
        // Yesterday, today and tomorrow around the spring change are contiguous.
        let around = CivilDays::at(madrid, utc(2026, 3, 29, 12, 0), -1, 3);
        let lengths: Vec<usize> = (0..3).map(|k| around.hours(k).count()).collect();
        assert_eq!(lengths, [24, 23, 24]);
    }

    #[test]
    fn a_skipped_midnight_starts_the_day_at_the_first_time_that_exists() {
        // Havana moves its clocks from 00:00 to 01:00 on the second Sunday of March.
        let havana = chrono_tz::America::Havana;
        let days = CivilDays::in_zone(&havana, utc(2026, 3, 8, 12, 0), 0, 1);
        // 01:00 CDT (UTC-4) is 05:00 UTC.
        assert_eq!(days.day(0).map(|d| d.0), Some(utc(2026, 3, 8, 5, 0)));
    }

    #[test]
    fn the_solar_fallback_rounds_the_longitude_to_hours() {
        let days = CivilDays::in_zone(&solar_offset(150.0), utc(2026, 5, 1, 22, 0), 0, 1);
        assert_eq!(days.day(0).map(|d| d.0), Some(utc(2026, 5, 1, 14, 0)));
    }
}
