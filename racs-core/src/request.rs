//! The score-routes request: its types, read from JSON by serde's derived `Deserialize`, and
//! [`ScoreRequest::validate`], the one check of the configured [`Limits`] and of the rules that
//! involve several members.
//!
//! Reading refuses what the API does not define: unknown members (naming the allowed ones),
//! repeated members, a struct given as an array, a polyline pair of other than two numbers.
//! Every error names its JSON path (`routes[1].polyline[7]: latitude 91 is outside [-90, 90]`).
//! Nothing builds a JSON tree, so reading holds little more than the request itself.

use std::collections::HashMap;
use std::fmt;

use aq_core::Position;
use aq_core::json::{self, Object};
use chrono::{DateTime, Datelike, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use crate::config::Limits;
use crate::error::RequestError;
use crate::units::{DurationUnit, LengthUnit, RoutesSort, TravelMode};

/// A route's identifier as the customer sent it: a JSON string as its text, a JSON number as
/// its exact JSON text (`7` is `"7"`, `1.50` stays `"1.50"`). Two ids are the same only when
/// their texts are. Always written back as a JSON string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
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

impl<'de> Deserialize<'de> for RouteId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        json::id_text(deserializer).map(Self)
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RouteInput {
    /// The customer's id, unique within the request.
    pub id: RouteId,
    /// The route's vertices in travel order: on the wire an array of `[lon, lat]` pairs, a
    /// string holding such an array, or a Google encoded polyline (precision 5).
    #[serde(deserialize_with = "crate::polylines::deserialize")]
    pub polyline: Vec<Position>,
    /// The expected travel time, in the request's [`DurationUnit`]; finite and above 0.
    #[serde(deserialize_with = "json::number")]
    pub route_duration: f64,
    /// How the traveller moves on this route (extension); the request's `travelMode` when
    /// absent. Sets the ventilation of the route's inhaled dose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub travel_mode: Option<TravelMode>,
}

/// A score-routes request (operation 2).
///
/// Read one from a body with [`ScoreRequest::from_json_slice`] or
/// [`ScoreRequest::from_reader`], which deserialise it and [validate](ScoreRequest::validate)
/// it against the [`Limits`]. Rust callers may also fill the fields directly, or deserialise
/// with serde, and then call [`ScoreRequest::validate`]: scoring copes with any content (an
/// unusable route fails with its own error code), but only a validated request is guaranteed a
/// meaningful answer.
///
/// ```
/// use racs_core::{Limits, RoutesSort, ScoreRequest};
///
/// let body = br#"{"routes": [{"id": 7, "polyline": "_p~iF~ps|U_ulLnnqC_mqNvxq`@",
///                 "routeDuration": 90}], "routesSort": "desc"}"#;
/// let request = ScoreRequest::from_json_slice(body, &Limits::default()).unwrap();
/// assert_eq!(request.routes[0].id.as_str(), "7");
/// assert_eq!(request.routes_sort, RoutesSort::Desc);
/// assert_eq!(request.duration_s(&request.routes[0]), 5400.0);
///
/// let bad = br#"{"routes": [{"id": "a", "polyline": [[0, 0], [1, 91]], "routeDuration": 5}],
///                "routesSort": "desc"}"#;
/// let err = ScoreRequest::from_json_slice(bad, &Limits::default()).unwrap_err();
/// assert!(err.to_string().starts_with("routes[0].polyline[1]: latitude 91 is outside [-90, 90]"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScoreRequest {
    /// The routes, at least one.
    #[serde(deserialize_with = "json::objects")]
    pub routes: Vec<RouteInput>,
    /// The unit of every `routeDuration` (default minutes).
    #[serde(default, deserialize_with = "json::or_default")]
    pub duration_units: DurationUnit,
    /// The unit of lengths in the response (default metres).
    #[serde(default, deserialize_with = "json::or_default")]
    pub length_units: LengthUnit,
    /// The order of `racss` in the response; required, as the API's specification has it.
    pub routes_sort: RoutesSort,
    /// When the trip starts (extension; default: when scoring starts), as RFC 3339.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "departure_time"
    )]
    pub departure_time: Option<DateTime<Utc>>,
    /// How the traveller moves (extension): the default of every route's own `travelMode`,
    /// which sets the ventilation of its dose; walking when neither says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub travel_mode: Option<TravelMode>,
    /// How long after `departureTime` the traveller could still leave, 15 to 720 minutes
    /// (extension). With it, every route is also scored at each later departure of the window
    /// and the response recommends the best one ([`ScoreRequest::departure_window`]).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::window::window_minutes"
    )]
    pub departure_window_minutes: Option<u32>,
    /// Minutes between the departures of the window, 5 to 720 (extension; default 15). Only
    /// with `departureWindowMinutes`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::window::step_minutes"
    )]
    pub departure_step_minutes: Option<u32>,
}

