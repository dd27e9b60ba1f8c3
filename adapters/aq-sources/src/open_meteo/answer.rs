//! Open-Meteo's JSON answer as the source reads it: for each location asked for, its hourly
//! values by hour. The answer arrives from across the network, so it is read here on its own,
//! apart from the request, where what any bytes give can be checked.

use std::collections::{BTreeMap, HashMap};

use aq_core::plant::{N_PLANTS, type_sums};
use aq_core::{PollenType, Pollutant, SourceError};
use chrono::NaiveDateTime;
use serde_json::Value as Json;

use super::{POLLEN_VARS, POLLUTANT_VARS, SERVICE};
use crate::http;
use crate::values::{CellHour, Values};

/// One hour of one location as read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hour {
    /// The concentrations in µg/m³, in [`Pollutant::ALL`] order; `None` where the answer gives
    /// none (or one that is negative or not a number).
    pub pollutants: [Option<f64>; 6],
    /// The tree, grass and weed pollen in grains/m³ ([`PollenType::ALL`] order), each the sum
    /// of the species the answer gives; `None` where it gives none.
    pub pollen: [Option<f64>; 3],
    /// Each plant's pollen in grains/m³ ([`aq_core::Plant::ALL`] order); `None` where the
    /// answer gives none.
    pub plants: [Option<f64>; N_PLANTS],
}

impl From<CellHour> for Hour {
    fn from(hour: CellHour) -> Self {
        let values = hour.values;
        Self {
            pollutants: Pollutant::ALL.map(|p| values.get(Values::pollutant_index(p))),
            pollen: PollenType::ALL.map(|k| values.get(Values::pollen_index(k))),
            plants: hour.plants.counts(),
        }
    }
}

/// Reads the answer to a request for `locations` locations: for each, in the order asked,
/// its hours by hour since the epoch (whole hours, rounded down).
///
/// ```
/// use aq_sources::open_meteo::answer::read;
///
/// let body = r#"{"hourly": {"time": [1777881600], "pm2_5": [11.5], "grass_pollen": [null]},
///     "hourly_units": {"pm2_5": "µg/m³"}}"#;
/// let hours = read(body.as_bytes(), 1).unwrap();
/// let hour = hours[0][&(1_777_881_600 / 3600)];
/// assert_eq!((hour.pollutants[0], hour.pollen[1]), (Some(11.5), None));
/// assert_eq!(hour.plants, [None; 6]);
/// // One location answered for two asked.
/// assert!(read(body.as_bytes(), 2).is_err());
/// ```
///
/// # Errors
/// [`SourceError::Refused`] for Open-Meteo's own error answer, and
/// [`SourceError::InvalidResponse`] for an answer that is not JSON, answers another number of
/// locations, or holds a location without `hourly.time`, a time that is neither whole
/// seconds nor `yyyy-mm-ddThh:mm`, a variable that is not a list of one value per time, or a
/// unit other than the variable's.
pub fn read(body: &[u8], locations: usize) -> Result<Vec<BTreeMap<i64, Hour>>, SourceError> {
    Ok(read_values(body, locations)?
        .into_iter()
        .map(|by_hour| by_hour.into_iter().map(|(h, v)| (h, v.into())).collect())
        .collect())
}

/// [`read`], each hour's values as the source keeps them.
pub(super) fn read_values(
    body: &[u8],
    locations: usize,
) -> Result<Vec<HashMap<i64, CellHour>>, SourceError> {
    let doc: Json = serde_json::from_slice(body)
        .map_err(|e| SourceError::InvalidResponse(format!("{SERVICE} sent invalid JSON: {e}")))?;
    let answered: Vec<&Json> = match &doc {
        Json::Array(list) => list.iter().collect(),
        Json::Object(o) if o.get("error").and_then(Json::as_bool) == Some(true) => {
            let reason = o
                .get("reason")
                .and_then(Json::as_str)
                .unwrap_or("no reason given");
            return Err(SourceError::Refused(format!(
                "{SERVICE} refused the request: {reason}"
            )));
        }
        obj @ Json::Object(_) => vec![obj],
        _ => {
            return Err(SourceError::InvalidResponse(format!(
                "{SERVICE} sent neither an object nor a list"
            )));
        }
    };
    if answered.len() != locations {
        return Err(SourceError::InvalidResponse(format!(
            "{SERVICE} answered {} locations for {locations} requested",
            answered.len(),
        )));
    }
    answered.into_iter().map(location).collect()
}

