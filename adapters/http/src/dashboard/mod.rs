//! The developer dashboard under `/dashboard`: server-rendered pages (maud) for accounts,
//! sessions, API keys, alerts settings, alert rules, deliveries and a route playground. Every action goes through [`alerts_core::manage::Manager`], so the
//! dashboard and the admin command enforce the same rules.
//!
//! Security, in short:
//! - Sessions live in the server's [`SessionStore`] (they survive restarts and every replica
//!   sees them); the store keeps only the SHA-256 of the session id. The cookie is `HttpOnly`,
//!   `SameSite=Lax`, scoped to `/dashboard`, and `Secure` when the public URL is https.
//! - Every form carries a CSRF token: the session's own secret once signed in, a random
//!   double-submit cookie on the sign-up and sign-in forms. Tokens are compared in constant
//!   time.
//! - Every page is sent with a strict Content-Security-Policy: only this origin's stylesheet
//!   and script, no inline code, forms only to this origin, no framing.
//! - Sign-in attempts are rate-limited per email and per client address, and sign-ups share
//!   the address's allowance (each costs a password hash and makes an account). The counters
//!   are in the memory of each process: behind several replicas an attacker gets each
//!   replica's allowance.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use alerts_core::ids::AccountId;
use alerts_core::manage::Manager;
use alerts_core::ports::{DeliveryLog, JobQueue, SessionStore, WebhookSender};
use alerts_core::randomness::SecretRng;
use aq_core::runtime::IdGenerator;
use axum::Router;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use governor::clock::DefaultClock;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::AppState;

mod alerts;
mod auth;
mod deliveries;
mod keys;
mod pages;
mod playground;
mod rules;

/// The session cookie's name.
pub(crate) const SESSION_COOKIE: &str = "insights_session";
/// The double-submit CSRF cookie of the forms shown before signing in.
pub(crate) const LOGIN_CSRF_COOKIE: &str = "insights_login_csrf";
/// How long a session lasts after signing in.
const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 3600);

/// Inline code is refused; the stylesheet and the copy-button script come from this origin.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// What the dashboard needs besides the API's ports.
pub struct DashboardPorts {
    /// Accounts, keys and rules.
    pub manager: Manager,
    /// Where sessions are kept.
    pub sessions: Arc<dyn SessionStore>,
    /// The delivery log, for the deliveries page.
    pub deliveries: Arc<dyn DeliveryLog>,
    /// The job queue, for the redeliver button.
    pub jobs: Arc<dyn JobQueue>,
    /// Ids of the playground's alert requests (random UUIDs in production).
    pub ids: Arc<dyn IdGenerator>,
    /// Secret randomness for session ids and CSRF secrets (the OS generator in production).
    pub rng: Arc<dyn SecretRng>,
    /// Sends the test deliveries of the alerts settings; without it, the page says that tests
    /// are not available.
    pub sender: Option<Arc<dyn WebhookSender>>,
    /// Marks cookies `Secure`: set it when the public URL is https.
    pub secure_cookies: bool,
}

impl std::fmt::Debug for DashboardPorts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DashboardPorts")
            .field("secure_cookies", &self.secure_cookies)
            .finish_non_exhaustive()
    }
}

type Limiter = RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock>;

/// The dashboard's share of the application state.
pub(crate) struct Dashboard {
    pub(crate) ports: DashboardPorts,
    by_email: Limiter,
    by_address: Limiter,
}

impl Dashboard {
    pub(crate) fn new(ports: DashboardPorts) -> Self {
        let per_minute = |n: u32| {
            let n = NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
            Quota::per_minute(n).allow_burst(n)
        };
        Self {
            ports,
            // Five tries per email a minute stops guessing without locking out a user who
            // mistypes a few times; an address gets more, since offices share one.
            by_email: RateLimiter::keyed(per_minute(5)),
            by_address: RateLimiter::keyed(per_minute(30)),
        }
    }

    /// Whether another sign-in attempt is allowed for this email and address now.
    pub(crate) fn allow_sign_in(&self, email: &str, address: Option<SocketAddr>) -> bool {
        let email_ok = self
            .by_email
            .check_key(&email.trim().to_lowercase())
            .is_ok();
        let address_ok =
            address.is_none_or(|a| self.by_address.check_key(&a.ip().to_string()).is_ok());
        email_ok && address_ok
    }

    /// Whether another sign-up is allowed from this address now. It counts against the same
    /// allowance as signing in, so that one client cannot spend the server's CPU and memory on
    /// password hashes, or fill the store with accounts, by signing up instead.
    pub(crate) fn allow_sign_up(&self, address: Option<SocketAddr>) -> bool {
        address.is_none_or(|a| self.by_address.check_key(&a.ip().to_string()).is_ok())
    }
}

