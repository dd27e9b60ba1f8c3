//! Cross-origin access to the API, for operators who want web pages to call it: off unless
//! origins are listed. It covers the API's routes (the cleanest-route operation, file
//! downloads and the OpenAPI document), never the dashboard, whose forms must only ever be
//! posted from its own pages.

use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, Method, header};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::headers::{API_KEY_HEADER, IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, REQUEST_ID_HEADER};
use crate::rate_headers::{
    RATELIMIT_LIMIT, RATELIMIT_POLICY, RATELIMIT_REMAINING, RATELIMIT_RESET,
};

/// How long browsers may keep a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// The origins whose pages may call the API. Default: none, and no CORS headers at all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AllowedOrigins {
    /// No cross-origin access (the default): preflights are answered 405 like any `OPTIONS`.
    #[default]
    None,
    /// Any origin (`*`): for an API whose keys are meant to be used from any web page.
    Any,
    /// These origins exactly, such as `https://app.example.org`.
    List(Vec<HeaderValue>),
}

impl AllowedOrigins {
    /// The setting from its entries: `*` alone for any origin, else origins of the form
    /// `scheme://host[:port]`; an empty list means none.
    ///
    /// ```
    /// use insights_http::AllowedOrigins;
    ///
    /// assert_eq!(AllowedOrigins::parse(&[]).unwrap(), AllowedOrigins::None);
    /// assert_eq!(AllowedOrigins::parse(&["*".into()]).unwrap(), AllowedOrigins::Any);
    /// assert!(AllowedOrigins::parse(&["https://app.example.org".into()]).is_ok());
    /// assert!(AllowedOrigins::parse(&["https://app.example.org/".into()]).is_err());
    /// ```
    ///
    /// # Errors
    /// A message naming the entry that is not an origin.
    pub fn parse(entries: &[String]) -> Result<Self, String> {
        if entries.is_empty() {
            return Ok(Self::None);
        }
        if entries.iter().any(|e| e == "*") {
            return if entries.len() == 1 {
                Ok(Self::Any)
            } else {
                Err("the CORS origin `*` allows every origin and must stand alone".to_owned())
            };
        }
        entries
            .iter()
            .map(|entry| origin(entry))
            .collect::<Result<Vec<_>, _>>()
            .map(Self::List)
    }

    /// The layer that answers preflights and marks responses, when any origin is allowed.
    pub(crate) fn layer(&self) -> Option<CorsLayer> {
        let allow = match self {
            Self::None => return None,
            Self::Any => AllowOrigin::any(),
            Self::List(origins) => AllowOrigin::list(origins.iter().cloned()),
        };
        Some(
            CorsLayer::new()
                .allow_origin(allow)
                .allow_methods([Method::GET, Method::HEAD, Method::POST])
                .allow_headers([header::CONTENT_TYPE, IDEMPOTENCY_KEY, API_KEY_HEADER])
                .expose_headers([
                    HeaderName::from_static(REQUEST_ID_HEADER),
                    header::RETRY_AFTER,
                    IDEMPOTENT_REPLAYED,
                    RATELIMIT_LIMIT,
                    RATELIMIT_REMAINING,
                    RATELIMIT_RESET,
                    RATELIMIT_POLICY,
                ])
                .max_age(PREFLIGHT_MAX_AGE),
        )
    }
}

/// `entry` as a browser sends it in `Origin`: a scheme, `://` and a host with an optional
/// port, nothing after.
fn origin(entry: &str) -> Result<HeaderValue, String> {
    let invalid = || {
        format!(
            "the CORS origin `{entry}` is not an origin such as https://app.example.org (scheme and host, an optional port, no path)"
        )
    };
    let (scheme, host) = entry.split_once("://").ok_or_else(invalid)?;
    let plain_scheme = !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    let plain_host = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'));
    if !plain_scheme || !plain_host {
        return Err(invalid());
    }
    // Browsers send origins in lower case.
    HeaderValue::from_str(&entry.to_ascii_lowercase()).map_err(|_| invalid())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_that_are_not_origins_are_named() {
        for bad in [
            "app.example.org",
            "https://",
            "https://app.example.org/path",
            "https://app.example.org?x",
            "https://a b",
        ] {
            let err = AllowedOrigins::parse(&[bad.to_owned()]).unwrap_err();
            assert!(err.contains(bad), "{err}");
        }
        assert!(AllowedOrigins::parse(&["*".to_owned(), "https://a.org".to_owned()]).is_err());
    }

    #[test]
    fn origins_are_kept_in_lower_case() {
        let parsed = AllowedOrigins::parse(&["https://App.Example.org:8443".to_owned()]);
        assert_eq!(
            parsed,
            Ok(AllowedOrigins::List(vec![HeaderValue::from_static(
                "https://app.example.org:8443"
            )]))
        );
    }
}
