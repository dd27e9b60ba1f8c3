//! From settings to running parts: the store, the files, the air-quality sources, the webhook
//! sender, and the cores over them. `serve` and `admin` open the same things the same way.

use std::net::IpAddr;
use std::sync::Arc;

use alerts_core::manage::{Manager, WebhookUrlCheck};
use alerts_core::pipeline::{AlertPipeline, PipelineConfig, PipelinePorts};
use alerts_core::ports::{
    DeliveryLog, FileKey, FileStore, JobQueue, RuleStore, SentChanges, WebhookSender,
};
use anyhow::{Context, Result, bail};
use aq_core::{AirQualitySource, ForecastSource};
use aq_grid::{DirectoryFeed, GridSource, GridStore, ModelGrid, StoreConfig};
use aq_sources::{DemoField, OpenAq, OpenAqConfig, OpenMeteo, OpenMeteoConfig, StationFile};
use async_trait::async_trait;
use identity_core::manage::Identity;
use identity_core::ports::{AccountStore, KeyAuthenticator, LeaseStore, SessionStore};
use insights_http::ReadinessCheck;
use insights_objects::Files;
use insights_system::{OsRandomness, RandomIds, SystemClock, TimeOrderedIds, TokioTimer};
use racs_core::Scorer;
use runtime_core::{Clock, IdGenerator};
use store_postgres::PgStore;
use store_sqlite::{SqliteOptions, SqliteStore};
use webhook_http::{AddressPolicy, HttpWebhookSender, WebhookHttpConfig, validate_webhook_url};

use crate::config::Settings;
use crate::parts::ForecastInParts;
use crate::private::redact_url;

/// How long a `cams:` source keeps hours that have passed: yesterday stays answerable for
/// history-style questions and daily means; a run whose every hour is older, or answered from a
/// newer run, is purged.
pub(crate) const CAMS_RETENTION_HOURS: i64 = 48;

/// The seed of the demo field: fixed, so that every installation shows the same demo data.
const DEMO_SEED: u64 = 2026;

/// The database, as every port the cores need.
#[derive(Clone)]
pub(crate) struct Stores {
    /// Which backend, for messages.
    pub(crate) kind: &'static str,
    /// Keys found by their hash, as the API authenticates them.
    pub(crate) keys: Arc<dyn KeyAuthenticator>,
    /// A key's rules and alert configuration, as the pipeline reads them.
    pub(crate) rules: Arc<dyn RuleStore>,
    /// Accounts and keys, as the dashboard and the admin command manage them.
    pub(crate) accounts: Arc<dyn AccountStore>,
    /// The job queue.
    pub(crate) jobs: Arc<dyn JobQueue>,
    /// The delivery log.
    pub(crate) deliveries: Arc<dyn DeliveryLog>,
    /// What once-per-change rules told.
    pub(crate) sent: Arc<dyn SentChanges>,
    /// The dashboard's sessions.
    pub(crate) sessions: Arc<dyn SessionStore>,
    /// Named leases: work one replica does at a time (the CAMS fetch).
    pub(crate) leases: Arc<dyn LeaseStore>,
    /// `/readyz`'s check of the database.
    pub(crate) readiness: Arc<dyn ReadinessCheck>,
    /// The PostgreSQL store, which can also keep the rate limits; `None` with SQLite.
    pub(crate) postgres: Option<Arc<PgStore>>,
}

struct SqlitePing(Arc<SqliteStore>);
struct PgPing(Arc<PgStore>);

#[async_trait]
impl ReadinessCheck for SqlitePing {
    fn name(&self) -> &str {
        "database"
    }
    async fn check(&self) -> Result<(), String> {
        self.0.ping().await.map_err(|e| e.to_string())
    }
}

#[async_trait]
impl ReadinessCheck for PgPing {
    fn name(&self) -> &str {
        "database"
    }
    async fn check(&self) -> Result<(), String> {
        self.0.ping().await.map_err(|e| e.to_string())
    }
}

