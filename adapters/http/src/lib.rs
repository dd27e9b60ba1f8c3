//! The HTTP face of the insights engine, on axum: the API of both products, the output-file
//! downloads, the OpenAPI document, health checks and metrics.
//!
//! | path | what |
//! |---|---|
//! | `POST /insights/v1/cleanest-route?key=` | alert request (`points`) or route scoring (`routes`) |
//! | `GET`, `HEAD /insights/v1/files/{name}` | an output file, behind a signed, expiring URL |
//! | `GET /insights/v1/tiles/{z}/{x}/{y}.png?key=` | a heatmap tile of the cleanliness index |
//! | `GET /insights/v1/conditions`, `forecast`, `history`, `pollen` `?key=&lat=&lon=` | a place's air now, by the hour ahead and back, and its pollen by the day |
//! | `GET /insights/v1/openapi.json` | the OpenAPI 3.1 document of this API |
//! | `GET /insights/v1/docs` | the API reference, rendered from vendored assets |
//! | `GET /healthz` | the process is up |
//! | `GET /readyz` | the database and the object store answer |
//! | `GET /metrics` | Prometheus metrics (OpenMetrics text) |
//!
//! The crate holds no storage or scoring logic of its own: [`AppStateBuilder`] takes the ports
//! (key store, alert pipeline, route scorer, file store) and [`router`] serves them. The server
//! binary wires the real adapters in, and merges the developer dashboard's routes (a crate of
//! their own) with these through [`router_with`], behind the same layers; what the dashboard
//! shows of the API comes from [`score`] and [`tile`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tower_http::classify::ServerErrorsFailureClass;
use tower_http::compression::CompressionLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

mod api;
mod budget;
pub mod cors;
mod docs;
pub mod error;
mod extract;
pub mod files;
mod gate;
pub mod headers;
pub mod journeys;
pub mod lookups;
pub mod members;
pub mod metrics;
pub mod openapi;
pub mod params;
pub mod ports;
pub mod provenance;
pub mod rate_headers;
pub mod serve;
mod spool;
pub mod state;
pub mod tiles;
pub mod unknown_keys;

pub use api::{score, score_report};
pub use budget::{BodyBudgets, ByteRate};
pub use cors::AllowedOrigins;
pub use error::{ApiError, ErrorCode, source_unavailable};
pub use extract::RequestId;
pub use headers::REQUEST_ID_HEADER;
pub use journeys::planned;
pub use metrics::Metrics;
pub use ports::{FileUrlRejection, FileUrlVerifier, ReadinessCheck};
pub use serve::{ConnectionLimits, serve, serve_with};
pub use state::{ApiConfig, AppState, AppStateBuilder};
pub use tiles::answer as tile;

/// The router of the whole API over `state`.
pub fn router(state: AppState) -> Router {
    router_with(state, Router::new())
}

/// The router of the whole API over `state`, plus the routes of `extra` behind the same
/// layers (request id, tracing, timeout, metrics) and the same answers to unknown paths and
/// methods: the developer dashboard's routes, or a benchmark's handler to compare with the
/// API's under the same conditions.
///
/// # Panics
/// When `extra` has a route of the API's own (axum refuses overlapping routes).
pub fn router_with(state: AppState, extra: Router) -> Router {
    let timeout = state.config().request_timeout;
    // The routes that web pages of other origins may call, when the operator allows it.
    let labelled = Router::new()
        .route("/insights/v1/cleanest-route", post(api::cleanest_route))
        .route_layer(middleware::from_fn_with_state(
            state.provenance().routes.clone(),
            provenance::label_api,
        ))
        .route(
            "/insights/v1/files/{name}",
            get(files::download)
                .head(files::download)
                .layer(middleware::from_fn_with_state(
                    state.provenance().alerts.clone(),
                    provenance::label_files,
                )),
        );
    let lookups = Router::new()
        .route("/insights/v1/conditions", get(lookups::conditions))
        .route("/insights/v1/forecast", get(lookups::forecast))
        .route("/insights/v1/history", get(lookups::history))
        .route_layer(middleware::from_fn_with_state(
            state.provenance().lookups.clone(),
            provenance::label_lookups,
        ))
        // Pollen has no street level, and a backtest replays alert rules, which read the
        // forecast source itself: both name it.
        .route(
            "/insights/v1/pollen",
            get(lookups::pollen).route_layer(middleware::from_fn_with_state(
                state.provenance().alerts.clone(),
                provenance::label_lookups,
            )),
        )
        .route(
            "/insights/v1/alert-backtest",
            get(lookups::backtest::alert_backtest).route_layer(middleware::from_fn_with_state(
                state.provenance().alerts.clone(),
                provenance::label_lookups,
            )),
        )
        // gzip or Brotli when the client's Accept-Encoding asks: a month of history is large
        // JSON that shrinks many times. Only these reads: a refused encoding turns the answer
        // into a 406 after the handler ran, which an alert request, already accepted and
        // stored, must never be; and files keep the Content-Length their HEAD promises.
        .route_layer(CompressionLayer::new());
    let mut api = labelled
        .merge(lookups)
        .route(
            "/insights/v1/openapi.json",
            get(openapi::serve)
                .with_state(Arc::new(openapi::document(state.config())))
                .layer(CompressionLayer::new()),
        )
        .route("/insights/v1/tiles/{z}/{x}/{y}", get(tiles::tile))
        // Before the CORS layer, so that the layer sees (and answers) preflights that would
        // otherwise meet this fallback.
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn(rate_headers::advertise));
    if let Some(cors) = state.config().cors.layer() {
        api = api.layer(cors);
    }
    let own = api
        .route("/insights/v1/docs", get(docs::page))
        .route("/insights/v1/docs/{asset}", get(docs::asset))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics_text))
        .with_state(state.clone());
    extra
        .merge(own)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn(move |req, next| {
            with_timeout(timeout, req, next)
        }))
        // Outside the timeout, so that requests that run out of time are counted too.
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .layer(TraceLayer::new_for_http().make_span_with(|req: &Request| {
            let id = req
                .headers()
                .get(REQUEST_ID_HEADER)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            // The path only: query strings carry API keys and URL signatures.
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
        }).on_failure(log_failure))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
        .layer(middleware::map_request(forget_client_request_id))
}