/// The dashboard's routes, when the state has a dashboard.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/dashboard", get(keys::home))
        .route("/dashboard/", get(keys::home))
        .route("/dashboard/assets/dashboard.css", get(pages::stylesheet))
        .route("/dashboard/assets/dashboard.js", get(pages::script))
        .route(
            "/dashboard/signup",
            get(auth::signup_page).post(auth::signup),
        )
        .route(
            "/dashboard/signin",
            get(auth::signin_page).post(auth::signin),
        )
        .route("/dashboard/signout", post(auth::signout))
        .route("/dashboard/keys", get(keys::list).post(keys::create))
        .route("/dashboard/keys/revoke", post(keys::revoke))
        .route("/dashboard/keys/label", post(keys::rename))
        .route("/dashboard/alerts", get(alerts::page))
        .route("/dashboard/alerts/webhook", post(alerts::save_webhook))
        .route("/dashboard/alerts/rotate", post(alerts::rotate))
        .route("/dashboard/alerts/test", post(alerts::test_delivery))
        .route("/dashboard/rules", get(rules::page).post(rules::save))
        .route("/dashboard/rules/toggle", post(rules::toggle))
        .route("/dashboard/rules/delete", post(rules::delete))
        .route("/dashboard/deliveries", get(deliveries::page))
        .route(
            "/dashboard/playground",
            get(playground::page).post(playground::run),
        )
        .route(
            "/dashboard/deliveries/redeliver",
            post(deliveries::redeliver),
        )
}

/// A random token of 256 bits, in hex.
pub(crate) fn random_token(rng: &dyn SecretRng) -> String {
    let mut bytes = [0u8; 32];
    rng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// What the store keeps of a session id.
pub(crate) fn session_hash(id: &str) -> String {
    hex::encode(Sha256::digest(id.as_bytes()))
}

/// Compares two tokens without leaking where they differ through timing.
pub(crate) fn same_token(a: &str, b: &str) -> bool {
    !a.is_empty() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// The value of a cookie in the request.
pub(crate) fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// A `Set-Cookie` value with the dashboard's attributes; `max_age` 0 deletes the cookie.
pub(crate) fn set_cookie(name: &str, value: &str, max_age: Duration, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/dashboard; Max-Age={}; HttpOnly; SameSite=Lax{secure}",
        max_age.as_secs()
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("invalid=; Max-Age=0"))
}

/// The client's address, when the server was started with connection info.
pub(crate) fn client_address(parts_ext: &axum::http::Extensions) -> Option<SocketAddr> {
    parts_ext
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(a)| *a)
}

/// Adds the dashboard's security headers to a page.
pub(crate) fn secure_page(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The signed-in account of a request, from its session cookie. Pages that need one redirect
/// to the sign-in page without it.
#[derive(Debug, Clone)]
pub(crate) struct SignedIn {
    pub(crate) account: AccountId,
    pub(crate) email: String,
    pub(crate) csrf: String,
    pub(crate) id_hash: String,
}

impl SignedIn {
    /// Whether the form's token is this session's.
    pub(crate) fn csrf_ok(&self, token: &str) -> bool {
        same_token(token, &self.csrf)
    }
}

impl FromRequestParts<AppState> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let Some(dashboard) = state.dashboard() else {
            return Err(StatusCode::NOT_FOUND.into_response());
        };
        let to_sign_in = || Redirect::to("/dashboard/signin").into_response();
        let Some(id) = cookie(&parts.headers, SESSION_COOKIE) else {
            return Err(to_sign_in());
        };
        let id_hash = session_hash(id);
        let session = dashboard
            .ports
            .sessions
            .session(&id_hash, state.clock().now())
            .await
            .map_err(|e| pages::store_error(&e))?;
        let Some(session) = session else {
            return Err(to_sign_in());
        };
        let email = dashboard
            .ports
            .manager
            .account(session.account_id)
            .await
            .ok()
            .map(|a| a.email)
            .unwrap_or_default();
        Ok(SignedIn {
            account: session.account_id,
            email,
            csrf: session.csrf_secret,
            id_hash,
        })
    }
}

/// The 403 page of a form whose CSRF token is missing or wrong.
pub(crate) fn csrf_refused() -> Response {
    pages::error_page(
        StatusCode::FORBIDDEN,
        "This form has expired or was sent from another site",
        "Go back, reload the page and send the form again.",
    )
}