/// `/readyz`'s check of the object store: a lookup of a file that never exists answers
/// "absent" when the store is reachable, and fails when it is not.
pub(crate) struct FilesPing(pub(crate) Arc<dyn FileStore>);

#[async_trait]
impl ReadinessCheck for FilesPing {
    fn name(&self) -> &str {
        "files"
    }
    async fn check(&self) -> Result<(), String> {
        let probe = FileKey("readiness/probe".to_owned());
        self.0
            .exists(&probe)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

/// Opens the database named by `settings.database_url`, applying migrations.
pub(crate) async fn open_stores(settings: &Settings) -> Result<Stores> {
    let url = settings.database_url.as_str();
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let store = Arc::new(
            PgStore::connect(url)
                .await
                .context("cannot open the PostgreSQL database (check --database-url)")?,
        );
        Ok(Stores {
            kind: "PostgreSQL",
            keys: store.clone(),
            rules: store.clone(),
            accounts: store.clone(),
            jobs: store.clone(),
            deliveries: store.clone(),
            sent: store.clone(),
            sessions: store.clone(),
            leases: store.clone(),
            readiness: Arc::new(PgPing(store.clone())),
            postgres: Some(store),
        })
    } else if url.starts_with("sqlite:") {
        let store = Arc::new(
            SqliteStore::open(SqliteOptions::parse(url))
                .await
                .with_context(|| format!("cannot open the SQLite database {}", redact_url(url)))?,
        );
        Ok(Stores {
            kind: "SQLite",
            keys: store.clone(),
            rules: store.clone(),
            accounts: store.clone(),
            jobs: store.clone(),
            deliveries: store.clone(),
            sent: store.clone(),
            sessions: store.clone(),
            leases: store.clone(),
            readiness: Arc::new(SqlitePing(store)),
            postgres: None,
        })
    } else {
        bail!(
            "--database-url must start with sqlite: or postgres://, got `{}`",
            redact_url(url)
        )
    }
}

/// Which networks webhooks may go to. Loopback is allowed for the local quick start only: the
/// server listens on loopback and is not published under another host's URL, so nobody else
/// can reach it to aim its webhooks. A server behind a reverse proxy on the same machine
/// listens on loopback too, but serves everyone who reaches the proxy; its public URL tells the
/// two apart. Private networks are allowed only when the operator says so.
pub(crate) fn webhook_policy(settings: &Settings) -> AddressPolicy {
    let published = settings
        .public_url
        .as_deref()
        .is_some_and(|url| !names_this_machine(url));
    if settings.allow_private_webhooks {
        AddressPolicy::private_networks()
    } else if settings.listen.ip().is_loopback() && !published {
        AddressPolicy::loopback()
    } else {
        AddressPolicy::strict()
    }
}

/// Whether the host of `url` (an `http://` or `https://` URL, as the settings check) is this
/// machine: `localhost` or a loopback address.
fn names_this_machine(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host_port.split(':').next().unwrap_or_default(),
    };
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The webhook URL check of the dashboard and the admin command: the sender's own.
pub(crate) struct SenderUrlCheck(pub AddressPolicy);

impl WebhookUrlCheck for SenderUrlCheck {
    fn check(&self, url: &str) -> Result<String, String> {
        validate_webhook_url(url, &self.0)
            .map(|u| u.to_string())
            .map_err(|e| e.to_string())
    }
}

/// The management use cases over `stores` (identity's inside alerts'), refusing pollen rules that look further ahead than
/// the configured source forecasts.
pub(crate) fn manager(stores: &Stores, settings: &Settings) -> Manager {
    let ids: Arc<RandomIds> = Arc::new(RandomIds);
    let rng: Arc<OsRandomness> = Arc::new(OsRandomness);
    let identity = Identity::new(
        stores.accounts.clone(),
        stores.keys.clone(),
        Arc::new(SystemClock),
        ids.clone(),
        rng.clone(),
    )
    .with_keys_per_account(settings.account_limits.keys_per_account);
    let manager = Manager::new(
        identity,
        stores.accounts.clone(),
        stores.rules.clone(),
        ids,
        rng,
        Arc::new(SenderUrlCheck(webhook_policy(settings))),
    )
    .with_rules_per_key(settings.account_limits.rules_per_key);
    // Alerts read Open-Meteo's forecasts for both of these (see `open_sources`); the grids'
    // pollen is the same European forecast; the demo field and station files answer any day
    // they are asked.
    match settings.aq_source.as_str() {
        s if s == "openaq" || open_meteo_url(s).is_some() => manager.with_pollen_limit(
            aq_sources::open_meteo::POLLEN_FORECAST_DAYS,
            aq_sources::open_meteo::POLLEN_FORECAST_REASON,
        ),
        s if s.starts_with("cams:") => manager.with_pollen_limit(
            aq_grid::POLLEN_FORECAST_DAYS,
            aq_grid::POLLEN_FORECAST_REASON,
        ),
        _ => manager,
    }
}

/// The air-quality source for route scoring, and the forecast source for alerts.
pub(crate) struct Sources {
    /// For route scoring.
    pub(crate) air: Arc<dyn AirQualitySource>,
    /// For alerts.
    pub(crate) forecast: Arc<dyn ForecastSource>,
}

/// `Some` for an Open-Meteo source: `open-meteo` (the public API, `None` inside) or
/// `open-meteo:URL` (another server of the same API, such as a self-hosted Open-Meteo or the
/// commercial endpoint).
fn open_meteo_url(spec: &str) -> Option<Option<&str>> {
    if spec == "open-meteo" {
        Some(None)
    } else {
        spec.strip_prefix("open-meteo:").map(Some)
    }
}

/// Opens the source named by `settings.aq_source`, corrected by the station readings of
/// `settings.fuse_stations` when it names some (what their quality control leaves out goes to
/// `exclusions`); the sources that cache or follow the forecast window read the time from
/// `clock`.
pub(crate) fn open_sources(
    settings: &Settings,
    clock: &Arc<dyn Clock>,
    exclusions: Option<Arc<dyn aq_fusion::ExclusionSink>>,
) -> Result<Sources> {
    let model = open_model(settings, clock)?;
    let sources = crate::fusion::fused(settings, clock, model, exclusions)?;
    Ok(if answers_from_memory(settings) {
        Sources {
            forecast: Arc::new(ForecastInParts(sources.forecast)),
            ..sources
        }
    } else {
        sources
    })
}

/// Whether the sources `settings` name answer from what the process holds (the demo field, a
/// station file, the CAMS grids, corrected by a station file if any), so that a large batch is
/// worth answering in parts at once; a remote source's requests are its own to shape.
fn answers_from_memory(settings: &Settings) -> bool {
    let spec = settings.aq_source.as_str();
    let model = spec == "demo" || spec.starts_with("stations:") || spec.starts_with("cams:");
    let stations = settings
        .fuse_stations
        .as_deref()
        .is_none_or(|s| s.starts_with("stations:"));
    model && stations
}

/// Opens the source named by `settings.aq_source` alone.
pub(crate) fn open_model(settings: &Settings, clock: &Arc<dyn Clock>) -> Result<Sources> {
    let spec = settings.aq_source.as_str();
    if spec == "demo" {
        // The field laid on a 0.02° grid and computed per block on first use: routes, tiles,
        // lookups and alerts read it the way they read the CAMS grids, and a forecast hour
        // is the index a route leaving then scores.
        let grid = GridStore::from_model(
            Arc::new(DemoField::new(DEMO_SEED)),
            ModelGrid {
                cache_bytes: settings.cams_cache_bytes,
                ..ModelGrid::default()
            },
        );
        let source = Arc::new(GridSource::new(Arc::new(grid)));
        return Ok(Sources {
            air: source.clone(),
            forecast: source,
        });
    }
    if let Some(base_url) = open_meteo_url(spec) {
        let mut config = OpenMeteoConfig::default();
        if let Some(url) = base_url {
            config.base_url = url.to_owned();
        }
        let source =
            Arc::new(OpenMeteo::new(config, clock.clone()).context("cannot set up Open-Meteo")?);
        return Ok(Sources {
            air: source.clone(),
            forecast: source,
        });
    }
    if spec == "openaq" {
        let api_key = std::env::var("OPENAQ_API_KEY")
            .context("--aq-source openaq needs the OPENAQ_API_KEY environment variable")?;
        let source = Arc::new(
            OpenAq::new(
                OpenAqConfig {
                    api_key,
                    ..OpenAqConfig::default()
                },
                clock.clone(),
            )
            .context("cannot set up OpenAQ")?,
        );
        // OpenAQ reports measurements, not forecasts: alerts read Open-Meteo's model.
        let forecast = Arc::new(
            OpenMeteo::new(OpenMeteoConfig::default(), clock.clone())
                .context("cannot set up Open-Meteo")?,
        );
        return Ok(Sources {
            air: source,
            forecast,
        });
    }
    if let Some(path) = spec.strip_prefix("stations:") {
        let source = Arc::new(
            StationFile::open(path, Default::default())
                .with_context(|| format!("cannot load the station file {path}"))?,
        );
        return Ok(Sources {
            air: source.clone(),
            forecast: source,
        });
    }
    if let Some(location) = cams_store(spec)? {
        let source = Arc::new(GridSource::new(follow_cams(location, settings, clock)?));
        return Ok(Sources {
            air: source.clone(),
            forecast: source,
        });
    }
    bail!(
        "--aq-source must be demo, open-meteo, open-meteo:URL, openaq, stations:FILE, cams:DIR or cams:s3://BUCKET/PREFIX, got `{spec}`"
    )
}

/// Where a `cams:` source's grids are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CamsStore {
    /// `cams:DIR`: the grid store in DIR, and GRIB2 files a download job places there,
    /// followed.
    Dir(std::path::PathBuf),
    /// `cams:s3://BUCKET/PREFIX`: the grid store in the bucket under PREFIX, reached with the
    /// same AWS_* variables as `--object-store s3://...`.
    S3(String),
}

