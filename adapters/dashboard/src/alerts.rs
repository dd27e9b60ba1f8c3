//! The webhook page: the key to apply alerts to, its webhook URL, its signing secret, and a
//! test delivery, recorded for the deliveries page.

use alerts_core::ids::Token;
use alerts_core::manage::{DEFAULT_SECRET_GRACE, ManageError};
use alerts_core::ports::{TestDelivery, WebhookResponse};
use alerts_core::webhook::{HEADER_TEST, message_id, signed_request};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use bytes::Bytes;
use identity_core::ids::KeyId;
use identity_core::ports::ApiKeyInfo;
use maud::{Markup, html};
use serde::Deserialize;

use super::SignedIn;
use super::extract::{ChosenKey, KeyAction, NoFields};
use super::limits::{TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE, Verdict};
use super::pages::capitalise;
use super::pages::{self, form_error, layout};
use super::pages::{manage_error, unknown_key};
use crate::DashboardState;

/// The webhook form.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct WebhookForm {
    #[serde(default)]
    url: String,
}

/// What the page shows besides the key's settings.
#[derive(Default)]
struct Extra<'a> {
    notice: Option<Markup>,
    url_typed: Option<&'a str>,
    error: Option<&'a str>,
}

pub(crate) fn settings_path(key: KeyId) -> String {
    format!("/dashboard/alerts?key={}", key.0)
}

pub(crate) async fn page(
    State(state): State<DashboardState>,
    user: SignedIn,
    ChosenKey(chosen): ChosenKey,
) -> Response {
    render(&state, &user, chosen, StatusCode::OK, Extra::default()).await
}

pub(crate) async fn save_webhook(
    State(state): State<DashboardState>,
    KeyAction {
        user,
        key: info,
        form,
    }: KeyAction<WebhookForm>,
) -> Response {
    let dashboard = state.dashboard();
    let key = info.id;
    match dashboard
        .ports
        .manager
        .set_webhook_url(user.account, key, Some(&form.url))
        .await
    {
        Ok(_) => Redirect::to(&settings_path(key)).into_response(),
        Err(ManageError::WebhookUrl(why)) => {
            let message = format!(
                "{}. Enter the https:// address where your server receives the alerts.",
                capitalise(&why)
            );
            let extra = Extra {
                url_typed: Some(&form.url),
                error: Some(&message),
                notice: None,
            };
            render(
                &state,
                &user,
                Some(key),
                StatusCode::UNPROCESSABLE_ENTITY,
                extra,
            )
            .await
        }
        Err(e) => manage_error(&e),
    }
}

pub(crate) async fn rotate(
    State(state): State<DashboardState>,
    KeyAction {
        user, key: info, ..
    }: KeyAction<NoFields>,
) -> Response {
    let dashboard = state.dashboard();
    let key = info.id;
    match dashboard
        .ports
        .manager
        .rotate_secret(user.account, key, DEFAULT_SECRET_GRACE)
        .await
    {
        Ok(_) => Redirect::to(&settings_path(key)).into_response(),
        Err(e) => manage_error(&e),
    }
}

pub(crate) async fn test_delivery(
    State(state): State<DashboardState>,
    KeyAction {
        user, key: info, ..
    }: KeyAction<NoFields>,
) -> Response {
    let dashboard = state.dashboard();
    let key = info.id;
    let verdict = dashboard
        .account_limits
        .test_delivery(user.account, dashboard.ports.clock.now())
        .await;
    if verdict == Verdict::Unavailable {
        return crate::limits_unavailable();
    }
    if verdict != Verdict::Allowed {
        let message = format!(
            "You have sent {TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE} test deliveries this minute. \
             Wait a minute and send the test again."
        );
        let extra = Extra {
            error: Some(&message),
            ..Extra::default()
        };
        return render(
            &state,
            &user,
            Some(key),
            StatusCode::TOO_MANY_REQUESTS,
            extra,
        )
        .await;
    }
    let (Some(url), Some(sender)) = (info.webhook_url.as_deref(), dashboard.ports.sender.as_ref())
    else {
        let message = if info.webhook_url.is_none() {
            "This key has no webhook URL yet. Save one above, then send the test."
        } else {
            "This server cannot send test deliveries. Post points with the key instead."
        };
        let extra = Extra {
            error: Some(message),
            ..Extra::default()
        };
        return render(&state, &user, Some(key), StatusCode::CONFLICT, extra).await;
    };
    let token = Token(dashboard.ports.ids.new_id());
    let at = state.clock().now();
    // A test carries no file: receivers can tell it apart by `TEST` and the empty URL, and
    // verify its signature exactly like a real delivery's.
    let body = serde_json::json!({
        "KEY": info.prefix,
        "TOKEN": token,
        "URL": "",
        "TEST": true,
    });
    let body = Bytes::from(serde_json::to_vec(&body).unwrap_or_default());
    let mut request = signed_request(
        url,
        [&info.secret],
        &message_id(token),
        at.timestamp(),
        body,
    );
    request
        .headers
        .push((HEADER_TEST.to_owned(), "true".to_owned()));
    let response = sender.send(&request).await;
    let test = TestDelivery {
        token,
        key,
        at,
        url: url.to_owned(),
        status: response.status,
        latency_ms: u64::try_from(response.latency.as_millis()).unwrap_or(u64::MAX),
        error: response.error,
    };
    // The receiver has had the test whether or not it is recorded: its result is shown either
    // way, and only the deliveries list goes without it.
    let recorded = match dashboard.ports.deliveries.record_test(&test).await {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(error = %e, "dashboard: a test delivery was sent but not recorded");
            false
        }
    };
    let notice = html! {
        (test_result(url, &response))
        @if recorded {
            p.hint {
                "Tests are listed on the "
                a href=(format!("/dashboard/deliveries?key={}", key.0)) { "Deliveries" }
                " page, marked as tests."
            }
        }
    };
    let extra = Extra {
        notice: Some(notice),
        ..Extra::default()
    };
    render(&state, &user, Some(key), StatusCode::OK, extra).await
}

