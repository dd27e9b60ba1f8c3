//! A browser, reduced to what the dashboard's protections concern, and readers of the pages it
//! gets.

use std::collections::BTreeMap;

use crate::harness::{PATIENCE, Reply, Server};

use super::fixtures::PASSWORD;

/// Keeps cookies by name, follows no redirect (the tests look at them), and posts forms as a
/// browser does.
pub(crate) struct Browser {
    pub(crate) http: reqwest::Client,
    pub(crate) base: String,
    pub(crate) jar: BTreeMap<String, String>,
}

impl Browser {
    pub(crate) fn new(server: &Server) -> Self {
        Self::with_client(server, reqwest::Client::builder())
    }

    /// A browser whose connections come from `address`, one of the loopback addresses
    /// (127.0.0.0/8) that Linux lets a client bind: another client network to the server.
    pub(crate) fn from_address(server: &Server, address: &str) -> Self {
        let address: std::net::IpAddr = address.parse().unwrap();
        Self::with_client(server, reqwest::Client::builder().local_address(address))
    }

    fn with_client(server: &Server, builder: reqwest::ClientBuilder) -> Self {
        let http = builder
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
        assert_redirect(&reply, "/dashboard/welcome");
        self.session_csrf().await
    }

    /// Fills in and sends the sign-in form.
    pub(crate) async fn sign_in(&mut self, email: &str, password: &str) -> Reply {
        let page = self.get("/dashboard/signin").await;
        let csrf = field(&page, "csrf");
        self.post(
            "/dashboard/signin",
            &[("email", email), ("password", password), ("csrf", &csrf)],
        )
        .await
    }

    /// Signs in with [`PASSWORD`], which must work; the session's CSRF token.
    pub(crate) async fn signed_in(&mut self, email: &str) -> String {
        let reply = self.sign_in(email, PASSWORD).await;
        assert_redirect(&reply, "/dashboard/keys");
        self.session_csrf().await
    }

    /// The CSRF token of the signed-in session, from the keys page.
    pub(crate) async fn session_csrf(&mut self) -> String {
        let page = self.get("/dashboard/keys").await;
        assert_eq!(page.status, 200, "{}", text(&page));
        field(&page, "csrf")
    }

    /// The signing secret the alerts settings show for the key with `id`.
    pub(crate) async fn secret_of(&mut self, id: &str) -> String {
        let page = self.get(&format!("/dashboard/alerts?key={id}")).await;
        assert_eq!(page.status, 200, "{}", text(&page));
        text_of(&page, "secret-text")
    }
}

/// Percent-encodes everything but unreserved characters, as a form body allows.
pub(crate) fn encode(s: &str) -> String {
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
pub(crate) fn text_of(reply: &Reply, id: &str) -> String {
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
pub(crate) fn assert_redirect(reply: &Reply, to: &str) {
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
pub(crate) fn set_cookie_header(reply: &Reply, name: &str) -> String {
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
