//! The lookups (`conditions`, `forecast`, `history`, `pollen`) on the three kinds of source:
//! the demo field, a station file (history from its readings) and Open-Meteo's API, faked on
//! loopback. Each index must be the RACS of a one-point route there at that hour, and each
//! US AQI the EPA's, checked against an implementation written here from EPA's description.

use std::net::SocketAddr;

use axum::extract::Query;
use chrono::{DateTime, Duration, NaiveDateTime, Timelike, Utc};
use serde_json::{Value, json};

use crate::harness::{Deployment, Key, Reply, Server, client, post_json};

/// The start of the current UTC hour, as the server sees it.
pub(crate) fn this_hour() -> DateTime<Utc> {
    let now = Utc::now();
    now - Duration::seconds(i64::from(now.minute() * 60 + now.second()))
        - Duration::nanoseconds(i64::from(now.nanosecond()))
}

async fn get(server: &Server, key: &Key, operation: &str, query: &str) -> Reply {
    let url = server.url(&format!("/insights/v1/{operation}?key={}&{query}", key.key));
    Reply::read(client().get(url).send().await.unwrap()).await
}

/// The answer of a lookup that must succeed, with its envelope checked.
pub(crate) async fn lookup(
    server: &Server,
    key: &Key,
    operation: &str,
    query: &str,
) -> (Value, Value) {
    let reply = get(server, key, operation, query).await;
    let body = reply.json();
    assert_eq!(reply.status, 200, "{operation}?{query}: {body}");
    let mut members: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    members.sort_unstable();
    assert_eq!(members, ["data", "error", "metadata"], "{body}");
    assert_eq!(body["error"], Value::Null);
    assert!(
        reply.header("insights-data-source").is_some(),
        "{:?}",
        reply.headers
    );
    (body["metadata"].clone(), body["data"].clone())
}

/// The RACS of a route of about a metre at one place leaving at `time` (a route of no length
/// at all is refused as unscorable).
async fn racs_at(server: &Server, key: &Key, lat: f64, lon: f64, time: &str) -> Value {
    let body = json!({"routes": [{"id": "here", "routeDuration": 0.001,
        "polyline": [[lon, lat], [lon + 0.00001, lat]]}], "routesSort": "original",
        "departureTime": time});
    let reply = post_json(&client(), server, &key.key, &body).await;
    let answer = reply.json();
    assert_eq!(reply.status, 200, "{answer}");
    answer["racss"][0]["RACS"].clone()
}

/// Checks the shape every hour has: the index in range with its category, pollutants with
/// µg/m³ and never zero-filled, advice for all six audiences.
fn check_hour(hour: &Value) {
    let value = hour["index"]["value"].as_u64().unwrap();
    assert!(value <= 100, "{hour}");
    assert!(hour["index"]["category"].is_string(), "{hour}");
    for (name, p) in hour["pollutants"].as_object().unwrap() {
        assert!(
            ["pm25", "pm10", "no2", "o3", "so2", "co"].contains(&name.as_str()),
            "{name}"
        );
        assert_eq!(p["units"], "µg/m³", "{hour}");
        assert!(p["value"].as_f64().unwrap() >= 0.0, "{hour}");
    }
    for audience in [
        "generalPopulation",
        "children",
        "olderAdults",
        "heartOrLungDisease",
        "pregnancy",
        "athletes",
    ] {
        assert!(
            hour["advice"][audience]
                .as_str()
                .is_some_and(|a| !a.is_empty()),
            "{audience}: {hour}"
        );
    }
    if !hour["usAqi"].is_null() {
        let method = hour["usAqi"]["method"].as_str().unwrap();
        assert!(method == "nowcast" || method == "hourly", "{hour}");
    }
}

fn times(hours: &Value) -> Vec<DateTime<Utc>> {
    hours
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["time"].as_str().unwrap().parse().unwrap())
        .collect()
}

// --- An independent US AQI of PM2.5, from EPA's published description ---------------------

