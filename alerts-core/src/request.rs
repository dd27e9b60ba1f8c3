//! The alert request (operation 1): the points to evaluate, read and checked one at a time.
//!
//! [`read_points`] reads a body from any reader and hands each valid point to the caller,
//! keeping none: a server checks a body spooled to a file that way, then reads it again page by
//! page into the store, with memory that does not grow with the number of points.
//! [`AlertRequest::from_json_slice`] gives the same answer from bytes, with the points kept.
//!
//! The body is `{"points": [{"lon", "lat", "id", "custom_data"?}, ...]}` and nothing else:
//! - unknown members, on the body or on a point, are refused with the allowed ones named (the
//!   route-scoring request does the same, so a misspelt member is never silently ignored);
//!   `custom_data` is free-form;
//! - a repeated member is refused;
//! - `id` is a string, or a number kept as its exact JSON text; non-empty, at most
//!   [`MAX_ID_BYTES`] bytes;
//! - `custom_data` is a JSON object (or `null`, meaning none), kept as the JSON text that was
//!   sent, members in their order, within [`RequestLimits::max_custom_data_bytes`];
//! - `points` holds at least one point (an empty list is almost certainly a client bug) and at
//!   most [`RequestLimits::max_points`].
//!
//! Reading stops at the first problem, which is the answer: a body of ten thousand points with
//! a bad first point is refused without reading the rest.

use std::cell::Cell;
use std::fmt;

use aq_core::json::{self, Object, ReadError};
use aq_core::{FieldError, Position};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use thiserror::Error;

/// One point of an alert request: where, the customer's label, and the customer's own data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlertPoint {
    /// Where the point is.
    pub position: Position,
    /// The customer's label, echoed in the output file (a JSON number is kept as its text).
    pub id: String,
    /// The customer's `custom_data` object as the JSON text that was sent, echoed in the
    /// output file; `{}` when none was given.
    pub custom_data: String,
}

/// The members an alert request's body may have: its reader refuses any other by name.
pub const BODY_MEMBERS: &[&str] = &["points"];

/// The most bytes a point's `id` may have.
pub const MAX_ID_BYTES: usize = 256;

/// The configurable limits of an alert request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RequestLimits {
    /// The most points one request may carry. Default 10,000.
    pub max_points: usize,
    /// The most bytes of JSON text one point's `custom_data` may have: every byte is stored
    /// and written into the output file once per alert of the point. Default 16,384.
    pub max_custom_data_bytes: usize,
}

impl Default for RequestLimits {
    fn default() -> Self {
        Self {
            max_points: 10_000,
            max_custom_data_bytes: 16 * 1024,
        }
    }
}

/// Why an alert request was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RequestError {
    /// More points than [`RequestLimits::max_points`].
    #[error("points: more than the limit of {max} points per request; split the request")]
    TooManyPoints {
        /// The limit.
        max: usize,
    },
    /// A point's `custom_data` is longer than [`RequestLimits::max_custom_data_bytes`].
    #[error(
        "points[{index}].custom_data: {bytes} bytes is more than the limit of {max}; keep a \
         reference to your own data there instead"
    )]
    CustomDataTooLarge {
        /// The point's index.
        index: usize,
        /// The size of its `custom_data`.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// A member is missing, of the wrong type or out of range, or the body is not JSON.
    #[error(transparent)]
    Invalid(#[from] FieldError),
    /// The body could not be read from where it was kept, through no fault of the client's.
    #[error("the request could not be read: {0}")]
    Unreadable(String),
}

impl RequestError {
    /// True when a size limit was exceeded, as opposed to malformed input.
    #[must_use]
    pub fn is_too_large(&self) -> bool {
        matches!(
            self,
            Self::TooManyPoints { .. } | Self::CustomDataTooLarge { .. }
        )
    }
}

impl From<ReadError> for RequestError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Invalid(field) => Self::Invalid(field),
            ReadError::Io(e) => Self::Unreadable(e.to_string()),
        }
    }
}

