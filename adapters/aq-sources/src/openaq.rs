//! OpenAQ v3: the latest measurements of monitoring stations near a point.
//!
//! For each query the source finds OpenAQ *locations* (stations) near the point
//! (`GET /v3/locations?coordinates={lat},{lon}&radius={m}`; OpenAQ takes latitude first and a
//! radius of at most 25 km), reads the latest value of each of their *sensors*
//! (`GET /v3/locations/{id}/latest`), and weights the nearest stations' values by inverse
//! distance ([`crate::idw`]). Every request carries the `X-API-Key` header.
//!
//! - *Parameters by id*: a sensor counts when its parameter id is in
//!   [`OpenAqConfig::parameters`]; by default the ids OpenAQ documents for PM10 (1), PM2.5 (2),
//!   O₃ (3, 10), CO (4, 8), NO₂ (5, 7) and SO₂ (6, 9).
//! - *Units*: each sensor's unit as OpenAQ states it: µg/m³ (either micro sign) and mg/m³ are
//!   scaled, ppm and ppb of a gas are converted at 25 °C and 1 atm ([`aq_core::Concentration::from_ppb`]);
//!   a value in any other unit is dropped.
//! - *Dropped values*: negative values (instrument offsets, error codes), values measured after
//!   the query time, and values older than [`OpenAqConfig::max_age_s`] before it. OpenAQ gives
//!   measurements, not forecasts, so a query far in the future is not covered.
//!
//! Station lists are cached per small grid cell and latest values per station, so the many
//! samples of a route cost a handful of requests.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use futures::{StreamExt, TryStreamExt, stream};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use aq_core::runtime::Clock;
use aq_core::{
    AirQualitySource, AirSample, Concentration, EaqiBands, Pollutant, Position, SampleQuery,
    SourceError, SourceInfo,
};

use crate::http::{self, ConfigError};
use crate::idw::{Accumulator, IdwConfig};
use crate::values::{N_VARS, Values};

const NAME: &str = "openaq";
const SERVICE: &str = "OpenAQ";
/// OpenAQ's largest accepted search radius, metres.
const MAX_RADIUS_M: f64 = 25_000.0;

/// How the [`OpenAq`] source talks to the API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OpenAqConfig {
    /// Where the API is. Default `https://api.openaq.org`.
    pub base_url: String,
    /// The API key sent as `X-API-Key`. Required (OpenAQ v3 refuses requests without one);
    /// no default.
    pub api_key: String,
    /// Timeout of one request, connection to last byte, in milliseconds. Default 10,000.
    pub timeout_ms: u64,
    /// The interpolation. Default power 5 (AirNow), 5 neighbours (each nearby station costs a
    /// request per [`OpenAqConfig::latest_ttl_s`]), radius 25 km (OpenAQ's maximum; larger
    /// values are refused).
    pub idw: IdwConfig,
    /// Values measured more than this many seconds before the query time are dropped. Default
    /// 10,800 (3 hours).
    pub max_age_s: u64,
    /// Station lists are looked up and cached per cell of this many degrees. Default 0.01
    /// (about 1.1 km). The search radius is widened by half the cell's diagonal, within
    /// OpenAQ's 25 km limit, and stations are then filtered by their true distance.
    pub cell_deg: f64,
    /// At most this many stations per station-list request. Default 1,000, OpenAQ's page limit.
    pub locations_limit: u32,
    /// How long a cell's station list is reused, seconds. Default 21,600 (6 hours).
    pub locations_ttl_s: u64,
    /// How long a station's latest values are reused, seconds. Default 600: stations report
    /// hourly at best.
    pub latest_ttl_s: u64,
    /// At most this many requests in flight for one batch. Default 4.
    pub concurrency: usize,
    /// Which OpenAQ parameter ids count as which pollutant.
    pub parameters: BTreeMap<u32, Pollutant>,
    /// The bands that turn concentrations into a CI (EAQI 2024 by default).
    pub bands: EaqiBands,
}

