//! Small spherical helpers shared by the sources.
//!
//! Kept by hand beside `geo`'s haversine: the station index is an R-tree over 3-D unit vectors
//! and the demo field measures across-track offsets to its roads, both in chord terms `geo`
//! does not offer.

use aq_core::Position;

/// Mean Earth radius in metres, the one behind [`Position::distance_m`].
pub(crate) const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// The position as a point on the unit sphere. Straight-line (chord) distances between such
/// points grow monotonically with great-circle distance, which is what lets a planar R-tree
/// find the nearest stations on a sphere without seams at the antimeridian or the poles.
pub(crate) fn unit_vector(p: Position) -> [f64; 3] {
    unit_vector_deg(p.lon(), p.lat())
}

/// [`unit_vector`] of a longitude and latitude in degrees, for coordinates known to be valid.
pub(crate) fn unit_vector_deg(lon: f64, lat: f64) -> [f64; 3] {
    let (sin_lat, cos_lat) = lat.to_radians().sin_cos();
    let (sin_lon, cos_lon) = lon.to_radians().sin_cos();
    [cos_lat * cos_lon, cos_lat * sin_lon, sin_lat]
}

/// The dot product of two vectors.
pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The cross product `a × b`.
pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a` scaled to length 1.
pub(crate) fn normalize(a: [f64; 3]) -> [f64; 3] {
    let n = dot(a, a).sqrt();
    a.map(|x| x / n)
}

/// The straight-line distance between two points.
pub(crate) fn chord(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    dot(d, d).sqrt()
}

/// Great-circle distance in metres for a chord of length `chord` on the unit sphere.
pub(crate) fn chord_to_m(chord: f64) -> f64 {
    2.0 * EARTH_RADIUS_M * (chord / 2.0).clamp(0.0, 1.0).asin()
}

/// Chord length on the unit sphere for a great-circle distance of `m` metres.
pub(crate) fn m_to_chord(m: f64) -> f64 {
    let angle = (m / EARTH_RADIUS_M).min(std::f64::consts::PI);
    2.0 * (angle / 2.0).sin()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chord_round_trips_and_matches_haversine() {
        let a = Position::new(13.405, 52.52).unwrap();
        let b = Position::new(2.3522, 48.8566).unwrap();
        let (ua, ub) = (unit_vector(a), unit_vector(b));
        let chord =
            ((ua[0] - ub[0]).powi(2) + (ua[1] - ub[1]).powi(2) + (ua[2] - ub[2]).powi(2)).sqrt();
        assert!((chord_to_m(chord) - a.distance_m(b)).abs() < 1.0);
        assert!((chord_to_m(m_to_chord(25_000.0)) - 25_000.0).abs() < 1e-6);
    }
}
