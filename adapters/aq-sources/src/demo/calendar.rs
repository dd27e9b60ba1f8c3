//! The calendar: local solar time, the daily rhythms of traffic and sun, and the seasons.

use std::f64::consts::TAU;

/// The mean length of a Gregorian year, in days.
pub(super) const YEAR_DAYS: f64 = 365.2425;

/// Seconds in a day.
const DAY_S: f64 = 86_400.0;

/// The time at a place, as the field's rhythms see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct LocalTime {
    /// The local solar hour, in [0, 24].
    pub(super) hour: f64,
    /// Whether it is Saturday or Sunday there.
    pub(super) weekend: bool,
    /// The day of the year counted from the hemisphere's own midwinter start, in
    /// [0, [`YEAR_DAYS`]): the southern hemisphere is half a year ahead, so seasons mirror.
    pub(super) season_day: f64,
}

impl LocalTime {
    /// The local time at `t` (seconds since the epoch), longitude `lon` and latitude `lat`, in
    /// degrees. Solar time follows the longitude: the field knows no time zones.
    pub(super) fn at(t: f64, lon: f64, lat: f64) -> Self {
        let local_days = (t + lon / 360.0 * DAY_S) / DAY_S;
        // 1970-01-01 was a Thursday: (days + 3) mod 7 numbers Monday as 0.
        let weekend = (local_days.floor() + 3.0).rem_euclid(7.0) >= 5.0;
        let day_of_year = (t / DAY_S).rem_euclid(YEAR_DAYS);
        let season_day = if lat >= 0.0 {
            day_of_year
        } else {
            (day_of_year + YEAR_DAYS / 2.0).rem_euclid(YEAR_DAYS)
        };
        Self {
            hour: local_days.rem_euclid(1.0) * 24.0,
            weekend,
            season_day,
        }
    }

    /// Traffic relative to a weekday's mean: rush hours at 08:00 and 17:30, a lunchtime
    /// bump, quiet nights, and a third less at weekends.
    pub(super) fn traffic(&self) -> f64 {
        let weekday = 0.3
            + 0.9 * bell(self.hour, 8.0, 1.3, 24.0)
            + 0.8 * bell(self.hour, 17.5, 1.7, 24.0)
            + 0.3 * bell(self.hour, 13.0, 3.0, 24.0);
        if self.weekend {
            0.65 * weekday
        } else {
            weekday
        }
    }

    /// The afternoon sun behind ozone: 1 at 14:30, falling off over a few hours.
    pub(super) fn sun(&self) -> f64 {
        bell(self.hour, 14.5, 2.5, 24.0)
    }

    /// Pollen's daily release, highest around midday.
    pub(super) fn pollen_release(&self) -> f64 {
        0.55 + 0.9 * bell(self.hour, 13.0, 3.5, 24.0)
    }

    /// How deep in winter it is, in [-1, 1]: 1 in mid-January (mid-July in the south), -1 half
    /// a year later.
    pub(super) fn winter(&self) -> f64 {
        (TAU * (self.season_day - 15.0) / YEAR_DAYS).cos()
    }
}

/// A bell of height 1 at `centre`, `width` its standard deviation, on a circular axis of
/// length `period` (hours of a day, days of a year): `x` and `centre` lie in `[0, period)`.
pub(super) fn bell(x: f64, centre: f64, width: f64, period: f64) -> f64 {
    let d = (x - centre).abs();
    let d = d.min(period - d);
    (-(d / width).powi(2) / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;

    fn seconds(y: i32, m: u32, d: u32, h: u32, min: u32) -> f64 {
        // Seconds since 1970 fit an f64 exactly.
        #[allow(clippy::cast_precision_loss)]
        let s = Utc
            .with_ymd_and_hms(y, m, d, h, min, 0)
            .unwrap()
            .timestamp() as f64;
        s
    }

    #[test]
    fn solar_hour_and_weekend_follow_the_longitude() {
        // Saturday 2026-05-02, 23:00 UTC: already Sunday 09:00 at 150° E, still Saturday 16:00
        // at 105° W.
        let t = seconds(2026, 5, 2, 23, 0);
        let east = LocalTime::at(t, 150.0, 0.0);
        assert!((east.hour - 9.0).abs() < 1e-9 && east.weekend, "{east:?}");
        let west = LocalTime::at(t, -105.0, 0.0);
        assert!((west.hour - 16.0).abs() < 1e-9 && west.weekend, "{west:?}");
        // Monday 00:30 at Greenwich is no weekend.
        let monday = LocalTime::at(seconds(2026, 5, 4, 0, 30), 0.0, 0.0);
        assert!(
            (monday.hour - 0.5).abs() < 1e-9 && !monday.weekend,
            "{monday:?}"
        );
    }

    #[test]
    fn seasons_mirror_across_the_equator() {
        let january = seconds(2026, 1, 15, 12, 0);
        let north = LocalTime::at(january, 0.0, 45.0);
        let south = LocalTime::at(january, 0.0, -45.0);
        assert!(north.winter() > 0.95, "{north:?}");
        assert!(south.winter() < -0.95, "{south:?}");
        let july = LocalTime::at(seconds(2026, 7, 15, 12, 0), 0.0, -45.0);
        assert!(july.winter() > 0.95, "{july:?}");
    }

    #[test]
    fn rush_hours_beat_the_night_and_weekends_are_quieter() {
        let at = |hour: f64, weekend| LocalTime {
            hour,
            weekend,
            season_day: 0.0,
        };
        assert!(at(8.0, false).traffic() > 3.0 * at(3.0, false).traffic());
        assert!(at(17.5, false).traffic() > 3.0 * at(3.0, false).traffic());
        assert!(at(8.0, true).traffic() < at(8.0, false).traffic());
    }

    #[test]
    fn bells_wrap_around_their_period() {
        assert_eq!(bell(8.0, 8.0, 1.0, 24.0), 1.0);
        assert!((bell(23.5, 0.5, 1.0, 24.0) - bell(1.5, 0.5, 1.0, 24.0)).abs() < 1e-12);
        assert!(bell(20.0, 8.0, 1.0, 24.0) < 1e-12);
    }
}
