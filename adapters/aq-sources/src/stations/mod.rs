//! Station files: fixed monitoring stations and their readings, loaded from CSV or GeoJSON and
//! interpolated by inverse-distance weighting ([`crate::idw`]).
//!
//! # File formats
//!
//! Both formats hold *readings*: one station at one time with any of the values below. A
//! station may have many readings; its position must be the same in all of them.
//!
//! | name | meaning | unit |
//! |---|---|---|
//! | `station_id` | the station's identifier (any text) | |
//! | `lon`, `lat` | position, WGS 84 | degrees |
//! | `time` | when the value was measured, RFC 3339 with an offset (`2026-05-04T08:00:00Z`) | |
//! | `pm25`, `pm10`, `no2`, `o3`, `so2`, `co` | hourly mean concentrations | µg/m³ |
//! | `tree_pollen`, `grass_pollen`, `weed_pollen` | pollen counts | grains/m³ |
//!
//! Every value is optional; an empty CSV cell or a JSON `null` means "not measured". Values must
//! be finite and not negative.
//!
//! The files name pollen types, not plants: a trap's daily report is often by type, and a
//! station's days of pollen therefore have no plants ([`aq_core::PollenDay::plants`] is empty).
//!
//! **CSV**: a header row naming the columns (in any order, case-insensitive; `pm2_5` and
//! `pm2.5` are accepted for `pm25`, `longitude`/`latitude` for `lon`/`lat`), then one reading a
//! row. Lines starting with `#` are comments. Columns whose name starts with `_` are ignored;
//! any other unknown column is an error, so that a misspelt pollutant is not silently dropped.
//!
//! ```csv
//! station_id,lon,lat,time,pm25,no2
//! DEBE010,13.3494,52.5432,2026-05-04T08:00:00Z,11.5,38
//! DEBE010,13.3494,52.5432,2026-05-04T09:00:00Z,12.0,
//! ```
//!
//! **GeoJSON**: a `FeatureCollection` of `Point` features. The station id is
//! `properties.station_id`, or else the feature's `id`. Either the properties hold one reading
//! (`time` and values), or `properties.readings` is an array of such objects. Other properties
//! are ignored.
//!
//! ```json
//! {"type": "FeatureCollection", "features": [
//!   {"type": "Feature", "geometry": {"type": "Point", "coordinates": [13.3494, 52.5432]},
//!    "properties": {"station_id": "DEBE010", "readings": [
//!      {"time": "2026-05-04T08:00:00Z", "pm25": 11.5, "no2": 38},
//!      {"time": "2026-05-04T09:00:00Z", "pm25": 12.0, "no2": null}]}}]}
//! ```
//!
//! # Answering a query
//!
//! For a query at position *p* and time *t*, the nearest stations within
//! [`IdwConfig::radius_m`] are visited in order of distance, stations equally far in the order
//! they first appear in the file (an R-tree over points on the unit sphere, so distances are true
//! great-circle distances with no seam at the antimeridian). A
//! station's value of a quantity is its latest reading of it taken at or before *t* and no more
//! than [`StationFileConfig::max_age_s`] before *t*: readings from after the query time are never
//! used, so replaying a file answers what was known then. The first [`IdwConfig::neighbours`]
//! stations that have any such value are used; each quantity is weighted over the stations
//! that have it, and the CI comes from the interpolated concentrations. No usable station within
//! the radius, or fewer pollutants than [`StationFileConfig::required`] asks (by default NO₂
//! and PM2.5 or PM10, the EEA's minimum for an index), means not covered.
//!
//! # Where things are
//!
//! The CSV and GeoJSON readers (`csv.rs`, `geojson.rs`) and [`StationFile::from_readings`] all
//! collect readings through one builder here, which checks that a station keeps its position;
//! `index.rs` finds a query's stations and weighs them; `source.rs` answers the source ports;
//! `observed.rs` gives the readings as taken ([`aq_core::ObservationSource`]), for a fused
//! source to correct a model with.

mod csv;
mod geojson;
mod index;
mod observed;
mod source;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rstar::RTree;
use rstar::primitives::GeomWithData;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use aq_core::{
    Concentrations, EaqiBands, GrainThresholds, PollenType, Pollutant, Position, RequiredPollutants,
};

