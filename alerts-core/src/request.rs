//! The alert request (operation 1): the points to evaluate, parsed and validated.
//!
//! [`AlertRequest::from_json`] takes a body that the HTTP layer has already parsed as JSON and
//! returns either the validated points or the first problem, named by its JSON path
//! (`points[3].lat: latitude 95.1 is outside [-90, 90]`).
//!
//! [`AlertRequest::from_json_slice`] gives the same answers straight from the body's bytes,
//! reading one point at a time: the JSON tree of a whole request of 10,000 points takes about
//! ten times the body's size, the validated points about twice. [`read_points`] gives them from
//! a reader and keeps no point at all, handing each to the caller: a server checks a body
//! spooled to a file that way, then reads it again page by page into the store.
//!
//! Decisions where `api.md` is silent:
//! - `points` must hold at least one point: an empty list is almost certainly a client bug, and
//!   accepting it would send a webhook for nothing (400 `invalid_request`).
//! - Members this version does not know, on the body or on a point, are ignored, so that
//!   clients written against a later version keep working.
//! - A `custom_data` of `null` counts as absent; any other non-object is refused.
//! - The point count is checked before the points themselves, so an oversized body is refused
//!   with 413 without validating ten thousand points first.

use std::cell::Cell;

use aq_core::{FieldError, Position};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use thiserror::Error;

/// One point of an alert request: where, the customer's label, and the customer's own data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlertPoint {
    /// Where the point is.
    pub position: Position,
    /// The customer's label, echoed in the output file (a JSON number is kept as its text).
    pub id: String,
    /// The customer's `custom_data` object as JSON text, echoed in the output file; `{}` when
    /// none was given.
    pub custom_data: String,
}

/// The most bytes a point's `id` may have.
pub const MAX_ID_BYTES: usize = 256;

/// The configurable limits of an alert request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RequestLimits {
    /// The most points one request may carry (default 10,000). More is refused with 413.
    pub max_points: usize,
}

impl Default for RequestLimits {
    fn default() -> Self {
        Self { max_points: 10_000 }
    }
}

/// Why an alert request was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RequestError {
    /// More points than [`RequestLimits::max_points`] (HTTP 413 `payload_too_large`).
    #[error(
        "points: {count} points is more than the limit of {max} per request; split the request"
    )]
    TooManyPoints {
        /// Points sent.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A member is missing, of the wrong type or out of range (HTTP 400 `invalid_request`).
    #[error(transparent)]
    Invalid(#[from] FieldError),
    /// The body could not be read from where it was kept, through no fault of the client's
    /// (HTTP 500 `internal_error`).
    #[error("the request could not be read: {0}")]
    Unreadable(String),
}

impl RequestError {
    /// The HTTP status that `api.md` gives this error: 413, 400, or 500.
    #[must_use]
    pub fn http_status(&self) -> u16 {
        match self {
            RequestError::TooManyPoints { .. } => 413,
            RequestError::Invalid(_) => 400,
            RequestError::Unreadable(_) => 500,
        }
    }

    /// The `error.code` that `api.md` gives this error.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            RequestError::TooManyPoints { .. } => "payload_too_large",
            RequestError::Invalid(_) => "invalid_request",
            RequestError::Unreadable(_) => "internal_error",
        }
    }
}

/// A validated alert request.
///
/// ```
/// use alerts_core::request::{AlertRequest, RequestError, RequestLimits};
/// use serde_json::json;
///
/// let body = json!({"points": [
///     {"lon": -74.0, "lat": 40.7, "id": "user-17"},
///     {"lon": 2.35, "lat": 48.85, "id": 42, "custom_data": {"tier": "gold"}},
/// ]});
/// let request = AlertRequest::from_json(&body, &RequestLimits::default()).unwrap();
/// assert_eq!(request.points[1].id, "42");
/// assert_eq!(request.points[1].custom_data, r#"{"tier":"gold"}"#);
/// assert_eq!(request.points[0].custom_data, "{}");
///
/// let bad = json!({"points": [{"lon": 0, "lat": 0, "id": "a"}, {"lon": 0, "lat": 95.1, "id": "b"}]});
/// let err = AlertRequest::from_json(&bad, &RequestLimits::default()).unwrap_err();
/// assert_eq!(err.to_string(), "points[1].lat: latitude 95.1 is outside [-90, 90]");
/// assert_eq!(err.http_status(), 400);
///
/// let small = RequestLimits { max_points: 1 };
/// let err = AlertRequest::from_json(&bad, &small).unwrap_err();
/// assert!(matches!(err, RequestError::TooManyPoints { count: 2, max: 1 }));
/// assert_eq!(err.http_status(), 413);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AlertRequest {
    /// The points, in request order.
    pub points: Vec<AlertPoint>,
}

