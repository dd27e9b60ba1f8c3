//! OpenAQ's JSON answers as the source reads them: a page of locations (`/v3/locations`) and a
//! location's latest values (`/v3/locations/{id}/latest`). They arrive from across the
//! network, so they are read here on their own, apart from the requests, where what any bytes
//! give can be checked.

use std::collections::{BTreeMap, HashMap};

use aq_core::{Pollutant, Position, SourceError};
use chrono::DateTime;
use serde_json::Value as Json;

use super::SERVICE;

/// A station of a page of locations that the source can use: placed, not mobile, and with a
/// sensor of a parameter asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Location {
    /// OpenAQ's id of the location.
    pub id: u64,
    /// Where it is (`coordinates`).
    pub position: Position,
    /// Its sensors of the parameters asked for: the sensor's id, the pollutant its parameter
    /// counts as, and the unit as OpenAQ states it (`parameter.units`).
    pub sensors: Vec<(u64, Pollutant, String)>,
    /// Whether it is a reference-grade monitor (`isMonitor`) rather than a low-cost sensor.
    pub monitor: bool,
    /// Its last measurement (`datetimeLast.utc`), seconds since the epoch; `None` if it never
    /// reported.
    pub last: Option<i64>,
}

/// A page of locations as read.
#[derive(Debug, Clone, PartialEq)]
pub struct LocationsPage {
    /// The locations the source can use, in the page's order.
    pub usable: Vec<Location>,
    /// How many locations the page listed, usable or not: a page shorter than the limit asked
    /// for is the last.
    pub listed: usize,
}

/// A location's latest values: for each sensor, its newest value (as sent) and when it was
/// measured, in seconds since the epoch.
pub type Latest = HashMap<u64, (i64, f64)>;

/// Reads a page of locations; `parameters` says which OpenAQ parameter ids count as which
/// pollutant ([`OpenAqConfig::parameters`](super::OpenAqConfig::parameters)).
///
/// ```
/// use aq_sources::OpenAqConfig;
/// use aq_sources::openaq::answers::read_locations;
///
/// let page = r#"{"results": [{"id": 7, "coordinates": {"latitude": 52.5, "longitude": 13.4},
///     "sensors": [{"id": 70, "parameter": {"id": 2, "units": "µg/m³"}}],
///     "datetimeLast": {"utc": "2026-05-04T08:00:00Z"}}]}"#;
/// let read = read_locations(page.as_bytes(), &OpenAqConfig::default().parameters).unwrap();
/// assert_eq!((read.listed, read.usable[0].id), (1, 7));
/// assert!(read_locations(b"{}", &OpenAqConfig::default().parameters).is_err());
/// ```
///
/// # Errors
/// [`SourceError::InvalidResponse`] when the answer is not JSON, has no `results` list, or
/// holds a location without a numeric `id` or with a `datetimeLast` that is not RFC 3339.
pub fn read_locations(
    body: &[u8],
    parameters: &BTreeMap<u32, Pollutant>,
) -> Result<LocationsPage, SourceError> {
    let doc = json(body)?;
    let listed = results(&doc, "locations")?;
    let mut usable = Vec::new();
    for r in listed {
        if let Some(location) = location(r, parameters)? {
            usable.push(location);
        }
    }
    Ok(LocationsPage {
        usable,
        listed: listed.len(),
    })
}

