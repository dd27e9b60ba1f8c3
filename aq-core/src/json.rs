//! Reading request bodies: the JSON rules that both operations of the API share.
//!
//! Each request type is read by serde's derived `Deserialize`, which refuses unknown and
//! repeated members; this module adds what serde leaves open, in one place for both:
//!
//! - [`from_slice`], [`from_reader`] and [`from_read_seed`] name the JSON path of a problem
//!   (`routes[1].polyline[7]`) in a [`FieldError`], so that a client can find it in a large body.
//! - [`Object`] and [`objects`] accept a struct only as a JSON object (serde's derived structs
//!   also take an array of their fields in order, a form the API does not have).
//! - [`id_text`] keeps an id as the customer sent it: a string as its text, a number as its
//!   exact JSON text (`1.50` stays `1.50`, a 30-digit number keeps every digit).
//! - [`Number`] and [`number`] read a JSON number with a message that says what it stands for.
//! - [`or_default`] reads `null` as "not given".
//!
//! Memory is bounded by the body: nothing here builds a JSON tree.

use std::fmt;
use std::io;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use thiserror::Error;

use crate::FieldError;

/// Why a body could not be read into a request.
#[derive(Debug, Error)]
pub enum ReadError {
    /// The body is not valid JSON, or not of the request's shape: the path and the problem.
    #[error(transparent)]
    Invalid(#[from] FieldError),
    /// The reader failed (a spooled body that could not be read back, or reading that was
    /// stopped): not the client's fault.
    #[error("the body could not be read: {0}")]
    Io(#[source] io::Error),
}

/// Reads a `T` from JSON bytes, naming the path of the first problem.
///
/// ```
/// use aq_core::json::{Object, from_slice};
/// use serde::Deserialize;
///
/// #[derive(Debug, Deserialize)]
/// #[serde(deny_unknown_fields)]
/// struct Point { lat: f64 }
///
/// let Object(points): Object<std::collections::BTreeMap<String, Vec<Point>>> =
///     from_slice(br#"{"points": [{"lat": 52.52}]}"#).unwrap();
/// assert_eq!(points["points"][0].lat, 52.52);
///
/// let err = from_slice::<Vec<Point>>(br#"[{"lat": 1}, {"lat": 2, "lon": 3}]"#).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "[1].lon: unknown field `lon`, expected `lat` at line 1 column 29"
/// );
/// ```
///
/// # Errors
/// [`ReadError::Invalid`] with the path and serde's message.
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, ReadError> {
    from_read_seed(serde_json::de::SliceRead::new(bytes), PhantomData)
}

/// Reads a `T` from a reader, as [`from_slice`] does from bytes.
///
/// # Errors
/// As [`from_slice`]; [`ReadError::Io`] when the reader fails.
pub fn from_reader<R: io::Read, T: DeserializeOwned>(reader: R) -> Result<T, ReadError> {
    from_read_seed(serde_json::de::IoRead::new(reader), PhantomData)
}

/// Reads one JSON value from `read` through `seed` (for readers that stream, such as the alert
/// points), then checks that nothing but white space follows it.
///
/// # Errors
/// As [`from_reader`].
pub fn from_read_seed<'de, R, S>(read: R, seed: S) -> Result<S::Value, ReadError>
where
    R: serde_json::de::Read<'de>,
    S: DeserializeSeed<'de>,
{
    let mut de = serde_json::Deserializer::new(read);
    let mut track = serde_path_to_error::Track::new();
    let value = seed
        .deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track))
        .map_err(|e| refused(path_text(&track.path()), e))?;
    de.end().map_err(|e| refused(String::new(), e))?;
    Ok(value)
}

fn refused(path: String, e: serde_json::Error) -> ReadError {
    if e.is_io() {
        return ReadError::Io(io::Error::from(e));
    }
    ReadError::Invalid(FieldError::new(path, e.to_string()))
}

/// A path as the API writes it: `routes[1].polyline[7]`; empty for the body itself. Where the
/// parser could not tell the member (inside a syntax error), the path stops at the last known.
fn path_text(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut text = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => text.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Segment::Unknown => break,
        }
    }
    text
}

