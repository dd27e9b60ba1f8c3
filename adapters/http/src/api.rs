//! `POST /insights/v1/cleanest-route`: one path, three bodies (alerts, route scores, planned
//! routes), told apart by their members.

use std::sync::Arc;
use std::time::{Duration, Instant};

use alerts_core::idempotency::Idempotency;
use alerts_core::request::RequestError;
use axum::Json;
use axum::extract::State;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use identity_core::ids::KeyId;
use racs_core::ScoreRequest;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ApiError, ErrorCode, store_unavailable};
use crate::extract::{
    Authenticated, IdempotencyHeader, JsonBody, KeyOnly, RequestId, body_unavailable,
};
use crate::headers::{DATA_SOURCE_HEADER, IDEMPOTENT_REPLAYED};
use crate::provenance::DataSourceMember;
use crate::spool::{Spool, SpoolPages};
use crate::state::AppState;

/// The response of an accepted alert request.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct AlertAccepted {
    /// Null on success.
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
    /// Holds the token.
    pub data: TokenData,
    /// Null on success.
    #[schema(value_type = Option<Object>)]
    pub error: Option<Value>,
}

/// The `data` member of an accepted alert request.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct TokenData {
    /// Identifies this request; repeated as `TOKEN` in the webhook delivery.
    pub token: String,
}

/// Route-scoring requests that need at most this many air-quality samples in all are scored on
/// the connection's own task (well under a millisecond of work); larger ones go to the
/// blocking pool, so that they cannot stall other connections.
const INLINE_SAMPLES: usize = 500;

/// Which operation a body asks for.
enum Operation {
    /// A checked alert request of this many points, still in the spool.
    Alerts(u64),
    Routes(ScoreRequest),
    /// Routes to plan between two places, then score.
    Journey(racs_core::journey_request::JourneyRequest),
}

/// Handles both operations of the shared path.
pub(crate) async fn cleanest_route(
    State(state): State<AppState>,
    request_id: RequestId,
    Authenticated(key_id): Authenticated,
    _only_key: KeyOnly,
    idempotency: IdempotencyHeader,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let spool = &body.spool;
    let operation = parse_off_thread(&state, &request_id, key_id, spool, parse_body).await??;

    match operation {
        Operation::Alerts(count) => {
            // Only alert requests store anything; scoring is safe to repeat as it is.
            let idempotency = match idempotency.key()? {
                None => None,
                Some(key) => {
                    let fingerprint = parse_off_thread(
                        &state,
                        &request_id,
                        key_id,
                        spool,
                        move |state, spool| {
                            spool
                                .fingerprint(&state.config().point_limits, count)
                                .map_err(request_error)
                        },
                    )
                    .await??;
                    Some(Idempotency { key, fingerprint })
                }
            };
            let mut pages = SpoolPages::new(Arc::clone(spool), state.config().point_limits, count);
            let accepted = state
                .alerts()
                .accept_pages(key_id, &mut pages, idempotency)
                .await
                .map_err(|e| accept_error(&request_id, e))?;
            let mut response = Json(AlertAccepted {
                metadata: None,
                data: TokenData {
                    token: accepted.token.to_string(),
                },
                error: None,
            })
            .into_response();
            if accepted.replayed {
                response
                    .headers_mut()
                    .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
            }
            // Alerts come from the forecast source, which may not be the route source.
            response
                .headers_mut()
                .insert(DATA_SOURCE_HEADER, state.provenance().alerts.clone());
            Ok(response)
        }
        Operation::Routes(request) => {
            let started = Instant::now();
            let response = score(&state, &request_id, request).await?;
            tracing::debug!(
                routes = response.racss.len(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "routes scored"
            );
            Ok(Json(Labelled {
                response,
                data_source: state.provenance().member.as_ref(),
            })
            .into_response())
        }
        Operation::Journey(request) => {
            let mut answer = crate::journeys::plan(&state, &request_id, key_id, request).await?;
            if let Some(member) = state.provenance().member.as_ref() {
                answer["dataSource"] = serde_json::to_value(member).unwrap_or(Value::Null);
            }
            Ok(Json(answer).into_response())
        }
    }
}

/// A route response with the `dataSource` extension member when the data is synthetic.
#[derive(Serialize)]
struct Labelled<'a> {
    #[serde(flatten)]
    response: racs_core::ScoreResponse,
    #[serde(rename = "dataSource", skip_serializing_if = "Option::is_none")]
    data_source: Option<&'a DataSourceMember>,
}

