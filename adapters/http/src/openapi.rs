//! The OpenAPI document of the API.

use axum::Json;
use axum::response::IntoResponse;

/// Serves the OpenAPI document.
pub(crate) async fn serve() -> impl IntoResponse {
    Json(serde_json::json!({}))
}
