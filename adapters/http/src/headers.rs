//! The names of the API's own headers, in one place for the handlers, the CORS layer and the
//! layers that set them.

use axum::http::HeaderName;

/// The header that carries each request's id, in requests and responses.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// The request header that makes an alert request safe to retry.
pub const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");

/// The response header that marks the answer to a retry of a stored request.
pub const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// The response header that names the data source.
pub const DATA_SOURCE_HEADER: HeaderName = HeaderName::from_static("insights-data-source");

/// The request header that may carry the API key instead of the `key` query parameter.
pub const API_KEY_HEADER: HeaderName = HeaderName::from_static("x-api-key");