/// Scores `request`: on this task when it needs few samples, else on the blocking pool,
/// since sampling and weighing thousands of points per route would stall other connections.
///
/// # Errors
/// 500 when the scoring task fails.
pub async fn score(
    state: &AppState,
    request_id: &RequestId,
    request: ScoreRequest,
) -> Result<racs_core::ScoreResponse, ApiError> {
    score_report(state, request_id, request)
        .await
        .map(|report| report.response)
}

/// [`score`], with each route's outcome beside the response (its dose among them): what the
/// dashboard's playground shows.
///
/// # Errors
/// 500 when the scoring task fails.
pub async fn score_report(
    state: &AppState,
    request_id: &RequestId,
    request: ScoreRequest,
) -> Result<racs_core::ScoreReport, ApiError> {
    let scorer = state.scorer().clone();
    if scorer.planned_samples(&request) <= INLINE_SAMPLES {
        return Ok(scorer.score_report(&request).await);
    }
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || handle.block_on(scorer.score_report(&request)))
        .await
        .map_err(|e| ApiError::internal(&request_id.0, &e))
}

/// Runs `parse` on the spooled body: on this task for a small body, on the blocking pool for
/// a large one, whose parsing is CPU work (and, for a file, blocking reads) that would stall
/// other connections. Large bodies are parsed one at a time per key (the next waits its turn)
/// and a few at a time across the server (503 beyond), so that one key never holds more than
/// one of the server's places; a parse whose request was abandoned (its client went away, or
/// its time ran out) stops at the spool's next read.
async fn parse_off_thread<T, F>(
    state: &AppState,
    request_id: &RequestId,
    key: KeyId,
    spool: &Arc<Spool>,
    parse: F,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&AppState, &Spool) -> T + Send + 'static,
{
    if spool.parse_inline() {
        return Ok(parse(state, spool));
    }
    let turn = state.parse_turn(key).await;
    let permit = state.parse_permit()?;
    let (state, spool) = (state.clone(), Arc::clone(spool));
    tokio::task::spawn_blocking(move || {
        let parsed = parse(&state, &spool);
        drop((permit, turn));
        parsed
    })
    .await
    .map_err(|e| ApiError::internal(&request_id.0, &e))
}

fn parse_body(state: &AppState, spool: &Spool) -> Result<Operation, ApiError> {
    // The top-level members' names, their values skipped unbuilt: which operation the body
    // asks for is known before any of it is built. Each operation's reader then reads the body
    // again, and refuses what its operation does not define.
    let members = top_level_members(spool)?;
    if members.journey {
        if members.points || members.routes {
            return Err(ApiError::invalid(
                "the body has `origin` or `destination` (a planned route) with `points` or \
                 `routes`; send each request on its own",
            ));
        }
        return crate::journeys::journey_request(spool).map(Operation::Journey);
    }
    match (members.points, members.routes) {
        (true, false) => spool
            .count_points(&state.config().point_limits)
            .map(Operation::Alerts)
            .map_err(request_error),
        (false, true) => route_request(state, spool).map(Operation::Routes),
        (true, true) => Err(ApiError::invalid(
            "the body has both `points` and `routes`; send an alert request (`points`) and a \
             route-scoring request (`routes`) separately",
        )),
        (false, false) => Err(ApiError::invalid(
            "the body has neither `points` (alert request), `routes` (route scoring) nor \
             `origin` and `destination` (routes to plan)",
        )),
    }
}

/// Which of the two operations' members the body's top level has.
#[derive(Debug, Default)]
struct TopLevel {
    points: bool,
    routes: bool,
    /// `origin` or `destination`: a planned route.
    journey: bool,
}

