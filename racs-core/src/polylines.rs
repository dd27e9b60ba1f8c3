//! The three forms a route's `polyline` may take: a JSON array of `[lon, lat]` pairs, a string
//! holding such an array, or a string in Google's encoded polyline format (precision 5).
//!
//! A string whose first non-blank character is `[` and that parses as JSON is the array form;
//! any other string is read as an encoded polyline. (`[` is also a legal character of the encoded
//! format, so a string starting with it that is not valid JSON is tried as an encoded polyline
//! before it is refused.)

use aq_core::Position;
use geo::{Coord, LineString};
use serde_json::Value;
use thiserror::Error;

use crate::request::{RequestError, kind};

/// Google's encoded polylines in this API carry five decimal places.
const PRECISION: u32 = 5;

/// Why a string is not a usable encoded polyline.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum EncodedPolylineError {
    /// A character outside `?`..=`~` (the format's alphabet).
    #[error("character {character:?} at offset {offset} cannot appear in an encoded polyline")]
    BadCharacter {
        /// The character.
        character: char,
        /// Its byte offset in the string.
        offset: usize,
    },
    /// A value longer than any coordinate difference can be.
    #[error("the value ending at offset {offset} is too large for a coordinate")]
    ValueTooLong {
        /// Byte offset where the value had grown too long.
        offset: usize,
    },
    /// The string stops inside a value.
    #[error("the string ends in the middle of a value")]
    Truncated,
    /// The last latitude has no longitude.
    #[error("the last vertex has a latitude but no longitude")]
    MissingLongitude,
    /// A decoded coordinate is out of range.
    #[error("vertex {vertex}: {problem}")]
    OutOfRange {
        /// Index of the vertex, from 0.
        vertex: usize,
        /// What is out of range, e.g. `latitude 95.1 is outside [-90, 90]`.
        problem: String,
    },
    /// More vertices than the request limits allow.
    #[error("{count} vertices are more than the limit of {limit}")]
    TooManyVertices {
        /// How many the string holds.
        count: usize,
        /// The limit.
        limit: usize,
    },
}

/// Decodes a Google encoded polyline (precision 5) into positions.
///
/// Google's documented example:
///
/// ```
/// let line = racs_core::decode_polyline("_p~iF~ps|U_ulLnnqC_mqNvxq`@").unwrap();
/// let lat_lng: Vec<(f64, f64)> = line.iter().map(|p| (p.lat(), p.lon())).collect();
/// assert_eq!(lat_lng, [(38.5, -120.2), (40.7, -120.95), (43.252, -126.453)]);
/// ```
///
/// # Errors
/// [`EncodedPolylineError`] when the string is not in the format or a coordinate is out of
/// range.
pub fn decode_polyline(encoded: &str) -> Result<Vec<Position>, EncodedPolylineError> {
    decode_limited(encoded, usize::MAX)
}

/// Encodes positions as a Google encoded polyline (precision 5), the inverse of
/// [`decode_polyline`] up to the format's rounding to 1e-5 degrees.
///
/// ```
/// use aq_core::Position;
///
/// let line = [
///     Position::new(-120.2, 38.5).unwrap(),
///     Position::new(-120.95, 40.7).unwrap(),
///     Position::new(-126.453, 43.252).unwrap(),
/// ];
/// assert_eq!(racs_core::encode_polyline(&line), "_p~iF~ps|U_ulLnnqC_mqNvxq`@");
/// ```
#[must_use]
pub fn encode_polyline(line: &[Position]) -> String {
    let coords = line.iter().map(|p| Coord {
        x: p.lon(),
        y: p.lat(),
    });
    // Positions are in range by construction, the only thing the encoder checks.
    ::polyline::encode_coordinates(coords, PRECISION).unwrap_or_default()
}

