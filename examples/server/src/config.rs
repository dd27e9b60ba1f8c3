//! The server's settings: each from a command-line flag, else an `INSIGHTS_*` environment
//! variable, else the TOML file named by `--config`, else its default. Every default lets
//! `insights-server` run with no setup at all: SQLite and files under `./insights-data`, the
//! demo air-quality field, listening on 127.0.0.1:8080.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use insights_http::{AllowedOrigins, BodyBudgets, ByteRate, ConnectionLimits};
use serde::Deserialize;
use thiserror::Error;

/// Settings shared by `serve` and `admin`, accepted before or after the subcommand.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct GlobalArgs {
    /// A TOML file with any of these settings (flags and environment variables win over it).
    #[arg(long, env = "INSIGHTS_CONFIG", global = true, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,

    /// Where the embedded default keeps its SQLite database and files [default: ./insights-data].
    #[arg(long, env = "INSIGHTS_DATA_DIR", global = true, value_name = "DIR")]
    pub(crate) data_dir: Option<PathBuf>,

    /// The database: `sqlite://PATH` or `postgres://...` [default: SQLite in the data directory].
    #[arg(long, env = "INSIGHTS_DATABASE_URL", global = true, value_name = "URL")]
    pub(crate) database_url: Option<String>,

    /// Where output files go: `file://DIR` or `s3://BUCKET` (endpoint and credentials from the
    /// usual AWS_* variables) [default: the data directory].
    #[arg(long, env = "INSIGHTS_OBJECT_STORE", global = true, value_name = "URL")]
    pub(crate) object_store: Option<String>,

    /// The address to listen on [default: 127.0.0.1:8080].
    #[arg(long, env = "INSIGHTS_LISTEN", global = true, value_name = "ADDR")]
    pub(crate) listen: Option<SocketAddr>,

    /// The address clients reach this server at, used in file URLs and the dashboard
    /// [default: http:// and the listen address].
    #[arg(long, env = "INSIGHTS_PUBLIC_URL", global = true, value_name = "URL")]
    pub(crate) public_url: Option<String>,

    /// The air-quality source: `demo`, `stations:FILE` (CSV or GeoJSON), `open-meteo` (or
    /// `open-meteo:URL` for another server of its API), `openaq` (key in OPENAQ_API_KEY) or
    /// `cams:DIR` or `cams:s3://BUCKET/PREFIX` (CAMS grids that `insights-server ingest`
    /// writes there; GRIB2 files placed in DIR are ingested too)
    /// [default: demo].
    #[arg(long, env = "INSIGHTS_AQ_SOURCE", global = true, value_name = "SOURCE")]
    pub(crate) aq_source: Option<String>,

    /// Correct the air-quality source's model with station readings, and give every value an
    /// error estimate: `stations:FILE` (CSV or GeoJSON) or `openaq` (key in OPENAQ_API_KEY).
    /// The source must be a model: `cams:...`, `open-meteo` or `demo` [default: none].
    #[arg(
        long,
        env = "INSIGHTS_FUSE_STATIONS",
        global = true,
        value_name = "STATIONS"
    )]
    pub(crate) fuse_stations: Option<String>,

    /// OpenStreetMap extracts (`.osm.pbf`) whose streets add the near-road increment to route
    /// scores, point lookups and street-zoom tiles; repeat the flag for several, or separate
    /// them with commas in INSIGHTS_ROADS [default: none, background air only].
    #[arg(
        long,
        env = "INSIGHTS_ROADS",
        global = true,
        value_name = "FILE",
        value_delimiter = ','
    )]
    pub(crate) roads: Vec<PathBuf>,

    /// Allow webhook URLs on loopback and private networks (link-local addresses and cloud
    /// metadata services stay refused). Without it only loopback is allowed, and only while
    /// the server listens on loopback with no public URL naming another host.
    #[arg(long, env = "INSIGHTS_ALLOW_PRIVATE_WEBHOOKS", global = true, num_args = 0..=1,
          default_missing_value = "true", value_name = "BOOL")]
    pub(crate) allow_private_webhooks: Option<bool>,

    /// Alert jobs this process works on at once; 0 makes an API-only replica that leaves jobs
    /// to others [default: 32].
    #[arg(long, env = "INSIGHTS_WORKERS", global = true, value_name = "N")]
    pub(crate) workers: Option<usize>,

    /// Log as JSON lines instead of text.
    #[arg(long, env = "INSIGHTS_LOG_JSON", global = true, num_args = 0..=1,
          default_missing_value = "true", value_name = "BOOL")]
    pub(crate) log_json: Option<bool>,

    /// Seconds a client has from the first byte of a request to the end of its headers; a
    /// slower client's connection is closed [default: 10].
    #[arg(
        long,
        env = "INSIGHTS_HEADER_TIMEOUT_SECONDS",
        global = true,
        value_name = "SECONDS"
    )]
    pub(crate) header_timeout_seconds: Option<u64>,

    /// Seconds a connection may wait for its next request before it is closed [default: 60].
    #[arg(
        long,
        env = "INSIGHTS_IDLE_TIMEOUT_SECONDS",
        global = true,
        value_name = "SECONDS"
    )]
    pub(crate) idle_timeout_seconds: Option<u64>,

    /// Seconds a request may take before it is answered 503 and its work is dropped
    /// [default: 30].
    #[arg(
        long,
        env = "INSIGHTS_REQUEST_TIMEOUT_SECONDS",
        global = true,
        value_name = "SECONDS"
    )]
    pub(crate) request_timeout_seconds: Option<u64>,

    /// The most connections served at once; more clients wait until one ends [default: 10000].
    #[arg(
        long,
        env = "INSIGHTS_MAX_CONNECTIONS",
        global = true,
        value_name = "N"
    )]
    pub(crate) max_connections: Option<u32>,

    /// Origins whose web pages may call the API (CORS), comma-separated, such as
    /// `https://app.example.org`, or `*` for any [default: none].
    #[arg(
        long,
        env = "INSIGHTS_CORS_ORIGINS",
        global = true,
        value_delimiter = ',',
        value_name = "ORIGINS"
    )]
    pub(crate) cors_origins: Option<Vec<String>>,

    /// Where rate limits are kept so that every replica counts the same requests:
    /// `redis://HOST:PORT`, or `memory` for this process alone [default: the database with
    /// PostgreSQL, this process with SQLite].
    #[arg(long, env = "INSIGHTS_LIMITS_URL", global = true, value_name = "URL")]
    pub(crate) limits_url: Option<String>,

    /// What starts every key of the limits in Redis, so that deployments may share one Redis
    /// [default: insights:limits:].
    #[arg(
        long,
        env = "INSIGHTS_LIMITS_PREFIX",
        global = true,
        value_name = "PREFIX"
    )]
    pub(crate) limits_prefix: Option<String>,

    /// When the shared limit store cannot answer: `open` counts API keys and signed-in
    /// accounts in this process's own limits, `closed` answers 503 with Retry-After. Sign-in
    /// and sign-up attempts are refused either way [default: open].
    #[arg(
        long,
        env = "INSIGHTS_LIMITS_UNAVAILABLE",
        global = true,
        value_name = "open|closed"
    )]
    pub(crate) limits_unavailable: Option<String>,

    /// Fetching CAMS runs from the ADS (`fetch`, `serve --fetch-cams`).
    #[command(flatten)]
    pub(crate) ads: crate::fetch::settings::AdsArgs,
}

