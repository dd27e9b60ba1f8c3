//! Deliveries: charts of a key's activity, its latest requests with their attempts, and a
//! redeliver button.

use alerts_core::ids::Token;
use alerts_core::ports::{DeliveryAttempt, JobOutcome, JobStage, RequestSummary};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use identity_core::ids::KeyId;
use identity_core::ports::ApiKeyInfo;
use maud::{Markup, html};
use serde::Deserialize;
use uuid::Uuid;

use super::extract::{ChosenKey, KeyAction};
use super::pages::{self, layout};
use super::pages::{manage_error, unknown_key};
use super::{SignedIn, activity};
use crate::DashboardState;

/// How many requests the page lists.
const LATEST: usize = 50;

/// The redeliver form.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RedeliverForm {
    #[serde(default)]
    token: String,
}

pub(crate) async fn page(
    State(state): State<DashboardState>,
    user: SignedIn,
    ChosenKey(chosen): ChosenKey,
) -> Response {
    render(&state, &user, chosen).await
}

pub(crate) async fn redeliver(
    State(state): State<DashboardState>,
    KeyAction { key, form, .. }: KeyAction<RedeliverForm>,
) -> Response {
    let dashboard = state.dashboard();
    let key = key.id;
    let Some(token) = Uuid::parse_str(form.token.trim()).ok().map(Token) else {
        return unknown_request();
    };
    match dashboard
        .ports
        .jobs
        .redeliver(key, token, state.clock().now())
        .await
    {
        Ok(()) => Redirect::to(&format!("/dashboard/deliveries?key={}", key.0)).into_response(),
        Err(alerts_core::ports::StoreError::NotFound) => unknown_request(),
        Err(alerts_core::ports::StoreError::Conflict(_)) => pages::error_page(
            StatusCode::CONFLICT,
            "Still in progress",
            "This request is still being processed or delivered. Redeliver it once the list shows it finished.",
        ),
        Err(e) => pages::store_error(&e),
    }
}

fn unknown_request() -> Response {
    pages::error_page(
        StatusCode::NOT_FOUND,
        "No such delivery",
        "This request does not exist under the key, or its file was never written, so there is nothing to redeliver. Pick a request from the deliveries list.",
    )
}

fn status_of(request: &RequestSummary) -> &'static str {
    match (request.stage, request.outcome) {
        (JobStage::Evaluate, _) => "evaluating",
        (JobStage::Deliver, _) if request.attempts == 0 => "delivering",
        (JobStage::Deliver, _) => "retrying",
        (JobStage::Done, Some(JobOutcome::Delivered)) => "delivered",
        (JobStage::Done, Some(JobOutcome::Gone)) => "refused (410 Gone)",
        (JobStage::Done, Some(JobOutcome::GaveUp)) => "gave up",
        (JobStage::Done, Some(JobOutcome::Cancelled)) => "cancelled",
        (JobStage::Done, None) => "done",
    }
}

fn attempts_list(attempts: &[DeliveryAttempt]) -> Markup {
    html! {
        @if attempts.is_empty() {
            "none yet"
        } @else {
            ul.attempts {
                @for a in attempts {
                    li {
                        "#" (a.attempt) ": "
                        @match a.status { Some(s) => { "HTTP " (s) }, None => "no answer" }
                        @if let Some(kind) = a.error { " (" (super::activity::failure_name(kind)) ")" }
                        ", " (a.latency_ms) " ms"
                    }
                }
            }
        }
    }
}

async fn render(state: &DashboardState, user: &SignedIn, chosen: Option<KeyId>) -> Response {
    let dashboard = state.dashboard();
    let keys: Vec<ApiKeyInfo> = match dashboard
        .ports
        .manager
        .identity()
        .list_keys(user.account)
        .await
    {
        Ok(keys) => keys,
        Err(e) => return manage_error(&e.into()),
    };
    let key = match chosen {
        Some(id) if keys.iter().any(|k| k.id == id) => Some(id),
        Some(_) => return unknown_key(),
        None => keys
            .iter()
            .find(|k| k.revoked_at.is_none())
            .or(keys.first())
            .map(|k| k.id),
    };
    let Some(key) = key else {
        let body = html! {
            p { "Deliveries are listed per API key. You have none yet: "
                a href="/dashboard/keys" { "create a key" } " first." }
        };
        return pages::page(StatusCode::OK, layout("Deliveries", Some(user), &body));
    };
    let log = &dashboard.ports.deliveries;
    let requests = match log.list_requests(key, LATEST).await {
        Ok(requests) => requests,
        Err(e) => return pages::store_error(&e),
    };
    let mut rows = Vec::with_capacity(requests.len());
    for request in requests {
        match log.list_attempts(key, request.token).await {
            Ok(attempts) => rows.push((request, attempts)),
            Err(e) => return pages::store_error(&e),
        }
    }
    let charts = match activity::section(log.as_ref(), key, state.clock().now()).await {
        Ok(charts) => charts,
        Err(e) => return pages::store_error(&e),
    };
    let body = html! {
        form.card method="get" action="/dashboard/deliveries" {
            label for="key" { "API key" }
            select #key name="key" {
                @for k in &keys {
                    option value=(k.id.0) selected[k.id == key] { (k.label) " (" (k.prefix) ")" }
                }
            }
            button.secondary type="submit" { "Show deliveries" }
        }
        section #deliveries {
            @if rows.is_empty() {
                p { "No requests yet with this key. Post points to the API with it; each request shows here with its deliveries." }
            } @else {
                table {
                    thead { tr { th { "Received" } th { "Token" } th { "Points" } th { "Alerts" } th { "Status" } th { "Attempts" } th { "" } } }
                    tbody {
                        @for (request, attempts) in &rows {
                            tr.delivery {
                                td data-label="Received" { (request.received_at.format("%Y-%m-%d %H:%M:%S UTC")) }
                                td data-label="Token" { code { (request.token) } }
                                td data-label="Points" { (request.points) }
                                td data-label="Alerts" {
                                    @match request.alerts {
                                        Some(n) => {
                                            (n) " "
                                            a href=(format!("/dashboard/deliveries/alerts?key={}&token={}", key.0, request.token)) { "view" }
                                        },
                                        None => "–",
                                    }
                                }
                                td data-label="Status" { (status_of(request)) }
                                td data-label="Attempts" { (attempts_list(attempts)) }
                                td {
                                    @if request.alerts.is_some() && request.stage == JobStage::Done {
                                        form method="post" action="/dashboard/deliveries/redeliver" data-inplace="Queued for redelivery: the list shows its attempts." {
                                            input type="hidden" name="csrf" value=(user.csrf);
                                            input type="hidden" name="key" value=(key.0);
                                            input type="hidden" name="token" value=(request.token);
                                            button.secondary type="submit" { "Redeliver" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // The charts summarise what the list holds, so they come after it.
        (charts)
    };
    pages::page(StatusCode::OK, layout("Deliveries", Some(user), &body))
}
