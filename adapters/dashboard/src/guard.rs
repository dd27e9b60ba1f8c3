//! What every dashboard request passes before its handler: it must name a host the dashboard
//! is served under (a page fetched under an attacker's name that resolves to this server, the
//! DNS-rebinding attack, gets nothing), and a form must come from the dashboard's own pages.

use std::net::IpAddr;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::pages;
use crate::DashboardState;

/// The `Host` names the dashboard answers to.
///
/// ```
/// use insights_dashboard::DashboardHosts;
///
/// // Published under a name: that name only.
/// let published = DashboardHosts::for_public_url(Some("https://insights.example.org"), false)?;
/// assert!(published.allows("insights.example.org"));
/// assert!(published.allows("Insights.Example.org:443"));
/// assert!(!published.allows("evil.example.net"));
/// assert!(!published.allows("127.0.0.1:8080"));
///
/// // The quick start on loopback: loopback names, and addresses (no attacker's name).
/// let local = DashboardHosts::for_public_url(None, true)?;
/// assert!(local.allows("localhost:8080"));
/// assert!(local.allows("127.0.0.1:8080"));
/// assert!(local.allows("[::1]:8080"));
/// assert!(!local.allows("rebind.example.net:8080"));
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DashboardHosts {
    /// The public URL's host, lower-cased; `None` when no public URL is configured.
    public: Option<String>,
    /// The public URL's origin (`https://host[:port]`), lower-cased: what browsers send as
    /// `Origin` when a proxy in front forwards another `Host`.
    public_origin: Option<String>,
    /// Whether loopback names and addresses are allowed too.
    loopback: bool,
    /// Whether any address written as digits is allowed: without a configured name the
    /// server is reached by its address, and a rebinding attack needs a name.
    addresses: bool,
}

impl DashboardHosts {
    /// The hosts of a server published at `public_url` (when configured) that listens on
    /// loopback when `on_loopback`. With a public URL, its host only, plus loopback (a
    /// reverse proxy on the same machine may forward `127.0.0.1`) when the server listens on
    /// loopback. Without one, `localhost` and addresses written as digits.
    ///
    /// # Errors
    /// A message naming the problem when `public_url` has no host.
    pub fn for_public_url(public_url: Option<&str>, on_loopback: bool) -> Result<Self, String> {
        match public_url {
            Some(url) => {
                let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
                let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
                let authority = authority.rsplit('@').next().unwrap_or_default();
                let host = host_of(authority)
                    .filter(|h| !h.is_empty())
                    .ok_or_else(|| format!("the public URL `{url}` names no host"))?;
                let scheme = url.split_once("://").map_or("http", |(scheme, _)| scheme);
                Ok(Self {
                    public: Some(host),
                    public_origin: Some(format!("{scheme}://{authority}").to_ascii_lowercase()),
                    loopback: on_loopback,
                    addresses: false,
                })
            }
            None => Ok(Self {
                public: None,
                public_origin: None,
                loopback: true,
                addresses: true,
            }),
        }
    }

    /// Whether a request whose `Host` is `authority` (a host and an optional port) is for
    /// the dashboard.
    #[must_use]
    pub fn allows(&self, authority: &str) -> bool {
        let Some(host) = host_of(authority) else {
            return false;
        };
        if self.public.as_deref() == Some(host.as_str()) {
            return true;
        }
        let address = host.parse::<IpAddr>().ok();
        if self.loopback && (host == "localhost" || address.is_some_and(|ip| ip.is_loopback())) {
            return true;
        }
        self.addresses && address.is_some()
    }
}

/// The lower-cased host of `authority` (`host`, `host:port`, `[v6]` or `[v6]:port`), without
/// brackets; `None` when it is malformed.
fn host_of(authority: &str) -> Option<String> {
    let host = match authority.strip_prefix('[') {
        Some(v6) => {
            let (inside, after) = v6.split_once(']')?;
            if !(after.is_empty() || after.starts_with(':')) {
                return None;
            }
            inside
        }
        None => authority.split(':').next().unwrap_or_default(),
    };
    let ok = host
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._:".contains(&b));
    ok.then(|| host.trim_end_matches('.').to_ascii_lowercase())
}