impl Default for OpenAqConfig {
    fn default() -> Self {
        Self {
            base_url: "https://api.openaq.org".to_owned(),
            api_key: String::new(),
            timeout_ms: 10_000,
            idw: IdwConfig {
                neighbours: 5,
                ..IdwConfig::default()
            },
            max_age_s: 10_800,
            cell_deg: 0.01,
            locations_limit: 1_000,
            locations_ttl_s: 21_600,
            latest_ttl_s: 600,
            concurrency: 4,
            parameters: BTreeMap::from([
                (1, Pollutant::Pm10),
                (2, Pollutant::Pm25),
                (3, Pollutant::O3),
                (4, Pollutant::Co),
                (5, Pollutant::No2),
                (6, Pollutant::So2),
                (7, Pollutant::No2),
                (8, Pollutant::Co),
                (9, Pollutant::So2),
                (10, Pollutant::O3),
            ]),
            bands: EaqiBands::default(),
        }
    }
}

/// A station and its relevant sensors: (sensor id, pollutant, unit).
#[derive(Debug, Clone)]
struct Location {
    id: u64,
    position: Position,
    sensors: Vec<(u64, Pollutant, String)>,
}

/// Latest values of one station: sensor id → (time, value as sent).
type Latest = HashMap<u64, (i64, f64)>;

type Cell = (i32, i32);

/// A cached answer and when it was fetched.
#[derive(Debug)]
struct Timed<T> {
    at: DateTime<Utc>,
    value: Arc<T>,
}

/// The OpenAQ v3 source. See the [module documentation](self).
///
/// ```
/// use std::sync::Arc;
///
/// use aq_core::runtime::FixedClock;
/// use aq_sources::{OpenAq, OpenAqConfig};
/// use chrono::{TimeZone, Utc};
///
/// let clock = Arc::new(FixedClock::new(Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap()));
/// // A key is required.
/// assert!(OpenAq::new(OpenAqConfig::default(), clock.clone()).is_err());
/// let config = OpenAqConfig { api_key: "my-key".into(), ..OpenAqConfig::default() };
/// let source = OpenAq::new(config, clock).unwrap();
/// assert_eq!(aq_core::AirQualitySource::info(&source).name, "openaq");
/// ```
pub struct OpenAq {
    client: reqwest::Client,
    base: reqwest::Url,
    config: OpenAqConfig,
    locations: Mutex<HashMap<Cell, Timed<Vec<Location>>>>,
    latest: Mutex<HashMap<u64, Timed<Latest>>>,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for OpenAq {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The API key stays out of logs.
        f.debug_struct("OpenAq")
            .field("base", &self.base.as_str())
            .finish_non_exhaustive()
    }
}

/// Converts a value of `pollutant` in `unit` to µg/m³; `None` for a unit that cannot be.
fn to_ug_m3(pollutant: Pollutant, unit: &str, value: f64) -> Option<f64> {
    let ppb = |ppb: f64| {
        Concentration::from_ppb(pollutant, ppb)
            .ok()
            .flatten()
            .map(Concentration::ug_m3)
    };
    match http::normalise_unit(unit).as_str() {
        "µg/m³" => Some(value),
        "mg/m³" => Some(value * 1000.0),
        "ppb" => ppb(value),
        "ppm" => ppb(value * 1000.0),
        _ => None,
    }
}

/// Keeps a cache from growing without bound: past `limit` entries the stale ones (older than
/// `ttl_s` seconds at `now`) go, and if that is not enough, all of them.
fn trim<K: std::hash::Hash + Eq, T>(
    map: &mut HashMap<K, Timed<T>>,
    now: DateTime<Utc>,
    ttl_s: u64,
    limit: usize,
) {
    if map.len() > limit {
        map.retain(|_, t| http::fresh(t.at, now, ttl_s));
        if map.len() > limit {
            map.clear();
        }
    }
}

const CACHE_LIMIT: usize = 100_000;