fn invalid(message: String) -> SourceError {
    SourceError::InvalidResponse(format!("{SERVICE}: {message}"))
}

/// One location's hourly values by hour since the epoch.
fn location(location: &Json) -> Result<HashMap<i64, CellHour>, SourceError> {
    let hourly = location
        .get("hourly")
        .and_then(Json::as_object)
        .ok_or_else(|| invalid("a location has no `hourly` object".to_owned()))?;
    let units = location.get("hourly_units").and_then(Json::as_object);
    let times = hourly
        .get("time")
        .and_then(Json::as_array)
        .ok_or_else(|| invalid("`hourly.time` is missing".to_owned()))?;
    let hours: Vec<i64> = times
        .iter()
        .map(|t| match t {
            Json::Number(n) => n
                .as_i64()
                .map(|s| s.div_euclid(3600))
                .ok_or_else(|| invalid(format!("time {n} is not whole seconds"))),
            Json::String(s) => NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")
                .map(|t| t.and_utc().timestamp().div_euclid(3600))
                .map_err(|_| invalid(format!("time `{s}` is not yyyy-mm-ddThh:mm"))),
            other => Err(invalid(format!("time {other} is neither seconds nor text"))),
        })
        .collect::<Result<_, _>>()?;
    let mut rows: Vec<CellHour> = vec![CellHour::MISSING; hours.len()];
    let column = |var: &str, expected: &str| -> Result<Option<&Vec<Json>>, SourceError> {
        let Some(values) = hourly.get(var) else {
            return Ok(None);
        };
        let values = values
            .as_array()
            .ok_or_else(|| invalid(format!("`hourly.{var}` is not a list")))?;
        if values.len() != hours.len() {
            return Err(invalid(format!(
                "`hourly.{var}` has {} values for {} times",
                values.len(),
                hours.len()
            )));
        }
        if let Some(unit) = units.and_then(|u| u.get(var)).and_then(Json::as_str)
            && http::normalise_unit(unit) != expected
        {
            return Err(invalid(format!(
                "`{var}` is in `{unit}`, expected {expected}"
            )));
        }
        Ok(Some(values))
    };
    let number = |v: &Json| v.as_f64().filter(|x| x.is_finite() && *x >= 0.0);
    for (var, pollutant) in POLLUTANT_VARS {
        if let Some(values) = column(var, "µg/m³")? {
            let i = Values::pollutant_index(pollutant);
            for (row, v) in rows.iter_mut().zip(values) {
                if let Some(x) = number(v) {
                    row.values.0[i] = x;
                }
            }
        }
    }
    for (var, plant) in POLLEN_VARS {
        if let Some(values) = column(var, "grains/m³")? {
            for (row, v) in rows.iter_mut().zip(values) {
                if let Some(x) = number(v) {
                    row.plants.0[plant.index()] = x;
                }
            }
        }
    }
    // Each type is the sum of its plants, by the rule every source shares (a sum past the
    // largest `f64` is no count).
    for row in &mut rows {
        let sums = type_sums(row.plants.counts());
        for (kind, sum) in PollenType::ALL.into_iter().zip(sums) {
            row.values.0[Values::pollen_index(kind)] = sum.unwrap_or(f64::NAN);
        }
    }
    Ok(hours.into_iter().zip(rows).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found while writing the fuzz target's check that values are finite: two species near
    /// the largest `f64` summed to infinity.
    #[test]
    fn a_pollen_sum_past_the_largest_number_is_missing() {
        let body = br#"{"hourly": {"time": [0, 3600], "alder_pollen": [1e308, 1e308],
            "birch_pollen": [1e308, 1.0], "grass_pollen": [2.0, 3.0]}}"#;
        let hours = read(body, 1).unwrap();
        assert_eq!(hours[0][&0].pollen, [None, Some(2.0), None]);
        assert_eq!(hours[0][&1].pollen, [Some(1e308 + 1.0), Some(3.0), None]);
        // The plants stay as sent.
        assert_eq!(hours[0][&0].plants[..2], [Some(1e308), Some(1e308)]);
    }
}
