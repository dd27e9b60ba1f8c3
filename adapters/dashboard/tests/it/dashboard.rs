//! The dashboard's forms over in-memory ports: the test dashboard and its browser, and
//! accounts: sign-up, sign-in and sign-out, sessions, cookies, the security headers and the
//! sign-in limit. The other pages' forms are in `dashboard_keys`, `dashboard_rules` and
//! `dashboard_deliveries`: each form valid, invalid, without its CSRF token, and on someone
//! else's key.

use std::collections::HashMap;
use std::sync::Arc;

use alerts_core::manage::{AnyWebhookUrl, Manager};
use alerts_core::memory::{MemoryFiles, MemoryStore, RecordingSender};
use alerts_core::pipeline::{AlertPipeline, PipelineConfig, PipelinePorts};
use aq_core::memory::{FnSource, MemoryForecast};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use identity_core::ports::SessionStore;
use identity_core::randomness::SeededRandomness;
use insights_dashboard::{
    CsrfKey, DEFAULT_MAX_PASSWORD_HASHES, DashboardHosts, DashboardPorts, DashboardState,
};
use insights_http::{AppStateBuilder, router_with};
use racs_core::Scorer;
use runtime_core::{FixedClock, SequentialIds};
use tower::ServiceExt;

use crate::beside::ApiBeside;

pub(crate) const PASSWORD: &str = "correct horse battery";

pub(crate) struct Dash {
    pub(crate) router: axum::Router,
    /// The host the browser asks for.
    host: &'static str,
    pub(crate) store: Arc<MemoryStore>,
    pub(crate) manager: Manager,
    pub(crate) sender: Arc<RecordingSender>,
    pub(crate) pipeline: Arc<AlertPipeline>,
    /// The forecasts alerts read.
    pub(crate) forecast: Arc<MemoryForecast>,
}

pub(crate) fn dashboard(secure_cookies: bool) -> Dash {
    dashboard_with(secure_cookies, None)
}

/// The dashboard with `basemap` on its maps.
pub(crate) fn dashboard_with(
    secure_cookies: bool,
    basemap: Option<insights_dashboard::Basemap>,
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
    let manager = Manager::with_store(
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
            sent: store.clone(),
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
    let api = AppStateBuilder::new(
        store.clone(),
        pipeline.clone(),
        scorer.clone(),
        files,
        clock.clone(),
    )
    .build();
    let state = DashboardState::new(DashboardPorts {
        api: Arc::new(ApiBeside(api.clone())),
        alerts: pipeline.clone(),
        scorer,
        clock,
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
        limiter: None,
        roads: None,
    });
    Dash {
        router: router_with(api, insights_dashboard::router(state)),
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
    pub(crate) fn csrf(&self) -> String {
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

    async fn send(&mut self, mut request: Request<Body>) -> Page {
        // The client's address, as the server's accept loop attaches it to every request.
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(std::net::SocketAddr::from((
                [127, 0, 0, 1],
                50_000,
            ))));
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

pub(crate) async fn keys_of(dash: &Dash, email: &str) -> usize {
    let account = dash
        .manager
        .identity()
        .account_by_email(email)
        .await
        .unwrap();
    dash.manager
        .identity()
        .list_keys(account.id)
        .await
        .unwrap()
        .len()
}

pub(crate) fn encode(s: &str) -> String {
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
    let min = identity_core::account::MIN_PASSWORD_CHARS;
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
    assert_eq!(
        done.location(),
        "/dashboard/welcome",
        "a new account is welcomed"
    );
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
        .identity()
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
        .identity()
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
        .identity()
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
    // Five a minute for one email from one network.
    for _ in 1..insights_dashboard::SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE {
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

/// Signs up as ada with one key; returns the CSRF token and the key's id.
pub(crate) async fn ada_with_key(browser: &mut Browser<'_>) -> (String, identity_core::ids::KeyId) {
    let csrf = browser.sign_up("ada@example.org").await;
    let dash = browser.dash;
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let key = dash
        .manager
        .identity()
        .create_key(account.id, "production")
        .await
        .unwrap();
    (csrf, key.info.id)
}

/// The rules of Ada's `key`, as the store keeps them.
pub(crate) async fn ada_rules(
    dash: &Dash,
    key: identity_core::ids::KeyId,
) -> Vec<alerts_core::rule::AlertRule> {
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    dash.manager.list_rules(account.id, key).await.unwrap()
}

/// Ada with a key that has a webhook and a rule, and one request delivered with it.
pub(crate) async fn ada_with_a_delivery(
    browser: &mut Browser<'_>,
) -> (String, identity_core::ids::KeyId) {
    let csrf = browser.sign_up("ada@example.org").await;
    let dash = browser.dash;
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let created = dash
        .manager
        .identity()
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
