//! What the handlers share: the ports, the configuration, the metrics and the rate limiter.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use alerts_core::pipeline::AlertPipeline;
use alerts_core::ports::FileStore;
use alerts_core::request::RequestLimits;
use aq_core::{AirQualitySource, CountryLookup, ForecastSource, NoCountries};
use identity_core::ids::KeyId;
use identity_core::limiter::{Limiter, Outcome};
use identity_core::ports::{KeyAuthenticator, Quota};
use racs_core::journey::StreetRouter;
use racs_core::{Limits, Scorer};
use runtime_core::Clock;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::budget::{BodyBudgets, Buckets, ByteRate};
use crate::cors::AllowedOrigins;
use crate::error::{ApiError, ErrorCode};
use crate::gate::{Gates, Turn};
use crate::metrics::Metrics;
use crate::ports::{FileUrlVerifier, ReadinessCheck};
use crate::provenance::Provenance;
use crate::rate_headers::{RateHeaders, RateSlot};
use crate::unknown_keys::UnknownKeys;

/// Limits and knobs of the API. Defaults suit one machine serving many clients.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// The largest body accepted, in bytes. Default 32 MiB: enough for 50 routes of 20,000
    /// vertices written as JSON arrays.
    pub max_body_bytes: usize,
    /// Route-scoring limits (routes per request, vertices per route, ...).
    pub route_limits: Limits,
    /// Alert-request limits (points per request, ...).
    pub point_limits: RequestLimits,
    /// The longest a request may take before it is answered 503 and its handler's work is
    /// dropped. Default 30 s: several times what the largest request of the default limits
    /// takes to score, so that only a stuck dependency or a client sending its body very
    /// slowly meets it.
    pub request_timeout: Duration,
    /// The origins whose web pages may call the API (CORS). Default: none.
    pub cors: AllowedOrigins,
    /// Requests per second allowed per API key, sustained. Default 50.
    pub rate_per_second: NonZeroU32,
    /// Requests a key may send in a burst above the sustained rate. Default 100.
    pub rate_burst: NonZeroU32,
    /// Bodies larger than a few kilobytes parsed at once, across all clients; one more is
    /// answered 503 with `Retry-After` rather than queued. Parsing holds up to a few times a
    /// body's size in memory (a route request's decoded polylines), so this and
    /// [`ApiConfig::max_body_bytes`] bound what parsing can hold. Default 2. Besides, each
    /// key has one such body parsed at a time; its next waits for its turn.
    pub max_concurrent_parses: usize,
    /// The body bytes each key and each client network may send, per process: beyond them,
    /// 429 with `Retry-After`.
    pub body_budgets: BodyBudgets,
    /// Unknown API keys a client network (an IPv4 address, or an IPv6 /64) may try a minute,
    /// counted across replicas when the limits are shared; beyond it, 429 with `Retry-After`
    /// before the store is asked, whichever key the network sends. Default 30: far more than a
    /// client with a mistyped key retries, far fewer than a guesser needs.
    pub unknown_keys_per_network_per_minute: NonZeroU32,
}

impl Default for ApiConfig {
    fn default() -> Self {
        Self {
            max_body_bytes: 32 * 1024 * 1024,
            route_limits: Limits::default(),
            point_limits: RequestLimits::default(),
            request_timeout: Duration::from_secs(30),
            cors: AllowedOrigins::None,
            rate_per_second: NonZeroU32::new(50).unwrap_or(NonZeroU32::MIN),
            rate_burst: NonZeroU32::new(100).unwrap_or(NonZeroU32::MIN),
            max_concurrent_parses: 2,
            body_budgets: BodyBudgets::default(),
            unknown_keys_per_network_per_minute: NonZeroU32::new(30).unwrap_or(NonZeroU32::MIN),
        }
    }
}

/// The bucket of the API keys' rate limit in the limit store.
pub const API_RATE_BUCKET: &str = "api_key";

