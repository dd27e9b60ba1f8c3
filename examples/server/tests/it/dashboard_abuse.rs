//! The dashboard against hostile anonymous clients: huge emails, password-hash floods,
//! requests under a foreign host name (DNS rebinding), forms posted from another site, and
//! a login CSRF cookie the client made itself. Each bound is SECURITY.md's.

use tokio::task::JoinSet;

use crate::harness::{Deployment, Reply, Server, client};
use crate::security::{Browser, CSRF_REFUSAL, PASSWORD, field, new_email, random_hex, serve, text};

/// The server's peak resident memory so far (`VmHWM`), in KiB.
fn peak_kib(server: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {status}"))
}

/// The login CSRF token of a fresh sign-in page, which is also its cookie's value.
async fn login_token(server: &Server) -> String {
    let mut browser = Browser::new(server);
    let page = browser.get("/dashboard/signin").await;
    assert_eq!(page.status, 200, "{}", text(&page));
    field(&page, "csrf")
}

/// A sign-in or sign-up POST with `token` as cookie and form field, sent as `body` would be
/// by a client that skips the browser; the status, or `None` when the server closed the
/// connection before answering (as it may for a body it refuses to read).
async fn post_login(server: &Server, path: &str, token: &str, email: &str) -> Option<u16> {
    let body = format!(
        "csrf={token}&password=wrong+password+here&email={}",
        email.replace('@', "%40")
    );
    client()
        .post(server.url(path))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("cookie", format!("insights_login_csrf={token}"))
        .body(body)
        .send()
        .await
        .ok()
        .map(|r| r.status().as_u16())
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn anonymous_sign_ins_with_megabyte_emails_keep_the_servers_memory_small() {
    const ATTEMPTS: usize = 120;
    const AT_ONCE: usize = 8;
    const BOUND_KIB: u64 = 48 * 1024;
    let deployment = Deployment::new();
    let server = deployment.serve(&[]);
    let token = login_token(&server).await;
    // One ordinary attempt first, so that what a first sign-in allocates once is not counted.
    assert_eq!(
        post_login(&server, "/dashboard/signin", &token, &new_email()).await,
        Some(422)
    );
    let before = peak_kib(&server);

    let server = std::sync::Arc::new(server);
    let mut attempts = JoinSet::new();
    for worker in 0..AT_ONCE {
        let (server, token) = (server.clone(), token.clone());
        attempts.spawn(async move {
            let mut statuses = Vec::new();
            for n in (worker..ATTEMPTS).step_by(AT_ONCE) {
                let email = format!("{}{n}@example.org", "a".repeat(1024 * 1024));
                statuses.push(post_login(&server, "/dashboard/signin", &token, &email).await);
            }
            statuses
        });
    }
    let mut statuses = Vec::new();
    while let Some(done) = attempts.join_next().await {
        statuses.extend(done.unwrap());
    }
    let grown = peak_kib(&server).saturating_sub(before);
    assert!(
        grown < BOUND_KIB,
        "{ATTEMPTS} sign-ins with 1 MB emails raised the peak by {} MiB (bound 48 MiB)",
        grown / 1024
    );
    assert!(
        statuses.iter().all(|s| matches!(s, Some(413) | None)),
        "each is refused as too large: {statuses:?}"
    );
    assert_eq!(
        client()
            .get(server.url("/healthz"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_email_is_refused_before_any_limit_or_password_hash() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let email = new_email();
    browser.sign_up(&email).await;
    let token = login_token(&server).await;
    // More than the network's allowance, each within the form limit but over the email limit.
    for n in 0..40 {
        let long = format!("{}{n}@example.org", "b".repeat(4000));
        let mut browser = Browser::new(&server);
        browser.set_cookie("insights_login_csrf", &token);
        let reply = browser
            .post(
                "/dashboard/signin",
                &[("email", &long), ("password", PASSWORD), ("csrf", &token)],
            )
            .await;
        assert_eq!(reply.status, 422, "{}", text(&reply));
        assert!(text(&reply).contains("at most 254"), "{}", text(&reply));
    }
    // None of them counted: the account's owner still signs in from the same address.
    let mut owner = Browser::new(&server);
    let page = owner.get("/dashboard/signin").await;
    let csrf = field(&page, "csrf");
    let reply = owner
        .post(
            "/dashboard/signin",
            &[("email", &email), ("password", PASSWORD), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(reply.status, 303, "{}", text(&reply));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn password_hashes_beyond_the_cap_are_answered_503_with_retry_after() {
    const AT_ONCE: usize = 24;
    let deployment = Deployment::new().config("max_password_hashes = 1\n");
    let server = std::sync::Arc::new(deployment.serve(&[]));
    let token = login_token(&server).await;
    let mut attempts = JoinSet::new();
    for _ in 0..AT_ONCE {
        let (server, token) = (server.clone(), token.clone());
        attempts.spawn(async move {
            let body = format!(
                "csrf={token}&password=wrong+password+here&email={}",
                new_email().replace('@', "%40")
            );
            let response = client()
                .post(server.url("/dashboard/signin"))
                .header("content-type", "application/x-www-form-urlencoded")
                .header("cookie", format!("insights_login_csrf={token}"))
                .body(body)
                .send()
                .await
                .unwrap();
            Reply::read(response).await
        });
    }
    let mut busy = 0;
    while let Some(reply) = attempts.join_next().await {
        let reply = reply.unwrap();
        match reply.status.as_u16() {
            503 => {
                busy += 1;
                assert_eq!(reply.header("retry-after"), Some("1"), "{reply:?}");
                assert!(text(&reply).contains("busy"), "{}", text(&reply));
            }
            422 => {}
            other => panic!("unexpected {other}: {}", text(&reply)),
        }
    }
    assert!(
        busy > 0,
        "{AT_ONCE} sign-ins at once with room for one hash: none refused"
    );
}

/// GETs `path` on `server` naming `host` in the `Host` header.
async fn get_as(server: &Server, host: &str, path: &str) -> Reply {
    let response = client()
        .get(server.url(path))
        .header("host", host)
        .send()
        .await
        .unwrap();
    Reply::read(response).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_answers_only_under_its_own_host_names() {
    // The quick start on loopback: a page under an attacker's name that resolves to
    // 127.0.0.1 (DNS rebinding) gets nothing.
    let local = Deployment::new();
    let server = local.serve(&[]);
    let port = server.base.rsplit(':').next().unwrap().to_owned();
    for host in [
        format!("rebind.attacker.example:{port}"),
        "example.org".to_owned(),
    ] {
        let reply = get_as(&server, &host, "/dashboard/signin").await;
        assert_eq!(reply.status, 421, "{host}: {}", text(&reply));
        assert!(reply.header("set-cookie").is_none(), "{host}");
    }
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
    ] {
        let reply = get_as(&server, &host, "/dashboard/signin").await;
        assert_eq!(reply.status, 200, "{host}: {}", text(&reply));
    }
    // The API is for any host: clients may reach it through names the operator never heard of.
    let api = get_as(
        &server,
        "api.elsewhere.example",
        "/insights/v1/openapi.json",
    )
    .await;
    assert_eq!(api.status, 200);

    // Published under a name: that name, and loopback for a proxy on the same machine.
    let published = Deployment::new();
    let server = published.serve(&["--public-url", "https://insights.example.org"]);
    assert_eq!(
        get_as(&server, "insights.example.org", "/dashboard/signin")
            .await
            .status,
        200
    );
    for host in ["evil.example.net", "insights.example.org.evil.example.net"] {
        let reply = get_as(&server, host, "/dashboard/signin").await;
        assert_eq!(reply.status, 421, "{host}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_posted_from_another_site_is_refused_even_with_a_valid_token() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let email = new_email();
    let csrf = browser.sign_up(&email).await;
    let create = |label: &str| vec![("label", label.to_owned()), ("csrf", csrf.clone())];
    for (header, value) in [
        ("sec-fetch-site", "cross-site"),
        ("sec-fetch-site", "same-site"),
        ("origin", "https://evil.example.net"),
        ("origin", "null"),
    ] {
        let fields = create("from elsewhere");
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let request = browser
            .form("/dashboard/keys", &fields)
            .header(header, value);
        let reply = browser.send(request).await;
        assert_eq!(reply.status, 403, "{header}: {value}: {}", text(&reply));
        assert!(text(&reply).contains(CSRF_REFUSAL), "{}", text(&reply));
    }
    let keys = deployment.admin(&["list-keys", "--email", &email]);
    assert_eq!(
        keys.as_array().unwrap().len(),
        0,
        "nothing was created: {keys}"
    );
    // The dashboard's own pages, as a browser sends them.
    let origin = server.base.clone();
    for (header, value) in [
        ("sec-fetch-site", "same-origin"),
        ("origin", origin.as_str()),
    ] {
        let fields = create("from here");
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let request = browser
            .form("/dashboard/keys", &fields)
            .header(header, value);
        let reply = browser.send(request).await;
        assert_eq!(reply.status, 201, "{header}: {}", text(&reply));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_csrf_cookie_the_server_did_not_make_is_refused() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let email = new_email();
    // The double-submit pair matches, but the client chose it (a sibling subdomain or a
    // plain-http hop can plant such a cookie).
    let planted = random_hex();
    for path in ["/dashboard/signup", "/dashboard/signin"] {
        let mut browser = Browser::new(&server);
        browser.set_cookie("insights_login_csrf", &planted);
        let reply = browser
            .post(
                path,
                &[
                    ("email", &email),
                    ("password", PASSWORD),
                    ("csrf", &planted),
                ],
            )
            .await;
        assert_eq!(reply.status, 403, "{path}: {}", text(&reply));
        assert!(browser.cookie("insights_session").is_none(), "{path}");
        // The page offered next carries a token of the server's instead.
        let page = browser.get("/dashboard/signup").await;
        assert_ne!(field(&page, "csrf"), planted);
    }
    let out = deployment.admin_output(&["list-keys", "--email", &email]);
    assert!(!out.status.success(), "no account was created");
}
