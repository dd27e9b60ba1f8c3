//! China's Air Quality Index, from the Ministry of Ecology and Environment's *Technical
//! Regulation on Ambient Air Quality Index (on trial)*, HJ 633-2012: individual indices
//! (IAQI) by linear interpolation between the breakpoints of its Table 1, the highest of them
//! the AQI, in six categories with the colours of its Table 2: Excellent (0–50, #00e400), Good
//! (51–100, #ffff00), Lightly Polluted (101–150, #ff7e00), Moderately Polluted (151–200,
//! #ff0000), Heavily Polluted (201–300, #99004c) and Severely Polluted (above 300, #7e0023).
//!
//! | IAQI | 0 | 50 | 100 | 150 | 200 | 300 | 400 | 500 |
//! |---|---|---|---|---|---|---|---|---|
//! | SO₂ 1 h µg/m³ | 0 | 150 | 500 | 650 | 800 | (24 h) | | |
//! | SO₂ 24 h µg/m³ | 0 | 50 | 150 | 475 | 800 | 1600 | 2100 | 2620 |
//! | NO₂ 1 h µg/m³ | 0 | 100 | 200 | 700 | 1200 | 2340 | 3090 | 3840 |
//! | CO 1 h mg/m³ | 0 | 5 | 10 | 35 | 60 | 90 | 120 | 150 |
//! | O₃ 1 h µg/m³ | 0 | 160 | 200 | 300 | 400 | 800 | 1000 | 1200 |
//! | O₃ 8 h µg/m³ | 0 | 100 | 160 | 215 | 265 | 800 | (1 h) | |
//! | PM10 24 h µg/m³ | 0 | 50 | 150 | 250 | 350 | 420 | 500 | 600 |
//! | PM2.5 24 h µg/m³ | 0 | 35 | 75 | 115 | 150 | 250 | 350 | 500 |
//!
//! MEE publishes a real-time (hourly) AQI beside the daily one; lookups answer hours, so this
//! is the real-time index: SO₂, NO₂ and CO read their 1-hour values on the 1-hour rows, ozone
//! the higher of its 1-hour IAQI and the IAQI of its running 8-hour mean, and particles, which
//! have 24-hour rows only, their running 24-hour mean, as MEE's real-time releases do.
//! HJ 633 sends an hourly SO₂ above 800 µg/m³ to the 24-hour rows and an 8-hour ozone mean
//! above 800 µg/m³ to the 1-hour rows; there the IAQI keeps at least the value the row it
//! left ended on (200 and 300), so that more pollution never reads as less.
//!
//! Means follow GB 3095-2012's data validity rule: 20 hours of a 24-hour mean, 6 of an
//! 8-hour one. Gases are read at GB 3095's reference state since its 2018 amendment (25 °C,
//! 1013.25 hPa; the project states µg/m³ at 20 °C). IAQI are rounded up to whole numbers, so
//! that air just past a breakpoint never shows in the category below. Past the table's end
//! the IAQI is 500, as a lower bound.
//!
//! ```
//! use aq_core::national::china_aqi;
//! use aq_core::{Concentration, Concentrations, Pollutant};
//!
//! // A day of 75 µg/m³ of PM2.5: IAQI 100, Good; 76 is 102 (101.25 rounded up), Lightly Polluted.
//! let pm = |v| vec![Some(Concentrations::default().with(Pollutant::Pm25, Concentration::new(v).unwrap())); 24];
//! let r = china_aqi::reading(&pm(75.0)).unwrap();
//! assert_eq!((r.value, r.category, r.dominant), (100, "Good", Pollutant::Pm25));
//! assert_eq!(china_aqi::reading(&pm(76.0)).unwrap().category, "Lightly Polluted");
//! ```

use super::average::{at_25c, mean, now};
use super::breakpoints::{Read, Row, read, row};
use super::{NationalReading, highest};
use crate::pollutant::{Concentrations, Pollutant};

const IAQI: [f64; 8] = [0.0, 50.0, 100.0, 150.0, 200.0, 300.0, 400.0, 500.0];

/// A 24-hour mean needs this many hours (GB 3095-2012).
const DAY_HOURS_NEEDED: usize = 20;
/// An 8-hour mean this many.
const EIGHT_HOURS_NEEDED: usize = 6;

/// The rows between consecutive breakpoints of one line of Table 1.
fn rows<const N: usize>(breakpoints: [f64; N]) -> Vec<Row> {
    breakpoints
        .windows(2)
        .enumerate()
        .map(|(k, w)| row(w[0], w[1], IAQI[k], IAQI[k + 1]))
        .collect()
}

