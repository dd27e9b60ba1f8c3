//! The UK Daily Air Quality Index (DAQI): bands 1 to 10 in four groups, Low (1–3), Moderate
//! (4–6), High (7–9) and Very High (10), recommended by COMEAP (*Review of the UK Air Quality
//! Index*, 2011) and published by Defra on UK-AIR (*Daily Air Quality Index*, boundaries
//! between index points, in use since 1 January 2012).
//!
//! Each pollutant's band is read off its own boundaries with its own averaging:
//!
//! | pollutant | averaging | band 1 tops at (µg/m³) … band 9 tops at |
//! |---|---|---|
//! | O₃ | running 8-hour mean | 33, 66, 100, 120, 140, 160, 187, 213, 240 |
//! | NO₂ | hourly mean | 67, 134, 200, 267, 334, 400, 467, 534, 600 |
//! | SO₂ | 15-minute mean | 88, 177, 266, 354, 443, 532, 710, 887, 1064 |
//! | PM2.5 | 24-hour mean | 11, 23, 35, 41, 47, 53, 58, 64, 70 |
//! | PM10 | 24-hour mean | 16, 33, 50, 58, 66, 75, 83, 91, 100 |
//!
//! Above band 9's top is band 10. Defra shows its latest measurements with the running
//! 24-hour mean of particles (the 24 hours ending with the hour), as here. Sources give hours,
//! not quarter-hours, so SO₂'s hourly value stands in for its 15-minute mean: a quarter-hour
//! peak inside the hour can be higher than the hour's mean, so this band can read lower than
//! Defra's own. The concentrations are rounded to whole µg/m³, the precision the boundaries
//! are written in.
//!
//! A running mean counts when 75 % of its hours have a value (18 of 24, 6 of 8): the data
//! capture UK and EU air-quality reporting asks of a mean. The index is the highest band over
//! the pollutants that have one, and its dominant pollutant the one that sets it.
//!
//! ```
//! use aq_core::national::uk_daqi;
//! use aq_core::{Concentration, Concentrations, Pollutant};
//!
//! // 201 µg/m³ of NO₂ this hour: band 4, the first Moderate one (200 is still band 3).
//! let no2 = |v| Some(Concentrations::default().with(Pollutant::No2, Concentration::new(v).unwrap()));
//! assert_eq!(uk_daqi::reading(&[no2(201.0)]).unwrap().value, 4);
//! assert_eq!(uk_daqi::reading(&[no2(200.0)]).unwrap().category, "Low");
//! ```

use super::average::{mean, now};
use super::{NationalReading, highest};
use crate::pollutant::{Concentrations, Pollutant};

/// The top of bands 1 to 9 of each pollutant, µg/m³.
fn tops(pollutant: Pollutant) -> Option<[u16; 9]> {
    match pollutant {
        Pollutant::O3 => Some([33, 66, 100, 120, 140, 160, 187, 213, 240]),
        Pollutant::No2 => Some([67, 134, 200, 267, 334, 400, 467, 534, 600]),
        Pollutant::So2 => Some([88, 177, 266, 354, 443, 532, 710, 887, 1064]),
        Pollutant::Pm25 => Some([11, 23, 35, 41, 47, 53, 58, 64, 70]),
        Pollutant::Pm10 => Some([16, 33, 50, 58, 66, 75, 83, 91, 100]),
        Pollutant::Co => None,
    }
}

/// The concentration the band of `pollutant` is read from.
fn averaged(hours: &[Option<Concentrations>], pollutant: Pollutant) -> Option<f64> {
    match pollutant {
        Pollutant::O3 => mean(hours, pollutant, 8, 6),
        Pollutant::Pm25 | Pollutant::Pm10 => mean(hours, pollutant, 24, 18),
        Pollutant::No2 | Pollutant::So2 => now(hours, pollutant),
        Pollutant::Co => None,
    }
}