impl AlertRequest {
    /// Validates a parsed JSON body.
    ///
    /// # Errors
    /// [`RequestError::TooManyPoints`] over the limit; [`RequestError::Invalid`] naming the JSON
    /// path of the first problem otherwise.
    pub fn from_json(body: &Value, limits: &RequestLimits) -> Result<Self, RequestError> {
        let Value::Object(members) = body else {
            return Err(FieldError::new(
                "",
                format!(
                    "expected a JSON object with a `points` array, got {}",
                    kind(body)
                ),
            )
            .into());
        };
        let points = match members.get("points") {
            None => {
                return Err(FieldError::new("points", "required: an array of points").into());
            }
            Some(Value::Array(points)) => points,
            Some(other) => {
                return Err(FieldError::new(
                    "points",
                    format!("expected an array of points, got {}", kind(other)),
                )
                .into());
            }
        };
        if points.is_empty() {
            return Err(FieldError::new("points", "must contain at least one point").into());
        }
        if points.len() > limits.max_points {
            return Err(RequestError::TooManyPoints {
                count: points.len(),
                max: limits.max_points,
            });
        }
        let points = points
            .iter()
            .enumerate()
            .map(|(i, p)| parse_point(i, p))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { points })
    }
}

impl AlertRequest {
    /// Validates a JSON body from its bytes: the same answer as [`AlertRequest::from_json`] on
    /// the parsed body for any valid JSON, with the points read and validated one at a time
    /// instead of from a JSON tree of the whole body. One exception: a body that repeats
    /// `points` is refused, where the tree keeps the last.
    ///
    /// ```
    /// use alerts_core::request::{AlertRequest, RequestLimits};
    ///
    /// let body = br#"{"points": [{"lon": 2.35, "lat": 48.85, "id": 42, "custom_data": {"a": 2, "b": [1]}}]}"#;
    /// let request = AlertRequest::from_json_slice(body, &RequestLimits::default()).unwrap();
    /// assert_eq!(request.points[0].id, "42");
    /// assert_eq!(request.points[0].custom_data, r#"{"a":2,"b":[1]}"#);
    /// let parsed: serde_json::Value = serde_json::from_slice(body).unwrap();
    /// assert_eq!(Ok(request), AlertRequest::from_json(&parsed, &RequestLimits::default()));
    /// ```
    ///
    /// # Errors
    /// As [`AlertRequest::from_json`]; a body that is not valid JSON is
    /// [`RequestError::Invalid`] with the parser's message.
    pub fn from_json_slice(body: &[u8], limits: &RequestLimits) -> Result<Self, RequestError> {
        let mut points = Vec::new();
        scan(serde_json::de::SliceRead::new(body), limits, &mut |point| {
            points.push(point)
        })?;
        Ok(Self { points })
    }
}

/// Reads and validates an alert request's points from `reader`, one at a time, handing each
/// valid point to `sink` in order, and returns how many points the request has. Nothing but
/// the point being read is held (its JSON tree, a few times its size), so a request of many
/// points can be checked (say, from a body spooled to a file) and read again to be stored,
/// with memory that does not grow with their number.
///
/// The answer is that of [`AlertRequest::from_json_slice`] on the same bytes. The sink sees
/// points before the whole body is checked: when this returns an error, discard what it got.
///
/// ```
/// use alerts_core::request::{RequestLimits, read_points};
///
/// let body = br#"{"points": [{"lon": 2.35, "lat": 48.85, "id": "a"}, {"lon": 0, "lat": 0, "id": "b"}]}"#;
/// let mut ids = Vec::new();
/// let count = read_points(&body[..], &RequestLimits::default(), |p| ids.push(p.id)).unwrap();
/// assert_eq!((count, ids), (2, vec!["a".to_owned(), "b".to_owned()]));
///
/// let late = br#"{"points": [{"lon": 0, "lat": 0, "id": "a"}, {"lon": 0, "lat": 91, "id": "b"}]}"#;
/// let err = read_points(&late[..], &RequestLimits::default(), |_| {}).unwrap_err();
/// assert_eq!(err.to_string(), "points[1].lat: latitude 91 is outside [-90, 90]");
/// ```
///
/// # Errors
/// As [`AlertRequest::from_json_slice`], and [`RequestError::Unreadable`] when `reader` fails.
pub fn read_points<R: std::io::Read>(
    reader: R,
    limits: &RequestLimits,
    mut sink: impl FnMut(AlertPoint),
) -> Result<usize, RequestError> {
    scan(serde_json::de::IoRead::new(reader), limits, &mut sink)
}

