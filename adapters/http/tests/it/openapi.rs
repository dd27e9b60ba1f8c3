//! Real responses against the served OpenAPI document.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::support::{App, app, post, send};

/// A validator for the component schema `name` of `doc`: the components ride along at the
/// root so that the document's `#/components/schemas/...` references resolve.
fn validator(doc: &Value, name: &str) -> jsonschema::Validator {
    let schema = if name == OK_RESPONSE {
        let mut schema = doc["paths"]["/insights/v1/cleanest-route"]["post"]["responses"]["200"]
            ["content"]["application/json"]["schema"]
            .clone();
        schema["components"] = doc["components"].clone();
        schema
    } else {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": format!("#/components/schemas/{name}"),
            "components": doc["components"],
        })
    };
    jsonschema::validator_for(&schema).unwrap()
}

/// The schema of the API operation's 200 answer, rather than a component.
const OK_RESPONSE: &str = "200 of POST /insights/v1/cleanest-route";

pub(crate) fn assert_valid(doc: &Value, name: &str, instance: &Value) {
    let v = validator(doc, name);
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{name} does not match the document: {errors:?}\n{instance:#}"
    );
}

pub(crate) async fn document(app: &App) -> Value {
    let (status, doc) = send(
        app,
        Request::get("/insights/v1/openapi.json")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    doc
}

const ROUTES: &str = r#"{"routesSort": "desc", "durationUnits": "m", "routes": [
    {"id": "1", "polyline": [[-74.0, 40.70], [-74.0, 40.71], [-74.0, 40.72]], "routeDuration": 12},
    {"id": 2, "polyline": "[[-74.0, 40.70], [-73.99, 40.705], [-74.0, 40.72]]", "routeDuration": 14},
    {"id": "far", "polyline": [[-74.0, 40.70], [-73.0, 41.7]], "routeDuration": 90}
]}"#;

#[tokio::test]
async fn the_document_is_openapi_3_1() {
    let app = app().await;
    let doc = document(&app).await;
    assert!(
        doc["openapi"].as_str().unwrap().starts_with("3.1"),
        "{}",
        doc["openapi"]
    );
    assert!(doc["paths"]["/insights/v1/cleanest-route"]["post"].is_object());
}

