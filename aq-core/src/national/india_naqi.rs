//! India's National Air Quality Index (NAQI), from the Central Pollution Control Board's
//! *National Air Quality Index* (CPCB, October 2014): sub-indices 0 to 500 by linear
//! interpolation inside each pollutant's row of health breakpoints, the highest of them the
//! index, in six categories: Good (0–50), Satisfactory (51–100), Moderate (101–200), Poor
//! (201–300), Very Poor (301–400) and Severe (401–500).
//!
//! | pollutant | averaging | Good | Satisfactory | Moderate | Poor | Very Poor | Severe |
//! |---|---|---|---|---|---|---|---|
//! | PM10 µg/m³ | 24 h | 0–50 | 51–100 | 101–250 | 251–350 | 351–430 | 430+ |
//! | PM2.5 µg/m³ | 24 h | 0–30 | 31–60 | 61–90 | 91–120 | 121–250 | 250+ |
//! | NO₂ µg/m³ | 24 h | 0–40 | 41–80 | 81–180 | 181–280 | 281–400 | 400+ |
//! | O₃ µg/m³ | 8 h, then 1 h | 0–50 | 51–100 | 101–168 | 169–208 | 209–748 (1 h) | 748+ (1 h) |
//! | CO mg/m³ | 8 h | 0–1.0 | 1.1–2.0 | 2.1–10 | 10.1–17 | 17.1–34 | 34+ |
//! | SO₂ µg/m³ | 24 h | 0–40 | 41–80 | 81–380 | 381–800 | 801–1600 | 1600+ |
//!
//! (NH₃ and lead complete CPCB's table; sources here give neither.) Concentrations are
//! truncated to the table's precision (whole µg/m³, a tenth of a mg/m³ of CO) before they are
//! read, which closes the table's gaps (30 to 31) without a fall in between. CPCB writes the
//! Severe row open-ended; here it has the Very Poor row's width (PM2.5 251–380, PM10
//! 431–510, and so on), continuing that row's slope to 500, and air beyond it reads 500 as a
//! lower bound.
//!
//! Ozone's Very Poor and Severe rows are hourly values: an 8-hour mean above 208 µg/m³ puts
//! ozone at 301 or more, by how much the hour's own value says.
//!
//! CPCB's completeness rules: a sub-index needs 16 hours of a 24-hour mean (8-hour means,
//! for which CPCB states none, need 6 of 8 here, the usual 75 %), and the index needs at
//! least three sub-indices, one of them PM2.5 or PM10. CPCB's online index uses running
//! means (the index at 06:00 reads the 24 hours from 06:00 the day before), as here.
//!
//! ```
//! use aq_core::national::india_naqi;
//! use aq_core::{Concentration, Concentrations, Pollutant};
//!
//! // A day of 60 µg/m³ PM2.5, 30 of NO₂ and 20 of SO₂: PM2.5's sub-index 100 sets it.
//! let hour = Concentrations::default()
//!     .with(Pollutant::Pm25, Concentration::new(60.0).unwrap())
//!     .with(Pollutant::No2, Concentration::new(30.0).unwrap())
//!     .with(Pollutant::So2, Concentration::new(20.0).unwrap());
//! let r = india_naqi::reading(&vec![Some(hour); 24]).unwrap();
//! assert_eq!((r.value, r.category, r.dominant), (100, "Satisfactory", Pollutant::Pm25));
//! ```

use super::average::{mean, now};
use super::breakpoints::{Read, Row, read, row, truncate};
use super::{NationalReading, highest};
use crate::pollutant::{Concentrations, Pollutant};

/// A 24-hour sub-index needs this many hours (CPCB).
const DAY_HOURS_NEEDED: usize = 16;
/// An 8-hour one this many (75 %).
const EIGHT_HOURS_NEEDED: usize = 6;

/// The rows of a pollutant averaged as its table says, Severe given the Very Poor row's width.
fn rows(pollutant: Pollutant) -> [Row; 6] {
    match pollutant {
        Pollutant::Pm10 => table([50.0, 100.0, 250.0, 350.0, 430.0], 1.0),
        Pollutant::Pm25 => table([30.0, 60.0, 90.0, 120.0, 250.0], 1.0),
        Pollutant::No2 => table([40.0, 80.0, 180.0, 280.0, 400.0], 1.0),
        Pollutant::So2 => table([40.0, 80.0, 380.0, 800.0, 1600.0], 1.0),
        Pollutant::Co => table([1.0, 2.0, 10.0, 17.0, 34.0], 0.1),
        Pollutant::O3 => table([50.0, 100.0, 168.0, 208.0, 748.0], 1.0),
    }
}

