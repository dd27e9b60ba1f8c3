//! The OpenAPI 3.1 document of the API, generated from the code with utoipa and served at
//! `GET /insights/v1/openapi.json`.
//!
//! Response schemas come from the types the handlers serialise (the route-scoring response is
//! derived in `racs-core`), so they cannot drift from what is sent; the integration tests also
//! validate real responses against this document. Request bodies are described by the schemas
//! below, because the cores parse them by hand to report JSON paths and accept several
//! polyline forms.

use std::sync::OnceLock;

use axum::Json;
use axum::response::IntoResponse;
use racs_core::ScoreResponse;
use serde::Serialize;
use utoipa::openapi::OpenApi as OpenApiDoc;
use utoipa::{OpenApi, ToSchema};

use crate::api::{AlertAccepted, KeyQuery};
use crate::error::ErrorEnvelope;

/// One point of an alert request.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
struct AlertPoint {
    /// Longitude in degrees.
    #[schema(minimum = -180, maximum = 180)]
    lon: f64,
    /// Latitude in degrees.
    #[schema(minimum = -90, maximum = 90)]
    lat: f64,
    /// Your label for the point, echoed in the output file; a number is kept as its text.
    #[schema(value_type = StringOrNumber)]
    id: String,
    /// Any JSON object, echoed as JSON text in the output file's `custom_data`.
    #[schema(value_type = Option<Object>)]
    custom_data: Option<serde_json::Value>,
}

/// A string, or a number kept as its decimal text.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum StringOrNumber {
    /// Text, 1 to 256 bytes.
    Text(String),
    /// A number.
    Number(f64),
}

/// Operation 1: request alert notifications for points.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
struct AlertRequest {
    /// The points to evaluate: at least 1, at most the server's limit (10,000 by default).
    #[schema(min_items = 1)]
    points: Vec<AlertPoint>,
}

/// A route's geometry: an array of `[lon, lat]` pairs, that array as a JSON string, or a
/// Google encoded polyline (precision 5).
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Polyline {
    /// `[[lon, lat], ...]`.
    Pairs(Vec<[f64; 2]>),
    /// The same array as a string, or an encoded polyline.
    Text(String),
}

/// One route to score.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Route {
    /// Your id for the route, unique in the request; a number is kept as its text.
    #[schema(value_type = StringOrNumber)]
    id: String,
    /// The route's geometry; at most 20,000 vertices by default.
    polyline: Polyline,
    /// The estimated duration, in `durationUnits`; greater than 0.
    #[schema(exclusive_minimum = 0)]
    route_duration: f64,
}

/// Operation 2: score routes by the cleanliness of the air along them.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ScoreRequest {
    /// The routes: at least 1, at most 50 by default.
    #[schema(min_items = 1)]
    routes: Vec<Route>,
    /// The unit of `routeDuration`; default `m`.
    #[schema(value_type = Option<racs_core::DurationUnit>)]
    duration_units: Option<String>,
    /// The unit of lengths in the response; default `m`.
    #[schema(value_type = Option<racs_core::LengthUnit>)]
    length_units: Option<String>,
    /// The order of `racss`.
    #[schema(value_type = racs_core::RoutesSort)]
    routes_sort: String,
    /// When the trip starts (RFC 3339); default now. Forecasts are read along the way.
    #[schema(value_type = Option<String>, format = DateTime)]
    departure_time: Option<String>,
    /// How the traveller moves; sets the breathing rate of the exposure estimate.
    #[schema(value_type = Option<racs_core::TravelMode>)]
    travel_mode: Option<String>,
}

/// The body of `POST /insights/v1/cleanest-route`: `points` asks for alerts, `routes` for
/// route scores. A body with both or neither is refused.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum CleanestRouteBody {
    /// Operation 1.
    Alerts(AlertRequest),
    /// Operation 2.
    Routes(ScoreRequest),
}

/// The response of `POST /insights/v1/cleanest-route`, by operation.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum CleanestRouteResponse {
    /// Operation 1: the token of the accepted request.
    Accepted(AlertAccepted),
    /// Operation 2: one RACS per route.
    Scores(ScoreResponse),
}

/// The webhook delivery (INSIGHT_OUTPUT) POSTed to your webhook URL, with Standard Webhooks
/// headers `webhook-id`, `webhook-timestamp` and `webhook-signature`.
#[derive(Serialize, ToSchema)]
#[allow(dead_code, non_snake_case)]
struct InsightOutput {
    /// The public prefix of the API key the request was made with (`ik_` and eight hex digits).
    KEY: String,
    /// The token the POST returned.
    TOKEN: String,
    /// The signed URL of the NDJSON file; valid for 15 minutes.
    URL: String,
}

/// One line of the NDJSON output file.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
struct AlertLine {
    /// The alert's message.
    description: String,
    /// Predefined advice.
    recommendation: String,
    /// The point's latitude.
    lat: f64,
    /// The point's longitude.
    lon: f64,
    /// The point's id.
    id: String,
    /// `aq` or `pollen`.
    data_type: String,
    /// The point's `custom_data` as JSON text; `{}` when none was given.
    custom_data: String,
}