struct Inner {
    config: ApiConfig,
    keys: Arc<dyn KeyAuthenticator>,
    alerts: Arc<AlertPipeline>,
    scorer: Scorer,
    files: Arc<dyn FileStore>,
    file_urls: Option<Arc<dyn FileUrlVerifier>>,
    readiness: Vec<Arc<dyn ReadinessCheck>>,
    clock: Arc<dyn Clock>,
    metrics: Metrics,
    limiter: Arc<Limiter>,
    quota: Quota,
    parses: Arc<Semaphore>,
    key_parses: Gates<KeyId>,
    key_bytes: Buckets<KeyId>,
    network_bytes: Buckets<IpAddr>,
    unknown_keys: UnknownKeys,
    provenance: Provenance,
    lookups: Arc<dyn ForecastSource>,
    coarse_tiles: Arc<dyn AirQualitySource>,
    streets: Option<Arc<dyn StreetRouter>>,
    countries: Arc<dyn CountryLookup>,
}

/// The state shared by every handler. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

/// Builds an [`AppState`] from the ports.
pub struct AppStateBuilder {
    config: ApiConfig,
    keys: Arc<dyn KeyAuthenticator>,
    alerts: Arc<AlertPipeline>,
    scorer: Scorer,
    files: Arc<dyn FileStore>,
    clock: Arc<dyn Clock>,
    file_urls: Option<Arc<dyn FileUrlVerifier>>,
    readiness: Vec<Arc<dyn ReadinessCheck>>,
    metrics: Metrics,
    limiter: Option<Arc<Limiter>>,
    lookups: Option<Arc<dyn ForecastSource>>,
    coarse_tiles: Option<Arc<dyn AirQualitySource>>,
    streets: Option<Arc<dyn StreetRouter>>,
    countries: Arc<dyn CountryLookup>,
}

