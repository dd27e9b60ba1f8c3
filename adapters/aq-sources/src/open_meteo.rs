//! The Open-Meteo air-quality API: hourly CAMS model values on a grid, for the past months and
//! the next days, with pollen in Europe during the season.
//!
//! One request asks for many grid cells at once (Open-Meteo takes comma-separated latitudes and
//! longitudes and answers with a list), for the hours the batch needs, with
//! `timeformat=unixtime` so that times are unambiguous UTC seconds. Variables requested:
//! `pm10`, `pm2_5`, `nitrogen_dioxide`, `ozone`, `sulphur_dioxide`, `carbon_monoxide` (µg/m³,
//! the micro sign accepted as U+00B5 or U+03BC) and the six pollen variables (grains/m³), one
//! per [`Plant`], kept as plants and aggregated into types as
//!
//! | type | Open-Meteo variables |
//! |---|---|
//! | tree | `alder_pollen` + `birch_pollen` + `olive_pollen` |
//! | grass | `grass_pollen` |
//! | weed | `mugwort_pollen` + `ragweed_pollen` |
//!
//! (a sum over the variables that have a value; missing when none has:
//! [`aq_core::plant::type_sums`]). The tree sum is a lower bound of the tree pollen in the air:
//! the model forecasts only these three species. A day's plants ([`aq_core::PlantDay`]) are the
//! daily means of their own variables. A query is answered with
//! its grid cell's value at the nearest whole hour. `null`s and absent variables mean not
//! measured; a cell and hour with no pollutant that has an EAQI band is not covered, as is any
//! hour outside the window the API serves (see [`OpenMeteoConfig::past_days`]).
//!
//! Answers are cached per grid cell and hour for [`OpenMeteoConfig::cache_ttl_s`], so a route's
//! many samples in one cell, or the alert pipeline asking again, cost no further requests.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use futures::{StreamExt, TryStreamExt, stream};
use serde::{Deserialize, Serialize};

use aq_core::civil::CivilDays;
use aq_core::pollen_day::daily_means;
use aq_core::{
    AirQualitySource, AirSample, EaqiBands, ForecastSource, GrainThresholds, HourlyCi,
    HourlyConcentrations, Plant, PollenDays, PollenOutlook, Pollutant, Position, Provenance,
    SampleQuery, SourceError, SourceInfo, SourceReach,
};
use runtime_core::Clock;

use crate::cache::TimedCache;
use crate::grid::{Cell, Grid};
use crate::http::{self, ConfigError};
use crate::values::{CellHour, Values};

const NAME: &str = "open-meteo";

/// What the source says of the model runs behind its hours: an answer of Open-Meteo's
/// air-quality API holds times and values only and names no run, and a run read from anywhere
/// else might not be the one the values came from.
pub const UNNAMED_RUN: &str = "Open-Meteo's air-quality answers do not name the model run \
     their values come from, so the run cannot be given.";

/// The most days after today for which Open-Meteo gives pollen for whole days. Its pollen comes
/// from the CAMS European air-quality forecast, which runs once a day from 00 UTC for 96 hours:
/// day 3 after today is the last whole civil day in Europe, and a rule looking 4 days ahead
/// would never find a day to compare.
pub const POLLEN_FORECAST_DAYS: u32 = 3;

/// Why [`POLLEN_FORECAST_DAYS`] is what it is, for refusals that must say so.
pub const POLLEN_FORECAST_REASON: &str = "Open-Meteo's pollen comes from the CAMS European \
     forecast, which runs 96 hours ahead from 00 UTC each day";
const SERVICE: &str = "Open-Meteo";

/// How the [`OpenMeteo`] source talks to the API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OpenMeteoConfig {
    /// Where the API is; `/v1/air-quality` is appended. Default
    /// `https://air-quality-api.open-meteo.com` (the free, non-commercial endpoint).
    pub base_url: String,
    /// Timeout of one request, connection to last byte, in milliseconds. Default 10,000.
    pub timeout_ms: u64,
    /// The cache's grid, in degrees: queries in one cell share one answer. Default 0.1, the
    /// resolution of the CAMS European model behind the API (the global model is coarser).
    pub cell_deg: f64,
    /// At most this many grid cells in one request; more cells make more requests. Default 50,
    /// which keeps the URL well under common length limits.
    pub max_locations_per_request: usize,
    /// At most this many requests in flight for one batch. Default 4.
    pub concurrency: usize,
    /// How long a cached cell-hour is reused, in seconds. Default 3,600: the model is updated a
    /// few times a day.
    pub cache_ttl_s: u64,
    /// At most about this many cell-hours are kept; when full, each new one evicts the one
    /// least likely to be asked for again. Default 500,000 (some 85 MB: each cell-hour holds
    /// the six plants' pollen beside the quantities).
    pub cache_capacity: usize,
    /// Hours further back than this many days are not covered (no request is made). Default 92,
    /// the API's limit for `past_days`.
    pub past_days: u32,
    /// Hours further ahead than this many days are not covered. Default 7, the API's longest
    /// forecast.
    pub forecast_days: u32,
    /// The bands that turn concentrations into a CI (EAQI 2024 by default).
    pub bands: EaqiBands,
    /// The grain-count thresholds for pollen levels (NAB-based by default).
    pub pollen: GrainThresholds,
}

