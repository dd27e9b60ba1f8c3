//! The US EPA Air Quality Index, for display as a "local AQI".
//!
//! Two tables: the one in force since 2024-05-06 (PM2.5 annual standard revision: 9.0 µg/m³
//! tops Good, and one Hazardous band 301–500) and the 2012 table, for comparison with older data.
//! Concentrations are first truncated to the precision EPA prescribes for each pollutant, then
//! interpolated linearly inside their breakpoint row and rounded half up. Both steps work in
//! integers here, so the published worked values come out exactly.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::pollutant::{Concentrations, Pollutant};

/// Which EPA breakpoint table to use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AqiTable {
    /// The table in force since 2024-05-06.
    #[default]
    Epa2024,
    /// The 2012 table, in force until 2024-05-05.
    Epa2012,
}

/// A pollutant together with the averaging period and unit EPA defines its AQI for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EpaMetric {
    /// Ozone, 8-hour mean, ppm, truncated to 3 decimals. Defined up to 0.200 ppm.
    O3EightHour,
    /// Ozone, 1-hour mean, ppm, truncated to 3 decimals. Defined from 0.125 ppm.
    O3OneHour,
    /// PM2.5, 24-hour mean, µg/m³, truncated to 1 decimal.
    Pm25Day,
    /// PM10, 24-hour mean, µg/m³, truncated to an integer.
    Pm10Day,
    /// Carbon monoxide, 8-hour mean, ppm, truncated to 1 decimal.
    CoEightHour,
    /// Sulphur dioxide, 1-hour mean, ppb, truncated to an integer. Defined up to 304 ppb
    /// (AQI 200): EPA computes AQI values above 200 from 24-hour means only.
    So2OneHour,
    /// Sulphur dioxide, 24-hour mean, ppb, truncated to an integer. Defined from 305 ppb
    /// (AQI 201); below that EPA uses the 1-hour value.
    So2Day,
    /// Nitrogen dioxide, 1-hour mean, ppb, truncated to an integer.
    No2OneHour,
}

impl EpaMetric {
    /// The unit in which concentrations of this metric are given.
    #[must_use]
    pub fn unit(self) -> &'static str {
        match self {
            EpaMetric::O3EightHour | EpaMetric::O3OneHour | EpaMetric::CoEightHour => "ppm",
            EpaMetric::Pm25Day | EpaMetric::Pm10Day => "µg/m³",
            EpaMetric::So2OneHour | EpaMetric::So2Day | EpaMetric::No2OneHour => "ppb",
        }
    }

    /// A concentration in µg/m³ in this metric's [unit](Self::unit): the one place where the
    /// US AQI converts gases, from µg/m³ to ppb or ppm at the conditions every µg/m³ of the
    /// project is stated at ([`crate::STATED_AT`], 20 °C), so that a mixing ratio read comes back
    /// out as itself. `None` for a value no concentration can have.
    ///
    /// ```
    /// use aq_core::EpaMetric;
    ///
    /// assert_eq!(EpaMetric::Pm25Day.from_ug_m3(12.0), Some(12.0));
    /// // 100 ppb of NO₂ is about 191.25 µg/m³ at 20 °C.
    /// let ppb = EpaMetric::No2OneHour.from_ug_m3(191.25).unwrap();
    /// assert!((ppb - 100.0).abs() < 0.05);
    /// ```
    #[must_use]
    pub fn from_ug_m3(self, ug_m3: f64) -> Option<f64> {
        let c = crate::Concentration::new(ug_m3).ok()?;
        let pollutant = self.pollutant();
        match self.unit() {
            // EPA's breakpoints are mixing ratios: back out at the conditions the µg/m³ are
            // stated at.
            "ppm" => c
                .to_ppb(pollutant, crate::STATED_AT)
                .map(|ppb| ppb / 1000.0),
            "ppb" => c.to_ppb(pollutant, crate::STATED_AT),
            _ => Some(ug_m3),
        }
    }

    /// The pollutant measured.
    #[must_use]
    pub fn pollutant(self) -> Pollutant {
        match self {
            EpaMetric::O3EightHour | EpaMetric::O3OneHour => Pollutant::O3,
            EpaMetric::Pm25Day => Pollutant::Pm25,
            EpaMetric::Pm10Day => Pollutant::Pm10,
            EpaMetric::CoEightHour => Pollutant::Co,
            EpaMetric::So2OneHour | EpaMetric::So2Day => Pollutant::So2,
            EpaMetric::No2OneHour => Pollutant::No2,
        }
    }

    /// Powers of ten kept by EPA's truncation: 3 for ozone, 1 for PM2.5 and CO, else 0.
    fn scale(self) -> f64 {
        match self {
            EpaMetric::O3EightHour | EpaMetric::O3OneHour => 1000.0,
            EpaMetric::Pm25Day | EpaMetric::CoEightHour => 10.0,
            EpaMetric::Pm10Day
            | EpaMetric::So2OneHour
            | EpaMetric::So2Day
            | EpaMetric::No2OneHour => 1.0,
        }
    }
}