/// The NowCast as EPA's fact sheet states it: weight factor = 1 − (max − min) / max over the
/// 12 hours, at least 0.5; each hour weighted by the factor to the power of its hours ago.
fn epa_nowcast(newest_first: &[f64]) -> f64 {
    let max = newest_first.iter().copied().fold(f64::MIN, f64::max);
    let min = newest_first.iter().copied().fold(f64::MAX, f64::min);
    let w = (1.0 - (max - min) / max).max(0.5);
    let (mut num, mut den) = (0.0, 0.0);
    for (i, c) in newest_first.iter().enumerate() {
        num += w.powi(i as i32) * c;
        den += w.powi(i as i32);
    }
    num / den
}

/// PM2.5's AQI on the 2024 table: truncate to 0.1, interpolate, round.
fn epa_pm25_aqi(c: f64) -> u64 {
    let c = (c * 10.0 + 1e-7).floor() / 10.0;
    let rows = [
        (0.0, 9.0, 0.0, 50.0),
        (9.1, 35.4, 51.0, 100.0),
        (35.5, 55.4, 101.0, 150.0),
        (55.5, 125.4, 151.0, 200.0),
        (125.5, 225.4, 201.0, 300.0),
        (225.5, 325.4, 301.0, 500.0),
    ];
    let (lo, hi, ilo, ihi) = rows
        .into_iter()
        .find(|r| c <= r.1 + 1e-9)
        .unwrap_or(rows[5]);
    ((ihi - ilo) / (hi - lo) * (c - lo) + ilo).round() as u64
}

#[test]
fn the_independent_nowcast_reproduces_epas_worked_example() {
    // EPA/AirNow "Computing the NowCast": 50 80 75 90 82 53 64 74 21 10 16 13 µg/m³, oldest
    // first, gives 17.4 µg/m³.
    let newest_first = [
        13.0, 16.0, 10.0, 21.0, 74.0, 64.0, 53.0, 82.0, 90.0, 75.0, 80.0, 50.0,
    ];
    let value = epa_nowcast(&newest_first);
    assert_eq!((value * 10.0).floor() / 10.0, 17.4);
    assert_eq!(epa_pm25_aqi(value), 66);
}

// --- The demo field -------------------------------------------------------------------------

const BERLIN: (f64, f64) = (52.52, 13.405);

