//! Every answer says where its data comes from: the `Insights-Data-Source` header on both
//! operations and the file path, and the `dataSource` member of route scores from synthetic
//! data.

use std::sync::Arc;

use aq_core::{
    AirQualitySource, AirSample, CleanlinessIndex, SampleQuery, SourceError, SourceInfo,
};
use async_trait::async_trait;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use insights_http::ApiConfig;
use tower::ServiceExt;

use crate::support::{App, app, app_over, post};

const ROUTES: &str = r#"{"routesSort": "desc", "routes": [{"id": "a", "routeDuration": 600,
    "polyline": [[13.40, 52.52], [13.41, 52.52]]}]}"#;
const POINTS: &str = r#"{"points": [{"lon": 13.4, "lat": 52.5, "id": "p"}]}"#;

/// A source of real measurements, as far as these tests can tell.
struct Measured;

#[async_trait]
impl AirQualitySource for Measured {
    fn info(&self) -> SourceInfo {
        SourceInfo::real("stations")
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        Ok(queries
            .iter()
            .map(|_| Some(AirSample::from_ci(CleanlinessIndex::new(70.0).unwrap())))
            .collect())
    }
}

async fn answer(app: &App, request: Request<Body>) -> (StatusCode, String, serde_json::Value) {
    let response = app.router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let source = response
        .headers()
        .get("insights-data-source")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        source,
        serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
    )
}

#[tokio::test]
async fn synthetic_route_scores_say_so_in_the_header_and_the_body() {
    let app = app().await;
    let (status, source, body) = answer(&app, post(Some(&app.key), ROUTES)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(source, "gradient; synthetic");
    assert_eq!(body["dataSource"]["name"], "gradient");
    assert_eq!(body["dataSource"]["synthetic"], true);
    assert!(!body["dataSource"]["notice"].as_str().unwrap().is_empty());
    assert_eq!(body["racss"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn real_route_scores_name_their_source_and_carry_no_member() {
    let app = app_over(
        ApiConfig::default(),
        axum::Router::new(),
        Arc::new(Measured),
    )
    .await;
    let (status, source, body) = answer(&app, post(Some(&app.key), ROUTES)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(source, "stations");
    assert!(body.get("dataSource").is_none(), "{body}");
}

#[tokio::test]
async fn alerts_refusals_and_files_name_their_source_too() {
    let app = app_over(
        ApiConfig::default(),
        axum::Router::new(),
        Arc::new(Measured),
    )
    .await;
    // Alerts come from the forecast source (here the synthetic in-memory one), not the route
    // source.
    let (status, source, body) = answer(&app, post(Some(&app.key), POINTS)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(source, "memory; synthetic");
    // A refusal before the body is read names the route source.
    let (status, source, _) = answer(&app, post(None, ROUTES)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(source, "stations");
    // The file path, even for a file that is not there.
    let request = Request::get("/insights/v1/files/nothing.ndjson")
        .body(Body::empty())
        .unwrap();
    let (status, source, _) = answer(&app, request).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(source, "memory; synthetic");
}