/// The six EPA AQI categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AqiCategory {
    /// 0 to 50.
    Good,
    /// 51 to 100.
    Moderate,
    /// 101 to 150.
    UnhealthyForSensitiveGroups,
    /// 151 to 200.
    Unhealthy,
    /// 201 to 300.
    VeryUnhealthy,
    /// 301 and above.
    Hazardous,
}

impl AqiCategory {
    /// Every category, cleanest first.
    pub const ALL: [AqiCategory; 6] = [
        AqiCategory::Good,
        AqiCategory::Moderate,
        AqiCategory::UnhealthyForSensitiveGroups,
        AqiCategory::Unhealthy,
        AqiCategory::VeryUnhealthy,
        AqiCategory::Hazardous,
    ];

    /// EPA's colour for the category as a CSS hex string (the RGB values of EPA's Technical
    /// Assistance Document for the Reporting of Daily Air Quality).
    ///
    /// ```
    /// use aq_core::epa::AqiCategory;
    ///
    /// assert_eq!(AqiCategory::of(42).colour(), "#00e400");
    /// assert_eq!(AqiCategory::of(160).colour(), "#ff0000");
    /// ```
    #[must_use]
    pub fn colour(self) -> &'static str {
        match self {
            AqiCategory::Good => "#00e400",
            AqiCategory::Moderate => "#ffff00",
            AqiCategory::UnhealthyForSensitiveGroups => "#ff7e00",
            AqiCategory::Unhealthy => "#ff0000",
            AqiCategory::VeryUnhealthy => "#8f3f97",
            AqiCategory::Hazardous => "#7e0023",
        }
    }

    /// The category of an AQI value.
    #[must_use]
    pub fn of(aqi: u16) -> Self {
        match aqi {
            0..=50 => AqiCategory::Good,
            51..=100 => AqiCategory::Moderate,
            101..=150 => AqiCategory::UnhealthyForSensitiveGroups,
            151..=200 => AqiCategory::Unhealthy,
            201..=300 => AqiCategory::VeryUnhealthy,
            _ => AqiCategory::Hazardous,
        }
    }

    /// EPA's name for the category.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            AqiCategory::Good => "Good",
            AqiCategory::Moderate => "Moderate",
            AqiCategory::UnhealthyForSensitiveGroups => "Unhealthy for Sensitive Groups",
            AqiCategory::Unhealthy => "Unhealthy",
            AqiCategory::VeryUnhealthy => "Very Unhealthy",
            AqiCategory::Hazardous => "Hazardous",
        }
    }
}

impl fmt::Display for AqiCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why no AQI could be computed for a concentration.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum AqiError {
    /// The concentration was negative, NaN or infinite.
    #[error("concentration {0} must be finite and not negative")]
    InvalidConcentration(f64),
    /// 8-hour ozone above 0.200 ppm has no AQI: EPA uses the 1-hour value there.
    #[error("8-hour ozone above 0.200 ppm has no AQI; use the 1-hour value")]
    UseOneHourOzone,
    /// 1-hour ozone below 0.125 ppm has no AQI: EPA uses the 8-hour value there.
    #[error("1-hour ozone below 0.125 ppm has no AQI; use the 8-hour value")]
    UseEightHourOzone,
    /// 1-hour SO₂ above 304 ppb has no AQI: EPA computes AQI values above 200 from the
    /// 24-hour mean only.
    #[error("1-hour SO₂ above 304 ppb has no AQI; AQI values above 200 need the 24-hour mean")]
    UseDaySo2,
    /// 24-hour SO₂ below 305 ppb has no AQI: EPA uses the 1-hour value there.
    #[error("24-hour SO₂ below 305 ppb has no AQI; use the 1-hour value")]
    UseOneHourSo2,
}