/// A checked alert request.
///
/// ```
/// use alerts_core::request::{AlertRequest, RequestError, RequestLimits};
///
/// let body = br#"{"points": [
///     {"lon": -74.0, "lat": 40.7, "id": "user-17"},
///     {"lon": 2.35, "lat": 48.85, "id": 42.0, "custom_data": {"tier": "gold", "a": 1}}
/// ]}"#;
/// let request = AlertRequest::from_json_slice(body, &RequestLimits::default()).unwrap();
/// assert_eq!(request.points[1].id, "42.0");
/// assert_eq!(request.points[1].custom_data, r#"{"tier": "gold", "a": 1}"#);
/// assert_eq!(request.points[0].custom_data, "{}");
///
/// let bad = br#"{"points": [{"lon": 0, "lat": 0, "id": "a"}, {"lon": 0, "lat": 95.1, "id": "b"}]}"#;
/// let err = AlertRequest::from_json_slice(bad, &RequestLimits::default()).unwrap_err();
/// assert_eq!(err.to_string(), "points[1].lat: latitude 95.1 is outside [-90, 90]");
///
/// let small = RequestLimits { max_points: 1, ..RequestLimits::default() };
/// let err = AlertRequest::from_json_slice(bad, &small).unwrap_err();
/// assert_eq!(err, RequestError::TooManyPoints { max: 1 });
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AlertRequest {
    /// The points, in request order.
    pub points: Vec<AlertPoint>,
}

impl AlertRequest {
    /// Reads and checks an alert request from its bytes.
    ///
    /// # Errors
    /// The first problem: [`RequestError::TooManyPoints`] or
    /// [`RequestError::CustomDataTooLarge`] over a limit, [`RequestError::Invalid`] naming the
    /// JSON path otherwise.
    pub fn from_json_slice(body: &[u8], limits: &RequestLimits) -> Result<Self, RequestError> {
        let mut points = Vec::new();
        scan(serde_json::de::SliceRead::new(body), limits, &mut |point| {
            points.push(point);
        })?;
        Ok(Self { points })
    }
}

/// Reads and checks an alert request's points from `reader`, one at a time, handing each
/// valid point to `sink` in order, and returns how many points the request has. Nothing but
/// the point being read is held.
///
/// The answer is that of [`AlertRequest::from_json_slice`] on the same bytes. The sink sees
/// points before the whole body is checked: when this returns an error, discard what it got.
///
/// ```
/// use alerts_core::request::{RequestLimits, read_points};
///
/// let body = br#"{"points": [{"lon": 2.35, "lat": 48.85, "id": "a"}, {"lon": 0, "lat": 0, "id": 7}]}"#;
/// let mut ids = Vec::new();
/// let count = read_points(&body[..], &RequestLimits::default(), |p| ids.push(p.id)).unwrap();
/// assert_eq!((count, ids), (2, vec!["a".to_owned(), "7".to_owned()]));
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
    // A point that serde reads but a rule refuses stops the parser with a placeholder error;
    // the refusal itself, with its own path and kind, waits here.
    let refusal = Cell::new(None);
    let read = json::from_read_seed(
        read,
        BodySeed {
            limits,
            sink,
            refusal: &refusal,
        },
    );
    match (refusal.take(), read) {
        (Some(refused), _) => Err(refused),
        (None, Ok(count)) => Ok(count),
        (None, Err(e)) => Err(e.into()),
    }
}

/// The body: an object whose one member is `points`.
struct BodySeed<'a, 's> {
    limits: &'a RequestLimits,
    sink: &'s mut dyn FnMut(AlertPoint),
    refusal: &'s Cell<Option<RequestError>>,
}

impl<'de> DeserializeSeed<'de> for BodySeed<'_, '_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for BodySeed<'_, '_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object with a `points` array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
        let mut count = None;
        while let Some(Points) = map.next_key()? {
            if count.is_some() {
                return Err(de::Error::duplicate_field("points"));
            }
            count = Some(map.next_value_seed(PointsSeed {
                limits: self.limits,
                sink: &mut *self.sink,
                refusal: self.refusal,
            })?);
        }
        count.ok_or_else(|| de::Error::missing_field("points"))
    }
}

/// The body's one member name.
struct Points;

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;

        impl Visitor<'_> for Name {
            type Value = Points;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`points`")
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<Points, E> {
                if name == "points" {
                    Ok(Points)
                } else {
                    Err(E::unknown_field(name, BODY_MEMBERS))
                }
            }
        }

        deserializer.deserialize_identifier(Name)
    }
}