/// The same settings as they may appear in the TOML file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileSettings {
    data_dir: Option<PathBuf>,
    database_url: Option<String>,
    object_store: Option<String>,
    listen: Option<SocketAddr>,
    public_url: Option<String>,
    aq_source: Option<String>,
    fuse_stations: Option<String>,
    roads: Option<Vec<PathBuf>>,
    /// How the fused source checks and weighs station readings (`[fusion]`).
    fusion: Option<aq_fusion::FusionConfig>,
    /// The alert rules' thresholds and the defaults of rules that set none (`[alerts]`).
    alerts: Option<alerts_core::evaluate::Thresholds>,
    allow_private_webhooks: Option<bool>,
    log_json: Option<bool>,
    workers: Option<usize>,
    /// Most points in one alert request.
    max_points: Option<usize>,
    /// Most routes in one scoring request.
    max_routes: Option<usize>,
    /// Most extra scorings of a departure window: routes × later departures.
    max_departure_scorings: Option<usize>,
    /// The least RACS gain, in points, that recommends a later departure.
    min_departure_gain: Option<u8>,
    /// Largest request body, in bytes.
    max_body_bytes: Option<usize>,
    /// Largest `custom_data` of one alert point, in bytes of JSON text.
    max_custom_data_bytes: Option<usize>,
    /// Large request bodies parsed at once.
    max_concurrent_parses: Option<usize>,
    /// Requests per second per API key.
    rate_per_second: Option<u32>,
    /// Requests a key may send in a burst above that rate.
    rate_burst: Option<u32>,
    /// Unknown API keys a client network may try a minute.
    unknown_keys_per_network_per_minute: Option<u32>,
    /// MiB of request bodies a second per API key.
    key_body_mib_per_second: Option<u64>,
    /// MiB of request bodies a key may send at once.
    key_body_burst_mib: Option<u64>,
    /// MiB of request bodies a second per client network.
    network_body_mib_per_second: Option<u64>,
    /// MiB of request bodies a client network may send at once.
    network_body_burst_mib: Option<u64>,
    /// How long output files are kept, in hours.
    retention_hours: Option<u64>,
    /// How often a `cams:` source looks for new files and runs, in seconds.
    cams_poll_seconds: Option<u64>,
    /// The most MiB of grid chunks each process keeps in memory (the CAMS grids', or the demo
    /// field's computed blocks).
    cams_cache_mib: Option<u64>,
    /// How long a worker holds a job before another may take it over, in seconds.
    lease_seconds: Option<u64>,
    /// Seconds from a request's first byte to the end of its headers.
    header_timeout_seconds: Option<u64>,
    /// Seconds a connection may wait for its next request.
    idle_timeout_seconds: Option<u64>,
    /// Seconds a request may take.
    request_timeout_seconds: Option<u64>,
    /// Connections served at once.
    max_connections: Option<u32>,
    /// Origins whose web pages may call the API.
    cors_origins: Option<Vec<String>>,
    /// Where rate limits are kept: `redis://...` or `memory`.
    limits_url: Option<String>,
    /// What starts every key of the limits in Redis.
    limits_prefix: Option<String>,
    /// `open` or `closed`: what happens when the limit store cannot answer.
    limits_unavailable: Option<String>,
    /// Most password hashes (dashboard sign-ups and sign-ins) at once in one process.
    max_password_hashes: Option<usize>,
    /// Most jobs of one key that workers hold at once, across replicas.
    per_key_jobs: Option<usize>,
    /// Seconds an accepted alert request may wait for a worker before new ones are refused.
    max_queue_delay_seconds: Option<u64>,
    /// Seconds (a fraction allowed) a key's queue is kept at while it sends more than its
    /// workers take.
    target_queue_delay_seconds: Option<f64>,
    /// Most unfinished alert requests of one key.
    max_pending_per_key: Option<u64>,
    /// Failed deliveries in a row that open a webhook URL's circuit breaker.
    breaker_failures: Option<u32>,
    /// Seconds an open circuit breaker holds deliveries before a probe.
    breaker_cool_down_seconds: Option<u64>,
    /// Most live API keys per account.
    max_keys_per_account: Option<usize>,
    /// Most alert rules per API key.
    max_rules_per_key: Option<usize>,
    /// A basemap tile URL for the dashboard's maps, such as OpenStreetMap's.
    basemap_url: Option<String>,
    /// The attribution the basemap's licence asks for.
    basemap_attribution: Option<String>,
    /// Whether `serve` fetches CAMS runs from the ADS on their schedule.
    fetch_cams: Option<bool>,
    /// How CAMS runs are fetched from the ADS (`[ads]`).
    ads: Option<crate::fetch::settings::AdsFile>,
}

