//! Canada's Air Quality Health Index (AQHI), published by Environment and Climate Change
//! Canada from the formula of Stieb et al., *A new multipollutant, no-threshold air quality
//! health index based on short-term associations observed in daily time-series analyses*,
//! J. Air & Waste Manage. Assoc. 58:435–450 (2008):
//!
//! AQHI = (10 / 10.4) × 100 × [(e^(0.000871·NO₂) − 1) + (e^(0.000537·O₃) − 1) + (e^(0.000487·PM2.5) − 1)]
//!
//! with 3-hour means of NO₂ and O₃ in ppb and of PM2.5 in µg/m³, rounded to a whole number:
//! 1–3 Low risk, 4–6 Moderate risk, 7–10 High risk, above 10 ("10+") Very high risk. The
//! value is given as computed (an 11 is ECCC's "10+"); below 1 it is 1, the scale's floor.
//! Colours are ECCC's, one per value.
//!
//! The index needs all three pollutants. ECCC states no completeness rule for the 3-hour
//! means here; two of the three hours are asked, so that one missing hour does not blank the
//! index while a mean still rests on most of its hours. The dominant pollutant is the one with
//! the largest term: the one that adds most to the value.
//!
//! ```
//! use aq_core::national::canada_aqhi;
//! use aq_core::{Concentration, Concentrations, Pollutant, STATED_AT};
//!
//! let ppb = |p, v| Concentration::from_ppb(p, v, STATED_AT).unwrap().unwrap();
//! // 20 ppb of NO₂, 30 of O₃ and 10 µg/m³ of PM2.5 for three hours: 3.72, so 4, Moderate risk.
//! let hour = Concentrations::default()
//!     .with(Pollutant::No2, ppb(Pollutant::No2, 20.0))
//!     .with(Pollutant::O3, ppb(Pollutant::O3, 30.0))
//!     .with(Pollutant::Pm25, Concentration::new(10.0).unwrap());
//! let r = canada_aqhi::reading(&[Some(hour); 3]).unwrap();
//! assert_eq!((r.value, r.category, r.dominant), (4, "Moderate risk", Pollutant::No2));
//! ```

use super::average::{mean, ppb};
use super::{NationalReading, highest};
use crate::pollutant::{Concentrations, Pollutant};

/// Hours of each mean, and how many of them must have a value.
const SPAN: usize = 3;
const NEEDED: usize = 2;

/// The AQHI before rounding, from 3-hour means: NO₂ and O₃ in ppb, PM2.5 in µg/m³.
///
/// ```
/// use aq_core::national::canada_aqhi::raw;
///
/// assert_eq!(raw(0.0, 0.0, 0.0), 0.0);
/// assert!((raw(20.0, 30.0, 10.0) - 3.72).abs() < 0.01);
/// ```
#[must_use]
pub fn raw(no2_ppb: f64, o3_ppb: f64, pm25_ug_m3: f64) -> f64 {
    let terms = terms(no2_ppb, o3_ppb, pm25_ug_m3);
    terms.iter().sum::<f64>() * 1000.0 / 10.4
}

fn terms(no2_ppb: f64, o3_ppb: f64, pm25_ug_m3: f64) -> [f64; 3] {
    [
        (0.000_871 * no2_ppb).exp_m1(),
        (0.000_537 * o3_ppb).exp_m1(),
        (0.000_487 * pm25_ug_m3).exp_m1(),
    ]
}

/// ECCC's name for the risk of `value`.
///
/// ```
/// use aq_core::national::canada_aqhi::category;
///
/// assert_eq!([category(3), category(4), category(10), category(11)], ["Low risk", "Moderate risk", "High risk", "Very high risk"]);
/// ```
#[must_use]
pub fn category(value: u16) -> &'static str {
    match value {
        0..=3 => "Low risk",
        4..=6 => "Moderate risk",
        7..=10 => "High risk",
        _ => "Very high risk",
    }
}

/// ECCC's colour for `value`.
#[must_use]
pub fn colour(value: u16) -> &'static str {
    match value {
        0 | 1 => "#00ccff",
        2 => "#0099cc",
        3 => "#006699",
        4 => "#ffff00",
        5 => "#ffcc00",
        6 => "#ff9933",
        7 => "#ff6666",
        8 => "#ff0000",
        9 => "#cc0000",
        10 => "#990000",
        _ => "#660000",
    }
}

/// The AQHI of `hours[0]` from `hours` (newest first); `None` unless all three pollutants
/// have their 3-hour means.
#[must_use]
pub fn reading(hours: &[Option<Concentrations>]) -> Option<NationalReading> {
    let no2 = ppb(Pollutant::No2, mean(hours, Pollutant::No2, SPAN, NEEDED)?)?;
    let o3 = ppb(Pollutant::O3, mean(hours, Pollutant::O3, SPAN, NEEDED)?)?;
    let pm25 = mean(hours, Pollutant::Pm25, SPAN, NEEDED)?;
    let [a, b, c] = terms(no2, o3, pm25);
    let (dominant, _) = highest([
        (Pollutant::Pm25, c),
        (Pollutant::No2, a),
        (Pollutant::O3, b),
    ])?;
    // Finite and not negative; u16::MAX caps air no instrument reads.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let value = ((raw(no2, o3, pm25) + 0.5)
        .floor()
        .clamp(1.0, f64::from(u16::MAX))) as u16;
    Some(NationalReading {
        value,
        category: category(value),
        colour: colour(value),
        dominant,
        at_least: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pollutant::{Concentration, STATED_AT};

    fn hour(no2: f64, o3: f64, pm25: f64) -> Option<Concentrations> {
        let ppb = |p, v| Concentration::from_ppb(p, v, STATED_AT).unwrap().unwrap();
        Some(
            Concentrations::default()
                .with(Pollutant::No2, ppb(Pollutant::No2, no2))
                .with(Pollutant::O3, ppb(Pollutant::O3, o3))
                .with(Pollutant::Pm25, Concentration::new(pm25).unwrap()),
        )
    }

    #[test]
    fn the_formula_rounds_to_the_scale_and_its_risks() {
        // PM2.5 alone: 1000 / 10.4 × (e^(0.000487·c) − 1) crosses 3.5 at c ≈ 73.4 µg/m³.
        let at = |pm: f64| reading(&[hour(0.0, 0.0, pm); 3]).unwrap();
        assert_eq!((at(73.3).value, at(73.5).value), (3, 4));
        assert_eq!(at(73.5).category, "Moderate risk");
        // Clean air still reads 1, the scale's floor.
        assert_eq!(at(0.0).value, 1);
        // Past 10.5: 11, "10+", Very high risk.
        let smoke = at(230.0);
        assert_eq!(
            (smoke.value, smoke.category, smoke.colour),
            (11, "Very high risk", "#660000")
        );
    }

    #[test]
    fn three_hour_means_need_two_hours_and_all_three_pollutants() {
        let h = hour(20.0, 30.0, 10.0);
        assert!(reading(&[h, None, h]).is_some());
        assert_eq!(reading(&[h, None, None]), None);
        let no_ozone = Some(
            h.unwrap()
                .with(Pollutant::O3, Concentration::new(0.0).unwrap()),
        );
        assert!(reading(&[no_ozone; 3]).is_some());
        let mut missing = Concentrations::default();
        missing.set(Pollutant::No2, Concentration::new(30.0).unwrap());
        assert_eq!(reading(&[Some(missing); 3]), None);
    }
}