impl std::fmt::Display for CamsStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CamsStore::Dir(dir) => write!(f, "{}", dir.display()),
            CamsStore::S3(url) => f.write_str(url),
        }
    }
}

/// The grid store of a `cams:` source, or `None` for another kind of source.
pub(crate) fn cams_store(spec: &str) -> Result<Option<CamsStore>> {
    let Some(rest) = spec.strip_prefix("cams:") else {
        return Ok(None);
    };
    if rest.starts_with("s3://") {
        return Ok(Some(CamsStore::S3(rest.to_owned())));
    }
    if rest.contains("://") {
        bail!("--aq-source cams: takes a local directory or s3://BUCKET/PREFIX, got `{rest}`");
    }
    if rest.is_empty() {
        bail!("--aq-source cams: needs a directory, as in cams:/var/lib/insights/cams");
    }
    Ok(Some(CamsStore::Dir(rest.into())))
}

/// Refuses grids inside the output files' store: its retention deletes every object older than
/// `retention_hours` there, and a run's chunks are needed for days.
fn check_apart_from_files(location: &CamsStore, settings: &Settings) -> Result<()> {
    use insights_objects::ObjectStoreLocation;
    let files = ObjectStoreLocation::parse(&settings.object_store, &settings.data_dir)
        .context("cannot read --object-store")?;
    let inside = match (location, &files) {
        (CamsStore::Dir(dir), ObjectStoreLocation::Local(files)) => {
            // Resolved through links and `..` where the directories exist already; as written
            // (made absolute) where they are still to be made.
            let resolved = |p: &std::path::Path| {
                p.canonicalize()
                    .or_else(|_| std::path::absolute(p))
                    .unwrap_or(p.to_owned())
            };
            resolved(dir).starts_with(resolved(files))
        }
        (CamsStore::S3(url), ObjectStoreLocation::S3(files)) => {
            let grids = insights_objects::S3Settings::new(url)
                .with_context(|| format!("--aq-source cams:{url}"))?;
            grids.bucket == files.bucket
                && (files.prefix.is_empty()
                    || grids.prefix == files.prefix
                    || grids.prefix.starts_with(&format!("{}/", files.prefix)))
        }
        _ => false,
    };
    if inside {
        bail!(
            "--aq-source cams:{location} lies inside the output files' store (--object-store), \
             whose retention would delete the grids: give the files a prefix of their own \
             (s3://BUCKET/files) and the grids another (cams:s3://BUCKET/grids), or use \
             another directory"
        );
    }
    Ok(())
}