use crate::idw::{IdwConfig, IdwConfigError};
use crate::values::{POLLEN_START, Values};
use aq_core::position::{m_to_chord, unit_vector};

use self::index::Station;

/// Pollen counts in grains/m³; `None` where not measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PollenCounts {
    /// Tree pollen.
    pub tree: Option<f64>,
    /// Grass pollen.
    pub grass: Option<f64>,
    /// Weed pollen.
    pub weed: Option<f64>,
}

/// One station's values at one time.
#[derive(Debug, Clone, PartialEq)]
pub struct StationReading {
    /// The station's identifier.
    pub station_id: String,
    /// Where the station is.
    pub position: Position,
    /// When the values were measured.
    pub time: DateTime<Utc>,
    /// Measured concentrations, µg/m³.
    pub concentrations: Concentrations,
    /// Measured pollen counts, grains/m³.
    pub pollen: PollenCounts,
}

/// How a [`StationFile`] answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StationFileConfig {
    /// The interpolation: power 5, 10 neighbours, 25 km radius by default ([`IdwConfig`]).
    pub idw: IdwConfig,
    /// Readings older than this many seconds before the query time are ignored. Default
    /// 10,800 (3 hours): hourly networks publish with a delay of one or two hours, and air
    /// three hours old is a poor guide to the air now.
    pub max_age_s: u64,
    /// The bands that turn concentrations into a CI (EAQI 2024 by default).
    pub bands: EaqiBands,
    /// The pollutants a point's interpolated readings must include for a CI. Default
    /// [`RequiredPollutants::EeaTraffic`] (NO₂ and PM2.5 or PM10), the least the EEA computes
    /// its index from; a point without them is not covered.
    pub required: RequiredPollutants,
    /// The grain-count thresholds for pollen levels (NAB-based by default).
    pub pollen: GrainThresholds,
    /// The source name shown in [`SourceInfo`](aq_core::SourceInfo). Default `station-file`.
    pub name: String,
}

impl Default for StationFileConfig {
    fn default() -> Self {
        Self {
            idw: IdwConfig::default(),
            max_age_s: 10_800,
            bands: EaqiBands::default(),
            required: RequiredPollutants::EeaTraffic,
            pollen: GrainThresholds::default(),
            name: "station-file".to_owned(),
        }
    }
}

/// Why a station file could not be loaded.
#[derive(Debug, Error)]
pub enum StationFileError {
    /// The file could not be read.
    #[error("cannot read station file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file name does not say which format it is.
    #[error("station file {0}: unknown format; name it *.csv, *.geojson or *.json")]
    UnknownFormat(PathBuf),
    /// The CSV could not be parsed at all at a line (bad quoting, ragged rows, bad UTF-8).
    #[error("station CSV line {line}: {message}")]
    Csv {
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The header row is unusable.
    #[error("station CSV header: {0}")]
    CsvHeader(String),
    /// A CSV cell holds a bad value.
    #[error("station CSV line {line}, column `{column}`: {message}")]
    CsvField {
        /// 1-based line number.
        line: u64,
        /// The column's name as written in the header.
        column: String,
        /// What is wrong and what is expected.
        message: String,
    },
    /// The GeoJSON is not a FeatureCollection (or Feature) at all.
    #[error("station GeoJSON: {0}")]
    GeoJson(String),
    /// A GeoJSON feature holds a bad value.
    #[error("station GeoJSON feature {feature}, `{field}`: {message}")]
    GeoJsonField {
        /// 0-based index of the feature in `features`.
        feature: usize,
        /// The field's path inside the feature, such as `properties.readings[2].pm25`.
        field: String,
        /// What is wrong and what is expected.
        message: String,
    },
    /// A station appears at two different positions.
    #[error(
        "{at}: station `{id}` is at {lon}, {lat} here but elsewhere in the file at {first_lon}, \
         {first_lat}; give each station one position or distinct ids"
    )]
    MovedStation {
        /// Where the conflicting reading is (line or feature).
        at: String,
        /// The station id.
        id: String,
        /// Longitude here.
        lon: f64,
        /// Latitude here.
        lat: f64,
        /// Longitude first seen.
        first_lon: f64,
        /// Latitude first seen.
        first_lat: f64,
    },
    /// The file holds no readings.
    #[error("the station file holds no readings; add at least one station with a value")]
    Empty,
    /// The configuration is invalid.
    #[error("station file configuration: {0}")]
    Config(#[from] IdwConfigError),
}