/// Checks the string against the format before decoding, so that the decoder only ever sees
/// well-formed input (a run of oversized values could otherwise overflow its accumulators), and
/// counts the vertices so that a too-long polyline is refused before it is decoded.
fn prescan(encoded: &str) -> Result<usize, EncodedPolylineError> {
    // A coordinate difference at precision 5 fits in 28 bits, i.e. 6 chunks of 5 bits; one more
    // is tolerated for encoders that pad.
    const MAX_CHUNKS: usize = 7;
    let mut values = 0usize;
    let mut chunks = 0usize;
    for (offset, character) in encoded.char_indices() {
        if !('?'..='~').contains(&character) {
            return Err(EncodedPolylineError::BadCharacter { character, offset });
        }
        chunks += 1;
        if chunks > MAX_CHUNKS {
            return Err(EncodedPolylineError::ValueTooLong { offset });
        }
        if (character as u32 - 63) < 0x20 {
            values += 1;
            chunks = 0;
        }
    }
    if chunks > 0 {
        return Err(EncodedPolylineError::Truncated);
    }
    if values % 2 == 1 {
        return Err(EncodedPolylineError::MissingLongitude);
    }
    Ok(values / 2)
}

/// The vertex a byte offset of the encoded string belongs to (two values per vertex).
fn vertex_at(encoded: &str, offset: usize) -> usize {
    let values_before = encoded.as_bytes()[..offset.min(encoded.len())]
        .iter()
        .filter(|&&b| b.wrapping_sub(63) < 0x20)
        .count();
    values_before / 2
}

fn decode_limited(encoded: &str, limit: usize) -> Result<Vec<Position>, EncodedPolylineError> {
    let count = prescan(encoded)?;
    if count > limit {
        return Err(EncodedPolylineError::TooManyVertices { count, limit });
    }
    let line: LineString<f64> =
        ::polyline::decode_polyline(encoded, PRECISION).map_err(|e| match e {
            ::polyline::errors::PolylineError::LatitudeCoordError { coord, idx } => {
                EncodedPolylineError::OutOfRange {
                    vertex: vertex_at(encoded, idx),
                    problem: format!("latitude {coord} is outside [-90, 90]"),
                }
            }
            ::polyline::errors::PolylineError::LongitudeCoordError { coord, idx } => {
                EncodedPolylineError::OutOfRange {
                    vertex: vertex_at(encoded, idx),
                    problem: format!("longitude {coord} is outside [-180, 180]"),
                }
            }
            // The prescan has ruled the rest out; should the decoder still disagree, the input is
            // malformed in a way this crate does not know about.
            _ => EncodedPolylineError::Truncated,
        })?;
    line.0
        .iter()
        .enumerate()
        .map(|(vertex, c)| {
            Position::new(c.x, c.y).map_err(|e| EncodedPolylineError::OutOfRange {
                vertex,
                problem: e.to_string(),
            })
        })
        .collect()
}

/// Reads the `polyline` member at `path` in any of its three forms.
pub(crate) fn parse_polyline(
    value: &Value,
    path: &str,
    max_vertices: usize,
) -> Result<Vec<Position>, RequestError> {
    match value {
        Value::Array(items) => parse_pairs(items, path, max_vertices),
        Value::String(s) => parse_string(s, path, max_vertices),
        Value::Null => Err(RequestError::invalid(path, MISSING)),
        other => Err(RequestError::invalid(
            path,
            format!(
                "expected an array of [lon, lat] pairs or an encoded polyline string, found {}",
                kind(other)
            ),
        )),
    }
}

pub(crate) const MISSING: &str =
    "missing; expected an array of [lon, lat] pairs or an encoded polyline string";

/// Reads a `polyline` member given as a string, at `path`: a JSON array of pairs inside the
/// string, or an encoded polyline.
pub(crate) fn parse_string(
    s: &str,
    path: &str,
    max_vertices: usize,
) -> Result<Vec<Position>, RequestError> {
    if s.trim_start().starts_with('[') {
        match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(items)) => return parse_pairs(&items, path, max_vertices),
            Ok(other) => {
                return Err(RequestError::invalid(
                    path,
                    format!(
                        "the string holds {} instead of an array of [lon, lat] pairs",
                        kind(&other)
                    ),
                ));
            }
            Err(json_error) => {
                return decode_encoded(s, path, max_vertices).map_err(|_| {
                    RequestError::invalid(
                        path,
                        format!(
                            "the string starts like a JSON array but is not valid JSON \
                             ({json_error}), nor an encoded polyline"
                        ),
                    )
                });
            }
        }
    }
    decode_encoded(s, path, max_vertices)
}

