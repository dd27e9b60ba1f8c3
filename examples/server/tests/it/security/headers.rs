//! The dashboard's pages carry a strict Content-Security-Policy and the other security headers.

use std::collections::BTreeMap;

use crate::harness::{Deployment, Reply};

use super::browser::{Browser, field, text};
use super::fixtures::{new_email, serve};

/// The directives of a Content-Security-Policy, by name.
fn directives(csp: &str) -> BTreeMap<String, Vec<String>> {
    csp.split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            let mut words = d.split_whitespace();
            let name = words.next().unwrap().to_ascii_lowercase();
            (name, words.map(str::to_owned).collect())
        })
        .collect()
}

#[track_caller]
fn assert_locked_down(what: &str, reply: &Reply) {
    let csp = reply
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{what} has no Content-Security-Policy"));
    let d = directives(csp);
    let only = |name: &str, value: &str| {
        assert_eq!(
            d.get(name).map(Vec::as_slice),
            Some([value.to_owned()].as_slice()),
            "{what}: {name} in {csp}"
        );
    };
    only("default-src", "'none'");
    only("script-src", "'self'");
    only("style-src", "'self'");
    only("frame-ancestors", "'none'");
    only("form-action", "'self'");
    only("base-uri", "'none'");
    for (name, values) in &d {
        for value in values {
            assert!(
                !value.contains("unsafe") && !value.contains('*') && !value.contains("http"),
                "{what}: {name} allows {value}: {csp}"
            );
            assert!(
                value.starts_with('\'') || value == "data:",
                "{what}: {name} names an origin, {value}: {csp}"
            );
        }
    }
    assert!(
        !d.contains_key("object-src") || d["object-src"] == ["'none'"],
        "{csp}"
    );
    assert_eq!(
        reply.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert!(
        matches!(
            reply.header("referrer-policy"),
            Some("no-referrer" | "same-origin" | "strict-origin")
        ),
        "{what}: Referrer-Policy {:?}",
        reply.header("referrer-policy")
    );
    if let Some(frames) = reply.header("x-frame-options") {
        assert_eq!(frames.to_ascii_uppercase(), "DENY", "{what}");
    }
    assert_eq!(reply.header("cache-control"), Some("no-store"), "{what}");

    // The page itself needs nothing the policy forbids: scripts from files of this origin,
    // no inline handlers or javascript: links, nothing loaded from elsewhere.
    let html = text(reply).to_ascii_lowercase();
    for (at, _) in html.match_indices("<script") {
        let tag = &html[at..at + html[at..].find('>').unwrap()];
        assert!(
            tag.contains("src=\"/dashboard/"),
            "{what}: inline script {tag}"
        );
    }
    for needle in [
        " onclick=",
        " onload=",
        " onerror=",
        " onsubmit=",
        " onchange=",
        " oninput=",
        "javascript:",
        " style=",
    ] {
        assert!(!html.contains(needle), "{what}: {needle}");
    }
    for attribute in ["src=\"", "href=\"", "action=\""] {
        for (at, _) in html.match_indices(attribute) {
            let value = &html[at + attribute.len()..];
            assert!(
                value.starts_with('/') || value.starts_with('#') || value.starts_with('?'),
                "{what}: {attribute}{}",
                &value[..value.find('"').unwrap()]
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_pages_carry_a_strict_content_security_policy_and_the_other_security_headers() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    for page in ["/dashboard/signin", "/dashboard/signup"] {
        let reply = browser.get(page).await;
        assert_eq!(reply.status, 200);
        assert_locked_down(page, &reply);
    }
    let email = new_email();
    let csrf = browser.sign_up(&email).await;
    let created = browser
        .post("/dashboard/keys", &[("label", "headers"), ("csrf", &csrf)])
        .await;
    assert_eq!(created.status, 201);
    assert_locked_down("the page with a new key", &created);
    let id = field(&created, "key");
    for page in [
        "/dashboard/keys".to_owned(),
        format!("/dashboard/alerts?key={id}"),
        format!("/dashboard/rules?key={id}"),
        format!("/dashboard/deliveries?key={id}"),
        "/dashboard/playground".to_owned(),
    ] {
        let reply = browser.get(&page).await;
        assert_eq!(reply.status, 200, "{page}");
        assert_locked_down(&page, &reply);
    }
    let unknown = browser
        .get(&format!("/dashboard/alerts?key={}", uuid::Uuid::new_v4()))
        .await;
    assert_eq!(unknown.status, 404);
    assert_locked_down("the unknown-key page", &unknown);
    let refused = browser.post("/dashboard/keys", &[("label", "x")]).await;
    assert_eq!(refused.status, 403);
    assert_locked_down("the CSRF refusal", &refused);
    let invalid = browser
        .post(
            "/dashboard/alerts/webhook",
            &[("key", &id), ("url", "ftp://x"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(invalid.status, 422);
    assert_locked_down("a refused form", &invalid);
    // The script and stylesheet the policy allows cannot be read as anything else.
    for asset in [
        "/dashboard/assets/dashboard.js",
        "/dashboard/assets/dashboard.css",
    ] {
        let reply = browser.get(asset).await;
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{asset}"
        );
    }
}
