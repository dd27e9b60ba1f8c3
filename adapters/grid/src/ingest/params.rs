//! Which CAMS parameter a GRIB2 message carries, and how its values become µg/m³ or grains/m³.
//!
//! A message is recognised by its product definition section (section 4): discipline 0,
//! parameter category 20 (atmospheric chemical constituents), then
//!
//! | parameter number | template | constituent (code table 4.230) | quantity |
//! |---|---|---|---|
//! | 0, mass density | 4.44, 4.48, 4.50 | 62026 particulate matter, size limit 2.5 µm / 10 µm | PM2.5 / PM10 |
//! | 0, mass density | 4.40 to 4.43 | 5 NO₂, 0 O₃, 8 SO₂, 4 CO | that gas |
//! | 2, mass mixing ratio | 4.40 to 4.43 | 5 NO₂, 0 O₃, 8 SO₂, 4 CO | that gas |
//! | 59, number concentration | 4.40 to 4.43 | 62100 alder, 62101 birch, 62115 olive / 62300 grass / 62201 mugwort, 62200 ragweed | tree / grass / weed pollen |
//!
//! The pollen species are summed into the three types as the Open-Meteo source sums the same
//! six species. Anything else (temperature, another species, another constituent) is not
//! recognised, and the ingest skips it with a log line.
//!
//! Units: mass density is kg m⁻³ on the global grid (× 10⁹ for µg/m³); the European product
//! delivers its surface concentrations already in µg/m³, so on a regional grid they are taken
//! as they are. Mass mixing ratios (kg/kg at the lowest model level) become µg/m³ with
//! [`AIR_DENSITY`]. Pollen counts are grains m⁻³ as delivered.

use aq_core::{PollenType, Pollutant};

use crate::quantity::Quantity;

/// Density of air used to turn a mass mixing ratio into a mass concentration: 1.225 kg/m³, the
/// ICAO standard atmosphere at sea level (15 °C, 1013.25 hPa). The lowest model level lies
/// about 10 m above the ground, where real density varies by roughly ±10 % with temperature
/// and surface pressure (colder, higher, lower pressure); the concentrations carry that error.
pub const AIR_DENSITY: f64 = 1.225;

/// The level the global forecast's gases are read at: model level 137, the lowest of the
/// 137 hybrid levels of the IFS.
pub const LOWEST_MODEL_LEVEL: u32 = 137;

const PARTICULATE_MATTER: u16 = 62026;

/// Where a recognised message's values go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// A quantity of its own.
    Quantity(Quantity),
    /// One species, summed into its pollen type.
    PollenSpecies(PollenType),
}

/// A recognised message: where it goes and the factor from its unit to µg/m³ (or grains/m³).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Recognised {
    pub(crate) target: Target,
    pub(crate) factor: f64,
}

/// Why a message is not taken.
pub(crate) type Skip = String;

fn u16_at(s: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*s.get(i)?, *s.get(i + 1)?]))
}

fn u32_at(s: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_be_bytes([
        *s.get(i)?,
        *s.get(i + 1)?,
        *s.get(i + 2)?,
        *s.get(i + 3)?,
    ]))
}

/// The byte of section 4 octet `octet` (WMO numbering, from 1) within the payload that
/// follows the section's 5-octet header.
fn at(octet: usize) -> usize {
    octet - 6
}

/// Product definition template number.
pub(crate) fn template(s4: &[u8]) -> Option<u16> {
    u16_at(s4, at(8))
}

/// The forecast step in seconds: the unit (code table 4.4) and value of "forecast time" in
/// the template's own layout.
///
/// The `grib` crate reads the step from the templates it knows, but not from 4.50, which
/// ecCodes writes for CAMS's particulate matter; one table of octets read from the raw section
/// 4 that the crate hands out serves every template alike, rather than a second decoder.
pub(crate) fn step_seconds(s4: &[u8]) -> Result<i64, Skip> {
    let tmpl = template(s4).ok_or("section 4 too short")?;
    let unit_octet = match tmpl {
        0..=15 => 18,
        40..=43 => 20,
        44..=47 | 50 => 31,
        48..=49 => 42,
        other => return Err(format!("product definition template 4.{other} not read")),
    };
    let unit = *s4
        .get(at(unit_octet))
        .ok_or("section 4 too short for its template")?;
    let value = u32_at(s4, at(unit_octet + 1)).ok_or("section 4 too short for its template")?;
    let seconds = match unit {
        0 => 60,
        1 => 3600,
        2 => 86_400,
        10 => 3 * 3600,
        11 => 6 * 3600,
        12 => 12 * 3600,
        13 => 1,
        other => return Err(format!("time unit {other} (code table 4.4) not read")),
    };
    Ok(i64::from(value) * seconds)
}

fn gas(constituent: u16) -> Option<Pollutant> {
    match constituent {
        0 => Some(Pollutant::O3),
        4 => Some(Pollutant::Co),
        5 => Some(Pollutant::No2),
        8 => Some(Pollutant::So2),
        _ => None,
    }
}

