//! Rules that tell a change once, on the real server: the same points posted twice get a
//! once-per-change rule's alerts in the first file only, and when the forecast turns the alert
//! comes again. The forecast is a station file whose readings ahead of now are the forecast; the
//! server is restarted on another file, over the same database, for the forecast to turn.

use std::path::{Path, PathBuf};

use alerts_core::ndjson::decode_all;
use chrono::{DurationRound, TimeDelta, Utc};
use serde_json::json;

use crate::alerts::{Files, fetch_file};
use crate::harness::{Deployment, Key, Server, client, post_json};
use test_support::receiver::Receiver;

/// A station in Berlin whose air is clean up to the hour after this one and dirty from two
/// hours on (`worse_ahead`), or the other way round: a change two hours ahead either way,
/// whatever the minute the points are posted.
fn station_file(dir: &Path, name: &str, worse_ahead: bool) -> PathBuf {
    let this_hour = Utc::now().duration_trunc(TimeDelta::hours(1)).unwrap();
    let (clean, dirty) = ("4,8", "140,260");
    let mut csv = String::from("station_id,lon,lat,time,pm25,no2\n");
    for h in -3..=8 {
        let early = h <= 1;
        let air = if early == worse_ahead { clean } else { dirty };
        let time = (this_hour + TimeDelta::hours(h)).to_rfc3339();
        csv.push_str(&format!("BERLIN1,13.3494,52.5432,{time},{air}\n"));
    }
    let path = dir.join(name);
    std::fs::write(&path, csv).unwrap();
    path
}

/// Posts one point by the station and returns the descriptions in its file.
async fn post_and_read(server: &Server, key: &Key, receiver: &Receiver) -> Vec<String> {
    let body = json!({"points": [{"lon": 13.35, "lat": 52.54, "id": "ada"}]});
    let reply = post_json(&client(), server, &key.key, &body).await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let token = reply.json()["data"]["token"].as_str().unwrap().to_owned();
    let delivery = receiver.delivery_for(&token).await;
    let file = fetch_file(delivery.json["URL"].as_str().unwrap(), Files::Local).await;
    let mut lines: Vec<String> = decode_all(&file)
        .unwrap()
        .into_iter()
        .map(|line| line.description)
        .collect();
    lines.sort();
    lines
}

fn add_rule(deployment: &Deployment, key: &Key, name: &str, repeat: &str) {
    deployment.admin(&[
        "add-rule",
        "--key",
        &key.id,
        "--type",
        "aq",
        "--forecast",
        "6h",
        "--sensitivity",
        "high",
        "--deterioration",
        &format!("{name}: worse, {{category}}"),
        "--improvement",
        &format!("{name}: better, {{category}}"),
        "--repeat",
        repeat,
    ]);
}

#[tokio::test]
async fn a_once_rule_tells_the_same_points_once_and_again_when_the_forecast_turns() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_rule(&deployment, &key, "every", "every");
    add_rule(&deployment, &key, "once", "once");

    let worse = station_file(deployment.path(), "worse.csv", true);
    let source = format!("stations:{}", worse.display());
    let server = deployment.serve(&["--aq-source", &source]);
    let first = post_and_read(&server, &key, &receiver).await;
    assert_eq!(
        first.len(),
        2,
        "both rules see the air get worse: {first:?}"
    );
    assert!(first[0].starts_with("every: worse, "), "{first:?}");
    assert!(first[1].starts_with("once: worse, "), "{first:?}");
    let again = post_and_read(&server, &key, &receiver).await;
    assert_eq!(again, first[..1], "the same change is not told twice");
    drop(server);

    // The forecast turns: the same hours now bring cleaner air.
    let better = station_file(deployment.path(), "better.csv", false);
    let source = format!("stations:{}", better.display());
    let server = deployment.serve(&["--aq-source", &source]);
    let turned = post_and_read(&server, &key, &receiver).await;
    assert_eq!(turned.len(), 2, "{turned:?}");
    assert!(turned[0].starts_with("every: better, "), "{turned:?}");
    assert!(
        turned[1].starts_with("once: better, "),
        "the turned forecast is told: {turned:?}"
    );
    let again = post_and_read(&server, &key, &receiver).await;
    assert_eq!(again, turned[..1], "and told once");
}
