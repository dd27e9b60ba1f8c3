//! Validated geographic positions (WGS 84 longitude and latitude, in degrees), and the few
//! sphere helpers the sources and the fusion share.
//!
//! The helpers work on points of the unit sphere (3-D unit vectors). The straight-line (chord)
//! distance between two such points grows with their great-circle distance, so an R-tree of
//! unit vectors finds the nearest stations on the sphere without seams at the antimeridian or
//! the poles, and the demo field measures its across-track offsets in the same terms; `geo`
//! offers haversine distances but not these chord conversions.

use geo::{Distance, Haversine, Point};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Mean Earth radius in metres (IUGG), the one behind [`Position::distance_m`].
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Metres in one degree of latitude on the sphere of [`EARTH_RADIUS_M`].
///
/// ```
/// assert_eq!(aq_core::position::M_PER_DEGREE.round(), 111_195.0);
/// ```
pub const M_PER_DEGREE: f64 = EARTH_RADIUS_M * std::f64::consts::PI / 180.0;

/// A point on the Earth: longitude and latitude in degrees (WGS 84), both finite and in range.
///
/// Positions are built through [`Position::new`], so code that holds one never has to check it
/// again. Serialised as a `[lon, lat]` pair, the order GeoJSON and the cleanest-route API use.
///
/// ```
/// use aq_core::Position;
///
/// let berlin = Position::new(13.4050, 52.5200).unwrap();
/// let paris = Position::new(2.3522, 48.8566).unwrap();
/// // About 878 km along the great circle.
/// let km = berlin.distance_m(paris) / 1000.0;
/// assert!((km - 877.5).abs() < 1.0, "{km}");
///
/// assert!(Position::new(0.0, 91.0).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "[f64; 2]", into = "[f64; 2]")]
pub struct Position {
    lon: f64,
    lat: f64,
}

/// Why a longitude or latitude was refused.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum PositionError {
    /// The longitude is NaN, infinite or outside [-180, 180].
    #[error("longitude {0} is outside [-180, 180]")]
    Longitude(f64),
    /// The latitude is NaN, infinite or outside [-90, 90].
    #[error("latitude {0} is outside [-90, 90]")]
    Latitude(f64),
}

impl Position {
    /// Builds a position from a longitude and a latitude in degrees.
    ///
    /// # Errors
    /// [`PositionError`] when either value is not finite or is out of range.
    pub fn new(lon: f64, lat: f64) -> Result<Self, PositionError> {
        if !lon.is_finite() || !(-180.0..=180.0).contains(&lon) {
            return Err(PositionError::Longitude(lon));
        }
        if !lat.is_finite() || !(-90.0..=90.0).contains(&lat) {
            return Err(PositionError::Latitude(lat));
        }
        Ok(Self { lon, lat })
    }

    /// Longitude in degrees, in [-180, 180].
    #[must_use]
    pub fn lon(self) -> f64 {
        self.lon
    }

    /// Latitude in degrees, in [-90, 90].
    #[must_use]
    pub fn lat(self) -> f64 {
        self.lat
    }

    /// Great-circle distance to `other` in metres (haversine, mean Earth radius 6,371,008.8 m).
    #[must_use]
    pub fn distance_m(self, other: Position) -> f64 {
        Haversine.distance(Point::from(self), Point::from(other))
    }
}

impl From<Position> for Point<f64> {
    fn from(p: Position) -> Self {
        Point::new(p.lon, p.lat)
    }
}

impl TryFrom<[f64; 2]> for Position {
    type Error = PositionError;

    fn try_from([lon, lat]: [f64; 2]) -> Result<Self, Self::Error> {
        Self::new(lon, lat)
    }
}

impl From<Position> for [f64; 2] {
    fn from(p: Position) -> Self {
        [p.lon, p.lat]
    }
}

/// The position as a point on the unit sphere (x towards 0° E on the equator, z towards the
/// North Pole).
///
/// ```
/// use aq_core::Position;
/// use aq_core::position::unit_vector;
///
/// let [x, y, z] = unit_vector(Position::new(90.0, 0.0).unwrap());
/// assert!(x.abs() < 1e-12 && (y - 1.0).abs() < 1e-12 && z.abs() < 1e-12);
/// ```
#[must_use]
pub fn unit_vector(p: Position) -> [f64; 3] {
    unit_vector_deg(p.lon(), p.lat())
}

/// [`unit_vector`] of a longitude and latitude in degrees, for coordinates known to be valid
/// (a grid's nodes, a generated city).
///
/// ```
/// use aq_core::position::unit_vector_deg;
///
/// let [_, _, z] = unit_vector_deg(0.0, 90.0);
/// assert_eq!(z, 1.0);
/// ```
#[must_use]
pub fn unit_vector_deg(lon: f64, lat: f64) -> [f64; 3] {
    let (sin_lat, cos_lat) = lat.to_radians().sin_cos();
    let (sin_lon, cos_lon) = lon.to_radians().sin_cos();
    [cos_lat * cos_lon, cos_lat * sin_lon, sin_lat]
}