/// The resolved settings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    /// The data directory.
    pub(crate) data_dir: PathBuf,
    /// The database URL.
    pub(crate) database_url: String,
    /// The object-store location.
    pub(crate) object_store: String,
    /// The listen address.
    pub(crate) listen: SocketAddr,
    /// The public base URL, without a trailing slash; `None` means `http://` and the address
    /// the server actually listens on (so that `--listen 127.0.0.1:0` works).
    pub(crate) public_url: Option<String>,
    /// The air-quality source.
    pub(crate) aq_source: String,
    /// The station readings that correct the source's model, if any.
    pub(crate) fuse_stations: Option<String>,
    /// The OpenStreetMap extracts of the near-road increment; none for background air only.
    pub(crate) roads: Vec<PathBuf>,
    /// How they are checked and weighed.
    pub(crate) fusion: aq_fusion::FusionConfig,
    /// The alert rules' thresholds, confidence and default duration and margin.
    pub(crate) thresholds: alerts_core::evaluate::Thresholds,
    /// Whether private networks may receive webhooks.
    pub(crate) allow_private_webhooks: bool,
    /// JSON logs.
    pub(crate) log_json: bool,
    /// Alert jobs this process works on at once.
    pub(crate) workers: usize,
    /// Most jobs of one key held at once, across replicas.
    pub(crate) per_key_jobs: usize,
    /// When new alert requests are refused.
    pub(crate) backpressure: alerts_core::pipeline::Backpressure,
    /// When deliveries to a failing URL wait.
    pub(crate) breaker: alerts_core::breaker::BreakerConfig,
    /// Account limits of the dashboard and the admin command.
    pub(crate) account_limits: AccountLimits,
    /// Most points per alert request.
    pub(crate) max_points: usize,
    /// Most routes per scoring request.
    pub(crate) max_routes: usize,
    /// Most extra scorings of a departure window (routes × later departures).
    pub(crate) max_departure_scorings: usize,
    /// How routes are scored: the defaults, with the least RACS gain that recommends a later
    /// departure as configured.
    pub(crate) racs: racs_core::RacsConfig,
    /// Largest body, in bytes.
    pub(crate) max_body_bytes: usize,
    /// Largest `custom_data` of one point, in bytes.
    pub(crate) max_custom_data_bytes: usize,
    /// Large bodies parsed at once.
    pub(crate) max_concurrent_parses: usize,
    /// Requests per second per key.
    pub(crate) rate_per_second: u32,
    /// Burst size per key.
    pub(crate) rate_burst: u32,
    /// Unknown API keys a client network may try a minute.
    pub(crate) unknown_keys_per_network_per_minute: u32,
    /// Body bytes per key and per client network.
    pub(crate) body_budgets: BodyBudgets,
    /// Output-file retention, in hours.
    pub(crate) retention_hours: u64,
    /// How often a `cams:` source looks for new files and runs.
    pub(crate) cams_poll: Duration,
    /// The most bytes of grid chunks this process keeps in memory (the CAMS grids', or the
    /// demo field's computed blocks).
    pub(crate) cams_cache_bytes: u64,
    /// How long a worker holds a job, in seconds: after a crash, its jobs wait this long
    /// before another worker takes them over.
    pub(crate) lease_seconds: u64,
    /// Timeouts and the connection cap of the HTTP server.
    pub(crate) connections: ConnectionLimits,
    /// The longest a request may take.
    pub(crate) request_timeout: Duration,
    /// The origins whose pages may call the API.
    pub(crate) cors_origins: AllowedOrigins,
    /// Where rate limits are kept.
    pub(crate) limits: LimitsAt,
    /// What starts every key of the limits in Redis.
    pub(crate) limits_prefix: String,
    /// What happens when the shared limit store cannot answer.
    pub(crate) limits_unavailable: identity_core::limiter::WhenUnavailable,
    /// Most password hashes at once in this process.
    pub(crate) max_password_hashes: usize,
    /// The dashboard maps' background; none unless configured.
    pub(crate) basemap: Option<insights_dashboard::Basemap>,
    /// Fetching CAMS runs from the ADS.
    pub(crate) ads: crate::fetch::settings::AdsSettings,
}