/// Six rows from the tops of the first five, each next row starting one `step` (the table's
/// precision) above the last one's top.
fn table(tops: [f64; 5], step: f64) -> [Row; 6] {
    let index = [0.0, 50.0, 100.0, 200.0, 300.0, 400.0, 500.0];
    let lows = [
        0.0,
        tops[0] + step,
        tops[1] + step,
        tops[2] + step,
        tops[3] + step,
        tops[4] + step,
    ];
    let very_poor_width = tops[4] - lows[4];
    let tops = [
        tops[0],
        tops[1],
        tops[2],
        tops[3],
        tops[4],
        lows[5] + very_poor_width,
    ];
    std::array::from_fn(|k| {
        let i_lo = if k == 0 { 0.0 } else { index[k] + 1.0 };
        row(lows[k], tops[k], i_lo, index[k + 1])
    })
}

/// A sub-index: its value and whether the air is past the table.
type SubIndex = (f64, bool);

/// The sub-index of `c` (in the table's unit) on `rows`.
fn sub_index(rows: &[Row], c: f64, decimals: i32) -> SubIndex {
    match read(rows, truncate(c, decimals)) {
        Read::Index(i) => (i, false),
        Read::Beyond => (500.0, true),
    }
}

/// The sub-index of `pollutant` over `hours`; `None` without the hours it needs.
fn pollutant_sub_index(hours: &[Option<Concentrations>], pollutant: Pollutant) -> Option<SubIndex> {
    let rows = rows(pollutant);
    match pollutant {
        Pollutant::Pm10 | Pollutant::Pm25 | Pollutant::No2 | Pollutant::So2 => {
            let c = mean(hours, pollutant, 24, DAY_HOURS_NEEDED)?;
            Some(sub_index(&rows, c, 0))
        }
        Pollutant::Co => {
            let mg = mean(hours, pollutant, 8, EIGHT_HOURS_NEEDED)? / 1000.0;
            Some(sub_index(&rows, mg, 1))
        }
        Pollutant::O3 => {
            let eight = mean(hours, pollutant, 8, EIGHT_HOURS_NEEDED);
            let hour = now(hours, pollutant).map(|h| truncate(h, 0));
            let poor_top = rows[3].c_hi;
            match (eight.map(|m| truncate(m, 0)), hour) {
                (Some(m), _) if m <= poor_top => Some(sub_index(&rows[..4], m, 0)),
                // Past Poor on the 8-hour mean: the hourly rows say how far, and never less
                // than Very Poor's first value.
                (Some(_), h) => {
                    let (i, beyond) = h
                        .filter(|&h| h > poor_top)
                        .map_or((301.0, false), |h| sub_index(&rows, h, 0));
                    Some((i.max(301.0), beyond))
                }
                (None, Some(h)) if h > poor_top => Some(sub_index(&rows, h, 0)),
                (None, _) => None,
            }
        }
    }
}

/// CPCB's name for the category of `value`.
///
/// ```
/// use aq_core::national::india_naqi::category;
///
/// assert_eq!([category(100), category(101), category(401)], ["Satisfactory", "Moderate", "Severe"]);
/// ```
#[must_use]
pub fn category(value: u16) -> &'static str {
    match value {
        0..=50 => "Good",
        51..=100 => "Satisfactory",
        101..=200 => "Moderate",
        201..=300 => "Poor",
        301..=400 => "Very Poor",
        _ => "Severe",
    }
}

/// The colour CPCB draws the category of `value` in.
#[must_use]
pub fn colour(value: u16) -> &'static str {
    match value {
        0..=50 => "#00b050",
        51..=100 => "#92d051",
        101..=200 => "#ffff00",
        201..=300 => "#ff6500",
        301..=400 => "#ff0000",
        _ => "#c00000",
    }
}

/// The NAQI of `hours[0]` from `hours` (newest first); `None` when fewer than three
/// pollutants, or no particles, have a sub-index.
#[must_use]
pub fn reading(hours: &[Option<Concentrations>]) -> Option<NationalReading> {
    let subs: Vec<(Pollutant, SubIndex)> = Pollutant::ALL
        .into_iter()
        .filter_map(|p| Some((p, pollutant_sub_index(hours, p)?)))
        .collect();
    let particles = subs
        .iter()
        .any(|(p, _)| matches!(p, Pollutant::Pm25 | Pollutant::Pm10));
    if subs.len() < 3 || !particles {
        return None;
    }
    // Compared as (value, at least): on a tie the value that is only a lower bound sets the
    // index, so a reading at the table's end never hides one past it.
    let (dominant, (value, at_least)) = highest(subs.iter().copied())?;
    let value = round_half_up(value);
    Some(NationalReading {
        value,
        category: category(value),
        colour: colour(value),
        dominant,
        at_least,
    })
}

