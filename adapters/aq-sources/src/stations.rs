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
//! the radius, or no pollutant with an EAQI band, means not covered.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rstar::RTree;
use rstar::primitives::GeomWithData;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use thiserror::Error;

use aq_core::{
    AirQualitySource, AirSample, CleanlinessIndex, Concentrations, EaqiBands, ForecastSource,
    GrainThresholds, HourlyCi, PollenOutlook, PollenType, Pollutant, Position, SampleQuery,
    SourceError, SourceInfo,
};

use crate::geo::{chord_to_m, m_to_chord, solar_day_start, unit_vector};
use crate::idw::{Accumulator, IdwConfig, IdwConfigError};
use crate::values::{N_VARS, POLLEN_START, Values};

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
    /// The grain-count thresholds for pollen levels (NAB-based by default).
    pub pollen: GrainThresholds,
    /// The source name shown in [`SourceInfo`]. Default `station-file`.
    pub name: String,
}

impl Default for StationFileConfig {
    fn default() -> Self {
        Self {
            idw: IdwConfig::default(),
            max_age_s: 10_800,
            bands: EaqiBands::default(),
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

#[derive(Debug, Clone)]
struct Station {
    position: Position,
    /// Sorted by time (seconds since the epoch), each with the mask of the quantities it has
    /// (bit `k` for quantity `k`).
    readings: Vec<(i64, Values, u16)>,
    /// The union of the readings' masks.
    measured: u16,
}

impl Station {
    /// The readings usable at `time`: taken at or before it, no more than `max_age` seconds
    /// earlier, latest first.
    fn fresh(&self, time: i64, max_age: i64) -> impl Iterator<Item = (&Values, u16)> {
        let known = self.readings.partition_point(|r| r.0 <= time);
        self.readings[..known]
            .iter()
            .rev()
            .take_while(move |r| time - r.0 <= max_age)
            .map(|r| (&r.1, r.2))
    }

    /// Adds the station's latest usable value of each quantity at `time` to `acc`, the station
    /// `distance_m` away with weight `weight` ([`Accumulator::weight`]); false when it has none.
    fn add_fresh(
        &self,
        time: i64,
        max_age: i64,
        acc: &mut [Accumulator; N_VARS],
        distance_m: f64,
        weight: f64,
    ) -> bool {
        let mut found = 0u16;
        for (values, mask) in self.fresh(time, max_age) {
            let mut new = mask & !found;
            found |= new;
            while new != 0 {
                let k = new.trailing_zeros() as usize;
                acc[k].add_weighted(distance_m, weight, values.0[k]);
                new &= new - 1;
            }
            // Older readings cannot add a quantity the station never measures.
            if found == self.measured {
                break;
            }
        }
        found != 0
    }

    /// Whether any value is usable at `time`.
    fn has_fresh(&self, time: i64, max_age: i64) -> bool {
        self.fresh(time, max_age).any(|(_, mask)| mask != 0)
    }
}

/// Slack, in chord units of the unit sphere, for rounding in the neighbourhood's bound: about
/// 6 mm on the Earth, far above the arithmetic's error and far below any distance that matters.
const SLACK: f64 = 1e-9;

/// A neighbourhood reaches this many times the distance its first query needed: wider serves
/// more of the following queries before the next tree search, narrower sorts fewer stations per
/// query.
const REACH_FACTOR: f64 = 1.5;

/// The least distance, in metres, a neighbourhood is built for, so that queries beside a station
/// do not search the tree again at every step.
const MIN_REACH_M: f64 = 1_000.0;

/// The stations within `reach` of `centre` (chord distances between unit vectors), kept from one
/// query to the next. A query at `q` may use them when it needs no station further than
/// `reach − |q − centre|`: by the triangle inequality every such station is held. Reused
/// buffers make a query allocation-free once the neighbourhood is built.
#[derive(Debug, Default)]
struct Neighbourhood {
    built: bool,
    centre: [f64; 3],
    reach: f64,
    /// Sorted by distance from the centre.
    candidates: Vec<Candidate>,
    /// Scratch: the current query's (squared chord distance, station) pairs.
    order: Vec<(f64, u32)>,
    /// The chord distance the last query needed, as the next rebuild's estimate.
    needed: Option<f64>,
}

impl Neighbourhood {
    /// Keeps only the stations within `reach` of the centre, when that is much less than now.
    fn trim(&mut self, reach: f64) {
        let reach = reach + 2.0 * SLACK;
        if reach * 2.0 < self.reach {
            let kept = self.candidates.partition_point(|c| c.from_centre <= reach);
            self.candidates.truncate(kept);
            self.reach = reach;
        }
    }
}

/// A station of a [`Neighbourhood`].
#[derive(Debug, Clone, Copy)]
struct Candidate {
    position: [f64; 3],
    /// Chord distance from the neighbourhood's centre.
    from_centre: f64,
    station: u32,
}

/// The most neighbours a query keeps by insertion before falling back to sorting its whole
/// neighbourhood.
const HEAD: usize = 16;

/// Whether `a` (squared chord distance, station) comes before `b`: nearer, or as near and
/// earlier in the file.
fn nearer(a: (f64, u32), b: (f64, u32)) -> bool {
    nearest_first(a, b).is_lt()
}

/// The order of [`nearer`]. Distances between finite points are never NaN.
fn nearest_first(a: (f64, u32), b: (f64, u32)) -> std::cmp::Ordering {
    a.0.partial_cmp(&b.0)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(a.1.cmp(&b.1))
}

/// The squared straight-line distance between two points, as the R-tree computes it.
fn chord2(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (dx, dy, dz) = (a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    dx * dx + dy * dy + dz * dz
}

/// Stations and readings, an [`AirQualitySource`] and [`ForecastSource`] by inverse-distance
/// weighting. See the [module documentation](self) for the formats and the rules.
///
/// ```
/// use aq_core::{Position, Pollutant};
/// use aq_sources::{StationFile, StationFileConfig};
/// use chrono::{TimeZone, Utc};
///
/// let csv = "station_id,lon,lat,time,pm25\n\
///            a,13.40,52.52,2026-05-04T08:00:00Z,10\n\
///            b,13.50,52.52,2026-05-04T08:00:00Z,20\n";
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

const EXPECTED_COLUMNS: &str = "station_id, lon, lat, time, pm25, pm10, no2, o3, so2, co, \
                                tree_pollen, grass_pollen, weed_pollen";

#[derive(Clone, Copy, PartialEq)]
enum Column {
    Id,
    Lon,
    Lat,
    Time,
    Value(usize),
    Ignored,
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

    /// Loads a CSV station file (see the [module documentation](self)).
    ///
    /// # Errors
    /// [`StationFileError`] naming the line and column of the first problem.
    pub fn from_csv_reader(
        reader: impl Read,
        config: StationFileConfig,
    ) -> Result<Self, StationFileError> {
        let mut csv = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .comment(Some(b'#'))
            .from_reader(reader);
        let header = csv
            .headers()
            .map_err(|e| StationFileError::CsvHeader(e.to_string()))?
            .clone();
        let mut columns = Vec::with_capacity(header.len());
        for name in &header {
            let lower = name.to_ascii_lowercase();
            let column = match lower.as_str() {
                "station_id" => Column::Id,
                "lon" | "longitude" => Column::Lon,
                "lat" | "latitude" => Column::Lat,
                "time" => Column::Time,
                _ if lower.starts_with('_') => Column::Ignored,
                _ => match quantity(&lower) {
                    Some(i) => Column::Value(i),
                    None => {
                        return Err(StationFileError::CsvHeader(format!(
                            "unknown column `{name}`; expected {EXPECTED_COLUMNS} (prefix a \
                             column with `_` to have it ignored)"
                        )));
                    }
                },
            };
            if column != Column::Ignored && columns.contains(&column) {
                return Err(StationFileError::CsvHeader(format!(
                    "column `{name}` appears twice"
                )));
            }
            columns.push(column);
        }
        for (needed, name) in [
            (Column::Id, "station_id"),
            (Column::Lon, "lon"),
            (Column::Lat, "lat"),
            (Column::Time, "time"),
        ] {
            if !columns.contains(&needed) {
                return Err(StationFileError::CsvHeader(format!(
                    "missing column `{name}`; expected {EXPECTED_COLUMNS}"
                )));
            }
        }

        let mut b = Builder::default();
        let mut record = csv::StringRecord::new();
        loop {
            match csv.read_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => {
                    let line = e.position().map_or(0, csv::Position::line);
                    return Err(StationFileError::Csv {
                        line,
                        message: e.to_string(),
                    });
                }
            }
            let line = record.position().map_or(0, csv::Position::line);
            let field_err = |col: usize, message: String| StationFileError::CsvField {
                line,
                column: header.get(col).unwrap_or_default().to_owned(),
                message,
            };
            let (mut id, mut lon, mut lat, mut time) = (None, None, None, None);
            let mut values = Values::MISSING;
            for (col, cell) in record.iter().enumerate() {
                let number = || {
                    cell.parse::<f64>()
                        .map_err(|_| field_err(col, format!("`{cell}` is not a number")))
                };
                match columns[col] {
                    Column::Id if cell.is_empty() => {
                        return Err(field_err(col, "the station id is empty".to_owned()));
                    }
                    Column::Id => id = Some(cell),
                    Column::Lon => lon = Some(number()?),
                    Column::Lat => lat = Some(number()?),
                    Column::Time => time = Some(parse_time(cell).map_err(|m| field_err(col, m))?),
                    Column::Value(_) if cell.is_empty() => {}
                    Column::Value(i) => {
                        values.0[i] = check_value(i, number()?).map_err(|m| field_err(col, m))?;
                    }
                    Column::Ignored => {}
                }
            }
            let col_of = |c: Column| columns.iter().position(|&x| x == c).unwrap_or(0);
            let (Some(id), Some(lon), Some(lat), Some(time)) = (id, lon, lat, time) else {
                return Err(StationFileError::Csv {
                    line,
                    message: "the row is missing station_id, lon, lat or time".to_owned(),
                });
            };
            let position = Position::new(lon, lat).map_err(|e| {
                let col = if lon.is_finite() && (-180.0..=180.0).contains(&lon) {
                    col_of(Column::Lat)
                } else {
                    col_of(Column::Lon)
                };
                field_err(col, e.to_string())
            })?;
            b.add(id, position, time, values, || format!("CSV line {line}"))?;
        }
        b.finish(config)
    }

    /// [`StationFile::from_csv_reader`] on a string.
    ///
    /// # Errors
    /// As [`StationFile::from_csv_reader`].
    pub fn from_csv_str(csv: &str, config: StationFileConfig) -> Result<Self, StationFileError> {
        Self::from_csv_reader(csv.as_bytes(), config)
    }

    /// Loads a GeoJSON station file (see the [module documentation](self)).
    ///
    /// # Errors
    /// [`StationFileError`] naming the feature and field of the first problem.
    pub fn from_geojson_reader(
        reader: impl Read,
        config: StationFileConfig,
    ) -> Result<Self, StationFileError> {
        let doc: Json = serde_json::from_reader(reader)
            .map_err(|e| StationFileError::GeoJson(format!("not valid JSON: {e}")))?;
        let features: Vec<&Json> = match doc.get("type").and_then(Json::as_str) {
            Some("FeatureCollection") => doc
                .get("features")
                .and_then(Json::as_array)
                .ok_or_else(|| StationFileError::GeoJson("`features` must be an array".to_owned()))?
                .iter()
                .collect(),
            Some("Feature") => vec![&doc],
            other => {
                return Err(StationFileError::GeoJson(format!(
                    "expected a FeatureCollection of Point features, found type {other:?}"
                )));
            }
        };
        let mut b = Builder::default();
        for (index, feature) in features.into_iter().enumerate() {
            let err = |field: &str, message: String| StationFileError::GeoJsonField {
                feature: index,
                field: field.to_owned(),
                message,
            };
            let geometry = feature
                .get("geometry")
                .ok_or_else(|| err("geometry", "missing; expected a Point".to_owned()))?;
            if geometry.get("type").and_then(Json::as_str) != Some("Point") {
                return Err(err("geometry.type", "expected \"Point\"".to_owned()));
            }
            let coords = geometry
                .get("coordinates")
                .and_then(Json::as_array)
                .filter(|c| c.len() >= 2)
                .ok_or_else(|| {
                    err(
                        "geometry.coordinates",
                        "expected [lon, lat] in degrees".to_owned(),
                    )
                })?;
            let (Some(lon), Some(lat)) = (coords[0].as_f64(), coords[1].as_f64()) else {
                return Err(err(
                    "geometry.coordinates",
                    "expected [lon, lat] as numbers".to_owned(),
                ));
            };
            let position =
                Position::new(lon, lat).map_err(|e| err("geometry.coordinates", e.to_string()))?;
            let props = feature
                .get("properties")
                .and_then(Json::as_object)
                .ok_or_else(|| err("properties", "expected an object".to_owned()))?;
            let id = match props.get("station_id").or_else(|| feature.get("id")) {
                Some(Json::String(s)) if !s.is_empty() => s.clone(),
                Some(Json::Number(n)) => n.to_string(),
                _ => {
                    return Err(err(
                        "properties.station_id",
                        "missing; give each feature a station_id property or an id".to_owned(),
                    ));
                }
            };
            let mut add = |reading: &serde_json::Map<String, Json>,
                           prefix: String|
             -> Result<(), StationFileError> {
                let time = match reading.get("time") {
                    Some(Json::String(s)) => {
                        parse_time(s).map_err(|m| err(&format!("{prefix}time"), m))?
                    }
                    _ => {
                        return Err(err(
                            &format!("{prefix}time"),
                            "missing; expected an RFC 3339 string".to_owned(),
                        ));
                    }
                };
                let mut values = Values::MISSING;
                for (key, v) in reading {
                    let Some(i) = quantity(key) else { continue };
                    match v {
                        Json::Null => {}
                        Json::Number(n) => {
                            let n = n.as_f64().unwrap_or(f64::NAN);
                            values.0[i] =
                                check_value(i, n).map_err(|m| err(&format!("{prefix}{key}"), m))?;
                        }
                        other => {
                            return Err(err(
                                &format!("{prefix}{key}"),
                                format!(
                                    "expected a number in {} or null, found {other}",
                                    unit_of(i)
                                ),
                            ));
                        }
                    }
                }
                b.add(&id, position, time, values, || {
                    format!("GeoJSON feature {index}")
                })
            };
            match props.get("readings") {
                Some(Json::Array(list)) => {
                    for (j, r) in list.iter().enumerate() {
                        let r = r.as_object().ok_or_else(|| {
                            err(
                                &format!("properties.readings[{j}]"),
                                "expected an object".to_owned(),
                            )
                        })?;
                        add(r, format!("properties.readings[{j}]."))?;
                    }
                }
                Some(_) => {
                    return Err(err(
                        "properties.readings",
                        "expected an array of readings".to_owned(),
                    ));
                }
                None => add(props, "properties.".to_owned())?,
            }
        }
        b.finish(config)
    }

    /// [`StationFile::from_geojson_reader`] on a string.
    ///
    /// # Errors
    /// As [`StationFile::from_geojson_reader`].
    pub fn from_geojson_str(
        geojson: &str,
        config: StationFileConfig,
    ) -> Result<Self, StationFileError> {
        Self::from_geojson_reader(geojson.as_bytes(), config)
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

    /// Every quantity interpolated at `position` and `time` (seconds); NaN where no station
    /// within reach has it. `hood` carries the stations near the previous query, so that a run of
    /// nearby queries (a route's samples, one place at many hours) shares one R-tree search.
    fn interpolate(&self, position: Position, time: i64, hood: &mut Neighbourhood) -> Values {
        let q = unit_vector(position);
        if hood.built
            && let Ok(values) = self.walk(q, time, hood)
        {
            return values;
        }
        let max_chord = self.max_chord2.sqrt();
        let min_chord = m_to_chord(MIN_REACH_M).min(max_chord);
        let reach = |needed: f64| REACH_FACTOR * needed.clamp(min_chord, max_chord);
        // The previous query's need is usually this one's too.
        let needed = hood.needed.unwrap_or_else(|| self.needed_by_tree(q, time));
        self.refill(hood, q, reach(needed));
        if let Ok(values) = self.walk(q, time, hood) {
            return values;
        }
        // The estimate fell short (a jump to sparser ground, or stations without fresh
        // readings): the tree says how far this query must reach.
        self.refill(hood, q, reach(self.needed_by_tree(q, time)));
        if let Ok(values) = self.walk(q, time, hood) {
            return values;
        }
        // Not expected: a neighbourhood over the whole search radius always answers. Trimmed
        // afterwards, so that the next queries read few stations.
        self.refill(hood, q, REACH_FACTOR * max_chord);
        let values = self.walk(q, time, hood).unwrap_or_else(|partial| partial);
        hood.trim(reach(hood.needed.unwrap_or(max_chord)));
        values
    }

    /// The chord distance the query needs: to its `neighbours`-th station with a fresh reading,
    /// or the search radius when there are fewer. Only an estimate for the neighbourhood's
    /// reach; the answer itself comes from [`StationFile::walk`].
    fn needed_by_tree(&self, q: [f64; 3], time: i64) -> f64 {
        let max_age = self.max_age();
        let mut used = 0;
        for (point, d2) in self.tree.nearest_neighbor_iter_with_distance_2(q) {
            if d2 > self.max_chord2 {
                break;
            }
            if self.stations[point.data as usize].has_fresh(time, max_age) {
                used += 1;
                if used == self.config.idw.neighbours {
                    return d2.sqrt();
                }
            }
        }
        self.max_chord2.sqrt()
    }

    /// Makes `hood` hold every station within `reach` (chord) of `q`.
    fn refill(&self, hood: &mut Neighbourhood, q: [f64; 3], reach: f64) {
        let reach = reach + 2.0 * SLACK;
        hood.candidates.clear();
        hood.candidates
            .extend(
                self.tree
                    .locate_within_distance(q, reach * reach)
                    .map(|g| Candidate {
                        position: *g.geom(),
                        from_centre: chord2(*g.geom(), q).sqrt(),
                        station: g.data,
                    }),
            );
        // Nearest to the centre first, so that a query can stop reading candidates as soon as
        // none of the rest can be nearer than those it has.
        hood.candidates
            .sort_unstable_by(|a, b| a.from_centre.total_cmp(&b.from_centre));
        hood.centre = q;
        hood.reach = reach;
        hood.built = true;
    }

    /// Interpolates at `q` from the neighbourhood's stations: the nearest first (ties in file
    /// order), the first `neighbours` with a fresh reading, none beyond the radius. `Err` when
    /// the neighbourhood cannot vouch that no nearer station is missing from it.
    fn walk(&self, q: [f64; 3], time: i64, hood: &mut Neighbourhood) -> Result<Values, Values> {
        // Every station within `vouched` of `q` is within `reach` of the centre, hence held.
        let off_centre = chord2(q, hood.centre).sqrt();
        let vouched = hood.reach - off_centre - SLACK;
        if vouched <= 0.0 {
            return Err(Values::MISSING);
        }
        let limit2 = (vouched * vouched).min(self.max_chord2);
        let whole_radius = vouched * vouched >= self.max_chord2;
        let within = |c: &Candidate| {
            let d2 = chord2(c.position, q);
            (d2 <= limit2).then_some((d2, c.station))
        };

        // Usually the nearest `neighbours` all have fresh readings and are all the query needs:
        // keep just those, in order, by insertion (no sort of the whole neighbourhood).
        let head = self.config.idw.neighbours.min(HEAD);
        let order = &mut hood.order;
        order.clear();
        let mut more = false;
        for c in &hood.candidates {
            if order.len() == head {
                // No station is nearer to `q` than its distance from the centre less
                // `off_centre`; those still to come are all further from the centre.
                let bound = c.from_centre - off_centre - SLACK;
                if bound > 0.0 && bound * bound > order[head - 1].0 {
                    more = true;
                    break;
                }
            }
            let Some((d2, i)) = within(c) else {
                continue;
            };
            if order.len() == head {
                more = true;
                if !nearer((d2, i), order[head - 1]) {
                    continue;
                }
                order.pop();
            }
            match order.last() {
                // Candidates come roughly nearest first: most go at the end.
                Some(&last) if nearer((d2, i), last) => {
                    let at = order.partition_point(|&o| nearer(o, (d2, i)));
                    order.insert(at, (d2, i));
                }
                _ => order.push((d2, i)),
            }
        }
        let (mut out, mut kth) = self.weigh(order, time);
        if kth.is_none() && more {
            // Some of the nearest have no fresh reading, or more neighbours are wanted than the
            // head holds: every station within reach, in order.
            order.clear();
            order.extend(hood.candidates.iter().filter_map(within));
            order.sort_unstable_by(|&a, &b| nearest_first(a, b));
            (out, kth) = self.weigh(order, time);
        }
        if kth.is_none() && !whole_radius {
            return Err(out);
        }
        hood.needed = Some(kth.unwrap_or_else(|| self.max_chord2.sqrt()));
        Ok(out)
    }

    /// The inverse-distance weighting over `order` (squared chord distance, station; nearest
    /// first), and the chord distance of the `neighbours`-th station used, if it was reached.
    fn weigh(&self, order: &[(f64, u32)], time: i64) -> (Values, Option<f64>) {
        let idw = &self.config.idw;
        let max_age = self.max_age();
        let mut acc = [Accumulator::default(); N_VARS];
        let mut used = 0;
        let mut kth = None;
        for &(d2, i) in order {
            // Stations without a fresh reading are rare: weighing one for nothing costs less
            // than looking its readings up twice.
            let distance = chord_to_m(d2.sqrt());
            let weight = Accumulator::weight(distance, idw.power);
            if !self.stations[i as usize].add_fresh(time, max_age, &mut acc, distance, weight) {
                continue;
            }
            used += 1;
            if used == idw.neighbours {
                kth = Some(d2.sqrt());
                break;
            }
        }
        let mut out = Values::MISSING;
        for (o, a) in out.0.iter_mut().zip(acc.iter()) {
            *o = a.value().unwrap_or(f64::NAN);
        }
        (out, kth)
    }

    fn max_age(&self) -> i64 {
        i64::try_from(self.config.max_age_s).unwrap_or(i64::MAX)
    }

    /// The air at `position` and `time`, or `None` when not covered.
    #[must_use]
    pub fn sample_at(&self, position: Position, time: DateTime<Utc>) -> Option<AirSample> {
        self.interpolate(position, time.timestamp(), &mut Neighbourhood::default())
            .air_sample(&self.config.bands)
    }

    /// `answer` of each query's interpolated values, in order: one neighbourhood serves the
    /// whole batch, whose queries usually lie close together.
    fn answer_each<T>(
        &self,
        queries: &[SampleQuery],
        answer: impl Fn(&Values) -> Option<T>,
    ) -> Vec<Option<T>> {
        let mut hood = Neighbourhood::default();
        queries
            .iter()
            .map(|q| answer(&self.interpolate(q.position, q.time.timestamp(), &mut hood)))
            .collect()
    }

    fn pollen_outlook(
        &self,
        position: Position,
        at: DateTime<Utc>,
        days: u32,
        hood: &mut Neighbourhood,
    ) -> Option<PollenOutlook> {
        let now = self.interpolate(position, at.timestamp(), hood);
        let day0 = solar_day_start(position.lon(), at);
        let mut seen = now.has_pollen();
        let days = (0..=i64::from(days))
            .map(|d| {
                let mut peak = Values::MISSING;
                for h in 0..24 {
                    peak.max_with(&self.interpolate(position, day0 + d * 86_400 + h * 3600, hood));
                }
                seen |= peak.has_pollen();
                peak.pollen_levels(&self.config.pollen)
            })
            .collect();
        seen.then(|| PollenOutlook {
            now: now.pollen_levels(&self.config.pollen),
            days,
        })
    }
}

#[async_trait]
impl AirQualitySource for StationFile {
    fn info(&self) -> SourceInfo {
        SourceInfo::real(self.config.name.clone())
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        Ok(self.answer_each(queries, |v| v.air_sample(&self.config.bands)))
    }

    async fn sample_ci(
        &self,
        queries: &[SampleQuery],
    ) -> Result<Vec<Option<CleanlinessIndex>>, SourceError> {
        Ok(self.answer_each(queries, |v| v.ci(&self.config.bands)))
    }
}

#[async_trait]
impl ForecastSource for StationFile {
    fn info(&self) -> SourceInfo {
        SourceInfo::real(self.config.name.clone())
    }

    /// The CI the stations give at each hour, as replayed from the file: hours without fresh
    /// readings are `None`, and a position with no value at any hour is not covered.
    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let mut hood = Neighbourhood::default();
        Ok(positions
            .iter()
            .map(|&p| {
                let values: Vec<_> = (0..=i64::from(hours))
                    .map(|h| {
                        let at = start + chrono::Duration::hours(h);
                        self.interpolate(p, at.timestamp(), &mut hood)
                            .ci(&self.config.bands)
                    })
                    .collect();
                values
                    .iter()
                    .any(Option::is_some)
                    .then_some(HourlyCi { start, values })
            })
            .collect())
    }

    /// Pollen from the file's pollen columns; a position where no station within reach has any
    /// pollen value is not covered.
    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        let mut hood = Neighbourhood::default();
        Ok(positions
            .iter()
            .map(|&p| self.pollen_outlook(p, at, days, &mut hood))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use proptest::prelude::*;

    use aq_core::Concentration;

    use super::*;

    fn pos(lon: f64, lat: f64) -> Position {
        Position::new(lon, lat).unwrap()
    }

    fn t(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 4, h, m, 0).unwrap()
    }

    fn pm25(s: Option<AirSample>) -> f64 {
        s.unwrap()
            .concentrations
            .unwrap()
            .get(Pollutant::Pm25)
            .unwrap()
            .ug_m3()
    }

    #[test]
    fn csv_errors_name_line_and_column() {
        let c = StationFileConfig::default();
        let e = StationFile::from_csv_str(
            "station_id,lon,lat,time,pm25\na,1,2,2026-05-04T08:00:00Z,5\nb,1,2,2026-05-04T08:00:00Z,-3\n",
            c.clone(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "station CSV line 3, column `pm25`: -3 is not a value in µg/m³: it must be finite and not negative"
        );
        let e = StationFile::from_csv_str("station_id,lon,lat,time\na,1,2,yesterday\n", c.clone())
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("station CSV line 2, column `time`: `yesterday` is not an RFC 3339"),
            "{e}"
        );
        let e =
            StationFile::from_csv_str("station_id,lon,lat,time,pm2.6\n", c.clone()).unwrap_err();
        assert!(e.to_string().contains("unknown column `pm2.6`"), "{e}");
        let e = StationFile::from_csv_str("station_id,lon,time\n", c.clone()).unwrap_err();
        assert!(e.to_string().contains("missing column `lat`"), "{e}");
        let e = StationFile::from_csv_str(
            "station_id,lon,lat,time\na,1,95,2026-05-04T08:00:00Z\n",
            c.clone(),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("line 2, column `lat`: latitude 95"),
            "{e}"
        );
        let e = StationFile::from_csv_str(
            "station_id,lon,lat,time\na,1,2,2026-05-04T08:00:00Z\na,1.5,2,2026-05-04T09:00:00Z\n",
            c.clone(),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("CSV line 3: station `a` is at 1.5, 2"),
            "{e}"
        );
        let e =
            StationFile::from_csv_str("station_id,lon,lat,time\na,1,2\n", c.clone()).unwrap_err();
        assert!(e.to_string().starts_with("station CSV line 2:"), "{e}");
        assert!(matches!(
            StationFile::from_csv_str("station_id,lon,lat,time\n", c),
            Err(StationFileError::Empty)
        ));
    }

    #[test]
    fn csv_accepts_aliases_comments_and_ignored_columns() {
        let csv = "# exported 2026-05-04\nStation_ID,Longitude,Latitude,time,PM2_5,_name\n\
                   a,1,2,2026-05-04T08:00:00+02:00,5,Somewhere, far\n";
        // The unquoted comma makes a ragged row: reported with its line.
        let e = StationFile::from_csv_str(csv, StationFileConfig::default()).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        let csv = csv.replace("Somewhere, far", "\"Somewhere, far\"");
        let f = StationFile::from_csv_str(&csv, StationFileConfig::default()).unwrap();
        assert_eq!((f.station_count(), f.reading_count()), (1, 1));
        // 08:00+02:00 is 06:00 UTC.
        assert!(f.sample_at(pos(1.0, 2.0), t(5, 59)).is_none());
        assert_eq!(pm25(f.sample_at(pos(1.0, 2.0), t(6, 0))), 5.0);
    }

    #[test]
    fn geojson_both_layouts_and_errors() {
        let doc = r#"{"type":"FeatureCollection","features":[
          {"type":"Feature","id":17,"geometry":{"type":"Point","coordinates":[13.40,52.52]},
           "properties":{"time":"2026-05-04T08:00:00Z","pm25":10,"name":"ignored"}},
          {"type":"Feature","geometry":{"type":"Point","coordinates":[13.50,52.52,34.0]},
           "properties":{"station_id":"b","readings":[
             {"time":"2026-05-04T07:00:00Z","pm25":30},
             {"time":"2026-05-04T08:00:00Z","pm25":20,"no2":null,"grass_pollen":12}]}}]}"#;
        let f = StationFile::from_geojson_str(doc, StationFileConfig::default()).unwrap();
        assert_eq!((f.station_count(), f.reading_count()), (2, 3));
        assert!((pm25(f.sample_at(pos(13.45, 52.52), t(9, 0))) - 15.0).abs() < 1e-6);

        let bad = doc.replace("\"pm25\":20", "\"pm25\":\"high\"");
        let e = StationFile::from_geojson_str(&bad, StationFileConfig::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "station GeoJSON feature 1, `properties.readings[1].pm25`: expected a number in µg/m³ or null, found \"high\""
        );
        let bad = doc.replace("\"id\":17,", "");
        let e = StationFile::from_geojson_str(&bad, StationFileConfig::default()).unwrap_err();
        assert!(
            e.to_string().contains("feature 0, `properties.station_id`"),
            "{e}"
        );
        let bad = doc.replace(
            "\"Point\",\"coordinates\":[13.40",
            "\"LineString\",\"coordinates\":[13.40",
        );
        let e = StationFile::from_geojson_str(&bad, StationFileConfig::default()).unwrap_err();
        assert!(e.to_string().contains("feature 0, `geometry.type`"), "{e}");
        let e = StationFile::from_geojson_str("[1,2]", StationFileConfig::default()).unwrap_err();
        assert!(
            e.to_string().contains("expected a FeatureCollection"),
            "{e}"
        );
    }

    #[test]
    fn open_picks_format_by_extension_and_reports_io() {
        let dir = std::env::temp_dir().join(format!("aq-sources-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.csv");
        std::fs::write(
            &path,
            "station_id,lon,lat,time,no2\na,1,2,2026-05-04T08:00:00Z,30\n",
        )
        .unwrap();
        assert_eq!(
            StationFile::open(&path, StationFileConfig::default())
                .unwrap()
                .station_count(),
            1
        );
        let e =
            StationFile::open(dir.join("missing.csv"), StationFileConfig::default()).unwrap_err();
        assert!(e.to_string().contains("cannot read station file"), "{e}");
        let e = StationFile::open(dir.join("s.txt"), StationFileConfig::default()).unwrap_err();
        assert!(e.to_string().contains("unknown format"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn stale_and_future_readings_are_ignored() {
        let csv = "station_id,lon,lat,time,pm25\n\
                   a,0,0,2026-05-04T08:00:00Z,10\n\
                   a,0,0,2026-05-04T12:00:00Z,40\n";
        let f = StationFile::from_csv_str(csv, StationFileConfig::default()).unwrap();
        let here = pos(0.0, 0.0);
        assert_eq!(pm25(f.sample_at(here, t(11, 0))), 10.0);
        assert!(f.sample_at(here, t(11, 1)).is_none(), "older than 3 hours");
        assert_eq!(pm25(f.sample_at(here, t(12, 0))), 40.0);
        assert!(
            f.sample_at(here, t(7, 59)).is_none(),
            "nothing measured yet"
        );
    }

    #[test]
    fn radius_and_neighbour_count_are_honoured() {
        // Stations every 0.1° of longitude along the equator (about 11.1 km apart).
        let readings = (0..10).map(|i| StationReading {
            station_id: format!("s{i}"),
            position: pos(f64::from(i) * 0.1, 0.0),
            time: t(8, 0),
            concentrations: Concentrations::default()
                .with(Pollutant::Pm25, Concentration::new(f64::from(i)).unwrap()),
            pollen: PollenCounts::default(),
        });
        let readings: Vec<_> = readings.collect();
        let one = StationFileConfig {
            idw: IdwConfig {
                neighbours: 1,
                ..IdwConfig::default()
            },
            ..StationFileConfig::default()
        };
        let f = StationFile::from_readings(readings.clone(), one).unwrap();
        assert_eq!(pm25(f.sample_at(pos(0.52, 0.0), t(8, 0))), 5.0);
        let f = StationFile::from_readings(readings, StationFileConfig::default()).unwrap();
        assert!(
            f.sample_at(pos(1.1, 0.0), t(8, 0)).is_some(),
            "22 km from s9"
        );
        assert!(
            f.sample_at(pos(1.05, 0.1), t(8, 0)).is_some(),
            "20 km from s9"
        );
        assert!(
            f.sample_at(pos(1.2, 0.0), t(8, 0)).is_none(),
            "33 km from s9"
        );
        // Across the antimeridian there is no seam.
        let f = StationFile::from_csv_str(
            "station_id,lon,lat,time,pm25\na,179.95,0,2026-05-04T08:00:00Z,7\n",
            StationFileConfig::default(),
        )
        .unwrap();
        assert_eq!(pm25(f.sample_at(pos(-179.95, 0.0), t(8, 0))), 7.0);
    }

    #[test]
    fn a_station_with_only_co_gives_no_ci() {
        let f = StationFile::from_csv_str(
            "station_id,lon,lat,time,co\na,0,0,2026-05-04T08:00:00Z,400\n",
            StationFileConfig::default(),
        )
        .unwrap();
        assert!(f.sample_at(pos(0.0, 0.0), t(8, 0)).is_none());
    }

    #[test]
    fn bad_config_is_refused() {
        let c = StationFileConfig {
            idw: IdwConfig {
                power: -1.0,
                ..IdwConfig::default()
            },
            ..StationFileConfig::default()
        };
        let e =
            StationFile::from_csv_str("station_id,lon,lat,time\na,0,0,2026-05-04T08:00:00Z\n", c)
                .unwrap_err();
        assert!(e.to_string().contains("IDW power -1"), "{e}");
    }

    #[tokio::test]
    async fn forecast_replays_the_file() {
        let csv = "station_id,lon,lat,time,pm25,tree_pollen\n\
                   a,0,0,2026-05-04T08:00:00Z,10,\n\
                   a,0,0,2026-05-04T10:00:00Z,50,100\n";
        let f = StationFile::from_csv_str(csv, StationFileConfig::default()).unwrap();
        let here = pos(0.0, 0.0);
        let far = pos(50.0, 0.0);
        let series = f.hourly_ci(&[here, far], t(7, 0), 3).await.unwrap();
        let values: Vec<_> = series[0]
            .as_ref()
            .unwrap()
            .values
            .iter()
            .map(|v| v.map(|c| c.rounded()))
            .collect();
        assert_eq!(values, [None, Some(70), Some(70), Some(40)]);
        assert!(series[1].is_none());
        let pollen = f.daily_pollen(&[here, far], t(9, 0), 1).await.unwrap();
        let outlook = pollen[0].as_ref().unwrap();
        assert_eq!(outlook.now.get(PollenType::Tree), None);
        assert_eq!(outlook.days[0].get(PollenType::Tree).unwrap().value(), 4);
        assert!(pollen[1].is_none());
    }

    #[tokio::test]
    async fn conforms_to_the_ports() {
        use crate::conformance::{self, Expectations, ForecastExpectations};
        let csv = "station_id,lon,lat,time,pm25,no2,grass_pollen\n\
                   a,13.40,52.52,2026-05-04T08:00:00Z,10,30,4\n\
                   a,13.40,52.52,2026-05-04T09:00:00Z,40,60,8\n\
                   b,13.50,52.50,2026-05-04T08:30:00Z,20,,\n";
        let f = StationFile::from_csv_str(csv, StationFileConfig::default()).unwrap();
        let q = |lon, lat, t| SampleQuery {
            position: pos(lon, lat),
            time: t,
        };
        conformance::check_air_quality(
            &f,
            &Expectations {
                covered: vec![
                    q(13.40, 52.52, t(8, 10)),
                    q(13.40, 52.52, t(9, 10)),
                    q(13.45, 52.51, t(8, 45)),
                ],
                uncovered: vec![
                    q(13.40, 52.52, t(7, 59)),
                    q(14.5, 52.52, t(8, 30)),
                    q(13.40, 52.52, t(12, 1)),
                ],
            },
        )
        .await;
        conformance::check_forecast(
            &f,
            &ForecastExpectations {
                covered: vec![pos(13.40, 52.52), pos(13.50, 52.50)],
                uncovered: vec![pos(10.0, 50.0)],
                start: t(6, 0),
                hours: 8,
                pollen_covered: true,
            },
        )
        .await;
    }

    fn station_strategy() -> impl Strategy<Value = Vec<(f64, f64, f64)>> {
        prop::collection::vec((-0.2f64..0.2, -0.2f64..0.2, 0.0f64..300.0), 1..25)
    }

    /// The module documentation's rule applied to every station, nearest first (ties in file
    /// order): what the neighbourhood search must reproduce bit for bit.
    fn exhaustive(f: &StationFile, position: Position, time: DateTime<Utc>) -> Option<AirSample> {
        let (q, time, max_age) = (unit_vector(position), time.timestamp(), f.max_age());
        let mut all: Vec<(f64, usize)> = f
            .stations
            .iter()
            .enumerate()
            .map(|(i, s)| (chord2(unit_vector(s.position), q), i))
            .collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut acc = [Accumulator::default(); N_VARS];
        let mut used = 0;
        for (d2, i) in all {
            if d2 > f.max_chord2 || used == f.config.idw.neighbours {
                break;
            }
            let readings = &f.stations[i].readings;
            let known = readings.partition_point(|r| r.0 <= time);
            let recent = readings[..known]
                .iter()
                .rev()
                .take_while(|r| time - r.0 <= max_age);
            let mut any = false;
            for (k, a) in acc.iter_mut().enumerate() {
                if let Some(v) = recent.clone().find_map(|r| r.1.get(k)) {
                    a.add(chord_to_m(d2.sqrt()), v, f.config.idw.power);
                    any = true;
                }
            }
            used += usize::from(any);
        }
        let mut out = Values::MISSING;
        for (o, a) in out.0.iter_mut().zip(acc.iter()) {
            *o = a.value().unwrap_or(f64::NAN);
        }
        out.air_sample(&f.config.bands)
    }

    /// Stations (lon, lat, which hours and pollutants, PM2.5, NO₂), query steps (Δlon, Δlat,
    /// tenths of an hour), the neighbour count and the radius.
    type NeighbourhoodCase = (
        Vec<(f64, f64, u8, f64, f64)>,
        Vec<(f64, f64, u32)>,
        usize,
        f64,
    );

    /// Stations in a 0.4° square, some sharing a place, each with readings at some of the hours
    /// 6 to 9 and PM2.5, NO₂ or both; and a walk of queries through the square over the morning.
    fn neighbourhood_case() -> impl Strategy<Value = NeighbourhoodCase> {
        (
            prop::collection::vec(
                (
                    -0.2f64..0.2,
                    -0.2f64..0.2,
                    0u8..64,
                    0.0f64..80.0,
                    0.0f64..80.0,
                ),
                1..60,
            ),
            prop::collection::vec((-0.03f64..0.03, -0.03f64..0.03, 0u32..40), 1..40),
            // Past HEAD too, where every query sorts its whole neighbourhood.
            1usize..24,
            2_000.0f64..30_000.0,
        )
    }

    proptest! {
        #[test]
        fn batches_answer_as_an_exhaustive_search_does(
            (stations, steps, neighbours, radius_m) in neighbourhood_case(),
        ) {
            let mut readings = Vec::new();
            for (i, &(lon, lat, mask, pm, no2)) in stations.iter().enumerate() {
                // Every fourth station stands where an earlier one stands: equal distances.
                let (lon, lat) = if i % 4 == 3 { (stations[i / 2].0, stations[i / 2].1) } else { (lon, lat) };
                for h in 0..4u32 {
                    if mask & (1 << h) == 0 {
                        continue;
                    }
                    let mut c = Concentrations::default();
                    if mask & 16 == 0 {
                        c.set(Pollutant::Pm25, Concentration::new(pm + f64::from(h)).unwrap());
                    }
                    if mask & 32 == 0 {
                        c.set(Pollutant::No2, Concentration::new(no2).unwrap());
                    }
                    readings.push(StationReading {
                        station_id: i.to_string(),
                        position: pos(lon, lat),
                        time: t(6 + h, 0),
                        concentrations: c,
                        pollen: PollenCounts::default(),
                    });
                }
            }
            prop_assume!(!readings.is_empty());
            let config = StationFileConfig {
                idw: IdwConfig { neighbours, radius_m, ..IdwConfig::default() },
                max_age_s: 5_400,
                ..StationFileConfig::default()
            };
            let f = StationFile::from_readings(readings, config).unwrap();
            let (mut lon, mut lat) = (0.0, 0.0);
            let queries: Vec<SampleQuery> = steps
                .iter()
                .map(|&(dlon, dlat, minutes)| {
                    lon = f64::clamp(lon + dlon, -0.3, 0.3);
                    lat = f64::clamp(lat + dlat, -0.3, 0.3);
                    SampleQuery { position: pos(lon, lat), time: t(6, 0) + chrono::Duration::minutes(i64::from(minutes) * 6) }
                })
                .collect();
            let got = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
                .block_on(f.sample(&queries))
                .unwrap();
            for (q, answer) in queries.iter().zip(got) {
                prop_assert_eq!(answer, exhaustive(&f, q.position, q.time), "at {:?}", q);
                prop_assert_eq!(f.sample_at(q.position, q.time), exhaustive(&f, q.position, q.time));
            }
        }

        #[test]
        fn interpolation_lies_between_stations_used(
            stations in station_strategy(),
            qlon in -0.2f64..0.2,
            qlat in -0.2f64..0.2,
            power in 1.0f64..6.0,
        ) {
            let readings: Vec<_> = stations.iter().enumerate().map(|(i, &(lon, lat, v))| StationReading {
                station_id: i.to_string(),
                position: pos(lon, lat),
                time: t(8, 0),
                concentrations: Concentrations::default().with(Pollutant::Pm25, Concentration::new(v).unwrap()),
                pollen: PollenCounts::default(),
            }).collect();
            let config = StationFileConfig { idw: IdwConfig { power, ..IdwConfig::default() }, ..StationFileConfig::default() };
            let f = StationFile::from_readings(readings, config).unwrap();
            let q = pos(qlon, qlat);
            // The stations used: the ten nearest within 25 km.
            let mut near: Vec<_> = stations.iter()
                .map(|&(lon, lat, v)| (pos(lon, lat).distance_m(q), v))
                .filter(|&(d, _)| d <= 25_000.0)
                .collect();
            near.sort_by(|a, b| a.0.total_cmp(&b.0));
            near.truncate(10);
            match f.sample_at(q, t(8, 30)) {
                None => prop_assert!(near.is_empty()),
                Some(s) => {
                    let v = s.concentrations.unwrap().get(Pollutant::Pm25).unwrap().ug_m3();
                    let min = near.iter().map(|n| n.1).fold(f64::INFINITY, f64::min);
                    let max = near.iter().map(|n| n.1).fold(f64::NEG_INFINITY, f64::max);
                    prop_assert!(v >= min - 1e-9 && v <= max + 1e-9, "{v} not in [{min}, {max}]");
                }
            }
        }

        #[test]
        fn a_station_at_the_query_point_dominates(
            stations in station_strategy(),
            pick in any::<prop::sample::Index>(),
        ) {
            let readings: Vec<_> = stations.iter().enumerate().map(|(i, &(lon, lat, v))| StationReading {
                station_id: i.to_string(),
                position: pos(lon, lat),
                time: t(8, 0),
                concentrations: Concentrations::default().with(Pollutant::Pm25, Concentration::new(v).unwrap()),
                pollen: PollenCounts::default(),
            }).collect();
            let f = StationFile::from_readings(readings, StationFileConfig::default()).unwrap();
            let (lon, lat, v) = stations[pick.index(stations.len())];
            // Stations within a metre of each other share the answer; skip those draws.
            let crowded = stations.iter().filter(|s| pos(s.0, s.1).distance_m(pos(lon, lat)) < 1.0).count() > 1;
            prop_assume!(!crowded);
            prop_assert_eq!(pm25(f.sample_at(pos(lon, lat), t(9, 0))), v);
        }
    }
}
