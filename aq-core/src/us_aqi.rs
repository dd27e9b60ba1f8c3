//! The US AQI of one hour of a series, with EPA's averaging wherever the series has the hours
//! for it ([`crate::nowcast`]): the NowCast of PM2.5 and PM10, AirNow's ozone NowCast (or the
//! 1-hour O₃ table where that gives more), the 8-hour running mean of CO, and the 1-hour values
//! of NO₂ and SO₂, on which EPA defines their AQI. A pollutant whose past hours are missing falls back to
//! its hourly value, and the answer says so ([`AqiMethod::Hourly`]).
//!
//! Lookups, the dashboard and alert messages all compute the US AQI here, so that one place,
//! one hour, shows one number everywhere.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::epa::{AqiCategory, AqiError, AqiTable, EpaMetric};
use crate::nowcast::{nowcast, ozone_nowcast, running_mean};
use crate::pollutant::{Concentrations, Pollutant};

/// How the value of a US AQI was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AqiMethod {
    /// EPA's averaging for current conditions: the NowCast (PM2.5, PM10, and AirNow's for O₃,
    /// with the 1-hour O₃ table where higher), the 8-hour running mean (CO), or the 1-hour value
    /// EPA defines NO₂ and SO₂ on.
    Nowcast,
    /// The hour's own value stood in for an average the source lacks the past hours for.
    Hourly,
}

impl AqiMethod {
    /// The wire name: `nowcast` or `hourly`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AqiMethod::Nowcast => "nowcast",
            AqiMethod::Hourly => "hourly",
        }
    }
}

impl fmt::Display for AqiMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The US AQI of one hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsAqi {
    /// The AQI: the highest over the pollutants.
    pub value: u16,
    /// Its category.
    pub category: AqiCategory,
    /// The pollutant that sets it.
    pub dominant: Pollutant,
    /// How the dominant pollutant's value was obtained.
    pub method: AqiMethod,
    /// Whether `value` is a lower bound: an hourly SO₂ above 304 ppb puts its AQI above 200 by
    /// an amount only a 24-hour mean could tell (EPA's 1-hour SO₂ rows stop at 200), so the AQI
    /// is at least the higher of 201 and every other pollutant's.
    #[serde(default)]
    pub at_least: bool,
}

/// The least AQI an hourly SO₂ past EPA's 1-hour rows (304 ppb) has: the first value above
/// them.
const ABOVE_SO2_ONE_HOUR: u16 = 201;

impl AqiTable {
    /// The US AQI of `hours[0]`, given newest first (`hours[i]` is the hour `i` hours before
    /// it; only the first 12 are read): the highest AQI over the pollutants, each from EPA's
    /// averaging where the hours allow it; `None` when nothing has an AQI. An hourly SO₂ above
    /// 304 ppb gives a lower bound ([`UsAqi::at_least`]).
    ///
    /// ```
    /// use aq_core::{AqiMethod, AqiTable, Concentration, Concentrations, Pollutant};
    ///
    /// let pm = |v| Some(Concentrations::default().with(Pollutant::Pm25, Concentration::new(v).unwrap()));
    /// // A spike this hour after a clean half-day: the NowCast weighs it, but not alone.
    /// let mut hours = vec![pm(60.0)];
    /// hours.extend(std::iter::repeat_n(pm(8.0), 11));
    /// let now = AqiTable::Epa2024.us_aqi(&hours).unwrap();
    /// assert_eq!((now.dominant, now.method), (Pollutant::Pm25, AqiMethod::Nowcast));
    /// assert!(now.value < AqiTable::Epa2024.local_aqi(&hours[0].unwrap()).unwrap().0);
    /// // The hour alone: its value stands in for the NowCast.
    /// assert_eq!(AqiTable::Epa2024.us_aqi(&hours[..1]).unwrap().method, AqiMethod::Hourly);
    /// // 400 ppb of SO₂ this hour: above 200, by how much no hourly value tells.
    /// let so2 = Concentration::from_ppb(Pollutant::So2, 400.0, aq_core::STATED_AT).unwrap().unwrap();
    /// let high = AqiTable::Epa2024.us_aqi(&[Some(Concentrations::default().with(Pollutant::So2, so2))]).unwrap();
    /// assert_eq!((high.value, high.at_least, high.dominant), (201, true, Pollutant::So2));
    /// ```
    #[must_use]
    pub fn us_aqi(self, hours: &[Option<Concentrations>]) -> Option<UsAqi> {
        let mut best: Option<(u16, Pollutant, AqiMethod)> = None;
        let mut at_least = false;
        for pollutant in Pollutant::ALL {
            let series: Vec<Option<f64>> = hours
                .iter()
                .take(crate::nowcast::NOWCAST_HOURS)
                .map(|h| h.and_then(|c| c.get(pollutant)).map(|c| c.ug_m3()))
                .collect();
            match self.pollutant_aqi(pollutant, &series) {
                Ok(Some((value, method))) if best.is_none_or(|(b, _, _)| value > b) => {
                    best = Some((value, pollutant, method));
                }
                Err(AqiError::UseDaySo2) => {
                    at_least = true;
                    if best.is_none_or(|(b, _, _)| ABOVE_SO2_ONE_HOUR > b) {
                        let method = if series.first().copied().flatten().is_some() {
                            AqiMethod::Nowcast
                        } else {
                            AqiMethod::Hourly
                        };
                        best = Some((ABOVE_SO2_ONE_HOUR, pollutant, method));
                    }
                }
                _ => {}
            }
        }
        best.map(|(value, dominant, method)| UsAqi {
            value,
            category: AqiCategory::of(value),
            dominant,
            method,
            at_least,
        })
    }