/// A setting that could not be resolved.
#[derive(Debug, Error)]
pub(crate) enum ConfigError {
    /// The config file could not be read.
    #[error("cannot read the config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The config file is not valid TOML of the expected shape.
    #[error("the config file {path} is invalid: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, naming the key.
        message: String,
    },
    /// A value is out of its range.
    #[error("{0}")]
    Invalid(String),
}

impl Settings {
    /// Resolves `args` over the config file (if any) and the defaults.
    ///
    /// # Errors
    /// [`ConfigError`] for an unreadable or invalid file, or a value out of range.
    pub(crate) fn resolve(args: &GlobalArgs) -> Result<Self, ConfigError> {
        let file = match &args.config {
            Some(path) => read_file(path)?,
            None => FileSettings::default(),
        };
        Self::merge(args, file)
    }

    fn merge(args: &GlobalArgs, file: FileSettings) -> Result<Self, ConfigError> {
        let connections = connection_limits(args, &file)?;
        let request_timeout = seconds(
            "request_timeout_seconds",
            args.request_timeout_seconds
                .or(file.request_timeout_seconds),
            30,
        )?;
        let cors_origins = AllowedOrigins::parse(
            args.cors_origins
                .as_deref()
                .or(file.cors_origins.as_deref())
                .unwrap_or_default(),
        )
        .map_err(ConfigError::Invalid)?;
        let (backpressure, breaker, account_limits) =
            (backpressure(&file)?, breaker(&file), account_limits(&file));
        let racs = racs_config(&file)?;
        let body_budgets = body_budgets(&file)?;
        let data_dir = args
            .data_dir
            .clone()
            .or(file.data_dir)
            .unwrap_or_else(|| PathBuf::from("insights-data"));
        let listen = args
            .listen
            .or(file.listen)
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 8080)));
        let database_url = args
            .database_url
            .clone()
            .or(file.database_url)
            .unwrap_or_else(|| default_database_url(&data_dir));
        let object_store = args
            .object_store
            .clone()
            .or(file.object_store)
            .unwrap_or_default();
        let public_url = args
            .public_url
            .clone()
            .or(file.public_url)
            .map(|u| u.trim_end_matches('/').to_owned());
        if let Some(url) = &public_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(ConfigError::Invalid(format!(
                "public URL `{url}` must start with http:// or https://"
            )));
        }
        let limits = limits_at(
            args.limits_url.as_deref().or(file.limits_url.as_deref()),
            &database_url,
        )?;
        let limits_unavailable = args
            .limits_unavailable
            .as_deref()
            .or(file.limits_unavailable.as_deref())
            .map(str::parse)
            .transpose()
            .map_err(ConfigError::Invalid)?
            .unwrap_or_default();
        let ads = crate::fetch::settings::AdsSettings::resolve(
            &args.ads,
            file.fetch_cams,
            file.ads.clone(),
            &data_dir,
        )
        .map_err(ConfigError::Invalid)?;
        let settings = Self {
            ads,
            limits,
            limits_prefix: args
                .limits_prefix
                .clone()
                .or(file.limits_prefix)
                .unwrap_or_else(|| DEFAULT_LIMITS_PREFIX.to_owned()),
            limits_unavailable,
            data_dir,
            database_url,
            object_store,
            listen,
            public_url,
            aq_source: args
                .aq_source
                .clone()
                .or(file.aq_source)
                .unwrap_or_else(|| "demo".to_owned()),
            fuse_stations: args
                .fuse_stations
                .clone()
                .or(file.fuse_stations)
                .filter(|s| !s.is_empty()),
            roads: if args.roads.is_empty() {
                file.roads.unwrap_or_default()
            } else {
                args.roads.clone()
            },
            fusion: file.fusion.unwrap_or_default(),
            thresholds: file.alerts.unwrap_or_default(),
            allow_private_webhooks: args
                .allow_private_webhooks
                .or(file.allow_private_webhooks)
                .unwrap_or(false),
            log_json: args.log_json.or(file.log_json).unwrap_or(false),
            workers: args.workers.or(file.workers).unwrap_or(32),
            per_key_jobs: file
                .per_key_jobs
                .unwrap_or(alerts_core::pipeline::PipelineConfig::default().per_key_jobs),
            backpressure,
            breaker,
            account_limits,
            max_points: file.max_points.unwrap_or(10_000),
            max_routes: file.max_routes.unwrap_or(50),
            max_departure_scorings: file
                .max_departure_scorings
                .unwrap_or(racs_core::Limits::default().max_departure_scorings),
            racs,
            max_body_bytes: file.max_body_bytes.unwrap_or(32 * 1024 * 1024),
            max_custom_data_bytes: file.max_custom_data_bytes.unwrap_or(16 * 1024),
            max_concurrent_parses: file.max_concurrent_parses.unwrap_or(2),
            rate_per_second: file.rate_per_second.unwrap_or(50),
            rate_burst: file.rate_burst.unwrap_or(100),
            unknown_keys_per_network_per_minute: file
                .unknown_keys_per_network_per_minute
                .unwrap_or(30),
            body_budgets,
            retention_hours: file.retention_hours.unwrap_or(24),
            cams_poll: Duration::from_secs(file.cams_poll_seconds.unwrap_or(60).max(1)),
            cams_cache_bytes: file
                .cams_cache_mib
                .unwrap_or(aq_grid::DEFAULT_CACHE_BYTES >> 20)
                .saturating_mul(1 << 20),
            lease_seconds: file.lease_seconds.unwrap_or(300),
            connections,
            request_timeout,
            cors_origins,
            max_password_hashes: file
                .max_password_hashes
                .unwrap_or(insights_dashboard::DEFAULT_MAX_PASSWORD_HASHES),
            basemap: file
                .basemap_url
                .as_deref()
                .map(|url| {
                    insights_dashboard::Basemap::parse(
                        url,
                        file.basemap_attribution.as_deref().unwrap_or_default(),
                    )
                })
                .transpose()
                .map_err(ConfigError::Invalid)?,
        };
        // A step may take a webhook's whole 10 s timeout; a shorter lease would let a second
        // worker deliver while the first is still waiting.
        if settings.lease_seconds < MIN_LEASE_SECONDS {
            return Err(ConfigError::Invalid(format!(
                "lease_seconds must be at least {MIN_LEASE_SECONDS} (got {})",
                settings.lease_seconds
            )));
        }
        settings
            .fusion
            .validate()
            .map_err(|e| ConfigError::Invalid(format!("[fusion] {e}")))?;
        settings
            .thresholds
            .validate()
            .map_err(|e| ConfigError::Invalid(format!("[alerts] {e}")))?;
        if settings.cams_cache_bytes == 0 {
            return Err(ConfigError::Invalid(
                "cams_cache_mib must be at least 1".to_owned(),
            ));
        }
        if settings.max_points == 0
            || settings.max_routes == 0
            || settings.max_concurrent_parses == 0
            || settings.rate_per_second == 0
            || settings.rate_burst == 0
            || settings.unknown_keys_per_network_per_minute == 0
            || settings.max_password_hashes == 0
            || settings.per_key_jobs == 0
            || settings.backpressure.max_pending_per_key == 0
            || settings.backpressure.max_queue_delay.is_zero()
            || settings.account_limits.keys_per_account == 0
            || settings.account_limits.rules_per_key == 0
        {
            return Err(ConfigError::Invalid(
                "max_points, max_routes, max_concurrent_parses, rate_per_second, rate_burst, \
                 unknown_keys_per_network_per_minute, \
                 max_password_hashes, per_key_jobs, max_queue_delay_seconds, \
                 max_pending_per_key, max_keys_per_account and max_rules_per_key must be at \
                 least 1"
                    .to_owned(),
            ));
        }
        Ok(settings)
    }
}

