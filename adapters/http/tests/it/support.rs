//! An app over in-memory ports, with one account, one key, a webhook and a rule.

use std::sync::Arc;

use alerts_core::manage::{AnyWebhookUrl, Manager};
use alerts_core::memory::{MemoryFiles, MemoryStore, RecordingSender};
use alerts_core::pipeline::{AlertPipeline, PipelineConfig, PipelinePorts};
use alerts_core::rule::{DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use aq_core::memory::{FnSource, MemoryForecast};
use aq_core::{AirQualitySource, CleanlinessIndex};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use identity_core::randomness::SeededRandomness;
use insights_http::{ApiConfig, AppStateBuilder, router_with};
use racs_core::Scorer;
use runtime_core::{Clock, FixedClock, SequentialIds};
use tower::ServiceExt;

/// The app and what a test needs to talk to it.
pub(crate) struct App {
    pub(crate) router: axum::Router,
    /// A key with a webhook and an enabled rule.
    pub(crate) key: String,
    /// A key with neither.
    pub(crate) bare_key: String,
    /// The id of `key`'s air-quality rule, and of its pollen rule.
    pub(crate) rules: [String; 2],
    /// What alerts (and lookups) read: empty until a test stores series, which begin a week
    /// before the current hour.
    pub(crate) forecast: Arc<MemoryForecast>,
}

pub(crate) async fn app() -> App {
    app_with(ApiConfig::default(), axum::Router::new()).await
}

/// The app with `config`, and the routes of `extra` behind the API's layers.
pub(crate) async fn app_with(config: ApiConfig, extra: axum::Router) -> App {
    // Cleaner towards the north, so that routes score differently.
    let field = FnSource::new("gradient", |p: aq_core::Position, _| {
        CleanlinessIndex::new((50.0 + p.lat() / 2.0).clamp(0.0, 100.0)).ok()
    });
    app_over(config, extra, Arc::new(field)).await
}

/// The app with `config` and `extra`, scoring against `source`.
pub(crate) async fn app_over(
    config: ApiConfig,
    extra: axum::Router,
    source: Arc<dyn AirQualitySource>,
) -> App {
    app_in(config, extra, source, Arc::new(aq_core::NoCountries)).await
}

/// The app that tells lookups the country of a place from `countries`.
pub(crate) async fn app_with_countries(countries: Arc<dyn aq_core::CountryLookup>) -> App {
    let field = FnSource::new("gradient", |p: aq_core::Position, _| {
        CleanlinessIndex::new((50.0 + p.lat() / 2.0).clamp(0.0, 100.0)).ok()
    });
    app_in(
        ApiConfig::default(),
        axum::Router::new(),
        Arc::new(field),
        countries,
    )
    .await
}

async fn app_in(
    config: ApiConfig,
    extra: axum::Router,
    source: Arc<dyn AirQualitySource>,
    countries: Arc<dyn aq_core::CountryLookup>,
) -> App {
    let store = Arc::new(MemoryStore::new());
    let files = Arc::new(MemoryFiles::new());
    let clock = Arc::new(FixedClock::new(chrono::Utc::now()));
    let ids = Arc::new(SequentialIds::default());
    let manager = Manager::with_store(
        store.clone(),
        clock.clone(),
        ids.clone(),
        Arc::new(SeededRandomness::default()),
        Arc::new(AnyWebhookUrl),
    );
    let account = manager
        .identity()
        .create_account("ada@example.org", "correct horse battery")
        .await
        .unwrap();
    let key = manager
        .identity()
        .create_key(account.id, "configured")
        .await
        .unwrap();
    manager
        .set_webhook_url(account.id, key.info.id, Some("http://127.0.0.1:9/hook"))
        .await
        .unwrap();
    let spec = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(6),
        Sensitivity::High,
        MessageSpec::Default,
    )
    .unwrap();
    let aq_rule = manager
        .add_rule(account.id, key.info.id, spec)
        .await
        .unwrap();
    let pollen = RuleSpec::new(
        DataType::Pollen,
        Forecast::Days(1),
        Sensitivity::High,
        MessageSpec::Default,
    )
    .unwrap();
    let pollen_rule = manager
        .add_rule(account.id, key.info.id, pollen)
        .await
        .unwrap();
    let forecast = Arc::new(MemoryForecast::anchored(
        aq_core::air_hour::hour_of(clock.now()) - chrono::Duration::days(7),
    ));
    let bare = manager
        .identity()
        .create_key(account.id, "bare")
        .await
        .unwrap();

    let pipeline = Arc::new(AlertPipeline::new(
        PipelinePorts {
            rules: store.clone(),
            jobs: store.clone(),
            deliveries: store.clone(),
            sent: store.clone(),
            files: files.clone(),
            signer: files.clone(),
            sender: Arc::new(RecordingSender::new()),
            forecast: forecast.clone(),
            clock: clock.clone(),
            ids: ids.clone(),
        },
        PipelineConfig::default(),
    ));
    let scorer = Scorer::new(
        source,
        clock.clone(),
        Arc::new(insights_system::TokioTimer),
        ids,
    );
    let state = AppStateBuilder::new(store, pipeline, scorer, files, clock)
        .config(config)
        .countries(countries)
        .build();
    App {
        router: router_with(state, extra),
        key: key.key.expose().to_owned(),
        bare_key: bare.key.expose().to_owned(),
        rules: [aq_rule.id.to_string(), pollen_rule.id.to_string()],
        forecast,
    }
}

/// Sends a request and returns the status and the body as JSON (null when it is not JSON).
pub(crate) async fn send(app: &App, request: Request<Body>) -> (StatusCode, serde_json::Value) {
    let response = app.router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
    )
}

/// A POST of `body` to the shared path with `key`.
pub(crate) fn post(key: Option<&str>, body: &str) -> Request<Body> {
    let uri = match key {
        Some(k) => format!("/insights/v1/cleanest-route?key={k}"),
        None => "/insights/v1/cleanest-route".to_owned(),
    };
    Request::post(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_owned()))
        .unwrap()
}
