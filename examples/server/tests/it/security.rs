//! The security properties of `SECURITY.md`, proven on the real binary: webhook targets
//! inside the deployment's network are refused when saved and when sent, file URLs cannot be
//! altered, moved, forged or used late, one account cannot reach another's keys, rules or
//! deliveries, no secret reaches a log, and the dashboard's CSRF, session, cookie and header
//! protections hold.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alerts_core::ids::Token;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use insights_objects::{LocalUrlSigner, UrlKey, UrlKeys};
use serde_json::{Value, json};

use crate::alerts::post_points;
use crate::harness::{Deployment, Key, PATIENCE, Reply, Server, client, eventually, post_json};
use crate::receiver::Receiver;

/// Every account of these tests signs in with it.
pub(crate) const PASSWORD: &str = "correct horse battery staple";

/// The dashboard's answer to a form whose CSRF token is missing or wrong.
pub(crate) const CSRF_REFUSAL: &str = "This form has expired or was sent from another site";

// ---------------------------------------------------------------------------------------------
// Deployments, accounts and keys.

/// A deployment whose server listens on every interface: reachable from outside, so loopback
/// is refused as a webhook target like every other internal address.
fn public_deployment() -> Deployment {
    let mut deployment = Deployment::new();
    deployment.set_listen("0.0.0.0:0");
    deployment
}

/// Starts the server and points the tests at it over loopback: `0.0.0.0` is where a server
/// listens, not an address to connect to.
pub(crate) fn serve(deployment: &Deployment, extra: &[&str]) -> Server {
    let mut server = deployment.serve(extra);
    server.base = server.base.replace("://0.0.0.0:", "://127.0.0.1:");
    server
}

pub(crate) fn new_email() -> String {
    format!("{}@example.org", uuid::Uuid::new_v4().simple())
}

/// A new key of the account with `email`.
fn create_key(deployment: &Deployment, email: &str) -> Key {
    let created = deployment.admin(&["create-key", "--email", email, "--label", "security"]);
    let text = |name: &str| created[name].as_str().unwrap().to_owned();
    Key {
        key: text("key"),
        secret: text("webhook_secret"),
        prefix: text("prefix"),
        id: text("id"),
    }
}

/// A new account with `email` and [`PASSWORD`], and a key of it.
fn account_with_key(deployment: &Deployment, email: &str) -> Key {
    deployment.admin(&["create-account", "--email", email, "--password", PASSWORD]);
    create_key(deployment, email)
}

/// What `list-keys` says of the key with `id`.
fn key_listing(deployment: &Deployment, email: &str, id: &str) -> Value {
    let keys = deployment.admin(&["list-keys", "--email", email]);
    keys.as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("list-keys does not show {id}: {keys}"))
}

/// The first delivery attempt of `token`, once it has been made.
async fn first_attempt(deployment: &Deployment, key: &Key, token: &str) -> Value {
    eventually(&format!("the first delivery attempt of {token}"), || {
        let record = deployment.delivery_record(key, token);
        let first = record["attempts"].as_array()?.first()?.clone();
        Some(first)
    })
    .await
}

// ---------------------------------------------------------------------------------------------
// A server that answers every request the same way.

/// One request a [`Canned`] server received.
#[derive(Debug, Clone)]
struct Hit {
    headers: HeaderMap,
    body: Bytes,
}

type CannedState = (
    Arc<Mutex<Vec<Hit>>>,
    Arc<(StatusCode, Vec<(String, String)>)>,
);

/// A server on loopback that answers every request with one status and set of headers, and
/// records what it receives: a receiver that redirects, or an internal service that nothing
/// may reach. It stops with the test's runtime.
struct Canned {
    addr: SocketAddr,
    hits: Arc<Mutex<Vec<Hit>>>,
}

impl Canned {
    async fn start(status: u16, headers: &[(&str, &str)]) -> Self {
        let hits = Arc::new(Mutex::new(Vec::new()));
        let answer = (
            StatusCode::from_u16(status).unwrap(),
            headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        );
        let state: CannedState = (hits.clone(), Arc::new(answer));
        let app = Router::new().fallback(canned).with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, hits }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }
}

async fn canned(
    State((hits, answer)): State<CannedState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    hits.lock().unwrap().push(Hit { headers, body });
    let mut response = answer.0.into_response();
    for (name, value) in &answer.1 {
        response.headers_mut().insert(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    response
}

// ---------------------------------------------------------------------------------------------
// A browser, reduced to what the dashboard's protections concern.

/// Keeps cookies by name, follows no redirect (the tests look at them), and posts forms as a
/// browser does.
pub(crate) struct Browser {
    http: reqwest::Client,
    base: String,
    jar: BTreeMap<String, String>,
}

impl Browser {
    pub(crate) fn new(server: &Server) -> Self {
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(PATIENCE)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        Self {
            http,
            base: server.base.clone(),
            jar: BTreeMap::new(),
        }
    }

    pub(crate) async fn send(&mut self, mut request: reqwest::RequestBuilder) -> Reply {
        if !self.jar.is_empty() {
            let cookies: Vec<String> = self.jar.iter().map(|(k, v)| format!("{k}={v}")).collect();
            request = request.header("cookie", cookies.join("; "));
        }
        let reply = Reply::read(request.send().await.unwrap()).await;
        for value in reply.headers.get_all("set-cookie") {
            let text = value.to_str().unwrap();
            let pair = text.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            if value.is_empty() || text.contains("Max-Age=0") {
                self.jar.remove(name);
            } else {
                self.jar.insert(name.to_owned(), value.to_owned());
            }
        }
        reply
    }

    pub(crate) async fn get(&mut self, path: &str) -> Reply {
        let request = self.http.get(format!("{}{path}", self.base));
        self.send(request).await
    }

    pub(crate) async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Reply {
        let request = self.form(path, form);
        self.send(request).await
    }

    /// A form POST to `path`, for a test to add headers to before [`Browser::send`].
    pub(crate) fn form(&self, path: &str, form: &[(&str, &str)]) -> reqwest::RequestBuilder {
        let body: Vec<String> = form
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect();
        self.http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.join("&"))
    }

    pub(crate) fn cookie(&self, name: &str) -> Option<String> {
        self.jar.get(name).cloned()
    }

    pub(crate) fn set_cookie(&mut self, name: &str, value: &str) {
        self.jar.insert(name.to_owned(), value.to_owned());
    }

    pub(crate) fn forget_cookies(&mut self) {
        self.jar.clear();
    }

    /// Signs up with `email` and [`PASSWORD`] through the sign-up page; the session's CSRF
    /// token.
    pub(crate) async fn sign_up(&mut self, email: &str) -> String {
        let page = self.get("/dashboard/signup").await;
        let csrf = field(&page, "csrf");
        let reply = self
            .post(
                "/dashboard/signup",
                &[("email", email), ("password", PASSWORD), ("csrf", &csrf)],
            )
            .await;
        assert_redirect(&reply, "/dashboard/keys");
        self.session_csrf().await
    }

    /// Fills in and sends the sign-in form.
    async fn sign_in(&mut self, email: &str, password: &str) -> Reply {
        let page = self.get("/dashboard/signin").await;
        let csrf = field(&page, "csrf");
        self.post(
            "/dashboard/signin",
            &[("email", email), ("password", password), ("csrf", &csrf)],
        )
        .await
    }

    /// Signs in with [`PASSWORD`], which must work; the session's CSRF token.
    async fn signed_in(&mut self, email: &str) -> String {
        let reply = self.sign_in(email, PASSWORD).await;
        assert_redirect(&reply, "/dashboard/keys");
        self.session_csrf().await
    }

    /// The CSRF token of the signed-in session, from the keys page.
    async fn session_csrf(&mut self) -> String {
        let page = self.get("/dashboard/keys").await;
        assert_eq!(page.status, 200, "{}", text(&page));
        field(&page, "csrf")
    }

    /// The signing secret the alerts settings show for the key with `id`.
    async fn secret_of(&mut self, id: &str) -> String {
        let page = self.get(&format!("/dashboard/alerts?key={id}")).await;
        assert_eq!(page.status, 200, "{}", text(&page));
        text_of(&page, "secret-text")
    }
}

/// Percent-encodes everything but unreserved characters, as a form body allows.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

pub(crate) fn text(reply: &Reply) -> String {
    String::from_utf8_lossy(&reply.body).into_owned()
}

/// The value of the first form field named `name`.
#[track_caller]
pub(crate) fn field(reply: &Reply, name: &str) -> String {
    let html = text(reply);
    let marker = format!("name=\"{name}\" value=\"");
    let start = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no field `{name}` in {html}"))
        + marker.len();
    let end = start + html[start..].find('"').unwrap();
    html[start..end].to_owned()
}

/// The text of the element with `id`, its children's tags left out.
#[track_caller]
fn text_of(reply: &Reply, id: &str) -> String {
    let html = text(reply);
    let marker = format!("id=\"{id}\"");
    let at = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no element #{id} in {html}"));
    let open = html[..at].rfind('<').unwrap();
    let tag: String = html[open + 1..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    let start = at + html[at..].find('>').unwrap() + 1;
    let end = start + html[start..].find(&format!("</{tag}>")).unwrap();
    let mut inner = String::new();
    let mut in_tag = false;
    for c in html[start..end].chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => inner.push(c),
            _ => {}
        }
    }
    inner.trim().to_owned()
}