#[tokio::test]
async fn the_request_schemas_allow_what_the_server_accepts_and_no_unknown_member() {
    let app = app().await;
    let doc = document(&app).await;
    let routes: Value = serde_json::from_str(ROUTES).unwrap();
    assert_valid(&doc, "CleanestRouteBody", &routes);
    let points =
        json!({"points": [{"lon": -74.0, "lat": 40.7, "id": 17, "custom_data": {"a": 1}}]});
    assert_valid(&doc, "CleanestRouteBody", &points);
    let body = validator(&doc, "CleanestRouteBody");
    for refused in [
        json!({"points": [{"lon": 0, "lat": 0, "id": "a"}], "routesSort": "asc"}),
        json!({"points": [{"lon": 0, "lat": 0, "id": "a", "extra": 1}]}),
        json!({"routes": [{"id": "a", "polyline": [[0, 0, 0]], "routeDuration": 1}], "routesSort": "asc"}),
        json!({"routes": [{"id": "a", "polyline": [[0, 0]], "routeDuration": 604801}], "routesSort": "asc"}),
        json!({"routes": [{"id": "", "polyline": [[0, 0]], "routeDuration": 1}], "routesSort": "asc"}),
        json!({"routes": [], "routesSort": "asc"}),
        json!({"points": [], "routes": []}),
        json!({"routes": [{"id": "a", "polyline": [[0, 0], [0, 0.01]], "routeDuration": 1}],
               "routesSort": "asc", "departureWindowMinutes": 14}),
        json!({"routes": [{"id": "a", "polyline": [[0, 0], [0, 0.01]], "routeDuration": 1}],
               "routesSort": "asc", "departureWindowMinutes": 60, "departureStepMinutes": 4}),
        json!({"routes": [{"id": "a", "polyline": [[0, 0], [0, 0.01]], "routeDuration": 1}],
               "routesSort": "asc", "departureWindowMinutes": 30.5}),
    ] {
        assert!(!body.is_valid(&refused), "the document allows {refused}");
        let (status, answer) = send(&app, post(Some(&app.key), &refused.to_string())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{refused} → {answer}");
    }
}

#[tokio::test]
async fn route_scores_match_the_document() {
    let app = app().await;
    let doc = document(&app).await;
    let (status, body) = send(&app, post(Some(&app.key), ROUTES)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The long straight route is refused (102) while the others score.
    assert_eq!(body["completionStatus"], "CompletedWithErrors", "{body:#}");
    assert_valid(&doc, "ScoreResponse", &body);
    assert_valid(&doc, OK_RESPONSE, &body);
}

#[tokio::test]
async fn a_best_departure_time_matches_the_document() {
    let app = app().await;
    let doc = document(&app).await;
    let mut request: Value = serde_json::from_str(ROUTES).unwrap();
    request["departureTime"] = json!("2026-05-01T08:00:00Z");
    request["departureWindowMinutes"] = json!(60);
    request["departureStepMinutes"] = json!(20);
    assert_valid(&doc, "CleanestRouteBody", &request);
    let (status, body) = send(&app, post(Some(&app.key), &request.to_string())).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let best = body["recommendations"].as_array().unwrap().last().unwrap();
    assert_eq!(best["code"], "BestDepartureTime", "{body:#}");
    assert_eq!(best["additionalData"]["type"], "departureTime", "{body:#}");
    assert_valid(&doc, "ScoreResponse", &body);
    assert_valid(&doc, OK_RESPONSE, &body);
}

#[tokio::test]
async fn too_many_departure_scorings_are_413_in_the_envelope() {
    let mut config = insights_http::ApiConfig::default();
    config.route_limits.max_departure_scorings = 5;
    let app = crate::support::app_with(config, axum::Router::new()).await;
    let doc = document(&app).await;
    let mut request: Value = serde_json::from_str(ROUTES).unwrap();
    // Three routes × two later departures: 6 scorings, over the limit of 5.
    request["departureWindowMinutes"] = json!(30);
    let (status, body) = send(&app, post(Some(&app.key), &request.to_string())).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["error"]["code"], "payload_too_large");
    assert_eq!(
        body["error"]["detail"],
        "departureWindowMinutes: 3 routes × 2 later departures are 6 scorings, more than the \
         limit of 5 (max_departure_scorings)"
    );
    assert_valid(&doc, "ErrorEnvelope", &body);
}

#[tokio::test]
async fn an_accepted_alert_request_matches_the_document() {
    let app = app().await;
    let doc = document(&app).await;
    let (status, body) = send(
        &app,
        post(
            Some(&app.key),
            r#"{"points": [{"lon": -74.0, "lat": 40.7, "id": 17, "custom_data": {"a": 1}}]}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_valid(&doc, "AlertAccepted", &body);
    assert_valid(&doc, OK_RESPONSE, &body);
}

#[tokio::test]
async fn every_error_matches_the_envelope() {
    let app = app().await;
    let doc = document(&app).await;
    let cases: Vec<(Request<Body>, StatusCode, &str)> = vec![
        (
            post(None, ROUTES),
            StatusCode::UNAUTHORIZED,
            "missing_api_key",
        ),
        (
            post(Some("ik_nope"), ROUTES),
            StatusCode::UNAUTHORIZED,
            "invalid_api_key",
        ),
        (
            post(Some(&app.key), "{"),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            post(Some(&app.key), r#"{"points": [], "routes": []}"#),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            post(
                Some(&app.bare_key),
                r#"{"points": [{"lon": 1, "lat": 2, "id": "a"}]}"#,
            ),
            StatusCode::BAD_REQUEST,
            "webhook_not_configured",
        ),
        (
            Request::post(format!("/insights/v1/cleanest-route?key={}", app.key))
                .header("content-type", "text/plain")
                .body(Body::from(ROUTES))
                .unwrap(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
        ),
        (
            Request::get("/nowhere").body(Body::empty()).unwrap(),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            Request::get("/insights/v1/cleanest-route")
                .body(Body::empty())
                .unwrap(),
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        ),
        (
            Request::get("/insights/v1/files/x.ndjson?expires=1&kid=a&signature=00")
                .body(Body::empty())
                .unwrap(),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
    ];
    for (request, status, code) in cases {
        let what = format!("{} {}", request.method(), request.uri());
        let (got, body) = send(&app, request).await;
        assert_eq!(got, status, "{what}: {body}");
        assert_eq!(body["error"]["code"], code, "{what}: {body}");
        assert!(
            !body["error"]["detail"].as_str().unwrap().is_empty(),
            "{what}"
        );
        assert_valid(&doc, "ErrorEnvelope", &body);
    }
}

#[tokio::test]
async fn validation_errors_name_the_json_path() {
    let app = app().await;
    let body = r#"{"routesSort": "desc", "routes": [{"id": "a", "polyline": [[0, 0], [0, 95.1]], "routeDuration": 3}]}"#;
    let (status, body) = send(&app, post(Some(&app.key), body)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let detail = body["error"]["detail"].as_str().unwrap();
    assert!(detail.starts_with("routes[0].polyline[1]"), "{detail}");
    assert!(detail.contains("95.1"), "{detail}");
}

#[tokio::test]
async fn the_validator_refuses_what_the_document_does_not_promise() {
    let app = app().await;
    let doc = document(&app).await;
    let (_, mut body) = send(&app, post(Some(&app.key), ROUTES)).await;
    body["racss"][0]["RACS"] = json!(101);
    assert!(
        !validator(&doc, "ScoreResponse").is_valid(&body),
        "RACS above 100 passed"
    );
    body["racss"][0]["RACS"] = json!(50);
    body["completionStatus"] = json!("Done");
    assert!(
        !validator(&doc, "ScoreResponse").is_valid(&body),
        "an unknown status passed"
    );
    let envelope = json!({"metadata": null, "data": null, "error": {"code": "x"}});
    assert!(
        !validator(&doc, "ErrorEnvelope").is_valid(&envelope),
        "an error without detail passed"
    );
}

/// The lines an evaluation writes, for air quality on both index scales and for pollen.
async fn alert_lines() -> Vec<Value> {
    use alerts_core::evaluate::Evaluator;
    use alerts_core::ids::RuleId;
    use alerts_core::ndjson::NdjsonEncoder;
    use alerts_core::request::AlertPoint;
    use alerts_core::rule::{
        AlertRule, AqIndex, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity,
    };
    use aq_core::memory::MemoryForecast;
    use aq_core::{
        CleanlinessIndex, PollenLevel, PollenLevels, PollenOutlook, PollenType, Position,
    };
    use chrono::TimeZone;

    let now = chrono::Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
    let forecast = MemoryForecast::anchored(now);
    let point = AlertPoint {
        position: Position::new(2.35, 48.85).unwrap(),
        id: "user-17".into(),
        custom_data: r#"{"a":1}"#.into(),
    };
    let ci = |v| Some(CleanlinessIndex::new(v).unwrap());
    forecast.set_hourly(point.position, vec![ci(70.0), ci(38.0), ci(15.0), ci(70.0)]);
    let grass = |v| PollenLevels::default().with(PollenType::Grass, PollenLevel::new(v).unwrap());
    forecast.set_pollen(
        point.position,
        PollenOutlook {
            today: now.date_naive(),
            yesterday: grass(1),
            days: vec![grass(3), grass(4)],
        },
    );
    let rule = |n: u128, data_type, horizon, index| AlertRule {
        id: format!("00000000-0000-0000-0000-{n:012}")
            .parse::<RuleId>()
            .unwrap(),
        key_id: "00000000-0000-0000-0000-000000000001".parse().unwrap(),
        spec: RuleSpec::new(
            data_type,
            horizon,
            Sensitivity::Medium,
            MessageSpec::Default,
        )
        .unwrap()
        .with_aq_index(index),
        enabled: true,
        created_at: now,
    };
    let rules = vec![
        rule(1, DataType::Aq, Forecast::Hours(3), AqIndex::Cleanliness),
        // No concentrations: a US AQI rule's values are null.
        rule(2, DataType::Aq, Forecast::Hours(3), AqIndex::UsEpa),
        rule(3, DataType::Pollen, Forecast::Days(1), AqIndex::Cleanliness),
    ];
    let points = vec![point];
    let evaluator = Evaluator::default();
    let fc = evaluator
        .fetch(&forecast, &rules, &points, now)
        .await
        .unwrap();
    let mut encoder = NdjsonEncoder::new();
    evaluator.evaluate_chunk(&rules, &points, &fc, |alert| {
        encoder.encode(&alert.line()).unwrap();
    });
    let file = encoder.finish();
    std::str::from_utf8(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn every_member_of_an_alert_line_is_documented_and_matches_the_document() {
    let app = app().await;
    let doc = document(&app).await;
    let lines = alert_lines().await;
    assert_eq!(lines.len(), 3, "{lines:#?}");
    let documented = doc["components"]["schemas"]["AlertLine"]["properties"]
        .as_object()
        .unwrap();
    for line in &lines {
        assert_valid(&doc, "AlertLine", line);
        for member in line.as_object().unwrap().keys() {
            assert!(
                documented.contains_key(member),
                "`{member}` is not in the document"
            );
        }
    }
    assert_eq!(lines[1]["index"]["code"], "us_aqi");
    assert_eq!(lines[1]["index"]["value"], Value::Null);
    assert_eq!(lines[2]["starts_at"], "2026-05-01");
}
