//! The developer dashboard under `/dashboard`: server-rendered pages (maud) for accounts,
//! sessions, API keys, alerts settings, alert rules, deliveries and a route playground. Every
//! action goes through [`alerts_core::manage::Manager`], so the dashboard and the admin
//! command enforce the same rules.
//!
//! The dashboard sits beside the API and imports nothing of it: what it shows of the API (the
//! playground's scores, the maps' heatmap tiles) it asks through [`ApiAnswers`], which the
//! server wires to the API's own answers. [`router`] serves a [`DashboardState`]; the server
//! merges it with the API's router, behind the same request id, tracing, timeout and metrics.
//!
//! Security, in short (SECURITY.md has the whole list, with every limit):
//! - Requests are answered only for the public URL's host (or, on the quick start, loopback
//!   names and addresses), and forms only when the browser says they come from this origin.
//! - Sessions live in the server's [`SessionStore`] (they survive restarts and every replica
//!   sees them); the store keeps only the SHA-256 of the session id. The cookie is `HttpOnly`,
//!   `SameSite=Lax`, scoped to `/dashboard`; when the public URL is https it is `Secure`,
//!   scoped to the whole host and named `__Host-...`, which no other host can set.
//! - Every form carries a CSRF token: the session's own secret once signed in, a double-submit
//!   cookie signed with the server's [`CsrfKey`] on the sign-up and sign-in forms. Tokens are
//!   compared in constant time.
//! - Every page is sent with a strict Content-Security-Policy: only this origin's stylesheet
//!   and script, no inline code, forms only to this origin, no framing.
//! - Forms are read up to [`MAX_FORM_BYTES`]. The email is checked before anything else;
//!   attempts are rate-limited per client network (an IPv6 /64), per email from one network
//!   and per email from all of them, in limiters
//!   whose memory is bounded, and password hashes run at most a few at a time. The counters
//!   are in the memory of each process: behind several replicas an attacker gets each
//!   replica's allowance.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use alerts_core::manage::Manager;
use alerts_core::pipeline::AlertPipeline;
use alerts_core::ports::{DeliveryLog, JobQueue, WebhookSender};
use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware;
use axum::response::Response;
use axum::routing::{get, post};
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use identity_core::ports::SessionStore;
use identity_core::randomness::SecretRng;
use racs_core::Scorer;
use runtime_core::{Clock, IdGenerator};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

mod account;
mod activity;
mod alerts;
mod answers;
mod auth;
mod axis_order;
mod csrf;
mod deliveries;
mod delivery_alerts;
mod extract;
mod forecast;
pub mod form;
mod guard;
mod keys;
mod legend;
mod limits;
mod map;
mod pages;
mod playground;
mod rules;
mod signed_in;
mod state;
mod streets;
mod welcome;

pub use answers::{ApiAnswers, Refusal};
pub use csrf::{CsrfKey, ShortKey};
pub use guard::DashboardHosts;
pub use limits::{
    ATTEMPTS_PER_NETWORK_PER_MINUTE, MAP_TILES_PER_ACCOUNT_PER_MINUTE,
    PLACE_FORECASTS_PER_ACCOUNT_PER_MINUTE, PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE,
    SIGN_INS_PER_EMAIL_AND_NETWORK_PER_MINUTE, SIGN_INS_PER_EMAIL_PER_MINUTE,
    TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE,
};
pub use map::Basemap;
pub(crate) use signed_in::SignedIn;
pub use state::DashboardState;

/// The largest dashboard form accepted, in bytes; larger ones are answered 413 before any of
/// it is looked at.
pub const MAX_FORM_BYTES: usize = 16 * 1024;
/// The largest playground form, in bytes: a route request pasted by hand can be longer than
/// any other form.
pub const MAX_PLAYGROUND_BYTES: usize = 256 * 1024;
/// The default of [`DashboardPorts::max_password_hashes`]. Argon2id spends about 19 MiB and
/// tens of milliseconds of CPU per password by design; four at once bound that to under
/// 80 MiB.
pub const DEFAULT_MAX_PASSWORD_HASHES: usize = 4;
/// How long a client is asked to wait when every password-hash slot is taken.
const RETRY_AFTER_BUSY: Duration = Duration::from_secs(1);