/// An IAQI and whether the air is past the table.
type Iaqi = (f64, bool);

fn iaqi(rows: &[Row], c: f64) -> Iaqi {
    match read(rows, c) {
        Read::Index(i) => (i, false),
        Read::Beyond => (500.0, true),
    }
}

/// A gas's value restated at GB 3095's reference state; CO in mg/m³.
fn stated(pollutant: Pollutant, ug_m3: f64) -> f64 {
    let c = at_25c(pollutant, ug_m3);
    if pollutant == Pollutant::Co {
        c / 1000.0
    } else {
        c
    }
}

/// The IAQI of `pollutant` for `hours[0]`; `None` without the hours it needs.
fn pollutant_iaqi(hours: &[Option<Concentrations>], pollutant: Pollutant) -> Option<Iaqi> {
    let hour = now(hours, pollutant).map(|c| stated(pollutant, c));
    let day = || mean(hours, pollutant, 24, DAY_HOURS_NEEDED).map(|c| stated(pollutant, c));
    match pollutant {
        Pollutant::Pm10 => Some(iaqi(
            &rows([0.0, 50.0, 150.0, 250.0, 350.0, 420.0, 500.0, 600.0]),
            day()?,
        )),
        Pollutant::Pm25 => Some(iaqi(
            &rows([0.0, 35.0, 75.0, 115.0, 150.0, 250.0, 350.0, 500.0]),
            day()?,
        )),
        Pollutant::No2 => Some(iaqi(
            &rows([0.0, 100.0, 200.0, 700.0, 1200.0, 2340.0, 3090.0, 3840.0]),
            hour?,
        )),
        Pollutant::Co => Some(iaqi(
            &rows([0.0, 5.0, 10.0, 35.0, 60.0, 90.0, 120.0, 150.0]),
            hour?,
        )),
        Pollutant::So2 => {
            let h = hour?;
            match read(&rows([0.0, 150.0, 500.0, 650.0, 800.0]), h) {
                Read::Index(i) => Some((i, false)),
                // Past the 1-hour rows: the 24-hour rows, never below where the hourly ended.
                Read::Beyond => Some(match day() {
                    Some(d) => {
                        let (i, beyond) = iaqi(
                            &rows([0.0, 50.0, 150.0, 475.0, 800.0, 1600.0, 2100.0, 2620.0]),
                            d,
                        );
                        (i.max(200.0), beyond)
                    }
                    None => (200.0, true),
                }),
            }
        }
        Pollutant::O3 => {
            let one_hour = hour.map(|h| {
                iaqi(
                    &rows([0.0, 160.0, 200.0, 300.0, 400.0, 800.0, 1000.0, 1200.0]),
                    h,
                )
            });
            let eight = mean(hours, pollutant, 8, EIGHT_HOURS_NEEDED)
                .map(|c| stated(pollutant, c))
                .map(
                    |m| match read(&rows([0.0, 100.0, 160.0, 215.0, 265.0, 800.0]), m) {
                        Read::Index(i) => (i, false),
                        // Past the 8-hour rows the 1-hour value speaks, from where these ended.
                        Read::Beyond => (300.0, false),
                    },
                );
            match (one_hour, eight) {
                (Some(a), Some(b)) => Some(if b.0 > a.0 { b } else { a }),
                (a, b) => a.or(b),
            }
        }
    }
}

/// HJ 633's name for the category of `aqi`.
///
/// ```
/// use aq_core::national::china_aqi::category;
///
/// assert_eq!([category(50), category(51), category(301)], ["Excellent", "Good", "Severely Polluted"]);
/// ```
#[must_use]
pub fn category(aqi: u16) -> &'static str {
    match aqi {
        0..=50 => "Excellent",
        51..=100 => "Good",
        101..=150 => "Lightly Polluted",
        151..=200 => "Moderately Polluted",
        201..=300 => "Heavily Polluted",
        _ => "Severely Polluted",
    }
}

/// HJ 633's colour (its Table 2) for the category of `aqi`.
#[must_use]
pub fn colour(aqi: u16) -> &'static str {
    match aqi {
        0..=50 => "#00e400",
        51..=100 => "#ffff00",
        101..=150 => "#ff7e00",
        151..=200 => "#ff0000",
        201..=300 => "#99004c",
        _ => "#7e0023",
    }
}

