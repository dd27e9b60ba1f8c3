//! Google encoded polylines: decoding any string never panics, a decoded line is in range and
//! survives re-encoding exactly, and encoding any valid line decodes to it within the format's
//! precision.

#![no_main]

use aq_core::Position;
use libfuzzer_sys::fuzz_target;
use racs_core::{EncodedPolylineError, decode_polyline, encode_polyline};

/// Half a unit of the format's fifth decimal, plus room for the division by 1e5.
const TOLERANCE: f64 = 0.5e-5 + 1e-9;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        check_decode(text);
    }
    check_encode(&line_from_bytes(data));
});

fn check_decode(text: &str) {
    match decode_polyline(text) {
        Ok(line) => {
            // Each value ends with a byte below `_` (no continuation bit); two values a vertex.
            let values = text.bytes().filter(|b| (63..95).contains(b)).count();
            assert_eq!(line.len() * 2, values, "vertex count of {text:?}");
            for p in &line {
                assert!((-180.0..=180.0).contains(&p.lon()), "{p:?} from {text:?}");
                assert!((-90.0..=90.0).contains(&p.lat()), "{p:?} from {text:?}");
            }
            // A decoded line sits on the format's grid, so re-encoding loses nothing.
            let again = encode_polyline(&line);
            assert_eq!(
                decode_polyline(&again).as_ref(),
                Ok(&line),
                "{text:?} re-encoded as {again:?}"
            );
        }
        Err(EncodedPolylineError::BadCharacter { character, offset }) => {
            assert_eq!(text[offset..].chars().next(), Some(character), "{text:?}");
            assert!(
                !('?'..='~').contains(&character),
                "{character:?} is in the alphabet"
            );
        }
        Err(EncodedPolylineError::ValueTooLong { offset }) => {
            assert!(offset < text.len(), "{text:?}");
        }
        Err(EncodedPolylineError::OutOfRange { vertex, .. }) => {
            let values = text.bytes().filter(|b| (63..95).contains(b)).count();
            assert!(vertex < values / 2, "vertex {vertex} of {text:?}");
        }
        Err(EncodedPolylineError::Truncated | EncodedPolylineError::MissingLongitude) => {}
    }
}

fn check_encode(line: &[Position]) {
    let encoded = encode_polyline(line);
    assert_eq!(
        encoded.is_empty(),
        line.is_empty(),
        "{line:?} encoded as {encoded:?}"
    );
    let back = decode_polyline(&encoded)
        .unwrap_or_else(|e| panic!("{line:?} encoded as {encoded:?}, which does not decode: {e}"));
    assert_eq!(back.len(), line.len(), "{line:?} encoded as {encoded:?}");
    for (before, after) in line.iter().zip(&back) {
        assert!(
            (before.lon() - after.lon()).abs() <= TOLERANCE
                && (before.lat() - after.lat()).abs() <= TOLERANCE,
            "{before:?} came back as {after:?} through {encoded:?}"
        );
    }
}

/// Valid positions spread over the whole globe, the poles and the antimeridian included: each
/// 8 bytes give a longitude and a latitude scaled from two `u32`s.
fn line_from_bytes(data: &[u8]) -> Vec<Position> {
    let scale = |bytes: &[u8], half_range: f64| {
        let n = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        f64::from(n) / f64::from(u32::MAX) * 2.0 * half_range - half_range
    };
    data.chunks_exact(8)
        .filter_map(|c| Position::new(scale(&c[..4], 180.0), scale(&c[4..], 90.0)).ok())
        .collect()
}
