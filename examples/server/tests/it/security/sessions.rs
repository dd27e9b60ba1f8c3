//! Dashboard sessions: cookies locked down, pages closed without a live session, and a new
//! session at every sign-in.

use serde_json::json;

use crate::harness::Deployment;

use super::browser::{Browser, assert_redirect, field, random_hex, set_cookie_header, text};
use super::fixtures::{PASSWORD, create_key, new_email, serve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_cookies_are_http_only_same_site_and_scoped_to_the_dashboard() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let page = browser.get("/dashboard/signup").await;
    let login = set_cookie_header(&page, "insights_login_csrf");
    let csrf = field(&page, "csrf");
    let signed_up = browser
        .post(
            "/dashboard/signup",
            &[
                ("email", &new_email()),
                ("password", PASSWORD),
                ("csrf", &csrf),
            ],
        )
        .await;
    let session = set_cookie_header(&signed_up, "insights_session");
    for cookie in [&login, &session] {
        let attributes: Vec<&str> = cookie.split(';').map(str::trim).collect();
        for expected in ["HttpOnly", "SameSite=Lax", "Path=/dashboard"] {
            assert!(attributes.contains(&expected), "{expected} in {cookie}");
        }
        assert!(
            !attributes.contains(&"Secure"),
            "plain http keeps working: {cookie}"
        );
        assert!(!cookie.contains("Domain="), "host-only: {cookie}");
        let max_age: u64 = attributes
            .iter()
            .find_map(|a| a.strip_prefix("Max-Age="))
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=12 * 3600).contains(&max_age), "{cookie}");
    }
    // Random (two v4 UUIDs in hex), not something derived from the account.
    let id = browser.cookie("insights_session").unwrap();
    assert_eq!(id.len(), 64, "{id}");
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");

    let csrf = browser.session_csrf().await;
    let signed_out = browser.post("/dashboard/signout", &[("csrf", &csrf)]).await;
    let cleared = set_cookie_header(&signed_out, "insights_session");
    assert!(cleared.starts_with("insights_session=;"), "{cleared}");
    assert!(cleared.contains("Max-Age=0"), "{cleared}");
    assert!(cleared.contains("Path=/dashboard"), "{cleared}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_cookies_are_secure_and_host_only_when_the_public_url_is_https() {
    let deployment = Deployment::new();
    let server = serve(
        &deployment,
        &["--public-url", "https://insights.example.org"],
    );
    let mut browser = Browser::new(&server);
    let page = browser.get("/dashboard/signin").await;
    let login = set_cookie_header(&page, "__Host-insights_login_csrf");
    let csrf = field(&page, "csrf");
    let signed_up = browser
        .post(
            "/dashboard/signup",
            &[
                ("email", &new_email()),
                ("password", PASSWORD),
                ("csrf", &csrf),
            ],
        )
        .await;
    let session = set_cookie_header(&signed_up, "__Host-insights_session");
    // `__Host-` cookies cannot be set by any other host, sibling subdomains included; browsers
    // take them only with `Secure`, `Path=/` and no `Domain`.
    for cookie in [&login, &session] {
        let attributes: Vec<&str> = cookie.split(';').map(str::trim).collect();
        for expected in ["Secure", "HttpOnly", "SameSite=Lax", "Path=/"] {
            assert!(attributes.contains(&expected), "{expected} in {cookie}");
        }
        assert!(!cookie.contains("Domain="), "host-only: {cookie}");
    }
    assert_eq!(browser.session_csrf().await.len(), 64, "signed in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_without_a_live_session_send_the_browser_to_sign_in() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let email = new_email();
    let csrf = browser.sign_up(&email).await;
    let key = create_key(&deployment, &email);
    let pages = [
        "/dashboard/keys",
        "/dashboard/alerts",
        "/dashboard/rules",
        "/dashboard/deliveries",
        "/dashboard/playground",
    ];
    let keys_before = deployment.admin(&["list-keys", "--email", &email]);

    // The session outlives its end in the store, as it would in a browser left open.
    let expired = browser.cookie("insights_session").unwrap();
    let pool = sqlx::SqlitePool::connect(&deployment.sqlite_url())
        .await
        .unwrap();
    let ended = (chrono::Utc::now() - chrono::Duration::minutes(1)).timestamp_micros();
    let changed = sqlx::query("UPDATE sessions SET expires_at = ?1")
        .bind(ended)
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(changed.rows_affected(), 1);
    pool.close().await;

    // What a browser without a session, or with a made-up, borrowed or ended one, is shown.
    for (what, cookie) in [
        ("no session", None),
        ("a made-up session", Some(random_hex())),
        ("a CSRF token as session", Some(csrf.clone())),
        ("an expired session", Some(expired)),
        ("an empty session", Some(String::new())),
    ] {
        let mut visitor = Browser::new(&server);
        if let Some(cookie) = &cookie {
            visitor.set_cookie("insights_session", cookie);
        }
        for page in pages {
            let reply = visitor.get(page).await;
            assert_redirect(&reply, "/dashboard/signin");
            assert!(!text(&reply).contains(&key.prefix), "{what}: {page}");
        }
        // Forms too, even with a token that was once valid.
        let reply = visitor
            .post(
                "/dashboard/keys",
                &[("label", "uninvited"), ("csrf", &csrf)],
            )
            .await;
        assert_redirect(&reply, "/dashboard/signin");
        let reply = visitor
            .post(
                "/dashboard/keys/revoke",
                &[("key", &key.id), ("csrf", &csrf)],
            )
            .await;
        assert_redirect(&reply, "/dashboard/signin");
    }
    assert_eq!(
        deployment.admin(&["list-keys", "--email", &email]),
        keys_before,
        "nothing changed"
    );
    // Signing in again is the way back.
    browser.signed_in(&email).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_ends_at_sign_out_and_signing_in_starts_a_new_one() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let email = new_email();
    let csrf = browser.sign_up(&email).await;
    let first = browser.cookie("insights_session").unwrap();
    let signed_out = browser.post("/dashboard/signout", &[("csrf", &csrf)]).await;
    assert_redirect(&signed_out, "/dashboard/signin");
    assert!(browser.cookie("insights_session").is_none());

    // The old cookie, replayed (as a copy stolen before sign-out would be), is dead, and so
    // is its CSRF token.
    let mut replay = Browser::new(&server);
    replay.set_cookie("insights_session", &first);
    assert_redirect(&replay.get("/dashboard/keys").await, "/dashboard/signin");
    let reply = replay
        .post(
            "/dashboard/keys",
            &[("label", "after sign-out"), ("csrf", &csrf)],
        )
        .await;
    assert_redirect(&reply, "/dashboard/signin");

    // A session id planted in the browser before signing in is replaced, not adopted.
    let planted = random_hex();
    browser.set_cookie("insights_session", &planted);
    let new_csrf = browser.signed_in(&email).await;
    let second = browser.cookie("insights_session").unwrap();
    assert_ne!(second, planted);
    assert_ne!(second, first);
    assert_ne!(new_csrf, csrf, "each session has its own CSRF token");
    let mut attacker = Browser::new(&server);
    attacker.set_cookie("insights_session", &planted);
    assert_redirect(&attacker.get("/dashboard/keys").await, "/dashboard/signin");
    assert_eq!(
        deployment.admin(&["list-keys", "--email", &email]),
        json!([]),
        "no key was made by the replayed session"
    );
}