/// A `T` given as a JSON object, and only so: serde's derived structs also read an array of
/// their fields in order, which the API refuses.
///
/// ```
/// use aq_core::json::{Object, from_slice};
///
/// #[derive(Debug, serde::Deserialize)]
/// struct Pair { a: u8, b: u8 }
///
/// let Object(pair): Object<Pair> = from_slice(br#"{"a": 1, "b": 2}"#).unwrap();
/// assert_eq!((pair.a, pair.b), (1, 2));
/// let err = from_slice::<Object<Pair>>(b"[1, 2]").unwrap_err();
/// assert_eq!(err.to_string(), "invalid type: sequence, expected a JSON object at line 1 column 0");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Object<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = T;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }

        deserializer
            .deserialize_map(ObjectVisitor(PhantomData))
            .map(Object)
    }
}

/// Reads an array of JSON objects into `T`s (for `#[serde(deserialize_with = "objects")]`):
/// [`Object`] for every element.
///
/// # Errors
/// When the value is not an array, or an element not an object of `T`'s shape.
pub fn objects<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let items = Vec::<Object<T>>::deserialize(deserializer)?;
    Ok(items.into_iter().map(|Object(item)| item).collect())
}

/// Reads an id as the customer sent it (for `#[serde(deserialize_with = "id_text")]`): a JSON
/// string as its text, a JSON number as its exact JSON text, never through a float. Two ids are
/// the same only when their texts are.
///
/// ```
/// use aq_core::json::{from_slice, id_text};
///
/// #[derive(Debug, serde::Deserialize)]
/// struct Route { #[serde(deserialize_with = "id_text")] id: String }
///
/// let ids: Vec<Route> = from_slice(
///     br#"[{"id": "r\u00e9"}, {"id": 1.50}, {"id": 1e3}, {"id": 123456789012345678901234567890}]"#,
/// )
/// .unwrap();
/// let texts: Vec<&str> = ids.iter().map(|r| r.id.as_str()).collect();
/// assert_eq!(texts, ["ré", "1.50", "1e3", "123456789012345678901234567890"]);
///
/// let err = from_slice::<Vec<Route>>(br#"[{"id": true}]"#).unwrap_err();
/// assert!(err.to_string().starts_with("[0].id: expected a string or a number, found a boolean"));
/// let err = from_slice::<Vec<Route>>(br#"[{"id": 1e400}]"#).unwrap_err();
/// assert!(err.to_string().starts_with("[0].id: a number too large for a 64-bit float"));
/// ```
///
/// # Errors
/// When the value is neither a string nor a number, or a number past a double's range.
pub fn id_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let raw = Box::<RawValue>::deserialize(deserializer)?;
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => serde_json::from_str(text).map_err(de::Error::custom),
        // The id is echoed as sent, and readers that take it as a number (serde_json among
        // them) refuse one past a double's range, such as `1e400`.
        Some(b'-' | b'0'..=b'9') if text.parse::<f64>().is_ok_and(f64::is_finite) => {
            Ok(text.to_owned())
        }
        Some(b'-' | b'0'..=b'9') => Err(de::Error::custom(
            "a number too large for a 64-bit float; send the id as a string",
        )),
        _ => Err(de::Error::custom(format!(
            "expected a string or a number, found {}",
            raw_kind(text)
        ))),
    }
}

/// How the JSON text of one value is described in messages.
#[must_use]
pub fn raw_kind(text: &str) -> &'static str {
    match text.as_bytes().first() {
        Some(b'"') => "a string",
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// A JSON number read as `f64`, with what it stands for in the message when it is something
/// else (`expected a number (latitude)`).
///
/// ```
/// use aq_core::json::{Number, from_slice};
/// use serde::de::DeserializeSeed;
///
/// let mut de = serde_json::Deserializer::from_str("52.52");
/// assert_eq!(Number("latitude").deserialize(&mut de).unwrap(), 52.52);
/// let mut de = serde_json::Deserializer::from_str(r#""52.52""#);
/// let err = Number("latitude").deserialize(&mut de).unwrap_err();
/// assert!(err.to_string().starts_with(r#"invalid type: string "52.52", expected a number (latitude)"#));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Number(pub &'static str);

impl<'de> DeserializeSeed<'de> for Number {
    type Value = f64;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<f64, D::Error> {
        deserializer.deserialize_f64(self)
    }
}

impl Visitor<'_> for Number {
    type Value = f64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("a number")
        } else {
            write!(f, "a number ({})", self.0)
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }

    // Integers past 2^53 round to the nearest f64, as any coordinate or duration may.
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
}

