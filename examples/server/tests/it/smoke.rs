//! Smoke past the top of the index: a station whose PM2.5 climbs from 100 to 400 µg/m³ raises an
//! alert that names the EEA's sixth band, "Extremely poor", with the advice for it.

use std::path::{Path, PathBuf};

use alerts_core::ndjson::decode_all;
use chrono::{DurationRound, TimeDelta, Utc};
use serde_json::json;

use crate::alerts::{Files, fetch_file};
use crate::harness::{Deployment, client, post_json};
use test_support::receiver::Receiver;

/// A station in Berlin at PM2.5 100 µg/m³ (Very poor, CI 16) up to the next hour and 400 from
/// two hours on.
fn smoke_file(dir: &Path) -> PathBuf {
    let this_hour = Utc::now().duration_trunc(TimeDelta::hours(1)).unwrap();
    let mut csv = String::from("station_id,lon,lat,time,pm25,no2\n");
    for h in -3..=8 {
        let pm25 = if h <= 1 { 100 } else { 400 };
        let time = (this_hour + TimeDelta::hours(h)).to_rfc3339();
        csv.push_str(&format!("BERLIN1,13.3494,52.5432,{time},{pm25},20\n"));
    }
    let path = dir.join("smoke.csv");
    std::fs::write(&path, csv).unwrap();
    path
}

#[tokio::test]
async fn a_smoke_episode_raises_an_extremely_poor_alert() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.admin(&[
        "add-rule",
        "--key",
        &key.id,
        "--type",
        "aq",
        "--forecast",
        "6h",
        "--sensitivity",
        "medium",
        "--deterioration",
        "smoke: {category}",
        "--improvement",
        "clearing: {category}",
    ]);
    let file = smoke_file(deployment.path());
    let server = deployment.serve(&["--aq-source", &format!("stations:{}", file.display())]);

    let body = json!({"points": [{"lon": 13.35, "lat": 52.54, "id": "ada"}]});
    let reply = post_json(&client(), &server, &key.key, &body).await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let token = reply.json()["data"]["token"].as_str().unwrap().to_owned();
    let delivery = receiver.delivery_for(&token).await;
    let lines = decode_all(&fetch_file(delivery.json["URL"].as_str().unwrap(), Files::Local).await)
        .unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0].description, "smoke: Extremely poor");
    assert!(
        lines[0].recommendation.contains("extreme"),
        "{}",
        lines[0].recommendation
    );
}