/// Where rate limits are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LimitsAt {
    /// In this process: one replica.
    Memory,
    /// In the PostgreSQL database, beside everything else.
    Database,
    /// In the Redis at this URL.
    Redis(String),
}

/// The default start of every key of the limits in Redis.
const DEFAULT_LIMITS_PREFIX: &str = "insights:limits:";

/// Where limits are kept: as `url` says, else in the database when it is PostgreSQL (which
/// replicas share), else in this process.
fn limits_at(url: Option<&str>, database_url: &str) -> Result<LimitsAt, ConfigError> {
    match url.filter(|u| !u.is_empty()) {
        None if database_url.starts_with("postgres://")
            || database_url.starts_with("postgresql://") =>
        {
            Ok(LimitsAt::Database)
        }
        None | Some("memory") => Ok(LimitsAt::Memory),
        Some(url) if url.starts_with("redis://") || url.starts_with("rediss://") => {
            Ok(LimitsAt::Redis(url.to_owned()))
        }
        Some(other) => Err(ConfigError::Invalid(format!(
            "limits_url must be redis://HOST:PORT or memory, got `{}`",
            crate::private::redact_url(other)
        ))),
    }
}

/// The body-byte budgets of the file's settings, in MiB, over [`BodyBudgets::default`].
fn body_budgets(file: &FileSettings) -> Result<BodyBudgets, ConfigError> {
    let defaults = BodyBudgets::default();
    let rate = |per_second: Option<u64>, burst: Option<u64>, default: ByteRate, names: &str| {
        let mib = |value: u64| value.checked_mul(1 << 20);
        let per_second = per_second.map_or(Some(default.per_second), mib);
        let burst = burst.map_or(Some(default.burst), mib);
        match (per_second, burst) {
            (Some(per_second @ 1..), Some(burst @ 1..)) => Ok(ByteRate { per_second, burst }),
            _ => Err(ConfigError::Invalid(format!(
                "{names} must be at least 1 (MiB), and at most 16 TiB"
            ))),
        }
    };
    Ok(BodyBudgets {
        per_key: rate(
            file.key_body_mib_per_second,
            file.key_body_burst_mib,
            defaults.per_key,
            "key_body_mib_per_second and key_body_burst_mib",
        )?,
        per_network: rate(
            file.network_body_mib_per_second,
            file.network_body_burst_mib,
            defaults.per_network,
            "network_body_mib_per_second and network_body_burst_mib",
        )?,
        ..defaults
    })
}

