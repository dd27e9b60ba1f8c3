//! The API keys page: create (the key shown once), label, revoke, list.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{DateTime, Utc};
use identity_core::manage::{CreatedKey, IdentityError};
use identity_core::ports::ApiKeyInfo;
use maud::{Markup, html};
use serde::Deserialize;

use super::SignedIn;
use super::extract::{Action, KeyAction, NoFields};

use super::pages::{self, capitalise, form_error, layout, manage_error};
use crate::DashboardState;

/// The create-key and rename forms.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct LabelForm {
    #[serde(default)]
    label: String,
}

pub(crate) async fn home(
    State(state): State<DashboardState>,
    headers: axum::http::HeaderMap,
) -> Response {
    let dashboard = state.dashboard();
    // A stale cookie is caught by the keys page, which sends the browser on to sign in.
    if super::cookie(&headers, dashboard.session_cookie()).is_some() {
        Redirect::to("/dashboard/keys").into_response()
    } else {
        Redirect::to("/dashboard/signin").into_response()
    }
}

pub(crate) async fn list(State(state): State<DashboardState>, user: SignedIn) -> Response {
    render(&state, &user, StatusCode::OK, None, "", None).await
}

pub(crate) async fn create(
    State(state): State<DashboardState>,
    Action { user, form }: Action<LabelForm>,
) -> Response {
    let dashboard = state.dashboard();
    match dashboard
        .ports
        .manager
        .identity()
        .create_key(user.account, &form.label)
        .await
    {
        // The page is answered directly rather than redirected: the key's text exists only in
        // this response.
        Ok(created) => render(&state, &user, StatusCode::CREATED, Some(&created), "", None).await,
        Err(IdentityError::Store(e)) => pages::store_error(&e),
        Err(e @ IdentityError::TooManyKeys { .. }) => {
            let message = format!("{}.", capitalise(&e.to_string()));
            render(
                &state,
                &user,
                StatusCode::CONFLICT,
                None,
                &form.label,
                Some(&message),
            )
            .await
        }
        Err(e) => {
            let message = label_refusal(&e);
            render(
                &state,
                &user,
                StatusCode::UNPROCESSABLE_ENTITY,
                None,
                &form.label,
                Some(&message),
            )
            .await
        }
    }
}

pub(crate) async fn revoke(
    State(state): State<DashboardState>,
    KeyAction { user, key, .. }: KeyAction<NoFields>,
) -> Response {
    let dashboard = state.dashboard();
    match dashboard
        .ports
        .manager
        .identity()
        .revoke_key(user.account, key.id)
        .await
    {
        Ok(()) => Redirect::to("/dashboard/keys").into_response(),
        Err(e) => manage_error(&e.into()),
    }
}

pub(crate) async fn rename(
    State(state): State<DashboardState>,
    KeyAction { user, key, form }: KeyAction<LabelForm>,
) -> Response {
    let dashboard = state.dashboard();
    match dashboard
        .ports
        .manager
        .identity()
        .rename_key(user.account, key.id, &form.label)
        .await
    {
        Ok(()) => Redirect::to("/dashboard/keys").into_response(),
        Err(e @ IdentityError::Label(_)) => {
            let message = label_refusal(&e);
            render(
                &state,
                &user,
                StatusCode::UNPROCESSABLE_ENTITY,
                None,
                "",
                Some(&message),
            )
            .await
        }
        Err(e) => manage_error(&e.into()),
    }
}