/// Reads a JSON number (for `#[serde(deserialize_with = "number")]`): [`Number`] without a
/// name.
///
/// # Errors
/// When the value is not a number.
pub fn number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    Number("").deserialize(deserializer)
}

/// Reads an optional member whose `null` means the same as its absence: the default (for
/// `#[serde(default, deserialize_with = "or_default")]`).
///
/// # Errors
/// When the value is neither `null` nor a `T`.
pub fn or_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        #[serde(deserialize_with = "id_text")]
        id: String,
        #[serde(default, deserialize_with = "or_default")]
        n: u8,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        #[serde(deserialize_with = "objects")]
        items: Vec<Inner>,
    }

    fn read(body: &str) -> Result<Outer, String> {
        let from_bytes = from_slice::<Object<Outer>>(body.as_bytes())
            .map(|o| o.0)
            .map_err(|e| e.to_string());
        let from_reader = from_reader::<_, Object<Outer>>(body.as_bytes())
            .map(|o| o.0)
            .map_err(|e| e.to_string());
        // A reader places a problem one column later than a slice does; the rest agrees.
        let strip = |s: &String| s.split(" at line ").next().map(str::to_owned);
        assert_eq!(
            from_bytes.as_ref().map_err(strip),
            from_reader.as_ref().map_err(strip)
        );
        from_bytes
    }

    #[test]
    fn paths_name_the_member_and_the_element() {
        let e = read(r#"{"items": [{"id": "a"}, {"id": "b", "m": 1}]}"#).unwrap_err();
        assert!(
            e.starts_with("items[1].m: unknown field `m`, expected `id` or `n`"),
            "{e}"
        );
        let e = read(r#"{"items": [{"id": "a", "id": "b"}]}"#).unwrap_err();
        assert!(e.starts_with("items[0]: duplicate field `id`"), "{e}");
        let e = read(r#"{"items": [{"n": 1}]}"#).unwrap_err();
        assert!(e.starts_with("items[0]: missing field `id`"), "{e}");
        let e = read(r#"{"items": [{"id": "a"}], "items": []}"#).unwrap_err();
        assert!(e.starts_with("duplicate field `items`"), "{e}");
    }

    #[test]
    fn structs_are_objects_only() {
        let e = read(r#"{"items": [["a", 1]]}"#).unwrap_err();
        assert!(
            e.starts_with("items[0]: invalid type: sequence, expected a JSON object"),
            "{e}"
        );
        let e = read(r#"[[{"id": "a"}]]"#).unwrap_err();
        assert!(
            e.starts_with("invalid type: sequence, expected a JSON object"),
            "{e}"
        );
    }

    #[test]
    fn ids_keep_their_text_and_null_means_default() {
        let got = read(r#"{"items": [{"id": -0, "n": null}, {"id": "x\"y", "n": 3}]}"#).unwrap();
        assert_eq!(
            got.items,
            [
                Inner {
                    id: "-0".into(),
                    n: 0
                },
                Inner {
                    id: "x\"y".into(),
                    n: 3
                }
            ]
        );
        for (id, kind) in [("{}", "an object"), ("[1]", "an array"), ("null", "null")] {
            let e = read(&format!(r#"{{"items": [{{"id": {id}}}]}}"#)).unwrap_err();
            assert!(
                e.starts_with(&format!(
                    "items[0].id: expected a string or a number, found {kind}"
                )),
                "{e}"
            );
        }
    }

    #[test]
    fn syntax_errors_and_trailing_text_are_refused() {
        let e = read(r#"{"items": [{"id": "a"}"#).unwrap_err();
        assert!(e.contains("EOF while parsing"), "{e}");
        let e = read(r#"{"items": []} x"#).unwrap_err();
        assert!(e.starts_with("trailing characters"), "{e}");
    }

    #[test]
    fn a_failing_reader_is_not_the_clients_fault() {
        struct Broken;
        impl io::Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk gone"))
            }
        }
        let e = from_reader::<_, Outer>(Broken).unwrap_err();
        assert!(matches!(e, ReadError::Io(_)), "{e}");
    }

    #[test]
    fn numbers_say_what_they_stand_for() {
        let mut de = serde_json::Deserializer::from_str(r#""1""#);
        let e = Number("latitude").deserialize(&mut de).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("invalid type: string \"1\", expected a number (latitude)"),
            "{e}"
        );
        let mut de = serde_json::Deserializer::from_str("-7");
        assert_eq!(number(&mut de).unwrap(), -7.0);
    }
}
