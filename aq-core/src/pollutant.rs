//! Pollutants and their mass concentrations.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// An air pollutant that the service understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pollutant {
    /// Fine particulate matter, diameter ≤ 2.5 µm.
    Pm25,
    /// Coarse particulate matter, diameter ≤ 10 µm.
    Pm10,
    /// Nitrogen dioxide.
    No2,
    /// Ozone.
    O3,
    /// Sulphur dioxide.
    So2,
    /// Carbon monoxide.
    Co,
}

impl Pollutant {
    /// Every pollutant, in a fixed order (the order of [`Concentrations`] iteration).
    pub const ALL: [Pollutant; 6] = [
        Pollutant::Pm25,
        Pollutant::Pm10,
        Pollutant::No2,
        Pollutant::O3,
        Pollutant::So2,
        Pollutant::Co,
    ];

    /// Molar mass in g/mol for the gases, used to convert between µg/m³ and ppb; `None` for
    /// particulate matter, which has no molar mass.
    #[must_use]
    pub fn molar_mass(self) -> Option<f64> {
        match self {
            Pollutant::Pm25 | Pollutant::Pm10 => None,
            Pollutant::No2 => Some(46.0055),
            Pollutant::O3 => Some(47.9982),
            Pollutant::So2 => Some(64.066),
            Pollutant::Co => Some(28.0101),
        }
    }

    /// The short code station files and the API's answers name it by: `pm25`, `pm10`, `no2`,
    /// `o3`, `so2`, `co`.
    ///
    /// ```
    /// use aq_core::Pollutant;
    ///
    /// assert_eq!(Pollutant::Pm25.code(), "pm25");
    /// ```
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            Pollutant::Pm25 => "pm25",
            Pollutant::Pm10 => "pm10",
            Pollutant::No2 => "no2",
            Pollutant::O3 => "o3",
            Pollutant::So2 => "so2",
            Pollutant::Co => "co",
        }
    }

    /// The usual display name, such as `PM2.5` or `NO₂`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Pollutant::Pm25 => "PM2.5",
            Pollutant::Pm10 => "PM10",
            Pollutant::No2 => "NO₂",
            Pollutant::O3 => "O₃",
            Pollutant::So2 => "SO₂",
            Pollutant::Co => "CO",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Pollutant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Litres occupied by one mole of an ideal gas at 20 °C and 101.325 kPa: the reference
/// conditions of EU air-quality law (Directive 2008/50/EC, Annex VII: gases standardised at
/// 293 K and 101.3 kPa), and so of the EEA's index bands.
pub const MOLAR_VOLUME_20C: f64 = 24.055;

/// Litres occupied by one mole of an ideal gas at 25 °C and 1 atm: the reference conditions of
/// the US EPA, under which ppb = µg/m³ × 24.45 / molar mass.
pub const MOLAR_VOLUME_25C: f64 = 24.45;

/// The temperature and pressure at which a gas's mixing ratio (ppb, ppm) and its mass
/// concentration (µg/m³) are converted: the one place that knows both.
///
/// ```
/// use aq_core::{Concentration, Pollutant, ReferenceConditions};
///
/// // 100 ppb of NO₂: 191.3 µg/m³ at the EEA's 20 °C, 188.2 at the EPA's 25 °C.
/// let eea = Concentration::from_ppb(Pollutant::No2, 100.0, ReferenceConditions::Eea20C);
/// let epa = Concentration::from_ppb(Pollutant::No2, 100.0, ReferenceConditions::Epa25C);
/// assert!((eea.unwrap().unwrap().ug_m3() - 191.25).abs() < 0.01);
/// assert!((epa.unwrap().unwrap().ug_m3() - 188.16).abs() < 0.01);
/// ```
///
/// Every µg/m³ in the project is stated at [`STATED_AT`]: a reading in ppb comes in at those
/// conditions and a US AQI's ppb goes out at them, so a mixing ratio converted in and back out
/// is the mixing ratio read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReferenceConditions {
    /// 20 °C and 101.325 kPa, for the European bands (EEA, EU directives).
    Eea20C,
    /// 25 °C and 1 atm, for the US EPA AQI.
    Epa25C,
}

/// The conditions at which every mass concentration of the project is stated: the EEA's 20 °C
/// and 101.325 kPa, since the cleanliness index reads the European bands (stated at them).
/// Sources convert mixing ratios in at them (OpenAQ's ppb, CAMS's mixing ratios), and the US
/// AQI converts back out at them to EPA's ppb and ppm: one temperature per conversion path,
/// so 100 ppb of NO₂ read is 100 ppb in its US AQI, where converting out at EPA's 25 °C would
/// make it 101.6.
///
/// ```
/// use aq_core::{Concentration, Pollutant, STATED_AT};
///
/// let c = Concentration::from_ppb(Pollutant::No2, 100.0, STATED_AT).unwrap().unwrap();
/// assert!((c.to_ppb(Pollutant::No2, STATED_AT).unwrap() - 100.0).abs() < 1e-9);
/// ```
pub const STATED_AT: ReferenceConditions = ReferenceConditions::Eea20C;

impl ReferenceConditions {
    /// Litres per mole of an ideal gas under these conditions.
    #[must_use]
    pub fn molar_volume(self) -> f64 {
        match self {
            ReferenceConditions::Eea20C => MOLAR_VOLUME_20C,
            ReferenceConditions::Epa25C => MOLAR_VOLUME_25C,
        }
    }
}

/// A mass concentration in µg/m³: finite and not negative.
///
/// ```
/// use aq_core::Concentration;
///
/// let c = Concentration::new(12.5).unwrap();
/// assert_eq!(c.ug_m3(), 12.5);
/// assert!(Concentration::new(-1.0).is_err());
/// assert!(Concentration::new(f64::NAN).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Concentration(f64);

