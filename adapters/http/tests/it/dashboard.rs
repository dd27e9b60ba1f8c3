//! The dashboard's forms over in-memory ports: each form valid, invalid, without its CSRF token,
//! and on someone else's key; sessions, cookies, the security headers and the sign-in limit.

use std::collections::HashMap;
use std::sync::Arc;

use alerts_core::manage::{AnyWebhookUrl, Manager};
use alerts_core::memory::{MemoryFiles, MemoryStore, RecordingSender};
use alerts_core::pipeline::{AlertPipeline, PipelineConfig, PipelinePorts};
use alerts_core::ports::SessionStore;
use alerts_core::randomness::SeededRandomness;
use aq_core::memory::{FnSource, MemoryForecast};
use aq_core::runtime::{FixedClock, SequentialIds};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use insights_http::dashboard::DEFAULT_MAX_PASSWORD_HASHES;
use insights_http::{AppStateBuilder, CsrfKey, DashboardHosts, DashboardPorts, router};
use racs_core::Scorer;
use tower::ServiceExt;

const PASSWORD: &str = "correct horse battery";

pub(crate) struct Dash {
    pub(crate) router: axum::Router,
    /// The host the browser asks for.
    host: &'static str,
    store: Arc<MemoryStore>,
    pub(crate) manager: Manager,
    sender: Arc<RecordingSender>,
    pipeline: Arc<AlertPipeline>,
    /// The forecasts alerts read.
    pub(crate) forecast: Arc<MemoryForecast>,
}

pub(crate) fn dashboard(secure_cookies: bool) -> Dash {
    dashboard_with(secure_cookies, None)
}

/// The dashboard with `basemap` on its maps.
pub(crate) fn dashboard_with(
    secure_cookies: bool,
    basemap: Option<insights_http::Basemap>,
) -> Dash {
    // An https public URL is a published server; plain http the local quick start.
    let (public_url, host) = if secure_cookies {
        (Some("https://insights.example.org"), "insights.example.org")
    } else {
        (None, "localhost:8080")
    };
    let store = Arc::new(MemoryStore::new());
    let files = Arc::new(MemoryFiles::new());
    let clock = Arc::new(FixedClock::new(chrono::Utc::now()));
    let ids = Arc::new(SequentialIds::default());
    let sender = Arc::new(RecordingSender::new());
    let forecast = Arc::new(MemoryForecast::default());
    let manager = Manager::new(
        store.clone(),
        store.clone(),
        clock.clone(),
        ids.clone(),
        Arc::new(SeededRandomness::default()),
        Arc::new(AnyWebhookUrl),
    );
    let pipeline = Arc::new(AlertPipeline::new(
        PipelinePorts {
            rules: store.clone(),
            jobs: store.clone(),
            deliveries: store.clone(),
            files: files.clone(),
            signer: files.clone(),
            sender: sender.clone(),
            forecast: forecast.clone(),
            clock: clock.clone(),
            ids: ids.clone(),
        },
        PipelineConfig::default(),
    ));
    let field = FnSource::new("flat", |_: aq_core::Position, _| {
        aq_core::CleanlinessIndex::new(50.0).ok()
    });
    let scorer = Scorer::new(
        Arc::new(field),
        clock.clone(),
        Arc::new(insights_system::TokioTimer),
        ids.clone(),
    );
    let state = AppStateBuilder::new(store.clone(), pipeline.clone(), scorer, files, clock)
        .dashboard(DashboardPorts {
            manager: manager.clone(),
            sessions: store.clone(),
            deliveries: store.clone(),
            jobs: store.clone(),
            ids,
            rng: Arc::new(SeededRandomness::new(1)),
            sender: Some(sender.clone()),
            secure_cookies,
            hosts: DashboardHosts::for_public_url(public_url, false).unwrap(),
            csrf_key: CsrfKey::new([7u8; 32]).unwrap(),
            max_password_hashes: DEFAULT_MAX_PASSWORD_HASHES,
            basemap,
        })
        .build();
    Dash {
        router: router(state),
        host,
        store,
        manager,
        sender,
        pipeline,
        forecast,
    }
}

/// A browser: keeps cookies between requests.
pub(crate) struct Browser<'a> {
    dash: &'a Dash,
    cookies: HashMap<String, String>,
}

pub(crate) struct Page {
    pub(crate) status: StatusCode,
    pub(crate) headers: axum::http::HeaderMap,
    pub(crate) body: String,
}

impl Page {
    pub(crate) fn location(&self) -> &str {
        self.headers
            .get(header::LOCATION)
            .map_or("", |v| v.to_str().unwrap())
    }

    /// The value of the first hidden `csrf` field.
    fn csrf(&self) -> String {
        let at = self.body.find("name=\"csrf\" value=\"").unwrap() + 19;
        self.body[at..at + 64].to_owned()
    }
}

impl<'a> Browser<'a> {
    pub(crate) fn new(dash: &'a Dash) -> Self {
        Self {
            dash,
            cookies: HashMap::new(),
        }
    }