/// The one reader of alert request bodies, over bytes in memory or a reader.
fn scan<'de, R: serde_json::de::Read<'de>>(
    read: R,
    limits: &RequestLimits,
    sink: &mut dyn FnMut(AlertPoint),
) -> Result<usize, RequestError> {
    let mut de = serde_json::Deserializer::new(read);
    let reading = Cell::new(None);
    let body = de
        .deserialize_any(BodyVisitor {
            limits,
            sink,
            reading: &reading,
        })
        .and_then(|body| de.end().map(|()| body))
        .map_err(|e| {
            if e.is_io() {
                return RequestError::Unreadable(e.to_string());
            }
            // Name the point the parser was in, so that a client can find the place in a
            // body of thousands of points.
            let path = reading
                .get()
                .map_or_else(String::new, |i| format!("points[{i}]"));
            FieldError::new(path, format!("the body is not valid JSON: {e}")).into()
        })?;
    let points = match body {
        Body::NotAnObject(kind) => {
            return Err(FieldError::new(
                "",
                format!("expected a JSON object with a `points` array, got {kind}"),
            )
            .into());
        }
        Body::Object { repeated: true, .. } => {
            return Err(
                FieldError::new("points", "given more than once: send one `points` array").into(),
            );
        }
        Body::Object { points: None, .. } => {
            return Err(FieldError::new("points", "required: an array of points").into());
        }
        Body::Object {
            points: Some(points),
            ..
        } => points,
    };
    let streamed = match points {
        Points::NotAnArray(kind) => {
            return Err(FieldError::new(
                "points",
                format!("expected an array of points, got {kind}"),
            )
            .into());
        }
        Points::Array(streamed) => streamed,
    };
    if streamed.count > limits.max_points {
        return Err(RequestError::TooManyPoints {
            count: streamed.count,
            max: limits.max_points,
        });
    }
    if let Some(e) = streamed.first_error {
        return Err(e.into());
    }
    if streamed.count == 0 {
        return Err(FieldError::new("points", "must contain at least one point").into());
    }
    Ok(streamed.count)
}

/// What reading the body's top level found. Problems are kept as values rather than raised as
/// parser errors, so that the parser goes on to the end and a syntax error anywhere is the
/// answer, as it is for a body parsed whole.
enum Body {
    NotAnObject(&'static str),
    Object {
        points: Option<Points>,
        repeated: bool,
    },
}

/// What reading the `points` member found.
enum Points {
    NotAnArray(&'static str),
    Array(Streamed),
}

/// What reading the `points` array found: how many points there were, and the first invalid
/// one.
struct Streamed {
    count: usize,
    first_error: Option<FieldError>,
}

/// The visitor methods of the scalar kinds, each answering `$kind` with the kind's name, for
/// messages such as "expected an array of points, got a string".
macro_rules! scalar_kinds {
    ($kind:path) => {
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($kind("null"))
        }

        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($kind("a boolean"))
        }

        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($kind("a number"))
        }

        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($kind("a number"))
        }

        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($kind("a number"))
        }

        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($kind("a string"))
        }
    };
}

/// Reads the body's top level: `points` through [`PointsSeed`], every other member skipped
/// unbuilt.
struct BodyVisitor<'a, 's> {
    limits: &'a RequestLimits,
    sink: &'s mut dyn FnMut(AlertPoint),
    /// The index of the point being read, while one is.
    reading: &'s Cell<Option<usize>>,
}

