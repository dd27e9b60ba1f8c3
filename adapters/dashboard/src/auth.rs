//! Sign up, sign in and sign out.

use axum::extract::State;
use axum::http::{Extensions, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use identity_core::account::{EmailError, MIN_PASSWORD_CHARS, normalize_email};
use identity_core::manage::{Identity, IdentityError};
use identity_core::ports::{Account, Session, StoreError};
use maud::{Markup, html};
use serde::Deserialize;

use super::extract::{Action, LoginForm, NoFields};
use super::limits::Verdict;
use super::pages::{self, capitalise, form_error, layout};
use super::{
    Dashboard, SESSION_LIFETIME, busy, client_address, cookie, random_token, session_hash,
};
use crate::DashboardState;

/// The sign-up and sign-in form. Missing fields read as empty, so that a form without its
/// token is refused as such rather than as a malformed body.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Credentials {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
}

#[derive(Clone, Copy)]
enum Which {
    SignUp,
    SignIn,
}

fn credentials_form(which: Which, csrf: &str, email: &str, error: Option<&str>) -> Markup {
    let (action, button, other) = match which {
        Which::SignUp => (
            "/dashboard/signup",
            "Create account",
            html! { "Already have an account? " a href="/dashboard/signin" { "Sign in" } },
        ),
        Which::SignIn => (
            "/dashboard/signin",
            "Sign in",
            html! { "No account yet? " a href="/dashboard/signup" { "Sign up" } },
        ),
    };
    html! {
        (form_error(error))
        form.card method="post" action=(action) {
            input type="hidden" name="csrf" value=(csrf);
            label for="email" { "Email" }
            input #email type="email" name="email" value=(email) autocomplete="username" required;
            label for="password" { "Password" }
            @if matches!(which, Which::SignUp) {
                // The browser checks the length before sending; the server's rule still decides.
                input #password type="password" name="password" required
                    minlength=(MIN_PASSWORD_CHARS) autocomplete="new-password";
                p.hint { "At least " (MIN_PASSWORD_CHARS) " characters." }
            } @else {
                input #password type="password" name="password" required
                    autocomplete="current-password";
            }
            button type="submit" { (button) }
        }
        p { (other) }
        @if matches!(which, Which::SignIn) {
            p.hint {
                "Forgotten your password? The server's operator can set a new one "
                "(" code { "insights-server admin reset-password" } ")."
            }
        }
    }
}

/// Runs an identity call that hashes or verifies a password, under one of the few hashing
/// permits and on the blocking pool. Argon2id spends about 19 MiB and tens of milliseconds of
/// CPU per password by design; on the async threads, a few sign-ins at once would hold up
/// every API request queued behind them, and without the permits any number could run at
/// once. `Err` is the page to answer with: busy (503 with `Retry-After`) when every permit is
/// taken, or a 500 titled `failed` when the call did not finish.
pub(crate) async fn hashing_password<T, Fut>(
    dashboard: &Dashboard,
    failed: &'static str,
    call: impl FnOnce(Identity) -> Fut + Send + 'static,
) -> Result<T, Response>
where
    T: Send + 'static,
    Fut: Future<Output = T>,
{
    let Some(permit) = dashboard.limits.hash_permit() else {
        return Err(busy());
    };
    let identity = dashboard.ports.manager.identity().clone();
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        runtime.block_on(call(identity))
    })
    .await
    .map_err(|e| {
        tracing::error!(error = %e, "dashboard: a password check failed to run");
        pages::error_page(
            StatusCode::INTERNAL_SERVER_ERROR,
            failed,
            "Nothing was changed. Try again; if it keeps failing, tell the operator.",
        )
    })
}

fn credentials_page(
    state: &DashboardState,
    headers: &HeaderMap,
    which: Which,
    status: StatusCode,
    email: &str,
    error: Option<&str>,
) -> Response {
    let dashboard = state.dashboard();
    // The double-submit token is reused while the browser has one of the server's, so that
    // two open tabs do not invalidate each other.
    let key = &dashboard.ports.csrf_key;
    let csrf = cookie(headers, dashboard.login_cookie())
        .filter(|c| key.genuine(c))
        .unwrap_or_else(|| key.issue(dashboard.ports.rng.as_ref()));
    let title = match which {
        Which::SignUp => "Create your account",
        Which::SignIn => "Sign in",
    };
    let form = credentials_form(which, &csrf, email, error);
    let cookie = dashboard.set_cookie(dashboard.login_cookie(), csrf, SESSION_LIFETIME);
    (cookie, pages::page(status, layout(title, None, &form))).into_response()
}

pub(crate) async fn signup_page(
    State(state): State<DashboardState>,
    headers: HeaderMap,
) -> Response {
    credentials_page(&state, &headers, Which::SignUp, StatusCode::OK, "", None)
}

pub(crate) async fn signin_page(
    State(state): State<DashboardState>,
    headers: HeaderMap,
) -> Response {
    credentials_page(&state, &headers, Which::SignIn, StatusCode::OK, "", None)
}

/// The page of a sign-up or sign-in form whose email is refused. The email is checked before
/// any limiter or password hash sees it.
fn email_refused(
    state: &DashboardState,
    headers: &HeaderMap,
    which: Which,
    email: &str,
    error: &EmailError,
) -> Response {
    let message = format!(
        "{}. Correct it and try again.",
        capitalise(&error.to_string())
    );
    credentials_page(
        state,
        headers,
        which,
        StatusCode::UNPROCESSABLE_ENTITY,
        email,
        Some(&message),
    )
}