#[tokio::test]
async fn every_lookup_answers_on_the_demo_field_with_the_index_of_route_scores() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let (lat, lon) = BERLIN;
    let place = format!("lat={lat}&lon={lon}");

    let (meta, data) = lookup(&server, &key, "conditions", &place).await;
    assert_eq!(meta["dataSource"]["name"], "demo");
    assert_eq!(meta["dataSource"]["synthetic"], true);
    // Made up: no model run and no observation to name.
    assert_eq!(meta["dataSource"]["basis"], "synthetic");
    assert_eq!(meta["dataSource"]["modelRuns"], json!([]));
    assert_eq!(meta["dataSource"]["newestObservation"], Value::Null);
    assert_eq!(meta["position"], json!({"lat": lat, "lon": lon}));
    assert_eq!(
        (&meta["requested"], &meta["answered"]),
        (&json!(1), &json!(1))
    );
    let hour = &data["hour"];
    check_hour(hour);
    assert_eq!(
        hour["time"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap(),
        this_hour()
    );
    // The demo field has every pollutant and twelve past hours: the NowCast is used.
    assert_eq!(hour["pollutants"].as_object().unwrap().len(), 6, "{hour}");
    assert_eq!(hour["usAqi"]["method"], "nowcast", "{hour}");
    let time = hour["time"].as_str().unwrap();
    assert_eq!(
        racs_at(&server, &key, lat, lon, time).await,
        hour["index"]["value"]
    );

    let (meta, data) = lookup(&server, &key, "forecast", &format!("{place}&hours=96")).await;
    let hours = &data["hours"];
    assert_eq!(meta["answered"], 96);
    let t = times(hours);
    assert_eq!(t[0], this_hour());
    assert!(t.windows(2).all(|w| w[1] - w[0] == Duration::hours(1)));
    hours.as_array().unwrap().iter().for_each(check_hour);
    // A forecast hour is the RACS of a route leaving then.
    let later = &hours[30];
    let racs = racs_at(&server, &key, lat, lon, later["time"].as_str().unwrap()).await;
    assert_eq!(racs, later["index"]["value"], "{later}");
    // The default is 24 hours.
    let (_, data) = lookup(&server, &key, "forecast", &place).await;
    assert_eq!(data["hours"].as_array().unwrap().len(), 24);

    let (meta, data) = lookup(
        &server,
        &key,
        "history",
        &format!("{place}&hours=720&pageSize=720"),
    )
    .await;
    assert_eq!(meta["answered"], 720);
    let t = times(&data["hours"]);
    assert_eq!(t[0], this_hour() - Duration::hours(1), "newest first");
    assert_eq!(t[719], this_hour() - Duration::hours(720));
    assert!(t.windows(2).all(|w| w[0] - w[1] == Duration::hours(1)));

    let (meta, data) = lookup(&server, &key, "pollen", &format!("{place}&days=5")).await;
    let days = data["days"].as_array().unwrap();
    assert_eq!(days.len(), 5, "the demo field has pollen every day: {data}");
    assert_eq!(meta["answered"], 5);
    // Made-up days, said like made-up hours.
    let source = &meta["dataSource"];
    assert_eq!(source["basis"], "synthetic", "{meta}");
    assert_eq!(source["modelRuns"], json!([]));
    assert_eq!(source["newestObservation"], Value::Null);
    assert_eq!(source["provenanceNote"], Value::Null);
    for day in days {
        for kind in ["tree", "grass", "weed"] {
            let v = &day["types"][kind];
            let level = v["level"].as_u64().unwrap();
            assert!(level <= 5, "{day}");
            assert!(
                v["category"].is_string() && v["meanGrainsM3"].as_f64().is_some(),
                "{day}"
            );
        }
    }
}

#[tokio::test]
async fn the_served_demo_field_lists_its_plants_on_its_grid_and_each_type_is_their_sum() {
    // The server lays the demo field on a grid, which keeps plants as the CAMS grids do.
    // Berlin and Melbourne: one of them is in a pollen season whatever the date.
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    for (lat, lon) in [BERLIN, (-37.81, 144.96)] {
        let (_, data) = lookup(
            &server,
            &key,
            "pollen",
            &format!("lat={lat}&lon={lon}&days=3"),
        )
        .await;
        let days = data["days"].as_array().unwrap();
        assert_eq!(days.len(), 3, "{data}");
        for day in days {
            let plants = day["plants"].as_array().unwrap();
            let codes: Vec<&str> = plants.iter().map(|p| p["code"].as_str().unwrap()).collect();
            assert_eq!(
                codes,
                ["alder", "birch", "olive", "grass", "mugwort", "ragweed"],
                "{day}"
            );
            for kind in ["tree", "grass", "weed"] {
                let of_kind: Vec<f64> = plants
                    .iter()
                    .filter(|p| p["type"] == kind)
                    .map(|p| p["meanGrainsM3"].as_f64().unwrap())
                    .collect();
                let total = day["types"][kind]["meanGrainsM3"].as_f64().unwrap();
                // Each mean is rounded to a tenth on its own.
                let slack = 0.05 * (of_kind.len() + 1) as f64 + 1e-9;
                let sum: f64 = of_kind.iter().sum();
                assert!(
                    (sum - total).abs() <= slack,
                    "{kind}: {sum} vs {total}: {day}"
                );
            }
        }
    }
}