impl Default for OpenMeteoConfig {
    fn default() -> Self {
        Self {
            base_url: "https://air-quality-api.open-meteo.com".to_owned(),
            timeout_ms: 10_000,
            cell_deg: 0.1,
            max_locations_per_request: 50,
            concurrency: 4,
            cache_ttl_s: 3_600,
            cache_capacity: 500_000,
            past_days: 92,
            forecast_days: 7,
            bands: EaqiBands::default(),
            pollen: GrainThresholds::default(),
        }
    }
}

/// Grid-cell row, grid-cell column, hours since the epoch.
type Key = (i32, i32, i64);

/// The Open-Meteo source. See the [module documentation](self).
///
/// ```
/// use std::sync::Arc;
///
/// use runtime_core::FixedClock;
/// use aq_sources::{OpenMeteo, OpenMeteoConfig};
/// use chrono::{TimeZone, Utc};
///
/// let clock = Arc::new(FixedClock::new(Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap()));
/// let source = OpenMeteo::new(OpenMeteoConfig::default(), clock.clone()).unwrap();
/// assert_eq!(aq_core::AirQualitySource::info(&source).name, "open-meteo");
/// let bad = OpenMeteoConfig { cell_deg: 0.0, ..OpenMeteoConfig::default() };
/// assert!(OpenMeteo::new(bad, clock).is_err());
/// ```
pub struct OpenMeteo {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    config: OpenMeteoConfig,
    grid: Grid,
    cache: TimedCache<Key, CellHour>,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for OpenMeteo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenMeteo")
            .field("endpoint", &self.endpoint.as_str())
            .finish_non_exhaustive()
    }
}

const POLLUTANT_VARS: [(&str, Pollutant); 6] = [
    ("pm2_5", Pollutant::Pm25),
    ("pm10", Pollutant::Pm10),
    ("nitrogen_dioxide", Pollutant::No2),
    ("ozone", Pollutant::O3),
    ("sulphur_dioxide", Pollutant::So2),
    ("carbon_monoxide", Pollutant::Co),
];

const POLLEN_VARS: [(&str, Plant); 6] = [
    ("alder_pollen", Plant::Alder),
    ("birch_pollen", Plant::Birch),
    ("olive_pollen", Plant::Olive),
    ("grass_pollen", Plant::Grass),
    ("mugwort_pollen", Plant::Mugwort),
    ("ragweed_pollen", Plant::Ragweed),
];

impl OpenMeteo {
    /// A source with `config`, reading "now" from `clock`: it decides which hours the API
    /// serves and how old a cached answer is.
    ///
    /// # Errors
    /// [`ConfigError`] when the base URL is not an http(s) URL or a number is out of range.
    pub fn new(config: OpenMeteoConfig, clock: Arc<dyn Clock>) -> Result<Self, ConfigError> {
        let endpoint = http::endpoint(NAME, &config.base_url, "/v1/air-quality")?;
        let grid = Grid::new(NAME, config.cell_deg, 5.0, 0.1)?;
        if config.max_locations_per_request == 0 || config.concurrency == 0 {
            return Err(ConfigError::new(
                NAME,
                "max_locations_per_request and concurrency must be at least 1",
            ));
        }
        if config.timeout_ms == 0 {
            return Err(ConfigError::new(
                NAME,
                "timeout_ms must be at least 1, such as 10000",
            ));
        }
        config
            .bands
            .validate()
            .map_err(|e| ConfigError::new(NAME, e.to_string()))?;
        let client = http::client(Duration::from_millis(config.timeout_ms), NAME)?;
        let cache = TimedCache::new(config.cache_capacity, config.cache_ttl_s);
        Ok(Self {
            client,
            endpoint,
            config,
            grid,
            cache,
            clock,
        })
    }

    /// The hour a query at `t` reads: the nearest whole hour.
    fn hour_read(t: DateTime<Utc>) -> DateTime<Utc> {
        let hour = (t.timestamp() + 1800).div_euclid(3600) * 3600;
        DateTime::from_timestamp(hour, 0).unwrap_or(t)
    }

    fn key(&self, p: Position, t: DateTime<Utc>) -> Key {
        self.key_at(p, t.timestamp())
    }

