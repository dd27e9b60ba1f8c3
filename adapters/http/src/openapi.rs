//! The OpenAPI 3.1 document of the API, served at `GET /insights/v1/openapi.json`.
//!
//! Response schemas come from the types the handlers serialise (the route-scoring response is
//! derived in `racs-core`), so they cannot drift from what is sent. The two API operations and
//! their request bodies are written in the `contract` module from the server's configured limits, so
//! that the document states every limit, range and refusal the server applies; the schema test
//! checks both ways that the server answers as the document says.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::IntoResponse;
use racs_core::ScoreResponse;
use serde::Serialize;
use serde_json::Value;
use utoipa::{OpenApi, ToSchema};

use crate::api::AlertAccepted;
use crate::error::ErrorEnvelope;
use crate::lookups::wire::{
    AdviceBody, BasisBody, ConditionsData, ConditionsResponse, DataSourceBody, FusionBody,
    HourBody, HoursData, HoursResponse, IndexBody, LookupMetadata, ModelRunBody, PollenData,
    PollenDayBody, PollenResponse, PollenTypeBody, PollenTypesBody, PollutantBody, PollutantsBody,
    PositionBody, UsAqiBody,
};
use crate::provenance::DataSourceMember;
use crate::state::ApiConfig;

mod contract;
mod lookups;

/// The webhook delivery (INSIGHT_OUTPUT) POSTed to your webhook URL, with Standard Webhooks
/// headers `webhook-id`, `webhook-timestamp` and `webhook-signature`, and
/// `Insights-Data-Source` naming the forecast source of its alerts (not signed).
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

/// The parts of the document derived from the code: the response types the handlers
/// serialise, and the operations around the API.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Environmental insights API",
        description = "Cleanest-route scoring (RACS) and environmental alerts delivered by signed webhooks. Both operations share `POST /insights/v1/cleanest-route`; the body decides which runs.",
    ),
    paths(healthz, readyz, metrics),
    components(schemas(
        ScoreResponse,
        AlertAccepted,
        InsightOutput,
        AlertLine,
        ErrorEnvelope,
        DataSourceMember,
        ConditionsResponse,
        ConditionsData,
        HoursResponse,
        HoursData,
        PollenResponse,
        PollenData,
        LookupMetadata,
        PositionBody,
        DataSourceBody,
        BasisBody,
        ModelRunBody,
        FusionBody,
        HourBody,
        IndexBody,
        PollutantsBody,
        PollutantBody,
        UsAqiBody,
        AdviceBody,
        PollenDayBody,
        PollenTypesBody,
        PollenTypeBody
    )),
    tags(
        (name = "insights", description = "Route scores and alerts"),
        (name = "lookups", description = "A place's air now, by the hour ahead and back, and its pollen by the day"),
        (name = "operations", description = "Health and metrics"),
    )
)]
struct ApiDoc;

/// The OpenAPI document of a server with `config`: the limits it states are the ones the
/// server applies.
#[must_use]
pub fn document(config: &ApiConfig) -> Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
    doc["paths"]["/insights/v1/cleanest-route"] =
        serde_json::json!({"post": contract::cleanest_route_operation(config)});
    doc["paths"]["/insights/v1/files/{name}"] = contract::download_operations();
    doc["paths"]["/insights/v1/tiles/{z}/{x}/{y}.png"] = contract::tile_operation();
    for (path, operation) in lookups::operations() {
        doc["paths"][path] = operation;
    }
    if let (Some(schemas), Value::Object(requests)) = (
        doc["components"]["schemas"].as_object_mut(),
        contract::request_schemas(config),
    ) {
        schemas.extend(requests);
    }
    doc["components"]["securitySchemes"] = contract::security_schemes();
    label_sources(&mut doc);
    doc
}

/// Documents `Insights-Data-Source` on every answer of both operations and of the file
/// downloads, and the `dataSource` member of route responses scored on synthetic data.
fn label_sources(doc: &mut Value) {
    let header = serde_json::json!({
        "description": "Where the data comes from: the source's name, then `; synthetic` for \
                        made-up data, as in `demo; synthetic`. Route scores name the \
                        air-quality source; alert acceptances and files name the forecast \
                        source alerts are evaluated from; tiles name the air-quality source.",
        "required": true,
        "schema": {"type": "string", "examples": ["demo; synthetic", "open-meteo"]}
    });
    for (path, methods) in [
        ("/insights/v1/cleanest-route", &["post"][..]),
        ("/insights/v1/files/{name}", &["get", "head"][..]),
    ] {
        for method in methods {
            if let Some(responses) = doc["paths"][path][*method]["responses"].as_object_mut() {
                for (status, answer) in responses.iter_mut() {
                    // A 405 is no answer of the operation: the method is not one of its own.
                    if status != "405" {
                        answer["headers"]["Insights-Data-Source"] = header.clone();
                    }
                }
            }
        }
    }
    // Tiles: the picture and its revalidation; refusals are the API's error envelope.
    let tile = "/insights/v1/tiles/{z}/{x}/{y}.png";
    if let Some(responses) = doc["paths"][tile]["get"]["responses"].as_object_mut() {
        for status in ["200", "304"] {
            if let Some(answer) = responses.get_mut(status) {
                answer["headers"]["Insights-Data-Source"] = header.clone();
            }
        }
    }
    let member = &mut doc["components"]["schemas"]["ScoreResponse"]["properties"]["dataSource"];
    *member = serde_json::json!({
        "$ref": "#/components/schemas/DataSourceMember",
        "description": "An extension member, present only when the scores come from synthetic \
                        data (the demo field): not measurements, not a forecast."
    });
}