/// Stations and readings, an [`AirQualitySource`](aq_core::AirQualitySource) and
/// [`ForecastSource`](aq_core::ForecastSource) by inverse-distance weighting. See the
/// [module documentation](self) for the formats and the rules.
///
/// ```
/// use aq_core::{Position, Pollutant};
/// use aq_sources::{StationFile, StationFileConfig};
/// use chrono::{TimeZone, Utc};
///
/// let csv = "station_id,lon,lat,time,pm25,no2\n\
///            a,13.40,52.52,2026-05-04T08:00:00Z,10,5\n\
///            b,13.50,52.52,2026-05-04T08:00:00Z,20,5\n";
/// let file = StationFile::from_csv_str(csv, StationFileConfig::default()).unwrap();
/// let nine = Utc.with_ymd_and_hms(2026, 5, 4, 9, 0, 0).unwrap();
/// // Halfway between the two stations, both weigh the same.
/// let mid = Position::new(13.45, 52.52).unwrap();
/// let pm = file.sample_at(mid, nine).unwrap().concentrations.unwrap().get(Pollutant::Pm25);
/// assert!((pm.unwrap().ug_m3() - 15.0).abs() < 1e-6);
/// // 10 µg/m³ at station a: sub-index 30, CI 70.
/// let at_a = file.sample_at(Position::new(13.40, 52.52).unwrap(), nine).unwrap();
/// assert_eq!(at_a.ci.value(), 70.0);
/// // Before the readings, and 100 km away, there is nothing to say.
/// let seven = Utc.with_ymd_and_hms(2026, 5, 4, 7, 0, 0).unwrap();
/// assert!(file.sample_at(mid, seven).is_none());
/// assert!(file.sample_at(Position::new(15.0, 52.52).unwrap(), nine).is_none());
/// ```
#[derive(Debug, Clone)]
pub struct StationFile {
    stations: Vec<Station>,
    tree: RTree<GeomWithData<[f64; 3], u32>>,
    config: StationFileConfig,
    max_chord2: f64,
    readings: usize,
}

/// Collects readings into stations, checking that each station keeps its position.
#[derive(Default)]
struct Builder {
    by_id: HashMap<String, usize>,
    stations: Vec<Station>,
    readings: usize,
}

impl Builder {
    fn add(
        &mut self,
        id: &str,
        position: Position,
        time: i64,
        values: Values,
        at: impl FnOnce() -> String,
    ) -> Result<(), StationFileError> {
        let index = match self.by_id.get(id) {
            Some(&i) => {
                let first = self.stations[i].position;
                // Within a metre counts as the same place: files round coordinates differently.
                if first.distance_m(position) > 1.0 {
                    return Err(StationFileError::MovedStation {
                        at: at(),
                        id: id.to_owned(),
                        lon: position.lon(),
                        lat: position.lat(),
                        first_lon: first.lon(),
                        first_lat: first.lat(),
                    });
                }
                i
            }
            None => {
                self.stations.push(Station {
                    id: id.to_owned(),
                    position,
                    readings: Vec::new(),
                    measured: 0,
                });
                self.by_id.insert(id.to_owned(), self.stations.len() - 1);
                self.stations.len() - 1
            }
        };
        let station = &mut self.stations[index];
        let mask = values.mask();
        station.measured |= mask;
        station.readings.push((time, values, mask));
        self.readings += 1;
        Ok(())
    }

    fn finish(mut self, config: StationFileConfig) -> Result<StationFile, StationFileError> {
        config.idw.validate()?;
        if self.readings == 0 {
            return Err(StationFileError::Empty);
        }
        for s in &mut self.stations {
            // Stable, so of two readings at the same time the later row wins in lookups.
            s.readings.sort_by_key(|r| r.0);
        }
        let points = self
            .stations
            .iter()
            .enumerate()
            .map(|(i, s)| {
                // Station counts far below 2³² are all a file can hold in memory anyway.
                #[allow(clippy::cast_possible_truncation)]
                GeomWithData::new(unit_vector(s.position), i as u32)
            })
            .collect();
        let chord = m_to_chord(config.idw.radius_m);
        Ok(StationFile {
            stations: self.stations,
            tree: RTree::bulk_load(points),
            max_chord2: chord * chord,
            readings: self.readings,
            config,
        })
    }
}