/// The `points` array, read one element at a time.
struct PointsSeed<'a, 's> {
    limits: &'a RequestLimits,
    sink: &'s mut dyn FnMut(AlertPoint),
    refusal: &'s Cell<Option<RequestError>>,
}

impl<'de> DeserializeSeed<'de> for PointsSeed<'_, '_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PointsSeed<'_, '_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of points")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut count = 0;
        loop {
            if count == self.limits.max_points {
                if seq.next_element::<IgnoredAny>()?.is_some() {
                    return self.refuse(RequestError::TooManyPoints {
                        max: self.limits.max_points,
                    });
                }
                break;
            }
            let Some(Object(point)) = seq.next_element::<Object<WirePoint>>()? else {
                break;
            };
            match point.check(count, self.limits) {
                Ok(point) => (self.sink)(point),
                Err(refused) => return self.refuse(refused),
            }
            count += 1;
        }
        if count == 0 {
            return Err(de::Error::custom("must contain at least one point"));
        }
        Ok(count)
    }
}

impl PointsSeed<'_, '_> {
    fn refuse<E: de::Error>(&self, refused: RequestError) -> Result<usize, E> {
        self.refusal.set(Some(refused));
        Err(E::custom("refused"))
    }
}

/// A point as the body has it, before the rules serde cannot state.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WirePoint {
    #[serde(deserialize_with = "json::number")]
    lon: f64,
    #[serde(deserialize_with = "json::number")]
    lat: f64,
    #[serde(deserialize_with = "json::id_text")]
    id: String,
    #[serde(default)]
    custom_data: Option<Box<RawValue>>,
}

