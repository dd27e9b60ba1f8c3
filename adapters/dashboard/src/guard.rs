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
    /// The public URL's origin as browsers write it (`https://host[:port]`, no default
    /// port): what they send as `Origin` when a proxy in front forwards another `Host`.
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
    /// A message naming the problem when `public_url` is not an `http` or `https` URL with a
    /// host.
    pub fn for_public_url(public_url: Option<&str>, on_loopback: bool) -> Result<Self, String> {
        match public_url {
            Some(text) => {
                // Read as a browser reads it: the `Host` it sends for the URL's pages and the
                // `Origin` their forms carry, with a default or empty port left out, and the
                // host the URL parser finds (a backslash ends the authority, as a slash does).
                let url = url::Url::parse(text)
                    .ok()
                    .filter(|u| matches!(u.scheme(), "http" | "https"))
                    .ok_or_else(|| {
                        format!("the public URL `{text}` is not an http:// or https:// URL")
                    })?;
                let host = url
                    .host_str()
                    .and_then(host_of)
                    .filter(|h| !h.is_empty())
                    .ok_or_else(|| format!("the public URL `{text}` names no host"))?;
                Ok(Self {
                    public: Some(host),
                    public_origin: Some(url.origin().ascii_serialization()),
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

    /// Whether a state-changing request for `authority` came from a page of this dashboard,
    /// by its `Sec-Fetch-Site` and `Origin` headers. Browsers say where a request comes from
    /// with `Sec-Fetch-Site`, and older ones with `Origin`, which must then be the public
    /// URL's origin or the `http` or `https` origin of the request's own host; a request with
    /// neither comes from no browser, and the CSRF token alone decides.
    ///
    /// ```
    /// use insights_dashboard::DashboardHosts;
    ///
    /// let hosts = DashboardHosts::for_public_url(Some("https://insights.example.org"), false)?;
    /// let host = "insights.example.org";
    /// assert!(hosts.same_origin(Some("same-origin"), None, host));
    /// assert!(!hosts.same_origin(Some("cross-site"), Some("https://insights.example.org"), host));
    /// assert!(hosts.same_origin(None, Some("https://insights.example.org"), "127.0.0.1:8080"));
    /// assert!(!hosts.same_origin(None, Some("https://evil.example.net"), host));
    /// # Ok::<(), String>(())
    /// ```
    #[must_use]
    pub fn same_origin(
        &self,
        sec_fetch_site: Option<&str>,
        origin: Option<&str>,
        authority: &str,
    ) -> bool {
        if let Some(site) = sec_fetch_site {
            return matches!(site, "same-origin" | "none");
        }
        match origin {
            None => true,
            Some(origin) => {
                self.public_origin
                    .as_deref()
                    .is_some_and(|public| origin.eq_ignore_ascii_case(public))
                    || origin.split_once("://").is_some_and(|(scheme, theirs)| {
                        // The dashboard's pages are web pages: another scheme is another origin.
                        (scheme.eq_ignore_ascii_case("http")
                            || scheme.eq_ignore_ascii_case("https"))
                            && theirs.eq_ignore_ascii_case(authority)
                    })
            }
        }
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
    // One trailing dot is the root of a fully qualified name (`example.org.` is
    // `example.org`), as browsers read it; more are another name, which trimming them all
    // would turn into a different host (`0..` into the address `0`).
    let host = host.strip_suffix('.').unwrap_or(host);
    ok.then(|| host.to_ascii_lowercase())
}

/// The authority a request is for: its `Host` header, or the authority of an HTTP/2 request.
fn request_authority(request: &Request) -> Option<&str> {
    request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
}

/// [`DashboardHosts::same_origin`] of a request's headers; a header that is not text counts as
/// absent.
fn same_origin(hosts: &DashboardHosts, headers: &HeaderMap, authority: &str) -> bool {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    hosts.same_origin(
        text("sec-fetch-site"),
        text(header::ORIGIN.as_str()),
        authority,
    )
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
    if !safe && !same_origin(&dashboard.ports.hosts, request.headers(), &authority) {
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
        assert_eq!(
            host_of("0..").as_deref(),
            Some("0."),
            "one root dot, not two"
        );
        assert_eq!(host_of("[::1]:8080").as_deref(), Some("::1"));
        assert_eq!(host_of("[::1]x"), None);
        assert_eq!(host_of("a b"), None);
    }

    /// Found by fuzzing: the public URL's origin was kept as written, so a form from one of
    /// its pages, whose `Origin` a browser writes without a default or empty port, was refused;
    /// and the host was read differently from a browser's reading of the URL.
    #[test]
    fn the_public_url_is_read_as_a_browser_reads_it() {
        for (public, host, origin) in [
            (
                "https://insights.example.org:443/",
                "insights.example.org",
                "https://insights.example.org",
            ),
            (
                "https://insights.example.org:/x",
                "insights.example.org",
                "https://insights.example.org",
            ),
            (
                "HTTP://Insights.Example.org:8080",
                "insights.example.org:8080",
                "http://insights.example.org:8080",
            ),
            (
                "https://insights.example.org\\@evil.example.net/",
                "insights.example.org",
                "https://insights.example.org",
            ),
        ] {
            let hosts = DashboardHosts::for_public_url(Some(public), false).unwrap();
            assert!(hosts.allows(host), "{public}");
            assert!(!hosts.allows("evil.example.net"), "{public}");
            assert!(
                hosts.same_origin(None, Some(origin), "127.0.0.1:8080"),
                "{public}"
            );
        }
        // A name ending in two dots is not the address its digits would be without them.
        let dotted = DashboardHosts::for_public_url(Some("https:/0..:0"), false).unwrap();
        assert!(dotted.allows("0..:0"));
        assert!(
            !dotted.allows("0"),
            "0 is the address 0.0.0.0, another host"
        );
        for refused in [
            "ftp://insights.example.org",
            "insights.example.org",
            "https://",
        ] {
            assert!(
                DashboardHosts::for_public_url(Some(refused), false).is_err(),
                "{refused}"
            );
        }
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
            let hosts =
                DashboardHosts::for_public_url(Some("https://insights.example.org"), true).unwrap();
            same_origin(&hosts, &headers, "127.0.0.1:8080")
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
        // Found by fuzzing: the origin's scheme was not read, so any scheme before the
        // request's own host passed.
        assert!(!with(&[("origin", "h:80://127.0.0.1:8080")]));
        assert!(!with(&[("origin", "ftp://127.0.0.1:8080")]));
        assert!(with(&[("origin", "HTTPS://127.0.0.1:8080")]));
        // Sec-Fetch-Site is the browser's own verdict and wins.
        assert!(!with(&[
            ("sec-fetch-site", "cross-site"),
            ("origin", "https://insights.example.org"),
        ]));
    }
}
