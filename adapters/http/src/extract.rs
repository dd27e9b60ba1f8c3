//! The extractors the API's handlers start with, so that each input is read and checked once,
//! before the handler runs, and a refusal is the API's error envelope ([`ApiError`]):
//!
//! - [`RequestId`]: the id the server gave the request;
//! - [`Authenticated`]: the key of `?key=`, live, and within its rate;
//! - [`IdempotencyHeader`]: the `Idempotency-Key` header;
//! - [`JsonBody`]: the body, JSON by its headers, received within the size limit into a spool.

use std::convert::Infallible;
use std::sync::Arc;

use alerts_core::idempotency::IdempotencyKey;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Uri, header};
use identity_core::ids::KeyId;
use identity_core::keys::ApiKey;

use crate::error::{ApiError, ErrorCode, RETRY_AFTER_UNAVAILABLE, store_unavailable};
use crate::headers::{IDEMPOTENCY_KEY, REQUEST_ID_HEADER};
use crate::spool::{AbandonOnDrop, Spool, SpoolError};
use crate::state::AppState;

/// The request's id, made by the server for each request; for logs and 500 details.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

impl RequestId {
    /// The id in a request's `headers`, as the request-id layer set it.
    #[must_use]
    pub fn of(headers: &HeaderMap) -> Self {
        RequestId(
            headers
                .get(REQUEST_ID_HEADER)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("unknown")
                .to_owned(),
        )
    }
}

impl<S: Send + Sync> FromRequestParts<S> for RequestId {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(RequestId::of(&parts.headers))
    }
}

/// The key of the query string's `key`, live, and within its rate: 400 for a repeated `key`,
/// 401 when it is missing, malformed, unknown or revoked, 429 over the key's rate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Authenticated(pub(crate) KeyId);

impl FromRequestParts<AppState> for Authenticated {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let query = KeyQuery::from_uri(&parts.uri)?;
        let key = authenticate(state, query.key.as_deref()).await?;
        state.check_rate(key).await?;
        Ok(Self(key))
    }
}

/// The query string of the API: the key.
#[derive(Debug)]
struct KeyQuery {
    /// The API key.
    key: Option<String>,
}

impl KeyQuery {
    /// The query string's `key`. Other parameters are ignored; a repeated `key` is refused,
    /// since which one to use would be a guess.
    fn from_uri(uri: &Uri) -> Result<Self, ApiError> {
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

/// Resolves the `key` parameter to a key id: 401 when missing, malformed, unknown or revoked.
async fn authenticate(state: &AppState, key: Option<&str>) -> Result<KeyId, ApiError> {
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

/// The `Idempotency-Key` header, read once. Only alert requests store anything, so only they
/// refuse a malformed one, once their body is read ([`IdempotencyHeader::key`]): a route-scoring
/// request is safe to repeat as it is, and ignores it.
#[derive(Debug)]
pub(crate) struct IdempotencyHeader(Result<Option<IdempotencyKey>, ApiError>);

impl IdempotencyHeader {
    /// The client's key, if it sent one; 400 naming the header when it is malformed.
    pub(crate) fn key(self) -> Result<Option<IdempotencyKey>, ApiError> {
        self.0
    }
}

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyHeader {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        Ok(Self(idempotency_key(&parts.headers)))
    }
}

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

/// The body of a request, received into a spool within [`crate::ApiConfig::max_body_bytes`]
/// once its headers say it is JSON (415 otherwise, 413 when larger). The spool is abandoned
/// when the request is: a parse still reading it stops at its next read.
pub(crate) struct JsonBody {
    pub(crate) spool: Arc<Spool>,
    _abandon: AbandonOnDrop,
}

impl FromRequest<AppState> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        check_content_type(request.headers())?;
        check_content_encoding(request.headers())?;
        let limit = state.config().max_body_bytes;
        let spool = Spool::receive(request.into_body(), limit)
            .await
            .map_err(|e| match e {
                SpoolError::TooLarge => ApiError::new(
                    ErrorCode::PayloadTooLarge,
                    format!("the body is larger than the limit of {limit} bytes"),
                ),
                SpoolError::Receive(e) => {
                    ApiError::invalid(format!("the body could not be read: {e}"))
                }
                SpoolError::Write(e) => body_unavailable(&e),
            })?;
        let spool = Arc::new(spool);
        Ok(Self {
            _abandon: AbandonOnDrop(Arc::clone(&spool)),
            spool,
        })
    }
}

/// 503 for a body the server could not keep or read back from its temporary file (a full or
/// failing disk): not the client's fault, and worth a retry.
pub(crate) fn body_unavailable(e: &dyn std::fmt::Display) -> ApiError {
    tracing::warn!(error = %e, "request body spool failed");
    ApiError::unavailable(
        "the server could not keep the request body; retry shortly",
        RETRY_AFTER_UNAVAILABLE,
    )
}