impl ScoreRequest {
    /// Reads a score-routes body from its bytes and [validates](Self::validate) it.
    ///
    /// ```
    /// use racs_core::{Limits, ScoreRequest};
    ///
    /// let err = ScoreRequest::from_json_slice(br#"{"routes": [], "routesSort": "asc"}"#,
    ///                                         &Limits::default());
    /// assert_eq!(err.unwrap_err().to_string(), "routes: at least one route is required");
    /// let err = ScoreRequest::from_json_slice(br#"{"routes": [], "routeSort": "asc"}"#,
    ///                                         &Limits::default());
    /// assert!(err.unwrap_err().to_string().starts_with(
    ///     "routeSort: unknown field `routeSort`, expected one of `routes`, `durationUnits`"));
    /// ```
    ///
    /// # Errors
    /// [`RequestError::TooLarge`] when a count limit of `limits` is exceeded,
    /// [`RequestError::Invalid`] for any other problem; both name the JSON path.
    pub fn from_json_slice(body: &[u8], limits: &Limits) -> Result<Self, RequestError> {
        let Object(request) = json::from_slice::<Object<Self>>(body)?;
        request.validate(limits)?;
        Ok(request)
    }

    /// Reads a score-routes body from a reader (a body kept in a file, say), as
    /// [`ScoreRequest::from_json_slice`] does from bytes.
    ///
    /// # Errors
    /// As [`ScoreRequest::from_json_slice`]; [`RequestError::Unreadable`] when the reader fails.
    pub fn from_reader(reader: impl std::io::Read, limits: &Limits) -> Result<Self, RequestError> {
        let Object(request) = json::from_reader::<_, Object<Self>>(reader)?;
        request.validate(limits)?;
        Ok(request)
    }

    /// Checks the rules that reading cannot: the count limits (routes, vertices), ids
    /// (non-empty, within [`Limits::max_route_id_bytes`], unique), durations (finite, above 0,
    /// within [`Limits::max_route_duration_s`]), `departureTime` within the years 0000 to
    /// 9999 in UTC, and the departure window (its ranges, a step only with a window, and
    /// routes × later departures within [`Limits::max_departure_scorings`], a
    /// [`RequestError::TooLarge`]).
    ///
    /// # Errors
    /// The first problem found, with its path.
    pub fn validate(&self, limits: &Limits) -> Result<(), RequestError> {
        let count = self.routes.len();
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
        if self.departure_time.is_some_and(|time| !year_in_range(time)) {
            return Err(RequestError::invalid(
                "departureTime",
                "the time is outside the years 0000 to 9999 in UTC",
            ));
        }
        crate::window::checked(
            self.departure_window_minutes,
            self.departure_step_minutes,
            count,
            limits,
        )?;
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(count);
        for (i, route) in self.routes.iter().enumerate() {
            self.check_route(i, route, limits)?;
            if let Some(first) = seen.insert(route.id.as_str(), i) {
                return Err(RequestError::invalid(
                    format!("routes[{i}].id"),
                    format!("{:?} is already the id of routes[{first}]", route.id.0),
                ));
            }
        }
        Ok(())
    }

    fn check_route(
        &self,
        i: usize,
        route: &RouteInput,
        limits: &Limits,
    ) -> Result<(), RequestError> {
        let id = route.id.as_str();
        if id.is_empty() {
            return Err(RequestError::invalid(
                format!("routes[{i}].id"),
                "must not be empty",
            ));
        }
        if id.len() > limits.max_route_id_bytes {
            return Err(RequestError::invalid(
                format!("routes[{i}].id"),
                format!(
                    "{} bytes is longer than the limit of {}",
                    id.len(),
                    limits.max_route_id_bytes
                ),
            ));
        }
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
        let duration = route.route_duration;
        let units = self.duration_units;
        if !duration.is_finite() || duration <= 0.0 {
            return Err(RequestError::invalid(
                format!("routes[{i}].routeDuration"),
                format!("{duration} is not a duration; it must be a number above 0"),
            ));
        }
        if duration * units.seconds() > limits.max_route_duration_s {
            return Err(RequestError::invalid(
                format!("routes[{i}].routeDuration"),
                format!(
                    "{duration} {units} is longer than the limit of {} s",
                    limits.max_route_duration_s
                ),
            ));
        }
        Ok(())
    }