fn decode_encoded(s: &str, path: &str, max_vertices: usize) -> Result<Vec<Position>, RequestError> {
    decode_limited(s, max_vertices).map_err(|e| match e {
        EncodedPolylineError::TooManyVertices { .. } => {
            RequestError::too_large(path, e.to_string())
        }
        other => RequestError::invalid(path, format!("not a valid encoded polyline: {other}")),
    })
}

fn parse_pairs(
    items: &[Value],
    path: &str,
    max_vertices: usize,
) -> Result<Vec<Position>, RequestError> {
    if items.len() > max_vertices {
        return Err(RequestError::too_large(
            path,
            format!(
                "{} vertices are more than the limit of {max_vertices}",
                items.len()
            ),
        ));
    }
    // Sized up front: collecting fallible items cannot know the length and grows step by step.
    let mut line = Vec::with_capacity(items.len());
    for (j, item) in items.iter().enumerate() {
        // Paths are only spelt out for errors: formatting one per vertex would dominate
        // parsing a long polyline.
        let here = || format!("{path}[{j}]");
        let pair = match item {
            Value::Array(pair) if pair.len() == 2 => pair,
            Value::Array(other) => {
                return Err(RequestError::invalid(
                    here(),
                    format!(
                        "expected a [lon, lat] pair, found an array of {} elements",
                        other.len()
                    ),
                ));
            }
            other => {
                return Err(RequestError::invalid(
                    here(),
                    format!("expected a [lon, lat] pair, found {}", kind(other)),
                ));
            }
        };
        let number = |k: usize, name: &str| {
            pair[k].as_f64().ok_or_else(|| {
                RequestError::invalid(
                    format!("{}[{k}]", here()),
                    format!("expected a number ({name}), found {}", kind(&pair[k])),
                )
            })
        };
        let lon = number(0, "longitude")?;
        let lat = number(1, "latitude")?;
        line.push(
            Position::new(lon, lat).map_err(|e| RequestError::invalid(here(), e.to_string()))?,
        );
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn p(lon: f64, lat: f64) -> Position {
        Position::new(lon, lat).unwrap()
    }

    #[test]
    fn googles_documented_example_decodes_to_its_three_points() {
        let line = decode_polyline("_p~iF~ps|U_ulLnnqC_mqNvxq`@").unwrap();
        assert_eq!(
            line,
            vec![p(-120.2, 38.5), p(-120.95, 40.7), p(-126.453, 43.252)]
        );
    }

    #[test]
    fn encoding_round_trips_at_five_decimals() {
        let line = vec![p(13.40495, 52.52001), p(13.41, 52.5211), p(-0.1, 0.0)];
        assert_eq!(decode_polyline(&encode_polyline(&line)).unwrap(), line);
    }

    #[test]
    fn an_empty_string_is_an_empty_line() {
        assert_eq!(decode_polyline("").unwrap(), vec![]);
    }

    #[test]
    fn malformed_encodings_are_refused_with_reasons() {
        assert!(matches!(
            decode_polyline("_p~iF ~ps|U"),
            Err(EncodedPolylineError::BadCharacter {
                character: ' ',
                offset: 5
            })
        ));
        assert!(matches!(
            decode_polyline("_p~iF~ps|Ué"),
            Err(EncodedPolylineError::BadCharacter {
                character: 'é', ..
            })
        ));
        // Cut inside the second longitude.
        assert_eq!(
            decode_polyline("_p~iF~ps|U_ulLnnq"),
            Err(EncodedPolylineError::Truncated)
        );
        assert_eq!(
            decode_polyline("_p~iF~ps|U_ulL"),
            Err(EncodedPolylineError::MissingLongitude)
        );
        assert!(matches!(
            decode_polyline("~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~?"),
            Err(EncodedPolylineError::ValueTooLong { .. })
        ));
    }

    #[test]
    fn out_of_range_coordinates_name_the_vertex() {
        // Two vertices; the second latitude walks past 90.
        let far = [p(0.0, 80.0)];
        let mut s = encode_polyline(&far);
        // A latitude step of +20 degrees and a longitude step of 0.
        s.push_str(&encode_polyline(&[p(0.0, 20.0)]));
        let err = decode_polyline(&s).unwrap_err();
        assert_eq!(
            err,
            EncodedPolylineError::OutOfRange {
                vertex: 1,
                problem: "latitude 100 is outside [-90, 90]".to_owned()
            }
        );
    }

    #[test]
    fn the_three_forms_give_the_same_positions() {
        let pairs = json!([[-120.2, 38.5], [-120.95, 40.7], [-126.453, 43.252]]);
        let from_array = parse_polyline(&pairs, "routes[0].polyline", 100).unwrap();
        let from_string =
            parse_polyline(&json!(pairs.to_string()), "routes[0].polyline", 100).unwrap();
        let from_encoded = parse_polyline(
            &json!("_p~iF~ps|U_ulLnnqC_mqNvxq`@"),
            "routes[0].polyline",
            100,
        )
        .unwrap();
        assert_eq!(from_array, from_string);
        assert_eq!(from_array, from_encoded);
    }

    #[test]
    fn pair_errors_carry_the_vertex_path() {
        let err = |v: Value| {
            parse_polyline(&v, "routes[1].polyline", 100)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(json!([[0.0, 0.0], [1.0, 91.0]])),
            "routes[1].polyline[1]: latitude 91 is outside [-90, 90]"
        );
        assert_eq!(
            err(json!([[0.0, 0.0], [-181.5, 1.0]])),
            "routes[1].polyline[1]: longitude -181.5 is outside [-180, 180]"
        );
        assert_eq!(
            err(json!([[0.0, 0.0, 5.0]])),
            "routes[1].polyline[0]: expected a [lon, lat] pair, found an array of 3 elements"
        );
        assert_eq!(
            err(json!([[0.0, "1"]])),
            "routes[1].polyline[0][1]: expected a number (latitude), found a string"
        );
        assert_eq!(
            err(json!({"lon": 1})),
            "routes[1].polyline: expected an array of [lon, lat] pairs or an encoded polyline \
             string, found an object"
        );
        // The same paths inside the string form.
        assert_eq!(
            err(json!("[[0.0, 0.0], [1.0, 91.0]]")),
            "routes[1].polyline[1]: latitude 91 is outside [-90, 90]"
        );
        assert!(err(json!("[[0.0, 0.0], [1.0")).contains("not valid JSON"));
        assert!(err(json!("_p~iF ~ps|U")).contains("not a valid encoded polyline: character ' '"));
    }

    #[test]
    fn too_many_vertices_is_too_large_in_every_form() {
        let line: Vec<Position> = (0..5).map(|i| p(0.0, f64::from(i) * 0.001)).collect();
        let pairs = serde_json::to_value(&line).unwrap();
        for v in [
            pairs.clone(),
            json!(pairs.to_string()),
            json!(encode_polyline(&line)),
        ] {
            let e = parse_polyline(&v, "routes[0].polyline", 4).unwrap_err();
            assert!(e.is_too_large(), "{e}");
            assert_eq!(
                e.to_string(),
                "routes[0].polyline: 5 vertices are more than the limit of 4"
            );
            assert_eq!(parse_polyline(&v, "routes[0].polyline", 5).unwrap(), line);
        }
    }

    #[test]
    fn a_bracketed_string_that_is_not_json_may_still_be_an_encoded_polyline() {
        // `[` and `]` are letters of the encoded alphabet: one vertex near (0.00015, 0.00014).
        let line = parse_polyline(&json!("[]"), "p", 10);
        // `[]` is valid JSON (an empty array), so it is the array form.
        assert_eq!(line.unwrap(), vec![]);
        let line = parse_polyline(&json!("[?"), "p", 10).unwrap();
        assert_eq!(line, vec![p(0.0, 0.00014)]);
    }
}
