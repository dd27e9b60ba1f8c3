//! The account page: change the password (which ends every session and starts a fresh one for
//! this browser), and end every other session. Both end sessions in the store, so a session
//! stolen or left open elsewhere ends on every replica at once.

use axum::extract::State;
use axum::http::{Extensions, StatusCode};
use axum::response::{IntoResponse, Response};
use identity_core::account::MIN_PASSWORD_CHARS;
use identity_core::manage::IdentityError;
use identity_core::ports::{Account, StoreError};
use maud::{Markup, html};
use serde::Deserialize;

use super::auth::{hashing_password, open_session};
use super::extract::{Action, NoFields};
use super::limits::Verdict;
use super::pages::capitalise;
use super::pages::{self, form_error, layout};
use super::{SESSION_LIFETIME, SignedIn, client_address};
use crate::DashboardState;

/// The password form. Missing fields read as empty, and are refused as wrong or too short.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PasswordForm {
    #[serde(default)]
    current_password: String,
    #[serde(default)]
    new_password: String,
}

pub(crate) async fn page(user: SignedIn) -> Response {
    render(&user, StatusCode::OK, None, None)
}

/// Changes the password after checking the current one, then ends every session of the
/// account, this one included, and signs this browser in again with a new session (new id, new
/// CSRF token, new cookie): whoever else was signed in, with the old password or a stolen copy
/// of any cookie, this one's too, is out.
pub(crate) async fn change_password(
    State(state): State<DashboardState>,
    extensions: Extensions,
    Action { user, form }: Action<PasswordForm>,
) -> Response {
    let dashboard = state.dashboard();
    // The current password is checked like a sign-in, under the same limits: a stolen session
    // must not become a way to guess the password faster than the sign-in form allows.
    let now = dashboard.ports.clock.now();
    match dashboard
        .limits
        .sign_in(&user.email, client_address(&extensions), now)
        .await
    {
        Verdict::Allowed => {}
        Verdict::Unavailable => return crate::limits_unavailable(),
        Verdict::Limited => {
            return render(
                &user,
                StatusCode::TOO_MANY_REQUESTS,
                None,
                Some("Too many attempts. Wait a minute, then try again."),
            );
        }
    }
    let account = user.account;
    let PasswordForm {
        current_password,
        new_password,
    } = form;
    let changed = hashing_password(
        dashboard,
        "The password could not be changed",
        move |identity| async move {
            identity
                .change_password(account, &current_password, &new_password)
                .await
        },
    )
    .await;
    match changed {
        Err(page) => page,
        Ok(Ok(account)) => renew_session(&state, &user, &account).await,
        Ok(Err(IdentityError::WrongCredentials)) => render(
            &user,
            StatusCode::UNPROCESSABLE_ENTITY,
            None,
            Some("The current password is wrong. Nothing was changed; type it again."),
        ),
        Ok(Err(IdentityError::Password(e))) => render(
            &user,
            StatusCode::UNPROCESSABLE_ENTITY,
            None,
            Some(&format!("New {e}. Nothing was changed.")),
        ),
        Ok(Err(IdentityError::Store(StoreError::CredentialsChanged))) => pages::error_page(
            StatusCode::CONFLICT,
            "The password just changed",
            "The password of this account was changed elsewhere while you were changing it, \
             and this session ended with it. Nothing was changed here: sign in again with the \
             password now in force.",
        ),
        Ok(Err(IdentityError::Store(e))) => pages::store_error(&e),
        Ok(Err(e)) => super::pages::manage_error(&e.into()),
    }
}