/// The quantity a column or property names, as an index into [`Values`].
fn quantity(name: &str) -> Option<usize> {
    let p = |p: Pollutant| Some(Values::pollutant_index(p));
    let k = |k: PollenType| Some(Values::pollen_index(k));
    match name.to_ascii_lowercase().as_str() {
        "pm25" | "pm2_5" | "pm2.5" => p(Pollutant::Pm25),
        "pm10" => p(Pollutant::Pm10),
        "no2" => p(Pollutant::No2),
        "o3" => p(Pollutant::O3),
        "so2" => p(Pollutant::So2),
        "co" => p(Pollutant::Co),
        "tree_pollen" => k(PollenType::Tree),
        "grass_pollen" => k(PollenType::Grass),
        "weed_pollen" => k(PollenType::Weed),
        _ => None,
    }
}

fn unit_of(index: usize) -> &'static str {
    if index >= POLLEN_START {
        "grains/m³"
    } else {
        "µg/m³"
    }
}

fn check_value(index: usize, v: f64) -> Result<f64, String> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!(
            "{v} is not a value in {}: it must be finite and not negative",
            unit_of(index)
        ))
    }
}

fn parse_time(s: &str) -> Result<i64, String> {
    DateTime::parse_from_rfc3339(s.trim())
        .map(|t| t.timestamp())
        .map_err(|e| {
            format!(
                "`{s}` is not an RFC 3339 time with an offset, such as 2026-05-04T08:00:00Z ({e})"
            )
        })
}

impl StationFile {
    /// Builds a source from readings already in memory.
    ///
    /// # Errors
    /// [`StationFileError::MovedStation`] when one id has two positions,
    /// [`StationFileError::Empty`] for no readings, [`StationFileError::Config`] for a bad
    /// configuration.
    pub fn from_readings(
        readings: impl IntoIterator<Item = StationReading>,
        config: StationFileConfig,
    ) -> Result<Self, StationFileError> {
        let mut b = Builder::default();
        for (i, r) in readings.into_iter().enumerate() {
            let mut values = Values::MISSING;
            for (p, c) in r.concentrations.iter() {
                values.0[Values::pollutant_index(p)] = c.ug_m3();
            }
            let counts = [r.pollen.tree, r.pollen.grass, r.pollen.weed];
            for (k, count) in PollenType::ALL.into_iter().zip(counts) {
                if let Some(v) = count.filter(|v| v.is_finite() && *v >= 0.0) {
                    values.0[Values::pollen_index(k)] = v;
                }
            }
            b.add(
                &r.station_id,
                r.position,
                r.time.timestamp(),
                values,
                || format!("reading {i}"),
            )?;
        }
        b.finish(config)
    }

    /// Loads a file, CSV for `*.csv`, GeoJSON for `*.geojson` and `*.json`.
    ///
    /// # Errors
    /// [`StationFileError::Io`] when the file cannot be read,
    /// [`StationFileError::UnknownFormat`] for another extension, and the parse errors.
    pub fn open(
        path: impl AsRef<Path>,
        config: StationFileConfig,
    ) -> Result<Self, StationFileError> {
        let path = path.as_ref();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let is_csv = match ext.as_deref() {
            Some("csv") => true,
            Some("geojson" | "json") => false,
            _ => return Err(StationFileError::UnknownFormat(path.to_owned())),
        };
        let file = std::fs::File::open(path).map_err(|source| StationFileError::Io {
            path: path.to_owned(),
            source,
        })?;
        let reader = std::io::BufReader::new(file);
        if is_csv {
            Self::from_csv_reader(reader, config)
        } else {
            Self::from_geojson_reader(reader, config)
        }
    }

    /// The number of distinct stations.
    #[must_use]
    pub fn station_count(&self) -> usize {
        self.stations.len()
    }

    /// The number of readings over all stations.
    #[must_use]
    pub fn reading_count(&self) -> usize {
        self.readings
    }

    /// The configuration in force.
    #[must_use]
    pub fn config(&self) -> &StationFileConfig {
        &self.config
    }
}
