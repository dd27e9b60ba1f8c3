//! `GET /insights/v1/alert-backtest`: a rule replayed over past days, its refusals, and its
//! answers against the served document.

use aq_core::air_hour::hour_of;
use aq_core::{CleanlinessIndex, Position};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;

use crate::openapi::{assert_valid, document};
use crate::support::{App, app, send};

const PLACE: (f64, f64) = (13.4, 52.5);

async fn get(app: &App, query: &str) -> (StatusCode, Value) {
    send(
        app,
        Request::get(format!("/insights/v1/alert-backtest?{query}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await
}

/// A week of clean air (70) at the place with two dips: 45 for five hours from 38 hours ago, and
/// 58 for the one hour 21 hours ago.
fn store_week(app: &App) {
    let mut values = vec![70.0; 7 * 24];
    for v in &mut values[5 * 24 + 10..5 * 24 + 15] {
        *v = 45.0;
    }
    values[6 * 24 + 3] = 58.0;
    app.forecast.set_hourly(
        Position::new(PLACE.0, PLACE.1).unwrap(),
        values
            .into_iter()
            .map(|v| Some(CleanlinessIndex::new(v).unwrap()))
            .collect(),
    );
}

#[tokio::test]
async fn a_rule_replayed_over_three_days_finds_the_dip_that_lasted_and_not_the_wiggle() {
    let app = app().await;
    store_week(&app);
    let doc = document(&app).await;
    let query = format!(
        "key={}&rule={}&lat={}&lon={}",
        app.key, app.rules[0], PLACE.1, PLACE.0
    );
    let (status, body) = get(&app, &query).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_valid(&doc, "BacktestResponse", &body);
    assert_eq!(body["evaluations"], 72);
    // The five-hour dip is told worse six hours before it (the rule's horizon) and better from
    // inside it. The one-hour wiggle is never told as worse air (High sensitivity, the default
    // two hours); from inside it, the clean hours that follow are better air to come.
    let episodes = body["episodes"].as_array().unwrap();
    let directions: Vec<&str> = episodes
        .iter()
        .map(|e| e["direction"].as_str().unwrap())
        .collect();
    assert_eq!(
        directions,
        ["deterioration", "improvement", "improvement"],
        "{body:#}"
    );
    let dip = hour_of(chrono::Utc::now()) - chrono::Duration::hours(38);
    assert_eq!(episodes[0]["startsAt"], serde_json::to_value(dip).unwrap());
    assert_eq!(
        episodes[0]["toldAt"],
        serde_json::to_value(dip - chrono::Duration::hours(6)).unwrap()
    );
    assert_eq!(
        (&episodes[0]["peak"], &episodes[0]["peakCategory"]),
        (&45.into(), &"Moderate".into())
    );
    assert_eq!(body["alertsOnce"], 3);
    assert_eq!(
        body["alerts"], body["alertsEvery"],
        "the rule repeats every request"
    );
    assert!(body["alertsEvery"].as_u64().unwrap() > 2, "{body:#}");
    let to = hour_of(chrono::Utc::now());
    assert_eq!(body["to"], serde_json::to_value(to).unwrap());
    // One day back the dip is out of reach: only the better air after the wiggle is left.
    let (_, one_day) = get(&app, &format!("{query}&days=1")).await;
    assert_eq!(one_day["evaluations"], 24);
    let left: Vec<&Value> = one_day["episodes"].as_array().unwrap().iter().collect();
    assert_eq!(left.len(), 1, "{one_day:#}");
    assert_eq!(left[0]["direction"], "improvement");
}

#[tokio::test]
async fn each_refusal_names_its_parameter_and_matches_the_document() {
    let app = app().await;
    let doc = document(&app).await;
    let place = format!("lat={}&lon={}", PLACE.1, PLACE.0);
    let cases = [
        (
            format!("key={}&{place}", app.key),
            StatusCode::BAD_REQUEST,
            "rule: missing",
        ),
        (
            format!("key={}&rule=x&{place}", app.key),
            StatusCode::BAD_REQUEST,
            "rule: `x` is not",
        ),
        (
            format!("key={}&rule={}&{place}", app.key, app.rules[1]),
            StatusCode::BAD_REQUEST,
            "rule: ",
        ),
        (
            format!("key={}&rule={}&{place}&days=8", app.key, app.rules[0]),
            StatusCode::BAD_REQUEST,
            "days: 8 is more than 7",
        ),
        (
            format!("key={}&rule={}&lon=0", app.key, app.rules[0]),
            StatusCode::BAD_REQUEST,
            "lat: missing",
        ),
        (
            format!(
                "key={}&rule=00000000-0000-0000-0000-000000000099&{place}",
                app.key
            ),
            StatusCode::NOT_FOUND,
            "rule: this key has no alert rule",
        ),
        // Another key's rule is not this key's.
        (
            format!("key={}&rule={}&{place}", app.bare_key, app.rules[0]),
            StatusCode::NOT_FOUND,
            "rule: this key has no alert rule",
        ),
        (
            format!("rule={}&{place}", app.rules[0]),
            StatusCode::UNAUTHORIZED,
            "",
        ),
    ];
    for (query, status, detail) in cases {
        let (got, body) = get(&app, &query).await;
        assert_eq!(got, status, "{query}: {body}");
        assert!(
            body["error"]["detail"]
                .as_str()
                .unwrap_or_default()
                .starts_with(detail),
            "{query}: {body}"
        );
        assert_valid(&doc, "ErrorEnvelope", &body);
    }
    let (_, body) = get(
        &app,
        &format!("key={}&rule={}&{place}", app.key, app.rules[1]),
    )
    .await;
    assert!(
        body["error"]["detail"].as_str().unwrap().contains("pollen"),
        "{body}"
    );
    let op = &doc["paths"]["/insights/v1/alert-backtest"]["get"];
    assert!(op["responses"]["404"].is_object());
    let names: Vec<&str> = op["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["lat", "lon", "rule", "days"]);
}
