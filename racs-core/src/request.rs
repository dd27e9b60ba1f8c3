//! The score-routes request: its types, and the parser that turns a JSON body into them or
//! into a [`RequestError`] naming the JSON path of the problem.

use std::collections::HashMap;
use std::fmt;

use aq_core::{FieldError, Position};
use chrono::{DateTime, Datelike, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use crate::config::Limits;
use crate::polylines::{MISSING as POLYLINE_MISSING, parse_polyline};
use crate::units::{DurationUnit, LengthUnit, RoutesSort, TravelMode, allowed, lookup};

mod typed;

/// Why a request body was refused. Both kinds carry a [`FieldError`] whose text is the
/// `detail` of the HTTP error.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RequestError {
    /// Malformed or out-of-range input: HTTP 400 `invalid_request`.
    #[error("{0}")]
    Invalid(FieldError),
    /// More routes or vertices than the [`Limits`] allow: HTTP 413 `payload_too_large`. The
    /// text names the limit.
    #[error("{0}")]
    TooLarge(FieldError),
}

impl RequestError {
    pub(crate) fn invalid(path: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::Invalid(FieldError::new(path, problem))
    }

    pub(crate) fn too_large(path: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::TooLarge(FieldError::new(path, problem))
    }

    /// The path and problem.
    #[must_use]
    pub fn field(&self) -> &FieldError {
        match self {
            Self::Invalid(e) | Self::TooLarge(e) => e,
        }
    }

    /// True when a count limit was exceeded (HTTP 413 rather than 400).
    #[must_use]
    pub fn is_too_large(&self) -> bool {
        matches!(self, Self::TooLarge(_))
    }
}

impl From<RequestError> for FieldError {
    fn from(e: RequestError) -> Self {
        match e {
            RequestError::Invalid(e) | RequestError::TooLarge(e) => e,
        }
    }
}

/// A route's identifier as the customer sent it: a JSON string, or a JSON number kept as its
/// decimal text (`7` becomes `"7"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RouteId(String);

impl RouteId {
    /// The id `text`.
    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The id as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RouteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for RouteId {
    fn from(s: &str) -> Self {
        Self::new(s)
    }
}

impl From<String> for RouteId {
    fn from(s: String) -> Self {
        Self(s)
    }
}

/// One route of a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteInput {
    /// The customer's id, unique within the request.
    pub id: RouteId,
    /// The route's vertices in travel order, as `[lon, lat]` pairs on the wire.
    pub polyline: Vec<Position>,
    /// The expected travel time, in the request's [`DurationUnit`]; finite and above 0.
    pub route_duration: f64,
}

/// A score-routes request (operation 2), parsed and checked.
///
/// Build one from a JSON body with [`ScoreRequest::from_json`], which reports every problem
/// with its JSON path. Rust callers may also fill the fields directly and call
/// [`ScoreRequest::validate`]; scoring copes with any content (an unusable route fails with its
/// own error code) but only a validated request is guaranteed a meaningful answer.
///
/// Serialises to the wire form (polylines as arrays of `[lon, lat]` pairs); deserialising goes
/// through [`ScoreRequest::from_json`] with the default [`Limits`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreRequest {
    /// The routes, at least one.
    pub routes: Vec<RouteInput>,
    /// The unit of every `routeDuration` (default minutes).
    pub duration_units: DurationUnit,
    /// The unit of lengths in the response (default metres).
    pub length_units: LengthUnit,
    /// The order of `racss` in the response.
    pub routes_sort: RoutesSort,
    /// When the trip starts (extension; default: when scoring starts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub departure_time: Option<DateTime<Utc>>,
    /// How the traveller moves (extension); sets the ventilation of the dose proxy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub travel_mode: Option<TravelMode>,
}

const TOP_MEMBERS: [&str; 6] = [
    "routes",
    "durationUnits",
    "lengthUnits",
    "routesSort",
    "departureTime",
    "travelMode",
];
const ROUTE_MEMBERS: [&str; 3] = ["id", "polyline", "routeDuration"];