/// The band (1 to 10) of `ug_m3` of `pollutant`; `None` for a pollutant the index leaves out.
///
/// ```
/// use aq_core::national::uk_daqi::band;
/// use aq_core::Pollutant;
///
/// assert_eq!(band(Pollutant::Pm25, 35.0), Some(3));
/// assert_eq!(band(Pollutant::Pm25, 36.0), Some(4));
/// assert_eq!(band(Pollutant::Pm10, 101.0), Some(10));
/// assert_eq!(band(Pollutant::Co, 5000.0), None);
/// ```
#[must_use]
pub fn band(pollutant: Pollutant, ug_m3: f64) -> Option<u16> {
    let tops = tops(pollutant)?;
    let c = (ug_m3 + 0.5).floor();
    let below = tops.iter().take_while(|&&top| c > f64::from(top)).count();
    u16::try_from(below + 1).ok()
}

/// The group Defra names a band by.
///
/// ```
/// use aq_core::national::uk_daqi::category;
///
/// assert_eq!([category(3), category(4), category(9), category(10)], ["Low", "Moderate", "High", "Very High"]);
/// ```
#[must_use]
pub fn category(band: u16) -> &'static str {
    match band {
        0..=3 => "Low",
        4..=6 => "Moderate",
        7..=9 => "High",
        _ => "Very High",
    }
}

/// The colour UK-AIR draws a band in.
#[must_use]
pub fn colour(band: u16) -> &'static str {
    match band {
        0 | 1 => "#9cff9c",
        2 => "#31ff00",
        3 => "#31cf00",
        4 => "#ffff00",
        5 => "#ffcf00",
        6 => "#ff9a00",
        7 => "#ff6464",
        8 => "#ff0000",
        9 => "#990000",
        _ => "#ce30ff",
    }
}

/// The DAQI of `hours[0]` from `hours` (newest first); `None` when no pollutant has a band.
#[must_use]
pub fn reading(hours: &[Option<Concentrations>]) -> Option<NationalReading> {
    let bands = Pollutant::ALL
        .into_iter()
        .filter_map(|p| Some((p, band(p, averaged(hours, p)?)?)));
    let (dominant, value) = highest(bands)?;
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
    use crate::pollutant::Concentration;

    fn one(p: Pollutant, v: f64) -> Option<Concentrations> {
        Some(Concentrations::default().with(p, Concentration::new(v).unwrap()))
    }

    #[test]
    fn every_boundary_reads_its_band_and_the_next_microgram_the_next() {
        for p in [
            Pollutant::O3,
            Pollutant::No2,
            Pollutant::So2,
            Pollutant::Pm25,
            Pollutant::Pm10,
        ] {
            for (i, top) in tops(p).unwrap().into_iter().enumerate() {
                let b = u16::try_from(i + 1).unwrap();
                assert_eq!(band(p, f64::from(top)), Some(b), "{p:?} {top}");
                assert_eq!(band(p, f64::from(top) + 1.0), Some(b + 1), "{p:?} {top}");
            }
        }
        // Rounded to whole µg/m³ first: 200.4 of NO₂ is 200, band 3; 200.5 is 201, band 4.
        assert_eq!(band(Pollutant::No2, 200.4), Some(3));
        assert_eq!(band(Pollutant::No2, 200.5), Some(4));
    }

    #[test]
    fn particles_read_their_24_hour_mean_and_ozone_its_8_hour_mean() {
        // A spike of 80 µg/m³ of PM2.5 this hour after 23 hours of 10: the mean is 12.9,
        // band 2, not the hour's band 10.
        let mut hours = vec![one(Pollutant::Pm25, 80.0)];
        hours.extend(vec![one(Pollutant::Pm25, 10.0); 23]);
        let r = reading(&hours).unwrap();
        assert_eq!((r.value, r.dominant), (2, Pollutant::Pm25));
        // 17 of 24 hours are under 75 %: no mean, no band.
        assert_eq!(reading(&hours[..17]), None);
        // Ozone at 130 for 6 of 8 hours: band 5.
        let o3 = vec![one(Pollutant::O3, 130.0); 6];
        assert_eq!(reading(&o3).unwrap().value, 5);
        assert_eq!(reading(&o3[..5]), None);
    }

    #[test]
    fn the_highest_band_sets_the_index_and_names_the_pollutant() {
        let hour = Concentrations::default()
            .with(Pollutant::No2, Concentration::new(450.0).unwrap())
            .with(Pollutant::So2, Concentration::new(100.0).unwrap());
        let r = reading(&[Some(hour)]).unwrap();
        assert_eq!(
            (r.value, r.category, r.colour, r.dominant),
            (7, "High", "#ff6464", Pollutant::No2)
        );
    }
}