/// One breakpoint row: truncated concentrations (in units of 10^-decimals) and AQI values.
type Row = (u32, u32, u16, u16);

const PM25_2024: &[Row] = &[
    (0, 90, 0, 50),
    (91, 354, 51, 100),
    (355, 554, 101, 150),
    (555, 1254, 151, 200),
    (1255, 2254, 201, 300),
    (2255, 3254, 301, 500),
];
const PM25_2012: &[Row] = &[
    (0, 120, 0, 50),
    (121, 354, 51, 100),
    (355, 554, 101, 150),
    (555, 1504, 151, 200),
    (1505, 2504, 201, 300),
    (2505, 3504, 301, 400),
    (3505, 5004, 401, 500),
];
const PM10_2024: &[Row] = &[
    (0, 54, 0, 50),
    (55, 154, 51, 100),
    (155, 254, 101, 150),
    (255, 354, 151, 200),
    (355, 424, 201, 300),
    (425, 604, 301, 500),
];
const PM10_2012: &[Row] = &[
    (0, 54, 0, 50),
    (55, 154, 51, 100),
    (155, 254, 101, 150),
    (255, 354, 151, 200),
    (355, 424, 201, 300),
    (425, 504, 301, 400),
    (505, 604, 401, 500),
];
const O3_8H: &[Row] = &[
    (0, 54, 0, 50),
    (55, 70, 51, 100),
    (71, 85, 101, 150),
    (86, 105, 151, 200),
    (106, 200, 201, 300),
];
const O3_1H_2024: &[Row] = &[
    (125, 164, 101, 150),
    (165, 204, 151, 200),
    (205, 404, 201, 300),
    (405, 604, 301, 500),
];
const O3_1H_2012: &[Row] = &[
    (125, 164, 101, 150),
    (165, 204, 151, 200),
    (205, 404, 201, 300),
    (405, 504, 301, 400),
    (505, 604, 401, 500),
];
const CO_2024: &[Row] = &[
    (0, 44, 0, 50),
    (45, 94, 51, 100),
    (95, 124, 101, 150),
    (125, 154, 151, 200),
    (155, 304, 201, 300),
    (305, 504, 301, 500),
];
const CO_2012: &[Row] = &[
    (0, 44, 0, 50),
    (45, 94, 51, 100),
    (95, 124, 101, 150),
    (125, 154, 151, 200),
    (155, 304, 201, 300),
    (305, 404, 301, 400),
    (405, 504, 401, 500),
];
// EPA's 1-hour SO₂ rows stop at AQI 200; the rows above are for 24-hour means.
const SO2_1H: &[Row] = &[
    (0, 35, 0, 50),
    (36, 75, 51, 100),
    (76, 185, 101, 150),
    (186, 304, 151, 200),
];
const SO2_DAY_2024: &[Row] = &[(305, 604, 201, 300), (605, 1004, 301, 500)];
const SO2_DAY_2012: &[Row] = &[
    (305, 604, 201, 300),
    (605, 804, 301, 400),
    (805, 1004, 401, 500),
];
const NO2_2024: &[Row] = &[
    (0, 53, 0, 50),
    (54, 100, 51, 100),
    (101, 360, 101, 150),
    (361, 649, 151, 200),
    (650, 1249, 201, 300),
    (1250, 2049, 301, 500),
];
const NO2_2012: &[Row] = &[
    (0, 53, 0, 50),
    (54, 100, 51, 100),
    (101, 360, 101, 150),
    (361, 649, 151, 200),
    (650, 1249, 201, 300),
    (1250, 1649, 301, 400),
    (1650, 2049, 401, 500),
];

