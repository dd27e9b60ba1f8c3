//! What a client ported from another air-quality API leans on, through the real server: the key
//! in a header, the rate it has left on every answer, parameters read strictly, hours by window
//! and by page, compressed answers and every index with its colours.

use std::io::Read;

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde_json::Value;

use crate::harness::{Deployment, Key, Reply, Server, client};
use crate::lookups::this_hour;

const PLACE: &str = "lat=52.52&lon=13.40";

async fn get(server: &Server, path_and_query: &str) -> Reply {
    Reply::read(
        client()
            .get(server.url(path_and_query))
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn with_key(server: &Server, key: &Key, operation: &str, query: &str) -> Reply {
    get(
        server,
        &format!("/insights/v1/{operation}?key={}&{query}", key.key),
    )
    .await
}

fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn times(data: &Value) -> Vec<DateTime<Utc>> {
    data["hours"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["time"].as_str().unwrap().parse().unwrap())
        .collect()
}

#[tokio::test]
async fn the_key_may_come_in_the_x_api_key_header_and_two_different_keys_are_refused() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let other = deployment.new_key();
    let server = deployment.serve(&[]);
    let url = server.url(&format!("/insights/v1/conditions?{PLACE}"));
    let reply = Reply::read(
        client()
            .get(&url)
            .header("X-Api-Key", &key.key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.json());
    let same = format!("/insights/v1/conditions?key={}&{PLACE}", key.key);
    let reply = Reply::read(
        client()
            .get(server.url(&same))
            .header("X-Api-Key", &key.key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, 200, "the same key twice is the one key");
    let reply = Reply::read(
        client()
            .get(server.url(&same))
            .header("X-Api-Key", &other.key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    reply.assert_error(
        400,
        "invalid_request",
        &["key:", "X-Api-Key", "different keys"],
    );
    let reply = get(&server, &format!("/insights/v1/conditions?{PLACE}")).await;
    reply.assert_error(401, "missing_api_key", &["X-Api-Key"]);
    let twice = Reply::read(
        client()
            .get(&url)
            .header("X-Api-Key", &key.key)
            .header("X-Api-Key", &key.key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    twice.assert_error(400, "invalid_request", &["X-Api-Key:", "more than once"]);
}

#[tokio::test]
async fn every_answer_after_the_keys_check_says_the_rate_left() {
    let deployment = Deployment::new().config("rate_per_second = 1\nrate_burst = 3\n");
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let mut left = Vec::new();
    for _ in 0..3 {
        let reply = with_key(&server, &key, "conditions", PLACE).await;
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("ratelimit-limit"), Some("3"));
        assert_eq!(reply.header("ratelimit-policy"), Some("3;w=3"));
        let reset: u64 = reply.header("ratelimit-reset").unwrap().parse().unwrap();
        assert!((1..=3).contains(&reset), "{reset}");
        left.push(reply.header("ratelimit-remaining").unwrap().to_owned());
    }
    // The clock runs between requests: a refill of a third of a second's unit at most.
    assert_eq!(left, ["2", "1", "0"], "one fewer each time");
    let refused = with_key(&server, &key, "conditions", PLACE).await;
    refused.assert_error(429, "rate_limited", &[]);
    assert_eq!(refused.header("ratelimit-remaining"), Some("0"));
    assert!(refused.header("ratelimit-reset").is_some());
    // A request whose key is not checked has no rate to tell.
    let anonymous = get(&server, &format!("/insights/v1/conditions?{PLACE}")).await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(anonymous.header("ratelimit-remaining"), None);
}

#[tokio::test]
async fn an_unknown_parameter_is_refused_with_the_one_meant() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    for (operation, query, mentions) in [
        (
            "forecast",
            "hour=3",
            &["hour: not a parameter", "did you mean `hours`?"][..],
        ),
        ("history", "pagesize=3", &["did you mean `pageSize`?"][..]),
        (
            "conditions",
            "universalAqi=true",
            &["universalAqi: not a parameter", "`lat`"][..],
        ),
        ("conditions", "hours=3", &["hours: not a parameter"][..]),
        ("pollen", "indexes=ci", &["indexes: not a parameter"][..]),
        (
            "forecast",
            "indexes=uaqi",
            &["indexes: `uaqi` is not an index"][..],
        ),
    ] {
        let reply = with_key(&server, &key, operation, &format!("{PLACE}&{query}")).await;
        reply.assert_error(400, "invalid_request", mentions);
    }
    let tile = get(
        &server,
        &format!(
            "/insights/v1/tiles/3/4/2.png?key={}&tim=2026-01-01T00:00:00Z",
            key.key
        ),
    )
    .await;
    tile.assert_error(400, "invalid_request", &["tim: not a parameter", "`time`"]);
}

#[tokio::test]
async fn windows_by_instants_and_pages_of_history_cover_every_hour_once() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let now = this_hour();
    // A forecast window: the hours from `from`'s up to `to`'s, read down to the hour.
    let query = format!(
        "{PLACE}&from={}&to={}",
        stamp(now + Duration::minutes(150)),
        stamp(now + Duration::minutes(390))
    );
    let reply = with_key(&server, &key, "forecast", &query).await;
    assert_eq!(reply.status, 200, "{}", reply.json());
    let t = times(&reply.json()["data"]);
    assert_eq!(t.first(), Some(&(now + Duration::hours(2))));
    assert_eq!(
        t.len(),
        4,
        "02:00 to 05:00 of the window, 06:00 not included: {t:?}"
    );
    let early = with_key(
        &server,
        &key,
        "forecast",
        &format!(
            "{PLACE}&from={}&to={}",
            stamp(now - Duration::hours(3)),
            stamp(now)
        ),
    )
    .await;
    early.assert_error(
        400,
        "invalid_request",
        &["from:", "before the current hour"],
    );

    // 50 hours of history, 20 a page: three pages, newest first, each hour once.
    let mut query = format!("{PLACE}&hours=50&pageSize=20");
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let reply = with_key(&server, &key, "history", &query).await;
        let body = reply.json();
        assert_eq!(reply.status, 200, "{body}");
        pages += 1;
        seen.extend(times(&body["data"]));
        match body["data"]["nextPageToken"].as_str() {
            Some(token) => query = format!("{PLACE}&hours=50&pageSize=20&pageToken={token}"),
            None => break,
        }
    }
    let expected: Vec<_> = (1..=50).map(|k| now - Duration::hours(k)).collect();
    assert_eq!(pages, 3);
    assert_eq!(seen, expected);
    // Without `pageSize`, a month comes a week at a time.
    let reply = with_key(&server, &key, "history", &format!("{PLACE}&hours=720")).await;
    let body = reply.json();
    assert_eq!(body["data"]["hours"].as_array().unwrap().len(), 168);
    assert!(body["data"]["nextPageToken"].is_string());
    let forged = with_key(&server, &key, "history", &format!("{PLACE}&pageToken=abc")).await;
    forged.assert_error(400, "invalid_request", &["pageToken: not a token"]);
}

#[tokio::test]
async fn an_answer_is_compressed_when_the_client_asks() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let path = format!(
        "/insights/v1/history?key={}&{PLACE}&hours=720&pageSize=720",
        key.key
    );
    let plain = get(&server, &path).await;
    assert_eq!(plain.header("content-encoding"), None, "nobody asked");
    let gzip = Reply::read(
        client()
            .get(server.url(&path))
            .header("Accept-Encoding", "gzip")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(gzip.status, 200);
    assert_eq!(gzip.header("content-encoding"), Some("gzip"));
    assert!(
        gzip.body.len() * 5 < plain.body.len(),
        "a month of hours shrinks at least five times: {} of {}",
        gzip.body.len(),
        plain.body.len()
    );
    let mut unpacked = Vec::new();
    flate2::read::GzDecoder::new(&gzip.body[..])
        .read_to_end(&mut unpacked)
        .unwrap();
    let a: Value = serde_json::from_slice(&unpacked).unwrap();
    assert_eq!(a["data"], plain.json()["data"], "the same answer");
    let br = Reply::read(
        client()
            .get(server.url(&path))
            .header("Accept-Encoding", "br")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(br.header("content-encoding"), Some("br"));
    let mut unpacked = Vec::new();
    brotli_decompressor::Decompressor::new(&br.body[..], 4096)
        .read_to_end(&mut unpacked)
        .unwrap();
    let b: Value = serde_json::from_slice(&unpacked).unwrap();
    assert_eq!(b["data"], plain.json()["data"], "the same answer");
    // Alert requests and route scores are sent as they are, whatever the client accepts.
    let scored = Reply::read(
        client()
            .post(server.url(&format!("/insights/v1/cleanest-route?key={}", key.key)))
            .header("Accept-Encoding", "gzip")
            .header("Content-Type", "application/json")
            .body(r#"{"routes": [{"id": "a", "routeDuration": 10, "polyline": [[13.40, 52.52], [13.41, 52.52]]}], "routesSort": "original"}"#)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(scored.status, 200, "{}", scored.json());
    assert_eq!(scored.header("content-encoding"), None);
}

#[tokio::test]
async fn each_hour_lists_the_indexes_asked_with_their_colours_in_its_language() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let reply = with_key(&server, &key, "conditions", PLACE).await;
    assert_eq!(reply.header("content-language"), Some("en"));
    let body = reply.json();
    let hour = &body["data"]["hour"];
    let indexes = hour["indexes"].as_array().unwrap();
    let codes: Vec<&str> = indexes
        .iter()
        .map(|i| i["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["ci", "eaqi", "usa_epa"], "{hour}");
    let ci = &indexes[0];
    assert_eq!(ci["value"], hour["index"]["value"]);
    assert_eq!(ci["category"], hour["index"]["category"]);
    assert_eq!(indexes[1]["value"], hour["index"]["eeaLevel"]);
    assert_eq!(indexes[2]["value"], hour["usAqi"]["value"]);
    assert_eq!(
        indexes[2]["dominantPollutant"],
        hour["usAqi"]["dominantPollutant"]
    );
    for index in indexes {
        let colour = index["color"].as_str().unwrap();
        assert!(colour.len() == 7 && colour.starts_with('#'), "{index}");
    }
    let reply = with_key(
        &server,
        &key,
        "conditions",
        &format!("{PLACE}&indexes=usa_epa,ci"),
    )
    .await;
    let codes: Vec<String> = reply.json()["data"]["hour"]["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["code"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(codes, ["usa_epa", "ci"], "in the order asked");
    let reply = with_key(
        &server,
        &key,
        "forecast",
        &format!("{PLACE}&hours=2&indexes=usa_epa"),
    )
    .await;
    let body = reply.json();
    for hour in body["data"]["hours"].as_array().unwrap() {
        let codes: Vec<&str> = hour["indexes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["code"].as_str().unwrap())
            .collect();
        assert_eq!(codes, ["usa_epa"]);
    }
}

#[tokio::test]
async fn answers_speak_the_language_asked_and_say_when_they_fall_back_to_english() {
    use i18n_core::Language;

    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let english = with_key(&server, &key, "forecast", &format!("{PLACE}&hours=2")).await;
    let english = english.json();
    for (tag, language) in [
        ("de", Language::German),
        ("pt-BR", Language::Portuguese),
        ("PL", Language::Polish),
    ] {
        let reply = with_key(
            &server,
            &key,
            "forecast",
            &format!("{PLACE}&hours=2&languageCode={tag}"),
        )
        .await;
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-language"), Some(language.tag()));
        let body = reply.json();
        assert_eq!(
            body["metadata"]["notes"], english["metadata"]["notes"],
            "no note: {tag}"
        );
        for (hour, en) in body["data"]["hours"]
            .as_array()
            .unwrap()
            .iter()
            .zip(english["data"]["hours"].as_array().unwrap())
        {
            let id = i18n_core::label_id("ci", en["index"]["category"].as_str().unwrap());
            assert_eq!(hour["index"]["category"], language.text(&id), "{tag}");
            assert_ne!(hour["index"]["category"], en["index"]["category"], "{tag}");
            assert_ne!(
                hour["advice"]["children"], en["advice"]["children"],
                "{tag}"
            );
            assert_eq!(hour["indexes"][0]["displayName"], language.text("index-ci"));
            // What programs read is the same in every language.
            assert_eq!(hour["index"]["value"], en["index"]["value"]);
            assert_eq!(hour["indexes"][0]["code"], "ci");
            assert_eq!(hour["indexes"][0]["color"], en["indexes"][0]["color"]);
        }
    }
    let pollen = with_key(
        &server,
        &key,
        "pollen",
        &format!("{PLACE}&days=1&languageCode=fr"),
    )
    .await;
    assert_eq!(pollen.header("content-language"), Some("fr"));

    let reply = with_key(
        &server,
        &key,
        "forecast",
        &format!("{PLACE}&hours=2&languageCode=sv"),
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-language"), Some("en"));
    let body = reply.json();
    assert_eq!(
        body["data"]["hours"][0]["index"]["category"],
        english["data"]["hours"][0]["index"]["category"]
    );
    assert!(
        body["metadata"]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("languageCode `sv`")),
        "{body}"
    );
    let refused = with_key(
        &server,
        &key,
        "forecast",
        &format!("{PLACE}&languageCode=deutsch!"),
    )
    .await;
    refused.assert_error(400, "invalid_request", &["languageCode"]);
}

#[tokio::test]
async fn pollen_comes_with_colours_season_and_advice_and_as_tiles() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let reply = with_key(&server, &key, "pollen", &format!("{PLACE}&days=1")).await;
    let body = reply.json();
    let tree = &body["data"]["days"][0]["types"]["tree"];
    let level = tree["level"].as_u64().unwrap();
    assert!(tree["color"].as_str().unwrap().starts_with('#'), "{tree}");
    assert_eq!(
        tree["inSeason"],
        serde_json::json!(tree["meanGrainsM3"].as_f64().unwrap() > 0.0),
        "{tree}"
    );
    assert!(
        tree["advice"]["generalPopulation"]
            .as_str()
            .unwrap()
            .contains("ollen"),
        "{tree}"
    );
    assert!(level <= 5);

    let tile = |layer: &'static str| {
        let url = server.url(&format!(
            "/insights/v1/tiles/0/0/0.png?key={}&layer={layer}",
            key.key
        ));
        async move { Reply::read(client().get(url).send().await.unwrap()).await }
    };
    let pollen = tile("pollen-grass").await;
    assert_eq!(pollen.status, 200);
    assert_eq!(pollen.header("content-type"), Some("image/png"));
    assert!(
        pollen
            .header("etag")
            .unwrap()
            .starts_with("\"pollen-grass-"),
        "{:?}",
        pollen.headers
    );
    let ci = tile("ci").await;
    assert!(ci.header("etag").unwrap().starts_with("\"ci-"));
    assert_ne!(pollen.body, ci.body, "another picture");
    tile("pollen-birch").await.assert_error(
        400,
        "invalid_request",
        &["layer: `pollen-birch`", "pollen-tree"],
    );
}

/// The codes of an hour's `indexes`.
fn index_codes(hour: &Value) -> Vec<String> {
    hour["indexes"]
        .as_array()
        .unwrap_or_else(|| panic!("no indexes: {hour}"))
        .iter()
        .map(|i| i["code"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_place_lists_its_countrys_index_by_default_and_any_index_anywhere() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);

    // London: the UK's Daily Air Quality Index joins the three every place lists.
    let body = with_key(&server, &key, "conditions", "lat=51.5072&lon=-0.1276")
        .await
        .json();
    assert_eq!(body["metadata"]["regionCode"], "gb", "{body}");
    let hour = &body["data"]["hour"];
    assert_eq!(
        index_codes(hour),
        ["ci", "eaqi", "usa_epa", "gbr_defra"],
        "{hour}"
    );
    let daqi = &hour["indexes"][3];
    let band = daqi["value"].as_u64().unwrap();
    assert!((1..=10).contains(&band), "{daqi}");
    assert!(
        ["Low", "Moderate", "High", "Very High"].contains(&daqi["category"].as_str().unwrap()),
        "{daqi}"
    );
    assert!(daqi["dominantPollutant"].is_string(), "{daqi}");
    // A forecast lists it in every hour: the demo field has the day before each.
    let body = with_key(&server, &key, "forecast", "lat=51.5072&lon=-0.1276&hours=3")
        .await
        .json();
    for hour in body["data"]["hours"].as_array().unwrap() {
        assert_eq!(
            index_codes(hour).last().map(String::as_str),
            Some("gbr_defra")
        );
    }

    // The middle of the North Atlantic: no country, no national index.
    let body = with_key(&server, &key, "conditions", "lat=35&lon=-30")
        .await
        .json();
    assert_eq!(body["metadata"]["regionCode"], Value::Null, "{body}");
    if !body["data"]["hour"].is_null() {
        assert_eq!(
            index_codes(&body["data"]["hour"]),
            ["ci", "eaqi", "usa_epa"]
        );
    }

    // India's index asked for in Berlin.
    let body = with_key(
        &server,
        &key,
        "conditions",
        &format!("{PLACE}&indexes=ind_cpcb"),
    )
    .await
    .json();
    assert_eq!(body["metadata"]["regionCode"], "de", "{body}");
    let hour = &body["data"]["hour"];
    assert_eq!(index_codes(hour), ["ind_cpcb"], "{hour}");
    assert!(
        hour["indexes"][0]["value"].as_u64().unwrap() <= 500,
        "{hour}"
    );

    // An unknown code is refused with every code the API computes.
    let reply = with_key(
        &server,
        &key,
        "conditions",
        &format!("{PLACE}&indexes=uaqi"),
    )
    .await;
    assert_eq!(reply.status, 400);
    let detail = reply.json()["error"]["detail"].as_str().unwrap().to_owned();
    for code in [
        "ci",
        "eaqi",
        "usa_epa",
        "gbr_defra",
        "ind_cpcb",
        "chn_mep",
        "can_ec",
    ] {
        assert!(detail.contains(code), "{detail}");
    }
}