/// Up to this many routes, duplicate ids are found by comparing each id with the earlier ones.
const SCANNED_IDS: usize = 16;

/// How a JSON value is described in error messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn reject_unknown(
    object: &Map<String, Value>,
    prefix: &str,
    known: &[&str],
) -> Result<(), RequestError> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(RequestError::invalid(
            format!("{prefix}{k}"),
            format!("unknown member; expected one of {}", known.join(", ")),
        )),
        None => Ok(()),
    }
}

/// A member that is absent and one that is `null` mean the same: not given.
fn member<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    object.get(name).filter(|v| !v.is_null())
}

fn parse_enum<T: Copy>(
    object: &Map<String, Value>,
    name: &str,
    all: &[T],
    as_str: fn(T) -> &'static str,
) -> Result<Option<T>, RequestError> {
    let Some(value) = member(object, name) else {
        return Ok(None);
    };
    let Value::String(s) = value else {
        return Err(RequestError::invalid(
            name,
            format!(
                "expected a string, one of {}; found {}",
                allowed(all, as_str),
                kind(value)
            ),
        ));
    };
    lookup(all, s, as_str).map(Some).ok_or_else(|| {
        RequestError::invalid(
            name,
            format!(
                "{s:?} is not allowed; expected one of {}",
                allowed(all, as_str)
            ),
        )
    })
}

impl ScoreRequest {
    /// Parses and checks a score-routes body from its bytes: the same answer as
    /// [`ScoreRequest::from_json`] on the parsed body, for any body.
    ///
    /// A valid body is read straight into the request, without the JSON tree that
    /// [`ScoreRequest::from_json`] needs (for a one-route request, about a third of the
    /// instructions); any other body is read again as a tree, so that every error message is
    /// exactly that of [`ScoreRequest::from_json`].
    ///
    /// ```
    /// use racs_core::{Limits, ScoreRequest};
    ///
    /// let body = br#"{"routes": [{"id": 7, "polyline": [[13.40, 52.52], [13.41, 52.52]],
    ///                 "routeDuration": 12}], "routesSort": "desc"}"#;
    /// let request = ScoreRequest::from_json_slice(body, &Limits::default()).unwrap();
    /// let tree: serde_json::Value = serde_json::from_slice(body).unwrap();
    /// assert_eq!(request, ScoreRequest::from_json(&tree, &Limits::default()).unwrap());
    ///
    /// let err = ScoreRequest::from_json_slice(br#"{"routes": []}"#, &Limits::default());
    /// assert_eq!(err.unwrap_err().to_string(), "routes: at least one route is required");
    /// let err = ScoreRequest::from_json_slice(b"{\"routes\": [", &Limits::default());
    /// assert!(err.unwrap_err().to_string().starts_with("the body is not valid JSON: "));
    /// ```
    ///
    /// # Errors
    /// As [`ScoreRequest::from_json`]; a body that is not valid JSON is
    /// [`RequestError::Invalid`] with an empty path and the parser's message.
    pub fn from_json_slice(body: &[u8], limits: &Limits) -> Result<Self, RequestError> {
        if let Some(request) = typed::read(body, limits) {
            return Ok(request);
        }
        let tree: Value = serde_json::from_slice(body)
            .map_err(|e| RequestError::invalid("", format!("the body is not valid JSON: {e}")))?;
        Self::from_json(&tree, limits)
    }

