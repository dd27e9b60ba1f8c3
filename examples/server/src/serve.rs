//! `insights-server serve`: the API, the alert workers and the retention sweep, until
//! SIGINT or SIGTERM.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use alerts_core::pipeline::AlertPipeline;
use alerts_core::ports::{FileKey, FileStore};
use anyhow::{Context, Result};
use insights_dashboard::{CsrfKey, DashboardHosts, DashboardPorts, DashboardState};
use insights_http::{
    ApiConfig, AppState, AppStateBuilder, FileUrlRejection, FileUrlVerifier, Metrics,
};
use insights_objects::{LocalUrlSigner, VerifyError};
use insights_system::{OsRandomness, TimeOrderedIds};
use runtime_core::Clock;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::beside::ApiBeside;
use crate::config::Settings;
use crate::dispatch::{Workers, dispatch};
use crate::private;
use crate::wiring::{FilesPing, Service, manager, open_service};

/// How often expired output files are deleted.
const RETENTION_SWEEP: Duration = Duration::from_secs(600);
/// How often the job gauges of `/metrics` are refreshed.
const QUEUE_GAUGES: Duration = Duration::from_secs(5);
/// How long shutdown waits for workers to finish the jobs they hold.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// The local file URLs, checked by the signer that made them.
struct LocalUrls(Arc<LocalUrlSigner>);

impl FileUrlVerifier for LocalUrls {
    fn verify(
        &self,
        path: &str,
        query: Option<&str>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<alerts_core::ports::FileKey, FileUrlRejection> {
        self.0
            .verify(path, query.unwrap_or(""), now)
            .map_err(|e| match e {
                VerifyError::Expired => FileUrlRejection::Expired,
                VerifyError::BadSignature | VerifyError::UnknownKey => {
                    FileUrlRejection::BadSignature
                }
                VerifyError::Malformed(why) => FileUrlRejection::Malformed(why.to_owned()),
            })
    }
}

/// Runs the server until a shutdown signal.
pub(crate) async fn run(settings: Settings) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(settings.listen)
        .await
        .with_context(|| format!("cannot listen on {}", settings.listen))?;
    let local = listener.local_addr().context("no local address")?;
    let shutdown = shutdown_signal();
    let public_url = settings
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{local}"));
    private::create_dir(&settings.data_dir)?;
    let metrics = Metrics::new();
    let service = open_service(&settings, &public_url, &metrics).await?;
    // The CAMS fetch, when on, runs beside the feed that serves what it ingests.
    let _fetching = crate::fetch::spawn(&settings, &metrics, service.stores.leases.clone())?;
    let dashboard = DashboardSecurity {
        hosts: DashboardHosts::for_public_url(
            settings.public_url.as_deref(),
            settings.listen.ip().is_loopback(),
        )
        .map_err(anyhow::Error::msg)?,
        csrf_key: private::csrf_key(&settings.data_dir.join(private::CSRF_KEY_FILE))?,
    };
    let (limiter, limits_at) =
        crate::limits::open_limiter(&settings, service.stores.postgres.as_ref(), &metrics).await?;
    let state = app_state(&settings, &service, metrics.clone(), limiter.clone())?;
    let dashboard = dashboard_state(&settings, &service, &state, &public_url, dashboard, limiter);
    // An unreadable store is no reason not to start: the hints are just left out.
    let empty = !service.stores.accounts.has_accounts().await.unwrap_or(true);
    announce(&settings, &service, local, &public_url, empty, &limits_at);

    // The first alert job's pollen days would otherwise wait for the time zones to load.
    tokio::task::spawn_blocking(aq_core::civil::load_time_zones);
    let (stop_tx, stop_rx) = watch::channel(false);
    // The alert workers run on threads of their own. On the API's threads a job waited behind
    // every busy connection at each of its many awaits, so that under heavy route traffic the
    // queue all but stopped; on their own threads the operating system shares the cores
    // between answering requests and delivering alerts.
    let jobs_runtime = jobs_runtime()?;
    let jobs_threads = jobs_runtime.handle();
    let mut background = JoinSet::new();
    // One dispatcher keeps up to `workers` jobs in progress at once, each on a task of its
    // own, so that a slow receiver holds one place rather than a whole batch behind it.
    if settings.workers > 0 {
        let workers = Workers {
            places: settings.workers,
            pipeline: service.pipeline.clone(),
            jobs: service.stores.jobs.clone(),
            clock: service.clock.clone(),
            metrics: metrics.clone(),
        };
        background.spawn_on(dispatch(workers, stop_rx.clone()), jobs_threads);
    }
    background.spawn(watch_queue(
        service.stores.jobs.clone(),
        service.pipeline.clone(),
        service.clock.clone(),
        metrics.clone(),
        stop_rx.clone(),
    ));
    if let (crate::config::LimitsAt::Database, Some(pg)) =
        (&settings.limits, &service.stores.postgres)
    {
        background.spawn(crate::limits::sweep_limits(
            pg.clone(),
            service.clock.clone(),
            stop_rx.clone(),
        ));
    }
    background.spawn(sweep_retention(
        service.stores.jobs.clone(),
        service.clone_files_store(),
        service.clock.clone(),
        settings.retention_hours,
        stop_rx.clone(),
    ));

