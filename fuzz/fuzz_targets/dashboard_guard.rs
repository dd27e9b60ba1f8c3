//! The dashboard's guard and forms, as a browser or anything else may send them. Whatever the
//! `Host`, the dashboard answers only to the names it is served under as a browser reads them
//! (the public URL's host, loopback on the quick start), and always to the Host a browser
//! sends for a page of its public URL; a form passes the origin check only from the public
//! URL's origin or from the request's own host and port as a browser reads them, and always
//! from a page of the public URL. A form body is read with each field the one value sent
//! under its name (empty when absent), or refused when a field is given twice; a key is read
//! only from a UUID, and reads back the same.
//!
//! An input is lines: the public URL (empty for none), the `Host`, the `Origin` (empty for
//! none), then the form's body.

#![no_main]

use insights_dashboard::DashboardHosts;
use insights_dashboard::form::{Common, parse_key, read};
use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use url::{Host, Url};

/// The rule form's fields, the largest form (every field a string, empty when absent).
#[derive(Debug, Deserialize)]
struct RuleFields {
    #[serde(default)]
    rule: String,
    #[serde(default, rename = "type")]
    data_type: String,
    #[serde(default)]
    forecast: String,
    #[serde(default)]
    sensitivity: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    deterioration: String,
    #[serde(default)]
    improvement: String,
    #[serde(default)]
    aq_index: String,
    #[serde(default)]
    audience: String,
    #[serde(default)]
    repeat: String,
    #[serde(default)]
    enabled: String,
    #[serde(default)]
    action: String,
}

impl RuleFields {
    const NAMES: [&str; 12] = [
        "rule",
        "type",
        "forecast",
        "sensitivity",
        "message",
        "deterioration",
        "improvement",
        "aq_index",
        "audience",
        "repeat",
        "enabled",
        "action",
    ];

    fn values(&self) -> [&str; 12] {
        [
            &self.rule,
            &self.data_type,
            &self.forecast,
            &self.sensitivity,
            &self.message,
            &self.deterioration,
            &self.improvement,
            &self.aq_index,
            &self.audience,
            &self.repeat,
            &self.enabled,
            &self.action,
        ]
    }
}

fuzz_target!(|data: &[u8]| {
    let mut lines = data.splitn(4, |&b| b == b'\n');
    let (public, host, origin) = (lines.next(), lines.next(), lines.next());
    let body = lines.next().unwrap_or_default();
    check_form(body);
    let (Some(public), Some(host)) = (text(public), text(host)) else {
        return;
    };
    let origin = text(origin).filter(|o| !o.is_empty());
    let public = (!public.is_empty()).then_some(public);
    for on_loopback in [false, true] {
        let Ok(hosts) = DashboardHosts::for_public_url(public, on_loopback) else {
            continue;
        };
        check_host(&hosts, public, on_loopback, host);
        check_origin(&hosts, public, host, origin);
    }
});

/// A line that is text.
fn text(line: Option<&[u8]>) -> Option<&str> {
    line.and_then(|l| std::str::from_utf8(l).ok())
}

/// A host as a browser reads it, for comparing: lower case, no trailing dots, no brackets.
fn browser_host(host: &Host<&str>) -> String {
    match host {
        Host::Domain(name) => name.trim_end_matches('.').to_ascii_lowercase(),
        Host::Ipv4(v4) => v4.to_string(),
        Host::Ipv6(v6) => v6.to_string(),
    }
}

/// The public URL as a browser reads it, when it is a web URL with a host.
fn public_url(public: Option<&str>) -> Option<Url> {
    Url::parse(public?).ok().filter(|u| {
        matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
    })
}