    async fn send(&mut self, request: Request<Body>) -> Page {
        let response = self.dash.router.clone().oneshot(request).await.unwrap();
        for value in response.headers().get_all(header::SET_COOKIE) {
            let value = value.to_str().unwrap();
            let (pair, _) = value.split_once(';').unwrap();
            let (name, v) = pair.split_once('=').unwrap();
            if value.contains("Max-Age=0") {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_owned(), v.to_owned());
            }
        }
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        Page {
            status,
            headers,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub(crate) async fn get(&mut self, path: &str) -> Page {
        let request = Request::get(path)
            .header(header::HOST, self.dash.host)
            .header(header::COOKIE, self.cookie_header())
            .body(Body::empty())
            .unwrap();
        self.send(request).await
    }

    pub(crate) async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let body = fields
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let request = Request::post(path)
            .header(header::HOST, self.dash.host)
            .header(header::COOKIE, self.cookie_header())
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap();
        self.send(request).await
    }

    /// Signs up as `email` and returns the session's CSRF token.
    pub(crate) async fn sign_up(&mut self, email: &str) -> String {
        let form = self.get("/dashboard/signup").await;
        let csrf = form.csrf();
        let done = self
            .post(
                "/dashboard/signup",
                &[("email", email), ("password", PASSWORD), ("csrf", &csrf)],
            )
            .await;
        assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
        self.get("/dashboard/keys").await.csrf()
    }
}

async fn keys_of(dash: &Dash, email: &str) -> usize {
    let account = dash.manager.account_by_email(email).await.unwrap();
    dash.manager.list_keys(account.id).await.unwrap().len()
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn signing_up_starts_a_session_with_a_locked_down_cookie() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let form = browser.get("/dashboard/signup").await;
    assert_eq!(form.status, StatusCode::OK);
    // The form states the rule the server applies, and lets the browser check it first.
    let min = alerts_core::account::MIN_PASSWORD_CHARS;
    assert!(
        form.body.contains(&format!("At least {min} characters.")),
        "{}",
        form.body
    );
    assert!(
        form.body.contains(&format!("minlength=\"{min}\"")),
        "{}",
        form.body
    );
    let done = browser
        .post(
            "/dashboard/signup",
            &[
                ("email", "ada@example.org"),
                ("password", PASSWORD),
                ("csrf", &form.csrf()),
            ],
        )
        .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER);
    assert_eq!(done.location(), "/dashboard/keys");
    let cookie = done
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("insights_session="))
        .unwrap();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Lax"), "{cookie}");
    assert!(!cookie.contains("Secure"), "{cookie}");
    let keys = browser.get("/dashboard/keys").await;
    assert_eq!(keys.status, StatusCode::OK);
    assert!(keys.body.contains("ada@example.org"));
}

#[tokio::test]
async fn cookies_are_secure_when_the_public_url_is_https() {
    let dash = dashboard(true);
    let mut browser = Browser::new(&dash);
    let form = browser.get("/dashboard/signin").await;
    let cookie = form
        .headers
        .get(header::SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap();
    assert!(cookie.contains("; Secure"), "{cookie}");
    // No other host can set a `__Host-` cookie, and it must cover the whole host.
    assert!(
        cookie.starts_with("__Host-insights_login_csrf="),
        "{cookie}"
    );
    assert!(cookie.contains("Path=/;"), "{cookie}");
}

#[tokio::test]
async fn the_session_store_keeps_only_a_hash_of_the_session_id() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    browser.sign_up("ada@example.org").await;
    let id = browser.cookies["insights_session"].clone();
    let now = chrono::Utc::now();
    assert!(dash.store.session(&id, now).await.unwrap().is_none());
    let hash = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(id.as_bytes()))
    };
    assert!(dash.store.session(&hash, now).await.unwrap().is_some());
}

#[tokio::test]
async fn every_page_has_a_strict_content_security_policy() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    for path in ["/dashboard/signup", "/dashboard/signin"] {
        let page = browser.get(path).await;
        let csp = page.headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(csp.contains("default-src 'none'"), "{path}: {csp}");
        assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
        assert!(!csp.contains("unsafe-inline"), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
    }
    browser.sign_up("ada@example.org").await;
    let keys = browser.get("/dashboard/keys").await;
    assert!(keys.headers.contains_key(header::CONTENT_SECURITY_POLICY));
    let css = browser.get("/dashboard/assets/dashboard.css").await;
    assert_eq!(css.status, StatusCode::OK);
    assert!(
        css.headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/css")
    );
}

