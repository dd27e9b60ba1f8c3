//! The best departure of a departure window as the server recommends it: a later departure
//! only for a gain of at least `min_departure_gain`, and an honest count of the departures
//! that could not be scored when the source fails for them.

use std::net::SocketAddr;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde_json::{Value, json};

use crate::harness::{Deployment, Key, Server, client, post_json};
use crate::lookups::this_hour;

/// One walk of about 1.7 km in Berlin, `minutes` long.
fn body(departure: &str, minutes: u32) -> Value {
    json!({"routes": [{"id": "a", "routeDuration": minutes, "polyline": [
            [13.3350, 52.5070], [13.3450, 52.5100], [13.3550, 52.5130], [13.3560, 52.5160]]}],
           "durationUnits": "m", "routesSort": "original", "departureTime": departure,
           "departureWindowMinutes": 240, "departureStepMinutes": 20})
}

/// The `BestDepartureTime` recommendation and the route's RACS at `departureTime`, for a
/// route of `minutes`.
async fn best_departure(server: &Server, key: &Key, departure: &str, minutes: u32) -> (Value, u64) {
    let reply = post_json(&client(), server, &key.key, &body(departure, minutes)).await;
    let response = reply.json();
    assert_eq!(reply.status, 200, "{response}");
    let best = response["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["code"] == "BestDepartureTime")
        .cloned()
        .unwrap_or_else(|| panic!("no BestDepartureTime: {response}"));
    let racs = response["racss"][0]["RACS"].as_u64().unwrap();
    (best, racs)
}

/// The RACS a recommendation's text states: "... for a RACS of 71, ...".
fn stated_racs(best: &Value) -> u64 {
    let text = best["text"].as_str().unwrap();
    let after = text.split("for a RACS of ").nth(1).unwrap();
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

fn server_with_gain(gain: u8) -> (Deployment, Key, Server) {
    let deployment = Deployment::new().config(&format!("min_departure_gain = {gain}\n"));
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    (deployment, key, server)
}

#[tokio::test]
async fn a_later_departure_is_recommended_only_for_the_configured_minimum_gain() {
    // With no minimum, find a departure time at which leaving later is strictly cleaner.
    let (_any, key, server) = server_with_gain(0);
    let mut found = None;
    for hour in 0..24 {
        let departure = format!("2026-05-01T{hour:02}:00:00Z");
        let (best, racs) = best_departure(&server, &key, &departure, 20).await;
        if best["additionalData"]["value"] != format!("2026-05-01T{hour:02}:00:00.000Z") {
            let gain = stated_racs(&best) - racs;
            assert!(gain > 0, "a later departure must be cleaner: {best}");
            found = Some((departure, best, gain));
            break;
        }
    }
    let (departure, later, gain) = found.expect("the demo field changes over a day");
    let gain = u8::try_from(gain).unwrap();

    // A minimum of exactly that gain still recommends it.
    let (_at, key, server) = server_with_gain(gain);
    let (best, _) = best_departure(&server, &key, &departure, 20).await;
    assert_eq!(best["additionalData"], later["additionalData"], "{best}");
    assert!(
        best["text"]
            .as_str()
            .unwrap()
            .contains(&format!("{gain} more than leaving at")),
        "{best}"
    );

    // One point more, and leaving at departureTime is recommended, saying why.
    let (_above, key, server) = server_with_gain(gain + 1);
    let (best, racs) = best_departure(&server, &key, &departure, 20).await;
    let value = departure.replace(":00Z", ":00.000Z");
    assert_eq!(best["additionalData"]["value"], value.as_str(), "{best}");
    assert_eq!(stated_racs(&best), racs, "{best}");
    assert!(
        best["text"].as_str().unwrap().contains(&format!(
            "no later departure in the next 240 minutes scores {} or more higher",
            gain + 1
        )),
        "{best}"
    );
}

#[test]
fn a_minimum_gain_beyond_the_racs_scale_stops_the_server_naming_the_setting() {
    let deployment = Deployment::new().config("min_departure_gain = 101\n");
    let out = deployment.run(&["serve"]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("min_departure_gain is 101; it must be at most 100"),
        "{said}"
    );
}

// --- A source that fails for later hours ------------------------------------------------------

#[derive(serde::Deserialize)]
struct AirQualityQuery {
    latitude: String,
    start_hour: String,
    end_hour: String,
}

fn parse_hour(s: &str) -> DateTime<Utc> {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")
        .unwrap()
        .and_utc()
}

/// Answers like Open-Meteo's air-quality API for hours up to the one in its state, and fails
/// with 503 for any request reaching past it.
async fn failing_after(
    State(last): State<DateTime<Utc>>,
    Query(q): Query<AirQualityQuery>,
) -> Response {
    let (start, end) = (parse_hour(&q.start_hour), parse_hour(&q.end_hour));
    if end > last {
        return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
    }
    let times: Vec<i64> = (start.timestamp()..=end.timestamp())
        .step_by(3600)
        .collect();
    let location = |_: &str| {
        let column = |v: f64| vec![json!(v); times.len()];
        json!({"hourly_units": {"pm2_5": "µg/m³", "nitrogen_dioxide": "µg/m³"},
               "hourly": {"time": times, "pm2_5": column(12.0),
                          "nitrogen_dioxide": column(25.0)}})
    };
    let locations: Vec<Value> = q.latitude.split(',').map(location).collect();
    axum::Json(if locations.len() == 1 {
        locations[0].clone()
    } else {
        Value::Array(locations)
    })
    .into_response()
}

async fn start_failing_after(last: DateTime<Utc>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new()
        .route("/v1/air-quality", axum::routing::get(failing_after))
        .with_state(last);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test]
async fn later_departures_the_source_fails_for_are_counted_as_not_scored() {
    // The route leaves on the hour and takes 5 minutes: every sample reads that hour (the
    // source answers the nearest hour). Departures from 40 minutes on read the next hours,
    // which the source fails for.
    let departure = this_hour();
    let fake = start_failing_after(departure).await;
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&["--aq-source", &format!("open-meteo:http://{fake}")]);
    let text = departure.to_rfc3339();
    let (best, racs) = best_departure(&server, &key, &text, 5).await;
    let said = best["text"].as_str().unwrap();
    // 12 later departures (240 minutes in steps of 20): only the one at +20 minutes, whose
    // samples round to the departure's hour, could be scored; it is no cleaner.
    assert!(
        said.contains("11 of the 12 later departures could not be scored"),
        "{best}"
    );
    assert!(
        said.contains("no later departure that could be scored is 5 or more higher"),
        "{best}"
    );
    assert!(
        !said.contains("no later departure in the next"),
        "never claims to have looked where it could not: {best}"
    );
    assert_eq!(stated_racs(&best), racs);
}