impl WirePoint {
    fn check(self, index: usize, limits: &RequestLimits) -> Result<AlertPoint, RequestError> {
        let path = |member: &str| format!("points[{index}].{member}");
        let position = Position::new(self.lon, self.lat).map_err(|e| {
            let member = match e {
                aq_core::PositionError::Longitude(_) => "lon",
                aq_core::PositionError::Latitude(_) => "lat",
            };
            FieldError::new(path(member), e.to_string())
        })?;
        if self.id.is_empty() {
            return Err(FieldError::new(path("id"), "must not be empty").into());
        }
        if self.id.len() > MAX_ID_BYTES {
            return Err(FieldError::new(
                path("id"),
                format!(
                    "{} bytes is more than the limit of {MAX_ID_BYTES}",
                    self.id.len()
                ),
            )
            .into());
        }
        let custom_data = match self.custom_data {
            None => "{}".to_owned(),
            Some(raw) => {
                let text = raw.get();
                if !text.starts_with('{') {
                    return Err(FieldError::new(
                        path("custom_data"),
                        format!("expected a JSON object, found {}", json::raw_kind(text)),
                    )
                    .into());
                }
                if text.len() > limits.max_custom_data_bytes {
                    return Err(RequestError::CustomDataTooLarge {
                        index,
                        bytes: text.len(),
                        max: limits.max_custom_data_bytes,
                    });
                }
                // The text is echoed to receivers, whose JSON readers (serde_json among them)
                // refuse a number that overflows a double, such as `1e400`: refused here, the
                // customer learns of it at once instead of the receiver failing on the file.
                if serde_json::from_str::<Value>(text).is_err() {
                    return Err(FieldError::new(
                        path("custom_data"),
                        "holds a number too large for a 64-bit float; send it as a string",
                    )
                    .into());
                }
                String::from(text)
            }
        };
        Ok(AlertPoint {
            position,
            id: self.id,
            custom_data,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// The answer from the bytes, which a reader handing out a few bytes at a time (as a file
    /// does, in blocks that split tokens) must give too, up to the column of a syntax error.
    fn parse_text(text: &str, limits: &RequestLimits) -> Result<AlertRequest, RequestError> {
        let from_text = AlertRequest::from_json_slice(text.as_bytes(), limits);
        let mut read = Vec::new();
        let from_reader =
            read_points(Trickle(text.as_bytes()), limits, |p| read.push(p)).map(|count| {
                assert_eq!(count, read.len(), "the count is the number of points read");
                AlertRequest { points: read }
            });
        assert_eq!(
            without_position(from_text.clone()),
            without_position(from_reader),
            "for {text}"
        );
        from_text
    }

    fn without_position(
        answer: Result<AlertRequest, RequestError>,
    ) -> Result<AlertRequest, RequestError> {
        answer.map_err(|e| match e {
            RequestError::Invalid(f) => RequestError::Invalid(FieldError::new(
                f.path,
                f.problem.split(" at line ").next().unwrap_or_default(),
            )),
            other => other,
        })
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
        parse_text(&body.to_string(), &RequestLimits::default())
    }

    /// The refusal's text, without the position in the body.
    fn detail(body: &Value) -> String {
        let text = parse(body).unwrap_err().to_string();
        text.split(" at line ")
            .next()
            .unwrap_or_default()
            .to_owned()
    }

    fn one(point: Value) -> Value {
        json!({"points": [{"lon": 0, "lat": 0, "id": "ok"}, point]})
    }

    #[test]
    fn a_valid_request_keeps_order_and_values() {
        let req = parse(&json!({"points": [
            {"lon": -74.0, "lat": 40.7, "id": "a"},
            {"lon": 180, "lat": -90, "id": "b", "custom_data": null},
        ]}))
        .unwrap();
        assert_eq!(req.points.len(), 2);
        assert_eq!(req.points[0].position, Position::new(-74.0, 40.7).unwrap());
        assert_eq!(req.points[1].position, Position::new(180.0, -90.0).unwrap());
        assert_eq!(req.points[1].id, "b");
        assert_eq!(req.points[1].custom_data, "{}");
    }

    #[test]
    fn body_shape_errors_name_the_member() {
        assert_eq!(
            detail(&json!([1])),
            "invalid type: sequence, expected a JSON object with a `points` array"
        );
        assert_eq!(detail(&json!({})), "missing field `points`");
        assert_eq!(
            detail(&json!({"points": {}})),
            "points: invalid type: map, expected an array of points"
        );
        assert_eq!(
            detail(&json!({"points": []})),
            "points: must contain at least one point"
        );
        assert_eq!(
            detail(&json!({"points": [7]})),
            "points[0]: invalid type: integer `7`, expected a JSON object"
        );
    }

    #[test]
    fn unknown_members_are_refused_on_the_body_and_on_points() {
        assert_eq!(
            detail(&json!({"points": [{"lon": 0, "lat": 0, "id": "a"}], "routesSort": "asc"})),
            "routesSort: unknown field `routesSort`, expected `points`"
        );
        assert_eq!(
            detail(&one(json!({"lon": 0, "lat": 0, "id": "b", "extra": true}))),
            "points[1].extra: unknown field `extra`, expected one of `lon`, `lat`, `id`, \
             `custom_data`"
        );
    }

    #[test]
    fn repeated_members_are_refused() {
        let text = r#"{"points": [{"lon": 1, "lat": 1, "lat": 2, "id": "a"}]}"#;
        let e = parse_text(text, &RequestLimits::default()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("points[0]: duplicate field `lat`"),
            "{e}"
        );
        let text = r#"{"points": [{"lon": 1, "lat": 1, "id": "a"}], "points": []}"#;
        let e = parse_text(text, &RequestLimits::default()).unwrap_err();
        assert!(e.to_string().starts_with("duplicate field `points`"), "{e}");
    }

    #[test]
    fn coordinates_are_required_numbers_in_range() {
        assert_eq!(
            detail(&one(json!({"lat": 0, "id": "b"}))),
            "points[1]: missing field `lon`"
        );
        assert_eq!(
            detail(&one(json!({"lon": "1", "lat": 0, "id": "b"}))),
            "points[1].lon: invalid type: string \"1\", expected a number"
        );
        assert_eq!(
            detail(&one(json!({"lon": 180.5, "lat": 0, "id": "b"}))),
            "points[1].lon: longitude 180.5 is outside [-180, 180]"
        );
        assert_eq!(
            detail(&one(json!({"lon": 0, "lat": -90.5, "id": "b"}))),
            "points[1].lat: latitude -90.5 is outside [-90, 90]"
        );
    }

    #[test]
    fn ids_are_strings_or_numbers_kept_as_their_text() {
        let ids = [
            "1e3",
            "-0",
            "1.50",
            "123456789012345678901234567890",
            "\"x\\u00e9\"",
        ];
        let points: Vec<String> = ids
            .iter()
            .map(|id| format!(r#"{{"lon": 0, "lat": 0, "id": {id}}}"#))
            .collect();
        let text = format!(r#"{{"points": [{}]}}"#, points.join(","));
        let req = parse_text(&text, &RequestLimits::default()).unwrap();
        let got: Vec<&str> = req.points.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(
            got,
            ["1e3", "-0", "1.50", "123456789012345678901234567890", "xé"]
        );

        assert_eq!(
            detail(&one(json!({"lon": 0, "lat": 0, "id": ""}))),
            "points[1].id: must not be empty"
        );
        assert_eq!(
            detail(&one(json!({"lon": 0, "lat": 0, "id": "x".repeat(257)}))),
            "points[1].id: 257 bytes is more than the limit of 256"
        );
        assert_eq!(
            detail(&one(json!({"lon": 0, "lat": 0, "id": [1]}))),
            "points[1].id: expected a string or a number, found an array"
        );
    }

    #[test]
    fn custom_data_is_an_object_echoed_as_sent() {
        let text = r#"{"points": [{"lon": 0, "lat": 0, "id": "a",
                       "custom_data": {"b": 1, "a": [1.50, "é"], "c": {"z": null}}}]}"#;
        let req = parse_text(text, &RequestLimits::default()).unwrap();
        assert_eq!(
            req.points[0].custom_data,
            r#"{"b": 1, "a": [1.50, "é"], "c": {"z": null}}"#
        );
        assert_eq!(
            detail(&one(
                json!({"lon": 0, "lat": 0, "id": "b", "custom_data": "x"})
            )),
            "points[1].custom_data: expected a JSON object, found a string"
        );
    }

    #[test]
    fn custom_data_with_a_number_no_double_holds_is_refused() {
        let body = r#"{"points": [{"lon": 0, "lat": 0, "id": "a", "custom_data": {"n": 1e400}}]}"#;
        assert_eq!(
            parse_text(body, &RequestLimits::default())
                .unwrap_err()
                .to_string(),
            "points[0].custom_data: holds a number too large for a 64-bit float; send it as a \
             string"
        );
        let fine = r#"{"points": [{"lon": 0, "lat": 0, "id": "a", "custom_data": {"n": 1e300}}]}"#;
        assert!(parse_text(fine, &RequestLimits::default()).is_ok());
    }

    #[test]
    fn custom_data_over_its_limit_is_too_large() {
        let limits = RequestLimits {
            max_custom_data_bytes: 16,
            ..RequestLimits::default()
        };
        let fits =
            r#"{"points": [{"lon": 0, "lat": 0, "id": "a", "custom_data": {"k": "0123456"}}]}"#;
        assert!(parse_text(fits, &limits).is_ok());
        let over =
            r#"{"points": [{"lon": 0, "lat": 0, "id": "a", "custom_data": {"k": "01234567"}}]}"#;
        let e = parse_text(over, &limits).unwrap_err();
        assert_eq!(
            e,
            RequestError::CustomDataTooLarge {
                index: 0,
                bytes: 17,
                max: 16
            }
        );
        assert!(e.is_too_large());
        assert!(
            e.to_string()
                .starts_with("points[0].custom_data: 17 bytes is more than")
        );
    }

    #[test]
    fn the_point_limit_stops_reading_and_is_too_large() {
        let limits = RequestLimits {
            max_points: 2,
            ..RequestLimits::default()
        };
        let point = r#"{"lon": 0, "lat": 0, "id": "a"}"#;
        let two = format!(r#"{{"points": [{point}, {point}]}}"#);
        assert_eq!(parse_text(&two, &limits).unwrap().points.len(), 2);
        // The third element is skipped unbuilt, so its content does not matter, nor what follows.
        let more = format!(r#"{{"points": [{point}, {point}, {{"lon": [0, 0]}}, 7"#);
        let e = parse_text(&more, &limits).unwrap_err();
        assert_eq!(e, RequestError::TooManyPoints { max: 2 });
        assert!(e.is_too_large());
    }

    #[test]
    fn the_first_problem_is_the_answer() {
        // An invalid first point: the syntax error further on is never reached.
        let text = r#"{"points": [{"lon": 0, "lat": 91, "id": "a"}, {"lon": oops"#;
        let e = parse_text(text, &RequestLimits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "points[0].lat: latitude 91 is outside [-90, 90]"
        );
    }

    #[test]
    fn json_that_breaks_inside_a_point_names_the_point() {
        let text = r#"{"points": [{"lon": 0, "lat": 0, "id": "a"}, {"lon": 0, "lat": 0, "id": }]}"#;
        let e = parse_text(text, &RequestLimits::default()).unwrap_err();
        assert!(
            e.to_string().starts_with("points[1].id: expected value"),
            "{e}"
        );
        let trailing = r#"{"points": [{"lon": 0, "lat": 0, "id": "a"}]} x"#;
        let e = parse_text(trailing, &RequestLimits::default()).unwrap_err();
        assert!(e.to_string().starts_with("trailing characters"), "{e}");
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
    fn a_reader_that_fails_is_not_the_clients_fault() {
        let reader = FailingReader {
            good: br#"{"points": [{"lon": 0, "lat": 0, "id": "a"},"#,
        };
        let err = read_points(reader, &RequestLimits::default(), |_| {}).unwrap_err();
        assert!(matches!(err, RequestError::Unreadable(_)), "{err:?}");
        assert!(err.to_string().contains("disk gone"), "{err}");
    }

    mod properties {
        use proptest::prelude::*;
        use serde_json::{Value, json};

        use super::parse_text;
        use crate::request::{MAX_ID_BYTES, RequestError, RequestLimits};

        fn scalar() -> impl Strategy<Value = Value> {
            prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                (-200.0..200.0f64).prop_map(|f| json!(f)),
                any::<i64>().prop_map(|i| json!(i)),
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

        /// Points that are mostly valid, with now and then a member of another type, out of
        /// range or missing.
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
                    if drop % 16 == 0 {
                        point.as_object_mut().unwrap().remove("lon");
                    }
                    point
                })
        }

        proptest! {
            /// Bytes and a trickling reader agree (checked inside `parse_text`), and what is
            /// accepted is exactly what was sent: positions in range, ids and `custom_data` as
            /// their JSON text.
            #[test]
            fn what_is_accepted_is_what_was_sent(
                points in prop::collection::vec(point(), 0..6),
                max_points in 1usize..6,
            ) {
                let body = json!({"points": points});
                let limits = RequestLimits { max_points, ..RequestLimits::default() };
                match parse_text(&body.to_string(), &limits) {
                    Ok(request) => {
                        prop_assert!(!points.is_empty() && points.len() <= max_points);
                        prop_assert_eq!(request.points.len(), points.len());
                        for (got, sent) in request.points.iter().zip(&points) {
                            prop_assert_eq!(Some(got.position.lon()), sent["lon"].as_f64());
                            prop_assert_eq!(Some(got.position.lat()), sent["lat"].as_f64());
                            prop_assert!(!got.id.is_empty() && got.id.len() <= MAX_ID_BYTES);
                            match &sent["id"] {
                                Value::String(s) => prop_assert_eq!(&got.id, s),
                                Value::Number(n) => prop_assert_eq!(&got.id, &n.to_string()),
                                other => prop_assert!(false, "id {} accepted", other),
                            }
                            match &sent["custom_data"] {
                                Value::Null => prop_assert_eq!(got.custom_data.as_str(), "{}"),
                                custom => prop_assert_eq!(&got.custom_data, &custom.to_string()),
                            }
                        }
                    }
                    Err(RequestError::TooManyPoints { max }) => {
                        prop_assert_eq!(max, max_points);
                        prop_assert!(points.len() > max_points);
                    }
                    Err(RequestError::Invalid(field)) => {
                        prop_assert!(field.path.is_empty() || field.path.starts_with("points"));
                        prop_assert!(!field.problem.is_empty());
                    }
                    Err(other) => prop_assert!(false, "{other:?}"),
                }
            }
        }
    }
}