/// A concentration that was negative, NaN or infinite.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[error("concentration {0} µg/m³ must be finite and not negative")]
pub struct ConcentrationError(pub f64);

impl Concentration {
    /// A concentration of `ug_m3` micrograms per cubic metre.
    ///
    /// # Errors
    /// [`ConcentrationError`] when the value is negative or not finite.
    pub fn new(ug_m3: f64) -> Result<Self, ConcentrationError> {
        if ug_m3.is_finite() && ug_m3 >= 0.0 {
            Ok(Self(ug_m3))
        } else {
            Err(ConcentrationError(ug_m3))
        }
    }

    /// The value in µg/m³.
    #[must_use]
    pub fn ug_m3(self) -> f64 {
        self.0
    }

    /// A gas concentration given in parts per billion, converted under `at`: the conditions
    /// of the index the value is for ([`ReferenceConditions::Eea20C`] for the CI's European
    /// bands).
    ///
    /// Returns `None` for particulate matter, which has no molar mass.
    ///
    /// # Errors
    /// [`ConcentrationError`] when `ppb` is negative or not finite.
    pub fn from_ppb(
        pollutant: Pollutant,
        ppb: f64,
        at: ReferenceConditions,
    ) -> Result<Option<Self>, ConcentrationError> {
        match pollutant.molar_mass() {
            None => Ok(None),
            Some(mm) => Self::new(ppb * mm / at.molar_volume()).map(Some),
        }
    }

    /// This concentration of the gas `pollutant` in parts per billion under `at`
    /// ([`ReferenceConditions::Epa25C`] for the US AQI's breakpoints); `None` for particulate
    /// matter.
    #[must_use]
    pub fn to_ppb(self, pollutant: Pollutant, at: ReferenceConditions) -> Option<f64> {
        pollutant
            .molar_mass()
            .map(|mm| self.0 * at.molar_volume() / mm)
    }
}

impl TryFrom<f64> for Concentration {
    type Error = ConcentrationError;

    fn try_from(v: f64) -> Result<Self, Self::Error> {
        Self::new(v)
    }
}

impl From<Concentration> for f64 {
    fn from(c: Concentration) -> Self {
        c.0
    }
}

/// The measured concentrations at one place and time; any pollutant may be missing.
///
/// ```
/// use aq_core::{Concentration, Concentrations, Pollutant};
///
/// let mut c = Concentrations::default();
/// c.set(Pollutant::Pm25, Concentration::new(8.0).unwrap());
/// assert_eq!(c.get(Pollutant::Pm25).map(|c| c.ug_m3()), Some(8.0));
/// assert_eq!(c.get(Pollutant::O3), None);
/// assert_eq!(c.iter().count(), 1);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Concentrations {
    values: [Option<Concentration>; 6],
}

impl Concentrations {
    /// The concentration of `pollutant`, if it was measured.
    #[must_use]
    pub fn get(&self, pollutant: Pollutant) -> Option<Concentration> {
        self.values[pollutant.index()]
    }

    /// Records the concentration of `pollutant`, replacing any earlier value.
    pub fn set(&mut self, pollutant: Pollutant, value: Concentration) {
        self.values[pollutant.index()] = Some(value);
    }

    /// Builder form of [`Concentrations::set`].
    #[must_use]
    pub fn with(mut self, pollutant: Pollutant, value: Concentration) -> Self {
        self.set(pollutant, value);
        self
    }

    /// The measured pollutants and their values, in [`Pollutant::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Pollutant, Concentration)> + '_ {
        Pollutant::ALL
            .iter()
            .filter_map(|&p| self.get(p).map(|c| (p, c)))
    }

    /// True when no pollutant was measured.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.iter().all(Option::is_none)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ppb_round_trip_for_gases_only() {
        for at in [ReferenceConditions::Eea20C, ReferenceConditions::Epa25C] {
            for p in Pollutant::ALL {
                let c = Concentration::new(50.0).unwrap();
                match c.to_ppb(p, at) {
                    None => assert!(matches!(p, Pollutant::Pm25 | Pollutant::Pm10)),
                    Some(ppb) => {
                        let back = Concentration::from_ppb(p, ppb, at).unwrap().unwrap();
                        assert!((back.ug_m3() - 50.0).abs() < 1e-9);
                    }
                }
            }
        }
    }

    #[test]
    fn the_same_ppb_is_more_micrograms_at_20_than_at_25_degrees() {
        // 50 ppb of O₃: 47.9982 × 50 / 24.055 = 99.77 µg/m³ at 20 °C, / 24.45 = 98.16 at 25 °C;
        // the ratio is that of the absolute temperatures, 298.15 / 293.15.
        let at = |r| {
            Concentration::from_ppb(Pollutant::O3, 50.0, r)
                .unwrap()
                .unwrap()
                .ug_m3()
        };
        assert!((at(ReferenceConditions::Eea20C) - 99.77).abs() < 0.01);
        assert!((at(ReferenceConditions::Epa25C) - 98.16).abs() < 0.01);
        let ratio = at(ReferenceConditions::Eea20C) / at(ReferenceConditions::Epa25C);
        assert!((ratio - 298.15 / 293.15).abs() < 1e-3, "{ratio}");
    }

    #[test]
    fn concentrations_serde_round_trip() {
        let c = Concentrations::default()
            .with(Pollutant::No2, Concentration::new(31.0).unwrap())
            .with(Pollutant::Co, Concentration::new(400.0).unwrap());
        let json = serde_json::to_string(&c).unwrap();
        let back: Concentrations = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c);
    }
}
