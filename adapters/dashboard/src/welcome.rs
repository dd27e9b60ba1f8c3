//! The welcome page: where a new account lands after sign-up, and the "Start" of the
//! navigation. Three steps to a delivered alert, each ticked off when the account has done it,
//! and the other ways in (the playground, the API reference).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use maud::{Markup, html};

use super::SignedIn;
use super::pages::{self, layout, manage_error};
use crate::DashboardState;

/// One step: what to do, where, and whether it is done.
struct Step {
    done: bool,
    title: &'static str,
    link: &'static str,
    action: &'static str,
    why: &'static str,
}

pub(crate) async fn page(State(state): State<DashboardState>, user: SignedIn) -> Response {
    let manager = &state.dashboard().ports.manager;
    let keys = match super::keys::live_keys(&state, &user).await {
        Ok(keys) => keys,
        Err(page) => return page,
    };
    // Alerts arrive only when one key has both a webhook and an enabled rule.
    let mut ready = false;
    for key in keys.iter().filter(|k| k.webhook_url.is_some()) {
        match manager.list_rules(user.account, key.id).await {
            Ok(rules) if rules.iter().any(|r| r.enabled) => {
                ready = true;
                break;
            }
            Ok(_) => {}
            Err(e) => return manage_error(&e),
        }
    }
    let steps = [
        Step {
            done: !keys.is_empty(),
            title: "Create an API key",
            link: "/dashboard/keys",
            action: "API keys",
            why: "Every API request names one; the page shows it once, with a command to try it.",
        },
        Step {
            done: keys.iter().any(|k| k.webhook_url.is_some()),
            title: "Set the key's webhook",
            link: "/dashboard/alerts",
            action: "Webhook",
            why: "Alerts are delivered to this URL, signed; send a test delivery to check it.",
        },
        Step {
            done: ready,
            title: "Add an alert rule",
            link: "/dashboard/rules",
            action: "Alert rules",
            why: "An enabled rule on the key with the webhook says which change of air or pollen to tell about; the page previews its message and replays it on the past days.",
        },
    ];
    let body = html! {
        p { "Two products on one API: alerts when the air or the pollen at your users' places is about to change, and scores of routes by the air along them." }
        ol.steps {
            @for step in &steps { (step_item(step)) }
        }
        p { "Then post points to " code { "POST /insights/v1/cleanest-route" } " with the key; "
            a href="/dashboard/deliveries" { "Deliveries" } " shows each request and its webhook calls." }
        p { "Scoring routes instead? Try the " a href="/dashboard/playground" { "route playground" }
            ". Every operation is in " a href="/insights/v1/docs" { "the API reference" } "." }
    };
    pages::page(StatusCode::OK, layout("Welcome", Some(&user), &body))
}

fn step_item(step: &Step) -> Markup {
    html! {
        li.done[step.done] {
            strong { (step.title) }
            @if step.done { " " span.badge { "done" } }
            br;
            (step.why) " "
            a href=(step.link) { (step.action) }
        }
    }
}
