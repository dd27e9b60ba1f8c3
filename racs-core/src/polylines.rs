//! The three forms a route's `polyline` may take: a JSON array of `[lon, lat]` pairs, a string
//! holding such an array, or a string in Google's encoded polyline format (precision 5).
//!
//! A string whose first non-blank character is `[` and that parses as JSON is the array form;
//! any other string is read as an encoded polyline. (`[` is also a legal character of the encoded
//! format, so a string starting with it that is not valid JSON is tried as an encoded polyline
//! before it is refused.)

use std::fmt;

use aq_core::Position;
use aq_core::json::Number;
use geo::{Coord, LineString};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, SeqAccess, Visitor};
use thiserror::Error;

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
    prescan(encoded)?;
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
/// well-formed input (a run of oversized values could otherwise overflow its accumulators).
fn prescan(encoded: &str) -> Result<(), EncodedPolylineError> {
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
    Ok(())
}

/// The vertex a byte offset of the encoded string belongs to (two values per vertex).
fn vertex_at(encoded: &str, offset: usize) -> usize {
    let values_before = encoded.as_bytes()[..offset.min(encoded.len())]
        .iter()
        .filter(|&&b| b.wrapping_sub(63) < 0x20)
        .count();
    values_before / 2
}

/// Reads a route's `polyline` member in any of its three forms (for
/// `#[serde(deserialize_with = "...")]`). A problem inside the array form names its vertex
/// through the path (`routes[1].polyline[7]`); one inside a string names it in the message.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Position>, D::Error> {
    deserializer.deserialize_any(PolylineVisitor)
}

struct PolylineVisitor;

impl<'de> Visitor<'de> for PolylineVisitor {
    type Value = Vec<Position>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of [lon, lat] pairs or an encoded polyline string")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut line = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(Vertex(position)) = seq.next_element()? {
            line.push(position);
        }
        Ok(line)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        parse_string(s).map_err(E::custom)
    }
}

/// One `[lon, lat]` pair of the array form: exactly two numbers, in range.
struct Vertex(Position);

impl<'de> Deserialize<'de> for Vertex {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(VertexVisitor)
    }
}

struct VertexVisitor;

impl<'de> Visitor<'de> for VertexVisitor {
    type Value = Vertex;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a [lon, lat] pair")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vertex, A::Error> {
        let lon = seq
            .next_element_seed(Number("longitude"))?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let lat = seq
            .next_element_seed(Number("latitude"))?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        let mut extra = 0;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            extra += 1;
        }
        if extra > 0 {
            return Err(de::Error::invalid_length(2 + extra, &self));
        }
        Position::new(lon, lat)
            .map(Vertex)
            .map_err(de::Error::custom)
    }
}

/// Reads a `polyline` given as a string: a JSON array of pairs inside the string, or an
/// encoded polyline. The error is the message to show.
fn parse_string(s: &str) -> Result<Vec<Position>, String> {
    if s.trim_start().starts_with('[') {
        match aq_core::json::from_slice::<Vec<Vertex>>(s.as_bytes()) {
            Ok(line) => return Ok(line.into_iter().map(|Vertex(p)| p).collect()),
            // `[` is also a letter of the encoded alphabet.
            Err(json_error) => {
                return decode_polyline(s).map_err(|_| {
                    format!(
                        "the string starts like a JSON array of [lon, lat] pairs but is not one \
                         ({json_error}), nor an encoded polyline"
                    )
                });
            }
        }
    }
    decode_polyline(s).map_err(|e| format!("not a valid encoded polyline: {e}"))
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

    /// The polyline member of `{"polyline": <json>}`, read as a request reads it.
    fn read(json: &str) -> Result<Vec<Position>, String> {
        #[derive(serde::Deserialize)]
        struct Route {
            #[serde(deserialize_with = "deserialize")]
            polyline: Vec<Position>,
        }
        aq_core::json::from_slice::<Route>(format!(r#"{{"polyline": {json}}}"#).as_bytes())
            .map(|r| r.polyline)
            // The position in the body says nothing here.
            .map_err(|e| {
                e.to_string()
                    .split(" at line ")
                    .next()
                    .unwrap_or("")
                    .to_owned()
            })
    }

    #[test]
    fn the_three_forms_give_the_same_positions() {
        let pairs = json!([[-120.2, 38.5], [-120.95, 40.7], [-126.453, 43.252]]);
        let from_array = read(&pairs.to_string()).unwrap();
        let from_string = read(&json!(pairs.to_string()).to_string()).unwrap();
        let from_encoded = read(r#""_p~iF~ps|U_ulLnnqC_mqNvxq`@""#).unwrap();
        assert_eq!(
            from_array,
            vec![p(-120.2, 38.5), p(-120.95, 40.7), p(-126.453, 43.252)]
        );
        assert_eq!(from_array, from_string);
        assert_eq!(from_array, from_encoded);
    }

    #[test]
    fn pair_errors_carry_the_vertex_path() {
        let err = |v: serde_json::Value| read(&v.to_string()).unwrap_err();
        assert_eq!(
            err(json!([[0.0, 0.0], [1.0, 91.0]])),
            "polyline[1]: latitude 91 is outside [-90, 90]"
        );
        assert_eq!(
            err(json!([[0.0, 0.0], [-181.5, 1.0]])),
            "polyline[1]: longitude -181.5 is outside [-180, 180]"
        );
        assert_eq!(
            err(json!([[0.0, 0.0, 5.0]])),
            "polyline[0]: invalid length 3, expected a [lon, lat] pair"
        );
        assert_eq!(
            err(json!([[0.0]])),
            "polyline[0]: invalid length 1, expected a [lon, lat] pair"
        );
        assert_eq!(
            err(json!([[0.0, "1"]])),
            "polyline[0][1]: invalid type: string \"1\", expected a number (latitude)"
        );
        assert_eq!(
            err(json!({"lon": 1})),
            "polyline: invalid type: map, expected an array of [lon, lat] pairs or an encoded \
             polyline string"
        );
        // Inside the string form, the message names the vertex.
        assert_eq!(
            err(json!("[[0.0, 0.0], [1.0, 91.0]]")),
            "polyline: the string starts like a JSON array of [lon, lat] pairs but is not one \
             ([1]: latitude 91 is outside [-90, 90]"
        );
        assert!(
            err(json!("[[0.0, 0.0], [1.0"))
                .starts_with("polyline: the string starts like a JSON array")
        );
        assert_eq!(
            err(json!("_p~iF ~ps|U")),
            "polyline: not a valid encoded polyline: character ' ' at offset 5 cannot appear in \
             an encoded polyline"
        );
    }

    #[test]
    fn a_bracketed_string_that_is_not_json_may_still_be_an_encoded_polyline() {
        // `[]` is valid JSON (an empty array), so it is the array form.
        assert_eq!(read(r#""[]""#).unwrap(), vec![]);
        // `[` and `]` are letters of the encoded alphabet: one vertex near (0, 0.00014).
        assert_eq!(read(r#""[?""#).unwrap(), vec![p(0.0, 0.00014)]);
    }
}
