//! Operation 2, scoring routes, against the demo field.

use std::collections::HashSet;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::harness::{Deployment, Key, Server, client, post_json};

struct Shared {
    _deployment: Deployment,
    server: Server,
    key: Key,
}

/// One server and key for the module: scoring keeps no state between requests.
fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let deployment = Deployment::new().keep_until_exit();
        let key = deployment.new_key();
        let server = deployment.serve(&[]);
        Shared {
            _deployment: deployment,
            server,
            key,
        }
    })
}

/// Three walks from Zoologischer Garten to the Brandenburg Gate with vertices a few hundred
/// metres apart, as `[lon, lat]` arrays with numeric-looking ids, the spec's sample shape.
fn scorable_routes() -> Vec<Value> {
    vec![
        json!({"id": "1", "routeDuration": 35, "polyline": [
            [13.3350, 52.5070], [13.3400, 52.5120], [13.3450, 52.5150], [13.3500, 52.5163],
            [13.3600, 52.5163], [13.3700, 52.5163], [13.3777, 52.5163]]}),
        json!({"id": "2", "routeDuration": 36, "polyline": [
            [13.3350, 52.5070], [13.3420, 52.5110], [13.3500, 52.5125], [13.3600, 52.5130],
            [13.3700, 52.5135], [13.3740, 52.5150], [13.3777, 52.5163]]}),
        json!({"id": "3", "routeDuration": 52, "polyline": [
            [13.3350, 52.5070], [13.3450, 52.5060], [13.3550, 52.5060], [13.3650, 52.5070],
            [13.3700, 52.5100], [13.3740, 52.5130], [13.3777, 52.5163]]}),
    ]
}

/// The same trip as one straight segment of about 3 km: more than the 2 km a segment may
/// span, so too coarse to score. Its id is a JSON number.
fn coarse_route() -> Value {
    json!({"id": 4, "routeDuration": 30, "polyline": [[13.3350, 52.5070], [13.3777, 52.5163]]})
}

fn request(routes: Vec<Value>, sort: &str) -> Value {
    json!({"routes": routes, "durationUnits": "m", "lengthUnits": "km", "routesSort": sort})
}

async fn score(body: &Value) -> Value {
    let s = shared();
    let reply = post_json(&client(), &s.server, &s.key.key, body).await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let response = reply.json();
    check_shape(&response);
    response
}

fn is_uuid(v: &Value) -> bool {
    v.as_str().is_some_and(|s| uuid::Uuid::parse_str(s).is_ok())
}

/// What every response has, whatever its routes: the spec's members at the top level (and,
/// the test server running on the demo field, the `dataSource` member that says so), a unique
/// id per calculation, and each score an integer in 0..=100 exactly when its error code is 0.
fn check_shape(response: &Value) {
    let mut members: Vec<&str> = response
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    members.sort_unstable();
    assert_eq!(
        members,
        [
            "completionStatus",
            "dataSource",
            "racss",
            "recommendations",
            "responseId",
            "time"
        ],
        "{response}"
    );
    assert!(is_uuid(&response["responseId"]), "{response}");
    let time = response["time"].as_str().unwrap();
    chrono::DateTime::parse_from_rfc3339(time).unwrap();
    assert!(time.ends_with('Z'), "UTC: {time}");
    // Milliseconds, always three digits: common parsers refuse finer fractions.
    let fraction = time.strip_suffix('Z').and_then(|t| t.rsplit_once('.'));
    assert!(
        fraction.is_some_and(|(_, ms)| ms.len() == 3),
        "milliseconds: {time}"
    );
    let mut ids = HashSet::new();
    for entry in response["racss"].as_array().unwrap() {
        assert!(is_uuid(&entry["RACSid"]), "{entry}");
        assert!(
            ids.insert(entry["RACSid"].clone()),
            "RACSid repeats: {response}"
        );
        assert!(entry["routeId"].is_string(), "{entry}");
        let code = entry["error"]["code"].as_u64().unwrap();
        if code == 0 {
            assert_eq!(entry["error"]["text"], "EMPTY", "{entry}");
            let racs = entry["RACS"].as_u64().unwrap();
            assert!(racs <= 100, "{entry}");
        } else {
            assert_eq!(entry["RACS"], Value::Null, "{entry}");
        }
    }
}

fn route_ids(response: &Value) -> Vec<String> {
    response["racss"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["routeId"].as_str().unwrap().to_owned())
        .collect()
}

fn score_of(response: &Value, id: &str) -> Option<u64> {
    response["racss"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["routeId"] == id)
        .and_then(|e| e["RACS"].as_u64())
}