/// The session cookie's name over plain http.
const SESSION_COOKIE: &str = "insights_session";
/// The double-submit CSRF cookie of the forms shown before signing in, over plain http.
const LOGIN_CSRF_COOKIE: &str = "insights_login_csrf";
/// How long a session lasts after signing in.
const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 3600);

/// Inline code is refused; the stylesheet and the copy-button script come from this origin.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// What the dashboard reads and changes, and the API beside it.
pub struct DashboardPorts {
    /// The answers of the API the dashboard sits beside: the playground's scores, the maps'
    /// tiles.
    pub api: Arc<dyn ApiAnswers>,
    /// The alert pipeline, whose forecast source and evaluator a place's forecast reads.
    pub alerts: Arc<AlertPipeline>,
    /// The route scorer, whose plans the playground draws.
    pub scorer: Scorer,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Accounts, keys and rules.
    pub manager: Manager,
    /// Where sessions are kept.
    pub sessions: Arc<dyn SessionStore>,
    /// The delivery log, for the deliveries page.
    pub deliveries: Arc<dyn DeliveryLog>,
    /// The job queue, for the redeliver button.
    pub jobs: Arc<dyn JobQueue>,
    /// Tokens of the playground's alert requests (time-ordered UUIDs in production).
    pub ids: Arc<dyn IdGenerator>,
    /// Secret randomness for session ids and CSRF secrets (the OS generator in production).
    pub rng: Arc<dyn SecretRng>,
    /// Sends the test deliveries of the alerts settings; without it, the page says that tests
    /// are not available.
    pub sender: Option<Arc<dyn WebhookSender>>,
    /// Set it when the public URL is https: cookies are then `Secure`, scoped to the whole
    /// host and named `__Host-...`.
    pub secure_cookies: bool,
    /// The `Host` names the dashboard answers; others get 421.
    pub hosts: DashboardHosts,
    /// Signs the CSRF tokens of the sign-up and sign-in forms.
    pub csrf_key: CsrfKey,
    /// The most password hashes (sign-ups and sign-ins) running at once in this process;
    /// more are answered 503 with `Retry-After`. See [`DEFAULT_MAX_PASSWORD_HASHES`].
    pub max_password_hashes: usize,
    /// A map background for the pages with a map; none by default, and then nothing is
    /// fetched from outside.
    pub basemap: Option<Basemap>,
    /// Where the sign-in, sign-up and per-account limits are kept: shared by every replica
    /// when its store is. `None` keeps them in this process.
    pub limiter: Option<Arc<identity_core::limiter::Limiter>>,
    /// The server's streets, drawn on the maps at city zoom; `None` when it reads none.
    pub roads: Option<Arc<dyn aq_core::RoadMap>>,
}

impl std::fmt::Debug for DashboardPorts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DashboardPorts")
            .field("secure_cookies", &self.secure_cookies)
            .field("hosts", &self.hosts)
            .field("max_password_hashes", &self.max_password_hashes)
            .field("basemap", &self.basemap)
            .finish_non_exhaustive()
    }
}

/// The dashboard's share of the application state.
pub(crate) struct Dashboard {
    pub(crate) ports: DashboardPorts,
    pub(crate) limits: limits::SignInLimits,
    pub(crate) account_limits: limits::AccountLimits,
}

impl Dashboard {
    pub(crate) fn new(ports: DashboardPorts) -> Self {
        let limiter = ports
            .limiter
            .clone()
            .unwrap_or_else(|| Arc::new(identity_core::limiter::Limiter::in_process()));
        Self {
            limits: limits::SignInLimits::new(ports.max_password_hashes, limiter.clone()),
            account_limits: limits::AccountLimits::new(limiter),
            ports,
        }
    }