impl OpenAq {
    /// A source with `config`, reading from `clock` how old its cached answers are.
    ///
    /// # Errors
    /// [`ConfigError`] for a missing API key, a bad base URL, or numbers out of range.
    pub fn new(config: OpenAqConfig, clock: Arc<dyn Clock>) -> Result<Self, ConfigError> {
        if config.api_key.trim().is_empty() {
            return Err(ConfigError::new(
                NAME,
                "api_key is required; create one at OpenAQ and pass it in the configuration",
            ));
        }
        let base = http::endpoint(NAME, &config.base_url, "/v3/")?;
        config
            .idw
            .validate()
            .map_err(|e| ConfigError::new(NAME, e.to_string()))?;
        if config.idw.radius_m > MAX_RADIUS_M {
            return Err(ConfigError::new(
                NAME,
                format!(
                    "idw.radius_m {} exceeds OpenAQ's largest search radius of 25000 m",
                    config.idw.radius_m
                ),
            ));
        }
        if !(config.cell_deg.is_finite() && config.cell_deg > 0.0 && config.cell_deg <= 0.1) {
            return Err(ConfigError::new(
                NAME,
                format!(
                    "cell_deg {} must be in (0, 0.1], such as 0.01",
                    config.cell_deg
                ),
            ));
        }
        if config.concurrency == 0 || config.locations_limit == 0 || config.timeout_ms == 0 {
            return Err(ConfigError::new(
                NAME,
                "concurrency, locations_limit and timeout_ms must be at least 1",
            ));
        }
        config
            .bands
            .validate()
            .map_err(|e| ConfigError::new(NAME, e.to_string()))?;
        let client = http::client(Duration::from_millis(config.timeout_ms), NAME)?;
        Ok(Self {
            client,
            base,
            config,
            locations: Mutex::new(HashMap::new()),
            latest: Mutex::new(HashMap::new()),
            clock,
        })
    }

    fn cell(&self, p: Position) -> Cell {
        // Degrees over a cell of at least a few thousandths of a degree stay far inside i32.
        #[allow(clippy::cast_possible_truncation)]
        let idx = |deg: f64| (deg / self.config.cell_deg).round() as i32;
        (idx(p.lat()), idx(p.lon()))
    }

    fn request(&self, url: reqwest::Url) -> reqwest::RequestBuilder {
        self.client
            .get(url)
            .header("X-API-Key", &self.config.api_key)
            .header(reqwest::header::ACCEPT, "application/json")
    }

    fn url(&self, path: &str) -> Result<reqwest::Url, SourceError> {
        self.base
            .join(path)
            .map_err(|e| SourceError::Refused(format!("cannot build an {SERVICE} URL: {e}")))
    }

