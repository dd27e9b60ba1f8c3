//! The alert request (operation 1): the points to evaluate, parsed and validated.
//!
//! [`AlertRequest::from_json`] takes a body that the HTTP layer has already parsed as JSON and
//! returns either the validated points or the first problem, named by its JSON path
//! (`points[3].lat: latitude 95.1 is outside [-90, 90]`).
//!
//! Decisions where `api.md` is silent:
//! - `points` must hold at least one point: an empty list is almost certainly a client bug, and
//!   accepting it would send a webhook for nothing (400 `invalid_request`).
//! - Members this version does not know, on the body or on a point, are ignored, so that
//!   clients written against a later version keep working.
//! - A `custom_data` of `null` counts as absent; any other non-object is refused.
//! - The point count is checked before the points themselves, so an oversized body is refused
//!   with 413 without validating ten thousand points first.

use aq_core::{FieldError, Position};
use serde::{Deserialize, Serialize};
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
}

impl RequestError {
    /// The HTTP status that `api.md` gives this error: 413 or 400.
    #[must_use]
    pub fn http_status(&self) -> u16 {
        match self {
            RequestError::TooManyPoints { .. } => 413,
            RequestError::Invalid(_) => 400,
        }
    }

    /// The `error.code` that `api.md` gives this error.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            RequestError::TooManyPoints { .. } => "payload_too_large",
            RequestError::Invalid(_) => "invalid_request",
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

    fn parse(body: &Value) -> Result<AlertRequest, RequestError> {
        AlertRequest::from_json(body, &RequestLimits::default())
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
        let err = AlertRequest::from_json(
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
        assert!(
            AlertRequest::from_json(&json!({ "points": ok }), &RequestLimits { max_points: 2 })
                .is_ok()
        );
    }
}