pub(crate) async fn signup(
    State(state): State<DashboardState>,
    extensions: Extensions,
    LoginForm { headers, form }: LoginForm<Credentials>,
) -> Response {
    let dashboard = state.dashboard();
    let email = match normalize_email(&form.email) {
        Ok(email) => email,
        Err(e) => return email_refused(&state, &headers, Which::SignUp, &form.email, &e),
    };
    let now = dashboard.ports.clock.now();
    match dashboard
        .limits
        .sign_up(client_address(&extensions), now)
        .await
    {
        Verdict::Allowed => {}
        Verdict::Unavailable => return crate::limits_unavailable(),
        Verdict::Limited => {
            return credentials_page(
                &state,
                &headers,
                Which::SignUp,
                StatusCode::TOO_MANY_REQUESTS,
                &email,
                Some("Too many attempts from your network. Wait a minute, then try again."),
            );
        }
    }
    let password = form.password;
    let account_email = email.clone();
    let created = hashing_password(
        dashboard,
        "The account could not be created",
        move |identity| async move { identity.create_account(&account_email, &password).await },
    )
    .await;
    match created {
        Err(page) => page,
        Ok(Ok(account)) => start_session(&state, dashboard, &account, "/dashboard/welcome").await,
        Ok(Err(IdentityError::Store(e))) => pages::store_error(&e),
        Ok(Err(e)) => {
            let message = match e {
                IdentityError::EmailTaken => {
                    "An account with this email exists already: sign in instead, or use another email.".to_owned()
                }
                other => format!("{}. Correct it and try again.", capitalise(&other.to_string())),
            };
            credentials_page(
                &state,
                &headers,
                Which::SignUp,
                StatusCode::UNPROCESSABLE_ENTITY,
                &email,
                Some(&message),
            )
        }
    }
}

pub(crate) async fn signin(
    State(state): State<DashboardState>,
    extensions: Extensions,
    LoginForm { headers, form }: LoginForm<Credentials>,
) -> Response {
    let dashboard = state.dashboard();
    let email = match normalize_email(&form.email) {
        Ok(email) => email,
        Err(e) => return email_refused(&state, &headers, Which::SignIn, &form.email, &e),
    };
    let now = dashboard.ports.clock.now();
    match dashboard
        .limits
        .sign_in(&email, client_address(&extensions), now)
        .await
    {
        Verdict::Allowed => {}
        Verdict::Unavailable => return crate::limits_unavailable(),
        Verdict::Limited => {
            return credentials_page(
                &state,
                &headers,
                Which::SignIn,
                StatusCode::TOO_MANY_REQUESTS,
                &email,
                Some("Too many sign-in attempts. Wait a minute, then try again."),
            );
        }
    }
    let password = form.password;
    let account_email = email.clone();
    let signed_in = hashing_password(dashboard, "Signing in failed", move |identity| async move {
        identity.sign_in(&account_email, &password).await
    })
    .await;
    match signed_in {
        Err(page) => page,
        Ok(Ok(account)) => start_session(&state, dashboard, &account, "/dashboard/keys").await,
        Ok(Err(IdentityError::Store(e))) => pages::store_error(&e),
        Ok(Err(_)) => credentials_page(
            &state,
            &headers,
            Which::SignIn,
            StatusCode::UNPROCESSABLE_ENTITY,
            &email,
            Some("The email or the password is wrong. Check both and try again, or sign up."),
        ),
    }
}

pub(crate) async fn signout(
    State(state): State<DashboardState>,
    Action { user, .. }: Action<NoFields>,
) -> Response {
    let dashboard = state.dashboard();
    if let Err(e) = dashboard.ports.sessions.delete_session(&user.id_hash).await {
        return pages::store_error(&e);
    }
    let cookie = dashboard.set_cookie(
        dashboard.session_cookie(),
        String::new(),
        std::time::Duration::ZERO,
    );
    (cookie, Redirect::to("/dashboard/signin")).into_response()
}

/// Stores a new session of `account` under the credential version its password was checked
/// at, and gives the id its cookie carries with the session as stored. Signing in is rare
/// enough to sweep expired sessions on the way, which keeps the table small without a
/// background task.
///
/// # Errors
/// [`StoreError::CredentialsChanged`] when the password changed since it was checked; the
/// store's other errors.
pub(crate) async fn open_session(
    dashboard: &Dashboard,
    now: chrono::DateTime<chrono::Utc>,
    account: &Account,
) -> Result<(String, Session), StoreError> {
    let id = random_token(dashboard.ports.rng.as_ref());
    let session = Session {
        id_hash: session_hash(&id),
        account_id: account.id,
        csrf_secret: random_token(dashboard.ports.rng.as_ref()),
        credential_version: account.credential_version,
        created_at: now,
        expires_at: now
            + chrono::Duration::from_std(SESSION_LIFETIME).unwrap_or(chrono::Duration::hours(12)),
    };
    if let Err(e) = dashboard.ports.sessions.delete_expired_sessions(now).await {
        tracing::warn!(error = %e, "dashboard: expired sessions not swept");
    }
    dashboard.ports.sessions.create_session(&session).await?;
    Ok((id, session))
}

/// The page for a session refused because the password changed while it was being made.
fn credentials_changed() -> Response {
    pages::error_page(
        StatusCode::CONFLICT,
        "The password just changed",
        "The password of this account was changed while you were signing in. Sign in again \
         with the new password.",
    )
}

async fn start_session(
    state: &DashboardState,
    dashboard: &Dashboard,
    account: &Account,
    to: &str,
) -> Response {
    match open_session(dashboard, state.clock().now(), account).await {
        Ok((id, _)) => {
            let cookie = dashboard.set_cookie(dashboard.session_cookie(), id, SESSION_LIFETIME);
            (cookie, Redirect::to(to)).into_response()
        }
        Err(StoreError::CredentialsChanged) => credentials_changed(),
        Err(e) => pages::store_error(&e),
    }
}
