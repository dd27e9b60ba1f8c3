//! `GET /insights/v1/docs`: the API reference, rendered in the browser by the vendored Redoc
//! bundle from the served OpenAPI document. Nothing is fetched from outside.

use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use axum::http::{HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};

use crate::error::{ApiError, ErrorCode};

const REDOC_JS: &[u8] = include_bytes!("../vendor/redoc/redoc.standalone.js");

const PAGE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Insights API reference</title>
</head>
<body>
<redoc spec-url="/insights/v1/openapi.json" hide-download-button="false"></redoc>
<script src="/insights/v1/docs/redoc.standalone.js"></script>
</body>
</html>
"#;

/// Redoc styles itself with inline styles and runs its search in a blob worker; nothing else is
/// allowed, and nothing from another origin.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                   img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; \
                   connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

pub(crate) async fn page() -> Response {
    let mut response = Html(PAGE).into_response();
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    response
}

pub(crate) async fn asset(name: Result<Path<String>, PathRejection>) -> Result<Response, ApiError> {
    // A name that cannot even be decoded names no asset either; axum's own rejection would be
    // plain text instead of the envelope.
    if !name.is_ok_and(|Path(name)| name == "redoc.standalone.js") {
        return Err(ApiError::new(ErrorCode::NotFound, "no such asset"));
    }
    let mut response = REDOC_JS.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400"),
    );
    Ok(response)
}