    /// [`OpenMeteo::key`] of a time in seconds since the epoch.
    fn key_at(&self, p: Position, t: i64) -> Key {
        let (row, col) = self.grid.cell(p);
        // The nearest whole hour: 08:29 reads 08:00, 08:30 reads 09:00.
        let hour = (t + 1800).div_euclid(3600);
        (row, col, hour)
    }

    /// The values of every key, from the cache or fetched in as few requests as the
    /// configuration allows.
    async fn lookup(&self, keys: &[Key]) -> Result<HashMap<Key, CellHour>, SourceError> {
        let now = self.clock.now();
        let mut found = HashMap::with_capacity(keys.len());
        let mut wanted: BTreeMap<Cell, (i64, i64)> = BTreeMap::new();
        let now_hour = now.timestamp().div_euclid(3600);
        let first = now_hour - i64::from(self.config.past_days) * 24;
        let last = now_hour + i64::from(self.config.forecast_days) * 24;
        for &key in keys {
            if found.contains_key(&key) {
                continue;
            }
            match self.cache.get_fresh(&key, now) {
                Some(v) => {
                    found.insert(key, v);
                }
                None if key.2 < first || key.2 > last => {
                    found.insert(key, CellHour::MISSING);
                }
                None => {
                    let range = wanted.entry((key.0, key.1)).or_insert((key.2, key.2));
                    range.0 = range.0.min(key.2);
                    range.1 = range.1.max(key.2);
                }
            }
        }
        if wanted.is_empty() {
            return Ok(found);
        }
        let cells: Vec<(Cell, (i64, i64))> = wanted.into_iter().collect();
        let chunks: Vec<Vec<(Cell, (i64, i64))>> = cells
            .chunks(self.config.max_locations_per_request)
            .map(<[_]>::to_vec)
            .collect();
        let fetched: Vec<Vec<(Key, CellHour)>> = stream::iter(chunks)
            .map(|chunk| self.fetch(chunk))
            .buffer_unordered(self.config.concurrency)
            .try_collect()
            .await?;

        for (key, values) in fetched.into_iter().flatten() {
            found.entry(key).or_insert(values);
            self.cache.insert(key, now, values);
        }
        Ok(found)
    }

    /// One request for `chunk`'s cells over the union of their hour ranges; every hour of the
    /// range comes back, missing ones as [`CellHour::MISSING`].
    async fn fetch(
        &self,
        chunk: Vec<(Cell, (i64, i64))>,
    ) -> Result<Vec<(Key, CellHour)>, SourceError> {
        let start = chunk.iter().map(|c| c.1.0).min().unwrap_or(0);
        let end = chunk.iter().map(|c| c.1.1).max().unwrap_or(0);
        let (mut lats, mut lons) = (Vec::new(), Vec::new());
        for &(cell, _) in &chunk {
            let (lat, lon) = self.grid.centre(cell);
            lats.push(format!("{lat:.4}"));
            lons.push(format!("{lon:.4}"));
        }
        let hour_text = |h: i64| {
            DateTime::<Utc>::from_timestamp(h * 3600, 0)
                .map(|t| t.format("%Y-%m-%dT%H:%M").to_string())
                .unwrap_or_default()
        };
        let hourly: Vec<&str> = POLLUTANT_VARS
            .iter()
            .map(|v| v.0)
            .chain(POLLEN_VARS.iter().map(|v| v.0))
            .collect();
        let mut url = self.endpoint.clone();
        url.query_pairs_mut()
            .append_pair("latitude", &lats.join(","))
            .append_pair("longitude", &lons.join(","))
            .append_pair("hourly", &hourly.join(","))
            .append_pair("timeformat", "unixtime")
            .append_pair("timezone", "GMT")
            .append_pair("start_hour", &hour_text(start))
            .append_pair("end_hour", &hour_text(end));
        let body = http::get_body(self.client.get(url), SERVICE, &self.config.base_url).await?;
        let locations = answer::read_values(&body, chunk.len())?;
        let mut out = Vec::new();
        for (&(cell, _), by_hour) in chunk.iter().zip(locations) {
            for hour in start..=end {
                let values = by_hour.get(&hour).copied().unwrap_or(CellHour::MISSING);
                out.push(((cell.0, cell.1, hour), values));
            }
        }
        Ok(out)
    }