    /// Parses and checks a score-routes body that the HTTP layer has already read as JSON.
    ///
    /// Every rule of the API is checked: member types, the polyline forms and coordinate
    /// ranges, ids (string or number, non-empty, unique), durations (finite, above 0, within
    /// [`Limits::max_route_duration_s`]), the unit and sort enums (listing the allowed values),
    /// `routesSort` being present, `departureTime` as RFC 3339 (and within the years 0000 to
    /// 9999 in UTC), unknown members (refused, so a misspelt option cannot be silently
    /// ignored), and the count limits.
    ///
    /// ```
    /// use racs_core::{Limits, RoutesSort, ScoreRequest};
    /// use serde_json::json;
    ///
    /// let body = json!({
    ///     "routes": [{"id": 1, "polyline": "_p~iF~ps|U_ulLnnqC_mqNvxq`@", "routeDuration": 90}],
    ///     "routesSort": "desc"
    /// });
    /// let request = ScoreRequest::from_json(&body, &Limits::default()).unwrap();
    /// assert_eq!(request.routes[0].id.as_str(), "1");
    /// assert_eq!(request.routes_sort, RoutesSort::Desc);
    /// assert_eq!(request.duration_s(&request.routes[0]), 5400.0);
    ///
    /// let bad = json!({"routes": [{"id": "a", "polyline": [[0, 0], [1, 91]], "routeDuration": 5}],
    ///                  "routesSort": "desc"});
    /// let err = ScoreRequest::from_json(&bad, &Limits::default()).unwrap_err();
    /// assert_eq!(err.to_string(), "routes[0].polyline[1]: latitude 91 is outside [-90, 90]");
    /// assert!(!err.is_too_large());
    /// ```
    ///
    /// # Errors
    /// [`RequestError::TooLarge`] when a count limit of `limits` is exceeded,
    /// [`RequestError::Invalid`] for any other problem; both name the JSON path.
    pub fn from_json(body: &Value, limits: &Limits) -> Result<Self, RequestError> {
        let Value::Object(object) = body else {
            return Err(RequestError::invalid(
                "",
                format!("expected a JSON object, found {}", kind(body)),
            ));
        };
        reject_unknown(object, "", &TOP_MEMBERS)?;

        let routes_value = match member(object, "routes") {
            None => {
                return Err(RequestError::invalid(
                    "routes",
                    "missing; expected an array of routes",
                ));
            }
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(RequestError::invalid(
                    "routes",
                    format!("expected an array of routes, found {}", kind(other)),
                ));
            }
        };
        check_route_count(routes_value.len(), limits)?;

        let duration_units = parse_enum(
            object,
            "durationUnits",
            &DurationUnit::ALL,
            DurationUnit::as_str,
        )?
        .unwrap_or_default();
        let length_units = parse_enum(object, "lengthUnits", &LengthUnit::ALL, LengthUnit::as_str)?
            .unwrap_or_default();
        let routes_sort = parse_enum(object, "routesSort", &RoutesSort::ALL, RoutesSort::as_str)?
            .ok_or_else(|| {
            RequestError::invalid(
                "routesSort",
                format!(
                    "missing; expected one of {}",
                    allowed(&RoutesSort::ALL, RoutesSort::as_str)
                ),
            )
        })?;
        let travel_mode = parse_enum(object, "travelMode", &TravelMode::ALL, TravelMode::as_str)?;
        let departure_time = match member(object, "departureTime") {
            None => None,
            Some(Value::String(s)) => {
                let time = DateTime::parse_from_rfc3339(s)
                    .map_err(|e| {
                        RequestError::invalid(
                            "departureTime",
                            format!(
                                "{s:?} is not an RFC 3339 date-time ({e}); for example \
                                 2026-05-01T08:00:00Z"
                            ),
                        )
                    })?
                    .with_timezone(&Utc);
                check_departure(time, s)?;
                Some(time)
            }
            Some(other) => {
                return Err(RequestError::invalid(
                    "departureTime",
                    format!(
                        "expected an RFC 3339 date-time string, found {}",
                        kind(other)
                    ),
                ));
            }
        };

        // A handful of routes is usual: comparing with each earlier one is then cheaper than
        // hashing and copying every id.
        let hashed = routes_value.len() > SCANNED_IDS;
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut routes: Vec<RouteInput> = Vec::with_capacity(routes_value.len());
        for (i, value) in routes_value.iter().enumerate() {
            let route = parse_route(value, i, duration_units, limits)?;
            let earlier = if hashed {
                seen.insert(route.id.0.clone(), i)
            } else {
                routes.iter().position(|r| r.id == route.id)
            };
            if let Some(first) = earlier {
                return Err(RequestError::invalid(
                    format!("routes[{i}].id"),
                    format!("{:?} is already the id of routes[{first}]", route.id.0),
                ));
            }
            routes.push(route);
        }