#[tokio::test]
async fn bad_input_is_refused_naming_the_parameter() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    for (operation, query, mention) in [
        ("conditions", "lat=91&lon=0", "lat: 91 is outside [-90, 90]"),
        (
            "conditions",
            "lat=0&lon=181",
            "lon: 181 is outside [-180, 180]",
        ),
        ("conditions", "lon=0", "lat: missing"),
        (
            "forecast",
            "lat=0&lon=0&hours=97",
            "hours: 97 is more than 96",
        ),
        ("forecast", "lat=0&lon=0&hours=0", "hours: 0 is less than 1"),
        (
            "history",
            "lat=0&lon=0&hours=721",
            "hours: 721 is more than 720",
        ),
        (
            "history",
            "lat=0&lon=0&hours=ten",
            "hours: `ten` is not a whole number",
        ),
        ("pollen", "lat=0&lon=0&days=6", "days: 6 is more than 5"),
        ("pollen", "lat=x&lon=0", "lat: `x` is not a number"),
    ] {
        let reply = get(&server, &key, operation, query).await;
        reply.assert_error(400, "invalid_request", &[mention]);
        assert!(
            reply.header("insights-data-source").is_some(),
            "{operation}"
        );
    }
    let url = server.url("/insights/v1/conditions?lat=0&lon=0");
    Reply::read(client().get(url).send().await.unwrap())
        .await
        .assert_error(401, "missing_api_key", &["key"]);
}

#[tokio::test]
async fn a_lookup_costs_the_key_one_request_like_the_other_operations() {
    let deployment = Deployment::new().config("rate_per_second = 1\nrate_burst = 3\n");
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let mut statuses = Vec::new();
    for operation in ["conditions", "forecast", "history", "pollen"] {
        let reply = get(&server, &key, operation, "lat=10&lon=10").await;
        statuses.push(reply.status.as_u16());
    }
    assert_eq!(&statuses[..3], [200, 200, 200], "{statuses:?}");
    assert_eq!(
        statuses[3], 429,
        "the fourth request is over a burst of 3: {statuses:?}"
    );
}

// --- A station file ---------------------------------------------------------------------------

/// PM2.5 of the reading `k` hours before the current hour: changing enough for the NowCast's
/// weights to matter.
fn station_pm25(k: i64) -> f64 {
    8.0 + 3.0 * ((k * 7) % 11) as f64
}