    /// One entry per position, each with one value per hour from `start`, read by `value`
    /// from that hour's values.
    /// The values at each position for the hours `start` reads and the `hours` after it.
    async fn hourly<T>(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
        value: impl Fn(&Values) -> Option<T>,
    ) -> Result<Vec<Vec<Option<T>>>, SourceError> {
        let keys: Vec<Key> = positions
            .iter()
            .flat_map(|&p| {
                (0..=i64::from(hours)).map(move |h| self.key(p, start + chrono::Duration::hours(h)))
            })
            .collect();
        let found = self.lookup(&keys).await?;
        let per = hours as usize + 1;
        Ok(keys
            .chunks(per)
            .map(|ks| {
                ks.iter()
                    .map(|k| found.get(k).and_then(|h| value(&h.values)))
                    .collect()
            })
            .collect())
    }

    async fn pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        let civil: Vec<CivilDays> = positions
            .iter()
            .map(|&p| CivilDays::outlook(p, at, days))
            .collect();
        let days = self.civil_days(positions, &civil).await?;
        Ok(days
            .into_iter()
            .map(|d| PollenOutlook::from_days(&d?.days))
            .collect())
    }

    /// Each position's `civil` days, from one lookup of all their hours.
    async fn civil_days(
        &self,
        positions: &[Position],
        civil: &[CivilDays],
    ) -> Result<Vec<Option<PollenDays>>, SourceError> {
        let mut keys = Vec::new();
        for (&p, c) in positions.iter().zip(civil) {
            for k in 0..c.len() {
                keys.extend(c.hours(k).map(|t| self.key_at(p, t)));
            }
        }
        let found = self.lookup(&keys).await?;
        Ok(positions
            .iter()
            .zip(civil)
            .map(|(&p, c)| {
                let means = daily_means(c, &self.config.pollen, |t| {
                    let values = found.get(&self.key_at(p, t)).copied();
                    (values.unwrap_or(CellHour::MISSING).pollen_counts(), ())
                })?;
                Some(
                    PollenDays::new(means.days)
                        .with_provenance(Provenance::unnamed_runs(UNNAMED_RUN)),
                )
            })
            .collect())
    }
}

fn info() -> SourceInfo {
    SourceInfo {
        attribution: Some(
            "Air quality and pollen from Open-Meteo.com (CC BY 4.0), based on Copernicus \
             Atmosphere Monitoring Service (CAMS) forecasts"
                .to_owned(),
        ),
        ..SourceInfo::real(NAME)
    }
}

#[async_trait]
impl AirQualitySource for OpenMeteo {
    fn info(&self) -> SourceInfo {
        info()
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        let keys: Vec<Key> = queries
            .iter()
            .map(|q| self.key(q.position, q.time))
            .collect();
        let found = self.lookup(&keys).await?;
        Ok(keys
            .iter()
            .map(|k| {
                found
                    .get(k)
                    .and_then(|h| h.values.air_sample(&self.config.bands))
            })
            .collect())
    }
}

#[async_trait]
impl ForecastSource for OpenMeteo {
    fn info(&self) -> SourceInfo {
        info()
    }

    /// The CI of the hour nearest `start` and the hours after it; the series starts at that
    /// hour, the time of the value read.
    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let bands = &self.config.bands;
        Ok(self
            .hourly(positions, start, hours, |v| v.ci(bands))
            .await?
            .into_iter()
            .map(|values| {
                HourlyCi::covered(Self::hour_read(start), values)
                    .map(|s| s.with_provenance(Provenance::unnamed_runs(UNNAMED_RUN)))
            })
            .collect())
    }

    /// The concentrations of the hours that have a CI, those the CI was derived from.
    async fn hourly_concentrations(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
        let bands = &self.config.bands;
        Ok(self
            .hourly(positions, start, hours, |v| {
                v.air_sample(bands).and_then(|s| s.concentrations)
            })
            .await?
            .into_iter()
            .map(|values| HourlyConcentrations::covered(Self::hour_read(start), values))
            .collect())
    }

    /// Pollen levels: each civil day's mean of the hourly counts
    /// ([`aq_core::pollen_day::daily_means`]), yesterday included. Not covered where every hour lacks all pollen (outside
    /// Europe, or out of season).
    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        self.pollen(positions, at, days).await
    }

    /// Each civil day's mean count and level, per type and per plant, from the model's hourly
    /// counts; the runs are not named, as for the hours ([`UNNAMED_RUN`]).
    async fn pollen_days(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenDays>>, SourceError> {
        let civil: Vec<CivilDays> = positions
            .iter()
            .map(|&p| CivilDays::from_today(p, at, days))
            .collect();
        self.civil_days(positions, &civil).await
    }

    /// The API's window: [`OpenMeteoConfig::past_days`] back, [`OpenMeteoConfig::forecast_days`]
    /// ahead.
    fn reach(&self) -> SourceReach {
        SourceReach {
            past_hours: Some(self.config.past_days.saturating_mul(24)),
            ahead_hours: Some(self.config.forecast_days.saturating_mul(24)),
        }
    }
}

pub mod answer;
#[cfg(test)]
mod tests;