impl AppStateBuilder {
    /// The parts every server needs: the key store, the alert pipeline, the route scorer, the
    /// file store and the clock.
    pub fn new(
        keys: Arc<dyn KeyAuthenticator>,
        alerts: Arc<AlertPipeline>,
        scorer: Scorer,
        files: Arc<dyn FileStore>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            config: ApiConfig::default(),
            keys,
            alerts,
            scorer,
            files,
            clock,
            file_urls: None,
            readiness: Vec::new(),
            metrics: Metrics::new(),
            limiter: None,
            lookups: None,
            coarse_tiles: None,
            streets: None,
            countries: Arc::new(NoCountries),
        }
    }

    /// Tells lookups the country of a place from `countries`: their `regionCode` and the
    /// national index an hour lists by default. Without it, no place has a country.
    #[must_use]
    pub fn countries(mut self, countries: Arc<dyn CountryLookup>) -> Self {
        self.countries = countries;
        self
    }

    /// Plans routes on `streets` for bodies with `origin` and `destination`. Without it,
    /// such bodies are refused with a 400 that says the server has no streets.
    #[must_use]
    pub fn streets(mut self, streets: Arc<dyn StreetRouter>) -> Self {
        self.streets = Some(streets);
        self
    }

    /// Answers the point lookups (conditions, forecast, history, pollen) from `source`: the
    /// street-level air, when the server has streets. Without it, lookups read the alert
    /// pipeline's forecast source.
    #[must_use]
    pub fn lookups(mut self, source: Arc<dyn ForecastSource>) -> Self {
        self.lookups = Some(source);
        self
    }

    /// Draws heatmap tiles below street zoom (zoom 14, `tiles::STREET_ZOOM`) from `source`:
    /// the background of a street-level scorer, since a tile that spans kilometres cannot show
    /// a street and would show the roads its few grid nodes happen to fall on as speckles.
    /// Without it, every tile reads the scorer's source.
    #[must_use]
    pub fn coarse_tiles(mut self, source: Arc<dyn AirQualitySource>) -> Self {
        self.coarse_tiles = Some(source);
        self
    }

    /// Keeps the API keys' rate limit with `limiter` (shared by every replica when its store
    /// is). Without it, each process keeps its own.
    #[must_use]
    pub fn limiter(mut self, limiter: Arc<Limiter>) -> Self {
        self.limiter = Some(limiter);
        self
    }

    /// Replaces the default [`ApiConfig`].
    #[must_use]
    pub fn config(mut self, config: ApiConfig) -> Self {
        self.config = config;
        self
    }

    /// Serves files under `/insights/v1/files/` with URLs that `verifier` checks: the embedded
    /// default, where the server signs its own URLs. Without it, that path answers 404 (with S3,
    /// clients fetch files from the bucket directly).
    #[must_use]
    pub fn file_urls(mut self, verifier: Arc<dyn FileUrlVerifier>) -> Self {
        self.file_urls = Some(verifier);
        self
    }

    /// Adds a dependency to `/readyz`.
    #[must_use]
    pub fn readiness(mut self, check: Arc<dyn ReadinessCheck>) -> Self {
        self.readiness.push(check);
        self
    }

    /// Shares `metrics` with the caller (the worker loop counts deliveries into it).
    #[must_use]
    pub fn metrics(mut self, metrics: Metrics) -> Self {
        self.metrics = metrics;
        self
    }

    /// The state.
    #[must_use]
    pub fn build(self) -> AppState {
        let quota = Quota::per_second(self.config.rate_per_second, self.config.rate_burst);
        let lookups = self
            .lookups
            .unwrap_or_else(|| self.alerts.forecast_source().clone());
        let coarse_tiles = self
            .coarse_tiles
            .unwrap_or_else(|| self.scorer.source().clone());
        let provenance = Provenance::new(
            &self.scorer.source_info(),
            &self.alerts.forecast_source().info(),
            &lookups.info(),
            &coarse_tiles.info(),
        );
        // A budget smaller than the largest body would refuse that body for ever.
        let at_least_a_body = |rate: ByteRate| ByteRate {
            burst: rate.burst.max(self.config.max_body_bytes as u64),
            ..rate
        };
        let budgets = self.config.body_budgets;
        AppState {
            inner: Arc::new(Inner {
                limiter: self
                    .limiter
                    .unwrap_or_else(|| Arc::new(Limiter::in_process())),
                quota,
                parses: Arc::new(Semaphore::new(self.config.max_concurrent_parses)),
                key_parses: Gates::new(),
                key_bytes: Buckets::new(at_least_a_body(budgets.per_key), budgets.max_tracked),
                network_bytes: Buckets::new(
                    at_least_a_body(budgets.per_network),
                    budgets.max_tracked,
                ),
                unknown_keys: UnknownKeys::new(Quota::per_minute(
                    self.config.unknown_keys_per_network_per_minute,
                )),
                config: self.config,
                keys: self.keys,
                alerts: self.alerts,
                scorer: self.scorer,
                files: self.files,
                file_urls: self.file_urls,
                readiness: self.readiness,
                clock: self.clock,
                metrics: self.metrics,
                provenance,
                lookups,
                coarse_tiles,
                streets: self.streets,
                countries: self.countries,
            }),
        }
    }
}

impl AppState {
    /// The API configuration.
    #[must_use]
    pub fn config(&self) -> &ApiConfig {
        &self.inner.config
    }

    pub(crate) fn keys(&self) -> &dyn KeyAuthenticator {
        self.inner.keys.as_ref()
    }

    pub(crate) fn alerts(&self) -> &AlertPipeline {
        &self.inner.alerts
    }

    pub(crate) fn scorer(&self) -> &Scorer {
        &self.inner.scorer
    }

    /// The country of a place, for lookups.
    pub(crate) fn countries(&self) -> &dyn CountryLookup {
        self.inner.countries.as_ref()
    }

    /// The source the point lookups read.
    pub(crate) fn lookups(&self) -> &Arc<dyn ForecastSource> {
        &self.inner.lookups
    }

    /// The streets routes are planned on, if the server has them.
    pub(crate) fn streets(&self) -> Option<&Arc<dyn StreetRouter>> {
        self.inner.streets.as_ref()
    }

