//! `POST /insights/v1/cleanest-route`: one path, two operations, told apart by the body.

use std::sync::Arc;
use std::time::{Duration, Instant};

use alerts_core::idempotency::{Idempotency, IdempotencyKey};
use alerts_core::request::RequestError;
use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Uri, header};
use axum::response::{IntoResponse, Response};
use identity_core::ids::KeyId;
use identity_core::keys::ApiKey;
use racs_core::ScoreRequest;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ApiError, ErrorCode};
use crate::provenance::{DATA_SOURCE_HEADER, DataSourceMember};
use crate::spool::{AbandonOnDrop, Spool, SpoolError, SpoolPages};
use crate::state::AppState;
use crate::{RequestId, store_unavailable};

/// The query string of the API: the key.
#[derive(Debug)]
pub(crate) struct KeyQuery {
    /// The API key.
    pub key: Option<String>,
}

impl KeyQuery {
    /// The query string's `key`. Other parameters are ignored; a repeated `key` is refused,
    /// since which one to use would be a guess.
    pub(crate) fn from_uri(uri: &Uri) -> Result<Self, ApiError> {
        let query = uri.query().unwrap_or_default();
        let mut key = None;
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            if name == "key" {
                if key.is_some() {
                    return Err(ApiError::invalid(
                        "the query string has `key` more than once; pass the key once: ?key=ik_...",
                    ));
                }
                key = Some(value.into_owned());
            }
        }
        Ok(Self { key })
    }
}

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

/// The request header that makes an alert request safe to retry.
pub(crate) const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");

/// The response header that marks the answer to a retry of a stored request.
pub(crate) const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// Route-scoring requests that need at most this many air-quality samples in all are scored on
/// the connection's own task (well under a millisecond of work); larger ones go to the
/// blocking pool, so that they cannot stall other connections.
const INLINE_SAMPLES: usize = 500;

/// Which operation a body asks for.
enum Operation {
    /// A checked alert request of this many points, still in the spool.
    Alerts(u64),
    Routes(ScoreRequest),
}

/// Handles both operations of the shared path.
pub(crate) async fn cleanest_route(
    State(state): State<AppState>,
    request_id: RequestId,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let query = KeyQuery::from_uri(&uri)?;
    let key_id = authenticate(&state, query.key.as_deref()).await?;
    state.check_rate(key_id)?;
    check_content_type(&headers)?;
    check_content_encoding(&headers)?;
    let limit = state.config().max_body_bytes;
    let spool = Spool::receive(body, limit).await.map_err(|e| match e {
        SpoolError::TooLarge => ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!("the body is larger than the limit of {limit} bytes"),
        ),
        SpoolError::Receive(e) => ApiError::invalid(format!("the body could not be read: {e}")),
        SpoolError::Write(e) => body_unavailable(&e),
    })?;
    let spool = Arc::new(spool);
    let _abandon = AbandonOnDrop(Arc::clone(&spool));

    let operation = parse_off_thread(&state, &request_id, &spool, parse_body).await??;

    match operation {
        Operation::Alerts(count) => {
            // Only alert requests store anything; scoring is safe to repeat as it is.
            let idempotency = match idempotency_key(&headers)? {
                None => None,
                Some(key) => {
                    let fingerprint =
                        parse_off_thread(&state, &request_id, &spool, move |state, spool| {
                            spool
                                .fingerprint(&state.config().point_limits, count)
                                .map_err(request_error)
                        })
                        .await??;
                    Some(Idempotency { key, fingerprint })
                }
            };
            let mut pages = SpoolPages::new(spool, state.config().point_limits, count);
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
/// The dashboard's playground scores through it too.
///
/// # Errors
/// 500 when the scoring task fails.
pub async fn score(
    state: &AppState,
    request_id: &RequestId,
    request: ScoreRequest,
) -> Result<racs_core::ScoreResponse, ApiError> {
    let scorer = state.scorer().clone();
    if scorer.planned_samples(&request) <= INLINE_SAMPLES {
        return Ok(scorer.score(&request).await);
    }
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || handle.block_on(scorer.score(&request)))
        .await
        .map_err(|e| ApiError::internal(&request_id.0, &e))
}

/// Resolves the `key` parameter to a key id: 401 when missing, malformed, unknown or revoked.
pub(crate) async fn authenticate(state: &AppState, key: Option<&str>) -> Result<KeyId, ApiError> {
    let Some(key) = key.filter(|k| !k.is_empty()) else {
        return Err(ApiError::new(
            ErrorCode::MissingApiKey,
            "pass your API key in the `key` query parameter: ?key=ik_...",
        ));
    };
    let invalid = || {
        ApiError::new(
            ErrorCode::InvalidApiKey,
            "the API key is not valid: check it in the dashboard, or create a new one",
        )
    };
    let key = ApiKey::parse(key).map_err(|_| invalid())?;
    let found = state
        .keys()
        .authenticate(&key.hash(), state.clock().now())
        .await
        .map_err(store_unavailable)?;
    found.ok_or_else(invalid)
}

fn check_content_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        // Clients that send no type at all get the benefit of the doubt; the body must still
        // be JSON.
        return Ok(());
    };
    let media = value
        .to_str()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim();
    // Media types are case-insensitive; compared in place, without a lowercased copy.
    let suffix = media.get(media.len().saturating_sub("+json".len())..);
    if media.eq_ignore_ascii_case("application/json")
        || suffix.is_some_and(|s| s.eq_ignore_ascii_case("+json"))
    {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!("the body must be JSON: send `Content-Type: application/json` (got `{media}`)"),
        ))
    }
}