        Ok(Self {
            routes,
            duration_units,
            length_units,
            routes_sort,
            departure_time,
            travel_mode,
        })
    }

    /// Checks a request built in Rust against the same rules [`ScoreRequest::from_json`]
    /// applies (positions are valid by construction).
    ///
    /// # Errors
    /// The first problem found, with its path, as [`ScoreRequest::from_json`] would report it.
    pub fn validate(&self, limits: &Limits) -> Result<(), RequestError> {
        check_route_count(self.routes.len(), limits)?;
        if let Some(time) = self.departure_time {
            check_departure(time, &time.to_rfc3339())?;
        }
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(self.routes.len());
        for (i, route) in self.routes.iter().enumerate() {
            check_id(&route.id.0, || format!("routes[{i}].id"), limits)?;
            if route.polyline.len() > limits.max_vertices_per_route {
                return Err(RequestError::too_large(
                    format!("routes[{i}].polyline"),
                    format!(
                        "{} vertices are more than the limit of {}",
                        route.polyline.len(),
                        limits.max_vertices_per_route
                    ),
                ));
            }
            check_duration(
                route.route_duration,
                || route.route_duration.to_string(),
                i,
                self.duration_units,
                limits,
            )?;
            if let Some(first) = seen.insert(route.id.as_str(), i) {
                return Err(RequestError::invalid(
                    format!("routes[{i}].id"),
                    format!("{:?} is already the id of routes[{first}]", route.id.0),
                ));
            }
        }
        Ok(())
    }

    /// A route's duration in seconds.
    #[must_use]
    pub fn duration_s(&self, route: &RouteInput) -> f64 {
        route.route_duration * self.duration_units.seconds()
    }
}

impl<'de> Deserialize<'de> for ScoreRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_json(&value, &Limits::default()).map_err(serde::de::Error::custom)
    }
}

fn check_route_count(count: usize, limits: &Limits) -> Result<(), RequestError> {
    if count == 0 {
        return Err(RequestError::invalid(
            "routes",
            "at least one route is required",
        ));
    }
    if count > limits.max_routes {
        return Err(RequestError::too_large(
            "routes",
            format!(
                "{count} routes are more than the limit of {}",
                limits.max_routes
            ),
        ));
    }
    Ok(())
}

/// RFC 3339 writes four-digit years only, so an offset that carries a time past the end of
/// year 9999 (or before year 0) in UTC would give a request whose wire form no longer parses.
fn check_departure(time: DateTime<Utc>, shown: &str) -> Result<(), RequestError> {
    if (0..=9999).contains(&time.year()) {
        Ok(())
    } else {
        Err(RequestError::invalid(
            "departureTime",
            format!("{shown:?} is outside the years 0000 to 9999 once converted to UTC"),
        ))
    }
}

/// Whether `id` passes [`check_id`].
fn id_ok(id: &str, limits: &Limits) -> bool {
    !id.is_empty() && id.len() <= limits.max_route_id_bytes
}

/// Paths and texts are only spelt out for an error: formatting them for every valid route
/// would cost more than checking it.
fn check_id(id: &str, path: impl FnOnce() -> String, limits: &Limits) -> Result<(), RequestError> {
    if id_ok(id, limits) {
        Ok(())
    } else if id.is_empty() {
        Err(RequestError::invalid(path(), "must not be empty"))
    } else {
        Err(RequestError::invalid(
            path(),
            format!(
                "{} bytes is longer than the limit of {}",
                id.len(),
                limits.max_route_id_bytes
            ),
        ))
    }
}