/// When alert requests are refused; the defaults are [`Backpressure::default`]'s.
///
/// [`Backpressure::default`]: alerts_core::pipeline::Backpressure
fn backpressure(file: &FileSettings) -> Result<alerts_core::pipeline::Backpressure, ConfigError> {
    let defaults = alerts_core::pipeline::Backpressure::default();
    let target_queue_delay = match file.target_queue_delay_seconds {
        None => defaults.target_queue_delay,
        Some(secs) => Duration::try_from_secs_f64(secs)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| {
                ConfigError::Invalid(format!(
                    "target_queue_delay_seconds must be a number of seconds over 0, not {secs}"
                ))
            })?,
    };
    Ok(alerts_core::pipeline::Backpressure {
        max_queue_delay: file
            .max_queue_delay_seconds
            .map_or(defaults.max_queue_delay, Duration::from_secs),
        target_queue_delay,
        max_pending_per_key: file
            .max_pending_per_key
            .unwrap_or(defaults.max_pending_per_key),
    })
}

/// When deliveries to a failing URL wait; the defaults are [`BreakerConfig::default`]'s.
///
/// [`BreakerConfig::default`]: alerts_core::breaker::BreakerConfig
fn breaker(file: &FileSettings) -> alerts_core::breaker::BreakerConfig {
    let defaults = alerts_core::breaker::BreakerConfig::default();
    alerts_core::breaker::BreakerConfig {
        failures: file.breaker_failures.unwrap_or(defaults.failures),
        cool_down: file
            .breaker_cool_down_seconds
            .map_or(defaults.cool_down, Duration::from_secs),
        ..defaults
    }
}