#[tokio::test]
async fn a_station_file_answers_its_readings_and_no_hour_beyond_them() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let now = this_hour();
    let mut csv = String::from("station_id,lon,lat,time,pm25,no2\n");
    // Readings for the 30 hours before the current one.
    for k in 1..=30 {
        let t = (now - Duration::hours(k)).to_rfc3339();
        csv.push_str(&format!("S1,13.35,52.54,{t},{},30\n", station_pm25(k)));
    }
    let path = deployment.path().join("stations.csv");
    std::fs::write(&path, csv).unwrap();
    let server = deployment.serve(&["--aq-source", &format!("stations:{}", path.display())]);
    let place = "lat=52.54&lon=13.35";

    let (meta, data) = lookup(&server, &key, "history", &format!("{place}&hours=48")).await;
    assert_eq!(meta["dataSource"]["name"], "station-file");
    assert_eq!(meta["dataSource"]["synthetic"], false);
    assert_eq!(meta["dataSource"]["basis"], "observations");
    assert_eq!(meta["dataSource"]["modelRuns"], json!([]));
    // The newest reading, an hour before the current one, is behind the newest hour.
    assert_eq!(
        meta["dataSource"]["newestObservation"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap(),
        now - Duration::hours(1),
        "{meta}"
    );
    assert_eq!(
        (&meta["requested"], &meta["answered"]),
        (&json!(48), &json!(30)),
        "{meta}"
    );
    assert!(!meta["notes"].as_array().unwrap().is_empty(), "{meta}");
    let hours = data["hours"].as_array().unwrap();
    let t = times(&data["hours"]);
    for (k, (hour, time)) in hours.iter().zip(&t).enumerate() {
        check_hour(hour);
        let k = k as i64 + 1;
        assert_eq!(
            *time,
            now - Duration::hours(k),
            "newest first, from the readings"
        );
        assert_eq!(
            hour["pollutants"]["pm25"]["value"],
            json!(station_pm25(k)),
            "{hour}"
        );
        assert_eq!(hour["pollutants"]["no2"]["value"], json!(30.0), "{hour}");
        assert!(
            hour["pollutants"].get("o3").is_none(),
            "not measured, so absent: {hour}"
        );
    }
    // The newest past hour's US AQI is the NowCast of the readings of it and the 11 before.
    let newest: Vec<f64> = (1..=12).map(station_pm25).collect();
    let expected = epa_pm25_aqi(epa_nowcast(&newest));
    let aqi = &hours[0]["usAqi"];
    assert_eq!(aqi["value"], json!(expected), "{aqi}");
    assert_eq!(aqi["method"], "nowcast");
    assert_eq!(aqi["dominantPollutant"], "pm25");
    // The oldest reading has no past hours: its hourly value stands in.
    assert_eq!(hours[29]["usAqi"]["method"], "hourly", "{}", hours[29]);
    // And its index is the route score's.
    let time = hours[3]["time"].as_str().unwrap();
    assert_eq!(
        racs_at(&server, &key, 52.54, 13.35, time).await,
        hours[3]["index"]["value"]
    );

    // Now: the latest reading is an hour old, still fresh.
    let (_, data) = lookup(&server, &key, "conditions", place).await;
    assert_eq!(
        data["hour"]["pollutants"]["pm25"]["value"],
        json!(station_pm25(1))
    );
    // Ahead: readings age past three hours, and those hours are absent, not invented.
    let (meta, data) = lookup(&server, &key, "forecast", &format!("{place}&hours=12")).await;
    let answered = data["hours"].as_array().unwrap().len();
    assert!((1..12).contains(&answered), "{meta}");
    assert_eq!(meta["answered"], answered);

    // Far from any station: a 200 with nothing in it, and a note.
    let (meta, data) = lookup(&server, &key, "conditions", "lat=-33.9&lon=18.4").await;
    assert_eq!(data["hour"], Value::Null);
    assert_eq!(meta["answered"], 0);
    assert_eq!(
        meta["dataSource"]["newestObservation"],
        Value::Null,
        "{meta}"
    );
    assert_eq!(meta["dataSource"]["basis"], Value::Null, "{meta}");
    assert!(
        meta["notes"][0]
            .as_str()
            .unwrap()
            .contains("no air-quality data"),
        "{meta}"
    );
    let (meta, data) = lookup(&server, &key, "pollen", "lat=52.54&lon=13.35").await;
    assert_eq!(data["days"], json!([]), "the file has no pollen");
    assert!(
        meta["notes"][0]
            .as_str()
            .unwrap()
            .contains("no pollen data"),
        "{meta}"
    );
}

/// Grass pollen of a reading at `hour` of the day: four values in turn, a mean of 13 over a day.
fn station_grass(hour: i64) -> f64 {
    10.0 + 2.0 * (hour % 4) as f64
}

#[tokio::test]
async fn a_station_files_pollen_days_are_observed_until_the_newest_reading_behind_them() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    // A station in Iceland, which keeps UTC all year: its civil days are UTC days. Readings
    // every hour of today (a file may hold readings of any time), then six hours of tomorrow,
    // too few for a day.
    let today = this_hour() - Duration::hours(i64::from(this_hour().hour()));
    let mut csv = String::from("station_id,lon,lat,time,grass_pollen\n");
    for h in 0..30 {
        let t = (today + Duration::hours(h)).to_rfc3339();
        csv.push_str(&format!("S1,-21.94,64.15,{t},{}\n", station_grass(h)));
    }
    let path = deployment.path().join("stations.csv");
    std::fs::write(&path, csv).unwrap();
    let server = deployment.serve(&["--aq-source", &format!("stations:{}", path.display())]);

    let (meta, data) = lookup(&server, &key, "pollen", "lat=64.15&lon=-21.94&days=2").await;
    assert_eq!(
        (&meta["requested"], &meta["answered"]),
        (&json!(2), &json!(1))
    );
    let days = data["days"].as_array().unwrap();
    assert_eq!(
        days[0]["date"],
        json!(today.date_naive().to_string()),
        "{data}"
    );
    assert_eq!(
        days[0]["types"]["grass"]["meanGrainsM3"],
        json!(13.0),
        "{data}"
    );
    assert_eq!(days[0]["types"]["grass"]["level"], json!(3), "{data}");
    // Station files name types, not plants.
    assert_eq!(days[0]["plants"], json!([]), "{data}");
    let source = &meta["dataSource"];
    assert_eq!(source["basis"], "observations", "{meta}");
    assert_eq!(source["modelRuns"], json!([]));
    // The last reading of today, at 23:00, is the newest behind the day; tomorrow's readings
    // are behind no day answered.
    assert_eq!(
        source["newestObservation"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap(),
        today + Duration::hours(23),
        "{meta}"
    );
    assert_eq!(source["provenanceNote"], Value::Null);
}

