//! The cleanest-route path's third body: routes planned between two places on the server's
//! streets (`--roads`), answered in the route-scoring answer's shape with each route's path.

use racs_core::journey::JourneyError;
use racs_core::journey_request::{JourneyRequest, PlannedRoutes};
use serde_json::{Value, json};

use crate::error::{ApiError, ErrorCode};
use crate::extract::{RequestId, body_unavailable};
use crate::spool::Spool;
use crate::state::AppState;

/// Reads a planned-route request from the body (a few hundred bytes: any larger body is
/// refused by the member scan or the reader before it is built).
pub(crate) fn journey_request(spool: &Spool) -> Result<JourneyRequest, ApiError> {
    let bytes = match spool.as_bytes() {
        Some(bytes) => bytes.to_vec(),
        None => {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(
                &mut spool.reader().map_err(|e| body_unavailable(&e))?,
                &mut bytes,
            )
            .map_err(|e| body_unavailable(&e))?;
            bytes
        }
    };
    JourneyRequest::from_json_slice(&bytes)
        .map_err(|e| ApiError::new(ErrorCode::InvalidRequest, e.to_string()))
}

/// Plans and scores the routes of `request`, as the answer's JSON.
pub(crate) async fn plan(
    state: &AppState,
    request_id: &RequestId,
    request: JourneyRequest,
) -> Result<Value, ApiError> {
    let Some(streets) = state.streets() else {
        return Err(ApiError::invalid(
            "origin: this server plans no routes: it has no streets (an operator starts it \
             with --roads and an OpenStreetMap extract); send `routes` to score routes of your \
             own",
        ));
    };
    let planned = state
        .scorer()
        .plan(streets.as_ref(), &request)
        .await
        .map_err(|e| journey_error(request_id, e))?;
    Ok(answer(planned))
}

/// The route-scoring answer of `planned`, each `racss` entry with its route's `polyline`
/// (`[lon, lat]` pairs on the street network), `routeDuration` and `routeLength`.
fn answer(planned: PlannedRoutes) -> Value {
    let mut body = serde_json::to_value(&planned.scores).unwrap_or(Value::Null);
    if let Some(entries) = body.get_mut("racss").and_then(Value::as_array_mut) {
        for entry in entries {
            let id = entry.get("routeId").and_then(Value::as_str).unwrap_or("");
            let Some(route) = planned.routes.iter().find(|r| r.id.as_str() == id) else {
                continue;
            };
            let polyline: Vec<[f64; 2]> = route.path.positions.iter().map(|&p| p.into()).collect();
            entry["polyline"] = json!(polyline);
            entry["routeDuration"] = json!(route.duration);
            entry["routeLength"] = json!(route.length);
        }
    }
    body
}

/// Each reason no route was planned, as the 4xx naming the member it is about.
fn journey_error(request_id: &RequestId, e: JourneyError) -> ApiError {
    match &e {
        JourneyError::OffStreet { field, .. } => ApiError::invalid(format!("{field}: {e}")),
        JourneyError::SamePlace | JourneyError::NoConnection(_) | JourneyError::TooFar => {
            ApiError::invalid(format!("destination: {e}"))
        }
        JourneyError::Source(cause) => {
            tracing::warn!(request_id = %request_id.0, error = %cause, "air-quality source unavailable");
            ApiError::unavailable(
                "the air-quality source is unavailable; retry shortly",
                crate::error::RETRY_AFTER_UNAVAILABLE,
            )
        }
    }
}