impl<'de> Visitor<'de> for BodyVisitor<'_, '_> {
    type Value = Body;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object with a `points` array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Body, A::Error> {
        let (mut points, mut repeated) = (None, false);
        while let Some(name) = map.next_key::<String>()? {
            if name != "points" {
                map.next_value::<IgnoredAny>()?;
            } else if points.is_some() {
                // The first array has reached the sink already, so the last cannot win as it
                // does in a JSON tree.
                repeated = true;
                map.next_value::<IgnoredAny>()?;
            } else {
                points = Some(map.next_value_seed(PointsSeed {
                    limits: self.limits,
                    sink: &mut *self.sink,
                    reading: self.reading,
                })?);
            }
        }
        Ok(Body::Object { points, repeated })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Body, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Body::NotAnObject("an array"))
    }

    scalar_kinds!(Body::NotAnObject);
}

/// Reads the `points` member one element at a time. Once the count passes the limit, or a
/// point is invalid, the rest are only counted (without building them), so that the answer is
/// the one [`AlertRequest::from_json`] gives: the limit first, then the first invalid point.
struct PointsSeed<'a, 's> {
    limits: &'a RequestLimits,
    sink: &'s mut dyn FnMut(AlertPoint),
    reading: &'s Cell<Option<usize>>,
}

impl<'de> DeserializeSeed<'de> for PointsSeed<'_, '_> {
    type Value = Points;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Points, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PointsSeed<'_, '_> {
    type Value = Points;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of points")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Points, A::Error> {
        let mut streamed = Streamed {
            count: 0,
            first_error: None,
        };
        loop {
            self.reading.set(Some(streamed.count));
            let wanted = streamed.count < self.limits.max_points && streamed.first_error.is_none();
            if wanted {
                let Some(value) = seq.next_element::<Value>()? else {
                    break;
                };
                match parse_point(streamed.count, &value) {
                    Ok(point) => (self.sink)(point),
                    Err(e) => streamed.first_error = Some(e),
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            streamed.count += 1;
        }
        self.reading.set(None);
        Ok(Points::Array(streamed))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Points, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Points::NotAnArray("an object"))
    }

    scalar_kinds!(Points::NotAnArray);
}

fn parse_point(index: usize, value: &Value) -> Result<AlertPoint, FieldError> {
    let path = |member: &str| {
        if member.is_empty() {
            format!("points[{index}]")
        } else {
            format!("points[{index}].{member}")
        }
    };
    let Value::Object(members) = value else {
        return Err(FieldError::new(
            path(""),
            format!(
                "expected a point object with lon, lat and id, got {}",
                kind(value)
            ),
        ));
    };
    let number = |name: &str| -> Result<f64, FieldError> {
        match members.get(name) {
            None => Err(FieldError::new(path(name), "required: a number")),
            Some(Value::Number(n)) => n
                .as_f64()
                .ok_or_else(|| FieldError::new(path(name), format!("{n} is not a finite number"))),
            Some(other) => Err(FieldError::new(
                path(name),
                format!("expected a number, got {}", kind(other)),
            )),
        }
    };
    let lon = number("lon")?;
    let lat = number("lat")?;
    if !lon.is_finite() || !(-180.0..=180.0).contains(&lon) {
        return Err(FieldError::new(
            path("lon"),
            format!("longitude {lon} is outside [-180, 180]"),
        ));
    }
    if !lat.is_finite() || !(-90.0..=90.0).contains(&lat) {
        return Err(FieldError::new(
            path("lat"),
            format!("latitude {lat} is outside [-90, 90]"),
        ));
    }
    let position = Position::new(lon, lat).map_err(|e| FieldError::new(path(""), e.to_string()))?;

    let id = match members.get("id") {
        None => return Err(FieldError::new(path("id"), "required: a string")),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => {
            return Err(FieldError::new(
                path("id"),
                format!("expected a string or a number, got {}", kind(other)),
            ));
        }
    };
    if id.is_empty() {
        return Err(FieldError::new(path("id"), "must not be empty"));
    }
    if id.len() > MAX_ID_BYTES {
        return Err(FieldError::new(
            path("id"),
            format!(
                "{} bytes is more than the limit of {MAX_ID_BYTES}",
                id.len()
            ),
        ));
    }

    let custom_data = match members.get("custom_data") {
        None | Some(Value::Null) => "{}".to_owned(),
        Some(object @ Value::Object(_)) => object.to_string(),
        Some(other) => {
            return Err(FieldError::new(
                path("custom_data"),
                format!("expected a JSON object, got {}", kind(other)),
            ));
        }
    };

    Ok(AlertPoint {
        position,
        id,
        custom_data,
    })
}

/// A JSON value's kind, for messages such as "expected a number, got a string".
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every parser's answer, which must be the same: the tree, the bytes, and a reader that
    /// hands out a few bytes at a time (as a file does, in blocks that split tokens).
    fn parse_with(body: &Value, limits: &RequestLimits) -> Result<AlertRequest, RequestError> {
        let from_tree = AlertRequest::from_json(body, limits);
        let text = body.to_string();
        let from_text = AlertRequest::from_json_slice(text.as_bytes(), limits);
        assert_eq!(from_text, from_tree, "for {body}");
        let mut read = Vec::new();
        let from_reader =
            read_points(Trickle(text.as_bytes()), limits, |p| read.push(p)).map(|count| {
                assert_eq!(count, read.len(), "the count is the number of points read");
                AlertRequest { points: read }
            });
        assert_eq!(from_reader, from_tree, "for {body}");
        from_tree
    }