/// `v` (0 to 500) rounded half up.
fn round_half_up(v: f64) -> u16 {
    // In 0..=500, so the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let r = (v + 0.5).floor().clamp(0.0, 500.0) as u16;
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pollutant::Concentration;

    fn day(values: &[(Pollutant, f64)]) -> Vec<Option<Concentrations>> {
        let mut c = Concentrations::default();
        for &(p, v) in values {
            c.set(p, Concentration::new(v).unwrap());
        }
        vec![Some(c); 24]
    }

    fn pm25(v: f64) -> u16 {
        reading(&day(&[
            (Pollutant::Pm25, v),
            (Pollutant::No2, 1.0),
            (Pollutant::So2, 1.0),
        ]))
        .unwrap()
        .value
    }

    #[test]
    fn breakpoints_read_on_both_sides() {
        // CPCB's own example: PM2.5 at 31 µg/m³ is 51, at 60 is 100, at 45 is 75.
        assert_eq!((pm25(30.0), pm25(31.0)), (50, 51));
        assert_eq!((pm25(45.0), pm25(60.0), pm25(61.0)), (75, 100, 101));
        assert_eq!((pm25(250.0), pm25(251.0)), (400, 401));
        // Truncated first: 30.9 is 30.
        assert_eq!(pm25(30.9), 50);
        // Severe continues Very Poor's slope: 380 is 500, beyond it 500 at least.
        assert_eq!(pm25(380.0), 500);
        let past = reading(&day(&[
            (Pollutant::Pm25, 900.0),
            (Pollutant::No2, 1.0),
            (Pollutant::So2, 1.0),
        ]))
        .unwrap();
        assert_eq!(
            (past.value, past.at_least, past.category),
            (500, true, "Severe")
        );
        // PM10 at 100 is 100, at 101 is 101; NO₂ at 180 is 200, 181 is 201.
        let pm10 = |v| {
            reading(&day(&[
                (Pollutant::Pm10, v),
                (Pollutant::No2, 1.0),
                (Pollutant::So2, 1.0),
            ]))
            .unwrap()
        };
        assert_eq!((pm10(100.0).value, pm10(101.0).value), (100, 101));
        let no2 = |v| {
            reading(&day(&[
                (Pollutant::Pm10, 1.0),
                (Pollutant::No2, v),
                (Pollutant::So2, 1.0),
            ]))
            .unwrap()
        };
        assert_eq!((no2(180.0).value, no2(181.0).value), (200, 201));
        assert_eq!(no2(181.0).dominant, Pollutant::No2);
    }

    #[test]
    fn carbon_monoxide_reads_milligrams_to_a_tenth() {
        let co = |mg: f64| {
            reading(&day(&[
                (Pollutant::Pm10, 1.0),
                (Pollutant::No2, 1.0),
                (Pollutant::Co, mg * 1000.0),
            ]))
            .unwrap()
            .value
        };
        assert_eq!(
            (co(1.0), co(1.1), co(2.0), co(2.1), co(10.0)),
            (50, 51, 100, 101, 200)
        );
    }

    #[test]
    fn ozone_past_poor_reads_the_hourly_rows() {
        let o3 = |eight: f64, hour: f64| {
            let mut hours = day(&[
                (Pollutant::Pm10, 1.0),
                (Pollutant::No2, 1.0),
                (Pollutant::O3, eight),
            ]);
            hours[0] = Some(
                hours[0]
                    .unwrap()
                    .with(Pollutant::O3, Concentration::new(hour).unwrap()),
            );
            reading(&hours).unwrap()
        };
        // Eight hours at 208 (the day's other pollutants for 24): Poor's top, 300.
        assert_eq!(o3(208.0, 208.0).value, 300);
        // The mean past 208 with a quiet last hour: Very Poor's first value.
        assert_eq!(o3(300.0, 100.0).value, 301);
        // An hour at 748: Very Poor's top.
        assert_eq!(o3(748.0, 748.0).value, 400);
    }

    #[test]
    fn three_pollutants_and_particles_are_needed() {
        assert_eq!(
            reading(&day(&[(Pollutant::Pm25, 40.0), (Pollutant::No2, 20.0)])),
            None
        );
        assert_eq!(
            reading(&day(&[
                (Pollutant::So2, 40.0),
                (Pollutant::No2, 20.0),
                (Pollutant::Co, 500.0)
            ])),
            None
        );
        // 15 hours of a day are too few for a 24-hour sub-index.
        let short = &day(&[
            (Pollutant::Pm25, 40.0),
            (Pollutant::No2, 20.0),
            (Pollutant::So2, 5.0),
        ])[..15];
        assert_eq!(reading(short), None);
    }
}