#[track_caller]
fn assert_redirect(reply: &Reply, to: &str) {
    assert!(
        reply.status.is_redirection(),
        "expected a redirect to {to}, got {}: {}",
        reply.status,
        text(reply)
    );
    assert_eq!(reply.header("location"), Some(to));
}

/// The `Set-Cookie` header that sets `name`.
#[track_caller]
fn set_cookie_header(reply: &Reply, name: &str) -> String {
    reply
        .headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|v| v.starts_with(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no cookie {name} set: {:?}", reply.headers))
}

/// A random token of 64 hex digits, shaped like the dashboard's own.
pub(crate) fn random_hex() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

// ---------------------------------------------------------------------------------------------
// Webhook targets (SSRF).

/// Webhook targets inside a deployment's network, in the ways they can be written, each with
/// the part of the refusal that names what it is.
const INTERNAL_URLS: &[(&str, &str)] = &[
    ("http://10.0.0.5/hook", "a private network address"),
    ("http://10.255.255.254:8080/", "a private network address"),
    ("http://172.16.0.1/hook", "a private network address"),
    ("https://172.31.255.254/", "a private network address"),
    ("http://192.168.1.10:8080/hook", "a private network address"),
    ("http://127.0.0.1:9/hook", "a loopback address"),
    ("http://127.1.2.3/", "a loopback address"),
    ("http://[::1]:9/hook", "a loopback address"),
    // 127.0.0.1 in decimal, and in hexadecimal with a short form.
    ("http://2130706433/", "a loopback address"),
    ("http://0x7f.1/", "a loopback address"),
    ("http://0.0.0.0:9/", "the unspecified address"),
    ("http://[::]/", "the unspecified address"),
    (
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "a link-local address",
    ),
    (
        "http://169.254.170.2/v2/credentials",
        "a link-local address",
    ),
    ("http://[fe80::1]/", "a link-local address"),
    (
        "http://[fd00:ec2::254]/latest/meta-data/",
        "a unique local (private) IPv6 address",
    ),
    (
        "http://[fd20:ce::254]/computeMetadata/v1/",
        "a unique local (private) IPv6 address",
    ),
    ("http://100.100.100.200/latest/meta-data/", "a shared"),
    // Azure's host service is a public address, refused by name.
    (
        "http://168.63.129.16/machine?comp=goalstate",
        "a cloud metadata service address",
    ),
    // IPv4-mapped, IPv4-compatible, NAT64 and 6to4 forms of internal IPv4 addresses.
    ("http://[::ffff:169.254.169.254]/", "a link-local address"),
    ("http://[::ffff:a9fe:a9fe]/", "a link-local address"),
    ("http://[::ffff:10.0.0.1]/", "a private network address"),
    ("http://[::ffff:127.0.0.1]:9/", "a loopback address"),
    ("http://[::127.0.0.1]/", "a loopback address"),
    ("http://[64:ff9b::a9fe:a9fe]/", "a link-local address"),
    ("http://[2002:a9fe:a9fe::1]/", "a link-local address"),
    ("http://[2002:c0a8:101::1]/", "a private network address"),
];

#[test]
fn internal_webhook_urls_are_refused_when_an_operator_sets_them() {
    let deployment = public_deployment();
    let email = new_email();
    let key = account_with_key(&deployment, &email);
    for (url, what) in INTERNAL_URLS {
        let out = deployment.admin_output(&["set-webhook", "--key", &key.id, "--url", url]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{url} was accepted: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            stderr.contains(what),
            "{url} should be called {what}: {stderr}"
        );
        assert!(stderr.contains("webhook"), "{stderr}");
    }
    assert_eq!(
        key_listing(&deployment, &email, &key.id)["webhook_url"],
        Value::Null,
        "nothing was stored"
    );
    // Host names are resolved when a delivery is sent, not when they are saved.
    deployment.set_webhook(&key, "https://hooks.example.com/insights");
    assert_eq!(
        key_listing(&deployment, &email, &key.id)["webhook_url"],
        "https://hooks.example.com/insights"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn internal_webhook_urls_are_refused_when_saved_in_the_dashboard() {
    let deployment = public_deployment();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let email = new_email();
    let csrf = browser.sign_up(&email).await;
    let key = create_key(&deployment, &email);
    for (url, what) in INTERNAL_URLS {
        let reply = browser
            .post(
                "/dashboard/alerts/webhook",
                &[("key", &key.id), ("url", url), ("csrf", &csrf)],
            )
            .await;
        assert_eq!(reply.status, 422, "{url} was accepted: {}", text(&reply));
        assert!(
            text(&reply).contains(what),
            "{url} should be called {what}: {}",
            text(&reply)
        );
    }
    assert_eq!(
        key_listing(&deployment, &email, &key.id)["webhook_url"],
        Value::Null,
        "nothing was stored"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_name_that_resolves_to_loopback_is_refused_when_the_delivery_is_sent() {
    let deployment = public_deployment();
    let email = new_email();
    let key = account_with_key(&deployment, &email);
    let receiver = Canned::start(204, &[]).await;
    // `localhost` is a name: it passes when saved, and what it resolves to is checked on
    // every connection, so that a name that turns internal later is caught too.
    let url = format!("http://localhost:{}/hook", receiver.addr.port());
    deployment.set_webhook(&key, &url);
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = serve(&deployment, &[]);

    let token = post_points(&server, &key).await;
    let attempt = first_attempt(&deployment, &key, &token).await;
    assert_eq!(attempt["error"], "forbidden", "{attempt}");
    assert_eq!(
        attempt["status"],
        Value::Null,
        "nothing answered: {attempt}"
    );

    // The dashboard's test delivery goes through the same sender.
    let mut browser = Browser::new(&server);
    let csrf = browser.signed_in(&email).await;
    let reply = browser
        .post(
            "/dashboard/alerts/test",
            &[("key", &key.id), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(reply.status, 200, "{}", text(&reply));
    let result = text_of(&reply, "test-result");
    assert!(result.contains("failed (forbidden"), "{result}");

    assert!(
        receiver.hits().is_empty(),
        "the loopback receiver was reached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_url_saved_on_a_local_server_is_refused_once_the_server_listens_publicly() {
    // The quick start allows loopback receivers while the server itself listens on loopback.
    let mut deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Canned::start(204, &[]).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");

    // The same store served on every interface: the stored URL is checked again when sent.
    deployment.set_listen("0.0.0.0:0");
    let server = serve(&deployment, &[]);
    let token = post_points(&server, &key).await;
    let attempt = first_attempt(&deployment, &key, &token).await;
    assert_eq!(attempt["error"], "forbidden", "{attempt}");
    assert_eq!(attempt["status"], Value::Null, "{attempt}");
    assert!(
        receiver.hits().is_empty(),
        "the loopback receiver was reached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_published_under_a_public_url_refuses_loopback_receivers_even_on_loopback() {
    // Saved on the quick start, before the deployment was put behind a reverse proxy.
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Canned::start(204, &[]).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");

    // Behind a proxy on the same machine, the server listens on loopback but serves everyone.
    let deployment = deployment.flag("--public-url", "https://insights.example.org");
    let out = deployment.admin_output(&[
        "set-webhook",
        "--key",
        &key.id,
        "--url",
        &receiver.url("/other"),
    ]);
    assert!(!out.status.success(), "a loopback URL was accepted");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("a loopback address"), "{stderr}");

    let server = serve(&deployment, &[]);
    let token = post_points(&server, &key).await;
    let attempt = first_attempt(&deployment, &key, &token).await;
    assert_eq!(attempt["error"], "forbidden", "{attempt}");
    assert!(
        receiver.hits().is_empty(),
        "the loopback receiver was reached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_an_internal_address_is_not_followed_and_the_delivery_fails() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    // On the quick start loopback is allowed, so the internal service would be reached if
    // the sender followed the redirect.
    let internal = Canned::start(200, &[]).await;
    let redirector = Canned::start(302, &[("location", &internal.url("/admin/drop-tables"))]).await;
    deployment.set_webhook(&key, &redirector.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = serve(&deployment, &[]);

    let token = post_points(&server, &key).await;
    let attempt = first_attempt(&deployment, &key, &token).await;
    assert_eq!(attempt["status"], 302, "{attempt}");
    assert_eq!(
        attempt["error"], "status",
        "a redirect is a failure: {attempt}"
    );
    let record = deployment.delivery_record(&key, &token);
    assert_ne!(record["outcome"], "delivered", "{record}");
    assert!(!redirector.hits().is_empty());
    assert!(
        internal.hits().is_empty(),
        "the redirect was followed to the internal address"
    );
}

#[test]
fn cloud_metadata_services_stay_refused_when_private_networks_are_allowed() {
    let deployment = public_deployment().flag("--allow-private-webhooks", "true");
    let key = deployment.new_key();
    // Receivers on the company's own network are what the setting is for.
    for url in [
        "http://10.1.2.3/hook",
        "http://192.168.1.10:8080/hook",
        "http://[fd12:3456::1]/hook",
        "http://100.64.0.10/hook",
    ] {
        deployment.set_webhook(&key, url);
    }
    for (url, what) in [
        (
            "http://169.254.169.254/latest/meta-data/",
            "a link-local address",
        ),
        ("http://[::ffff:169.254.169.254]/", "a link-local address"),
        ("http://[fe80::1]/", "a link-local address"),
        (
            "http://[fd00:ec2::254]/latest/meta-data/",
            "a cloud metadata service address",
        ),
        (
            "http://[fd00:ec2::23]/v1/credentials",
            "a cloud metadata service address",
        ),
        (
            "http://[fd20:ce::254]/computeMetadata/v1/",
            "a cloud metadata service address",
        ),
        (
            "http://100.100.100.200/latest/meta-data/",
            "a cloud metadata service address",
        ),
        (
            "http://[::ffff:100.100.100.200]/latest/meta-data/",
            "a cloud metadata service address",
        ),
        (
            "http://168.63.129.16/machine?comp=goalstate",
            "a cloud metadata service address",
        ),
    ] {
        let out = deployment.admin_output(&["set-webhook", "--key", &key.id, "--url", url]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{url} was accepted");
        assert!(
            stderr.contains(what),
            "{url} should be called {what}: {stderr}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// File URLs.

/// A key with a rule and a receiver of its own, and the file URL of its first delivery.
struct Delivered {
    token: String,
    url: String,
    _receiver: Receiver,
}

async fn deliver_one(deployment: &Deployment, server: &Server, key: &Key) -> Delivered {
    let receiver = Receiver::start(&key.secret).await;
    deployment.set_webhook(key, &receiver.url("/hook"));
    deployment.add_rule(key, "aq", "24h", "high");
    let token = post_points(server, key).await;
    let delivery = receiver.delivery_for(&token).await;
    assert_eq!(delivery.verified, Ok(()));
    let url = delivery.body["URL"].as_str().unwrap().to_owned();
    Delivered {
        token,
        url,
        _receiver: receiver,
    }
}

async fn fetch(url: &str) -> Reply {
    Reply::read(client().get(url).send().await.unwrap()).await
}

/// The value of the query parameter `name` of `url`.
fn param<'a>(url: &'a str, name: &str) -> &'a str {
    let query = url.split_once('?').unwrap().1;
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no {name} in {url}"))
}

/// `url` with the query parameter `name` set to `value`.
fn with_param(url: &str, name: &str, value: &str) -> String {
    let (path, query) = url.split_once('?').unwrap();
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| {
            if pair.starts_with(&format!("{name}=")) {
                format!("{name}={value}")
            } else {
                pair.to_owned()
            }
        })
        .collect();
    format!("{path}?{}", pairs.join("&"))
}

/// The path and query of `url`, after its scheme and host.
fn path_and_query(url: &str) -> &str {
    let after_scheme = url.split_once("://").unwrap().1;
    &after_scheme[after_scheme.find('/').unwrap()..]
}

/// The URL keys the deployment's servers sign with, from its key file.
fn url_keys(deployment: &Deployment) -> UrlKeys {
    let path = deployment
        .path()
        .join(insights_objects::config::URL_KEY_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    UrlKeys::parse_key_file(&text, &path.display().to_string()).unwrap()
}

/// A URL for `token` on `server` until `expires` (unix seconds), signed with `keys`.
fn sign(server: &Server, keys: UrlKeys, token: &str, expires: i64) -> String {
    let signer = LocalUrlSigner::new(&server.base, keys).unwrap();
    let token: Token = token.parse().unwrap();
    format!(
        "{}{}",
        server.base,
        signer.path_and_query(token, u64::try_from(expires).unwrap())
    )
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[track_caller]
fn assert_served(reply: &Reply, url: &str) {
    assert_eq!(reply.status, 200, "{url}: {}", text(reply));
    assert_eq!(reply.header("content-type"), Some("application/x-ndjson"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_genuine_file_url_is_served_and_every_altered_one_is_refused() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let key = deployment.new_key();
    let delivered = deliver_one(&deployment, &server, &key).await;
    let url = delivered.url.as_str();
    let genuine = fetch(url).await;
    assert_served(&genuine, url);
    assert_eq!(
        genuine.header("cache-control"),
        Some("private, no-store"),
        "a capability URL's content stays out of shared caches"
    );

    let signature = param(url, "signature");
    let flipped = {
        let mut s = signature.to_owned();
        let last = if s.ends_with('0') { "1" } else { "0" };
        s.replace_range(s.len() - 1.., last);
        s
    };
    let expires: u64 = param(url, "expires").parse().unwrap();
    let kid = param(url, "kid");
    let (path, query) = url.split_once('?').unwrap();
    let bad_signature = [
        (
            "a signature with one digit changed",
            with_param(url, "signature", &flipped),
        ),
        (
            "a signature of zeros",
            with_param(url, "signature", &"0".repeat(64)),
        ),
        (
            "an expiry moved later",
            with_param(url, "expires", &(expires + 3600).to_string()),
        ),
        (
            "an expiry moved earlier",
            with_param(url, "expires", &(expires - 1).to_string()),
        ),
        ("an unknown key id", with_param(url, "kid", "rogue")),
    ];
    for (what, altered) in &bad_signature {
        let reply = fetch(altered).await;
        reply.assert_error(403, "forbidden", &["signature"]);
        assert!(!reply.body.is_empty(), "{what}");
    }
    let malformed = [
        (
            "no signature",
            format!("{path}?expires={expires}&kid={kid}"),
        ),
        (
            "no expiry",
            format!("{path}?kid={kid}&signature={signature}"),
        ),
        (
            "no key id",
            format!("{path}?expires={expires}&signature={signature}"),
        ),
        ("no query at all", path.to_owned()),
        (
            "a repeated signature",
            format!("{url}&signature={signature}"),
        ),
        ("an extra parameter", format!("{url}&download=1")),
        (
            "an upper-case signature",
            with_param(url, "signature", &signature.to_uppercase()),
        ),
        (
            "an expiry with a leading zero",
            with_param(url, "expires", &format!("0{expires}")),
        ),
        (
            "an upper-case token",
            format!(
                "{}?{query}",
                path.replace(&delivered.token, &delivered.token.to_uppercase())
            ),
        ),
        (
            "a path out of the files",
            format!(
                "{}/insights/v1/files/..%2F..%2Furl-keys?{query}",
                server.base
            ),
        ),
        (
            "an encoded path",
            format!("{}?{query}", path.replace(".ndjson", "%2Endjson")),
        ),
    ];
    for (what, altered) in &malformed {
        let reply = fetch(altered).await;
        assert_eq!(reply.status, 403, "{what}: {altered}: {}", text(&reply));
        reply.assert_error(403, "forbidden", &[]);
    }
    // A refusal never carries the file, whatever was changed.
    for (_, altered) in bad_signature.iter().chain(&malformed) {
        let reply = fetch(altered).await;
        assert_ne!(reply.body, genuine.body, "{altered}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signature_moved_to_another_keys_file_is_refused() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let a = deliver_one(&deployment, &server, &deployment.new_key()).await;
    let b = deliver_one(&deployment, &server, &deployment.new_key()).await;
    let query_of = |url: &str| url.split_once('?').unwrap().1.to_owned();
    let path_of = |url: &str| url.split_once('?').unwrap().0.to_owned();

    // A's signature and expiry on the path of B's file, and the other way round.
    for (path, query) in [
        (path_of(&b.url), query_of(&a.url)),
        (path_of(&a.url), query_of(&b.url)),
    ] {
        let moved = format!("{path}?{query}");
        fetch(&moved)
            .await
            .assert_error(403, "forbidden", &["signature"]);
    }
    assert_served(&fetch(&a.url).await, &a.url);
    assert_served(&fetch(&b.url).await, &b.url);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_signed_with_a_key_the_server_does_not_hold_is_refused() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let key = deployment.new_key();
    let delivered = deliver_one(&deployment, &server, &key).await;
    let later = now() + 600;

    // Signed as the server signs, with its key: served, so the refusals below are about the
    // key alone.
    let genuine = sign(&server, url_keys(&deployment), &delivered.token, later);
    assert_served(&fetch(&genuine).await, &genuine);

    let server_kid = url_keys(&deployment).current().id().to_owned();
    for (what, forged_key) in [
        (
            "the server's key id with a guessed secret",
            UrlKey::new(&*server_kid, [7u8; 32]),
        ),
        ("a key id of its own", UrlKey::new("rogue", [7u8; 32])),
    ] {
        let keys = UrlKeys::new(forged_key.unwrap(), []).unwrap();
        let forged = sign(&server, keys, &delivered.token, later);
        assert_eq!(param(&forged, "expires"), later.to_string(), "{what}");
        fetch(&forged)
            .await
            .assert_error(403, "forbidden", &["signature"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_file_url_is_refused_as_expired() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let key = deployment.new_key();
    let delivered = deliver_one(&deployment, &server, &key).await;

    // Signed with the deployment's own key, as the server would have signed it 15 minutes
    // ago: genuine, but late.
    for expires in [now() - 1, now() - 900, 1] {
        let expired = sign(&server, url_keys(&deployment), &delivered.token, expires);
        let reply = fetch(&expired).await;
        reply.assert_error(403, "expired_url", &["expired"]);
    }
    let fresh = sign(&server, url_keys(&deployment), &delivered.token, now() + 60);
    assert_served(&fetch(&fresh).await, &fresh);
    // A URL the server made expires no later than 15 minutes after it was made.
    let expires: i64 = param(&delivered.url, "expires").parse().unwrap();
    assert!(expires <= now() + 900, "{}", delivered.url);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_urls_survive_a_url_key_rotation_until_the_old_key_is_removed() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let key = deployment.new_key();
    let old = deliver_one(&deployment, &server, &key).await;
    server.terminate();
    let old_keys = url_keys(&deployment);
    let key_file = deployment
        .path()
        .join(insights_objects::config::URL_KEY_FILE);

    // A new key first, the old one kept: URLs already handed out keep working.
    let rotated = old_keys
        .rotated(UrlKey::new("next", [42u8; 32]).unwrap(), 1)
        .unwrap();
    std::fs::write(&key_file, rotated.to_key_file()).unwrap();
    let server = serve(&deployment, &[]);
    // The signature leaves the host out, so the URL works on the restarted server's port.
    let old_url = format!("{}{}", server.base, path_and_query(&old.url));
    assert_served(&fetch(&old_url).await, &old_url);
    let token = post_points(&server, &key).await;
    let new_url = eventually("a URL signed with the new key", || {
        let reached = old
            ._receiver
            .deliveries()
            .into_iter()
            .find(|d| d.body["TOKEN"] == token.as_str())?;
        Some(reached.body["URL"].as_str()?.to_owned())
    })
    .await;
    assert_eq!(param(&new_url, "kid"), "next", "{new_url}");
    assert_served(&fetch(&new_url).await, &new_url);
    server.terminate();

    // The old key removed: its URLs are refused, the new key's still served.
    let only_new = UrlKeys::new(UrlKey::new("next", [42u8; 32]).unwrap(), []).unwrap();
    std::fs::write(&key_file, only_new.to_key_file()).unwrap();
    let server = serve(&deployment, &[]);
    let old_url = format!("{}{}", server.base, path_and_query(&old.url));
    fetch(&old_url)
        .await
        .assert_error(403, "forbidden", &["signature"]);
    let new_url = format!("{}{}", server.base, path_and_query(&new_url));
    assert_served(&fetch(&new_url).await, &new_url);
}

// ---------------------------------------------------------------------------------------------
// Isolation between accounts.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_account_cannot_see_or_change_an_accounts_keys_rules_or_deliveries() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);

    // Ada: a key with a webhook, a rule and a delivered request.
    let mut ada = Browser::new(&server);
    let ada_email = new_email();
    ada.sign_up(&ada_email).await;
    let key_a = create_key(&deployment, &ada_email);
    let receiver_a = Receiver::start(&key_a.secret).await;
    deployment.set_webhook(&key_a, &receiver_a.url("/hook"));
    deployment.add_rule(&key_a, "aq", "24h", "high");
    let token_a = post_points(&server, &key_a).await;
    receiver_a.delivery_for(&token_a).await;
    eventually("the delivery recorded as done", || {
        (deployment.delivery_record(&key_a, &token_a)["outcome"] == "delivered").then_some(())
    })
    .await;
    let rules_a = deployment.admin(&["list-rules", "--key", &key_a.id]);
    let rule_a = rules_a[0]["id"].as_str().unwrap().to_owned();
    let secret_a = ada.secret_of(&key_a.id).await;
    let before = (
        key_listing(&deployment, &ada_email, &key_a.id),
        rules_a.clone(),
        deployment.admin(&["list-deliveries", "--key", &key_a.id]),
    );

    // Eve: an account and a key of her own, and Ada's real ids.
    let mut eve = Browser::new(&server);
    let eve_email = new_email();
    let csrf = eve.sign_up(&eve_email).await;
    let key_e = create_key(&deployment, &eve_email);
    let (a, e) = (key_a.id.as_str(), key_e.id.as_str());
    let rule = rule_a.as_str();
    let token = token_a.as_str();
    let csrf = csrf.as_str();
    // The rule form in full: whatever it holds, someone else's key or rule is not found.
    fn rule_form<'a>(key: &'a str, rule: &'a str) -> Vec<(&'static str, &'a str)> {
        vec![
            ("key", key),
            ("rule", rule),
            ("type", "pollen"),
            ("forecast", "1d"),
            ("sensitivity", "low"),
            ("message", "default"),
            ("enabled", "on"),
        ]
    }
    let attempts: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("/dashboard/keys/revoke", vec![("key", a)]),
        (
            "/dashboard/keys/label",
            vec![("key", a), ("label", "taken over")],
        ),
        (
            "/dashboard/alerts/webhook",
            vec![("key", a), ("url", "http://127.0.0.1:1/eve")],
        ),
        ("/dashboard/alerts/rotate", vec![("key", a)]),
        ("/dashboard/alerts/test", vec![("key", a)]),
        ("/dashboard/rules", rule_form(a, rule)),
        ("/dashboard/rules", rule_form(e, rule)),
        ("/dashboard/rules", rule_form(a, "")),
        ("/dashboard/rules/toggle", vec![("key", a), ("rule", rule)]),
        ("/dashboard/rules/toggle", vec![("key", e), ("rule", rule)]),
        ("/dashboard/rules/delete", vec![("key", a), ("rule", rule)]),
        ("/dashboard/rules/delete", vec![("key", e), ("rule", rule)]),
        (
            "/dashboard/deliveries/redeliver",
            vec![("key", a), ("token", token)],
        ),
        (
            "/dashboard/deliveries/redeliver",
            vec![("key", e), ("token", token)],
        ),
    ];
    for (path, mut form) in attempts {
        form.push(("csrf", csrf));
        let reply = eve.post(path, &form).await;
        assert_eq!(reply.status, 404, "{path} {form:?}: {}", text(&reply));
    }
    for path in [
        format!("/dashboard/alerts?key={a}"),
        format!("/dashboard/rules?key={a}"),
        format!("/dashboard/rules?key={a}&edit={rule}"),
        format!("/dashboard/deliveries?key={a}"),
    ] {
        let reply = eve.get(&path).await;
        assert_eq!(reply.status, 404, "{path}: {}", text(&reply));
        // Someone else's key reads exactly like a key that does not exist.
        let missing = eve
            .get(&path.replace(a, &uuid::Uuid::new_v4().to_string()))
            .await;
        assert_eq!(
            (missing.status, &missing.body),
            (reply.status, &reply.body),
            "{path}"
        );
    }
    // Ada's rule under Eve's own key is no rule at all.
    let borrowed = eve
        .get(&format!("/dashboard/rules?key={e}&edit={rule}"))
        .await;
    assert_eq!(borrowed.status, 404, "{}", text(&borrowed));
    let missing = eve
        .get(&format!(
            "/dashboard/rules?key={e}&edit={}",
            uuid::Uuid::new_v4()
        ))
        .await;
    assert_eq!(
        (missing.status, &missing.body),
        (borrowed.status, &borrowed.body)
    );
    // Eve's own pages show nothing of Ada's.
    for path in [
        "/dashboard/keys",
        "/dashboard/alerts",
        "/dashboard/rules",
        "/dashboard/deliveries",
    ] {
        let page = eve.get(path).await;
        assert_eq!(page.status, 200, "{path}: {}", text(&page));
        let html = text(&page);
        for (what, ada_s) in [
            ("key id", a),
            ("key prefix", key_a.prefix.as_str()),
            ("rule id", rule),
            ("token", token),
            ("signing secret", secret_a.as_str()),
        ] {
            assert!(!html.contains(ada_s), "{path} shows Ada's {what}");
        }
    }

    // Nothing of Ada's changed, and no test or redelivery reached her receiver.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = (
        key_listing(&deployment, &ada_email, &key_a.id),
        deployment.admin(&["list-rules", "--key", &key_a.id]),
        deployment.admin(&["list-deliveries", "--key", &key_a.id]),
    );
    assert_eq!(after, before);
    assert_eq!(ada.secret_of(&key_a.id).await, secret_a);
    assert_eq!(
        receiver_a.deliveries().len(),
        1,
        "{:?}",
        receiver_a.deliveries()
    );
    assert_eq!(
        deployment.admin(&["list-rules", "--key", &key_e.id]),
        json!([]),
        "nothing was added to Eve's key either"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_accounts_api_key_never_uses_or_returns_an_accounts_webhook_rules_or_deliveries() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let http = client();
    let key_a = deployment.new_key();
    let receiver_a = Receiver::start(&key_a.secret).await;
    deployment.set_webhook(&key_a, &receiver_a.url("/hook"));
    deployment.add_rule(&key_a, "aq", "24h", "high");
    let token_a = post_points(&server, &key_a).await;
    receiver_a.delivery_for(&token_a).await;

    // Eve's key has neither webhook nor rules: Ada's are not lent to it.
    let key_e = deployment.new_key();
    let points = crate::alerts::points();
    post_json(&http, &server, &key_e.key, &points)
        .await
        .assert_error(400, "webhook_not_configured", &[]);
    let receiver_e = Receiver::start(&key_e.secret).await;
    deployment.set_webhook(&key_e, &receiver_e.url("/hook"));
    post_json(&http, &server, &key_e.key, &points)
        .await
        .assert_error(400, "no_alert_rules", &[]);

    // With her own rule, Eve's request goes to her receiver, signed with her secret, and
    // names her key.
    deployment.add_rule(&key_e, "aq", "24h", "high");
    let token_e = post_points(&server, &key_e).await;
    let delivery = receiver_e.delivery_for(&token_e).await;
    assert_eq!(delivery.verified, Ok(()));
    assert_eq!(delivery.body["KEY"], key_e.prefix.as_str());
    tokio::time::sleep(Duration::from_secs(1)).await;
    let to_a: Vec<Value> = receiver_a
        .deliveries()
        .into_iter()
        .map(|d| d.body)
        .collect();
    assert_eq!(
        to_a.len(),
        1,
        "only Ada's own request reached her: {to_a:?}"
    );
    assert_eq!(to_a[0]["TOKEN"], token_a.as_str());
    let to_e: Vec<Value> = receiver_e
        .deliveries()
        .into_iter()
        .map(|d| d.body)
        .collect();
    assert!(
        to_e.iter().all(|d| d["TOKEN"] == token_e.as_str()),
        "{to_e:?}"
    );

    // Each key's log holds its own requests only.
    let tokens = |key: &Key| -> Vec<String> {
        deployment
            .admin(&["list-deliveries", "--key", &key.id])
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["token"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(tokens(&key_a), [token_a]);
    assert_eq!(tokens(&key_e), [token_e]);
}

// ---------------------------------------------------------------------------------------------
// Logs.

/// One secret and what it is, for the message when it leaks.
struct Secret {
    what: &'static str,
    text: String,
}

fn secret(what: &'static str, text: impl Into<String>) -> Secret {
    let text = text.into();
    assert!(
        text.len() >= 16,
        "{what} is too short to look for: {text:?}"
    );
    Secret { what, text }
}

#[track_caller]
fn assert_no_secret(place: &str, output: &str, secrets: &[Secret], allowed: &[&str]) {
    for s in secrets {
        if allowed.contains(&s.text.as_str()) {
            continue;
        }
        assert!(
            !output.contains(&s.text),
            "{place} shows the {}:\n{output}",
            s.what
        );
    }
}

/// Runs an admin command that must succeed, keeping its whole output.
fn admin(deployment: &Deployment, outputs: &mut Vec<(String, Output)>, args: &[&str]) -> Value {
    let out = deployment.admin_output(args);
    assert!(
        out.status.success(),
        "admin {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    outputs.push((args[0].to_owned(), out));
    json
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_reaches_the_logs_even_at_the_most_verbose_level() {
    let deployment = Deployment::new().env("RUST_LOG", "trace");
    let mut outputs = Vec::new();
    let mut secrets = Vec::new();

    // The operator: an account, a key, a webhook and a rule.
    let email = new_email();
    let admin_password = "an operator's password, typed once";
    admin(
        &deployment,
        &mut outputs,
        &[
            "create-account",
            "--email",
            &email,
            "--password",
            admin_password,
        ],
    );
    let created = admin(
        &deployment,
        &mut outputs,
        &["create-key", "--email", &email],
    );
    let api_key = created["key"].as_str().unwrap().to_owned();
    let key_id = created["id"].as_str().unwrap().to_owned();
    let prefix = created["prefix"].as_str().unwrap().to_owned();
    let first_secret = created["webhook_secret"].as_str().unwrap().to_owned();
    let receiver = Canned::start(204, &[]).await;
    admin(
        &deployment,
        &mut outputs,
        &[
            "set-webhook",
            "--key",
            &key_id,
            "--url",
            &receiver.url("/hook"),
        ],
    );
    admin(
        &deployment,
        &mut outputs,
        &[
            "add-rule",
            "--key",
            &key_id,
            "--type",
            "aq",
            "--forecast",
            "24h",
            "--sensitivity",
            "high",
        ],
    );
    secrets.push(secret("admin password", admin_password));
    secrets.push(secret("API key", api_key.clone()));
    secrets.push(secret(
        "secret part of the API key",
        &api_key[prefix.len()..],
    ));
    secrets.push(secret("webhook secret", first_secret.clone()));
    secrets.push(secret(
        "webhook secret's key",
        first_secret.trim_start_matches("whsec_"),
    ));

    let server = serve(&deployment, &[]);
    let http = client();

    // The API: points, a signed delivery, the file; unknown and revoked keys.
    let key = Key {
        key: api_key.clone(),
        secret: first_secret.clone(),
        prefix: prefix.clone(),
        id: created["id"].as_str().unwrap().to_owned(),
    };
    let token = post_points(&server, &key).await;
    let hit = eventually("the delivery", || receiver.hits().into_iter().next()).await;
    let signature = hit.headers["webhook-signature"]
        .to_str()
        .unwrap()
        .to_owned();
    secrets.push(secret(
        "delivery signature",
        signature.trim_start_matches("v1,"),
    ));
    let body: Value = serde_json::from_slice(&hit.body).unwrap();
    assert_eq!(body["TOKEN"], token.as_str());
    let file_url = body["URL"].as_str().unwrap().to_owned();
    assert_served(&fetch(&file_url).await, &file_url);
    secrets.push(secret("file URL signature", param(&file_url, "signature")));
    let unknown_key = format!("{prefix}{}", "Z".repeat(api_key.len() - prefix.len()));
    secrets.push(secret("unknown API key", unknown_key.clone()));
    post_json(&http, &server, &unknown_key, &json!({"points": []}))
        .await
        .assert_error(401, "invalid_api_key", &[]);
    let url_key = url_keys(&deployment).to_key_file();
    let url_key_secret = url_key
        .lines()
        .find(|l| !l.starts_with('#'))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_owned();
    secrets.push(secret("file URL key", url_key_secret));

    // The dashboard: sign up, create a key, see and rotate its secret, send a test.
    let mut browser = Browser::new(&server);
    let dashboard_email = new_email();
    let page = browser.get("/dashboard/signup").await;
    secrets.push(secret("sign-up CSRF token", field(&page, "csrf")));
    let csrf = browser.sign_up(&dashboard_email).await;
    secrets.push(secret("dashboard password", PASSWORD));
    secrets.push(secret(
        "session cookie",
        browser.cookie("insights_session").unwrap(),
    ));
    secrets.push(secret("session CSRF token", csrf.clone()));
    let created = browser
        .post(
            "/dashboard/keys",
            &[("label", "from the dashboard"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(created.status, 201, "{}", text(&created));
    let dashboard_key = text_of(&created, "new-key-text");
    secrets.push(secret("dashboard API key", dashboard_key.clone()));
    let key_id = field(&created, "key");
    secrets.push(secret(
        "dashboard webhook secret",
        browser.secret_of(&key_id).await,
    ));
    let saved = browser
        .post(
            "/dashboard/alerts/webhook",
            &[
                ("key", &key_id),
                ("url", &receiver.url("/dashboard-hook")),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert!(saved.status.is_redirection(), "{}", text(&saved));
    let rotated = browser
        .post(
            "/dashboard/alerts/rotate",
            &[("key", &key_id), ("csrf", &csrf)],
        )
        .await;
    assert!(rotated.status.is_redirection(), "{}", text(&rotated));
    secrets.push(secret(
        "rotated dashboard secret",
        browser.secret_of(&key_id).await,
    ));
    let tested = browser
        .post(
            "/dashboard/alerts/test",
            &[("key", &key_id), ("csrf", &csrf)],
        )
        .await;
    assert!(
        text_of(&tested, "test-result").contains("succeeded"),
        "{}",
        text(&tested)
    );
    let test_hit = eventually("the test delivery", || receiver.hits().into_iter().nth(1)).await;
    let test_signature = test_hit.headers["webhook-signature"]
        .to_str()
        .unwrap()
        .to_owned();
    secrets.push(secret(
        "test delivery signature",
        test_signature.trim_start_matches("v1,"),
    ));
    let signed_out = browser.post("/dashboard/signout", &[("csrf", &csrf)]).await;
    assert!(signed_out.status.is_redirection());

    // A wrong password, then the right one, then signing out.
    let wrong = "a wrong password, typed by mistake";
    secrets.push(secret("wrong password", wrong));
    assert_eq!(browser.sign_in(&dashboard_email, wrong).await.status, 422);
    secrets.push(secret(
        "sign-in CSRF cookie",
        browser.cookie("insights_login_csrf").unwrap(),
    ));
    let csrf = browser.signed_in(&dashboard_email).await;
    secrets.push(secret(
        "second session cookie",
        browser.cookie("insights_session").unwrap(),
    ));
    secrets.push(secret("second session CSRF token", csrf.clone()));
    browser.post("/dashboard/signout", &[("csrf", &csrf)]).await;

    // The operator rotates the secret, lists deliveries, revokes the dashboard's key, which
    // the API then refuses.
    let rotated = admin(
        &deployment,
        &mut outputs,
        &["rotate-secret", "--key", &key_id],
    );
    let second_secret = rotated["webhook_secret"].as_str().unwrap().to_owned();
    secrets.push(secret("rotated webhook secret", second_secret.clone()));
    admin(
        &deployment,
        &mut outputs,
        &["list-deliveries", "--key", &key_id],
    );
    admin(&deployment, &mut outputs, &["list-keys", "--email", &email]);
    admin(&deployment, &mut outputs, &["list-rules", "--key", &key_id]);
    // A full key reaches the admin command on standard input, never in its arguments.
    let out = deployment.admin_with_stdin(&["revoke-key", "--key-stdin"], &dashboard_key);
    assert!(
        out.status.success(),
        "revoke-key: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    outputs.push(("revoke-key".to_owned(), out));
    post_json(&http, &server, &dashboard_key, &json!({"points": []}))
        .await
        .assert_error(401, "invalid_api_key", &[]);
    tokio::time::sleep(Duration::from_millis(500)).await;

    let log = server.log();
    assert!(
        log.contains("TRACE"),
        "the log is at its most verbose:\n{log}"
    );
    assert!(
        log.contains("/insights/v1/files/"),
        "requests are logged, with their path:\n{log}"
    );
    assert_no_secret("the server's log", &log, &secrets, &[]);
    assert_no_secret("the server's output", &server.printed(), &secrets, &[]);
    let mut verbose = false;
    for (command, out) in &outputs {
        let stderr = String::from_utf8_lossy(&out.stderr);
        verbose |= stderr.contains("DEBUG") || stderr.contains("TRACE");
        assert_no_secret(
            &format!("the log of admin {command}"),
            &stderr,
            &secrets,
            &[],
        );
        // The key and its secret are shown once, when they are made: that is what the command
        // is for. Nothing else prints a secret.
        let allowed: &[&str] = match command.as_str() {
            "create-key" => &[
                &api_key,
                &api_key[prefix.len()..],
                &first_secret,
                first_secret.trim_start_matches("whsec_"),
            ],
            "rotate-secret" => &[&second_secret],
            _ => &[],
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        for shown in allowed {
            assert!(
                stdout.contains(shown),
                "admin {command} shows its new secret"
            );
        }
        assert_no_secret(
            &format!("the output of admin {command}"),
            &stdout,
            &secrets,
            allowed,
        );
    }
    assert!(
        verbose,
        "the admin commands logged at the verbose level too"
    );
}

// ---------------------------------------------------------------------------------------------
// The dashboard.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_state_changing_form_refuses_a_missing_or_foreign_csrf_token() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut ada = Browser::new(&server);
    let email = new_email();
    let csrf = ada.sign_up(&email).await;
    let key = create_key(&deployment, &email);
    let receiver = Receiver::start(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");
    let token = post_points(&server, &key).await;
    receiver.delivery_for(&token).await;
    eventually("the delivery recorded as done", || {
        (deployment.delivery_record(&key, &token)["outcome"] == "delivered").then_some(())
    })
    .await;
    let rules = deployment.admin(&["list-rules", "--key", &key.id]);
    let rule = rules[0]["id"].as_str().unwrap().to_owned();
    let secret = ada.secret_of(&key.id).await;
    let before = (
        deployment.admin(&["list-keys", "--email", &email]),
        rules,
        deployment.admin(&["list-deliveries", "--key", &key.id]),
    );
    // A token that is valid, but for another session.
    let mut eve = Browser::new(&server);
    let foreign = eve.sign_up(&new_email()).await;

    let id = key.id.as_str();
    let forms: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("/dashboard/keys", vec![("label", "unasked")]),
        ("/dashboard/keys/revoke", vec![("key", id)]),
        (
            "/dashboard/keys/label",
            vec![("key", id), ("label", "renamed")],
        ),
        (
            "/dashboard/alerts/webhook",
            vec![("key", id), ("url", "http://127.0.0.1:1/elsewhere")],
        ),
        ("/dashboard/alerts/rotate", vec![("key", id)]),
        ("/dashboard/alerts/test", vec![("key", id)]),
        (
            "/dashboard/rules",
            vec![
                ("key", id),
                ("type", "pollen"),
                ("forecast", "1d"),
                ("sensitivity", "low"),
                ("message", "default"),
            ],
        ),
        (
            "/dashboard/rules/toggle",
            vec![("key", id), ("rule", &rule)],
        ),
        (
            "/dashboard/rules/delete",
            vec![("key", id), ("rule", &rule)],
        ),
        (
            "/dashboard/deliveries/redeliver",
            vec![("key", id), ("token", &token)],
        ),
        (
            "/dashboard/playground",
            vec![("request", "{\"routes\": []}")],
        ),
        ("/dashboard/signout", vec![]),
    ];
    let wrong = random_hex();
    for (path, fields) in &forms {
        for token in [None, Some(""), Some(wrong.as_str()), Some(foreign.as_str())] {
            let mut form = fields.clone();
            if let Some(token) = token {
                form.push(("csrf", token));
            }
            let reply = ada.post(path, &form).await;
            assert_eq!(reply.status, 403, "{path} with {token:?}: {}", text(&reply));
            assert!(
                text(&reply).contains(CSRF_REFUSAL),
                "{path}: {}",
                text(&reply)
            );
        }
    }
    // Sent from Ada's browser by another site, Eve's forms fail the same way.
    let reply = eve
        .post("/dashboard/keys", &[("label", "x"), ("csrf", &csrf)])
        .await;
    assert_eq!(reply.status, 403, "{}", text(&reply));

    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = (
        deployment.admin(&["list-keys", "--email", &email]),
        deployment.admin(&["list-rules", "--key", &key.id]),
        deployment.admin(&["list-deliveries", "--key", &key.id]),
    );
    assert_eq!(after, before, "nothing changed");
    assert_eq!(
        ada.secret_of(&key.id).await,
        secret,
        "the secret was not rotated"
    );
    assert_eq!(
        receiver.deliveries().len(),
        1,
        "no test delivery, no redelivery"
    );
    assert_eq!(
        ada.get("/dashboard/keys").await.status,
        200,
        "still signed in"
    );

    // Signing up and in need the token of the sign-in cookie, sent back in the form.
    let mut stranger = Browser::new(&server);
    let newcomer = new_email();
    let page = stranger.get("/dashboard/signup").await;
    let login_csrf = field(&page, "csrf");
    for (cookie, form_token) in [
        (None, login_csrf.as_str()),
        (Some(login_csrf.as_str()), ""),
        (Some(login_csrf.as_str()), wrong.as_str()),
        (Some(wrong.as_str()), login_csrf.as_str()),
    ] {
        stranger.forget_cookies();
        if let Some(cookie) = cookie {
            stranger.set_cookie("insights_login_csrf", cookie);
        }
        for path in ["/dashboard/signup", "/dashboard/signin"] {
            let reply = stranger
                .post(
                    path,
                    &[
                        ("email", &newcomer),
                        ("password", PASSWORD),
                        ("csrf", form_token),
                    ],
                )
                .await;
            assert_eq!(reply.status, 403, "{path}: {}", text(&reply));
            assert!(
                stranger.cookie("insights_session").is_none(),
                "{path} started a session"
            );
        }
        // Ada's own account: the right password is no help without the token.
        stranger.forget_cookies();
        if let Some(cookie) = cookie {
            stranger.set_cookie("insights_login_csrf", cookie);
        }
        let reply = stranger
            .post(
                "/dashboard/signin",
                &[
                    ("email", &email),
                    ("password", PASSWORD),
                    ("csrf", form_token),
                ],
            )
            .await;
        assert_eq!(reply.status, 403, "{}", text(&reply));
        assert!(stranger.cookie("insights_session").is_none());
    }
    let out = deployment.admin_output(&["list-keys", "--email", &newcomer]);
    assert!(
        !out.status.success(),
        "no account was created for {newcomer}"
    );
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_failures_are_limited_per_email_and_per_client_address() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let email = new_email();
    Browser::new(&server).sign_up(&email).await;

    // Guessing one account's password: a handful of tries, then a wait, which the right
    // password does not skip.
    let mut guesser = Browser::new(&server);
    let mut refused_at = None;
    for attempt in 1..=10 {
        let reply = guesser
            .sign_in(&email, &format!("guess number {attempt}"))
            .await;
        if reply.status == 429 {
            refused_at = Some(attempt);
            assert!(
                text(&reply).contains("Too many sign-in attempts"),
                "{}",
                text(&reply)
            );
            break;
        }
        assert_eq!(reply.status, 422, "{}", text(&reply));
    }
    let refused_at = refused_at.expect("ten wrong passwords in a row were all tried");
    assert!(refused_at <= 7, "the limit came after {refused_at} tries");
    let reply = guesser.sign_in(&email, PASSWORD).await;
    assert_eq!(reply.status, 429, "{}", text(&reply));
    assert!(guesser.cookie("insights_session").is_none());

    // Trying many accounts from one address: limited too, well before 60 tries.
    let mut sprayer = Browser::new(&server);
    let mut limited = false;
    for attempt in 0..60 {
        let reply = sprayer
            .sign_in(&format!("user{attempt}@example.org"), "a common password")
            .await;
        if reply.status == 429 {
            limited = true;
            break;
        }
        assert_eq!(reply.status, 422, "{}", text(&reply));
    }
    assert!(limited, "sixty accounts were tried from one address");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_ups_from_one_address_are_limited() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let mut limited = None;
    for attempt in 0..60 {
        let email = new_email();
        let page = browser.get("/dashboard/signup").await;
        let csrf = field(&page, "csrf");
        let reply = browser
            .post(
                "/dashboard/signup",
                &[("email", &email), ("password", PASSWORD), ("csrf", &csrf)],
            )
            .await;
        if reply.status == 429 {
            assert!(text(&reply).contains("Wait a minute"), "{}", text(&reply));
            limited = Some((attempt, email));
            break;
        }
        assert_redirect(&reply, "/dashboard/keys");
        browser.forget_cookies();
    }
    let (attempt, email) = limited.expect("sixty accounts were made from one address");
    assert!(
        attempt >= 5,
        "an office can still sign up a few people: {attempt}"
    );
    assert!(browser.cookie("insights_session").is_none());
    let out = deployment.admin_output(&["list-keys", "--email", &email]);
    assert!(!out.status.success(), "the refused sign-up made no account");
}