fn pollen(constituent: u16) -> Option<PollenType> {
    match constituent {
        62100 | 62101 | 62115 => Some(PollenType::Tree),
        62300 => Some(PollenType::Grass),
        62200 | 62201 => Some(PollenType::Weed),
        _ => None,
    }
}

/// The particle size limit of an aerosol template (octets 15 to 19: scale factor, scaled
/// value), in metres.
fn size_limit(s4: &[u8]) -> Option<f64> {
    let scale = i32::from(*s4.get(at(15))?);
    let value = f64::from(u32_at(s4, at(16))?);
    Some(value * 10f64.powi(-scale))
}

/// What the message with section 4 payload `s4` of `discipline` carries, on a grid that is
/// `regional` (not round the globe).
///
/// # Errors
/// Why the message is not taken, for the log line.
pub(crate) fn recognise(discipline: u8, s4: &[u8], regional: bool) -> Result<Recognised, Skip> {
    let tmpl = template(s4).ok_or("section 4 too short")?;
    let (category, number) = (
        *s4.get(at(10)).ok_or("section 4 too short")?,
        *s4.get(at(11)).ok_or("section 4 too short")?,
    );
    let name = || {
        format!("discipline {discipline}, category {category}, number {number}, template 4.{tmpl}")
    };
    if discipline != 0 || category != 20 || !(40..=50).contains(&tmpl) {
        return Err(format!("{}: not a constituent the grid serves", name()));
    }
    let constituent = u16_at(s4, at(12)).ok_or("section 4 too short")?;
    let density = if regional { 1.0 } else { 1e9 };
    let quantity = |p| Target::Quantity(Quantity::Pollutant(p));
    let found = match (number, tmpl) {
        (0, 44 | 48 | 50) if constituent == PARTICULATE_MATTER => {
            let size = size_limit(s4).ok_or("section 4 too short")?;
            let pm = if (size - 2.5e-6).abs() < 1e-9 {
                Pollutant::Pm25
            } else if (size - 1e-5).abs() < 1e-9 {
                Pollutant::Pm10
            } else {
                return Err(format!("{}: particulate matter of size {size} m", name()));
            };
            Some((quantity(pm), density))
        }
        (0, 40..=43) => gas(constituent).map(|p| (quantity(p), density)),
        (2, 40..=43) => {
            let level_type = *s4.get(at(25)).ok_or("section 4 too short")?;
            let level = u32_at(s4, at(27)).ok_or("section 4 too short")?;
            if level_type == 105 && level != LOWEST_MODEL_LEVEL {
                return Err(format!("{}: model level {level}, not the lowest", name()));
            }
            gas(constituent).map(|p| (quantity(p), AIR_DENSITY * 1e9))
        }
        (59, 40..=43) => pollen(constituent).map(|t| (Target::PollenSpecies(t), 1.0)),
        _ => None,
    };
    let (target, factor) =
        found.ok_or_else(|| format!("{}, constituent {constituent}: not served", name()))?;
    Ok(Recognised { target, factor })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section 4 payload of template 4.40 for `number` and `constituent`.
    fn t40(number: u8, constituent: u16, step_hours: u32) -> Vec<u8> {
        let mut s = vec![0u8; 29];
        s[at(8)..at(10)].copy_from_slice(&40u16.to_be_bytes());
        s[at(10)] = 20;
        s[at(11)] = number;
        s[at(12)..at(14)].copy_from_slice(&constituent.to_be_bytes());
        s[at(20)] = 1;
        s[at(21)..at(25)].copy_from_slice(&step_hours.to_be_bytes());
        s[at(25)] = 105;
        s[at(27)..at(31)].copy_from_slice(&137u32.to_be_bytes());
        s
    }

    #[test]
    fn gases_pollen_and_units_are_recognised() {
        let no2 = recognise(0, &t40(2, 5, 3), false).unwrap();
        assert_eq!(
            no2.target,
            Target::Quantity(Quantity::Pollutant(Pollutant::No2))
        );
        assert!((no2.factor - 1.225e9).abs() < 1.0);
        assert_eq!(step_seconds(&t40(2, 5, 3)), Ok(3 * 3600));
        let o3 = recognise(0, &t40(0, 0, 0), true).unwrap();
        assert_eq!(o3.factor, 1.0);
        let birch = recognise(0, &t40(59, 62101, 0), true).unwrap();
        assert_eq!(birch.target, Target::PollenSpecies(PollenType::Tree));
    }

    #[test]
    fn other_levels_constituents_and_disciplines_are_skipped_with_a_reason() {
        let mut high = t40(2, 5, 0);
        high[at(27)..at(31)].copy_from_slice(&60u32.to_be_bytes());
        assert!(
            recognise(0, &high, false)
                .unwrap_err()
                .contains("model level 60")
        );
        assert!(
            recognise(0, &t40(59, 62104, 0), true)
                .unwrap_err()
                .contains("62104")
        );
        assert!(
            recognise(10, &t40(0, 5, 0), true)
                .unwrap_err()
                .contains("discipline 10")
        );
        assert!(recognise(0, &t40(0, 5, 0)[..4], true).is_err());
    }
}