/// The `Host` a browser sends for a page of `url`: the host, and the port unless it is the
/// scheme's own.
fn host_header(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

fn check_host(hosts: &DashboardHosts, public: Option<&str>, on_loopback: bool, host: &str) {
    let published = public_url(public);
    if let Some(url) = &published {
        assert!(
            hosts.allows(&host_header(url)),
            "{:?} is refused under its own public URL {url}",
            host_header(url)
        );
    }
    if !hosts.allows(host) {
        return;
    }
    // What a browser that sent this `Host` was asked to open. A browser sends a host and a
    // port only: no user, path, query or fragment.
    let Some(seen) = Url::parse(&format!("http://{host}/"))
        .ok()
        .filter(|u| {
            u.username().is_empty()
                && u.password().is_none()
                && u.path() == "/"
                && u.query().is_none()
                && u.fragment().is_none()
        })
        .and_then(|u| u.host().map(|h| browser_host(&h)))
    else {
        return;
    };
    let loopback = seen == "localhost"
        || seen
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    let allowed = match (public, &published) {
        (None, _) => loopback || seen.parse::<std::net::IpAddr>().is_ok(),
        (Some(_), Some(url)) => {
            url.host().is_some_and(|h| browser_host(&h) == seen) || (on_loopback && loopback)
        }
        // A public URL a browser cannot open: nothing to compare with.
        (Some(_), None) => true,
    };
    assert!(
        allowed,
        "Host {host:?} ({seen}) is allowed under {public:?}"
    );
}

fn check_origin(hosts: &DashboardHosts, public: Option<&str>, host: &str, origin: Option<&str>) {
    if let Some(url) = public_url(public) {
        // A page of the public URL, behind a proxy that forwards another `Host`.
        let theirs = url.origin().ascii_serialization();
        assert!(
            hosts.same_origin(None, Some(&theirs), "127.0.0.1:8080"),
            "a form from {theirs}, a page of the public URL {url}, is refused"
        );
    }
    let Some(origin) = origin else {
        assert!(hosts.same_origin(None, None, host));
        return;
    };
    if !hosts.same_origin(None, Some(origin), host) {
        return;
    }
    let from_public = public_url(public).is_some_and(|url| {
        url.origin()
            .ascii_serialization()
            .eq_ignore_ascii_case(origin)
    });
    if from_public {
        return;
    }
    // Otherwise the origin is the request's own host and port, as a browser reads both.
    let Ok(sent) = Url::parse(origin) else {
        return;
    };
    let Ok(own) = Url::parse(&format!("{}://{host}/", sent.scheme())) else {
        return;
    };
    let place = |u: &Url| {
        (
            u.host().map(|h| browser_host(&h)),
            u.port_or_known_default(),
        )
    };
    assert_eq!(
        place(&sent),
        place(&own),
        "a form from {origin:?} passes for Host {host:?}"
    );
}

fn check_form(body: &[u8]) {
    let pairs: Vec<(String, String)> = form_urlencoded::parse(body)
        .map(|(n, v)| (n.into_owned(), v.into_owned()))
        .collect();
    let sent = |name: &str| -> Vec<&str> {
        pairs
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    };
    let twice = ["csrf", "key"]
        .into_iter()
        .chain(RuleFields::NAMES)
        .any(|name| sent(name).len() > 1);
    let (common, fields) = match read::<RuleFields>(body) {
        Ok(read) => read,
        Err(e) => {
            assert!(twice, "a form with every field once is refused: {e}");
            return;
        }
    };
    assert!(!twice, "a form with a field given twice is read");
    let Common { csrf, key } = &common;
    for (name, value) in [("csrf", csrf.as_str()), ("key", key.as_str())]
        .into_iter()
        .chain(RuleFields::NAMES.into_iter().zip(fields.values()))
    {
        let expected = sent(name).first().copied().unwrap_or_default();
        assert_eq!(value, expected, "field {name}");
    }
    if let Some(id) = parse_key(key) {
        assert_eq!(uuid::Uuid::parse_str(key.trim()).ok(), Some(id.0));
        assert_eq!(parse_key(&id.to_string()), Some(id));
    } else {
        assert!(uuid::Uuid::parse_str(key.trim()).is_err());
    }
}