/// The authority a request is for: its `Host` header, or the authority of an HTTP/2 request.
fn request_authority(request: &Request) -> Option<&str> {
    request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
}

/// Whether a state-changing request came from a page of this dashboard. Browsers say where a
/// request comes from with `Sec-Fetch-Site`, and older ones with `Origin`, which must then
/// name the request's own host or the public URL's origin; a request with neither comes from
/// no browser, and the CSRF token alone decides.
fn same_origin(headers: &HeaderMap, authority: &str, public_origin: Option<&str>) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        return matches!(site, "same-origin" | "none");
    }
    match headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        None => true,
        Some(origin) => {
            public_origin.is_some_and(|public| origin.eq_ignore_ascii_case(public))
                || origin
                    .split_once("://")
                    .is_some_and(|(_, theirs)| theirs.eq_ignore_ascii_case(authority))
        }
    }
}

/// Refuses requests for another host (421) and forms sent from another site (403).
pub(crate) async fn guard(
    State(state): State<DashboardState>,
    request: Request,
    next: Next,
) -> Response {
    let dashboard = state.dashboard();
    let authority = request_authority(&request).unwrap_or_default().to_owned();
    if !dashboard.ports.hosts.allows(&authority) {
        return pages::error_page(
            StatusCode::MISDIRECTED_REQUEST,
            "This dashboard is not served under this name",
            "Open the dashboard at the address the operator published for it.",
        );
    }
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    let public_origin = dashboard.ports.hosts.public_origin.as_deref();
    if !safe && !same_origin(request.headers(), &authority, public_origin) {
        return super::csrf_refused();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_read_with_and_without_ports() {
        assert_eq!(host_of("Example.ORG:8080").as_deref(), Some("example.org"));
        assert_eq!(host_of("example.org.").as_deref(), Some("example.org"));
        assert_eq!(host_of("[::1]:8080").as_deref(), Some("::1"));
        assert_eq!(host_of("[::1]x"), None);
        assert_eq!(host_of("a b"), None);
    }

    #[test]
    fn a_server_behind_a_proxy_on_loopback_also_answers_loopback() {
        let hosts =
            DashboardHosts::for_public_url(Some("https://insights.example.org/"), true).unwrap();
        assert!(hosts.allows("127.0.0.1:8080"));
        assert!(hosts.allows("insights.example.org"));
        assert!(!hosts.allows("10.0.0.5:8080"));
        assert!(!hosts.allows("rebind.example.net"));
        assert!(!hosts.allows(""));
    }

    #[test]
    fn without_a_public_url_names_other_than_localhost_are_refused() {
        let hosts = DashboardHosts::for_public_url(None, false).unwrap();
        assert!(hosts.allows("192.0.2.10:8080"));
        assert!(hosts.allows("[2001:db8::1]:8080"));
        assert!(hosts.allows("localhost"));
        assert!(!hosts.allows("insights.example.org"));
    }

    #[test]
    fn forms_from_another_site_are_refused() {
        let with = |pairs: &[(&'static str, &str)]| {
            let mut headers = HeaderMap::new();
            for (name, value) in pairs {
                headers.insert(*name, value.parse().unwrap());
            }
            same_origin(
                &headers,
                "127.0.0.1:8080",
                Some("https://insights.example.org"),
            )
        };
        assert!(with(&[]));
        assert!(with(&[("sec-fetch-site", "same-origin")]));
        assert!(!with(&[("sec-fetch-site", "cross-site")]));
        assert!(!with(&[("sec-fetch-site", "same-site")]));
        assert!(with(&[("origin", "https://insights.example.org")]));
        assert!(with(&[("origin", "http://127.0.0.1:8080")]));
        assert!(!with(&[("origin", "http://127.0.0.1:3000")]));
        assert!(!with(&[("origin", "https://insights.example.org:8443")]));
        assert!(!with(&[("origin", "https://evil.example.net")]));
        assert!(!with(&[("origin", "null")]));
        // Sec-Fetch-Site is the browser's own verdict and wins.
        assert!(!with(&[
            ("sec-fetch-site", "cross-site"),
            ("origin", "https://insights.example.org"),
        ]));
    }
}