    /// A reader of at most three bytes per read.
    struct Trickle<'a>(&'a [u8]);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.0.len()).min(3);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn parse(body: &Value) -> Result<AlertRequest, RequestError> {
        parse_with(body, &RequestLimits::default())
    }

    fn detail(body: &Value) -> String {
        parse(body).unwrap_err().to_string()
    }

    #[test]
    fn a_valid_request_keeps_order_and_values() {
        let req = parse(&json!({"points": [
            {"lon": -74.0, "lat": 40.7, "id": "a"},
            {"lon": 180, "lat": -90, "id": "b", "extra": true},
        ], "future_member": 1}))
        .unwrap();
        assert_eq!(req.points.len(), 2);
        assert_eq!(req.points[0].position, Position::new(-74.0, 40.7).unwrap());
        assert_eq!(req.points[1].position, Position::new(180.0, -90.0).unwrap());
        assert_eq!(req.points[1].id, "b");
    }

    #[test]
    fn body_shape_errors_name_the_member() {
        assert_eq!(
            detail(&json!([1])),
            "expected a JSON object with a `points` array, got an array"
        );
        assert_eq!(detail(&json!({})), "points: required: an array of points");
        assert_eq!(
            detail(&json!({"points": {}})),
            "points: expected an array of points, got an object"
        );
        assert_eq!(
            detail(&json!({"points": []})),
            "points: must contain at least one point"
        );
        assert_eq!(
            detail(&json!({"points": [7]})),
            "points[0]: expected a point object with lon, lat and id, got a number"
        );
    }

    #[test]
    fn coordinates_are_required_numbers_in_range() {
        let p = |v: Value| json!({"points": [{"lon": 0, "lat": 0, "id": "ok"}, v]});
        assert_eq!(
            detail(&p(json!({"lat": 1, "id": "x"}))),
            "points[1].lon: required: a number"
        );
        assert_eq!(
            detail(&p(json!({"lon": "1", "lat": 1, "id": "x"}))),
            "points[1].lon: expected a number, got a string"
        );
        assert_eq!(
            detail(&p(json!({"lon": 180.5, "lat": 1, "id": "x"}))),
            "points[1].lon: longitude 180.5 is outside [-180, 180]"
        );
        assert_eq!(
            detail(&p(json!({"lon": 1, "lat": -90.01, "id": "x"}))),
            "points[1].lat: latitude -90.01 is outside [-90, 90]"
        );
        assert_eq!(
            detail(&p(json!({"lon": 1, "id": "x"}))),
            "points[1].lat: required: a number"
        );
    }

    #[test]
    fn ids_are_strings_or_numbers_kept_as_text() {
        let id = |v: Value| parse(&json!({"points": [{"lon": 0, "lat": 0, "id": v}]}));
        assert_eq!(id(json!(17)).unwrap().points[0].id, "17");
        assert_eq!(id(json!(-2.5)).unwrap().points[0].id, "-2.5");
        assert_eq!(id(json!("x y")).unwrap().points[0].id, "x y");
        assert_eq!(
            id(json!("")).unwrap_err().to_string(),
            "points[0].id: must not be empty"
        );
        assert_eq!(
            id(json!(true)).unwrap_err().to_string(),
            "points[0].id: expected a string or a number, got a boolean"
        );
        assert!(id(json!("é".repeat(128))).is_ok());
        assert_eq!(
            id(json!("é".repeat(129))).unwrap_err().to_string(),
            "points[0].id: 258 bytes is more than the limit of 256"
        );
        assert_eq!(
            detail(&json!({"points": [{"lon": 0, "lat": 0}]})),
            "points[0].id: required: a string"
        );
    }

    #[test]
    fn custom_data_is_an_object_kept_as_json_text() {
        let cd = |v: Value| {
            parse(&json!({"points": [{"lon": 0, "lat": 0, "id": "a", "custom_data": v}]}))
        };
        assert_eq!(
            cd(json!({"a": [1, "two"], "b": null})).unwrap().points[0].custom_data,
            r#"{"a":[1,"two"],"b":null}"#
        );
        assert_eq!(cd(Value::Null).unwrap().points[0].custom_data, "{}");
        assert_eq!(
            cd(json!("{}")).unwrap_err().to_string(),
            "points[0].custom_data: expected a JSON object, got a string"
        );
    }

    #[test]
    fn the_point_limit_is_checked_first_and_is_a_413() {
        let points: Vec<Value> = (0..3).map(|_| json!({"lat": 99})).collect();
        let err = parse_with(
            &json!({ "points": points }),
            &RequestLimits { max_points: 2 },
        )
        .unwrap_err();
        assert_eq!(err, RequestError::TooManyPoints { count: 3, max: 2 });
        assert_eq!(err.code(), "payload_too_large");
        assert!(err.to_string().contains("limit of 2"), "{err}");
        let ok: Vec<Value> = (0..2)
            .map(|i| json!({"lon": 0, "lat": 0, "id": i}))
            .collect();
        assert!(parse_with(&json!({ "points": ok }), &RequestLimits { max_points: 2 }).is_ok());
        // An invalid point before the limit is passed still yields the 413, which is checked
        // first.
        let mixed = json!({"points": [{"lat": 99}, {"lon": 0, "lat": 0, "id": 1}, {}]});
        assert_eq!(
            parse_with(&mixed, &RequestLimits { max_points: 2 }).unwrap_err(),
            RequestError::TooManyPoints { count: 3, max: 2 }
        );
    }

    #[test]
    fn from_bytes_the_body_must_be_json_and_an_object() {
        let limits = RequestLimits::default();
        let err = AlertRequest::from_json_slice(b"{\"points\": [", &limits).unwrap_err();
        assert!(
            err.to_string().contains("the body is not valid JSON: "),
            "{err}"
        );
        assert_eq!(err.http_status(), 400);
        for (body, kind) in [
            (&b" [1]"[..], "an array"),
            (b"\"x\"", "a string"),
            (b"-1.5", "a number"),
            (b"null", "null"),
            (b"true", "a boolean"),
        ] {
            assert_eq!(
                AlertRequest::from_json_slice(body, &limits)
                    .unwrap_err()
                    .to_string(),
                format!("expected a JSON object with a `points` array, got {kind}")
            );
        }
        assert_eq!(
            parse(&json!({"points": "[]"})).unwrap_err().to_string(),
            "points: expected an array of points, got a string"
        );
        assert_eq!(
            parse(&json!({"points": null})).unwrap_err().to_string(),
            "points: expected an array of points, got null"
        );
    }

    #[test]
    fn from_bytes_repeated_members_of_a_point_count_as_in_the_tree() {
        let body = br#"{"points": [{"lon": 1, "lat": 2, "id": "a", "id": "b"}]}"#;
        let tree: Value = serde_json::from_slice(body).unwrap();
        let limits = RequestLimits::default();
        let from_text = AlertRequest::from_json_slice(body, &limits).unwrap();
        assert_eq!(
            Ok(from_text.clone()),
            AlertRequest::from_json(&tree, &limits)
        );
        assert_eq!(from_text.points[0].id, "b");
    }

    #[test]
    fn from_bytes_a_repeated_points_member_is_refused() {
        let point = r#"{"lon": 1, "lat": 2, "id": "a"}"#;
        for body in [
            format!(r#"{{"points": [{point}], "points": [{point}]}}"#),
            format!(r#"{{"points": 1, "points": [{point}]}}"#),
        ] {
            let err = AlertRequest::from_json_slice(body.as_bytes(), &RequestLimits::default())
                .unwrap_err();
            assert_eq!(
                err.to_string(),
                "points: given more than once: send one `points` array",
                "{body}"
            );
        }
    }

    #[test]
    fn from_bytes_json_that_breaks_inside_a_point_names_the_point() {
        let body = br#"{"points": [{"lon": 0, "lat": 0, "id": "a"}, {"lon": 0, "lat": 0, "id": "\ud800"}]}"#;
        let err = AlertRequest::from_json_slice(body, &RequestLimits::default()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("points[1]: the body is not valid JSON: "),
            "{err}"
        );
        let closed = br#"{"points": [{"lon": 0, "lat": 0, "id": "a"}], "x": [}"#;
        let err = AlertRequest::from_json_slice(closed, &RequestLimits::default()).unwrap_err();
        assert!(
            err.to_string().starts_with("the body is not valid JSON: "),
            "after the points array, no point is named: {err}"
        );
    }

    #[test]
    fn from_bytes_a_syntax_error_after_an_invalid_point_is_the_answer() {
        let body = br#"{"points": [{"lon": 0, "lat": 95, "id": "a"}, {"lon": 0,"#;
        let err = AlertRequest::from_json_slice(body, &RequestLimits::default()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("points[1]: the body is not valid JSON: "),
            "{err}"
        );
        let trailing = br#"{"points": [{"lon": 0, "lat": 0, "id": "a"}]} x"#;
        let err = AlertRequest::from_json_slice(trailing, &RequestLimits::default()).unwrap_err();
        assert!(err.to_string().contains("trailing characters"), "{err}");
    }

    /// A reader that gives `good` and then fails, as a spooled body whose file went bad.
    struct FailingReader<'a> {
        good: &'a [u8],
    }

    impl std::io::Read for FailingReader<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.good.is_empty() {
                return Err(std::io::Error::other("disk gone"));
            }
            let n = buf.len().min(self.good.len());
            buf[..n].copy_from_slice(&self.good[..n]);
            self.good = &self.good[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_reader_that_fails_is_a_500_not_the_clients_fault() {
        let reader = FailingReader {
            good: br#"{"points": [{"lon": 0, "lat": 0, "id": "a"},"#,
        };
        let err = read_points(reader, &RequestLimits::default(), |_| {}).unwrap_err();
        assert!(matches!(err, RequestError::Unreadable(_)), "{err:?}");
        assert_eq!((err.http_status(), err.code()), (500, "internal_error"));
        assert!(err.to_string().contains("disk gone"), "{err}");
    }

    mod equivalence {
        use proptest::prelude::*;
        use serde_json::{Value, json};

        use super::parse_with;
        use crate::request::RequestLimits;

        fn scalar() -> impl Strategy<Value = Value> {
            prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                (-200.0..200.0f64).prop_map(|f| json!(f)),
                any::<i32>().prop_map(|i| json!(i)),
                "[a-z\\\"é ]{0,8}".prop_map(Value::String),
            ]
        }

        fn member() -> impl Strategy<Value = Value> {
            scalar().prop_recursive(2, 8, 3, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                    prop::collection::btree_map("[a-z_]{1,3}", inner, 0..3)
                        .prop_map(|m| Value::Object(m.into_iter().collect())),
                ]
            })
        }

        /// Points that are mostly valid, with now and then a member missing, of another type
        /// or out of range.
        fn point() -> impl Strategy<Value = Value> {
            (
                prop_oneof![4 => (-180.0..180.0f64).prop_map(|f| json!(f)), 1 => member()],
                prop_oneof![4 => (-90.0..90.0f64).prop_map(|f| json!(f)), 1 => member()],
                prop_oneof![4 => "[a-z0-9-]{1,6}".prop_map(Value::String), 1 => member()],
                prop::option::of(member()),
                any::<u8>(),
            )
                .prop_map(|(lon, lat, id, custom, drop)| {
                    let mut point = json!({"lon": lon, "lat": lat, "id": id});
                    if let Some(custom) = custom {
                        point["custom_data"] = custom;
                    }
                    match drop % 16 {
                        0 => {
                            point.as_object_mut().unwrap().remove("lon");
                        }
                        1 => {
                            point.as_object_mut().unwrap().remove("id");
                        }
                        2 => point = json!(drop),
                        _ => {}
                    }
                    point
                })
        }

        proptest! {
            #[test]
            fn reading_the_bytes_answers_as_the_tree_does(
                points in prop::collection::vec(point(), 0..12),
                extra in prop::option::of(member()),
                max_points in 1usize..14,
            ) {
                let mut body = json!({ "points": points });
                if let Some(extra) = extra {
                    body["future_member"] = extra;
                }
                let _ = parse_with(&body, &RequestLimits { max_points });
            }
        }
    }
}
