//! The page layout, the stylesheet and script served from the binary, error pages (a store
//! that fails, a change refused, a key that is not the account's) and the capital a sentence
//! on a page starts with.

use alerts_core::manage::ManageError;
use alerts_core::ports::StoreError;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

use super::{SignedIn, secure_page};
use crate::DashboardState;

const STYLESHEET: &str = include_str!("../assets/dashboard.css");
const SCRIPT: &str = include_str!("../assets/dashboard.js");

/// A whole page: the navigation when signed in, then `body`.
pub(crate) fn layout(title: &str, user: Option<&SignedIn>, body: &Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · Insights dashboard" }
                link rel="stylesheet" href="/dashboard/assets/dashboard.css";
                script src="/dashboard/assets/dashboard.js" defer {}
            }
            body {
                header.top {
                    a.brand href="/dashboard" { "Insights" }
                    @if let Some(user) = user {
                        nav {
                            a href="/dashboard/welcome" { "Start" }
                            a href="/dashboard/keys" { "API keys" }
                            a href="/dashboard/alerts" { "Webhook" }
                            a href="/dashboard/rules" { "Alert rules" }
                            a href="/dashboard/deliveries" { "Deliveries" }
                            a href="/dashboard/playground" { "Route playground" }
                            a href="/dashboard/account" { "Account" }
                            a href="/insights/v1/docs" { "API docs" }
                        }
                        form.signout method="post" action="/dashboard/signout" {
                            input type="hidden" name="csrf" value=(user.csrf);
                            span.who { (user.email) }
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main {
                    h1 { (title) }
                    (body)
                }
            }
        }
    }
}

/// What every page says while the server runs on synthetic data.
const DEMO_BANNER: &str = "<p class=\"demo-banner\" role=\"status\"><strong>Demo data.</strong> \
    This server runs on the synthetic demo field: every score, alert and forecast here is made \
    up, not measured and not forecast. Start the server with a real source \
    (<code>--aq-source open-meteo</code>, <code>openaq</code> or <code>stations:FILE</code>) \
    for real air.</p>";

/// Puts the demo banner at the top of every dashboard page while the server's data is
/// synthetic: one place for every page, error pages included, whatever handler made it.
pub(crate) async fn demo_banner(
    State(state): State<DashboardState>,
    req: axum::extract::Request,
    next: Next,
) -> Response {
    let response = next.run(req).await;
    let is_html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if !state.demo_data() || !is_html {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // Dashboard pages are small and rendered in memory; a page that cannot be read back is
    // left as it was rather than lost.
    let Ok(bytes) = axum::body::to_bytes(body, MAX_PAGE_BYTES).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let page = String::from_utf8_lossy(&bytes);
    let labelled = match page.find("<body>") {
        Some(at) => {
            let split = at + "<body>".len();
            format!("{}{DEMO_BANNER}{}", &page[..split], &page[split..])
        }
        None => page.into_owned(),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(labelled))
}

/// The largest page the banner is added to.
const MAX_PAGE_BYTES: usize = 4 * 1024 * 1024;

/// Renders `markup` as a dashboard page with `status` and the security headers.
pub(crate) fn page(status: StatusCode, markup: Markup) -> Response {
    secure_page((status, Html(markup.into_string())).into_response())
}

/// A page that says what went wrong and what to do about it.
pub(crate) fn error_page(status: StatusCode, what: &str, todo: &str) -> Response {
    page(
        status,
        layout(
            what,
            None,
            &html! {
                p.error { (todo) }
                p { a href="/dashboard" { "Back to the dashboard" } }
            },
        ),
    )
}

/// The page shown when the store fails.
pub(crate) fn store_error(e: &StoreError) -> Response {
    tracing::warn!(error = %e, "dashboard: store failed");
    error_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "The database is unavailable",
        "Nothing was changed. Wait a few seconds and try again.",
    )
}

/// An error message above a form, when there is one.
pub(crate) fn form_error(error: Option<&str>) -> Markup {
    html! {
        @if let Some(error) = error {
            p.error role="alert" { (error) }
        }
    }
}

pub(crate) async fn stylesheet() -> Response {
    asset(STYLESHEET, "text/css; charset=utf-8")
}

pub(crate) async fn script() -> Response {
    asset(SCRIPT, "text/javascript; charset=utf-8")
}

pub(crate) fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// Messages of the core start in lower case, to read well after a prefix; a sentence on a
/// page starts with a capital.
pub(crate) fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

/// Someone else's key answers exactly like a key that does not exist.
pub(crate) fn unknown_key() -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        "No such key",
        "This key does not exist or belongs to another account. Pick a key from your list of API keys.",
    )
}

pub(crate) fn manage_error(e: &ManageError) -> Response {
    match e {
        ManageError::NotFound => unknown_key(),
        ManageError::Store(e) => store_error(e),
        ManageError::Revoked => error_page(
            StatusCode::CONFLICT,
            "This key is revoked",
            "A revoked key cannot be changed. Create a new key on the API keys page.",
        ),
        ManageError::TooManyRules { .. } | ManageError::DuplicateRule => error_page(
            StatusCode::CONFLICT,
            "The rule was not added",
            &format!(
                "{}. Go back to the key's rules to change or delete one.",
                capitalise(&e.to_string())
            ),
        ),
        other => error_page(
            StatusCode::UNPROCESSABLE_ENTITY,
            "The change was refused",
            &format!(
                "{}. Go back, correct it and try again.",
                capitalise(&other.to_string())
            ),
        ),
    }
}