fn when(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

fn key_row(user: &SignedIn, key: &ApiKeyInfo) -> Markup {
    html! {
        tr {
            td data-label="Label" {
                @if key.revoked_at.is_none() {
                    form method="post" action="/dashboard/keys/label" data-inplace="Label saved." {
                        input type="hidden" name="csrf" value=(user.csrf);
                        input type="hidden" name="key" value=(key.id.0);
                        input type="text" name="label" value=(key.label) aria-label="Label" maxlength="100";
                        button.secondary type="submit" { "Rename" }
                    }
                } @else {
                    (key.label)
                }
            }
            td data-label="Prefix" { code { (key.prefix) } }
            td data-label="Created" { (when(key.created_at)) }
            td data-label="Last used" {
                @match key.last_used_at {
                    Some(t) => (when(t)),
                    None => "never",
                }
            }
            td data-label="Status" {
                @match key.revoked_at {
                    Some(t) => { "revoked " (when(t)) },
                    None => {
                        form method="post" action="/dashboard/keys/revoke" data-inplace="Key revoked: requests with it are refused from now on." {
                            input type="hidden" name="csrf" value=(user.csrf);
                            input type="hidden" name="key" value=(key.id.0);
                            button.danger type="submit" { "Revoke" }
                        }
                    },
                }
            }
        }
    }
}

async fn render(
    state: &DashboardState,
    user: &SignedIn,
    status: StatusCode,
    created: Option<&CreatedKey>,
    label: &str,
    error: Option<&str>,
) -> Response {
    let dashboard = state.dashboard();
    let keys = match dashboard
        .ports
        .manager
        .identity()
        .list_keys(user.account)
        .await
    {
        Ok(keys) => keys,
        Err(e) => return manage_error(&e.into()),
    };
    let body = html! {
        @if let Some(created) = created {
            section.notice #new-key {
                p { "Your new key " strong { (created.info.label) } ". Copy it now: it is shown only once." }
                code.key #new-key-text { (created.key.expose()) }
                button.secondary type="button" data-copy="new-key-text" { "Copy" }
                p { "Try it: this asks for the air at Berlin now." }
                pre.sample {
                    code #new-key-curl {
                        "curl -s \"" span data-origin { "http://127.0.0.1:8080" }
                        "/insights/v1/conditions?lat=52.52&lon=13.40\" -H \"X-Api-Key: "
                        (created.key.expose()) "\""
                    }
                }
                button.secondary type="button" data-copy="new-key-curl" { "Copy the command" }
                p { "Next: " a href="/dashboard/alerts" { "set the key's webhook" } ", then "
                    a href="/dashboard/rules" { "add an alert rule" } ". "
                    a href="/insights/v1/docs" { "The API reference" } " lists every operation." }
            }
        }
        (form_error(error))
        form.card method="post" action="/dashboard/keys" data-inplace="" {
            input type="hidden" name="csrf" value=(user.csrf);
            label for="label" { "Label of a new key" }
            input #label type="text" name="label" value=(label) placeholder="production" maxlength="100" required;
            // In place, the new key (shown once) takes the focus.
            button type="submit" data-focus="new-key" { "Create key" }
        }
        section {
            @if keys.is_empty() {
                p { "No keys yet. Create one above to call the API." }
            } @else {
                table {
                    thead { tr { th { "Label" } th { "Prefix" } th { "Created" } th { "Last used" } th { "Status" } } }
                    tbody {
                        @for key in &keys { (key_row(user, key)) }
                    }
                }
            }
        }
    };
    pages::page(status, layout("API keys", Some(user), &body))
}

/// The account's keys that are not revoked: the ones alerts can be set up on. `Err` is the
/// page to answer when the store fails.
pub(crate) async fn live_keys(
    state: &DashboardState,
    user: &SignedIn,
) -> Result<Vec<ApiKeyInfo>, Response> {
    match state
        .dashboard()
        .ports
        .manager
        .identity()
        .list_keys(user.account)
        .await
    {
        Ok(keys) => Ok(keys
            .into_iter()
            .filter(|k| k.revoked_at.is_none())
            .collect()),
        Err(e) => Err(manage_error(&e.into())),
    }
}

/// What the form says when a label is refused: why, and what a good label looks like.
fn label_refusal(e: &impl std::fmt::Display) -> String {
    format!(
        "{}. Give the key a label of up to 100 characters, such as \"production\".",
        capitalise(&e.to_string())
    )
}