/// Scores routes or requests alerts; the body decides which.
#[utoipa::path(
    post,
    path = "/insights/v1/cleanest-route",
    tag = "insights",
    params(
        KeyQuery,
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "Operation 1 only: 1 to 255 visible ASCII characters naming this request (a UUID is usual). A retry with the same key and the same points gets the first request's token, marked `Idempotent-Replayed: true`, and nothing is stored or delivered twice. Keys are kept as long as their request (24 h by default). Ignored by operation 2."),
    ),
    request_body(content = CleanestRouteBody, content_type = "application/json"),
    responses(
        (status = 200, description = "Operation 1: the request is stored and will be delivered to the key's webhook. Operation 2: the routes are scored (`completionStatus` may still be `Failed`).", body = CleanestRouteResponse,
            headers(("Idempotent-Replayed" = String, description = "`true` when this answers a retry of a stored alert request"))),
        (status = 400, description = "Invalid request, `webhook_not_configured` or `no_alert_rules`", body = ErrorEnvelope),
        (status = 401, description = "`missing_api_key` or `invalid_api_key`", body = ErrorEnvelope),
        (status = 413, description = "Body, points or routes over the limits", body = ErrorEnvelope),
        (status = 415, description = "The body is not JSON, or is compressed", body = ErrorEnvelope),
        (status = 422, description = "`idempotency_key_reused`: the `Idempotency-Key` was used before with other points", body = ErrorEnvelope),
        (status = 429, description = "Over the key's rate; see `Retry-After`", body = ErrorEnvelope),
        (status = 500, description = "A bug; `detail` holds the request id", body = ErrorEnvelope),
        (status = 503, description = "A dependency is down, or the request took longer than the server's request timeout (30 s by default); see `Retry-After`", body = ErrorEnvelope),
    )
)]
#[allow(dead_code)]
fn cleanest_route() {}

/// Downloads an output file through the signed URL of a webhook delivery.
#[utoipa::path(
    get,
    path = "/insights/v1/files/{name}",
    tag = "insights",
    params(
        ("name" = String, Path, description = "`<token>.ndjson`"),
        ("expires" = u64, Query, description = "Unix time after which the URL is refused"),
        ("kid" = String, Query, description = "The signing key's id"),
        ("signature" = String, Query, description = "HMAC-SHA256 of the path, expiry and key id, hex"),
    ),
    responses(
        (status = 200, description = "The NDJSON file, one alert per line", content_type = "application/x-ndjson", body = AlertLine,
            headers(
                ("Content-Disposition" = String, description = "`attachment; filename=\"<token>.ndjson\"`: a download, never rendered"),
                ("X-Content-Type-Options" = String, description = "`nosniff`"),
                ("Content-Security-Policy" = String, description = "`sandbox`"),
            )),
        (status = 403, description = "`forbidden` (bad signature) or `expired_url`", body = ErrorEnvelope),
        (status = 404, description = "The file is gone", body = ErrorEnvelope),
        (status = 503, description = "The file store is down", body = ErrorEnvelope),
    )
)]
#[allow(dead_code)]
fn download() {}

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "`ok`", body = String, content_type = "text/plain")))]
#[allow(dead_code)]
fn healthz() {}

/// The database and the object store answer.
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "Every dependency answers", body = String, content_type = "text/plain"),
        (status = 503, description = "A dependency is down", body = String, content_type = "text/plain"),
    ))]
#[allow(dead_code)]
fn readyz() {}

/// Prometheus metrics.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "OpenMetrics text", body = String, content_type = "application/openmetrics-text")))]
#[allow(dead_code)]
fn metrics() {}

/// The API's document.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Environmental insights API",
        description = "Cleanest-route scoring (RACS) and environmental alerts delivered by signed webhooks. Both operations share `POST /insights/v1/cleanest-route`; the body decides which runs.",
    ),
    paths(cleanest_route, download, healthz, readyz, metrics),
    components(schemas(InsightOutput, AlertLine, ErrorEnvelope)),
    tags(
        (name = "insights", description = "Route scores and alerts"),
        (name = "operations", description = "Health and metrics"),
    )
)]
struct ApiDoc;

/// The OpenAPI document.
#[must_use]
pub fn document() -> OpenApiDoc {
    ApiDoc::openapi()
}

/// The document as JSON, rendered once.
fn document_json() -> &'static serde_json::Value {
    static DOC: OnceLock<serde_json::Value> = OnceLock::new();
    DOC.get_or_init(|| serde_json::to_value(document()).unwrap_or_default())
}

pub(crate) async fn serve() -> impl IntoResponse {
    Json(document_json())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_is_openapi_3_1_with_every_path() {
        let doc = document_json();
        assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
        for path in [
            "/insights/v1/cleanest-route",
            "/insights/v1/files/{name}",
            "/healthz",
            "/readyz",
            "/metrics",
        ] {
            assert!(doc["paths"].get(path).is_some(), "{path} missing");
        }
        for schema in [
            "ScoreResponse",
            "RacsError",
            "ErrorEnvelope",
            "AlertAccepted",
            "InsightOutput",
        ] {
            assert!(
                doc["components"]["schemas"].get(schema).is_some(),
                "{schema} missing"
            );
        }
    }
}
