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
use crate::lookups::backtest::{BacktestEpisodeBody, BacktestResponse};
use crate::lookups::wire::{
    AdviceBody, BasisBody, ConditionsData, ConditionsResponse, DataSourceBody, FusionBody,
    HourBody, HoursData, HoursResponse, IndexBody, LookupMetadata, ModelRunBody, PlantBody,
    PollenData, PollenDayBody, PollenResponse, PollenTypeBody, PollenTypesBody, PollutantBody,
    PollutantsBody, PositionBody, UsAqiBody,
};
use crate::provenance::DataSourceMember;
use crate::state::ApiConfig;

mod contract;
mod keyed;
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

/// One line of the NDJSON output file: the seven members of the product's specification in
/// their order, then the members for programs (from `rule_id` on), which a reader of the first
/// seven can ignore. Members may be added after these; readers must ignore members they do not
/// know.
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
    /// The id of the rule that raised the alert.
    #[schema(format = Uuid)]
    rule_id: Option<String>,
    /// When the request was evaluated: the "now" the change is measured from.
    #[schema(format = DateTime)]
    evaluated_at: Option<String>,
    /// Which way the air or pollen goes for the people at the point.
    direction: Option<AlertDirection>,
    /// What changes: `aq`, or the pollen type (`tree`, `grass`, `weed`).
    subject: Option<String>,
    /// The first hour of the change (RFC 3339, UTC) for air quality, or its first civil day at
    /// the point (`YYYY-MM-DD`) for pollen.
    starts_at: Option<String>,
    /// The rule's index at the first hour or day.
    index: Option<IndexReading>,
    /// The worst hour or day of the change in its direction (the first of equals).
    peak_at: Option<String>,
    /// The rule's index then.
    peak: Option<IndexReading>,
    /// The first hour or day after the change; `null` when it lasts to the end of the forecast
    /// read, `duration` then being the least it lasts.
    ends_at: Option<String>,
    /// How long the change lasts: hours for air quality, days for pollen.
    #[schema(minimum = 1)]
    duration: Option<u32>,
    /// Only where the forecast source gives an uncertainty (the fused nowcast): the
    /// probability that the air at the peak is in the peak's category or one beyond it.
    #[schema(minimum = 0.0, maximum = 1.0)]
    probability: Option<f64>,
    /// The language of `description` and `recommendation` (the rule's), a BCP 47 tag: `en`,
    /// `de`, `fr`, `es`, `it`, `nl`, `pl` or `pt`. The members for programs (`subject`, the
    /// categories) read the same in every language.
    #[schema(pattern = "^(en|de|fr|es|it|nl|pl|pt)$")]
    language: Option<String>,
}

/// Which way a change goes: `deterioration` (air worse, pollen up) or `improvement`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum AlertDirection {
    /// Air worse (the cleanliness index falls) or pollen up.
    Deterioration,
    /// Air better or pollen down.
    Improvement,
}

/// One value of an index, with its category.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
struct IndexReading {
    /// `cleanliness` (0 to 100, higher is cleaner; categories Excellent to Extremely poor),
    /// `us_aqi` (EPA 2024 table, higher is worse) or `pollen_level` (0 None to 5 Very high).
    code: IndexCode,
    /// The value, rounded; `null` when the hour's data give none (a US AQI needs the
    /// concentrations).
    value: Option<f64>,
    /// The category's name on the index's own scale; empty when there is no value.
    category: String,
    /// Present and `true` only when `value` is a lower bound: a US AQI whose hourly SO2 is
    /// past EPA's 1-hour rows (above 200 by an amount only a 24-hour mean could tell).
    at_least: Option<bool>,
}

/// The index a reading is on.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum IndexCode {
    /// The cleanliness index.
    Cleanliness,
    /// The US EPA AQI.
    UsAqi,
    /// The pollen level.
    PollenLevel,
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
        AlertDirection,
        IndexReading,
        IndexCode,
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
        PollenTypeBody,
        PlantBody,
        BacktestResponse,
        BacktestEpisodeBody
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
    doc["components"]["securitySchemes"][keyed::KEY_HEADER_SCHEME] = keyed::header_scheme();
    label_sources(&mut doc);
    planned_members(&mut doc);
    lookups::name_categories(&mut doc);
    keyed::add(&mut doc);
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

