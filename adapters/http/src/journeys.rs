//! The cleanest-route path's third body: routes planned between two places on the server's
//! streets (`--roads`), answered in the route-scoring answer's shape with each route's path.

use racs_core::journey::JourneyError;
use racs_core::journey_request::{JourneyRequest, PlannedRoutes};
use serde_json::{Value, json};

use crate::error::{ApiError, ErrorCode};
use identity_core::ids::KeyId;

use crate::extract::{RequestId, body_unavailable};
use crate::gate::Turn;
use crate::spool::Spool;
use crate::state::AppState;

/// The largest planned-route body read: its members fit in a few hundred bytes.
const MAX_JOURNEY_BYTES: u64 = 4 * 1024;

/// Reads a planned-route request from the body.
pub(crate) fn journey_request(spool: &Spool) -> Result<JourneyRequest, ApiError> {
    if spool.len() > MAX_JOURNEY_BYTES {
        return Err(ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "a planned-route body is at most {MAX_JOURNEY_BYTES} bytes; this one is {}",
                spool.len()
            ),
        ));
    }
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

/// Plans and scores the routes of `request`, as the answer's JSON. Planning is CPU work (path
/// searches, the air of every street of the corridor): it runs on the blocking pool, one at a
/// time per key and a few at a time across the server (503 beyond), as large bodies are
/// parsed, so that it never stalls other connections.
pub(crate) async fn plan(
    state: &AppState,
    request_id: &RequestId,
    key: KeyId,
    request: JourneyRequest,
) -> Result<Value, ApiError> {
    let turn = state.parse_turn(key).await;
    planned_holding(state, request_id, request, Some(turn))
        .await
        .map(answer)
}

/// Plans and scores the routes of `request` as the API does, for a caller that has checked
/// its own limits (the dashboard's playground): on the blocking pool, a few at a time across
/// the server (503 beyond).
///
/// # Errors
/// The API's refusal: 400 naming the member, 503 when the server is busy or the source down.
pub async fn planned(
    state: &AppState,
    request_id: &RequestId,
    request: JourneyRequest,
) -> Result<PlannedRoutes, ApiError> {
    planned_holding(state, request_id, request, None).await
}

/// [`planned`], holding the key's `turn` until the planning itself ends: a request abandoned
/// (its client gone, its time out) frees neither before the work it started is done.
async fn planned_holding(
    state: &AppState,
    request_id: &RequestId,
    request: JourneyRequest,
    turn: Option<Turn<KeyId>>,
) -> Result<PlannedRoutes, ApiError> {
    let Some(streets) = state.streets().cloned() else {
        return Err(ApiError::invalid(
            "origin: this server plans no routes: it has no streets (an operator starts it \
             with --roads and an OpenStreetMap extract); send `routes` to score routes of your \
             own",
        ));
    };
    let permit = state.parse_permit()?;
    let scorer = state.scorer().clone();
    let limits = state.config().route_limits.clone();
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let planned = handle.block_on(scorer.plan(streets.as_ref(), &request, &limits));
        drop((permit, turn));
        planned
    })
    .await
    .map_err(|e| ApiError::internal(&request_id.0, &e))?
    .map_err(|e| journey_error(request_id, e))
}

/// The route-scoring answer of `planned`, each `racss` entry with its route's `polyline`
/// (`[lon, lat]` pairs on the street network), `routeDuration`, `routeLength` and, when it was
/// scored, `inhaledPm25Ug` (the dose, as route details give it).
fn answer(planned: PlannedRoutes) -> Value {
    let mut body = serde_json::to_value(&planned.scores).unwrap_or(Value::Null);
    // The departure the routes were scored at: a route posted back with it scores the same.
    body["departureTime"] = json!(racs_core::UtcMillis(planned.departure).to_string());
    if let Some(entries) = body.get_mut("racss").and_then(Value::as_array_mut) {
        for entry in entries {
            let id = entry.get("routeId").and_then(Value::as_str).unwrap_or("");
            let Some(route) = planned.routes.iter().find(|r| r.id.as_str() == id) else {
                continue;
            };
            let polyline: Vec<[f64; 2]> = route.polyline.iter().map(|&p| p.into()).collect();
            entry["polyline"] = json!(polyline);
            entry["routeDuration"] = json!(route.duration);
            entry["routeLength"] = json!(route.length);
            if let Some(dose) = route.inhaled_pm25_ug {
                entry["inhaledPm25Ug"] = json!(dose);
            }
        }
    }
    body
}

/// Each reason no route was planned, as the 4xx naming the member it is about.
fn journey_error(request_id: &RequestId, e: JourneyError) -> ApiError {
    match &e {
        JourneyError::OffStreet { field, .. } => ApiError::invalid(format!("{field}: {e}")),
        JourneyError::SamePlace
        | JourneyError::NoConnection(_)
        | JourneyError::TooFar
        | JourneyError::TooLong(_)
        | JourneyError::Unscorable(_) => ApiError::invalid(format!("destination: {e}")),
        JourneyError::Source(cause) => {
            tracing::warn!(request_id = %request_id.0, error = %cause, "air-quality source unavailable");
            ApiError::unavailable(
                "the air-quality source is unavailable; retry shortly",
                crate::error::RETRY_AFTER_UNAVAILABLE,
            )
        }
    }
}