/// The dot product of two vectors: for unit vectors, the cosine of the angle between them.
///
/// ```
/// use aq_core::position::dot;
///
/// assert_eq!(dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), 32.0);
/// ```
#[must_use]
pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The cross product `a × b`: for two points of the sphere, the pole of the great circle
/// through them.
///
/// ```
/// use aq_core::position::cross;
///
/// assert_eq!(cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]), [0.0, 0.0, 1.0]);
/// ```
#[must_use]
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a` scaled to length 1.
///
/// ```
/// use aq_core::position::normalize;
///
/// assert_eq!(normalize([3.0, 0.0, 4.0]), [0.6, 0.0, 0.8]);
/// ```
#[must_use]
pub fn normalize(a: [f64; 3]) -> [f64; 3] {
    let n = dot(a, a).sqrt();
    a.map(|x| x / n)
}

/// The squared straight-line distance between two points: what an R-tree of unit vectors
/// compares, without the square root.
///
/// ```
/// use aq_core::position::chord2;
///
/// assert_eq!(chord2([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]), 2.0);
/// ```
#[must_use]
pub fn chord2(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    dot(d, d)
}

/// The straight-line distance between two points.
///
/// ```
/// use aq_core::position::chord;
///
/// assert_eq!(chord([1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]), 2.0);
/// ```
#[must_use]
pub fn chord(a: [f64; 3], b: [f64; 3]) -> f64 {
    chord2(a, b).sqrt()
}

/// Great-circle distance in metres for a chord of length `chord` on the unit sphere.
///
/// ```
/// use aq_core::Position;
/// use aq_core::position::{chord, chord_to_m, unit_vector};
///
/// // Berlin to Paris along the chord, back on the surface: Position::distance_m's 877.5 km.
/// let berlin = Position::new(13.405, 52.52).unwrap();
/// let paris = Position::new(2.3522, 48.8566).unwrap();
/// let m = chord_to_m(chord(unit_vector(berlin), unit_vector(paris)));
/// assert!((m - berlin.distance_m(paris)).abs() < 1.0, "{m}");
/// ```
#[must_use]
pub fn chord_to_m(chord: f64) -> f64 {
    2.0 * EARTH_RADIUS_M * (chord / 2.0).clamp(0.0, 1.0).asin()
}

/// Chord length on the unit sphere for a great-circle distance of `m` metres (at most half the
/// Earth's circumference, the farthest two points can be).
///
/// ```
/// use aq_core::position::{chord_to_m, m_to_chord};
///
/// // 25 km is a chord of about 0.003924 of the Earth's radius.
/// assert!((m_to_chord(25_000.0) - 0.003_924).abs() < 1e-6);
/// assert!((chord_to_m(m_to_chord(25_000.0)) - 25_000.0).abs() < 1e-6);
/// assert_eq!(m_to_chord(1e9), 2.0);
/// ```
#[must_use]
pub fn m_to_chord(m: f64) -> f64 {
    let angle = (m / EARTH_RADIUS_M).clamp(0.0, std::f64::consts::PI);
    2.0 * (angle / 2.0).sin()
}

/// Great-circle metres between two points of the unit sphere.
///
/// ```
/// use aq_core::Position;
/// use aq_core::position::{chord_distance_m, unit_vector};
///
/// let a = unit_vector(Position::new(0.0, 0.0).unwrap());
/// let b = unit_vector(Position::new(0.0, 1.0).unwrap());
/// assert!((chord_distance_m(a, b) - 111_195.0).abs() < 1.0);
/// ```
#[must_use]
pub fn chord_distance_m(a: [f64; 3], b: [f64; 3]) -> f64 {
    chord_to_m(chord(a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_out_of_range_and_non_finite() {
        assert_eq!(
            Position::new(180.5, 0.0),
            Err(PositionError::Longitude(180.5))
        );
        assert_eq!(
            Position::new(0.0, -90.01),
            Err(PositionError::Latitude(-90.01))
        );
        assert!(Position::new(f64::NAN, 0.0).is_err());
        assert!(Position::new(0.0, f64::INFINITY).is_err());
        assert!(Position::new(-180.0, 90.0).is_ok());
    }

    #[test]
    fn serde_uses_lon_lat_pairs_and_validates() {
        let p: Position = serde_json::from_str("[-74.0, 40.7]").unwrap();
        assert_eq!((p.lon(), p.lat()), (-74.0, 40.7));
        assert_eq!(serde_json::to_string(&p).unwrap(), "[-74.0,40.7]");
        let err = serde_json::from_str::<Position>("[10.0, 95.1]").unwrap_err();
        assert!(err.to_string().contains("latitude 95.1"), "{err}");
    }

    #[test]
    fn one_degree_of_latitude_is_about_111_km() {
        let a = Position::new(0.0, 0.0).unwrap();
        let b = Position::new(0.0, 1.0).unwrap();
        assert!((a.distance_m(b) - 111_195.0).abs() < 10.0);
    }
}