    /// One pollutant's AQI from its hours in µg/m³, newest first; `Ok(None)` when it has
    /// none.
    fn pollutant_aqi(
        self,
        pollutant: Pollutant,
        hours: &[Option<f64>],
    ) -> Result<Option<(u16, AqiMethod)>, AqiError> {
        let aqi = |metric: EpaMetric, ug_m3: f64| {
            let c = metric
                .from_ug_m3(ug_m3)
                .ok_or(AqiError::InvalidConcentration(ug_m3))?;
            self.aqi(metric, c)
        };
        let now = hours.first().copied().flatten();
        let averaged =
            |metric, average: Option<f64>| -> Result<Option<(u16, AqiMethod)>, AqiError> {
                match (average, now) {
                    (Some(a), _) => aqi(metric, a).map(|v| Some((v, AqiMethod::Nowcast))),
                    (None, Some(h)) => aqi(metric, h).map(|v| Some((v, AqiMethod::Hourly))),
                    (None, None) => Ok(None),
                }
            };
        match pollutant {
            Pollutant::Pm25 => averaged(EpaMetric::Pm25Day, nowcast(hours)),
            Pollutant::Pm10 => averaged(EpaMetric::Pm10Day, nowcast(hours)),
            Pollutant::Co => averaged(EpaMetric::CoEightHour, running_mean(hours)),
            Pollutant::No2 => now.map_or(Ok(None), |h| {
                aqi(EpaMetric::No2OneHour, h).map(|v| Some((v, AqiMethod::Nowcast)))
            }),
            Pollutant::So2 => now.map_or(Ok(None), |h| {
                aqi(EpaMetric::So2OneHour, h).map(|v| Some((v, AqiMethod::Nowcast)))
            }),
            Pollutant::O3 => {
                let one_hour = now.and_then(|h| aqi(EpaMetric::O3OneHour, h).ok());
                let (value, method) = match (ozone_nowcast(hours), now) {
                    (Some(mean), _) => (aqi(EpaMetric::O3EightHour, mean).ok(), AqiMethod::Nowcast),
                    // No NowCast: the hour's value read on the 8-hour table, as EPA's hourly
                    // approximation does.
                    (None, Some(h)) => (aqi(EpaMetric::O3EightHour, h).ok(), AqiMethod::Hourly),
                    (None, None) => return Ok(None),
                };
                // Above 0.200 ppm the 8-hour table ends and the 1-hour one alone speaks; where
                // both do, the higher is reported.
                Ok(match (value, one_hour) {
                    (Some(v), Some(o)) => Some((v.max(o), method)),
                    (Some(v), None) => Some((v, method)),
                    (None, Some(o)) => Some((o, method)),
                    (None, None) => None,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pollutant::Concentration;

    fn one(p: Pollutant, ug_m3: f64) -> Option<Concentrations> {
        Some(Concentrations::default().with(p, Concentration::new(ug_m3).unwrap()))
    }

    /// EPA's worked NowCast example (see `nowcast::tests`): 17.4 µg/m³ of PM2.5 is AQI 66 on
    /// the 2024 table (51 + 49 · (17.4 − 9.1) / (35.4 − 9.1), rounded) and 62 on the 2012
    /// table.
    #[test]
    fn the_epa_worked_example_reads_66_on_the_2024_table() {
        let oldest_first = [
            50.0, 80.0, 75.0, 90.0, 82.0, 53.0, 64.0, 74.0, 21.0, 10.0, 16.0, 13.0,
        ];
        let hours: Vec<_> = oldest_first
            .iter()
            .rev()
            .map(|&v| one(Pollutant::Pm25, v))
            .collect();
        let aqi = AqiTable::Epa2024.us_aqi(&hours).unwrap();
        assert_eq!(aqi.value, 66);
        assert_eq!(aqi.method, AqiMethod::Nowcast);
        assert_eq!(aqi.category, AqiCategory::Moderate);
        assert_eq!(AqiTable::Epa2012.us_aqi(&hours).unwrap().value, 62);
    }

    #[test]
    fn ozone_uses_airnows_nowcast_or_the_one_hour_table_where_higher() {
        let ppb = |v: f64| {
            Some(
                Concentrations::default().with(
                    Pollutant::O3,
                    Concentration::from_ppb(Pollutant::O3, v, crate::STATED_AT)
                        .unwrap()
                        .unwrap(),
                ),
            )
        };
        // Eight hours at 60 ppb: the 8-hour table, Moderate.
        let steady = vec![ppb(60.0); 8];
        let aqi = AqiTable::Epa2024.us_aqi(&steady).unwrap();
        assert_eq!(
            (aqi.value, aqi.method),
            (
                AqiTable::Epa2024
                    .aqi(EpaMetric::O3EightHour, 0.060)
                    .unwrap(),
                AqiMethod::Nowcast
            )
        );
        // A 1-hour peak of 170 ppb after seven hours of 60: the NowCast weighs the newest hour
        // most (weight factor 60 / 170), about 131 ppb where the plain 8-hour mean reads 74,
        // and its 8-hour-table AQI (227) passes the 1-hour table's (157).
        let mut peak = vec![ppb(170.0)];
        peak.extend(vec![ppb(60.0); 7]);
        let aqi = AqiTable::Epa2024.us_aqi(&peak).unwrap();
        let one_hour = AqiTable::Epa2024.aqi(EpaMetric::O3OneHour, 0.170).unwrap();
        let eight_hour = AqiTable::Epa2024
            .aqi(EpaMetric::O3EightHour, 0.131)
            .unwrap();
        assert_eq!((one_hour, eight_hour), (157, 227));
        assert_eq!(aqi.value, eight_hour);
        // Past the 8-hour table's end (0.200 ppm) only the 1-hour table speaks.
        let smog = vec![ppb(250.0); 8];
        assert_eq!(
            AqiTable::Epa2024.us_aqi(&smog).unwrap().value,
            AqiTable::Epa2024.aqi(EpaMetric::O3OneHour, 0.250).unwrap()
        );
        // One hour alone is too few for a NowCast: the hourly approximation.
        let aqi = AqiTable::Epa2024.us_aqi(&steady[..1]).unwrap();
        assert_eq!(aqi.method, AqiMethod::Hourly);
    }

    #[test]
    fn carbon_monoxide_is_averaged_over_eight_hours() {
        // CO ppm to µg/m³: 1 ppm ≈ 1145.6 µg/m³ at 25 °C.
        let mut hours = vec![one(Pollutant::Co, 11_456.0)];
        hours.extend(vec![one(Pollutant::Co, 1145.6); 7]);
        let aqi = AqiTable::Epa2024.us_aqi(&hours).unwrap();
        // The mean is about 2.1 ppm: Good, not the 10 ppm hour's Unhealthy for Sensitive Groups.
        assert_eq!(aqi.category, AqiCategory::Good);
        assert_eq!(aqi.method, AqiMethod::Nowcast);
    }

    #[test]
    fn the_dominant_pollutant_is_the_highest_and_says_its_method() {
        let mut hours: Vec<Option<Concentrations>> = vec![None; 12];
        hours[0] = Some(
            Concentrations::default()
                .with(Pollutant::Pm25, Concentration::new(5.0).unwrap())
                .with(
                    Pollutant::No2,
                    Concentration::from_ppb(Pollutant::No2, 90.0, crate::STATED_AT)
                        .unwrap()
                        .unwrap(),
                ),
        );
        let aqi = AqiTable::Epa2024.us_aqi(&hours).unwrap();
        assert_eq!(
            (aqi.dominant, aqi.method),
            (Pollutant::No2, AqiMethod::Nowcast)
        );
        assert_eq!(AqiTable::Epa2024.us_aqi(&[None, None]), None);
    }
}