// --- Open-Meteo, faked ------------------------------------------------------------------------

#[derive(serde::Deserialize)]
struct AirQualityQuery {
    latitude: String,
    start_hour: String,
    end_hour: String,
}

/// PM2.5 the fake answers at `hour` (seconds since the epoch).
fn fake_pm25(t: i64) -> f64 {
    5.0 + ((t / 3600) % 24) as f64
}

/// Answers like Open-Meteo's air-quality API: one object per location, every hour from
/// `start_hour` to `end_hour`; north of 60° every value is null (not covered).
async fn fake_open_meteo(Query(q): Query<AirQualityQuery>) -> axum::Json<Value> {
    let parse = |s: &str| {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")
            .unwrap()
            .and_utc()
            .timestamp()
    };
    let (start, end) = (parse(&q.start_hour), parse(&q.end_hour));
    let times: Vec<i64> = (start..=end).step_by(3600).collect();
    let locations: Vec<Value> = q
        .latitude
        .split(',')
        .map(|lat| {
            let north = lat.parse::<f64>().unwrap() >= 60.0;
            let column = |f: &dyn Fn(i64) -> f64| -> Vec<Value> {
                times
                    .iter()
                    .map(|&t| if north { Value::Null } else { json!(f(t)) })
                    .collect()
            };
            json!({"hourly_units": {"pm2_5": "µg/m³", "nitrogen_dioxide": "µg/m³",
                                    "ozone": "µg/m³", "grass_pollen": "grains/m³",
                                    "birch_pollen": "grains/m³"},
                   "hourly": {"time": times, "pm2_5": column(&fake_pm25),
                              "nitrogen_dioxide": column(&|_| 20.0),
                              "ozone": column(&|_| 60.0),
                              "grass_pollen": column(&|_| 30.0),
                              "birch_pollen": column(&|_| 0.4),
                              "alder_pollen": column(&|_| 0.0)}})
        })
        .collect();
    axum::Json(if locations.len() == 1 {
        locations[0].clone()
    } else {
        Value::Array(locations)
    })
}