    /// The source of the tiles below street zoom.
    pub(crate) fn coarse_tiles(&self) -> &Arc<dyn AirQualitySource> {
        &self.inner.coarse_tiles
    }

    pub(crate) fn files(&self) -> &dyn FileStore {
        self.inner.files.as_ref()
    }

    pub(crate) fn file_urls(&self) -> Option<&dyn FileUrlVerifier> {
        self.inner.file_urls.as_deref()
    }

    pub(crate) fn readiness(&self) -> &[Arc<dyn ReadinessCheck>] {
        &self.inner.readiness
    }

    pub(crate) fn clock(&self) -> &dyn Clock {
        self.inner.clock.as_ref()
    }

    /// The metrics the server records.
    #[must_use]
    pub fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    /// True when the air-quality or the forecast source is synthetic demo data (the
    /// dashboard's banner says so).
    #[must_use]
    pub fn demo_data(&self) -> bool {
        self.inner.provenance.synthetic
    }

    /// What responses say about the data sources.
    pub(crate) fn provenance(&self) -> &Provenance {
        &self.inner.provenance
    }

    /// A place among the [`ApiConfig::max_concurrent_parses`] large bodies parsed at once, or
    /// 503 with `Retry-After` when all are taken.
    pub(crate) fn parse_permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        Arc::clone(&self.inner.parses)
            .try_acquire_owned()
            .map_err(|_| {
                ApiError::unavailable(
                    "the server is reading as many large requests as it can; retry shortly",
                    Duration::from_secs(1),
                )
            })
    }

    /// Waits until no other large body of `key` is being parsed.
    pub(crate) async fn parse_turn(&self, key: KeyId) -> Turn<KeyId> {
        self.inner.key_parses.turn(key).await
    }

    /// The byte budgets of keys and of client networks.
    /// The networks over their allowance of unknown keys.
    pub(crate) fn unknown_keys(&self) -> &UnknownKeys {
        &self.inner.unknown_keys
    }

    /// The limiter of every rate limit of the API.
    pub(crate) fn limiter(&self) -> &Limiter {
        &self.inner.limiter
    }

    pub(crate) fn body_bytes(&self) -> (&Buckets<KeyId>, &Buckets<IpAddr>) {
        (&self.inner.key_bytes, &self.inner.network_bytes)
    }

    /// 429 with `Retry-After` when `key` is over its rate; 503 with `Retry-After` when the
    /// shared limit store cannot tell and the server is set to refuse then. What the check
    /// found goes to `slot`, for the answer's `RateLimit-*` headers.
    pub(crate) async fn check_rate(
        &self,
        key: KeyId,
        slot: Option<&RateSlot>,
    ) -> Result<(), ApiError> {
        let outcome = self
            .inner
            .limiter
            .take(
                API_RATE_BUCKET,
                &key.0.simple().to_string(),
                self.inner.quota,
                self.inner.clock.now(),
            )
            .await;
        let quota = &self.inner.quota;
        let said = match outcome {
            Outcome::Allowed { full_in } => Some(RateHeaders::counted(quota, full_in)),
            Outcome::Limited { retry_after } => Some(RateHeaders::refused(quota, retry_after)),
            Outcome::Unavailable { .. } => None,
        };
        if let (Some(slot), Some(said)) = (slot, said) {
            slot.fill(said);
        }
        match outcome {
            Outcome::Allowed { .. } => Ok(()),
            Outcome::Limited { retry_after } => Err(ApiError {
                code: ErrorCode::RateLimited,
                detail: format!(
                    "this key may send {} requests per second (bursts of {}); slow down and retry after the Retry-After header's seconds",
                    self.inner.config.rate_per_second, self.inner.config.rate_burst
                ),
                retry_after: Some(retry_after.max(Duration::from_secs(1))),
            }),
            Outcome::Unavailable { retry_after } => Err(ApiError::unavailable(
                "the server cannot check this key's rate limit right now; retry shortly",
                retry_after,
            )),
        }
    }
}