impl AqiTable {
    fn rows(self, metric: EpaMetric) -> &'static [Row] {
        use AqiTable::{Epa2012, Epa2024};
        match (self, metric) {
            (Epa2024, EpaMetric::Pm25Day) => PM25_2024,
            (Epa2012, EpaMetric::Pm25Day) => PM25_2012,
            (Epa2024, EpaMetric::Pm10Day) => PM10_2024,
            (Epa2012, EpaMetric::Pm10Day) => PM10_2012,
            (_, EpaMetric::O3EightHour) => O3_8H,
            (Epa2024, EpaMetric::O3OneHour) => O3_1H_2024,
            (Epa2012, EpaMetric::O3OneHour) => O3_1H_2012,
            (Epa2024, EpaMetric::CoEightHour) => CO_2024,
            (Epa2012, EpaMetric::CoEightHour) => CO_2012,
            (_, EpaMetric::So2OneHour) => SO2_1H,
            (Epa2024, EpaMetric::So2Day) => SO2_DAY_2024,
            (Epa2012, EpaMetric::So2Day) => SO2_DAY_2012,
            (Epa2024, EpaMetric::No2OneHour) => NO2_2024,
            (Epa2012, EpaMetric::No2OneHour) => NO2_2012,
        }
    }

    /// The AQI of `concentration` (in [`EpaMetric::unit`]) for `metric`.
    ///
    /// Above the table's top breakpoint the last row's slope is extended, as EPA's technical
    /// assistance document allows, so the value may exceed 500 ("beyond the AQI").
    ///
    /// ```
    /// use aq_core::{AqiTable, EpaMetric};
    ///
    /// let aqi = |c| AqiTable::Epa2024.aqi(EpaMetric::Pm25Day, c).unwrap();
    /// assert_eq!(aqi(9.0), 50);
    /// assert_eq!(aqi(9.1), 51);
    /// assert_eq!(aqi(35.4), 100);
    /// assert_eq!(AqiTable::Epa2012.aqi(EpaMetric::Pm25Day, 35.9).unwrap(), 102);
    /// ```
    ///
    /// # Errors
    /// [`AqiError`] for an invalid concentration, or ozone or SO₂ outside the range of the
    /// chosen averaging period.
    pub fn aqi(self, metric: EpaMetric, concentration: f64) -> Result<u16, AqiError> {
        if !concentration.is_finite() || concentration < 0.0 {
            return Err(AqiError::InvalidConcentration(concentration));
        }
        let rows = self.rows(metric);
        // Truncate to EPA's precision. The small epsilon keeps decimal inputs such as 9.1
        // (stored as 9.0999…) from being truncated one step too low.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let c = (concentration * metric.scale() + 1e-7)
            .floor()
            .min(f64::from(u32::MAX)) as u32;
        let first = rows[0];
        if c < first.0 {
            return Err(match metric {
                EpaMetric::So2Day => AqiError::UseOneHourSo2,
                _ => AqiError::UseEightHourOzone,
            });
        }
        let last = rows[rows.len() - 1];
        if c > last.1 {
            match metric {
                EpaMetric::O3EightHour => return Err(AqiError::UseOneHourOzone),
                EpaMetric::So2OneHour => return Err(AqiError::UseDaySo2),
                _ => {}
            }
        }
        let row = rows.iter().find(|r| c <= r.1).copied().unwrap_or(last);
        Ok(interpolate(row, c))
    }

    /// The local AQI of a set of hourly concentrations: the highest AQI over the pollutants, and
    /// the pollutant that sets it. `None` when nothing measured has an AQI, and when it cannot
    /// be computed: an hourly SO₂ above 304 ppb puts the AQI above 200, where EPA allows only
    /// 24-hour SO₂ means, so no hourly value can say how far above.
    ///
    /// Hourly values stand in for EPA's averaging periods (24 h for particles, 8 h for ozone and
    /// CO): [`AqiTable::us_aqi`] of this hour alone, with no past hours to average. Gases are
    /// converted as [`EpaMetric::from_ug_m3`] says.
    ///
    /// ```
    /// use aq_core::{AqiTable, Concentration, Concentrations, Pollutant};
    ///
    /// let c = Concentrations::default()
    ///     .with(Pollutant::Pm25, Concentration::new(35.4).unwrap())
    ///     .with(Pollutant::Pm10, Concentration::new(20.0).unwrap());
    /// assert_eq!(AqiTable::Epa2024.local_aqi(&c), Some((100, Pollutant::Pm25)));
    /// ```
    #[must_use]
    pub fn local_aqi(self, concentrations: &Concentrations) -> Option<(u16, Pollutant)> {
        self.us_aqi(&[Some(*concentrations)])
            .map(|aqi| (aqi.value, aqi.dominant))
    }
}