    /// A route's duration in seconds.
    #[must_use]
    pub fn duration_s(&self, route: &RouteInput) -> f64 {
        route.route_duration * self.duration_units.seconds()
    }

    /// The departure window, when the request has one, with the step's default filled in.
    /// Ranges are [validated](Self::validate) separately.
    ///
    /// ```
    /// use racs_core::{DepartureWindow, Limits, ScoreRequest};
    ///
    /// let body = br#"{"routes": [{"id": 1, "polyline": [[0, 0], [0, 0.01]], "routeDuration": 10}],
    ///                 "routesSort": "desc", "departureWindowMinutes": 60}"#;
    /// let request = ScoreRequest::from_json_slice(body, &Limits::default()).unwrap();
    /// assert_eq!(
    ///     request.departure_window(),
    ///     Some(DepartureWindow { window_minutes: 60, step_minutes: 15 })
    /// );
    /// ```
    #[must_use]
    pub fn departure_window(&self) -> Option<crate::window::DepartureWindow> {
        self.departure_window_minutes
            .map(|window_minutes| crate::window::DepartureWindow {
                window_minutes,
                step_minutes: self
                    .departure_step_minutes
                    .unwrap_or(crate::window::DEFAULT_STEP_MINUTES),
            })
    }

    /// The travel mode of `route`: its own, else the request's.
    #[must_use]
    pub fn travel_mode(&self, route: &RouteInput) -> Option<TravelMode> {
        route.travel_mode.or(self.travel_mode)
    }
}

/// Reads `departureTime`: an RFC 3339 date-time, or `null` for none.
pub(crate) fn departure_time<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<DateTime<Utc>>, D::Error> {
    let Some(text) = Option::<String>::deserialize(deserializer)? else {
        return Ok(None);
    };
    let time = DateTime::parse_from_rfc3339(&text)
        .map_err(|e| {
            serde::de::Error::custom(format!(
                "{text:?} is not an RFC 3339 date-time ({e}); for example 2026-05-01T08:00:00Z"
            ))
        })?
        .with_timezone(&Utc);
    if !year_in_range(time) {
        return Err(serde::de::Error::custom(format!(
            "{text:?} is outside the years 0000 to 9999 once converted to UTC"
        )));
    }
    Ok(Some(time))
}