/// The real-time AQI of `hours[0]` from `hours` (newest first); `None` when no pollutant has
/// an IAQI.
#[must_use]
pub fn reading(hours: &[Option<Concentrations>]) -> Option<NationalReading> {
    let subs: Vec<(Pollutant, Iaqi)> = Pollutant::ALL
        .into_iter()
        .filter_map(|p| Some((p, pollutant_iaqi(hours, p)?)))
        .collect();
    // Compared as (value, at least): on a tie the value that is only a lower bound sets the
    // index, so a reading at the table's end never hides one past it.
    let (dominant, (value, at_least)) = highest(subs.iter().copied())?;
    // At most 500, so the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let value = (value - 1e-9).ceil().clamp(0.0, 500.0) as u16;
    Some(NationalReading {
        value,
        category: category(value),
        colour: colour(value),
        dominant,
        at_least,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pollutant::Concentration;

    fn hours(p: Pollutant, ug_m3: f64, n: usize) -> Vec<Option<Concentrations>> {
        vec![Some(Concentrations::default().with(p, Concentration::new(ug_m3).unwrap())); n]
    }

    /// µg/m³ at 20 °C of a gas that is `at_25` µg/m³ at 25 °C.
    fn gas(at_25: f64) -> f64 {
        at_25 * crate::pollutant::MOLAR_VOLUME_25C / crate::pollutant::MOLAR_VOLUME_20C
    }

    fn value(p: Pollutant, ug_m3: f64, n: usize) -> u16 {
        reading(&hours(p, ug_m3, n)).unwrap().value
    }

    #[test]
    fn particles_read_the_24_hour_rows_on_both_sides_of_a_breakpoint() {
        assert_eq!(value(Pollutant::Pm25, 35.0, 24), 50);
        assert_eq!(value(Pollutant::Pm25, 35.1, 24), 51);
        assert_eq!(value(Pollutant::Pm25, 150.0, 24), 200);
        assert_eq!(value(Pollutant::Pm25, 250.0, 24), 300);
        assert_eq!(value(Pollutant::Pm10, 150.0, 24), 100);
        assert_eq!(value(Pollutant::Pm10, 151.0, 24), 101);
        assert_eq!(value(Pollutant::Pm10, 420.0, 24), 300);
        let past = reading(&hours(Pollutant::Pm25, 600.0, 24)).unwrap();
        assert_eq!(
            (past.value, past.at_least, past.colour),
            (500, true, "#7e0023")
        );
        // 19 hours are too few for the 24-hour mean.
        assert_eq!(reading(&hours(Pollutant::Pm25, 60.0, 19)), None);
    }

    #[test]
    fn gases_read_the_hourly_rows_at_25_degrees() {
        assert_eq!(value(Pollutant::No2, gas(100.0), 1), 50);
        assert_eq!(value(Pollutant::No2, gas(200.0), 1), 100);
        assert_eq!(value(Pollutant::No2, gas(201.0), 1), 101);
        assert_eq!(value(Pollutant::Co, gas(10_000.0), 1), 100);
        assert_eq!(value(Pollutant::Co, gas(10_100.0), 1), 101);
        assert_eq!(value(Pollutant::So2, gas(150.0), 1), 50);
        assert_eq!(value(Pollutant::So2, gas(800.0), 1), 200);
        // Past 800 with no 24-hour mean: 200, a lower bound.
        let so2 = reading(&hours(Pollutant::So2, gas(900.0), 1)).unwrap();
        assert_eq!((so2.value, so2.at_least), (200, true));
        // With a day at 900: the 24-hour rows, 1600 > 900 > 800, so 200 + 100 · 100 / 800.
        assert_eq!(value(Pollutant::So2, gas(900.0), 24), 213);
    }

    #[test]
    fn ozone_takes_the_higher_of_its_hour_and_its_8_hour_mean() {
        // Eight hours at 160 (25 °C): 8-hour IAQI 100, 1-hour IAQI 50.
        let r = reading(&hours(Pollutant::O3, gas(160.0), 8)).unwrap();
        assert_eq!((r.value, r.dominant), (100, Pollutant::O3));
        // One hour alone: no 8-hour mean, the 1-hour IAQI.
        assert_eq!(value(Pollutant::O3, gas(160.0), 1), 50);
        // 161 is 50 + 50 · 1 / 40 = 51.25, rounded up.
        assert_eq!(value(Pollutant::O3, gas(161.0), 1), 52);
    }
}
