//! Deliveries: a key's latest requests with their attempts and a redeliver button, and its
//! test deliveries among them, marked; then charts of the key's activity.

use alerts_core::ids::Token;
use alerts_core::ports::{DeliveryAttempt, JobOutcome, JobStage, RequestSummary, TestDelivery};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{DateTime, Utc};
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

/// How many rows the page lists: requests and test deliveries together.
const LATEST: usize = 50;

/// A row of the list before its attempts are read.
enum Listed {
    /// An alert request.
    Request(RequestSummary),
    /// A test delivery, whose one attempt it holds itself.
    Test(TestDelivery),
}

impl Listed {
    /// When it was received (a request) or sent (a test): the list's order.
    fn at(&self) -> DateTime<Utc> {
        match self {
            Self::Request(r) => r.received_at,
            Self::Test(t) => t.at,
        }
    }
}

/// A row of the list, as shown.
enum Row {
    /// An alert request and its attempts.
    Request(RequestSummary, Vec<DeliveryAttempt>),
    /// A test delivery.
    Test(TestDelivery),
}

/// The newest `LATEST` of `requests` and `tests` (each newest first), newest first.
fn newest(requests: Vec<RequestSummary>, tests: Vec<TestDelivery>) -> Vec<Listed> {
    let mut listed: Vec<Listed> = requests
        .into_iter()
        .map(Listed::Request)
        .chain(tests.into_iter().map(Listed::Test))
        .collect();
    // Stable: each list keeps its own order among rows of the same instant.
    listed.sort_by_key(|row| std::cmp::Reverse(row.at()));
    listed.truncate(LATEST);
    listed
}

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
                    li { "#" (a.attempt) ": " (attempt_result(a)) }
                }
            }
        }
    }
}

/// How an attempt ended: its status or why none came, and how long it took.
fn attempt_result(a: &DeliveryAttempt) -> Markup {
    html! {
        @match a.status { Some(s) => { "HTTP " (s) }, None => "no answer" }
        @if let Some(kind) = a.error { " (" (super::activity::failure_name(kind)) ")" }
        ", " (a.latency_ms) " ms"
    }
}

/// An alert request's row: its attempts, a link to its alerts once written, and the redeliver
/// button once it is finished.
fn request_row(
    user: &SignedIn,
    key: KeyId,
    request: &RequestSummary,
    attempts: &[DeliveryAttempt],
) -> Markup {
    html! {
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

/// A test delivery's row: marked as a test, with where it went and its one attempt, and
/// neither alerts nor a redeliver button, since it carries no file.
fn test_row(test: &TestDelivery) -> Markup {
    let attempt = DeliveryAttempt {
        token: test.token,
        attempt: 1,
        at: test.at,
        status: test.status,
        latency_ms: test.latency_ms,
        error: test.error,
    };
    html! {
        tr.delivery.test {
            td data-label="Received" { (test.at.format("%Y-%m-%d %H:%M:%S UTC")) }
            td data-label="Token" { code { (test.token) } }
            td data-label="Points" { "–" }
            td data-label="Alerts" { "–" }
            td data-label="Status" {
                span.badge { "Test" } " "
                @if test.error.is_none() { "delivered" } @else { "failed" }
            }
            td data-label="Attempts" {
                ul.attempts {
                    li { "#1 to " code { (test.url) } ": " (attempt_result(&attempt)) }
                }
            }
            td {}
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
    let tests = match log.list_tests(key, LATEST).await {
        Ok(tests) => tests,
        Err(e) => return pages::store_error(&e),
    };
    let listed = newest(requests, tests);
    let mut rows = Vec::with_capacity(listed.len());
    for row in listed {
        match row {
            Listed::Request(request) => match log.list_attempts(key, request.token).await {
                Ok(attempts) => rows.push(Row::Request(request, attempts)),
                Err(e) => return pages::store_error(&e),
            },
            Listed::Test(test) => rows.push(Row::Test(test)),
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
                p { "No requests yet with this key. Post points to the API with it; each request shows here with its deliveries, and so does each test delivery sent from the "
                    a href=(super::alerts::settings_path(key)) { "Webhook" } " page." }
            } @else {
                table {
                    thead { tr { th { "Received" } th { "Token" } th { "Points" } th { "Alerts" } th { "Status" } th { "Attempts" } th { "" } } }
                    tbody {
                        @for row in &rows {
                            @match row {
                                Row::Request(request, attempts) => { (request_row(user, key, request, attempts)) },
                                Row::Test(test) => { (test_row(test)) },
                            }
                        }
                    }
                }
            }
        }
        // The charts summarise the requests the list holds, so they come after it; test
        // deliveries are the receiver's checks, not the key's traffic, and stay out of them.
        (charts)
    };
    pages::page(StatusCode::OK, layout("Deliveries", Some(user), &body))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use identity_core::ids::KeyId;
    use uuid::Uuid;

    use super::*;

    fn at(second: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap() + chrono::Duration::seconds(second)
    }

    fn request(second: i64) -> RequestSummary {
        RequestSummary {
            token: Token(Uuid::new_v4()),
            received_at: at(second),
            points: 1,
            alerts: None,
            stage: JobStage::Evaluate,
            outcome: None,
            attempts: 0,
        }
    }

    fn test(second: i64) -> TestDelivery {
        TestDelivery {
            token: Token(Uuid::new_v4()),
            key: KeyId(Uuid::nil()),
            at: at(second),
            url: "https://hooks.example.org/in".to_owned(),
            status: Some(204),
            latency_ms: 1,
            error: None,
        }
    }

    #[test]
    fn requests_and_tests_are_merged_newest_first_and_bounded_together() {
        // Two seconds apart each, tests on the odd seconds: they interleave.
        let last = i64::try_from(LATEST).unwrap();
        let requests: Vec<_> = (0..last).rev().map(|i| request(2 * i)).collect();
        let tests: Vec<_> = (0..20)
            .rev()
            .map(|i| test(2 * (last - 20 + i) + 1))
            .collect();
        let listed = newest(requests, tests);
        assert_eq!(
            listed.len(),
            LATEST,
            "the page's bound holds for both together"
        );
        let times: Vec<_> = listed.iter().map(Listed::at).collect();
        assert!(times.windows(2).all(|w| w[0] > w[1]), "newest first");
        let kinds: String = listed
            .iter()
            .take(4)
            .map(|row| match row {
                Listed::Request(_) => 'r',
                Listed::Test(_) => 't',
            })
            .collect();
        assert_eq!(
            kinds, "trtr",
            "the newest of each kind, interleaved by time"
        );
        assert!(
            matches!(listed.last(), Some(Listed::Request(r)) if r.received_at == at(2 * (last - 30))),
            "the oldest requests make room for the tests"
        );
    }
}