#[tokio::test]
async fn every_page_says_the_data_is_synthetic_while_it_is() {
    // The test server scores routes from a synthetic field.
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let banner = "class=\"demo-banner\"";
    for path in ["/dashboard/signup", "/dashboard/signin"] {
        let page = browser.get(path).await;
        assert_eq!(page.body.matches(banner).count(), 1, "{path}");
        assert!(page.body.contains("synthetic demo field"), "{path}");
    }
    browser.sign_up("ada@example.org").await;
    for path in [
        "/dashboard/keys",
        "/dashboard/alerts",
        "/dashboard/rules",
        "/dashboard/deliveries",
        "/dashboard/playground",
    ] {
        let page = browser.get(path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        let at = page.body.find(banner).expect(path);
        assert!(at < page.body.find("<main>").unwrap(), "{path}: at the top");
    }
    // Error pages too.
    let missing = browser.get("/dashboard/rules?key=not-a-key").await;
    assert!(missing.body.contains(banner), "{}", missing.status);
    // Not the stylesheet.
    let css = browser.get("/dashboard/assets/dashboard.css").await;
    assert!(!css.body.contains("<p class=\"demo-banner\""));
}

#[tokio::test]
async fn an_invalid_sign_up_keeps_the_email_and_says_what_to_do() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.get("/dashboard/signup").await.csrf();
    let page = browser
        .post(
            "/dashboard/signup",
            &[
                ("email", "ada@example.org"),
                ("password", "short"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        page.body.contains("value=\"ada@example.org\""),
        "{}",
        page.body
    );
    assert!(page.body.contains("try again"), "{}", page.body);
    assert!(!browser.cookies.contains_key("insights_session"));
}

#[tokio::test]
async fn signing_up_with_a_taken_email_points_to_sign_in() {
    let dash = dashboard(false);
    dash.manager
        .create_account("ada@example.org", PASSWORD)
        .await
        .unwrap();
    let mut browser = Browser::new(&dash);
    let csrf = browser.get("/dashboard/signup").await.csrf();
    let page = browser
        .post(
            "/dashboard/signup",
            &[
                ("email", "ada@example.org"),
                ("password", PASSWORD),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.body.contains("sign in instead"), "{}", page.body);
}

#[tokio::test]
async fn sign_up_and_sign_in_without_the_csrf_token_are_refused() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    browser.get("/dashboard/signup").await;
    for path in ["/dashboard/signup", "/dashboard/signin"] {
        let page = browser
            .post(
                path,
                &[("email", "ada@example.org"), ("password", PASSWORD)],
            )
            .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}");
        assert!(page.body.contains("reload the page"), "{path}");
        let forged = browser
            .post(
                path,
                &[
                    ("email", "ada@example.org"),
                    ("password", PASSWORD),
                    ("csrf", &"0".repeat(64)),
                ],
            )
            .await;
        assert_eq!(forged.status, StatusCode::FORBIDDEN, "{path}");
    }
}

#[tokio::test]
async fn signing_in_with_the_right_password_starts_a_session() {
    let dash = dashboard(false);
    dash.manager
        .create_account("ada@example.org", PASSWORD)
        .await
        .unwrap();
    let mut browser = Browser::new(&dash);
    let csrf = browser.get("/dashboard/signin").await.csrf();
    let page = browser
        .post(
            "/dashboard/signin",
            &[
                ("email", "Ada@Example.org"),
                ("password", PASSWORD),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(browser.get("/dashboard/keys").await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_wrong_password_keeps_the_email_and_sign_in_attempts_are_limited() {
    let dash = dashboard(false);
    dash.manager
        .create_account("ada@example.org", PASSWORD)
        .await
        .unwrap();
    let mut browser = Browser::new(&dash);
    let csrf = browser.get("/dashboard/signin").await.csrf();
    let attempt = [
        ("email", "ada@example.org"),
        ("password", "wrong password!!"),
        ("csrf", &csrf),
    ];
    let first = browser.post("/dashboard/signin", &attempt).await;
    assert_eq!(first.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(first.body.contains("value=\"ada@example.org\""));
    assert!(first.body.contains("Check both and try again"));
    for _ in 0..4 {
        browser.post("/dashboard/signin", &attempt).await;
    }
    let limited = browser
        .post(
            "/dashboard/signin",
            &[
                ("email", "ada@example.org"),
                ("password", PASSWORD),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.body.contains("Wait a minute"));
    assert!(!browser.cookies.contains_key("insights_session"));
}

#[tokio::test]
async fn pages_without_a_session_send_the_browser_to_sign_in() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let page = browser.get("/dashboard/keys").await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.location(), "/dashboard/signin");
    browser
        .cookies
        .insert("insights_session".into(), "f".repeat(64));
    assert_eq!(
        browser.get("/dashboard/keys").await.location(),
        "/dashboard/signin"
    );
}

#[tokio::test]
async fn signing_out_ends_the_session_and_needs_the_csrf_token() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let id = browser.cookies["insights_session"].clone();
    let refused = browser.post("/dashboard/signout", &[]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(browser.get("/dashboard/keys").await.status, StatusCode::OK);
    let out = browser.post("/dashboard/signout", &[("csrf", &csrf)]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    // The old cookie is worthless even if the browser kept it.
    browser.cookies.insert("insights_session".into(), id);
    assert_eq!(
        browser.get("/dashboard/keys").await.location(),
        "/dashboard/signin"
    );
}

#[tokio::test]
async fn creating_a_key_shows_it_once_and_lists_it() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let page = browser
        .post(
            "/dashboard/keys",
            &[("label", "production"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(page.status, StatusCode::CREATED);
    let at = page.body.find("id=\"new-key-text\">").unwrap() + 18;
    let key = &page.body[at..page.body[at..].find('<').unwrap() + at];
    assert!(key.starts_with("ik_"), "{key}");
    assert!(page.body.contains("data-copy=\"new-key-text\""));
    let list = browser.get("/dashboard/keys").await;
    assert!(!list.body.contains(key), "the key is shown only once");
    assert!(list.body.contains(&key[..11]), "the list shows the prefix");
    assert!(list.body.contains("never"), "the list shows the last use");
}

#[tokio::test]
async fn an_invalid_label_is_refused_and_kept() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let long = "x".repeat(101);
    let page = browser
        .post("/dashboard/keys", &[("label", &long), ("csrf", &csrf)])
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.body.contains(&format!("value=\"{long}\"")));
    assert!(page.body.contains("up to 100 characters"));
    assert_eq!(keys_of(&dash, "ada@example.org").await, 0);
}

#[tokio::test]
async fn key_forms_without_the_csrf_token_change_nothing() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    browser.sign_up("ada@example.org").await;
    let page = browser
        .post("/dashboard/keys", &[("label", "production")])
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert_eq!(keys_of(&dash, "ada@example.org").await, 0);
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let key = dash
        .manager
        .create_key(account.id, "production")
        .await
        .unwrap();
    let id = key.info.id.0.to_string();
    for path in ["/dashboard/keys/revoke", "/dashboard/keys/label"] {
        let page = browser
            .post(path, &[("key", &id), ("label", "renamed")])
            .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}");
    }
    let info = dash.manager.key(account.id, key.info.id).await.unwrap();
    assert_eq!(info.label, "production");
    assert!(info.revoked_at.is_none());
}

#[tokio::test]
async fn renaming_and_revoking_a_key_work_and_a_bad_label_says_what_to_do() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let key = dash
        .manager
        .create_key(account.id, "production")
        .await
        .unwrap();
    let id = key.info.id.0.to_string();
    let bad = browser
        .post(
            "/dashboard/keys/label",
            &[("key", &id), ("label", &"y".repeat(101)), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("up to 100 characters"));
    let renamed = browser
        .post(
            "/dashboard/keys/label",
            &[("key", &id), ("label", "staging"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(renamed.status, StatusCode::SEE_OTHER);
    let revoked = browser
        .post("/dashboard/keys/revoke", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(revoked.status, StatusCode::SEE_OTHER);
    let info = dash.manager.key(account.id, key.info.id).await.unwrap();
    assert_eq!(info.label, "staging");
    assert!(info.revoked_at.is_some());
    assert!(
        browser
            .get("/dashboard/keys")
            .await
            .body
            .contains("revoked")
    );
}

#[tokio::test]
async fn someone_elses_key_cannot_be_renamed_or_revoked() {
    let dash = dashboard(false);
    let owner = dash
        .manager
        .create_account("eve@example.org", PASSWORD)
        .await
        .unwrap();
    let key = dash.manager.create_key(owner.id, "eve's").await.unwrap();
    let id = key.info.id.0.to_string();
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    for path in ["/dashboard/keys/revoke", "/dashboard/keys/label"] {
        let page = browser
            .post(path, &[("key", &id), ("label", "mine"), ("csrf", &csrf)])
            .await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
        assert!(page.body.contains("Pick a key from your list"), "{path}");
    }
    let garbage = browser
        .post(
            "/dashboard/keys/revoke",
            &[("key", "not-a-key"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(garbage.status, StatusCode::NOT_FOUND);
    let info = dash.manager.key(owner.id, key.info.id).await.unwrap();
    assert_eq!(info.label, "eve's");
    assert!(info.revoked_at.is_none());
}

/// Signs up as ada with one key; returns the CSRF token and the key's id.
pub(crate) async fn ada_with_key(browser: &mut Browser<'_>) -> (String, alerts_core::ids::KeyId) {
    let csrf = browser.sign_up("ada@example.org").await;
    let dash = browser.dash;
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let key = dash
        .manager
        .create_key(account.id, "production")
        .await
        .unwrap();
    (csrf, key.info.id)
}

#[tokio::test]
async fn alerts_settings_offer_the_keys_in_a_drop_down_with_a_link_to_create_one() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    browser.sign_up("ada@example.org").await;
    let empty = browser.get("/dashboard/alerts").await;
    assert_eq!(empty.status, StatusCode::OK);
    assert!(empty.body.contains("href=\"/dashboard/keys\""));
    assert!(!empty.body.contains("<select"));
    let (_, key) = ada_with_key_existing(&dash, &mut browser).await;
    let page = browser.get("/dashboard/alerts").await;
    assert!(page.body.contains("API key for applying alerts"));
    assert!(
        page.body
            .contains(&format!("<option value=\"{}\" selected", key.0)),
        "{}",
        page.body
    );
    assert!(page.body.contains("Create a key"));
}

async fn ada_with_key_existing(
    dash: &Dash,
    browser: &mut Browser<'_>,
) -> (String, alerts_core::ids::KeyId) {
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let key = dash
        .manager
        .create_key(account.id, "production")
        .await
        .unwrap();
    (browser.get("/dashboard/alerts").await.csrf(), key.info.id)
}

#[tokio::test]
async fn a_valid_webhook_url_is_saved() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let page = browser
        .post(
            "/dashboard/alerts/webhook",
            &[
                ("key", &id),
                ("url", "https://hooks.example.org/in"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.location(), format!("/dashboard/alerts?key={id}"));
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let info = dash.manager.key(account.id, key).await.unwrap();
    assert_eq!(
        info.webhook_url.as_deref(),
        Some("https://hooks.example.org/in")
    );
    let shown = browser.get(&format!("/dashboard/alerts?key={id}")).await;
    assert!(
        shown
            .body
            .contains("value=\"https://hooks.example.org/in\"")
    );
}

#[tokio::test]
async fn an_invalid_webhook_url_is_refused_kept_and_explained() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let page = browser
        .post(
            "/dashboard/alerts/webhook",
            &[
                ("key", &id),
                ("url", "ftp://files.example.org"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.body.contains("value=\"ftp://files.example.org\""));
    assert!(
        page.body.contains("Enter the https:// address"),
        "{}",
        page.body
    );
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    assert!(
        dash.manager
            .key(account.id, key)
            .await
            .unwrap()
            .webhook_url
            .is_none()
    );
}

#[tokio::test]
async fn alerts_settings_forms_without_the_csrf_token_change_nothing() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let before = dash.manager.key(account.id, key).await.unwrap();
    for path in [
        "/dashboard/alerts/webhook",
        "/dashboard/alerts/rotate",
        "/dashboard/alerts/test",
    ] {
        let page = browser
            .post(
                path,
                &[("key", &id), ("url", "https://hooks.example.org/in")],
            )
            .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(dash.manager.key(account.id, key).await.unwrap(), before);
    assert!(dash.sender.requests().is_empty());
}

#[tokio::test]
async fn someone_elses_key_has_no_alerts_settings() {
    let dash = dashboard(false);
    let eve = dash
        .manager
        .create_account("eve@example.org", PASSWORD)
        .await
        .unwrap();
    let key = dash.manager.create_key(eve.id, "eve's").await.unwrap();
    dash.manager
        .set_webhook_url(eve.id, key.info.id, Some("https://eve.example.org/hook"))
        .await
        .unwrap();
    let id = key.info.id.0.to_string();
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let page = browser.get(&format!("/dashboard/alerts?key={id}")).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(!page.body.contains(key.info.secret.expose()));
    for path in [
        "/dashboard/alerts/webhook",
        "/dashboard/alerts/rotate",
        "/dashboard/alerts/test",
    ] {
        let page = browser
            .post(
                path,
                &[
                    ("key", &id),
                    ("url", "https://ada.example.org/in"),
                    ("csrf", &csrf),
                ],
            )
            .await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
    }
    let after = dash.manager.key(eve.id, key.info.id).await.unwrap();
    assert_eq!(
        after.webhook_url.as_deref(),
        Some("https://eve.example.org/hook")
    );
    assert_eq!(after.secret, key.info.secret);
    assert!(dash.sender.requests().is_empty());
}

#[tokio::test]
async fn the_signing_secret_is_shown_and_rotated() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let before = dash.manager.key(account.id, key).await.unwrap().secret;
    let page = browser.get(&format!("/dashboard/alerts?key={id}")).await;
    assert!(page.body.contains(before.expose()));
    let rotated = browser
        .post("/dashboard/alerts/rotate", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(rotated.status, StatusCode::SEE_OTHER);
    let after = dash.manager.key(account.id, key).await.unwrap().secret;
    assert_ne!(after, before);
    let page = browser.get(&format!("/dashboard/alerts?key={id}")).await;
    assert!(page.body.contains(after.expose()));
}

#[tokio::test]
async fn a_test_delivery_is_signed_sent_and_its_result_shown() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let none = browser
        .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(none.status, StatusCode::CONFLICT);
    assert!(none.body.contains("Save one above"));
    dash.manager
        .set_webhook_url(account.id, key, Some("https://hooks.example.org/in"))
        .await
        .unwrap();
    let page = browser
        .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("succeeded: HTTP 200"), "{}", page.body);
    let sent = dash.sender.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].url, "https://hooks.example.org/in");
    let header = |name: &str| {
        sent[0]
            .headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    let secret = dash.manager.key(account.id, key).await.unwrap().secret;
    alerts_core::webhook::Verifier::default()
        .verify(
            &[secret],
            &header("webhook-id"),
            &header("webhook-timestamp"),
            &header("webhook-signature"),
            &sent[0].body,
            chrono::Utc::now(),
        )
        .unwrap();
    let body: serde_json::Value = serde_json::from_slice(&sent[0].body).unwrap();
    assert_eq!(body["TEST"], true);

    dash.sender.push_response(RecordingSender::status(500));
    let failed = browser
        .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert!(failed.body.contains("HTTP 500"), "{}", failed.body);
    assert!(failed.body.contains("Check that your receiver is running"));
}

#[tokio::test]
async fn test_deliveries_and_playground_runs_are_limited_per_account() {
    use insights_http::dashboard::{
        PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE, TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE,
    };
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    dash.manager
        .set_webhook_url(account.id, key, Some("https://hooks.example.org/in"))
        .await
        .unwrap();
    for _ in 0..TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE {
        let sent = browser
            .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
            .await;
        assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    }
    let limited = browser
        .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.body.contains("Wait a minute"), "{}", limited.body);
    assert_eq!(
        dash.sender.requests().len(),
        TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE as usize,
        "the limited test was not sent"
    );

    let request = r#"{"routesSort": "desc", "routes": [{"id": 1, "polyline": [[13.40, 52.52], [13.41, 52.52]], "routeDuration": 5}]}"#;
    for _ in 0..PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE {
        let run = browser
            .post(
                "/dashboard/playground",
                &[("request", request), ("csrf", &csrf)],
            )
            .await;
        assert_eq!(run.status, StatusCode::OK, "{}", run.body);
    }
    let limited = browser
        .post(
            "/dashboard/playground",
            &[("request", request), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.body.contains("Wait a minute"), "{}", limited.body);
}

fn custom_alert<'a>(id: &'a str, csrf: &'a str, action: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("key", id),
        ("type", "aq"),
        ("forecast", "6h"),
        ("sensitivity", "high"),
        ("message", "custom"),
        ("deterioration", "Worse in {hours} hours: {aqi}."),
        ("improvement", "Better in {hours} hours."),
        ("action", action),
        ("csrf", csrf),
    ]
}

#[tokio::test]
async fn the_alert_form_has_the_four_selectors_and_lists_the_placeholders() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_key(&mut browser).await;
    let page = browser
        .get(&format!("/dashboard/rules?key={}", key.0))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    for selector in [
        "name=\"type\"",
        "name=\"forecast\"",
        "name=\"sensitivity\"",
        "name=\"message\"",
    ] {
        assert!(page.body.contains(selector), "{selector}");
    }
    assert!(page.body.contains("Add new alert"));
    for horizon in ["value=\"96h\"", "value=\"today\"", "value=\"4d\""] {
        assert!(page.body.contains(horizon), "{horizon}");
    }
    assert!(page.body.contains("{hours}") && page.body.contains("{kind}"));
}

#[tokio::test]
async fn a_custom_alert_is_previewed_then_added() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let preview = browser
        .post("/dashboard/rules", &custom_alert(&id, &csrf, "preview"))
        .await;
    assert_eq!(preview.status, StatusCode::OK);
    assert!(
        preview.body.contains("Worse in 6 hours: "),
        "{}",
        preview.body
    );
    assert!(preview.body.contains("Recommendation (predefined)"));
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    assert!(
        dash.manager
            .list_rules(account.id, key)
            .await
            .unwrap()
            .is_empty()
    );
    let saved = browser
        .post("/dashboard/rules", &custom_alert(&id, &csrf, "save"))
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let rules = dash.manager.list_rules(account.id, key).await.unwrap();
    assert_eq!(rules.len(), 1);
    assert!(matches!(
        rules[0].spec.message(),
        alerts_core::rule::MessageSpec::Custom { deterioration, .. } if deterioration == "Worse in {hours} hours: {aqi}."
    ));
    let list = browser.get(&format!("/dashboard/rules?key={id}")).await;
    assert!(
        list.body
            .contains("Air Quality · 6 hours · high sensitivity · custom message")
    );
}

#[tokio::test]
async fn the_index_selector_previews_and_stores_the_us_epa_aqi() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let page = browser.get(&format!("/dashboard/rules?key={id}")).await;
    assert!(page.body.contains("name=\"aq_index\""), "{}", page.body);
    assert!(page.body.contains("value=\"us_epa\""), "{}", page.body);
    let alert = |index: &'static str, action: &'static str| {
        vec![
            ("key", id.as_str()),
            ("type", "aq"),
            ("forecast", "6h"),
            ("sensitivity", "high"),
            ("message", "default"),
            ("aq_index", index),
            ("action", action),
            ("csrf", csrf.as_str()),
        ]
    };
    let us = browser
        .post("/dashboard/rules", &alert("us_epa", "preview"))
        .await;
    assert_eq!(us.status, StatusCode::OK);
    assert!(
        us.body
            .contains("In 6 hours the air quality is expected to be worse (US AQI "),
        "{}",
        us.body
    );
    let ci = browser
        .post("/dashboard/rules", &alert("cleanliness", "preview"))
        .await;
    assert!(
        ci.body
            .contains("In 6 hours the air quality is expected to be worse (62 AQI)."),
        "{}",
        ci.body
    );
    let refused = browser
        .post("/dashboard/rules", &alert("eaqi", "save"))
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.body.contains("Choose an Index"), "{}", refused.body);

    let saved = browser
        .post("/dashboard/rules", &alert("us_epa", "save"))
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let rules = dash.manager.list_rules(account.id, key).await.unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].spec.aq_index(), alerts_core::rule::AqIndex::UsEpa);
    let list = browser.get(&format!("/dashboard/rules?key={id}")).await;
    assert!(
        list.body
            .contains("Air Quality · 6 hours · high sensitivity · default message · US EPA AQI"),
        "{}",
        list.body
    );
    let edit = browser
        .get(&format!("/dashboard/rules?key={id}&edit={}", rules[0].id.0))
        .await;
    assert!(
        edit.body.contains("value=\"us_epa\" selected"),
        "the edit form keeps the choice: {}",
        edit.body
    );
}

#[tokio::test]
async fn an_invalid_alert_is_refused_with_what_was_typed() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let mut fields = custom_alert(&id, &csrf, "save");
    fields[5] = ("deterioration", "Worse in {days} days");
    fields[6] = ("improvement", "");
    let page = browser.post("/dashboard/rules", &fields).await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        page.body.contains("Worse in {days} days"),
        "kept what was typed"
    );
    assert!(
        page.body.contains("Correct it and try again"),
        "{}",
        page.body
    );
    let mut pollen_in_hours = custom_alert(&id, &csrf, "save");
    pollen_in_hours[1] = ("type", "pollen");
    let page = browser.post("/dashboard/rules", &pollen_in_hours).await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.body.contains("choose one of"), "{}", page.body);
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    assert!(
        dash.manager
            .list_rules(account.id, key)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn alerts_are_disabled_edited_and_deleted() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    browser
        .post("/dashboard/rules", &custom_alert(&id, &csrf, "save"))
        .await;
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let rule = dash.manager.list_rules(account.id, key).await.unwrap()[0].clone();
    let rule_id = rule.id.0.to_string();
    let toggled = browser
        .post(
            "/dashboard/rules/toggle",
            &[("key", &id), ("rule", &rule_id), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(toggled.status, StatusCode::SEE_OTHER);
    assert!(!dash.manager.list_rules(account.id, key).await.unwrap()[0].enabled);
    let edit = browser
        .get(&format!("/dashboard/rules?key={id}&edit={rule_id}"))
        .await;
    assert!(edit.body.contains("Edit alert"));
    assert!(edit.body.contains("Worse in {hours} hours: {aqi}."));
    let edited = browser
        .post(
            "/dashboard/rules",
            &[
                ("key", &id),
                ("rule", &rule_id),
                ("type", "pollen"),
                ("forecast", "2d"),
                ("sensitivity", "low"),
                ("message", "default"),
                ("enabled", "on"),
                ("action", "save"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(edited.status, StatusCode::SEE_OTHER);
    let after = dash.manager.list_rules(account.id, key).await.unwrap()[0].clone();
    assert_eq!(after.spec.data_type(), alerts_core::rule::DataType::Pollen);
    assert!(after.enabled);
    let deleted = browser
        .post(
            "/dashboard/rules/delete",
            &[("key", &id), ("rule", &rule_id), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER);
    assert!(
        dash.manager
            .list_rules(account.id, key)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn alert_forms_without_the_csrf_token_change_nothing() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    browser
        .post("/dashboard/rules", &custom_alert(&id, &csrf, "save"))
        .await;
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let before = dash.manager.list_rules(account.id, key).await.unwrap();
    let rule_id = before[0].id.0.to_string();
    let page = browser
        .post("/dashboard/rules", &custom_alert(&id, "", "save"))
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    for path in ["/dashboard/rules/toggle", "/dashboard/rules/delete"] {
        let page = browser
            .post(path, &[("key", &id), ("rule", &rule_id)])
            .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(
        dash.manager.list_rules(account.id, key).await.unwrap(),
        before
    );
}

#[tokio::test]
async fn someone_elses_alerts_cannot_be_seen_or_changed() {
    let dash = dashboard(false);
    let eve = dash
        .manager
        .create_account("eve@example.org", PASSWORD)
        .await
        .unwrap();
    let key = dash
        .manager
        .create_key(eve.id, "eve's")
        .await
        .unwrap()
        .info
        .id;
    let spec = alerts_core::rule::RuleSpec::new(
        alerts_core::rule::DataType::Aq,
        alerts_core::rule::Forecast::Hours(6),
        alerts_core::rule::Sensitivity::High,
        alerts_core::rule::MessageSpec::Default,
    )
    .unwrap();
    let rule = dash.manager.add_rule(eve.id, key, spec).await.unwrap();
    let id = key.0.to_string();
    let rule_id = rule.id.0.to_string();
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    assert_eq!(
        browser
            .get(&format!("/dashboard/rules?key={id}"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    let added = browser
        .post("/dashboard/rules", &custom_alert(&id, &csrf, "save"))
        .await;
    assert_eq!(added.status, StatusCode::NOT_FOUND);
    for path in ["/dashboard/rules/toggle", "/dashboard/rules/delete"] {
        let page = browser
            .post(path, &[("key", &id), ("rule", &rule_id), ("csrf", &csrf)])
            .await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
    }
    assert_eq!(
        dash.manager.list_rules(eve.id, key).await.unwrap(),
        vec![rule]
    );
}

/// Ada with a key that has a webhook and a rule, and one request delivered with it.
pub(crate) async fn ada_with_a_delivery(
    browser: &mut Browser<'_>,
) -> (String, alerts_core::ids::KeyId) {
    let csrf = browser.sign_up("ada@example.org").await;
    let dash = browser.dash;
    let account = dash
        .manager
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let created = dash
        .manager
        .create_key(account.id, "production")
        .await
        .unwrap();
    dash.manager
        .set_webhook_url(
            account.id,
            created.info.id,
            Some("https://hooks.example.org/in"),
        )
        .await
        .unwrap();
    let spec = alerts_core::rule::RuleSpec::new(
        alerts_core::rule::DataType::Aq,
        alerts_core::rule::Forecast::Hours(6),
        alerts_core::rule::Sensitivity::High,
        alerts_core::rule::MessageSpec::Default,
    )
    .unwrap();
    dash.manager
        .add_rule(account.id, created.info.id, spec)
        .await
        .unwrap();
    let request = Request::post(format!(
        "/insights/v1/cleanest-route?key={}",
        created.key.expose()
    ))
    .header(header::CONTENT_TYPE, "application/json")
    .body(Body::from(
        r#"{"points":[{"lon":2.35,"lat":48.85,"id":"u1"},{"lon":2.36,"lat":48.86,"id":"u2"}]}"#,
    ))
    .unwrap();
    let accepted = browser.send(request).await;
    assert_eq!(accepted.status, StatusCode::OK, "{}", accepted.body);
    dash.pipeline.run_once(8).await.unwrap();
    dash.pipeline.run_once(8).await.unwrap();
    (csrf, created.info.id)
}

#[tokio::test]
async fn deliveries_list_requests_with_their_attempts() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_a_delivery(&mut browser).await;
    assert_eq!(dash.sender.requests().len(), 1);
    let page = browser
        .get(&format!("/dashboard/deliveries?key={}", key.0))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    let token = serde_json::from_slice::<serde_json::Value>(&dash.sender.requests()[0].body)
        .unwrap()["TOKEN"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(page.body.contains(&token), "{}", page.body);
    assert!(page.body.contains("delivered"));
    assert!(page.body.contains("HTTP 200"));
    assert!(
        page.body.contains("data-label=\"Points\">2<"),
        "{}",
        page.body
    );
    assert!(page.body.contains("Redeliver"));
}

#[tokio::test]
async fn a_delivered_request_is_redelivered() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_a_delivery(&mut browser).await;
    let token = serde_json::from_slice::<serde_json::Value>(&dash.sender.requests()[0].body)
        .unwrap()["TOKEN"]
        .as_str()
        .unwrap()
        .to_owned();
    let id = key.0.to_string();
    let page = browser
        .post(
            "/dashboard/deliveries/redeliver",
            &[("key", &id), ("token", &token), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    dash.pipeline.run_once(8).await.unwrap();
    assert_eq!(dash.sender.requests().len(), 2, "the webhook is sent again");
    let unknown = browser
        .post(
            "/dashboard/deliveries/redeliver",
            &[("key", &id), ("token", &uuid_text()), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(
        unknown
            .body
            .contains("Pick a request from the deliveries list")
    );
}

fn uuid_text() -> String {
    "6f1c2d9e-0000-4000-8000-000000000001".to_owned()
}

#[tokio::test]
async fn redelivering_needs_the_csrf_token_and_ones_own_key() {
    let dash = dashboard(false);
    let mut eve_browser = Browser::new(&dash);
    let (_, key) = ada_with_a_delivery(&mut eve_browser).await;
    let token = serde_json::from_slice::<serde_json::Value>(&dash.sender.requests()[0].body)
        .unwrap()["TOKEN"]
        .as_str()
        .unwrap()
        .to_owned();
    let id = key.0.to_string();
    let refused = eve_browser
        .post(
            "/dashboard/deliveries/redeliver",
            &[("key", &id), ("token", &token)],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let mut other = Browser::new(&dash);
    let csrf = other.sign_up("mallory@example.org").await;
    let page = other.get(&format!("/dashboard/deliveries?key={id}")).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(!page.body.contains(&token));
    let foreign = other
        .post(
            "/dashboard/deliveries/redeliver",
            &[("key", &id), ("token", &token), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(foreign.status, StatusCode::NOT_FOUND);
    dash.pipeline.run_once(8).await.unwrap();
    assert_eq!(dash.sender.requests().len(), 1, "nothing was sent again");
}

#[tokio::test]
async fn the_playground_scores_the_sample_and_draws_each_route_in_category_colours() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let page = browser.get("/dashboard/playground").await;
    assert_eq!(page.status, StatusCode::OK);
    let at = page.body.find("name=\"request\"").unwrap();
    let start = page.body[at..].find('>').unwrap() + at + 1;
    let end = page.body[start..].find("</textarea>").unwrap() + start;
    let sample = page.body[start..end].replace("&quot;", "\"");
    assert!(
        sample.contains("routeDuration"),
        "the sample is loaded: {sample}"
    );
    let scored = browser
        .post(
            "/dashboard/playground",
            &[("request", &sample), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(scored.status, StatusCode::OK, "{}", scored.body);
    assert!(scored.body.contains("racss"), "the response is shown");
    // The test field is a flat CI of 50 everywhere: every stretch of every route is drawn in
    // Moderate's colour, and the table shows each route's RACS in it.
    let colour = aq_core::CiCategory::of(50.0).colour();
    let at = scored.body.find("data-routes=\"").unwrap() + "data-routes=\"".len();
    let end = scored.body[at..].find('"').unwrap() + at;
    let data: serde_json::Value =
        serde_json::from_str(&scored.body[at..end].replace("&quot;", "\"")).unwrap();
    let routes = data["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 3, "every sample route is on the map");
    for route in routes {
        let colours = route["colours"].as_array().unwrap();
        assert!(!colours.is_empty());
        assert!(colours.iter().all(|c| c == colour), "{route}");
        assert_eq!(
            route["samples"].as_array().unwrap().len(),
            colours.len() + 1
        );
    }
    assert_eq!(scored.body.matches("<tr class=\"result\">").count(), 3);
    assert!(scored.body.contains(&format!("<rect width=\"14\" height=\"14\" fill=\"{colour}\"></rect></svg> <strong>50</strong> Moderate")), "{}", scored.body);
    assert!(scored.body.contains("id=\"recommendations\""));
    assert!(scored.body.contains("src=\"/dashboard/assets/leaflet.js\""));
    for category in aq_core::CiCategory::ALL {
        assert!(
            scored.body.contains(category.name()),
            "legend: {}",
            category.name()
        );
    }
}

#[tokio::test]
async fn the_playground_keeps_a_bad_request_and_says_what_is_wrong() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let broken = browser
        .post(
            "/dashboard/playground",
            &[("request", "{\"routes\": ["), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(broken.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        broken
            .body
            .contains("The API would refuse this request: routes: EOF while parsing")
    );
    assert!(
        broken.body.contains("{&quot;routes&quot;: [") || broken.body.contains("{\"routes\": [")
    );
    let refused = browser
        .post(
            "/dashboard/playground",
            &[("request", "{\"routes\": []}"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.body.contains("The API would refuse this request"));
    let forged = browser
        .post("/dashboard/playground", &[("request", "{}")])
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
}
