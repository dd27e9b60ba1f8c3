//! OpenAQ v3: the latest measurements of monitoring stations near a point.
//!
//! For each query the source finds OpenAQ *locations* (stations) near the point
//! (`GET /v3/locations?coordinates={lat},{lon}&radius={m}&mobile=false`, page by page; OpenAQ
//! takes latitude first and a radius of at most 25 km), keeps the stations that are alive,
//! reads the latest value of each of their *sensors* (`GET /v3/locations/{id}/latest`), and
//! weights the chosen stations' values by inverse distance ([`crate::idw`]). Every request
//! carries the `X-API-Key` header.
//!
//! - *Live stations only*: a station counts for a query when its last measurement
//!   (`datetimeLast`) is within [`OpenAqConfig::max_age_s`] of the query time (or of the time
//!   the list was fetched, for a later query: the list is cached); a station that never
//!   reported, or stopped, is passed over, so dead stations near a point never hide live ones
//!   further away within the radius.
//! - *Reference monitors first*: among live stations within the radius, reference-grade
//!   monitors (`isMonitor`) are taken before low-cost sensors, nearest first, up to
//!   [`IdwConfig::neighbours`]; sensors fill the places monitors leave
//!   ([`OpenAqConfig::prefer_monitors`]).
//! - *No mobile stations*: asked for with `mobile=false` and checked again on `isMobile`, since
//!   a moving station's coordinates say where it was, not where its value applies.
//!
//! - *Parameters by id*: a sensor counts when its parameter id is in
//!   [`OpenAqConfig::parameters`]; by default the ids OpenAQ documents for PM10 (1), PM2.5 (2),
//!   O₃ (3, 10), CO (4, 8), NO₂ (5, 7) and SO₂ (6, 9).
//! - *Units*: each sensor's unit as OpenAQ states it: µg/m³ (either micro sign) and mg/m³ are
//!   scaled, ppm and ppb of a gas are converted at 20 °C and 101.325 kPa, the conditions every
//!   µg/m³ of the project is stated at ([`aq_core::STATED_AT`], those of the European bands the
//!   CI is computed with), and at which a US AQI converts them back;
//!   a value in any other unit is dropped.
//! - *Dropped values*: negative values (instrument offsets, error codes), values measured after
//!   the query time, and values older than [`OpenAqConfig::max_age_s`] before it. OpenAQ gives
//!   measurements, not forecasts, so a query far in the future is not covered.
//!
//! Station lists are cached per small grid cell and latest values per station, so the many
//! samples of a route cost a handful of requests.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use futures::{StreamExt, TryStreamExt, stream};
use serde::{Deserialize, Serialize};

use aq_core::{
    AirQualitySource, AirSample, Concentration, EaqiBands, Pollutant, RequiredPollutants,
    SampleQuery, SourceError, SourceInfo,
};
use runtime_core::Clock;

use self::answers::{Latest, Location, read_latest, read_locations};
use crate::cache::TimedCache;
use crate::grid::{Cell, Grid};
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
    /// At most this many pages of stations per cell. Default 5: 5,000 stations within 25 km
    /// is more than any city has.
    pub locations_max_pages: u32,
    /// Whether reference monitors are taken before low-cost sensors. Default true.
    pub prefer_monitors: bool,
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
    /// The pollutants a point's interpolated values must include for a CI. Default
    /// [`RequiredPollutants::EeaTraffic`] (NO₂ and PM2.5 or PM10), the least the EEA computes
    /// its index from.
    pub required: RequiredPollutants,
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
            locations_max_pages: 5,
            prefer_monitors: true,
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
            required: RequiredPollutants::EeaTraffic,
        }
    }
}

/// The stations in the list, fetched at a time.
#[derive(Debug)]
struct Stations {
    fetched: i64,
    list: Vec<Location>,
}