/// Reads a location's latest values. A value of `null` is a sensor with nothing to report;
/// of two values of one sensor, the newer is kept.
///
/// ```
/// use aq_sources::openaq::answers::read_latest;
///
/// let body = br#"{"results": [{"sensorsId": 70, "value": 12.5,
///     "datetime": {"utc": "2026-05-04T08:00:00Z"}}]}"#;
/// assert_eq!(read_latest(body).unwrap()[&70], (1_777_881_600, 12.5));
/// ```
///
/// # Errors
/// [`SourceError::InvalidResponse`] when the answer is not JSON, has no `results` list, or
/// holds a value without a numeric `sensorsId` or an RFC 3339 `datetime.utc`.
pub fn read_latest(body: &[u8]) -> Result<Latest, SourceError> {
    let doc = json(body)?;
    let mut latest = Latest::new();
    for r in results(&doc, "latest")? {
        let Some(sensor) = r.get("sensorsId").and_then(Json::as_u64) else {
            return Err(invalid("a latest value has no numeric `sensorsId`"));
        };
        // A null value is a sensor with nothing to report.
        let Some(value) = r.get("value").and_then(Json::as_f64) else {
            continue;
        };
        let Some(utc) = r
            .get("datetime")
            .and_then(|d| d.get("utc"))
            .and_then(Json::as_str)
        else {
            return Err(invalid("a latest value has no `datetime.utc`"));
        };
        let time = rfc3339(utc)?;
        let keep = latest.get(&sensor).is_none_or(|&(t, _)| time > t);
        if keep {
            latest.insert(sensor, (time, value));
        }
    }
    Ok(latest)
}

fn json(body: &[u8]) -> Result<Json, SourceError> {
    serde_json::from_slice(body)
        .map_err(|e| SourceError::InvalidResponse(format!("{SERVICE} sent invalid JSON: {e}")))
}

fn invalid(message: &str) -> SourceError {
    SourceError::InvalidResponse(format!("{SERVICE}: {message}"))
}

fn results<'a>(doc: &'a Json, what: &str) -> Result<&'a Vec<Json>, SourceError> {
    doc.get("results")
        .and_then(Json::as_array)
        .ok_or_else(|| invalid(&format!("the {what} answer has no `results` list")))
}

fn rfc3339(utc: &str) -> Result<i64, SourceError> {
    DateTime::parse_from_rfc3339(utc)
        .map(|t| t.timestamp())
        .map_err(|_| invalid(&format!("`{utc}` is not an RFC 3339 time")))
}

/// One location of a page, or `None` when it cannot be used (no coordinates, mobile, or no
/// sensor of a parameter asked for).
fn location(
    r: &Json,
    parameters: &BTreeMap<u32, Pollutant>,
) -> Result<Option<Location>, SourceError> {
    let Some(id) = r.get("id").and_then(Json::as_u64) else {
        return Err(invalid("a location has no numeric `id`"));
    };
    if r.get("isMobile").and_then(Json::as_bool) == Some(true) {
        return Ok(None);
    }
    let coords = r.get("coordinates");
    let (Some(lat), Some(lon)) = (
        coords
            .and_then(|c| c.get("latitude"))
            .and_then(Json::as_f64),
        coords
            .and_then(|c| c.get("longitude"))
            .and_then(Json::as_f64),
    ) else {
        // A location without coordinates cannot be placed: not an error, just unusable.
        return Ok(None);
    };
    let Ok(position) = Position::new(lon, lat) else {
        return Ok(None);
    };
    let sensors = r
        .get("sensors")
        .and_then(Json::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|s| {
            let sensor = s.get("id")?.as_u64()?;
            let parameter = s.get("parameter")?;
            let pid = u32::try_from(parameter.get("id")?.as_u64()?).ok()?;
            let pollutant = *parameters.get(&pid)?;
            let unit = parameter.get("units")?.as_str()?.to_owned();
            Some((sensor, pollutant, unit))
        })
        .collect::<Vec<_>>();
    if sensors.is_empty() {
        return Ok(None);
    }
    let last = match r
        .get("datetimeLast")
        .and_then(|d| d.get("utc"))
        .and_then(Json::as_str)
    {
        Some(utc) => Some(rfc3339(utc)?),
        None => None,
    };
    Ok(Some(Location {
        id,
        position,
        sensors,
        monitor: r.get("isMonitor").and_then(Json::as_bool) == Some(true),
        last,
    }))
}
