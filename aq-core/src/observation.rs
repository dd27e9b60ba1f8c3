//! Station measurements as taken: the port through which a fused source reads what stations
//! reported, reading by reading, instead of a value a source has already interpolated.
//!
//! A station source answers an [`ObservationQuery`] (an [`Area`] and a time window) with each
//! station's series of one pollutant ([`StationSeries`]). The values are passed on as the
//! station reported them, negative ones included: deciding which readings to believe is the
//! reader's quality control, which counts what it leaves out.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::pollutant::Pollutant;
use crate::position::Position;
use crate::source::{SourceError, SourceInfo};

/// A station's identifier as its source names it (a station file's `station_id`, an OpenAQ
/// location id).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StationId(pub String);

impl std::fmt::Display for StationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One reading of a station: when it was taken and its value in µg/m³ as reported (which may
/// be negative or absurd; see the [module documentation](self)).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// When the value was measured.
    pub time: DateTime<Utc>,
    /// The value, µg/m³.
    pub value: f64,
}

/// The readings of one pollutant at one station, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StationSeries {
    /// The station.
    pub station: StationId,
    /// Where it stands.
    pub position: Position,
    /// What it measured.
    pub pollutant: Pollutant,
    /// The readings in the window asked for, oldest first.
    pub readings: Vec<Reading>,
}

/// A latitude/longitude box, in degrees. `west` greater than `east` is a box across the
/// antimeridian.
///
/// ```
/// use aq_core::{Area, Position};
///
/// let paris = Area::new(48.0, 1.5, 49.5, 3.5).unwrap();
/// assert!(paris.contains(Position::new(2.35, 48.85).unwrap()));
/// assert!(!paris.contains(Position::new(13.4, 52.5).unwrap()));
/// // Across the antimeridian: Fiji's 178° E and 179° W are both inside.
/// let fiji = Area::new(-20.0, 177.0, -15.0, -179.0).unwrap();
/// assert!(fiji.contains(Position::new(178.0, -17.7).unwrap()));
/// assert!(fiji.contains(Position::new(-179.5, -17.0).unwrap()));
/// assert!(Area::new(50.0, 0.0, 40.0, 1.0).is_err(), "south of north");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    south: f64,
    west: f64,
    north: f64,
    east: f64,
}

/// Bounds that make no box.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[error(
    "an area needs -90 <= south <= north <= 90 and longitudes in [-180, 180], got south {south}, \
     west {west}, north {north}, east {east}"
)]
pub struct AreaError {
    /// The southern bound given.
    pub south: f64,
    /// The western bound given.
    pub west: f64,
    /// The northern bound given.
    pub north: f64,
    /// The eastern bound given.
    pub east: f64,
}

impl Area {
    /// The whole globe.
    pub const WORLD: Area = Area {
        south: -90.0,
        west: -180.0,
        north: 90.0,
        east: 180.0,
    };

    /// The box from `south` to `north` and from `west` eastwards to `east`.
    ///
    /// # Errors
    /// [`AreaError`] when a bound is not finite or out of range, or `south` exceeds `north`.
    pub fn new(south: f64, west: f64, north: f64, east: f64) -> Result<Self, AreaError> {
        let lat = |v: f64| v.is_finite() && (-90.0..=90.0).contains(&v);
        let lon = |v: f64| v.is_finite() && (-180.0..=180.0).contains(&v);
        if lat(south) && lat(north) && lon(west) && lon(east) && south <= north {
            Ok(Self {
                south,
                west,
                north,
                east,
            })
        } else {
            Err(AreaError {
                south,
                west,
                north,
                east,
            })
        }
    }

    /// The southern bound.
    #[must_use]
    pub fn south(&self) -> f64 {
        self.south
    }

    /// The western bound.
    #[must_use]
    pub fn west(&self) -> f64 {
        self.west
    }

    /// The northern bound.
    #[must_use]
    pub fn north(&self) -> f64 {
        self.north
    }

    /// The eastern bound.
    #[must_use]
    pub fn east(&self) -> f64 {
        self.east
    }

    /// Whether `p` is inside (bounds included).
    #[must_use]
    pub fn contains(&self, p: Position) -> bool {
        let (lat, lon) = (p.lat(), p.lon());
        if lat < self.south || lat > self.north {
            return false;
        }
        if self.west <= self.east {
            (self.west..=self.east).contains(&lon)
        } else {
            lon >= self.west || lon <= self.east
        }
    }

    /// The middle of the box, from which station sources count the nearest stations.
    ///
    /// ```
    /// use aq_core::Area;
    ///
    /// let c = Area::new(-20.0, 178.0, -10.0, -178.0).unwrap().centre();
    /// assert_eq!((c.lon(), c.lat()), (180.0, -15.0));
    /// ```
    #[must_use]
    pub fn centre(&self) -> Position {
        let width = if self.west <= self.east {
            self.east - self.west
        } else {
            self.east + 360.0 - self.west
        };
        let mut lon = self.west + width / 2.0;
        if lon > 180.0 {
            lon -= 360.0;
        }
        let lat = (self.south + self.north) / 2.0;
        // Both are within range by construction; clamping only absorbs rounding.
        Position::new(lon.clamp(-180.0, 180.0), lat.clamp(-90.0, 90.0))
            .expect("an area's centre is a valid position")
    }
}

/// What a fused source asks a station source: the readings taken from `from` to `to`
/// (both included) at the stations inside `area`, of at most `max_stations` stations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObservationQuery {
    /// Where.
    pub area: Area,
    /// The earliest reading time wanted.
    pub from: DateTime<Utc>,
    /// The latest reading time wanted: readings taken after it are never given, so that a
    /// replay answers what was known then.
    pub to: DateTime<Utc>,
    /// The most stations answered; when more stand in the area, those nearest its centre.
    pub max_stations: usize,
}

/// A source of station readings.
///
/// Contract: only stations inside the area, at most `max_stations` of them (counting
/// stations, not series: a station measuring three pollutants counts once); only readings in
/// the window, oldest first within a series; values as reported, not checked.
#[async_trait]
pub trait ObservationSource: Send + Sync {
    /// What this source is.
    fn info(&self) -> SourceInfo;

    /// The readings `query` asks for.
    ///
    /// # Errors
    /// [`SourceError`] when the source cannot answer at all.
    async fn observations(
        &self,
        query: &ObservationQuery,
    ) -> Result<Vec<StationSeries>, SourceError>;
}