/// The OpenAQ v3 source. See the [module documentation](self).
///
/// ```
/// use std::sync::Arc;
///
/// use runtime_core::FixedClock;
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
    grid: Grid,
    locations: TimedCache<Cell, Arc<Stations>>,
    /// Station lists of the areas fused sources ask for ([`observed`]).
    areas: TimedCache<observed::AreaKey, Arc<Stations>>,
    latest: TimedCache<u64, Arc<Latest>>,
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

/// Converts a value of `pollutant` in `unit` to µg/m³; `None` for a unit that cannot be. Gases
/// in ppb or ppm are converted at [`aq_core::STATED_AT`].
/// A negative value stays negative: whoever reads it decides what to make of it.
fn to_ug_m3(pollutant: Pollutant, unit: &str, value: f64) -> Option<f64> {
    // µg/m³ per ppb of the gas, by the ideal-gas conversion of the reference conditions.
    let per_ppb = || {
        Concentration::from_ppb(pollutant, 1.0, aq_core::STATED_AT)
            .ok()
            .flatten()
            .map(Concentration::ug_m3)
    };
    match http::normalise_unit(unit).as_str() {
        "µg/m³" => Some(value),
        "mg/m³" => Some(value * 1000.0),
        "ppb" => per_ppb().map(|f| value * f),
        "ppm" => per_ppb().map(|f| value * 1000.0 * f),
        _ => None,
    }
}

/// At most about this many station lists, and as many stations' latest values, are cached;
/// when full, each new answer evicts the one least likely to be asked for again.
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
        let grid = Grid::new(NAME, config.cell_deg, 0.1, 0.01)?;
        if config.concurrency == 0
            || config.locations_limit == 0
            || config.locations_max_pages == 0
            || config.timeout_ms == 0
        {
            return Err(ConfigError::new(
                NAME,
                "concurrency, locations_limit, locations_max_pages and timeout_ms must be at \
                 least 1",
            ));
        }
        config
            .bands
            .validate()
            .map_err(|e| ConfigError::new(NAME, e.to_string()))?;
        let client = http::client(Duration::from_millis(config.timeout_ms), NAME)?;
        let locations = TimedCache::new(CACHE_LIMIT, config.locations_ttl_s);
        let areas = TimedCache::new(CACHE_LIMIT, config.locations_ttl_s);
        let latest = TimedCache::new(CACHE_LIMIT, config.latest_ttl_s);
        Ok(Self {
            client,
            base,
            config,
            grid,
            locations,
            areas,
            latest,
            clock,
        })
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

    async fn fetch_locations(&self, cell: Cell) -> Result<(Cell, Arc<Stations>), SourceError> {
        let lat = (f64::from(cell.0) * self.config.cell_deg).clamp(-90.0, 90.0);
        let lon = (f64::from(cell.1) * self.config.cell_deg).clamp(-180.0, 180.0);
        let half_diagonal = self.config.cell_deg * 111_195.0 * std::f64::consts::FRAC_1_SQRT_2;
        let radius = (self.config.idw.radius_m + half_diagonal)
            .min(MAX_RADIUS_M)
            .ceil();
        let mut out = Vec::new();
        for page in 1..=self.config.locations_max_pages {
            let mut url = self.url("locations")?;
            url.query_pairs_mut()
                .append_pair("coordinates", &format!("{lat:.5},{lon:.5}"))
                .append_pair("radius", &format!("{radius:.0}"))
                .append_pair("mobile", "false")
                .append_pair("limit", &self.config.locations_limit.to_string())
                .append_pair("page", &page.to_string());
            let body = http::get_body(self.request(url), SERVICE, &self.config.base_url).await?;
            let page = read_locations(&body, &self.config.parameters)?;
            out.extend(page.usable);
            // A short page is the last one.
            if page.listed < self.config.locations_limit as usize {
                break;
            }
        }
        let stations = Stations {
            fetched: self.clock.now().timestamp(),
            list: out,
        };
        Ok((cell, Arc::new(stations)))
    }

    async fn fetch_latest(&self, location: u64) -> Result<(u64, Arc<Latest>), SourceError> {
        let url = self.url(&format!("locations/{location}/latest"))?;
        let Some(body) = http::get_found(self.request(url), SERVICE, &self.config.base_url).await?
        else {
            return Ok((location, Arc::new(Latest::new())));
        };
        let latest = read_latest(&body)?;
        Ok((location, Arc::new(latest)))
    }

    /// Fresh station lists for every cell, fetching the missing ones.
    async fn locations_for(
        &self,
        cells: &HashSet<Cell>,
    ) -> Result<HashMap<Cell, Arc<Stations>>, SourceError> {
        let now = self.clock.now();
        let fetch = |cell| self.fetch_locations(cell);
        let concurrency = self.config.concurrency;
        cached(
            &self.locations,
            cells.iter().copied(),
            now,
            concurrency,
            fetch,
        )
        .await
    }

    /// Fresh latest values for every station, fetching the missing ones.
    async fn latest_for(
        &self,
        ids: HashSet<u64>,
    ) -> Result<HashMap<u64, Arc<Latest>>, SourceError> {
        let now = self.clock.now();
        let fetch = |id| self.fetch_latest(id);
        cached(&self.latest, ids, now, self.config.concurrency, fetch).await
    }
}