/// Whether a `routeDuration` of `value` passes [`check_duration`].
fn duration_ok(value: f64, units: DurationUnit, limits: &Limits) -> bool {
    value.is_finite() && value > 0.0 && value * units.seconds() <= limits.max_route_duration_s
}

fn check_duration(
    value: f64,
    shown: impl FnOnce() -> String,
    i: usize,
    units: DurationUnit,
    limits: &Limits,
) -> Result<(), RequestError> {
    if duration_ok(value, units, limits) {
        return Ok(());
    }
    let path = format!("routes[{i}].routeDuration");
    let shown = shown();
    if !value.is_finite() || value <= 0.0 {
        Err(RequestError::invalid(
            path,
            format!("{shown} is not a duration; it must be a number above 0"),
        ))
    } else {
        Err(RequestError::invalid(
            path,
            format!(
                "{shown} {units} is longer than the limit of {} s",
                limits.max_route_duration_s
            ),
        ))
    }
}

fn parse_route(
    value: &Value,
    i: usize,
    units: DurationUnit,
    limits: &Limits,
) -> Result<RouteInput, RequestError> {
    let Value::Object(object) = value else {
        return Err(RequestError::invalid(
            format!("routes[{i}]"),
            format!(
                "expected an object with id, polyline and routeDuration, found {}",
                kind(value)
            ),
        ));
    };
    if object.keys().any(|k| !ROUTE_MEMBERS.contains(&k.as_str())) {
        reject_unknown(object, &format!("routes[{i}]."), &ROUTE_MEMBERS)?;
    }

    let id_path = || format!("routes[{i}].id");
    let id = match member(object, "id") {
        None => {
            return Err(RequestError::invalid(
                id_path(),
                "missing; expected a string or a number",
            ));
        }
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => {
            return Err(RequestError::invalid(
                id_path(),
                format!("expected a string or a number, found {}", kind(other)),
            ));
        }
    };
    check_id(&id, id_path, limits)?;

    // The polyline reader needs its path as text, but formats it only for an error.
    let polyline_path = format!("routes[{i}].polyline");
    let polyline = match member(object, "polyline") {
        None => return Err(RequestError::invalid(polyline_path, POLYLINE_MISSING)),
        Some(v) => parse_polyline(v, &polyline_path, limits.max_vertices_per_route)?,
    };

    let duration_path = || format!("routes[{i}].routeDuration");
    let route_duration = match member(object, "routeDuration") {
        None => {
            return Err(RequestError::invalid(
                duration_path(),
                format!("missing; expected a number of {units}"),
            ));
        }
        Some(Value::Number(n)) => {
            let v = n.as_f64().unwrap_or(f64::NAN);
            check_duration(v, || n.to_string(), i, units, limits)?;
            v
        }
        Some(other) => {
            return Err(RequestError::invalid(
                duration_path(),
                format!("expected a number of {units}, found {}", kind(other)),
            ));
        }
    };

    Ok(RouteInput {
        id: RouteId(id),
        polyline,
        route_duration,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn body() -> Value {
        json!({
            "routes": [
                {"id": "a", "polyline": [[13.40, 52.52], [13.41, 52.52]], "routeDuration": 12},
                {"id": 7, "polyline": "_p~iF~ps|U_ulLnnqC_mqNvxq`@", "routeDuration": 1.5}
            ],
            "routesSort": "asc"
        })
    }

    fn parse(v: &Value) -> Result<ScoreRequest, RequestError> {
        ScoreRequest::from_json(v, &Limits::default())
    }

    fn error(v: &Value) -> String {
        parse(v).unwrap_err().to_string()
    }

    fn with(mut v: Value, pointer: &str, new: Value) -> Value {
        *v.pointer_mut(pointer).unwrap() = new;
        v
    }

    fn without(mut v: Value, member: &str) -> Value {
        v.as_object_mut().unwrap().remove(member);
        v
    }

    #[test]
    fn a_minimal_body_takes_the_defaults() {
        let r = parse(&body()).unwrap();
        assert_eq!(r.duration_units, DurationUnit::Minutes);
        assert_eq!(r.length_units, LengthUnit::Metres);
        assert_eq!(r.routes_sort, RoutesSort::Asc);
        assert_eq!(r.departure_time, None);
        assert_eq!(r.travel_mode, None);
        assert_eq!(r.routes[1].id.as_str(), "7");
        assert_eq!(r.routes[1].polyline.len(), 3);
        assert_eq!(r.duration_s(&r.routes[1]), 90.0);
    }

    #[test]
    fn options_are_read() {
        let mut v = body();
        let o = v.as_object_mut().unwrap();
        o.insert("durationUnits".into(), json!("s"));
        o.insert("lengthUnits".into(), json!("mi"));
        o.insert("departureTime".into(), json!("2026-05-01T10:00:00+02:00"));
        o.insert("travelMode".into(), json!("cycle"));
        let r = parse(&v).unwrap();
        assert_eq!(r.duration_units, DurationUnit::Seconds);
        assert_eq!(r.length_units, LengthUnit::Miles);
        assert_eq!(r.travel_mode, Some(TravelMode::Cycle));
        assert_eq!(
            r.departure_time.unwrap().to_rfc3339(),
            "2026-05-01T08:00:00+00:00"
        );
        assert_eq!(r.duration_s(&r.routes[0]), 12.0);
    }

    #[test]
    fn null_optional_members_mean_the_default() {
        let v = with(body(), "/routes/0/id", json!("a"));
        let mut v = v;
        v.as_object_mut()
            .unwrap()
            .insert("durationUnits".into(), Value::Null);
        assert_eq!(parse(&v).unwrap().duration_units, DurationUnit::Minutes);
    }

    #[test]
    fn the_body_must_be_an_object() {
        assert_eq!(error(&json!([1])), "expected a JSON object, found an array");
    }

    #[test]
    fn routes_sort_is_required_and_enums_list_their_values() {
        assert_eq!(
            error(&without(body(), "routesSort")),
            "routesSort: missing; expected one of desc, asc, original"
        );
        assert_eq!(
            error(&with(body(), "/routesSort", json!("up"))),
            "routesSort: \"up\" is not allowed; expected one of desc, asc, original"
        );
        let mut v = body();
        v.as_object_mut()
            .unwrap()
            .insert("durationUnits".into(), json!("min"));
        assert_eq!(
            error(&v),
            "durationUnits: \"min\" is not allowed; expected one of s, m, h"
        );
        let mut v = body();
        v.as_object_mut()
            .unwrap()
            .insert("lengthUnits".into(), json!(5));
        assert_eq!(
            error(&v),
            "lengthUnits: expected a string, one of m, km, ft, yd, mi; found a number"
        );
        let mut v = body();
        v.as_object_mut()
            .unwrap()
            .insert("travelMode".into(), json!("fly"));
        assert_eq!(
            error(&v),
            "travelMode: \"fly\" is not allowed; expected one of walk, cycle, drive"
        );
    }

    #[test]
    fn routes_must_be_a_non_empty_array() {
        assert_eq!(
            error(&without(body(), "routes")),
            "routes: missing; expected an array of routes"
        );
        assert_eq!(
            error(&with(body(), "/routes", json!({}))),
            "routes: expected an array of routes, found an object"
        );
        assert_eq!(
            error(&with(body(), "/routes", json!([]))),
            "routes: at least one route is required"
        );
        assert_eq!(
            error(&with(body(), "/routes/1", json!("r"))),
            "routes[1]: expected an object with id, polyline and routeDuration, found a string"
        );
    }

    #[test]
    fn ids_are_checked_and_unique() {
        assert_eq!(
            error(&with(body(), "/routes/1/id", json!("a"))),
            "routes[1].id: \"a\" is already the id of routes[0]"
        );
        // A number and a string with the same text are the same id.
        assert_eq!(
            error(&with(body(), "/routes/0/id", json!("7"))),
            "routes[1].id: \"7\" is already the id of routes[0]"
        );
        assert_eq!(
            error(&with(body(), "/routes/0/id", json!(""))),
            "routes[0].id: must not be empty"
        );
        assert_eq!(
            error(&with(body(), "/routes/0/id", json!(true))),
            "routes[0].id: expected a string or a number, found a boolean"
        );
        assert_eq!(
            error(&with(body(), "/routes/0/id", json!("x".repeat(257)))),
            "routes[0].id: 257 bytes is longer than the limit of 256"
        );
        let mut v = body();
        v.pointer_mut("/routes/0")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove("id");
        assert_eq!(
            error(&v),
            "routes[0].id: missing; expected a string or a number"
        );
    }

    #[test]
    fn duplicate_ids_are_found_among_many_routes() {
        for count in [SCANNED_IDS, SCANNED_IDS + 1, 40] {
            let mut routes: Vec<Value> = (0..count)
                .map(|i| json!({"id": format!("r{i}"), "polyline": [[0, 0], [0, 0.001]], "routeDuration": 1}))
                .collect();
            routes[count - 1]["id"] = json!("r2");
            let v = json!({"routes": routes, "routesSort": "asc"});
            let expected = format!(
                "routes[{}].id: \"r2\" is already the id of routes[2]",
                count - 1
            );
            assert_eq!(error(&v), expected);
            let bytes = serde_json::to_vec(&v).unwrap();
            let e = ScoreRequest::from_json_slice(&bytes, &Limits::default()).unwrap_err();
            assert_eq!(e.to_string(), expected);
            routes[count - 1]["id"] = json!("last");
            let v = json!({"routes": routes, "routesSort": "asc"});
            let bytes = serde_json::to_vec(&v).unwrap();
            assert_eq!(
                ScoreRequest::from_json_slice(&bytes, &Limits::default()),
                parse(&v)
            );
            assert!(parse(&v).is_ok());
        }
    }

    #[test]
    fn durations_are_positive_finite_and_bounded() {
        assert_eq!(
            error(&with(body(), "/routes/1/routeDuration", json!(0))),
            "routes[1].routeDuration: 0 is not a duration; it must be a number above 0"
        );
        assert_eq!(
            error(&with(body(), "/routes/1/routeDuration", json!(-3.5))),
            "routes[1].routeDuration: -3.5 is not a duration; it must be a number above 0"
        );
        assert_eq!(
            error(&with(body(), "/routes/1/routeDuration", json!("12"))),
            "routes[1].routeDuration: expected a number of m, found a string"
        );
        assert_eq!(
            error(&with(body(), "/routes/1/routeDuration", json!(20000))),
            "routes[1].routeDuration: 20000 m is longer than the limit of 604800 s"
        );
        let mut v = body();
        v.pointer_mut("/routes/0")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove("routeDuration");
        assert_eq!(
            error(&v),
            "routes[0].routeDuration: missing; expected a number of m"
        );
    }

    #[test]
    fn polyline_problems_carry_their_paths() {
        assert_eq!(
            error(&with(
                body(),
                "/routes/1/polyline",
                json!([
                    [0, 0],
                    [1, 1],
                    [2, 2],
                    [3, 3],
                    [4, 4],
                    [5, 5],
                    [6, 6],
                    [7, 91]
                ])
            )),
            "routes[1].polyline[7]: latitude 91 is outside [-90, 90]"
        );
        let mut v = body();
        v.pointer_mut("/routes/0")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove("polyline");
        assert_eq!(
            error(&v),
            "routes[0].polyline: missing; expected an array of [lon, lat] pairs or an encoded \
             polyline string"
        );
    }

    #[test]
    fn unknown_members_are_refused_with_the_known_ones() {
        let mut v = body();
        v.as_object_mut()
            .unwrap()
            .insert("routeSort".into(), json!("asc"));
        assert_eq!(
            error(&v),
            "routeSort: unknown member; expected one of routes, durationUnits, lengthUnits, \
             routesSort, departureTime, travelMode"
        );
        let mut v = body();
        v.pointer_mut("/routes/1")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .insert("duration".into(), json!(3));
        assert_eq!(
            error(&v),
            "routes[1].duration: unknown member; expected one of id, polyline, routeDuration"
        );
    }

    #[test]
    fn departure_time_must_be_rfc3339() {
        let mut v = body();
        v.as_object_mut()
            .unwrap()
            .insert("departureTime".into(), json!("tomorrow"));
        let e = error(&v);
        assert!(
            e.starts_with("departureTime: \"tomorrow\" is not an RFC 3339 date-time"),
            "{e}"
        );
    }

    #[test]
    fn an_accepted_departure_time_reads_back_from_the_wire_form() {
        let at = |time: &str| {
            let mut v = body();
            v.as_object_mut()
                .unwrap()
                .insert("departureTime".into(), json!(time));
            v
        };
        // Offsets that carry the instant out of the four-digit years in UTC.
        for time in ["9999-12-31T23:59:59-23:59", "0000-01-01T00:00:00+00:01"] {
            assert_eq!(
                error(&at(time)),
                format!(
                    "departureTime: {time:?} is outside the years 0000 to 9999 once converted \
                     to UTC"
                )
            );
        }
        for time in [
            "9999-12-31T23:59:59Z",
            "0000-01-01T00:00:00Z",
            "2026-05-01T08:00:00+14:00",
        ] {
            let r = parse(&at(time)).unwrap();
            let wire = serde_json::to_value(&r).unwrap();
            assert_eq!(parse(&wire).unwrap(), r, "{time} via {wire}");
        }

        let mut far = parse(&body()).unwrap();
        far.departure_time = DateTime::from_timestamp(253_402_300_800, 0);
        assert_eq!(
            far.validate(&Limits::default()).unwrap_err().field().path,
            "departureTime"
        );
    }

    #[test]
    fn count_limits_are_too_large_not_invalid() {
        let limits = Limits {
            max_routes: 1,
            ..Limits::default()
        };
        let e = ScoreRequest::from_json(&body(), &limits).unwrap_err();
        assert!(e.is_too_large());
        assert_eq!(
            e.to_string(),
            "routes: 2 routes are more than the limit of 1"
        );
        let limits = Limits {
            max_vertices_per_route: 2,
            ..Limits::default()
        };
        let e = ScoreRequest::from_json(&body(), &limits).unwrap_err();
        assert!(e.is_too_large());
        assert_eq!(
            e.to_string(),
            "routes[1].polyline: 3 vertices are more than the limit of 2"
        );
    }

    #[test]
    fn serde_round_trip_and_validate() {
        let r = parse(&body()).unwrap();
        let wire = serde_json::to_value(&r).unwrap();
        assert_eq!(wire["routes"][1]["id"], json!("7"));
        assert_eq!(wire["routesSort"], json!("asc"));
        assert_eq!(wire["durationUnits"], json!("m"));
        assert!(wire.get("travelMode").is_none());
        let back: ScoreRequest = serde_json::from_value(wire).unwrap();
        assert_eq!(back, r);
        assert!(r.validate(&Limits::default()).is_ok());

        let mut dup = r.clone();
        dup.routes[1].id = RouteId::from("a");
        assert_eq!(
            dup.validate(&Limits::default()).unwrap_err().to_string(),
            "routes[1].id: \"a\" is already the id of routes[0]"
        );
        let mut bad = r;
        bad.routes[0].route_duration = f64::NAN;
        assert_eq!(
            bad.validate(&Limits::default()).unwrap_err().to_string(),
            "routes[0].routeDuration: NaN is not a duration; it must be a number above 0"
        );
    }

    #[test]
    fn deserialize_reports_the_path() {
        let e = serde_json::from_value::<ScoreRequest>(with(body(), "/routesSort", json!(1)))
            .unwrap_err();
        assert!(
            e.to_string().starts_with("routesSort: expected a string"),
            "{e}"
        );
    }
}