/// Opens the grid store at `location`, its cache of `settings.cams_cache_bytes`.
pub(crate) fn open_grid(location: &CamsStore, settings: &Settings) -> Result<GridStore> {
    check_apart_from_files(location, settings)?;
    let objects: Arc<dyn object_store::ObjectStore> = match location {
        CamsStore::Dir(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the CAMS directory {}", dir.display()))?;
            Arc::new(
                object_store::local::LocalFileSystem::new_with_prefix(dir)
                    .with_context(|| format!("cannot open the CAMS directory {}", dir.display()))?,
            )
        }
        CamsStore::S3(url) => {
            let s3 = insights_objects::S3Settings::from_env(url)
                .with_context(|| format!("--aq-source cams:{url}"))?;
            let bucket = s3
                .build()
                .with_context(|| format!("cannot set up S3 for cams:{url}"))?;
            if s3.prefix.is_empty() {
                Arc::new(bucket)
            } else {
                Arc::new(object_store::prefix::PrefixStore::new(
                    bucket,
                    s3.prefix.as_str(),
                ))
            }
        }
    };
    Ok(GridStore::new(
        objects,
        StoreConfig {
            cache_bytes: settings.cams_cache_bytes,
            // The European model read is the one fetched: one setting names both.
            europe_model: aq_grid::EuropeModel::from_name(&settings.ads.europe_model)
                .unwrap_or_default(),
            ..StoreConfig::default()
        },
    ))
}