/// The answers for `keys`: fresh ones (by `now`) from `cache`, the others fetched
/// `concurrency` at a time and cached as fetched at `now`.
async fn cached<K, T, F, Fut>(
    cache: &TimedCache<K, Arc<T>>,
    keys: impl IntoIterator<Item = K>,
    now: DateTime<Utc>,
    concurrency: usize,
    fetch: F,
) -> Result<HashMap<K, Arc<T>>, SourceError>
where
    K: std::hash::Hash + Eq + Copy,
    F: Fn(K) -> Fut,
    Fut: Future<Output = Result<(K, Arc<T>), SourceError>>,
{
    let mut found = HashMap::new();
    let mut missing = Vec::new();
    for key in keys {
        match cache.get_fresh(&key, now) {
            Some(value) => {
                found.insert(key, value);
            }
            None => missing.push(key),
        }
    }
    let fetched: Vec<_> = stream::iter(missing)
        .map(fetch)
        .buffer_unordered(concurrency)
        .try_collect()
        .await?;
    for (key, value) in fetched {
        cache.insert(key, now, Arc::clone(&value));
        found.insert(key, value);
    }
    Ok(found)
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
        let cells: HashSet<Cell> = queries.iter().map(|q| self.grid.cell(q.position)).collect();
        let by_cell = self.locations_for(&cells).await?;

        let max_age = i64::try_from(self.config.max_age_s).unwrap_or(i64::MAX);
        // Each query's live stations within the radius, monitors first, then nearest first.
        let mut chosen: Vec<Vec<(f64, &Location)>> = Vec::with_capacity(queries.len());
        let mut needed = HashSet::new();
        for q in queries {
            let stations = by_cell.get(&self.grid.cell(q.position));
            // A later query cannot know of reports made after the list was fetched: a station
            // alive then still counts.
            let since = stations.map_or(0, |s| q.time.timestamp().min(s.fetched)) - max_age;
            let mut near: Vec<(f64, &Location)> = stations
                .map(|s| s.list.as_slice())
                .unwrap_or_default()
                .iter()
                .filter(|l| l.last.is_some_and(|last| last >= since))
                .map(|l| (l.position.distance_m(q.position), l))
                .filter(|(d, _)| *d <= self.config.idw.radius_m)
                .collect();
            let prefer = self.config.prefer_monitors;
            near.sort_by(|a, b| {
                (prefer && !a.1.monitor)
                    .cmp(&(prefer && !b.1.monitor))
                    .then(a.0.total_cmp(&b.0))
            });
            near.truncate(self.config.idw.neighbours);
            needed.extend(near.iter().map(|(_, l)| l.id));
            chosen.push(near);
        }
        let latest = self.latest_for(needed).await?;

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
                v.air_sample_requiring(&self.config.bands, self.config.required)
            })
            .collect())
    }
}

pub mod answers;
mod observed;
#[cfg(test)]
mod tests;