    let router = insights_http::router_with(state, insights_dashboard::router(dashboard));
    insights_http::serve_with(listener, router, settings.connections, shutdown).await;

    tracing::info!("shutting down: finishing the jobs in hand");
    let _ = stop_tx.send(true);
    if tokio::time::timeout(SHUTDOWN_GRACE, async {
        while background.join_next().await.is_some() {}
    })
    .await
    .is_err()
    {
        // Jobs still held are not lost: their leases expire and any replica takes them over.
        tracing::warn!(
            "workers did not finish in time; their jobs will be taken over after the lease"
        );
    }
    // Whatever is still running there is cut off; its jobs' leases bring them back.
    jobs_runtime.shutdown_background();
    Ok(())
}

/// The most threads the alert workers' blocking steps (file writes, a model's blocks) run on at
/// once. Without a bound, a burst of small jobs under load left hundreds of threads (tokio's
/// default allows 512), each a stack and a turn for the scheduler; a few dozen keep the disk
/// and the cores as busy, and the steps past them wait their turn.
const JOBS_BLOCKING_THREADS: usize = 64;

/// The runtime of the alert workers: one thread per core, up to two, since a job mostly
/// waits on the store and the receiver.
fn jobs_runtime() -> Result<tokio::runtime::Runtime> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .max_blocking_threads(JOBS_BLOCKING_THREADS)
        .thread_name("insights-jobs")
        .enable_all()
        .build()
        .context("cannot start the alert workers' runtime")
}

/// What the dashboard's protections need from the server's settings and data directory.
struct DashboardSecurity {
    hosts: DashboardHosts,
    csrf_key: CsrfKey,
}

fn app_state(
    settings: &Settings,
    service: &Service,
    metrics: Metrics,
    limiter: Arc<identity_core::limiter::Limiter>,
) -> Result<AppState> {
    let mut config = ApiConfig {
        max_body_bytes: settings.max_body_bytes,
        rate_per_second: NonZeroU32::new(settings.rate_per_second).unwrap_or(NonZeroU32::MIN),
        rate_burst: NonZeroU32::new(settings.rate_burst).unwrap_or(NonZeroU32::MIN),
        unknown_keys_per_network_per_minute: NonZeroU32::new(
            settings.unknown_keys_per_network_per_minute,
        )
        .unwrap_or(NonZeroU32::MIN),
        request_timeout: settings.request_timeout,
        cors: settings.cors_origins.clone(),
        max_concurrent_parses: settings.max_concurrent_parses,
        body_budgets: settings.body_budgets,
        ..ApiConfig::default()
    };
    config.route_limits.max_routes = settings.max_routes;
    config.route_limits.max_departure_scorings = settings.max_departure_scorings;
    config.point_limits.max_points = settings.max_points;
    config.point_limits.max_custom_data_bytes = settings.max_custom_data_bytes;
    let mut builder = AppStateBuilder::new(
        service.stores.keys.clone(),
        service.pipeline.clone(),
        service.scorer.clone(),
        service.files.file_store(),
        service.clock.clone(),
    )
    .config(config)
    .metrics(metrics)
    .limiter(limiter)
    .readiness(service.stores.readiness.clone())
    .readiness(Arc::new(FilesPing(service.files.file_store())))
    // Lookups' `regionCode` and a place's default national index; the boundaries are
    // compiled in, so this reads memory only.
    .countries(Arc::new(
        insights_countries::Countries::load().context("cannot read the country boundaries")?,
    ));
    if let Some(local) = &service.files.local_urls {
        builder = builder.file_urls(Arc::new(LocalUrls(local.clone())));
    }
    if let Some(streets) = &service.streets {
        builder = builder
            .lookups(streets.lookups.clone())
            .coarse_tiles(streets.background.clone())
            .streets(streets.router.clone());
    }
    Ok(builder.build())
}

/// The dashboard over the service's stores, beside the API of `api`.
fn dashboard_state(
    settings: &Settings,
    service: &Service,
    api: &AppState,
    public_url: &str,
    dashboard: DashboardSecurity,
    limiter: Arc<identity_core::limiter::Limiter>,
) -> DashboardState {
    DashboardState::new(DashboardPorts {
        api: Arc::new(ApiBeside(api.clone())),
        alerts: service.pipeline.clone(),
        scorer: service.scorer.clone(),
        clock: service.clock.clone(),
        manager: manager(&service.stores, settings),
        sessions: service.stores.sessions.clone(),
        deliveries: service.stores.deliveries.clone(),
        jobs: service.stores.jobs.clone(),
        // Alert tokens (the playground's requests), in time order like the API's.
        ids: Arc::new(TimeOrderedIds),
        rng: Arc::new(OsRandomness),
        sender: Some(service.sender.clone()),
        // Browsers drop Secure cookies over plain http, which would make signing in
        // impossible on the local quick start.
        secure_cookies: public_url.starts_with("https://"),
        hosts: dashboard.hosts,
        csrf_key: dashboard.csrf_key,
        max_password_hashes: settings.max_password_hashes,
        basemap: settings.basemap.clone(),
        limiter: Some(limiter),
        roads: service.streets.as_ref().map(|s| s.roads.clone()),
    })
}