/// After a password change: starts a new session under `account`'s new credential version for
/// this browser, then ends every other session of the account, the one that asked included,
/// and shows the account page with the new cookie. The password has changed whatever fails
/// here, and every older session is refused by its version already; so a failure to start the
/// new session asks for a sign-in with the new password, and a failure to delete the old ones
/// is only logged.
async fn renew_session(state: &DashboardState, user: &SignedIn, account: &Account) -> Response {
    let dashboard = state.dashboard();
    let (id, session) = match open_session(dashboard, state.clock().now(), account).await {
        Ok(opened) => opened,
        Err(e) => {
            tracing::warn!(error = %e, "dashboard: no new session after a password change");
            return pages::error_page(
                StatusCode::OK,
                "Your password was changed",
                "Every session of this account was signed out, this one included. Sign in again \
                 with the new password.",
            );
        }
    };
    let sessions = &dashboard.ports.sessions;
    if let Err(e) = sessions.delete_session(&user.id_hash).await {
        tracing::warn!(error = %e, "dashboard: the session of a password change not deleted");
    }
    let ended = match sessions
        .delete_account_sessions(account.id, Some(&session.id_hash))
        .await
    {
        Ok(ended) => ended,
        Err(e) => {
            tracing::warn!(error = %e, "dashboard: older sessions not deleted; their version refuses them");
            0
        }
    };
    let renewed = SignedIn {
        account: session.account_id,
        email: user.email.clone(),
        csrf: session.csrf_secret,
        id_hash: session.id_hash,
    };
    let cookie = dashboard.set_cookie(dashboard.session_cookie(), id, SESSION_LIFETIME);
    let page = render(
        &renewed,
        StatusCode::OK,
        Some(&format!(
            "Your password was changed, and {} signed out. This browser stays signed in with \
             a new session.",
            sessions_ended(ended)
        )),
        None,
    );
    (cookie, page).into_response()
}

/// Ends every session of the account but this one.
pub(crate) async fn end_sessions(
    State(state): State<DashboardState>,
    Action { user, .. }: Action<NoFields>,
) -> Response {
    match end_other_sessions(&state, &user).await {
        Ok(ended) => render(
            &user,
            StatusCode::OK,
            Some(&format!(
                "{} signed out.",
                capitalise(&sessions_ended(ended))
            )),
            None,
        ),
        Err(page) => page,
    }
}

async fn end_other_sessions(state: &DashboardState, user: &SignedIn) -> Result<u64, Response> {
    let dashboard = state.dashboard();
    dashboard
        .ports
        .sessions
        .delete_account_sessions(user.account, Some(&user.id_hash))
        .await
        .map_err(|e| pages::store_error(&e))
}

fn sessions_ended(n: u64) -> String {
    match n {
        0 => "no other session was".to_owned(),
        1 => "1 other session was".to_owned(),
        n => format!("{n} other sessions were"),
    }
}

fn render(
    user: &SignedIn,
    status: StatusCode,
    notice: Option<&str>,
    error: Option<&str>,
) -> Response {
    pages::page(
        status,
        layout("Account", Some(user), &body(user, notice, error)),
    )
}

fn body(user: &SignedIn, notice: Option<&str>, error: Option<&str>) -> Markup {
    html! {
        @if let Some(notice) = notice {
            p.notice #account-notice role="status" { (notice) }
        }
        p { "Signed in as " strong { (user.email) } "." }
        section #password {
            h2 { "Change your password" }
            (form_error(error))
            form.card method="post" action="/dashboard/account/password" data-inplace="" {
                input type="hidden" name="csrf" value=(user.csrf);
                label for="current_password" { "Current password" }
                input #current_password type="password" name="current_password" required
                    autocomplete="current-password";
                label for="new_password" { "New password" }
                input #new_password type="password" name="new_password" required
                    minlength=(MIN_PASSWORD_CHARS) autocomplete="new-password";
                p.hint { "At least " (MIN_PASSWORD_CHARS) " characters. Every session of this account is signed out; this browser gets a new one." }
                button type="submit" { "Change password" }
            }
        }
        section #sessions {
            h2 { "Sessions" }
            p.hint { "Signed in on another device, or left a session open somewhere? End every session of this account but this one." }
            form method="post" action="/dashboard/account/sessions" data-inplace="" {
                input type="hidden" name="csrf" value=(user.csrf);
                button.danger type="submit" { "End all other sessions" }
            }
        }
    }
}
