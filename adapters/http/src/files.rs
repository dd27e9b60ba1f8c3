//! `GET` and `HEAD /insights/v1/files/{name}`: the output files of alert requests, behind the
//! server's own signed, time-limited URLs (the embedded default; with S3, clients fetch from the
//! bucket with presigned URLs instead).

use alerts_core::ports::{FileError, FileKey};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Method, Uri, header};
use axum::response::{IntoResponse, Response};

use crate::error::{ApiError, ErrorCode, files_unavailable};
use crate::extract::RequestId;
use crate::ports::FileUrlRejection;
use crate::state::AppState;

/// The media type of the output files.
pub const NDJSON: &str = "application/x-ndjson";

pub(crate) async fn download(
    State(state): State<AppState>,
    request_id: RequestId,
    method: Method,
    uri: Uri,
) -> Result<Response, ApiError> {
    let Some(verifier) = state.file_urls() else {
        return Err(ApiError::new(ErrorCode::NotFound, "no such path"));
    };
    let key = verifier
        .verify(uri.path(), uri.query(), state.clock().now())
        .map_err(|rejection| match rejection {
            FileUrlRejection::Expired => ApiError::new(
                ErrorCode::ExpiredUrl,
                "this file URL has expired (URLs are valid for 15 minutes); a webhook retry brings a fresh one",
            ),
            FileUrlRejection::BadSignature => {
                ApiError::new(ErrorCode::Forbidden, "the URL's signature is not valid")
            }
            FileUrlRejection::Malformed(why) => {
                ApiError::new(ErrorCode::Forbidden, format!("not a valid file URL: {why}"))
            }
        })?;
    let file = state.files().open(&key).await.map_err(|e| match e {
        FileError::NotFound => ApiError::new(
            ErrorCode::NotFound,
            "the file is gone: files are kept for a limited time after the request",
        ),
        FileError::Unavailable(_) => files_unavailable(&e),
        FileError::Other(_) => ApiError::internal(&request_id.0, &e),
    })?;
    // Streamed chunk by chunk: a large file costs no more memory than a chunk.
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from_stream(file.chunks)
    };
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(NDJSON));
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(file.size));
    // Signed URLs are capabilities: keep them and their content out of shared caches.
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    // The file carries customers' `custom_data`: a browser that opens the URL must save it,
    // never sniff it into HTML or run it in this origin.
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CONTENT_DISPOSITION, attachment(&key));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox"),
    );
    Ok(response)
}

/// `attachment; filename="<token>.ndjson"`: the file's own name, which the server makes; a
/// name with any other character than a letter, a digit, `.`, `-` or `_` (which no key of
/// the server has) is left out rather than escaped.
fn attachment(key: &FileKey) -> HeaderValue {
    let name = key.0.rsplit('/').next().unwrap_or_default();
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
    if plain && let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        return value;
    }
    HeaderValue::from_static("attachment")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downloads_are_attachments_named_after_the_file() {
        let key = FileKey("alerts/0f3c2a.ndjson".to_owned());
        assert_eq!(attachment(&key), "attachment; filename=\"0f3c2a.ndjson\"");
        let odd = FileKey("alerts/a\"b.ndjson".to_owned());
        assert_eq!(attachment(&odd), "attachment");
    }
}