fn announce(
    settings: &Settings,
    service: &Service,
    local: std::net::SocketAddr,
    public_url: &str,
    empty: bool,
    limits_at: &str,
) {
    tracing::info!(
        listen = %local,
        database = service.stores.kind,
        source = %settings.aq_source,
        "insights-server is up"
    );
    let base = public_url;
    println!("insights-server listening on http://{local}");
    println!(
        "  database: {} ({})",
        service.stores.kind,
        crate::private::redact_url(&settings.database_url)
    );
    println!("  rate limits: {limits_at}");
    println!("  air quality: {}", settings.aq_source);
    if settings.aq_source == "demo" {
        println!(
            "  note: route scores and alerts use the synthetic demo field, not real measurements"
        );
    }
    if empty {
        println!(
            "  get started: sign up at {base}/dashboard/signup, then create an API key and alerts there\n               (or: insights-server admin create-account --email you@example.org --password-stdin)"
        );
    }
    // The dashboard comes last: whoever reads this output knows it is complete.
    println!("  API reference: {base}/insights/v1/docs");
    println!("  dashboard: {base}/dashboard");
}

async fn watch_queue(
    jobs: Arc<dyn alerts_core::ports::JobQueue>,
    pipeline: Arc<AlertPipeline>,
    clock: Arc<dyn Clock>,
    metrics: Metrics,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        let now = clock.now();
        match jobs.counts(now).await {
            Ok(counts) => {
                metrics.set_jobs_queued(i64::try_from(counts.waiting).unwrap_or(i64::MAX));
                metrics.set_jobs_running(i64::try_from(counts.leased).unwrap_or(i64::MAX));
                let age = counts
                    .oldest_waiting
                    .and_then(|t| (now - t).to_std().ok())
                    .unwrap_or_default();
                metrics.set_queue_age(age);
            }
            Err(e) => tracing::debug!(error = %e, "cannot count jobs"),
        }
        metrics.set_breakers_open(i64::try_from(pipeline.open_breakers()).unwrap_or(i64::MAX));
        let grids = aq_grid::ingest::tally();
        let skipped: Vec<_> = grids.skipped.iter().map(|&(r, n)| (r.name(), n)).collect();
        let refused: Vec<_> = grids.refused.iter().map(|&(r, n)| (r.name(), n)).collect();
        metrics.set_cams_ingest_totals(&skipped, &refused);
        tokio::select! {
            () = tokio::time::sleep(QUEUE_GAUGES) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Requests purged from the store per statement of the retention sweep.
const PURGE_BATCH: usize = 500;

/// Every `RETENTION_SWEEP`, deletes what is older than the retention: finished requests with
/// their points, idempotency keys and attempts, their files, and any other file past it.
async fn sweep_retention(
    jobs: Arc<dyn alerts_core::ports::JobQueue>,
    store: Arc<insights_objects::ObjectFileStore>,
    clock: Arc<dyn Clock>,
    retention_hours: u64,
    mut stop: watch::Receiver<bool>,
) {
    let retention = chrono::Duration::hours(i64::try_from(retention_hours).unwrap_or(24));
    loop {
        let cutoff = clock.now() - retention;
        let mut purged = 0;
        loop {
            match jobs.purge_finished(cutoff, PURGE_BATCH).await {
                Ok(tokens) => {
                    for token in &tokens {
                        // A file already gone (swept by age, say) is what was wanted.
                        let _ = store.delete(&FileKey::for_token(*token)).await;
                    }
                    purged += tokens.len();
                    if tokens.len() < PURGE_BATCH || *stop.borrow() {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "retention sweep of stored requests failed");
                    break;
                }
            }
        }
        if purged > 0 {
            tracing::info!(purged, "expired alert requests deleted with their files");
        }
        match store.delete_older_than(cutoff).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(deleted = n, "expired output files deleted"),
            Err(e) => tracing::warn!(error = %e, "retention sweep of files failed"),
        }
        tokio::select! {
            () = tokio::time::sleep(RETENTION_SWEEP) => {}
            _ = stop.changed() => return,
        }
    }
}

/// A shutdown signal (SIGINT or SIGTERM), listened for from the moment this returns rather than
/// from the future's first poll: the server says it is listening before it serves, and a
/// SIGTERM sent as soon as that line is read must stop it gracefully, not kill it.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let (interrupt, terminate) = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {}
                () = wait(terminate) => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

impl Service {
    fn clone_files_store(&self) -> Arc<insights_objects::ObjectFileStore> {
        self.files.store.clone()
    }
}
