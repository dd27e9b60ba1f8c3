//! What the HTTP sources share: building the client and turning transport failures and HTTP
//! statuses into [`SourceError`]s whose messages say what to do.

use std::time::Duration;

use aq_core::SourceError;
use chrono::{DateTime, TimeDelta, Utc};
use thiserror::Error;

/// A source configuration that cannot work, with what to change.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{source_name} configuration: {message}")]
pub struct ConfigError {
    /// The source whose configuration is wrong, such as `open-meteo`.
    pub source_name: &'static str,
    /// What is wrong and what is expected.
    pub message: String,
}

impl ConfigError {
    pub(crate) fn new(source_name: &'static str, message: impl Into<String>) -> Self {
        Self {
            source_name,
            message: message.into(),
        }
    }
}

/// Whether an answer cached at `stored` is still fresh at `now`, answers being kept for
/// `ttl_s` seconds.
pub(crate) fn fresh(stored: DateTime<Utc>, now: DateTime<Utc>, ttl_s: u64) -> bool {
    let ttl = i64::try_from(ttl_s)
        .ok()
        .and_then(TimeDelta::try_seconds)
        .unwrap_or(TimeDelta::MAX);
    now - stored < ttl
}

/// Checks a base URL and joins `path` to it.
pub(crate) fn endpoint(
    source_name: &'static str,
    base_url: &str,
    path: &str,
) -> Result<reqwest::Url, ConfigError> {
    let url =
        reqwest::Url::parse(&format!("{}{path}", base_url.trim_end_matches('/'))).map_err(|e| {
            ConfigError::new(
                source_name,
                format!("base_url `{base_url}` is not a URL ({e}); use one such as https://host"),
            )
        })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ConfigError::new(
            source_name,
            format!("base_url `{base_url}` must start with http:// or https://"),
        ));
    }
    Ok(url)
}

/// A client with a whole-request timeout (connect, send, receive the body), rustls, and no
/// proxy taken from the environment, so a source behaves the same on every machine.
pub(crate) fn client(
    timeout: Duration,
    source_name: &'static str,
) -> Result<reqwest::Client, ConfigError> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .no_proxy()
        .user_agent(concat!("insights-aq-sources/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| ConfigError::new(source_name, format!("cannot build the HTTP client: {e}")))
}

/// The failure of a request that got no HTTP answer.
pub(crate) fn transport_error(service: &str, base_url: &str, e: &reqwest::Error) -> SourceError {
    if e.is_timeout() {
        SourceError::Timeout
    } else if e.is_connect() {
        SourceError::Unavailable(format!(
            "{service} at {base_url} cannot be reached ({e}); check the base URL and the network"
        ))
    } else {
        SourceError::Unavailable(format!("{service} request failed: {e}"))
    }
}

/// Sends a GET and returns the body of a 2xx answer; other statuses become errors.
pub(crate) async fn get_body(
    request: reqwest::RequestBuilder,
    service: &str,
    base_url: &str,
) -> Result<bytes::Bytes, SourceError> {
    get_found(request, service, base_url).await?.ok_or_else(|| {
        SourceError::Refused(format!(
            "{service} answered HTTP 404 Not Found; check the base URL"
        ))
    })
}

/// As [`get_body`], but a 404 is `None`: the thing asked for no longer exists.
pub(crate) async fn get_found(
    request: reqwest::RequestBuilder,
    service: &str,
    base_url: &str,
) -> Result<Option<bytes::Bytes>, SourceError> {
    let response = request
        .send()
        .await
        .map_err(|e| transport_error(service, base_url, &e))?;
    let status = response.status();
    let body = response
        .bytes()
        .await
        .map_err(|e| transport_error(service, base_url, &e))?;
    if status.is_success() {
        return Ok(Some(body));
    }
    if status == reqwest::StatusCode::NOT_FOUND {
        return Ok(None);
    }
    let detail = reason(&body);
    Err(match status.as_u16() {
        401 | 403 => SourceError::Refused(format!(
            "{service} refused the credentials (HTTP {status}){detail}; check the API key"
        )),
        429 => SourceError::Unavailable(format!(
            "{service} is rate limiting requests (HTTP 429){detail}; retry later or lower the request rate"
        )),
        400..=499 => SourceError::Refused(format!(
            "{service} refused the request (HTTP {status}){detail}"
        )),
        _ => SourceError::Unavailable(format!(
            "{service} answered HTTP {status}{detail}; retry later"
        )),
    })
}

/// A short reason from an error body: the `reason`, `detail` or `message` member of a JSON
/// object, or the start of the text.
fn reason(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let from_json = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            ["reason", "detail", "message"].iter().find_map(|k| {
                v.get(k)
                    .map(|m| m.as_str().map_or_else(|| m.to_string(), str::to_owned))
            })
        });
    let text = from_json.unwrap_or_else(|| text.trim().to_owned());
    if text.is_empty() {
        String::new()
    } else {
        let short: String = text.chars().take(200).collect();
        format!(": {short}")
    }
}

/// Normalises a unit as written by an API: the micro sign U+00B5 and the Greek mu U+03BC are the
/// same prefix, `ug` is an ASCII spelling of it, and `m3` stands for `m³`.
pub(crate) fn normalise_unit(unit: &str) -> String {
    unit.trim()
        .replace('\u{03BC}', "\u{00B5}")
        .replace("ug", "\u{00B5}g")
        .replace("m3", "m³")
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_normalise_both_micro_signs() {
        assert_eq!(normalise_unit("\u{03BC}g/m³"), "\u{00B5}g/m³");
        assert_eq!(normalise_unit("\u{00B5}g/m³"), "\u{00B5}g/m³");
        assert_eq!(normalise_unit(" ug/m3 "), "\u{00B5}g/m³");
        assert_eq!(normalise_unit("ppm"), "ppm");
    }

    #[test]
    fn reasons_come_from_json_or_text() {
        assert_eq!(
            reason(br#"{"error":true,"reason":"Latitude must be in range"}"#),
            ": Latitude must be in range"
        );
        assert_eq!(reason(b"  oops "), ": oops");
        assert_eq!(reason(b""), "");
    }
}