    async fn fetch_locations(&self, cell: Cell) -> Result<(Cell, Arc<Vec<Location>>), SourceError> {
        let lat = (f64::from(cell.0) * self.config.cell_deg).clamp(-90.0, 90.0);
        let lon = (f64::from(cell.1) * self.config.cell_deg).clamp(-180.0, 180.0);
        let half_diagonal = self.config.cell_deg * 111_195.0 * std::f64::consts::FRAC_1_SQRT_2;
        let radius = (self.config.idw.radius_m + half_diagonal)
            .min(MAX_RADIUS_M)
            .ceil();
        let mut url = self.url("locations")?;
        url.query_pairs_mut()
            .append_pair("coordinates", &format!("{lat:.5},{lon:.5}"))
            .append_pair("radius", &format!("{radius:.0}"))
            .append_pair("limit", &self.config.locations_limit.to_string());
        let body = http::get_body(self.request(url), SERVICE, &self.config.base_url).await?;
        let doc: Json = serde_json::from_slice(&body).map_err(|e| {
            SourceError::InvalidResponse(format!("{SERVICE} sent invalid JSON: {e}"))
        })?;
        let results = results(&doc, "locations")?;
        let mut out = Vec::new();
        for r in results {
            let Some(id) = r.get("id").and_then(Json::as_u64) else {
                return Err(invalid("a location has no numeric `id`"));
            };
            let coords = r.get("coordinates");
            let (Some(lat), Some(lon)) = (
                coords
                    .and_then(|c| c.get("latitude"))
                    .and_then(Json::as_f64),
                coords
                    .and_then(|c| c.get("longitude"))
                    .and_then(Json::as_f64),
            ) else {
                // A location without coordinates cannot be placed: not an error, just unusable.
                continue;
            };
            let Ok(position) = Position::new(lon, lat) else {
                continue;
            };
            let sensors = r
                .get("sensors")
                .and_then(Json::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(|s| {
                    let sensor = s.get("id")?.as_u64()?;
                    let parameter = s.get("parameter")?;
                    let pid = u32::try_from(parameter.get("id")?.as_u64()?).ok()?;
                    let pollutant = *self.config.parameters.get(&pid)?;
                    let unit = parameter.get("units")?.as_str()?.to_owned();
                    Some((sensor, pollutant, unit))
                })
                .collect::<Vec<_>>();
            if !sensors.is_empty() {
                out.push(Location {
                    id,
                    position,
                    sensors,
                });
            }
        }
        Ok((cell, Arc::new(out)))
    }

    async fn fetch_latest(&self, location: u64) -> Result<(u64, Arc<Latest>), SourceError> {
        let url = self.url(&format!("locations/{location}/latest"))?;
        let Some(body) = http::get_found(self.request(url), SERVICE, &self.config.base_url).await?
        else {
            return Ok((location, Arc::new(Latest::new())));
        };
        let doc: Json = serde_json::from_slice(&body).map_err(|e| {
            SourceError::InvalidResponse(format!("{SERVICE} sent invalid JSON: {e}"))
        })?;
        let mut latest = Latest::new();
        for r in results(&doc, "latest")? {
            let Some(sensor) = r.get("sensorsId").and_then(Json::as_u64) else {
                return Err(invalid("a latest value has no numeric `sensorsId`"));
            };
            // A null value is a sensor with nothing to report.
            let Some(value) = r.get("value").and_then(Json::as_f64) else {
                continue;
            };
            let Some(utc) = r
                .get("datetime")
                .and_then(|d| d.get("utc"))
                .and_then(Json::as_str)
            else {
                return Err(invalid("a latest value has no `datetime.utc`"));
            };
            let time = DateTime::parse_from_rfc3339(utc)
                .map_err(|_| invalid(&format!("`{utc}` is not an RFC 3339 time")))?
                .timestamp();
            let keep = latest.get(&sensor).is_none_or(|&(t, _)| time > t);
            if keep {
                latest.insert(sensor, (time, value));
            }
        }
        Ok((location, Arc::new(latest)))
    }

    /// Fresh station lists for every cell, fetching the missing ones.
    async fn locations_for(
        &self,
        cells: &HashSet<Cell>,
    ) -> Result<HashMap<Cell, Arc<Vec<Location>>>, SourceError> {
        let (now, ttl_s) = (self.clock.now(), self.config.locations_ttl_s);
        let mut found = HashMap::new();
        let mut missing = Vec::new();
        {
            let cache = self
                .locations
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            for &cell in cells {
                match cache.get(&cell) {
                    Some(t) if http::fresh(t.at, now, ttl_s) => {
                        found.insert(cell, Arc::clone(&t.value));
                    }
                    _ => missing.push(cell),
                }
            }
        }
        let fetched: Vec<_> = stream::iter(missing)
            .map(|cell| self.fetch_locations(cell))
            .buffer_unordered(self.config.concurrency)
            .try_collect()
            .await?;
        let mut cache = self
            .locations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        trim(&mut cache, now, ttl_s, CACHE_LIMIT);
        for (cell, list) in fetched {
            cache.insert(
                cell,
                Timed {
                    at: now,
                    value: Arc::clone(&list),
                },
            );
            found.insert(cell, list);
        }
        Ok(found)
    }

    /// Fresh latest values for every station, fetching the missing ones.
    async fn latest_for(
        &self,
        ids: HashSet<u64>,
    ) -> Result<HashMap<u64, Arc<Latest>>, SourceError> {
        let (now, ttl_s) = (self.clock.now(), self.config.latest_ttl_s);
        let mut found = HashMap::new();
        let mut missing = Vec::new();
        {
            let cache = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
            for id in ids {
                match cache.get(&id) {
                    Some(t) if http::fresh(t.at, now, ttl_s) => {
                        found.insert(id, Arc::clone(&t.value));
                    }
                    _ => missing.push(id),
                }
            }
        }
        let fetched: Vec<_> = stream::iter(missing)
            .map(|id| self.fetch_latest(id))
            .buffer_unordered(self.config.concurrency)
            .try_collect()
            .await?;
        let mut cache = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
        trim(&mut cache, now, ttl_s, CACHE_LIMIT);
        for (id, latest) in fetched {
            cache.insert(
                id,
                Timed {
                    at: now,
                    value: Arc::clone(&latest),
                },
            );
            found.insert(id, latest);
        }
        Ok(found)
    }
}

fn invalid(message: &str) -> SourceError {
    SourceError::InvalidResponse(format!("{SERVICE}: {message}"))
}

fn results<'a>(doc: &'a Json, what: &str) -> Result<&'a Vec<Json>, SourceError> {
    doc.get("results")
        .and_then(Json::as_array)
        .ok_or_else(|| invalid(&format!("the {what} answer has no `results` list")))
}