/// How routes are scored: [`RacsConfig::default`] with `min_departure_gain` from the file,
/// checked by the scoring core's own rule.
///
/// [`RacsConfig::default`]: racs_core::RacsConfig
fn racs_config(file: &FileSettings) -> Result<racs_core::RacsConfig, ConfigError> {
    let defaults = racs_core::RacsConfig::default();
    let config = racs_core::RacsConfig {
        min_departure_gain: file
            .min_departure_gain
            .unwrap_or(defaults.min_departure_gain),
        ..defaults
    };
    config
        .validate()
        .map_err(|e| ConfigError::Invalid(e.to_string()))?;
    Ok(config)
}

/// How much one account may create: self-service accounts would otherwise multiply every
/// per-key limit by as many keys, and every request's work by as many rules, as they like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AccountLimits {
    /// The most live API keys of one account.
    pub(crate) keys_per_account: usize,
    /// The most alert rules of one key, enabled or not.
    pub(crate) rules_per_key: usize,
}

/// Account limits; the defaults are the cores' ([`DEFAULT_KEYS_PER_ACCOUNT`],
/// [`DEFAULT_RULES_PER_KEY`]).
///
/// [`DEFAULT_KEYS_PER_ACCOUNT`]: identity_core::manage::DEFAULT_KEYS_PER_ACCOUNT
/// [`DEFAULT_RULES_PER_KEY`]: alerts_core::manage::DEFAULT_RULES_PER_KEY
fn account_limits(file: &FileSettings) -> AccountLimits {
    AccountLimits {
        keys_per_account: file
            .max_keys_per_account
            .unwrap_or(identity_core::manage::DEFAULT_KEYS_PER_ACCOUNT),
        rules_per_key: file
            .max_rules_per_key
            .unwrap_or(alerts_core::manage::DEFAULT_RULES_PER_KEY),
    }
}