/// EPA's equation 1, `I = (Ihi − Ilo)/(BPhi − BPlo) · (C − BPlo) + Ilo`, rounded half up, in
/// exact integer arithmetic.
fn interpolate((bp_lo, bp_hi, i_lo, i_hi): Row, c: u32) -> u16 {
    let num = u64::from(i_hi - i_lo) * u64::from(c - bp_lo);
    let den = u64::from(bp_hi - bp_lo);
    let above = (2 * num + den) / (2 * den);
    u16::try_from(u64::from(i_lo) + above).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::pollutant::{Concentration, ReferenceConditions};

    #[test]
    fn pm25_worked_values_2024() {
        let t = AqiTable::Epa2024;
        for (c, expected) in [
            (9.0, 50),
            (9.1, 51),
            (35.4, 100),
            (35.5, 101),
            (55.5, 151),
            (125.4, 200),
            (225.5, 301),
            (325.4, 500),
        ] {
            assert_eq!(t.aqi(EpaMetric::Pm25Day, c), Ok(expected), "PM2.5 {c}");
        }
    }

    #[test]
    fn pm25_worked_values_2012() {
        let t = AqiTable::Epa2012;
        for (c, expected) in [(12.0, 50), (12.1, 51), (35.9, 102), (150.4, 200)] {
            assert_eq!(t.aqi(EpaMetric::Pm25Day, c), Ok(expected), "PM2.5 {c}");
        }
    }

    #[test]
    fn truncation_happens_before_lookup() {
        // 9.09 truncates to 9.0, which is still Good under the 2024 table.
        assert_eq!(AqiTable::Epa2024.aqi(EpaMetric::Pm25Day, 9.09), Ok(50));
        // PM10 truncates to an integer: 54.9 is 54.
        assert_eq!(AqiTable::Epa2024.aqi(EpaMetric::Pm10Day, 54.9), Ok(50));
        // Ozone keeps three decimals: 0.0709 is 0.070, the top of Moderate.
        assert_eq!(
            AqiTable::Epa2024.aqi(EpaMetric::O3EightHour, 0.0709),
            Ok(100)
        );
    }

    #[test]
    fn ozone_averaging_periods_hand_over() {
        let t = AqiTable::Epa2024;
        assert_eq!(
            t.aqi(EpaMetric::O3EightHour, 0.201),
            Err(AqiError::UseOneHourOzone)
        );
        assert_eq!(
            t.aqi(EpaMetric::O3OneHour, 0.124),
            Err(AqiError::UseEightHourOzone)
        );
        assert_eq!(t.aqi(EpaMetric::O3OneHour, 0.125), Ok(101));
    }

    #[test]
    fn beyond_the_index_extends_the_top_row() {
        let above = AqiTable::Epa2024.aqi(EpaMetric::Pm25Day, 425.4).unwrap();
        assert!(above > 500, "{above}");
        assert_eq!(AqiCategory::of(above), AqiCategory::Hazardous);
    }

    #[test]
    fn invalid_concentrations_are_refused() {
        assert!(AqiTable::Epa2024.aqi(EpaMetric::No2OneHour, -1.0).is_err());
        assert!(
            AqiTable::Epa2024
                .aqi(EpaMetric::No2OneHour, f64::NAN)
                .is_err()
        );
    }

    #[test]
    fn so2_above_aqi_200_needs_the_24_hour_mean() {
        let t = AqiTable::Epa2024;
        assert_eq!(t.aqi(EpaMetric::So2OneHour, 304.0), Ok(200));
        assert_eq!(
            t.aqi(EpaMetric::So2OneHour, 305.0),
            Err(AqiError::UseDaySo2)
        );
        assert_eq!(t.aqi(EpaMetric::So2Day, 305.0), Ok(201));
        assert_eq!(t.aqi(EpaMetric::So2Day, 1004.0), Ok(500));
        assert_eq!(
            t.aqi(EpaMetric::So2Day, 304.0),
            Err(AqiError::UseOneHourSo2)
        );
        assert_eq!(AqiTable::Epa2012.aqi(EpaMetric::So2Day, 804.0), Ok(400));
        // An hourly SO₂ past 304 ppb puts the AQI above 200 by an amount no hourly value tells:
        // 201 as a lower bound, unless another pollutant's AQI is higher still.
        let so2 = |ppb| {
            Concentrations::default()
                .with(Pollutant::Pm25, Concentration::new(20.0).unwrap())
                .with(
                    Pollutant::So2,
                    Concentration::from_ppb(Pollutant::So2, ppb, crate::STATED_AT)
                        .unwrap()
                        .unwrap(),
                )
        };
        assert_eq!(t.local_aqi(&so2(200.0)).map(|a| a.1), Some(Pollutant::So2));
        assert_eq!(t.local_aqi(&so2(400.0)), Some((201, Pollutant::So2)));
        let bound = t.us_aqi(&[Some(so2(400.0))]).unwrap();
        assert!(bound.at_least);
        assert_eq!(bound.category, AqiCategory::VeryUnhealthy);
        let smoke = so2(400.0).with(Pollutant::Pm25, Concentration::new(300.0).unwrap());
        let higher = t.us_aqi(&[Some(smoke)]).unwrap();
        assert_eq!((higher.dominant, higher.at_least), (Pollutant::Pm25, true));
        assert!(higher.value > 201);
        assert!(!t.us_aqi(&[Some(so2(200.0))]).unwrap().at_least);
    }

    #[test]
    fn local_aqi_converts_gases_to_ppb_at_the_conditions_they_came_in_at() {
        // 100 ppb NO₂ read (191.25 µg/m³ at 20 °C): the top of Moderate, AQI 100. Converted
        // out at EPA's 25 °C instead, the same µg/m³ would read 101.6 ppb, past Moderate.
        let c = Concentrations::default().with(
            Pollutant::No2,
            Concentration::from_ppb(Pollutant::No2, 100.0, crate::STATED_AT)
                .unwrap()
                .unwrap(),
        );
        assert_eq!(AqiTable::Epa2024.local_aqi(&c), Some((100, Pollutant::No2)));
        let ug = Concentration::new(191.25).unwrap();
        assert!(
            (ug.to_ppb(Pollutant::No2, ReferenceConditions::Epa25C)
                .unwrap()
                - 101.6)
                .abs()
                < 0.05
        );
    }

    proptest! {
        #[test]
        fn aqi_never_falls_as_concentration_rises(
            table in prop::sample::select(vec![AqiTable::Epa2024, AqiTable::Epa2012]),
            metric in prop::sample::select(vec![
                EpaMetric::Pm25Day, EpaMetric::Pm10Day, EpaMetric::CoEightHour,
                EpaMetric::No2OneHour,
            ]),
            a in 0.0f64..3000.0,
            b in 0.0f64..3000.0,
        ) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(table.aqi(metric, lo).unwrap() <= table.aqi(metric, hi).unwrap());
        }

        /// SO₂: the 1-hour and 24-hour rows join without a gap or overlap at AQI 200 and 201,
        /// and each rises with the concentration.
        #[test]
        fn so2_periods_join_and_never_fall(
            table in prop::sample::select(vec![AqiTable::Epa2024, AqiTable::Epa2012]),
            a in 0.0f64..2000.0,
            b in 0.0f64..2000.0,
        ) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let aqi = |c: f64| table
                .aqi(EpaMetric::So2OneHour, c)
                .or_else(|_| table.aqi(EpaMetric::So2Day, c))
                .unwrap();
            prop_assert!(aqi(lo) <= aqi(hi));
            prop_assert_eq!(aqi(lo) <= 200, (lo + 1e-7).floor() <= 304.0);
        }
    }
}