/// One look for what is new: with a directory, its new GRIB2 files ingested and old runs
/// purged; then the manifests read. The batches held.
async fn follow_once(
    feed: Option<&mut DirectoryFeed>,
    store: &GridStore,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<usize> {
    Ok(match feed {
        Some(feed) => feed.poll(now).await?.batches,
        None => store.refresh().await?,
    })
}

/// A store reading the grids at `location`: the manifests there now, read before serving
/// starts, then new runs every `cams_poll` on a background task. With a directory, the GRIB2
/// files a download job places there are ingested too, and runs past [`CAMS_RETENTION_HOURS`]
/// purged; that ingest starts at once but in the background, so that the server listens while
/// a directory of files (or a bad one) is read.
fn follow_cams(
    location: CamsStore,
    settings: &Settings,
    clock: &Arc<dyn Clock>,
) -> Result<Arc<GridStore>> {
    let store = Arc::new(open_grid(&location, settings)?);
    let mut feed = match &location {
        CamsStore::Dir(dir) => Some(DirectoryFeed::new(
            dir.clone(),
            store.clone(),
            chrono::Duration::hours(CAMS_RETENTION_HOURS),
        )),
        CamsStore::S3(_) => None,
    };
    let runtime = tokio::runtime::Handle::current();
    let mut held = tokio::task::block_in_place(|| runtime.block_on(store.refresh()))
        .with_context(|| format!("cannot read the CAMS grids at {location}"))?;
    tracing::info!(grids = %location, batches = held, "CAMS grids loaded");
    let (clock, poll, following) = (clock.clone(), settings.cams_poll, store.clone());
    tokio::spawn(async move {
        let mut first = feed.is_some();
        loop {
            if !std::mem::take(&mut first) {
                tokio::time::sleep(poll).await;
            }
            match follow_once(feed.as_mut(), &following, clock.now()).await {
                Ok(now_held) if now_held != held => {
                    tracing::info!(grids = %location, batches = now_held, "CAMS grids changed");
                    held = now_held;
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(grids = %location, error = %e, "cannot read the CAMS grids; serving what is held");
                }
            }
        }
    });
    Ok(store)
}

/// Everything `serve` runs.
pub(crate) struct Service {
    /// The database.
    pub(crate) stores: Stores,
    /// The output files.
    pub(crate) files: Files,
    /// The alert pipeline.
    pub(crate) pipeline: Arc<AlertPipeline>,
    /// The route scorer.
    pub(crate) scorer: Scorer,
    /// The clock.
    pub(crate) clock: Arc<dyn Clock>,
    /// The webhook sender, shared with the dashboard's test deliveries.
    pub(crate) sender: Arc<dyn WebhookSender>,
    /// The air at street level, when `--roads` names streets.
    pub(crate) streets: Option<crate::streets::StreetAir>,
}

/// Opens and wires everything for `serve`; file URLs start with `public_url`, and the fused
/// source's quality control counts into `metrics`.
pub(crate) async fn open_service(
    settings: &Settings,
    public_url: &str,
    metrics: &insights_http::Metrics,
) -> Result<Service> {
    let stores = open_stores(settings).await?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let sink: Arc<dyn aq_fusion::ExclusionSink> =
        Arc::new(crate::fusion::MetricsSink(metrics.clone()));
    let sources = open_sources(settings, &clock, Some(sink))?;
    // Files hold alerts: in S3 each carries the forecast source's label, since presigned
    // downloads never pass through the server that labels local ones.
    let files = insights_objects::open_files(
        &settings.object_store,
        &settings.data_dir,
        public_url,
        Some(sources.forecast.info().label().as_str()),
    )
    .context("cannot set up file storage (check --object-store and --data-dir)")?;
    let forecast = sources.forecast;
    let sender: Arc<dyn WebhookSender> = Arc::new(
        HttpWebhookSender::new(WebhookHttpConfig {
            policy: webhook_policy(settings),
            ..WebhookHttpConfig::default()
        })
        .context("cannot set up the webhook sender")?,
    );
    let pipeline = Arc::new(AlertPipeline::new(
        PipelinePorts {
            rules: stores.rules.clone(),
            jobs: stores.jobs.clone(),
            deliveries: stores.deliveries.clone(),
            sent: stores.sent.clone(),
            files: files.file_store(),
            signer: files.signer.clone(),
            sender: sender.clone(),
            forecast: forecast.clone(),
            clock: clock.clone(),
            // Tokens in time order keep the job tables' writes on a few pages.
            ids: Arc::new(TimeOrderedIds),
        },
        PipelineConfig {
            lease_for: std::time::Duration::from_secs(settings.lease_seconds),
            per_key_jobs: settings.per_key_jobs,
            breaker: settings.breaker,
            backpressure: settings.backpressure,
            // A remote source's requests in flight stay what its own settings allow.
            pages_ahead: if answers_from_memory(settings) { 2 } else { 1 },
            evaluator: alerts_core::evaluate::Evaluator {
                thresholds: settings.thresholds,
                ..alerts_core::evaluate::Evaluator::default()
            },
            ..PipelineConfig::default()
        },
    ));
    let streets = crate::streets::open(settings, &sources.air, &forecast)?;
    let air = streets.as_ref().map_or(sources.air, |s| s.air.clone());
    let ids: Arc<dyn IdGenerator> = Arc::new(RandomIds);
    let scorer = Scorer::new(air, clock.clone(), Arc::new(TokioTimer), ids)
        .with_config(settings.racs.clone());
    Ok(Service {
        stores,
        files,
        pipeline,
        scorer,
        clock,
        sender,
        streets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GlobalArgs;

    fn policy(listen: &str, public_url: Option<&str>, allow_private: bool) -> AddressPolicy {
        let args = GlobalArgs {
            listen: Some(listen.parse().unwrap()),
            public_url: public_url.map(str::to_owned),
            allow_private_webhooks: Some(allow_private),
            ..GlobalArgs::default()
        };
        webhook_policy(&Settings::resolve(&args).unwrap())
    }

    #[test]
    fn only_sources_that_answer_from_memory_are_asked_in_parts() {
        let local = |aq_source: &str, fuse_stations: Option<&str>| {
            let args = GlobalArgs {
                aq_source: Some(aq_source.to_owned()),
                fuse_stations: fuse_stations.map(str::to_owned),
                ..GlobalArgs::default()
            };
            answers_from_memory(&Settings::resolve(&args).unwrap())
        };
        assert!(local("demo", None));
        assert!(local("cams:/var/lib/grids", None));
        assert!(local("stations:/srv/stations.csv", None));
        assert!(local(
            "cams:/var/lib/grids",
            Some("stations:/srv/stations.csv")
        ));
        assert!(!local("open-meteo", None));
        assert!(!local("openaq", None));
        assert!(!local("demo", Some("openaq")));
    }

    #[test]
    fn grids_inside_the_output_files_store_are_refused() {
        let open = |object_store: &str, aq_source: &str| {
            let args = GlobalArgs {
                object_store: Some(object_store.to_owned()),
                aq_source: Some(aq_source.to_owned()),
                data_dir: Some("/var/lib/insights".into()),
                ..GlobalArgs::default()
            };
            let settings = Settings::resolve(&args).unwrap();
            let location = cams_store(&settings.aq_source).unwrap().unwrap();
            check_apart_from_files(&location, &settings)
        };
        for (files, grids) in [
            ("s3://insights-files", "cams:s3://insights-files/grids"),
            (
                "s3://insights-files/out",
                "cams:s3://insights-files/out/grids",
            ),
            ("", "cams:/var/lib/insights/files/cams"),
            ("file:///srv/out", "cams:/srv/out"),
        ] {
            let err = open(files, grids).unwrap_err().to_string();
            assert!(err.contains("retention"), "{files} {grids}: {err}");
        }
        for (files, grids) in [
            ("s3://insights-files/out", "cams:s3://insights-files/grids"),
            ("s3://insights-files/out", "cams:s3://insights-files/output"),
            ("s3://insights-files", "cams:s3://insights-grids"),
            ("", "cams:/var/lib/insights/cams"),
            ("s3://insights-files", "cams:/var/lib/insights/files"),
        ] {
            assert!(open(files, grids).is_ok(), "{files} {grids}");
        }
    }

    #[test]
    fn loopback_receivers_are_for_the_local_quick_start_only() {
        assert_eq!(
            policy("127.0.0.1:8080", None, false),
            AddressPolicy::loopback()
        );
        assert_eq!(policy("[::1]:8080", None, false), AddressPolicy::loopback());
        for local in [
            "http://127.0.0.1:8080",
            "http://localhost:8080/",
            "http://LOCALHOST",
            "http://[::1]:8080",
            "http://127.1.2.3",
        ] {
            assert_eq!(
                policy("127.0.0.1:8080", Some(local), false),
                AddressPolicy::loopback(),
                "{local}"
            );
        }
        // Behind a reverse proxy: listening on loopback, published for everyone.
        for public in [
            "https://insights.example.net",
            "https://insights.example.net:8443/base",
            "http://10.0.0.5:8080",
            "https://localhost.example.net",
            "https://user@insights.example.net",
        ] {
            assert_eq!(
                policy("127.0.0.1:8080", Some(public), false),
                AddressPolicy::strict(),
                "{public}"
            );
        }
        assert_eq!(policy("0.0.0.0:8080", None, false), AddressPolicy::strict());
        assert_eq!(
            policy("0.0.0.0:8080", Some("https://insights.example.net"), true),
            AddressPolicy::private_networks()
        );
    }
}