/// The HTTP server's connection limits; the defaults are [`ConnectionLimits::default`]'s.
fn connection_limits(
    args: &GlobalArgs,
    file: &FileSettings,
) -> Result<ConnectionLimits, ConfigError> {
    let defaults = ConnectionLimits::default();
    let limits = ConnectionLimits {
        header_read_timeout: seconds(
            "header_timeout_seconds",
            args.header_timeout_seconds.or(file.header_timeout_seconds),
            defaults.header_read_timeout.as_secs(),
        )?,
        idle_timeout: seconds(
            "idle_timeout_seconds",
            args.idle_timeout_seconds.or(file.idle_timeout_seconds),
            defaults.idle_timeout.as_secs(),
        )?,
        max_connections: args
            .max_connections
            .or(file.max_connections)
            .unwrap_or(defaults.max_connections),
    };
    if limits.max_connections == 0 {
        return Err(ConfigError::Invalid(
            "max_connections must be at least 1".to_owned(),
        ));
    }
    // The idle timer runs until a request's headers are complete, so it bounds them too.
    if limits.header_read_timeout > limits.idle_timeout {
        return Err(ConfigError::Invalid(format!(
            "header_timeout_seconds ({}) must not exceed idle_timeout_seconds ({})",
            limits.header_read_timeout.as_secs(),
            limits.idle_timeout.as_secs()
        )));
    }
    Ok(limits)
}

/// A timeout setting `name` of `value` seconds (else `default`), at least one second.
fn seconds(name: &str, value: Option<u64>, default: u64) -> Result<Duration, ConfigError> {
    match value.unwrap_or(default) {
        0 => Err(ConfigError::Invalid(format!("{name} must be at least 1"))),
        secs => Ok(Duration::from_secs(secs)),
    }
}

/// The shortest lease: longer than a webhook attempt may take.
const MIN_LEASE_SECONDS: u64 = 15;

fn default_database_url(data_dir: &Path) -> String {
    format!("sqlite://{}", data_dir.join("insights.db").display())
}

fn read_file(path: &Path) -> Result<FileSettings, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests;