/// The order the contract promises for `sort`, computed from the response's own scores:
/// best or worst first with ties in request order and failures last, or request order.
fn expected_order(response: &Value, request_ids: &[&str], sort: &str) -> Vec<String> {
    let mut ids: Vec<(usize, Option<u64>)> = request_ids
        .iter()
        .enumerate()
        .map(|(i, id)| (i, score_of(response, id)))
        .collect();
    match sort {
        "desc" => ids.sort_by_key(|&(i, s)| (s.is_none(), std::cmp::Reverse(s), i)),
        "asc" => ids.sort_by_key(|&(i, s)| (s.is_none(), s, i)),
        _ => {}
    }
    ids.into_iter()
        .map(|(i, _)| request_ids[i].to_owned())
        .collect()
}

/// The id the `CleanestRoute` recommendation must name: the highest score, the first in
/// request order on a tie.
fn cleanest(response: &Value, request_ids: &[&str]) -> String {
    let mut best: Option<(&str, u64)> = None;
    for id in request_ids {
        if let Some(s) = score_of(response, id)
            && best.is_none_or(|(_, b)| s > b)
        {
            best = Some((id, s));
        }
    }
    best.unwrap().0.to_owned()
}

fn recommendation<'a>(response: &'a Value, code: &str) -> Option<&'a Value> {
    response["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["code"] == code)
}

/// The sample routes plus the coarse one, sorted as `sort` asks.
async fn check_sample_routes_sorted(sort: &str) {
    let mut routes = scorable_routes();
    routes.push(coarse_route());
    let request_ids = ["1", "2", "3", "4"];
    let response = score(&request(routes, sort)).await;

    let ids = route_ids(&response);
    let mut unique = ids.clone();
    unique.sort();
    assert_eq!(unique, request_ids, "one RACS per route: {response}");
    assert_eq!(
        ids,
        expected_order(&response, &request_ids, sort),
        "order for routesSort {sort}: {response}"
    );
    for id in ["1", "2", "3"] {
        assert!(score_of(&response, id).is_some(), "{id} scores: {response}");
    }
    let coarse = &response["racss"].as_array().unwrap()[ids.iter().position(|i| i == "4").unwrap()];
    assert_eq!(coarse["error"]["code"], 102, "{response}");
    assert_eq!(
        coarse["error"]["text"],
        "Provided route information is not sufficient for accurate RACS calculation"
    );
    assert_eq!(response["completionStatus"], "CompletedWithErrors");

    let rec = recommendation(&response, "CleanestRoute").unwrap();
    assert!(is_uuid(&rec["recommendationId"]), "{rec}");
    assert!(rec["name"].as_str().is_some_and(|n| !n.is_empty()), "{rec}");
    assert!(rec["text"].as_str().is_some_and(|t| !t.is_empty()), "{rec}");
    assert_eq!(rec["additionalData"]["type"], "routeId");
    assert_eq!(
        rec["additionalData"]["value"],
        cleanest(&response, &request_ids),
        "{response}"
    );
    assert!(
        recommendation(&response, "BestDepartureTime").is_none(),
        "no window, no departure advice: {response}"
    );
    // Lowest exposure is only worth saying when it is another route, and a scored one.
    if let Some(lowest) = recommendation(&response, "LowestExposure") {
        let value = lowest["additionalData"]["value"].as_str().unwrap();
        assert_ne!(value, rec["additionalData"]["value"], "{response}");
        assert!(score_of(&response, value).is_some(), "{response}");
    }
}

#[tokio::test]
async fn sample_routes_sorted_desc_put_the_cleanest_first_and_the_coarse_route_last() {
    check_sample_routes_sorted("desc").await;
}

#[tokio::test]
async fn sample_routes_sorted_asc_put_the_dirtiest_first_and_the_coarse_route_last() {
    check_sample_routes_sorted("asc").await;
}

#[tokio::test]
async fn sample_routes_sorted_original_keep_the_request_order() {
    check_sample_routes_sorted("original").await;
}

#[tokio::test]
async fn routes_that_all_score_complete_with_a_cleanest_route() {
    let response = score(&request(scorable_routes(), "desc")).await;
    assert_eq!(response["completionStatus"], "Completed", "{response}");
    assert_eq!(route_ids(&response).len(), 3);
    let rec = recommendation(&response, "CleanestRoute").unwrap();
    assert_eq!(
        rec["additionalData"]["value"],
        cleanest(&response, &["1", "2", "3"])
    );
}

#[tokio::test]
async fn a_request_whose_only_route_is_too_coarse_fails_with_200_and_no_recommendation() {
    let response = score(&request(vec![coarse_route()], "desc")).await;
    assert_eq!(response["completionStatus"], "Failed", "{response}");
    assert_eq!(route_ids(&response), ["4"]);
    assert_eq!(response["racss"][0]["error"]["code"], 102);
    assert_eq!(response["recommendations"], json!([]), "{response}");
}