fn test_result(url: &str, response: &WebhookResponse) -> Markup {
    let latency = response.latency.as_millis();
    html! {
        @match (response.error, response.status) {
            (None, status) => {
                p.notice #test-result {
                    "Test delivery to " code { (url) } " succeeded: HTTP "
                    (status.map_or_else(String::new, |s| s.to_string())) " in " (latency) " ms."
                }
            }
            (Some(kind), status) => {
                p.error #test-result {
                    "Test delivery to " code { (url) } " failed ("
                    (super::activity::failure_name(kind))
                    @if let Some(status) = status { ", HTTP " (status) }
                    ", " (latency) " ms). Check that your receiver is running, answers 2xx and is reachable from this server, then try again."
                }
            }
        }
    }
}

fn key_choice(keys: &[ApiKeyInfo], chosen: Option<KeyId>) -> Markup {
    html! {
        form.card method="get" action="/dashboard/alerts" {
            label for="key" { "API key for applying alerts" }
            select #key name="key" {
                @for key in keys {
                    option value=(key.id.0) selected[Some(key.id) == chosen] {
                        (key.label) " (" (key.prefix) ")"
                    }
                }
            }
            button.secondary type="submit" { "Show settings" }
            p.hint { "Need another key? " a href="/dashboard/keys" { "Create a key" } }
        }
    }
}

fn key_settings(user: &SignedIn, key: &ApiKeyInfo, extra: &Extra<'_>) -> Markup {
    let url = extra
        .url_typed
        .map(str::to_owned)
        .or_else(|| key.webhook_url.clone())
        .unwrap_or_default();
    html! {
        section #webhook {
            h2 { "Webhook URL" }
            (form_error(extra.error))
            form method="post" action="/dashboard/alerts/webhook" data-inplace="Webhook URL saved." {
                input type="hidden" name="csrf" value=(user.csrf);
                input type="hidden" name="key" value=(key.id.0);
                label for="url" { "Where alerts for " (key.label) " are delivered" }
                input #url type="url" name="url" value=(url) placeholder="https://example.org/insights-webhook";
                p.hint { "Leave empty and save to stop deliveries." }
                button type="submit" { "Save webhook URL" }
            }
        }
        section #secret {
            h2 { "Signing secret" }
            p.hint { "Deliveries are signed with this secret (Standard Webhooks). After a rotation the previous secret keeps signing for 24 hours." }
            code.key #secret-text { (key.secret.expose()) }
            button.secondary type="button" data-copy="secret-text" { "Copy" }
            form method="post" action="/dashboard/alerts/rotate" data-inplace="Secret rotated: the previous one keeps signing for 24 hours." {
                input type="hidden" name="csrf" value=(user.csrf);
                input type="hidden" name="key" value=(key.id.0);
                button.secondary type="submit" { "Rotate secret" }
            }
        }
        section #test {
            h2 { "Test delivery" }
            @if let Some(notice) = &extra.notice { (notice) }
            form method="post" action="/dashboard/alerts/test" data-inplace="" {
                input type="hidden" name="csrf" value=(user.csrf);
                input type="hidden" name="key" value=(key.id.0);
                button.secondary type="submit" { "Send a test delivery" }
            }
        }
    }
}

async fn render(
    state: &DashboardState,
    user: &SignedIn,
    chosen: Option<KeyId>,
    status: StatusCode,
    extra: Extra<'_>,
) -> Response {
    let dashboard = state.dashboard();
    let keys: Vec<ApiKeyInfo> = match dashboard
        .ports
        .manager
        .identity()
        .list_keys(user.account)
        .await
    {
        Ok(keys) => keys
            .into_iter()
            .filter(|k| k.revoked_at.is_none())
            .collect(),
        Err(e) => return manage_error(&e.into()),
    };
    let current = match chosen {
        Some(id) => match keys.iter().find(|k| k.id == id) {
            Some(key) => Some(key),
            None => return unknown_key(),
        },
        None => keys.first(),
    };
    let body = html! {
        @if let Some(key) = current {
            (key_choice(&keys, Some(key.id)))
            (key_settings(user, key, &extra))
        } @else {
            p { "Alerts are applied to an API key. You have none yet: "
                a href="/dashboard/keys" { "create a key" } " first." }
        }
    };
    pages::page(status, layout("Webhook", Some(user), &body))
}