/// The members an answer to a planned-route body adds to the route-scoring answer's: the
/// departure it was scored at, and each route's path, duration, length and dose. Documented as
/// optional properties of the same schemas, since a planned answer is a route-scoring answer
/// with more in it.
fn planned_members(doc: &mut Value) {
    let schemas = &mut doc["components"]["schemas"];
    schemas["ScoreResponse"]["properties"]["departureTime"] = serde_json::json!({
        "type": "string",
        "format": "date-time",
        "description": "Planned routes only: when the routes were scored as leaving (RFC 3339, \
                        to the millisecond); a route posted back with it scores the same."
    });
    let entry = &mut schemas["RacsEntry"]["properties"];
    entry["polyline"] = serde_json::json!({
        "type": "array",
        "items": {"$ref": "#/components/schemas/Place"},
        "minItems": 2,
        "description": "Planned routes only: the route on the server's streets, [longitude, \
                        latitude] pairs, with points at least every 500 m."
    });
    entry["routeDuration"] = serde_json::json!({
        "type": "number",
        "minimum": 0,
        "description": "Planned routes only: how long the route takes at the travel mode's \
                        speed, in the request's `durationUnits`."
    });
    entry["routeLength"] = serde_json::json!({
        "type": "number",
        "minimum": 0,
        "description": "Planned routes only: the route's length along the streets, in the \
                        request's `lengthUnits`."
    });
    entry["inhaledPm25Ug"] = serde_json::json!({
        "type": "number",
        "minimum": 0,
        "description": "Planned routes only, when scored: the PM2.5 breathed in over the route, \
                        in µg (as route details give it)."
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
    fn the_key_is_a_required_api_key_in_the_query_or_its_header() {
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
        let header = &doc["components"]["securitySchemes"]["ApiKeyHeader"];
        assert_eq!(
            (&header["in"], &header["name"]),
            (
                &serde_json::json!("header"),
                &serde_json::json!("X-Api-Key")
            )
        );
        let operation = &doc["paths"]["/insights/v1/cleanest-route"]["post"];
        assert_eq!(
            operation["security"],
            serde_json::json!([{"ApiKeyAuth": []}, {"ApiKeyHeader": []}])
        );
        assert!(
            operation["responses"]["200"]["headers"]["RateLimit-Remaining"].is_object(),
            "every answer after the key's check says what is left"
        );
        assert!(operation["responses"]["401"]["headers"]["RateLimit-Remaining"].is_null());
        for status in ["429", "503"] {
            assert_eq!(
                operation["responses"][status]["headers"]["Retry-After"]["required"],
                true
            );
        }
    }

    #[test]
    fn every_get_of_the_api_has_its_head_and_every_category_is_listed() {
        let doc = document(&ApiConfig::default());
        for path in [
            "/insights/v1/conditions",
            "/insights/v1/forecast",
            "/insights/v1/history",
            "/insights/v1/pollen",
            "/insights/v1/alert-backtest",
            "/insights/v1/tiles/{z}/{x}/{y}.png",
            "/insights/v1/files/{name}",
        ] {
            let head = &doc["paths"][path]["head"];
            assert!(head.is_object(), "{path} has no HEAD");
            assert!(
                head["responses"]["200"]["content"].is_null(),
                "{path}: HEAD has no body"
            );
        }
        let categories =
            doc["components"]["schemas"]["IndexBody"]["properties"]["category"]["enum"]
                .as_array()
                .unwrap();
        // English first, then every other language's names.
        assert_eq!(
            categories[..6],
            [
                "Excellent",
                "Good",
                "Moderate",
                "Low",
                "Poor",
                "Extremely poor"
            ]
        );
        let german = i18n_core::Language::German.label("ci", "Extremely poor");
        assert!(categories.contains(&serde_json::json!(german)), "{german}");
    }

    #[test]
    fn every_index_code_and_category_and_the_region_code_are_described() {
        let doc = document(&ApiConfig::default());
        let schemas = &doc["components"]["schemas"];
        let entry = &schemas["IndexEntry"]["properties"];
        assert_eq!(
            entry["code"]["enum"],
            serde_json::json!([
                "ci",
                "eaqi",
                "usa_epa",
                "gbr_defra",
                "ind_cpcb",
                "chn_mep",
                "can_ec"
            ])
        );
        let categories = entry["category"]["enum"].as_array().unwrap();
        for name in [
            "Extremely poor",
            "Hazardous",
            "Very High",
            "Severe",
            "Severely Polluted",
            "Very high risk",
        ] {
            assert!(categories.iter().any(|c| c == name), "{name}");
        }
        let region = &schemas["LookupMetadata"]["properties"]["regionCode"];
        let text = region.to_string();
        assert!(text.contains("OpenStreetMap contributors"), "{text}");
        assert!(text.contains("null"), "nullable: {text}");
        let indexes = doc["paths"]["/insights/v1/conditions"]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "indexes")
            .unwrap()
            .to_string();
        assert!(
            indexes.contains("gbr_defra (GB)") || indexes.contains("`gbr_defra` (GB)"),
            "{indexes}"
        );
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
