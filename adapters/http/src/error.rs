//! The API's error responses: one envelope, one place that decides every status and code.
//!
//! Every error outside a route's `racss[].error` is
//! `{"metadata": null, "data": null, "error": {"code", "title", "detail"}}`, with the HTTP
//! status and `error.code` pairs of the API contract. `detail` says what was wrong and where;
//! for a 500 it holds only the request id, never internals.

use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// The `error.code` values of the API, each with its HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// 400: malformed JSON, wrong types, missing or out-of-range members.
    InvalidRequest,
    /// 400: an alert request for a key without a webhook URL.
    WebhookNotConfigured,
    /// 400: an alert request for a key without an enabled alert rule.
    NoAlertRules,
    /// 401: no `key` parameter.
    MissingApiKey,
    /// 401: an unknown or revoked key.
    InvalidApiKey,
    /// 403: a file URL whose signature is wrong.
    Forbidden,
    /// 403: a file URL that has expired.
    ExpiredUrl,
    /// 404: an unknown path, or a file that is gone.
    NotFound,
    /// 405: a method the path does not serve.
    MethodNotAllowed,
    /// 413: a body, or a number of points or routes, over the configured limits.
    PayloadTooLarge,
    /// 415: a body that is not JSON.
    UnsupportedMediaType,
    /// 422: an `Idempotency-Key` used before for a request with other points.
    IdempotencyKeyReused,
    /// 429: the key's request rate is over its limit.
    RateLimited,
    /// 429: the key has as many unfinished alert requests as it may have.
    TooManyPending,
    /// 500: a bug.
    InternalError,
    /// 503: a dependency (database, object store) is down.
    Unavailable,
    /// 503: this alert request would wait, or requests already wait, longer than the service
    /// allows; it was not accepted.
    QueueFull,
}

impl ErrorCode {
    /// The HTTP status that goes with the code.
    #[must_use]
    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::InvalidRequest
            | ErrorCode::WebhookNotConfigured
            | ErrorCode::NoAlertRules => StatusCode::BAD_REQUEST,
            ErrorCode::MissingApiKey | ErrorCode::InvalidApiKey => StatusCode::UNAUTHORIZED,
            ErrorCode::Forbidden | ErrorCode::ExpiredUrl => StatusCode::FORBIDDEN,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::RateLimited | ErrorCode::TooManyPending => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::InternalError => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Unavailable | ErrorCode::QueueFull => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The wire form, such as `invalid_request`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::WebhookNotConfigured => "webhook_not_configured",
            ErrorCode::NoAlertRules => "no_alert_rules",
            ErrorCode::MissingApiKey => "missing_api_key",
            ErrorCode::InvalidApiKey => "invalid_api_key",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::ExpiredUrl => "expired_url",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::IdempotencyKeyReused => "idempotency_key_reused",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::TooManyPending => "too_many_pending",
            ErrorCode::InternalError => "internal_error",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::QueueFull => "queue_full",
        }
    }

    /// A short human title.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "Invalid request",
            ErrorCode::WebhookNotConfigured => "Webhook not configured",
            ErrorCode::NoAlertRules => "No alert rules",
            ErrorCode::MissingApiKey => "Missing API key",
            ErrorCode::InvalidApiKey => "Invalid API key",
            ErrorCode::Forbidden => "Forbidden",
            ErrorCode::ExpiredUrl => "Expired URL",
            ErrorCode::NotFound => "Not found",
            ErrorCode::MethodNotAllowed => "Method not allowed",
            ErrorCode::PayloadTooLarge => "Payload too large",
            ErrorCode::UnsupportedMediaType => "Unsupported media type",
            ErrorCode::IdempotencyKeyReused => "Idempotency key reused",
            ErrorCode::RateLimited => "Rate limited",
            ErrorCode::TooManyPending => "Too many pending requests",
            ErrorCode::InternalError => "Internal error",
            ErrorCode::Unavailable => "Service unavailable",
            ErrorCode::QueueFull => "Alert queue full",
        }
    }
}

/// An error response of the API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// What kind of error.
    pub code: ErrorCode,
    /// What exactly was wrong, and where.
    pub detail: String,
    /// For 429 and 503: when to try again.
    pub retry_after: Option<Duration>,
}

impl ApiError {
    /// An error of kind `code` with `detail`.
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self {
            code,
            detail: detail.into(),
            retry_after: None,
        }
    }

    /// 400 `invalid_request`.
    pub fn invalid(detail: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, detail)
    }

    /// 503 `unavailable`, asking the client to come back after `retry_after`.
    pub fn unavailable(what: impl Into<String>, retry_after: Duration) -> Self {
        Self {
            code: ErrorCode::Unavailable,
            detail: what.into(),
            retry_after: Some(retry_after),
        }
    }

    /// 500 `internal_error`: logs `cause` with the request id and shows only the id.
    pub fn internal(request_id: &str, cause: &dyn std::fmt::Display) -> Self {
        tracing::error!(request_id, %cause, "internal error");
        Self::new(
            ErrorCode::InternalError,
            format!("an internal error occurred; quote request id {request_id} when reporting it"),
        )
    }
}

/// How long clients are asked to wait when a dependency is down.
pub(crate) const RETRY_AFTER_UNAVAILABLE: Duration = Duration::from_secs(5);

/// 503 for a store that cannot be reached; the cause goes to the log, not to the client.
pub(crate) fn store_unavailable(e: alerts_core::ports::StoreError) -> ApiError {
    tracing::warn!(error = %e, "store unavailable");
    ApiError::unavailable(
        "the database is unavailable; retry shortly",
        RETRY_AFTER_UNAVAILABLE,
    )
}

/// 503 for an air-quality source that cannot answer (the API's answer, which the dashboard's
/// playground gives too).
#[must_use]
pub fn source_unavailable(e: &aq_core::SourceError) -> ApiError {
    tracing::warn!(error = %e, "air-quality source unavailable");
    ApiError::unavailable(
        "the air-quality source is unavailable; retry shortly",
        RETRY_AFTER_UNAVAILABLE,
    )
}

/// 503 for a file store that cannot be reached.
pub(crate) fn files_unavailable(e: &alerts_core::ports::FileError) -> ApiError {
    tracing::warn!(error = %e, "file store unavailable");
    ApiError::unavailable(
        "the file store is unavailable; retry shortly",
        RETRY_AFTER_UNAVAILABLE,
    )
}

/// The body of every error response.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorEnvelope {
    /// Always null on errors.
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Value>,
    /// Always null on errors.
    #[schema(value_type = Option<Object>)]
    pub data: Option<serde_json::Value>,
    /// What went wrong.
    pub error: ErrorBody,
}

/// What went wrong: the `error` member of every error response.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// A stable machine-readable code, such as `invalid_request`.
    pub code: String,
    /// A short human title.
    pub title: String,
    /// What exactly was wrong, and where (a JSON path when a member is at fault).
    pub detail: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorEnvelope {
            metadata: None,
            data: None,
            error: ErrorBody {
                code: self.code.as_str().to_owned(),
                title: self.code.title().to_owned(),
                detail: self.detail,
            },
        };
        let mut response = (self.code.status(), Json(body)).into_response();
        if let Some(after) = self.retry_after {
            // Whole seconds, at least one: a zero would invite an immediate retry storm.
            let secs = after.as_secs().max(1);
            if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, v);
            }
        }
        response
    }
}