/// Compressed bodies are not decoded: refusing them names the cause, where reading the
/// compressed bytes as JSON would only report a syntax error.
fn check_content_encoding(headers: &HeaderMap) -> Result<(), ApiError> {
    let encodings = headers
        .get_all(header::CONTENT_ENCODING)
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("?").split(','))
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty() && e != "identity")
        .collect::<Vec<_>>();
    if encodings.is_empty() {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!(
                "the body must be sent uncompressed: content encoding `{}` is not supported",
                encodings.join(", ")
            ),
        ))
    }
}

/// Runs `parse` on the spooled body: on this task for a small body, on the blocking pool for
/// a large one, whose parsing is CPU work (and, for a file, blocking reads) that would stall
/// other connections. Large bodies are parsed a few at a time across the server (503 beyond),
/// and a parse whose request was abandoned (its client went away, or its time ran out) stops
/// at the spool's next read.
async fn parse_off_thread<T, F>(
    state: &AppState,
    request_id: &RequestId,
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
    let permit = state.parse_permit()?;
    let (state, spool) = (state.clone(), Arc::clone(spool));
    tokio::task::spawn_blocking(move || {
        let parsed = parse(&state, &spool);
        drop(permit);
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
            "the body has neither `points` (alert request) nor `routes` (route scoring)",
        )),
    }
}

/// Which of the two operations' members the body's top level has.
#[derive(Debug, Default)]
struct TopLevel {
    points: bool,
    routes: bool,
}

/// A top-level member's name, as far as telling the operations apart needs it.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Member {
    Points,
    Routes,
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
                "the body must be a JSON object with either `points` (alert request) or `routes` \
                 (route scoring)",
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

/// 503 for a body the server could not keep or read back from its temporary file (a full or
/// failing disk): not the client's fault, and worth a retry.
fn body_unavailable(e: &dyn std::fmt::Display) -> ApiError {
    tracing::warn!(error = %e, "request body spool failed");
    ApiError::unavailable(
        "the server could not keep the request body; retry shortly",
        crate::RETRY_AFTER_UNAVAILABLE,
    )
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

/// The client's `Idempotency-Key`, if it sent one.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<IdempotencyKey>, ApiError> {
    let mut values = headers.get_all(IDEMPOTENCY_KEY).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(ApiError::invalid(
            "Idempotency-Key: send the header once, with one key",
        ));
    }
    let text = value.to_str().map_err(|_| {
        ApiError::invalid("Idempotency-Key: only visible ASCII characters are allowed")
    })?;
    IdempotencyKey::parse(text)
        .map(Some)
        .map_err(|e| ApiError::invalid(e.to_string()))
}

fn store_unavailable_or_internal(
    request_id: &RequestId,
    e: alerts_core::ports::StoreError,
) -> ApiError {
    match e {
        alerts_core::ports::StoreError::Unavailable(_) => store_unavailable(e),
        other => ApiError::internal(&request_id.0, &other),
    }
}