    /// The session cookie's name.
    pub(crate) fn session_cookie(&self) -> &'static str {
        if self.ports.secure_cookies {
            "__Host-insights_session"
        } else {
            SESSION_COOKIE
        }
    }

    /// The login CSRF cookie's name.
    pub(crate) fn login_cookie(&self) -> &'static str {
        if self.ports.secure_cookies {
            "__Host-insights_login_csrf"
        } else {
            LOGIN_CSRF_COOKIE
        }
    }

    /// A response's cookie `name` with the dashboard's attributes, as a jar to send with it;
    /// `max_age` 0 deletes the cookie. A `__Host-` cookie must be `Secure` with `Path=/`.
    pub(crate) fn set_cookie(
        &self,
        name: &'static str,
        value: String,
        max_age: Duration,
    ) -> CookieJar {
        let path = if self.ports.secure_cookies {
            "/"
        } else {
            "/dashboard"
        };
        let seconds = i64::try_from(max_age.as_secs()).unwrap_or(i64::MAX);
        let cookie = Cookie::build((name, value))
            .path(path)
            .secure(self.ports.secure_cookies)
            .http_only(true)
            .same_site(SameSite::Lax)
            .max_age(time::Duration::seconds(seconds));
        CookieJar::new().add(cookie)
    }
}

/// The dashboard's routes under `/dashboard`, behind its host and origin checks and its form
/// size limit. The server merges them with the API's, behind the same layers.
pub fn router(state: DashboardState) -> Router {
    routes(&state).with_state(state)
}

fn routes(state: &DashboardState) -> Router<DashboardState> {
    Router::new()
        .route("/dashboard", get(keys::home))
        .route("/dashboard/", get(keys::home))
        .route("/dashboard/assets/dashboard.css", get(pages::stylesheet))
        .route("/dashboard/assets/dashboard.js", get(pages::script))
        .route("/dashboard/assets/leaflet.js", get(map::leaflet_js))
        .route("/dashboard/assets/leaflet.css", get(map::leaflet_css))
        .route("/dashboard/assets/map.js", get(map::map_js))
        .route(
            "/dashboard/assets/topojson-client.js",
            get(map::topojson_js),
        )
        .route("/dashboard/assets/world.js", get(map::world_js))
        .route("/dashboard/tiles/{z}/{x}/{y}", get(map::tile))
        .route("/dashboard/streets", get(streets::stretches))
        .route(
            "/dashboard/signup",
            get(auth::signup_page).post(auth::signup),
        )
        .route(
            "/dashboard/signin",
            get(auth::signin_page).post(auth::signin),
        )
        .route("/dashboard/signout", post(auth::signout))
        .route("/dashboard/account", get(account::page))
        .route(
            "/dashboard/account/password",
            post(account::change_password),
        )
        .route("/dashboard/account/sessions", post(account::end_sessions))
        .route("/dashboard/welcome", get(welcome::page))
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
        .route("/dashboard/deliveries/alerts", get(delivery_alerts::page))
        .route(
            "/dashboard/playground",
            get(playground::page)
                .post(playground::run)
                .layer(DefaultBodyLimit::max(MAX_PLAYGROUND_BYTES)),
        )
        .route(
            "/dashboard/deliveries/redeliver",
            post(deliveries::redeliver),
        )
        .route_layer(middleware::from_fn_with_state(state.clone(), guard::guard))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            pages::demo_banner,
        ))
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
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

/// The value of the request's cookie `name`.
pub(crate) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    CookieJar::from_headers(headers)
        .get(name)
        .map(|c| c.value().to_owned())
}

/// The client's address, when the server was started with connection info.
pub(crate) fn client_address(extensions: &axum::http::Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<std::net::SocketAddr>>()
        .map(|ConnectInfo(a)| a.ip())
}

/// The 503 page of a form that needs a password hash while every slot is taken.
pub(crate) fn busy() -> Response {
    let mut response = pages::error_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "The server is busy checking other passwords",
        "Nothing was changed. Wait a second, then send the form again.",
    );
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(RETRY_AFTER_BUSY.as_secs()),
    );
    response
}

/// The page of an attempt refused because the limit store cannot say whether it is within
/// its limit: 503 with `Retry-After`.
pub(crate) fn limits_unavailable() -> Response {
    let mut response = pages::error_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "The server cannot check its limits right now",
        "Nothing was changed. Wait a few seconds, then try again.",
    );
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(identity_core::limiter::UNAVAILABLE_RETRY_AFTER.as_secs()),
    );
    response
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

/// The 403 page of a form whose CSRF token is missing or wrong.
pub(crate) fn csrf_refused() -> Response {
    pages::error_page(
        StatusCode::FORBIDDEN,
        "This form has expired or was sent from another site",
        "Go back, reload the page and send the form again.",
    )
}