#[async_trait]
impl AirQualitySource for OpenAq {
    fn info(&self) -> SourceInfo {
        SourceInfo {
            attribution: Some(
                "Measurements from OpenAQ (openaq.org) and its data providers; licences vary by \
                 provider"
                    .to_owned(),
            ),
            ..SourceInfo::real(NAME)
        }
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        if queries.is_empty() {
            return Ok(Vec::new());
        }
        let cells: HashSet<Cell> = queries.iter().map(|q| self.cell(q.position)).collect();
        let by_cell = self.locations_for(&cells).await?;

        // Each query's nearest stations within the radius, nearest first.
        let mut chosen: Vec<Vec<(f64, &Location)>> = Vec::with_capacity(queries.len());
        let mut needed = HashSet::new();
        for q in queries {
            let mut near: Vec<(f64, &Location)> = by_cell
                .get(&self.cell(q.position))
                .map(|l| l.as_slice())
                .unwrap_or_default()
                .iter()
                .map(|l| (l.position.distance_m(q.position), l))
                .filter(|(d, _)| *d <= self.config.idw.radius_m)
                .collect();
            near.sort_by(|a, b| a.0.total_cmp(&b.0));
            near.truncate(self.config.idw.neighbours);
            needed.extend(near.iter().map(|(_, l)| l.id));
            chosen.push(near);
        }
        let latest = self.latest_for(needed).await?;

        let max_age = i64::try_from(self.config.max_age_s).unwrap_or(i64::MAX);
        Ok(queries
            .iter()
            .zip(&chosen)
            .map(|(q, near)| {
                let t = q.time.timestamp();
                let mut acc = [Accumulator::default(); N_VARS];
                for &(distance, location) in near {
                    let Some(values) = latest.get(&location.id) else {
                        continue;
                    };
                    // Per pollutant, the station's most recent usable value.
                    let mut best: [Option<(i64, f64)>; N_VARS] = [None; N_VARS];
                    for (sensor, pollutant, unit) in &location.sensors {
                        let Some(&(time, raw)) = values.get(sensor) else {
                            continue;
                        };
                        if raw < 0.0 || time > t || t - time > max_age {
                            continue;
                        }
                        let Some(ug) = to_ug_m3(*pollutant, unit, raw) else {
                            continue;
                        };
                        let slot = &mut best[Values::pollutant_index(*pollutant)];
                        if slot.is_none_or(|(bt, _)| time > bt) {
                            *slot = Some((time, ug));
                        }
                    }
                    for (a, b) in acc.iter_mut().zip(best) {
                        if let Some((_, v)) = b {
                            a.add(distance, v, self.config.idw.power);
                        }
                    }
                }
                let mut v = Values::MISSING;
                for (o, a) in v.0.iter_mut().zip(acc) {
                    *o = a.value().unwrap_or(f64::NAN);
                }
                v.air_sample(&self.config.bands)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU16, Ordering};

    use aq_core::runtime::FixedClock;
    use chrono::{TimeZone, Utc};
    use serde_json::json;

    use super::*;
    use crate::conformance::{self, Expectations};
    use crate::test_server::{Reply, Request, TestServer, dead_base_url};

    fn clock() -> Arc<dyn Clock> {
        Arc::new(FixedClock::new(t0()))
    }

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap()
    }

    fn q(lon: f64, lat: f64, t: DateTime<Utc>) -> SampleQuery {
        SampleQuery {
            position: Position::new(lon, lat).unwrap(),
            time: t,
        }
    }

    fn sensor(id: u64, pid: u32, name: &str, units: &str) -> Json {
        json!({"id": id, "name": format!("{name} {units}"),
               "parameter": {"id": pid, "name": name, "units": units, "displayName": name}})
    }

    fn location(id: u64, lat: f64, lon: f64, sensors: Vec<Json>) -> Json {
        json!({"id": id, "name": format!("station {id}"), "locality": null, "timezone": "Europe/Berlin",
               "country": {"id": 50, "code": "DE", "name": "Germany"},
               "owner": {"id": 4, "name": "Unknown Governmental Organization"},
               "provider": {"id": 70, "name": "EEA"}, "isMobile": false, "isMonitor": true,
               "instruments": [{"id": 2, "name": "Government Monitor"}],
               "sensors": sensors, "coordinates": {"latitude": lat, "longitude": lon},
               "licenses": null, "bounds": [lon, lat, lon, lat], "distance": null,
               "datetimeFirst": null, "datetimeLast": null})
    }

    fn latest(sensor: u64, location: u64, value: Json, at: DateTime<Utc>) -> Json {
        json!({"datetime": {"utc": at.to_rfc3339(), "local": at.to_rfc3339()}, "value": value,
               "coordinates": {"latitude": 52.5, "longitude": 13.4},
               "sensorsId": sensor, "locationsId": location})
    }

    fn page(results: Vec<Json>) -> String {
        json!({"meta": {"name": "openaq-api", "website": "/", "page": 1, "limit": 100, "found": results.len()},
               "results": results})
        .to_string()
    }

    /// Two stations in Berlin, about 1.7 km apart. Station 101 measures PM2.5 in µg/m³, NO₂ in
    /// ppm and O₃ (negative: a fault); station 102 measures PM2.5 with the Greek mu, three
    /// hours before station 101 reported. A station without coordinates and one with only
    /// unknown parameters are ignored.
    fn fixture(req: &Request) -> Reply {
        match req.path.as_str() {
            "/v3/locations" => {
                let coords = req.param("coordinates").unwrap();
                let (lat, lon) = coords.split_once(',').unwrap();
                let (lat, lon): (f64, f64) = (lat.parse().unwrap(), lon.parse().unwrap());
                if (lat - 52.52).abs() > 0.5 || (lon - 13.40).abs() > 0.5 {
                    return Reply::json(page(vec![]));
                }
                let mut nowhere = location(103, 0.0, 0.0, vec![sensor(3001, 2, "pm25", "µg/m³")]);
                nowhere["coordinates"] = json!({"latitude": null, "longitude": null});
                Reply::json(page(vec![
                    location(
                        101,
                        52.52,
                        13.40,
                        vec![
                            sensor(1001, 2, "pm25", "µg/m³"),
                            sensor(1002, 7, "no2", "ppm"),
                            sensor(1003, 3, "o3", "µg/m³"),
                        ],
                    ),
                    location(
                        102,
                        52.535,
                        13.41,
                        vec![sensor(2001, 2, "pm25", "\u{03BC}g/m³")],
                    ),
                    nowhere,
                    location(
                        104,
                        52.52,
                        13.40,
                        vec![sensor(4001, 98, "relativehumidity", "%")],
                    ),
                ]))
            }
            "/v3/locations/101/latest" => Reply::json(page(vec![
                latest(1001, 101, json!(12.0), t0()),
                latest(1002, 101, json!(0.02), t0()),
                latest(1003, 101, json!(-999.0), t0()),
            ])),
            "/v3/locations/102/latest" => Reply::json(page(vec![latest(
                2001,
                102,
                json!(30.0),
                t0() - chrono::Duration::hours(3),
            )])),
            _ => Reply::status(404, r#"{"detail":"Not Found"}"#),
        }
    }

    fn source(base_url: &str) -> OpenAq {
        OpenAq::new(
            OpenAqConfig {
                base_url: base_url.to_owned(),
                api_key: "test-key".to_owned(),
                timeout_ms: 2_000,
                ..OpenAqConfig::default()
            },
            clock(),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn cached_answers_expire_by_the_clock() {
        let server = TestServer::start(fixture).await;
        let clock = Arc::new(FixedClock::new(t0()));
        let s = OpenAq::new(
            OpenAqConfig {
                base_url: server.base_url.clone(),
                api_key: "k".into(),
                ..OpenAqConfig::default()
            },
            clock.clone(),
        )
        .unwrap();
        let query = [q(13.40, 52.52, t0())];
        let asked = |path: &str| server.requests().iter().filter(|r| r.path == path).count();
        let (locations, latest) = ("/v3/locations", "/v3/locations/101/latest");
        s.sample(&query).await.unwrap();
        s.sample(&query).await.unwrap();
        assert_eq!((asked(locations), asked(latest)), (1, 1));
        // Latest values keep ten minutes, station lists six hours.
        clock.advance(chrono::Duration::minutes(10));
        s.sample(&query).await.unwrap();
        assert_eq!((asked(locations), asked(latest)), (1, 2));
        clock.advance(chrono::Duration::hours(6));
        s.sample(&query).await.unwrap();
        assert_eq!((asked(locations), asked(latest)), (2, 3));
    }

    fn get(s: Option<AirSample>, p: Pollutant) -> Option<f64> {
        s.unwrap()
            .concentrations
            .unwrap()
            .get(p)
            .map(Concentration::ug_m3)
    }

    #[tokio::test]
    async fn latest_values_near_a_point_are_weighted_converted_and_filtered() {
        let server = TestServer::start(fixture).await;
        let s = source(&server.base_url);
        let half = t0() + chrono::Duration::minutes(30);
        let answers = s
            .sample(&[
                q(13.40, 52.52, half),
                q(13.405, 52.527, half),
                q(13.40, 52.52, t0() + chrono::Duration::hours(2)),
                q(13.40, 52.52, t0() - chrono::Duration::minutes(181)),
                q(
                    13.40,
                    52.52,
                    t0() + chrono::Duration::hours(3) + chrono::Duration::minutes(1),
                ),
                q(20.0, 40.0, half),
            ])
            .await
            .unwrap();
        // At station 101 itself: its own PM2.5; 0.02 ppm of NO₂ is about 37.6 µg/m³; the
        // negative ozone is dropped.
        assert_eq!(get(answers[0], Pollutant::Pm25), Some(12.0));
        assert!((get(answers[0], Pollutant::No2).unwrap() - 37.63).abs() < 0.01);
        assert_eq!(get(answers[0], Pollutant::O3), None);
        // Near station 102 at 08:30 its value is 3.5 h old, past the 3 h limit: only station
        // 101's counts.
        assert_eq!(get(answers[1], Pollutant::Pm25), Some(12.0));
        // Two hours on, still fresh.
        assert!(answers[2].is_some());
        // Before every measurement, or more than 3 hours after the last: nothing usable.
        assert!(answers[3].is_none());
        assert!(answers[4].is_none());
        // No station near.
        assert!(answers[5].is_none());

        let requests = server.requests();
        assert!(
            requests
                .iter()
                .all(|r| r.header("x-api-key") == Some("test-key"))
        );
        let lookups: Vec<_> = requests
            .iter()
            .filter(|r| r.path == "/v3/locations")
            .collect();
        assert_eq!(lookups.len(), 3, "one per grid cell");
        assert!(lookups.iter().all(|r| r.param("radius") == Some("25000")));
        // Lookups run concurrently, so they arrive in any order: each must name one of the
        // queried places, latitude first.
        for lookup in &lookups {
            let coordinates = lookup.param("coordinates").unwrap();
            let (lat, lon) = coordinates.split_once(',').unwrap();
            let (lat, lon): (f64, f64) = (lat.parse().unwrap(), lon.parse().unwrap());
            assert!(
                [(13.40, 52.52), (13.405, 52.527), (20.0, 40.0)]
                    .iter()
                    .any(|&(q_lon, q_lat)| (q_lat - lat).abs() < 0.01 && (q_lon - lon).abs() < 0.01),
                "latitude first, then longitude, of a queried place: {coordinates}"
            );
        }
        // 104 has no known parameter, 103 no position: only 101 and 102 are read.
        let mut latest: Vec<_> = requests
            .iter()
            .filter(|r| r.path.ends_with("/latest"))
            .map(|r| r.path.clone())
            .collect();
        latest.sort();
        assert_eq!(
            latest,
            ["/v3/locations/101/latest", "/v3/locations/102/latest"]
        );
    }

    #[tokio::test]
    async fn a_fresh_neighbour_is_weighted_in() {
        let server = TestServer::start(fixture).await;
        let s = source(&server.base_url);
        // At 07:00 station 102's 05:00 value is 2 h old, and 101's 08:00 value lies in the future.
        let a = s
            .sample(&[q(13.41, 52.535, t0() - chrono::Duration::hours(1))])
            .await
            .unwrap();
        assert_eq!(get(a[0], Pollutant::Pm25), Some(30.0));
        // Halfway between them at 08:00, both count (102's is exactly 3 h old).
        let a = s.sample(&[q(13.405, 52.5275, t0())]).await.unwrap();
        let pm = get(a[0], Pollutant::Pm25).unwrap();
        assert!(pm > 12.0 && pm < 30.0, "{pm}");
    }

    #[test]
    fn units_convert() {
        assert_eq!(to_ug_m3(Pollutant::Pm25, "μg/m³", 5.0), Some(5.0));
        assert_eq!(to_ug_m3(Pollutant::Co, "mg/m³", 0.5), Some(500.0));
        assert!((to_ug_m3(Pollutant::O3, "ppb", 50.0).unwrap() - 98.16).abs() < 0.01);
        assert_eq!(to_ug_m3(Pollutant::Pm10, "ppm", 5.0), None);
        assert_eq!(to_ug_m3(Pollutant::Pm10, "particles/cm³", 5.0), None);
    }

    #[tokio::test]
    async fn errors_say_what_happened() {
        let status = Arc::new(AtomicU16::new(401));
        let st = Arc::clone(&status);
        let server = TestServer::start(move |_| {
            Reply::status(
                st.load(Ordering::SeqCst),
                r#"{"detail":"Invalid credentials"}"#,
            )
        })
        .await;
        let s = source(&server.base_url);
        let e = s.sample(&[q(13.4, 52.52, t0())]).await.unwrap_err();
        assert!(
            matches!(&e, SourceError::Refused(m) if m.contains("API key") && m.contains("Invalid credentials")),
            "{e}"
        );
        status.store(503, Ordering::SeqCst);
        let e = s.sample(&[q(13.4, 52.52, t0())]).await.unwrap_err();
        assert!(
            matches!(&e, SourceError::Unavailable(m) if m.contains("503")),
            "{e}"
        );
        status.store(200, Ordering::SeqCst);
        let e = s.sample(&[q(13.4, 52.52, t0())]).await.unwrap_err();
        assert!(
            matches!(&e, SourceError::InvalidResponse(m) if m.contains("`results`")),
            "{e}"
        );

        let slow = TestServer::start(|r| fixture(r).after(Duration::from_secs(3))).await;
        let s = OpenAq::new(
            OpenAqConfig {
                base_url: slow.base_url.clone(),
                api_key: "k".into(),
                timeout_ms: 200,
                ..OpenAqConfig::default()
            },
            clock(),
        )
        .unwrap();
        assert_eq!(
            s.sample(&[q(13.4, 52.52, t0())]).await,
            Err(SourceError::Timeout)
        );
        let dead = source(&dead_base_url().await);
        let e = dead.sample(&[q(13.4, 52.52, t0())]).await.unwrap_err();
        assert!(
            matches!(&e, SourceError::Unavailable(m) if m.contains("cannot be reached")),
            "{e}"
        );
    }

    #[test]
    fn configuration_is_checked() {
        let ok = OpenAqConfig {
            api_key: "k".into(),
            ..OpenAqConfig::default()
        };
        assert!(OpenAq::new(ok.clone(), clock()).is_ok());
        let e = OpenAq::new(
            OpenAqConfig {
                api_key: " ".into(),
                ..ok.clone()
            },
            clock(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("api_key is required"), "{e}");
        let e = OpenAq::new(
            OpenAqConfig {
                idw: IdwConfig {
                    radius_m: 30_000.0,
                    ..ok.idw
                },
                ..ok.clone()
            },
            clock(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("25000"), "{e}");
        let e = OpenAq::new(
            OpenAqConfig {
                base_url: "ftp://x".into(),
                ..ok
            },
            clock(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("http://"), "{e}");
        // The key stays out of debug output.
        let s = OpenAq::new(
            OpenAqConfig {
                api_key: "secret".into(),
                ..OpenAqConfig::default()
            },
            clock(),
        )
        .unwrap();
        assert!(!format!("{s:?}").contains("secret"));
    }

    #[tokio::test]
    async fn conforms_to_the_port() {
        let server = TestServer::start(fixture).await;
        let s = source(&server.base_url);
        conformance::check_air_quality(
            &s,
            &Expectations {
                covered: vec![
                    q(13.40, 52.52, t0()),
                    q(13.41, 52.535, t0() - chrono::Duration::hours(1)),
                    q(13.45, 52.50, t0() + chrono::Duration::hours(1)),
                ],
                uncovered: vec![
                    q(13.40, 52.52, t0() - chrono::Duration::hours(4)),
                    q(20.0, 40.0, t0()),
                    q(13.40, 52.52, t0() + chrono::Duration::hours(5)),
                ],
            },
        )
        .await;
    }
}