/// Logs a response that failed. A 503 is the server refusing work it has no room for (a full
/// alert queue, a busy parser), which operators watch as a rate, not as an error each time;
/// every other failure is an error.
fn log_failure(class: ServerErrorsFailureClass, latency: Duration, _span: &tracing::Span) {
    let latency_ms = latency.as_millis();
    match class {
        ServerErrorsFailureClass::StatusCode(StatusCode::SERVICE_UNAVAILABLE) => {
            tracing::warn!(latency_ms, "refused for want of capacity (503)");
        }
        other => tracing::error!(classification = %other, latency_ms, "response failed"),
    }
}

/// Drops any request id the client sent, so that the request-id layer makes a fresh one: the id
/// goes into logs and 500 details, where a client's text must never pass for the server's (or
/// tie two requests together).
async fn forget_client_request_id(mut req: Request) -> Request {
    req.headers_mut().remove(REQUEST_ID_HEADER);
    req
}

async fn observe(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str)
        .to_owned();
    let method = metrics::method_label(req.method().as_str());
    let response = next.run(req).await;
    state.metrics().observe_request(
        &route,
        method,
        response.status().as_u16(),
        started.elapsed(),
    );
    response
}

async fn with_timeout(timeout: Duration, req: Request, next: Next) -> Response {
    match tokio::time::timeout(timeout, next.run(req)).await {
        Ok(response) => response,
        Err(_) => ApiError::unavailable(
            format!(
                "the request took longer than {} s; retry shortly",
                timeout.as_secs()
            ),
            error::RETRY_AFTER_UNAVAILABLE,
        )
        .into_response(),
    }
}

async fn not_found() -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        "no such path; the API is under /insights/v1/ (see /insights/v1/openapi.json)",
    )
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this path does not serve that method (see /insights/v1/openapi.json)",
    )
}

async fn healthz() -> &'static str {
    "ok\n"
}

/// How long `/readyz` waits for each dependency.
const READINESS_TIMEOUT: Duration = Duration::from_secs(3);

async fn readyz(State(state): State<AppState>) -> Response {
    let mut report = String::new();
    let mut ready = true;
    for check in state.readiness() {
        // A dependency that hangs is as unavailable as one that refuses.
        let verdict = tokio::time::timeout(READINESS_TIMEOUT, check.check())
            .await
            .unwrap_or_else(|_| Err(format!("no answer within {READINESS_TIMEOUT:?}")));
        match verdict {
            Ok(()) => report.push_str(&format!("{}: ok\n", check.name())),
            Err(why) => {
                ready = false;
                tracing::warn!(dependency = check.name(), %why, "not ready");
                report.push_str(&format!("{}: unavailable\n", check.name()));
            }
        }
    }
    if ready {
        (StatusCode::OK, report).into_response()
    } else {
        let mut response = (StatusCode::SERVICE_UNAVAILABLE, report).into_response();
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(error::RETRY_AFTER_UNAVAILABLE.as_secs()),
        );
        response
    }
}

async fn metrics_text(State(state): State<AppState>) -> Response {
    let mut response = state.metrics().render().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    response
}