/// A top-level member's name, as far as telling the operations apart needs it.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Member {
    Points,
    Routes,
    Origin,
    Destination,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for TopLevel {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = TopLevel;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<TopLevel, A::Error> {
                let mut found = TopLevel::default();
                while let Some(member) = map.next_key::<Member>()? {
                    map.next_value::<IgnoredAny>()?;
                    match member {
                        Member::Points => found.points = true,
                        Member::Routes => found.routes = true,
                        Member::Origin | Member::Destination => found.journey = true,
                        Member::Other => {}
                    }
                }
                Ok(found)
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// Which operation's members the body's top level has; its values are skipped unbuilt.
fn top_level_members(spool: &Spool) -> Result<TopLevel, ApiError> {
    let refused = |e: serde_json::Error| {
        if e.is_io() {
            body_unavailable(&e)
        } else {
            ApiError::invalid(format!("the body is not valid JSON: {e}"))
        }
    };
    match spool.parse_json() {
        Ok(members) => Ok(members),
        // JSON of another shape, unless a syntax error comes later: a second look tells which.
        Err(e) if e.is_data() => {
            spool.parse_json::<IgnoredAny>().map_err(refused)?;
            Err(ApiError::invalid(
                "the body must be a JSON object with `points` (alert request), `routes` (route \
                 scoring) or `origin` and `destination` (routes to plan)",
            ))
        }
        Err(e) => Err(refused(e)),
    }
}

/// The answer to an alert request that was refused.
fn request_error(e: RequestError) -> ApiError {
    match e {
        RequestError::TooManyPoints { .. } | RequestError::CustomDataTooLarge { .. } => {
            ApiError::new(ErrorCode::PayloadTooLarge, e.to_string())
        }
        RequestError::Invalid(_) => ApiError::new(ErrorCode::InvalidRequest, e.to_string()),
        RequestError::Unreadable(_) => body_unavailable(&e),
    }
}

/// Reads a route-scoring request from the body: from its bytes when they are in memory, else
/// streamed from its file.
fn route_request(state: &AppState, spool: &Spool) -> Result<ScoreRequest, ApiError> {
    use racs_core::RequestError as RouteError;
    let limits = &state.config().route_limits;
    let read = match spool.as_bytes() {
        Some(bytes) => ScoreRequest::from_json_slice(bytes, limits),
        None => {
            let reader = spool.reader().map_err(|e| body_unavailable(&e))?;
            ScoreRequest::from_reader(reader, limits)
        }
    };
    read.map_err(|e| match e {
        RouteError::Invalid(_) => ApiError::new(ErrorCode::InvalidRequest, e.to_string()),
        RouteError::TooLarge(_) => ApiError::new(ErrorCode::PayloadTooLarge, e.to_string()),
        RouteError::Unreadable(_) => body_unavailable(&e),
    })
}

fn accept_error(request_id: &RequestId, e: alerts_core::pipeline::AcceptError) -> ApiError {
    use alerts_core::pipeline::AcceptError;
    match &e {
        AcceptError::WebhookNotConfigured => ApiError::new(
            ErrorCode::WebhookNotConfigured,
            "this API key has no webhook URL: set one in the dashboard under Alerts settings",
        ),
        AcceptError::NoAlertRules => ApiError::new(
            ErrorCode::NoAlertRules,
            "this API key has no enabled alert rule: add one in the dashboard under Add new alert",
        ),
        // Revoked between authentication and acceptance: the same answer as a revoked key.
        AcceptError::UnknownKey => ApiError::new(
            ErrorCode::InvalidApiKey,
            "the API key is not valid: check it in the dashboard, or create a new one",
        ),
        AcceptError::IdempotencyKeyReused => ApiError::new(
            ErrorCode::IdempotencyKeyReused,
            "Idempotency-Key: this key was used before for a request with other points; send a \
             new key with a new request, and the same key only to retry the same request",
        ),
        AcceptError::Busy { retry_after, .. } => ApiError {
            code: ErrorCode::QueueFull,
            detail: e.to_string(),
            retry_after: Some(*retry_after),
        },
        AcceptError::TooManyPending { .. } => ApiError {
            code: ErrorCode::TooManyPending,
            detail: e.to_string(),
            retry_after: Some(PENDING_RETRY),
        },
        AcceptError::Store(store) => store_unavailable_or_internal(request_id, store.clone()),
    }
}

/// When a key with too many unfinished requests is told to try again: long enough for a
/// working receiver to take a good part of them.
const PENDING_RETRY: Duration = Duration::from_secs(60);

fn store_unavailable_or_internal(
    request_id: &RequestId,
    e: alerts_core::ports::StoreError,
) -> ApiError {
    match e {
        alerts_core::ports::StoreError::Unavailable(_) => store_unavailable(e),
        other => ApiError::internal(&request_id.0, &other),
    }
}