/// RFC 3339 writes four-digit years only, so an offset that carries a time past the end of
/// year 9999 (or before year 0) in UTC would give a request whose wire form no longer parses.
pub(crate) fn year_in_range(time: DateTime<Utc>) -> bool {
    (0..=9999).contains(&time.year())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

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

    fn parse_text(text: &str, limits: &Limits) -> Result<ScoreRequest, RequestError> {
        let from_bytes = ScoreRequest::from_json_slice(text.as_bytes(), limits);
        let from_reader = ScoreRequest::from_reader(text.as_bytes(), limits);
        assert_eq!(from_bytes.is_ok(), from_reader.is_ok(), "{text}");
        from_bytes
    }

    fn parse(v: &Value) -> Result<ScoreRequest, RequestError> {
        parse_text(&v.to_string(), &Limits::default())
    }

    /// The error's text without the position in the body, which says nothing here.
    fn error(v: &Value) -> String {
        let text = parse(v).unwrap_err().to_string();
        text.split(" at line ")
            .next()
            .unwrap_or_default()
            .to_owned()
    }

    fn with(mut v: Value, pointer: &str, new: Value) -> Value {
        *v.pointer_mut(pointer).unwrap() = new;
        v
    }

    fn without(mut v: Value, pointer: &str, member: &str) -> Value {
        v.pointer_mut(pointer)
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove(member);
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
        let mut v = body();
        let o = v.as_object_mut().unwrap();
        for member in [
            "durationUnits",
            "lengthUnits",
            "departureTime",
            "travelMode",
        ] {
            o.insert(member.into(), Value::Null);
        }
        let r = parse(&v).unwrap();
        assert_eq!(r, parse(&body()).unwrap());
    }

    #[test]
    fn the_body_and_each_route_must_be_objects() {
        assert_eq!(
            error(&json!([1])),
            "invalid type: sequence, expected a JSON object"
        );
        assert_eq!(
            error(&with(
                body(),
                "/routes/1",
                json!(["b", [[0, 0], [0, 1]], 5])
            )),
            "routes[1]: invalid type: sequence, expected a JSON object"
        );
    }

    #[test]
    fn routes_sort_is_required_and_enums_list_their_values() {
        assert_eq!(
            error(&without(body(), "", "routesSort")),
            "missing field `routesSort`"
        );
        assert_eq!(
            error(&with(body(), "/routesSort", json!("up"))),
            "routesSort: \"up\" is not allowed; expected one of desc, asc, original"
        );
        let mut v = body();
        let o = v.as_object_mut().unwrap();
        o.insert("durationUnits".into(), json!("min"));
        assert_eq!(
            error(&v),
            "durationUnits: \"min\" is not allowed; expected one of s, m, h"
        );
        let e = error(&with(body(), "/routesSort", json!(5)));
        assert_eq!(
            e,
            "routesSort: invalid type: integer `5`, expected one of desc, asc, original"
        );
        let e = error(&with(body(), "/routesSort", json!({"asc": null})));
        assert!(e.starts_with("routesSort: invalid type: map"), "{e}");
    }

    #[test]
    fn routes_must_be_a_non_empty_array() {
        assert_eq!(
            error(&without(body(), "", "routes")),
            "missing field `routes`"
        );
        assert_eq!(
            error(&with(body(), "/routes", json!({}))),
            "routes: invalid type: map, expected a sequence"
        );
        assert_eq!(
            error(&with(body(), "/routes", json!([]))),
            "routes: at least one route is required"
        );
    }

    #[test]
    fn ids_are_kept_as_sent_and_unique() {
        let ids = |sent: &[&str]| -> Result<Vec<String>, String> {
            let routes: Vec<String> = sent
                .iter()
                .map(|id| {
                    format!(
                        r#"{{"id": {id}, "polyline": [[0, 0], [0, 0.001]], "routeDuration": 1}}"#
                    )
                })
                .collect();
            let text = format!(
                r#"{{"routes": [{}], "routesSort": "asc"}}"#,
                routes.join(",")
            );
            parse_text(&text, &Limits::default())
                .map(|r| r.routes.iter().map(|r| r.id.to_string()).collect())
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            ids(&[
                "1e3",
                "-0",
                "1.50",
                "123456789012345678901234567890",
                "9007199254740993"
            ])
            .unwrap(),
            [
                "1e3",
                "-0",
                "1.50",
                "123456789012345678901234567890",
                "9007199254740993"
            ]
        );
        // A number and a string with the same text are the same id; other texts are not.
        assert_eq!(
            ids(&["7", "\"7\""]).unwrap_err(),
            "routes[1].id: \"7\" is already the id of routes[0]"
        );
        assert_eq!(ids(&["1.0", "1"]).unwrap(), ["1.0", "1"]);
        assert_eq!(
            ids(&["\"\""]).unwrap_err(),
            "routes[0].id: must not be empty"
        );
        assert!(
            ids(&["true"])
                .unwrap_err()
                .starts_with("routes[0].id: expected a string or a number, found a boolean")
        );
        assert_eq!(
            ids(&[&format!("{:?}", "x".repeat(257))]).unwrap_err(),
            "routes[0].id: 257 bytes is longer than the limit of 256"
        );
        assert_eq!(
            error(&without(body(), "/routes/0", "id")),
            "routes[0]: missing field `id`"
        );
    }

    #[test]
    fn duplicate_ids_are_found_among_many_routes() {
        for count in [2, 17, 40] {
            let mut routes: Vec<Value> = (0..count)
                .map(|i| json!({"id": format!("r{i}"), "polyline": [[0, 0], [0, 0.001]], "routeDuration": 1}))
                .collect();
            routes[count - 1]["id"] = json!("r0");
            assert_eq!(
                error(&json!({"routes": routes, "routesSort": "asc"})),
                format!(
                    "routes[{}].id: \"r0\" is already the id of routes[0]",
                    count - 1
                )
            );
        }
    }

    #[test]
    fn repeated_members_are_refused() {
        let text = r#"{"routes": [{"id": 1, "id": 2, "polyline": [[0, 0], [0, 1]], "routeDuration": 1}],
                      "routesSort": "asc"}"#;
        let e = parse_text(text, &Limits::default())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("routes[0]: duplicate field `id`"), "{e}");
        let text = r#"{"routesSort": "asc", "routes": [], "routesSort": "desc"}"#;
        let e = parse_text(text, &Limits::default())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("duplicate field `routesSort`"), "{e}");
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
            "routes[1].routeDuration: invalid type: string \"12\", expected a number"
        );
        assert_eq!(
            error(&with(body(), "/routes/1/routeDuration", json!(20000))),
            "routes[1].routeDuration: 20000 m is longer than the limit of 604800 s"
        );
        assert_eq!(
            error(&without(body(), "/routes/0", "routeDuration")),
            "routes[0]: missing field `routeDuration`"
        );
    }

    #[test]
    fn polyline_problems_carry_their_paths() {
        assert_eq!(
            error(&with(
                body(),
                "/routes/1/polyline",
                json!([[0, 0], [1, 1], [2, 2], [7, 91]])
            )),
            "routes[1].polyline[3]: latitude 91 is outside [-90, 90]"
        );
        assert_eq!(
            error(&without(body(), "/routes/0", "polyline")),
            "routes[0]: missing field `polyline`"
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
            "routeSort: unknown field `routeSort`, expected one of `routes`, `durationUnits`, \
             `lengthUnits`, `routesSort`, `departureTime`, `travelMode`, \
             `departureWindowMinutes`, `departureStepMinutes`"
        );
        let mut v = body();
        v.pointer_mut("/routes/1")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .insert("duration".into(), json!(3));
        assert_eq!(
            error(&v),
            "routes[1].duration: unknown field `duration`, expected one of `id`, `polyline`, \
             `routeDuration`, `travelMode`"
        );
    }

    #[test]
    fn an_unknown_member_stops_reading_before_its_value() {
        // The value after the unknown member is never read: not even its syntax error.
        let text = r#"{"routesSort": "asc", "x": [0, 0, 0, oops"#;
        let e = parse_text(text, &Limits::default())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x: unknown field `x`"), "{e}");
    }

    #[test]
    fn departure_time_must_be_rfc3339() {
        let e = error(&body().tap_insert("departureTime", json!("tomorrow")));
        assert!(
            e.starts_with("departureTime: \"tomorrow\" is not an RFC 3339 date-time"),
            "{e}"
        );
    }

    trait TapInsert {
        fn tap_insert(self, member: &str, value: Value) -> Value;
    }

    impl TapInsert for Value {
        fn tap_insert(mut self, member: &str, value: Value) -> Value {
            self.as_object_mut().unwrap().insert(member.into(), value);
            self
        }
    }

    #[test]
    fn an_accepted_departure_time_reads_back_from_the_wire_form() {
        let at = |time: &str| body().tap_insert("departureTime", json!(time));
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
            far.validate(&Limits::default()).unwrap_err().to_string(),
            "departureTime: the time is outside the years 0000 to 9999 in UTC"
        );
    }

    #[test]
    fn count_limits_are_too_large_not_invalid() {
        let text = body().to_string();
        let limits = Limits {
            max_routes: 1,
            ..Limits::default()
        };
        let e = parse_text(&text, &limits).unwrap_err();
        assert_eq!(
            e,
            RequestError::too_large("routes", "2 routes are more than the limit of 1")
        );
        let limits = Limits {
            max_vertices_per_route: 2,
            ..Limits::default()
        };
        let e = parse_text(&text, &limits).unwrap_err();
        assert_eq!(
            e,
            RequestError::too_large(
                "routes[1].polyline",
                "3 vertices are more than the limit of 2"
            )
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
    fn a_failing_reader_is_unreadable_not_invalid() {
        struct Broken;
        impl std::io::Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk gone"))
            }
        }
        assert!(matches!(
            ScoreRequest::from_reader(Broken, &Limits::default()),
            Err(RequestError::Unreadable(_))
        ));
    }
}