pub(crate) async fn serve(State(document): State<Arc<Value>>) -> impl IntoResponse {
    Json(document.as_ref().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_is_openapi_3_1_with_every_path() {
        let doc = document(&ApiConfig::default());
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

    #[test]
    fn every_answer_of_both_operations_names_its_data_source() {
        let doc = document(&ApiConfig::default());
        let mut seen = 0;
        for (path, method) in [
            ("/insights/v1/cleanest-route", "post"),
            ("/insights/v1/files/{name}", "get"),
            ("/insights/v1/files/{name}", "head"),
        ] {
            for (status, answer) in doc["paths"][path][method]["responses"].as_object().unwrap() {
                if status != "405" {
                    assert_eq!(
                        answer["headers"]["Insights-Data-Source"]["required"], true,
                        "{path} {method} {status}"
                    );
                    seen += 1;
                }
            }
        }
        assert!(seen > 10, "{seen}");
        let tile = &doc["paths"]["/insights/v1/tiles/{z}/{x}/{y}.png"]["get"]["responses"];
        assert_eq!(
            tile["200"]["headers"]["Insights-Data-Source"]["required"],
            true
        );
        let member = &doc["components"]["schemas"]["ScoreResponse"]["properties"]["dataSource"];
        assert_eq!(member["$ref"], "#/components/schemas/DataSourceMember");
        assert!(doc["components"]["schemas"]["DataSourceMember"].is_object());
    }

    #[test]
    fn the_limits_stated_are_the_configured_ones() {
        let mut config = ApiConfig::default();
        config.route_limits.max_routes = 3;
        config.route_limits.max_vertices_per_route = 7;
        config.point_limits.max_points = 5;
        config.route_limits.max_departure_scorings = 11;
        let doc = document(&config);
        let schemas = &doc["components"]["schemas"];
        assert_eq!(
            schemas["ScoreRequest"]["properties"]["routes"]["maxItems"],
            3
        );
        assert_eq!(schemas["Polyline"]["oneOf"][0]["maxItems"], 7);
        assert_eq!(
            schemas["AlertRequest"]["properties"]["points"]["maxItems"],
            5
        );
        assert_eq!(
            schemas["Route"]["properties"]["routeDuration"]["maximum"],
            604_800.0
        );
        let window = &schemas["ScoreRequest"]["properties"]["departureWindowMinutes"];
        assert!(
            window["description"]
                .as_str()
                .unwrap()
                .contains("Routes × later departures is at most 11 (413 beyond)"),
            "{window}"
        );
        assert_eq!(
            (&window["minimum"], &window["maximum"]),
            (&15.into(), &720.into())
        );
    }

    #[test]
    fn every_request_object_refuses_unknown_members() {
        let doc = document(&ApiConfig::default());
        for schema in ["AlertRequest", "AlertPoint", "ScoreRequest", "Route"] {
            assert_eq!(
                doc["components"]["schemas"][schema]["additionalProperties"], false,
                "{schema}"
            );
        }
    }

    #[test]
    fn the_key_is_a_required_api_key_in_the_query() {
        let doc = document(&ApiConfig::default());
        let scheme = &doc["components"]["securitySchemes"]["ApiKeyAuth"];
        assert_eq!(
            (&scheme["type"], &scheme["in"], &scheme["name"]),
            (
                &serde_json::json!("apiKey"),
                &serde_json::json!("query"),
                &serde_json::json!("key")
            )
        );
        let operation = &doc["paths"]["/insights/v1/cleanest-route"]["post"];
        assert_eq!(
            operation["security"],
            serde_json::json!([{"ApiKeyAuth": []}])
        );
        for status in ["429", "503"] {
            assert_eq!(
                operation["responses"][status]["headers"]["Retry-After"]["required"],
                true
            );
        }
    }

    #[test]
    fn no_description_names_a_rust_item() {
        let text = document(&ApiConfig::default()).to_string();
        for rust in [
            "::",
            "RacsConfig",
            "ErrorCode",
            "include_details",
            "[`",
            "Option<",
        ] {
            assert!(!text.contains(rust), "the document mentions {rust}");
        }
    }
}