async fn start_fake_open_meteo() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().route("/v1/air-quality", axum::routing::get(fake_open_meteo));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test]
async fn open_meteo_answers_through_its_api_with_its_window() {
    let fake = start_fake_open_meteo().await;
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&["--aq-source", &format!("open-meteo:http://{fake}")]);
    let place = "lat=52.52&lon=13.40";

    let (meta, data) = lookup(&server, &key, "conditions", place).await;
    assert_eq!(meta["dataSource"]["name"], "open-meteo");
    assert_eq!(meta["dataSource"]["historyHours"], 92 * 24);
    assert_eq!(meta["dataSource"]["forecastHours"], 7 * 24);
    assert!(
        meta["dataSource"]["attribution"]
            .as_str()
            .unwrap()
            .contains("Open-Meteo")
    );
    // A model, but its answers do not name the run: none is claimed, and the note says why.
    assert_eq!(meta["dataSource"]["basis"], "model");
    assert_eq!(meta["dataSource"]["modelRuns"], json!([]));
    assert!(
        meta["dataSource"]["provenanceNote"]
            .as_str()
            .unwrap()
            .contains("do not name the model run"),
        "{meta}"
    );
    let hour = &data["hour"];
    check_hour(hour);
    let now = this_hour();
    assert_eq!(
        hour["pollutants"]["pm25"]["value"],
        json!(fake_pm25(now.timestamp()))
    );
    assert!(
        hour["pollutants"].get("so2").is_none(),
        "the fake sends no SO₂: {hour}"
    );
    let time = hour["time"].as_str().unwrap();
    assert_eq!(
        racs_at(&server, &key, 52.52, 13.40, time).await,
        hour["index"]["value"]
    );
    // The US AQI of the hour is the NowCast of the fake's last 12 hours of PM2.5, unless O₃
    // (60 µg/m³ ≈ 30.6 ppb, AQI 28) or NO₂ (20 µg/m³ ≈ 10.6 ppb, AQI 10) is higher.
    let pm: Vec<f64> = (0..12)
        .map(|i| fake_pm25((now - Duration::hours(i)).timestamp()))
        .collect();
    let expected = epa_pm25_aqi(epa_nowcast(&pm)).max(28);
    assert_eq!(hour["usAqi"]["value"], json!(expected), "{hour}");

    let (meta, data) = lookup(
        &server,
        &key,
        "history",
        &format!("{place}&hours=720&pageSize=720"),
    )
    .await;
    assert_eq!(meta["answered"], 720, "within the 92 days Open-Meteo keeps");
    let first = &data["hours"][0];
    let t: DateTime<Utc> = first["time"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        first["pollutants"]["pm25"]["value"],
        json!(fake_pm25(t.timestamp()))
    );

    let (meta, _) = lookup(&server, &key, "forecast", &format!("{place}&hours=96")).await;
    assert_eq!(meta["answered"], 96);

    let (meta, data) = lookup(&server, &key, "pollen", &format!("{place}&days=3")).await;
    let days = data["days"].as_array().unwrap();
    assert_eq!(days.len(), 3, "{data}");
    // The days come from the same model, whose runs are not named either.
    assert_eq!(meta["dataSource"]["basis"], "model");
    assert_eq!(meta["dataSource"]["modelRuns"], json!([]));
    assert!(
        meta["dataSource"]["provenanceNote"]
            .as_str()
            .unwrap()
            .contains("do not name the model run"),
        "{meta}"
    );
    assert_eq!(days[0]["types"]["grass"]["meanGrainsM3"], json!(30.0));
    assert_eq!(days[0]["types"]["grass"]["level"], json!(4));
    // Alder and birch: tree pollen of 0.4 grains/m³, under Very low but in season.
    assert_eq!(days[0]["types"]["tree"]["meanGrainsM3"], json!(0.4));
    assert_eq!(days[0]["types"]["tree"]["category"], "None");
    assert!(
        days[0]["types"].get("weed").is_none(),
        "the fake sends no weed pollen"
    );
    // Each variable the fake sends is a plant; the others are left out.
    let plants: Vec<(&str, &str, bool)> = days[0]["plants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let (code, category) = (p["code"].as_str(), p["category"].as_str());
            (code.unwrap(), category.unwrap(), p["inSeason"] == true)
        })
        .collect();
    assert_eq!(
        plants,
        [
            ("alder", "None", false),
            ("birch", "None", true),
            ("grass", "High", true)
        ],
        "{}",
        days[0]
    );

    // North of 60° the model has nothing: a 200 with every hour absent.
    let (meta, data) = lookup(&server, &key, "forecast", "lat=70&lon=20&hours=5").await;
    assert_eq!(data["hours"], json!([]));
    assert_eq!(meta["answered"], 0);
    assert!(
        meta["notes"][0]
            .as_str()
            .unwrap()
            .contains("no air-quality data"),
        "{meta}"
    );
}