/// The RACS a `BestDepartureTime` text states: "... for a RACS of 71, ...".
fn stated_racs(text: &str) -> u64 {
    let after = text.split("for a RACS of ").nth(1).unwrap();
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

#[tokio::test]
async fn a_departure_window_recommends_the_best_departure_without_changing_the_scores() {
    let mut routes = scorable_routes();
    routes.push(coarse_route());
    let mut body = request(routes, "desc");
    body["departureTime"] = json!("2026-05-01T07:00:00Z");
    let at_departure = score(&body).await;
    body["departureWindowMinutes"] = json!(180);
    body["departureStepMinutes"] = json!(20);
    let response = score(&body).await;

    // racss stay the scores at departureTime.
    let scores = |r: &Value| -> Vec<(String, Option<u64>)> {
        route_ids(r)
            .into_iter()
            .map(|id| (id.clone(), score_of(r, &id)))
            .collect()
    };
    assert_eq!(scores(&response), scores(&at_departure));

    let recs = response["recommendations"].as_array().unwrap();
    let best = recs.last().unwrap();
    assert_eq!(best["code"], "BestDepartureTime", "{response}");
    assert_eq!(best["name"], "Best Departure Time");
    assert!(is_uuid(&best["recommendationId"]), "{best}");
    assert_eq!(best["additionalData"]["type"], "departureTime");
    let route = best["additionalData"]["routeId"].as_str().unwrap();
    assert!(
        score_of(&response, route).is_some(),
        "a scored route: {best}"
    );
    assert_ne!(route, "4", "the coarse route failed and is no candidate");

    // The departure lies in the window, on a 20-minute step.
    let start = chrono::DateTime::parse_from_rfc3339("2026-05-01T07:00:00Z").unwrap();
    let value = best["additionalData"]["value"].as_str().unwrap();
    let offset = chrono::DateTime::parse_from_rfc3339(value).unwrap() - start;
    assert!((0..=180).contains(&offset.num_minutes()), "{value}");
    assert_eq!(offset.num_minutes() % 20, 0, "{value}");
    assert_eq!(offset.num_seconds() % 60, 0, "{value}");

    // At least as clean as any route leaving at departureTime.
    let text = best["text"].as_str().unwrap();
    let racs = stated_racs(text);
    for (id, s) in scores(&response) {
        assert!(
            s.is_none_or(|s| racs >= s),
            "{id} at departureTime beats {text}"
        );
    }
    assert!(text.contains(&format!("route {route}")), "{text}");
    if offset.num_minutes() == 0 {
        assert_eq!(
            value, "2026-05-01T07:00:00.000Z",
            "departureTime, as times are written"
        );
        assert_eq!(Some(racs), score_of(&response, route), "{text}");
    } else {
        let gain = racs - score_of(&response, route).unwrap();
        assert!(
            gain > 0,
            "a later departure wins only when strictly cleaner: {text}"
        );
        assert!(
            text.contains(&format!("{gain} more than leaving at 07:00 UTC")),
            "{text}"
        );
    }
}

/// The dose a `LowestExposure` text states: "... about 2.5 µg of PM2.5.".
fn stated_dose(text: &str) -> f64 {
    let after = text.split("about ").nth(1).unwrap();
    after.split(' ').next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn equal_routes_tie_and_a_passenger_breathes_the_least() {
    // The same walk three times: equal RACS, so tied; the passenger breathes 0.010 m³/min
    // against the driver's 0.013, in the same air.
    let walk = scorable_routes().remove(0);
    let routes = |last: &str| {
        let mut a = walk.clone();
        a["id"] = json!("a");
        let mut b = walk.clone();
        b["id"] = json!("b");
        b["travelMode"] = json!(last);
        vec![a, b]
    };
    let mut body = request(routes("passenger"), "original");
    body["travelMode"] = json!("walk");
    let passenger = score(&body).await;
    assert_eq!(score_of(&passenger, "a"), score_of(&passenger, "b"));
    let cleanest = recommendation(&passenger, "CleanestRoute").unwrap();
    assert_eq!(
        cleanest["text"],
        format!(
            "Routes a and b tie for the cleanest air along the way (RACS {}); route a is named \
             as the first in the request.",
            score_of(&passenger, "a").unwrap()
        )
    );
    let least = recommendation(&passenger, "LowestExposure").unwrap();
    assert_eq!(least["additionalData"]["value"], "b");
    let text = least["text"].as_str().unwrap();
    assert!(
        text.contains(" of PM2.5. This is an estimate for an adult riding as a passenger"),
        "the demo field gives PM2.5, and the text says what the dose assumes: {text}"
    );

    body["routes"] = json!(routes("drive"));
    let drive = score(&body).await;
    let driver = recommendation(&drive, "LowestExposure").unwrap();
    let ratio = stated_dose(text) / stated_dose(driver["text"].as_str().unwrap());
    // 0.010 / 0.013 = 0.77, each dose rounded to two significant figures.
    assert!((ratio - 0.769).abs() < 0.05, "{ratio}: {text} / {driver}");
}
