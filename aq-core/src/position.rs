//! Validated geographic positions (WGS 84 longitude and latitude, in degrees).

use geo::{Distance, Haversine, Point};
use serde::{Deserialize, Serialize};
use thiserror::Error;

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
