//! The OpenAQ source against a stand-in API.

use std::sync::atomic::{AtomicU16, Ordering};

use aq_core::Position;
use chrono::{TimeZone, Utc};
use runtime_core::FixedClock;
use serde_json::{Value as Json, json};

use super::*;
use crate::conformance::{self, Expectations};
use crate::test_server::{Reply, Request, TestServer, dead_base_url};

fn clock() -> Arc<dyn Clock> {
    Arc::new(FixedClock::new(t0()))
}

/// The default configuration without the EEA minimum, for tests on single pollutants.
fn any() -> OpenAqConfig {
    OpenAqConfig {
        required: RequiredPollutants::Any,
        ..OpenAqConfig::default()
    }
}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap()
}

fn q(lon: f64, lat: f64, t: DateTime<Utc>) -> SampleQuery {
    SampleQuery {
        position: Position::new(lon, lat).unwrap(),
        time: t,
    }
}

fn sensor(id: u64, pid: u32, name: &str, units: &str) -> Json {
    json!({"id": id, "name": format!("{name} {units}"),
           "parameter": {"id": pid, "name": name, "units": units, "displayName": name}})
}

fn location(id: u64, lat: f64, lon: f64, sensors: Vec<Json>) -> Json {
    json!({"id": id, "name": format!("station {id}"), "locality": null, "timezone": "Europe/Berlin",
           "country": {"id": 50, "code": "DE", "name": "Germany"},
           "owner": {"id": 4, "name": "Unknown Governmental Organization"},
           "provider": {"id": 70, "name": "EEA"}, "isMobile": false, "isMonitor": true,
           "instruments": [{"id": 2, "name": "Government Monitor"}],
           "sensors": sensors, "coordinates": {"latitude": lat, "longitude": lon},
           "licenses": null, "bounds": [lon, lat, lon, lat], "distance": null,
           "datetimeFirst": null, "datetimeLast": null})
}

/// [`location`] with its last measurement at `last`.
fn reporting(mut location: Json, last: DateTime<Utc>) -> Json {
    location["datetimeLast"] = json!({"utc": last.to_rfc3339(), "local": last.to_rfc3339()});
    location
}

fn latest(sensor: u64, location: u64, value: Json, at: DateTime<Utc>) -> Json {
    json!({"datetime": {"utc": at.to_rfc3339(), "local": at.to_rfc3339()}, "value": value,
           "coordinates": {"latitude": 52.5, "longitude": 13.4},
           "sensorsId": sensor, "locationsId": location})
}

fn page(results: Vec<Json>) -> String {
    json!({"meta": {"name": "openaq-api", "website": "/", "page": 1, "limit": 100, "found": results.len()},
           "results": results})
    .to_string()
}

/// Two stations in Berlin, about 1.7 km apart. Station 101 measures PM2.5 in µg/m³, NO₂ in
/// ppm and O₃ (negative: a fault); station 102 measures PM2.5 with the Greek mu, three
/// hours before station 101 reported. A station without coordinates and one with only
/// unknown parameters are ignored.
fn fixture(req: &Request) -> Reply {
    match req.path.as_str() {
        "/v3/locations" => {
            let coords = req.param("coordinates").unwrap();
            let (lat, lon) = coords.split_once(',').unwrap();
            let (lat, lon): (f64, f64) = (lat.parse().unwrap(), lon.parse().unwrap());
            if (lat - 52.52).abs() > 0.5 || (lon - 13.40).abs() > 0.5 {
                return Reply::json(page(vec![]));
            }
            let mut nowhere = location(103, 0.0, 0.0, vec![sensor(3001, 2, "pm25", "µg/m³")]);
            nowhere["coordinates"] = json!({"latitude": null, "longitude": null});
            Reply::json(page(vec![
                reporting(
                    location(
                        101,
                        52.52,
                        13.40,
                        vec![
                            sensor(1001, 2, "pm25", "µg/m³"),
                            sensor(1002, 7, "no2", "ppm"),
                            sensor(1003, 3, "o3", "µg/m³"),
                        ],
                    ),
                    t0(),
                ),
                reporting(
                    location(
                        102,
                        52.535,
                        13.41,
                        vec![sensor(2001, 2, "pm25", "\u{03BC}g/m³")],
                    ),
                    t0() - chrono::Duration::hours(3),
                ),
                nowhere,
                location(
                    104,
                    52.52,
                    13.40,
                    vec![sensor(4001, 98, "relativehumidity", "%")],
                ),
            ]))
        }
        "/v3/locations/101/latest" => Reply::json(page(vec![
            latest(1001, 101, json!(12.0), t0()),
            latest(1002, 101, json!(0.02), t0()),
            latest(1003, 101, json!(-999.0), t0()),
        ])),
        "/v3/locations/102/latest" => Reply::json(page(vec![latest(
            2001,
            102,
            json!(30.0),
            t0() - chrono::Duration::hours(3),
        )])),
        _ => Reply::status(404, r#"{"detail":"Not Found"}"#),
    }
}

fn source(base_url: &str) -> OpenAq {
    OpenAq::new(
        OpenAqConfig {
            base_url: base_url.to_owned(),
            api_key: "test-key".to_owned(),
            timeout_ms: 2_000,
            ..any()
        },
        clock(),
    )
    .unwrap()
}

#[tokio::test]
async fn cached_answers_expire_by_the_clock() {
    let server = TestServer::start(fixture).await;
    let clock = Arc::new(FixedClock::new(t0()));
    let s = OpenAq::new(
        OpenAqConfig {
            base_url: server.base_url.clone(),
            api_key: "k".into(),
            ..any()
        },
        clock.clone(),
    )
    .unwrap();
    let query = [q(13.40, 52.52, t0())];
    let asked = |path: &str| server.requests().iter().filter(|r| r.path == path).count();
    let (locations, latest) = ("/v3/locations", "/v3/locations/101/latest");
    s.sample(&query).await.unwrap();
    s.sample(&query).await.unwrap();
    assert_eq!((asked(locations), asked(latest)), (1, 1));
    // Latest values keep ten minutes, station lists six hours.
    clock.advance(chrono::Duration::minutes(10));
    s.sample(&query).await.unwrap();
    assert_eq!((asked(locations), asked(latest)), (1, 2));
    clock.advance(chrono::Duration::hours(6));
    s.sample(&query).await.unwrap();
    assert_eq!((asked(locations), asked(latest)), (2, 3));
}

fn get(s: Option<AirSample>, p: Pollutant) -> Option<f64> {
    s.unwrap()
        .concentrations
        .unwrap()
        .get(p)
        .map(Concentration::ug_m3)
}

#[tokio::test]
async fn latest_values_near_a_point_are_weighted_converted_and_filtered() {
    let server = TestServer::start(fixture).await;
    let s = source(&server.base_url);
    let half = t0() + chrono::Duration::minutes(30);
    let answers = s
        .sample(&[
            q(13.40, 52.52, half),
            q(13.405, 52.527, half),
            q(13.40, 52.52, t0() + chrono::Duration::hours(2)),
            q(13.40, 52.52, t0() - chrono::Duration::minutes(181)),
            q(
                13.40,
                52.52,
                t0() + chrono::Duration::hours(3) + chrono::Duration::minutes(1),
            ),
            q(20.0, 40.0, half),
        ])
        .await
        .unwrap();
    // At station 101 itself: its own PM2.5; 0.02 ppm of NO₂ is about 38.25 µg/m³ at the
    // EEA's 20 °C (37.63 at EPA's 25 °C); the negative ozone is dropped.
    assert_eq!(get(answers[0], Pollutant::Pm25), Some(12.0));
    assert!((get(answers[0], Pollutant::No2).unwrap() - 38.25).abs() < 0.01);
    assert_eq!(get(answers[0], Pollutant::O3), None);
    // Near station 102 at 08:30 its value is 3.5 h old, past the 3 h limit: only station
    // 101's counts.
    assert_eq!(get(answers[1], Pollutant::Pm25), Some(12.0));
    // Two hours on, still fresh.
    assert!(answers[2].is_some());
    // Before every measurement, or more than 3 hours after the last: nothing usable.
    assert!(answers[3].is_none());
    assert!(answers[4].is_none());
    // No station near.
    assert!(answers[5].is_none());

    let requests = server.requests();
    assert!(
        requests
            .iter()
            .all(|r| r.header("x-api-key") == Some("test-key"))
    );
    let lookups: Vec<_> = requests
        .iter()
        .filter(|r| r.path == "/v3/locations")
        .collect();
    assert_eq!(lookups.len(), 3, "one per grid cell");
    assert!(lookups.iter().all(|r| r.param("radius") == Some("25000")));
    // Lookups run concurrently, so they arrive in any order: each must name one of the
    // queried places, latitude first.
    for lookup in &lookups {
        let coordinates = lookup.param("coordinates").unwrap();
        let (lat, lon) = coordinates.split_once(',').unwrap();
        let (lat, lon): (f64, f64) = (lat.parse().unwrap(), lon.parse().unwrap());
        assert!(
            [(13.40, 52.52), (13.405, 52.527), (20.0, 40.0)]
                .iter()
                .any(|&(q_lon, q_lat)| (q_lat - lat).abs() < 0.01 && (q_lon - lon).abs() < 0.01),
            "latitude first, then longitude, of a queried place: {coordinates}"
        );
    }
    // 104 has no known parameter, 103 no position: only 101 and 102 are read.
    let mut latest: Vec<_> = requests
        .iter()
        .filter(|r| r.path.ends_with("/latest"))
        .map(|r| r.path.clone())
        .collect();
    latest.sort();
    assert_eq!(
        latest,
        ["/v3/locations/101/latest", "/v3/locations/102/latest"]
    );
}

#[tokio::test]
async fn a_fresh_neighbour_is_weighted_in() {
    let server = TestServer::start(fixture).await;
    let s = source(&server.base_url);
    // At 07:00 station 102's 05:00 value is 2 h old, and 101's 08:00 value lies in the future.
    let a = s
        .sample(&[q(13.41, 52.535, t0() - chrono::Duration::hours(1))])
        .await
        .unwrap();
    assert_eq!(get(a[0], Pollutant::Pm25), Some(30.0));
    // Halfway between them at 08:00, both count (102's is exactly 3 h old).
    let a = s.sample(&[q(13.405, 52.5275, t0())]).await.unwrap();
    let pm = get(a[0], Pollutant::Pm25).unwrap();
    assert!(pm > 12.0 && pm < 30.0, "{pm}");
}

#[test]
fn units_convert() {
    assert_eq!(to_ug_m3(Pollutant::Pm25, "μg/m³", 5.0), Some(5.0));
    assert_eq!(to_ug_m3(Pollutant::Co, "mg/m³", 0.5), Some(500.0));
    // 50 ppb of O₃ at the EEA's 20 °C (98.16 µg/m³ at EPA's 25 °C).
    assert!((to_ug_m3(Pollutant::O3, "ppb", 50.0).unwrap() - 99.77).abs() < 0.01);
    assert!((to_ug_m3(Pollutant::O3, "ppm", 0.05).unwrap() - 99.77).abs() < 0.01);
    assert_eq!(to_ug_m3(Pollutant::Pm10, "ppm", 5.0), None);
    assert_eq!(to_ug_m3(Pollutant::Pm10, "particles/cm³", 5.0), None);
}

#[tokio::test]
async fn errors_say_what_happened() {
    let status = Arc::new(AtomicU16::new(401));
    let st = Arc::clone(&status);
    let server = TestServer::start(move |_| {
        Reply::status(
            st.load(Ordering::SeqCst),
            r#"{"detail":"Invalid credentials"}"#,
        )
    })
    .await;
    let s = source(&server.base_url);
    let e = s.sample(&[q(13.4, 52.52, t0())]).await.unwrap_err();
    assert!(
        matches!(&e, SourceError::Refused(m) if m.contains("API key") && m.contains("Invalid credentials")),
        "{e}"
    );
    status.store(503, Ordering::SeqCst);
    let e = s.sample(&[q(13.4, 52.52, t0())]).await.unwrap_err();
    assert!(
        matches!(&e, SourceError::Unavailable(m) if m.contains("503")),
        "{e}"
    );
    status.store(200, Ordering::SeqCst);
    let e = s.sample(&[q(13.4, 52.52, t0())]).await.unwrap_err();
    assert!(
        matches!(&e, SourceError::InvalidResponse(m) if m.contains("`results`")),
        "{e}"
    );

    let slow = TestServer::start(|r| fixture(r).after(Duration::from_secs(3))).await;
    let s = OpenAq::new(
        OpenAqConfig {
            base_url: slow.base_url.clone(),
            api_key: "k".into(),
            timeout_ms: 200,
            ..any()
        },
        clock(),
    )
    .unwrap();
    assert_eq!(
        s.sample(&[q(13.4, 52.52, t0())]).await,
        Err(SourceError::Timeout)
    );
    let dead = source(&dead_base_url().await);
    let e = dead.sample(&[q(13.4, 52.52, t0())]).await.unwrap_err();
    assert!(
        matches!(&e, SourceError::Unavailable(m) if m.contains("cannot be reached")),
        "{e}"
    );
}

#[test]
fn configuration_is_checked() {
    let ok = OpenAqConfig {
        api_key: "k".into(),
        ..any()
    };
    assert!(OpenAq::new(ok.clone(), clock()).is_ok());
    let e = OpenAq::new(
        OpenAqConfig {
            api_key: " ".into(),
            ..ok.clone()
        },
        clock(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("api_key is required"), "{e}");
    let e = OpenAq::new(
        OpenAqConfig {
            idw: IdwConfig {
                radius_m: 30_000.0,
                ..ok.idw
            },
            ..ok.clone()
        },
        clock(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("25000"), "{e}");
    let e = OpenAq::new(
        OpenAqConfig {
            base_url: "ftp://x".into(),
            ..ok
        },
        clock(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("http://"), "{e}");
    // The key stays out of debug output.
    let s = OpenAq::new(
        OpenAqConfig {
            api_key: "secret".into(),
            ..any()
        },
        clock(),
    )
    .unwrap();
    assert!(!format!("{s:?}").contains("secret"));
}

#[tokio::test]
async fn conforms_to_the_port() {
    let server = TestServer::start(fixture).await;
    let s = source(&server.base_url);
    conformance::check_air_quality(
        &s,
        &Expectations {
            covered: vec![
                q(13.40, 52.52, t0()),
                q(13.41, 52.535, t0() - chrono::Duration::hours(1)),
                q(13.45, 52.50, t0() + chrono::Duration::hours(1)),
            ],
            uncovered: vec![
                q(13.40, 52.52, t0() - chrono::Duration::hours(4)),
                q(20.0, 40.0, t0()),
                q(13.40, 52.52, t0() + chrono::Duration::hours(5)),
            ],
        },
    )
    .await;
}

/// A Berlin neighbourhood for choosing stations: `stations` lists each station's id, offset
/// north of the query point in km, whether it is a monitor, whether it is mobile, and how many
/// hours before `t0` it last reported; each reports PM2.5 equal to its id. Pages hold `limit`
/// stations.
fn neighbourhood(
    stations: Vec<(u64, f64, bool, bool, i64)>,
    limit: usize,
) -> impl Fn(&Request) -> Reply {
    move |req: &Request| {
        if req.path == "/v3/locations" {
            let page_no: usize = req.param("page").unwrap().parse().unwrap();
            let all: Vec<Json> = stations
                .iter()
                .map(|&(id, km, monitor, mobile, hours)| {
                    let mut l = reporting(
                        location(
                            id,
                            52.52 + km / 111.2,
                            13.40,
                            vec![sensor(id * 10, 2, "pm25", "µg/m³")],
                        ),
                        t0() - chrono::Duration::hours(hours),
                    );
                    l["isMonitor"] = json!(monitor);
                    l["isMobile"] = json!(mobile);
                    l
                })
                .collect();
            let chunk = all
                .chunks(limit)
                .nth(page_no - 1)
                .map(<[Json]>::to_vec)
                .unwrap_or_default();
            return Reply::json(page(chunk));
        }
        let id: u64 = req
            .path
            .trim_start_matches("/v3/locations/")
            .trim_end_matches("/latest")
            .parse()
            .unwrap();
        #[allow(clippy::cast_precision_loss)]
        let value = id as f64;
        let hours = stations.iter().find(|s| s.0 == id).map_or(0, |s| s.4);
        Reply::json(page(vec![latest(
            id * 10,
            id,
            json!(value),
            t0() - chrono::Duration::hours(hours),
        )]))
    }
}

fn source_with(base_url: &str, neighbours: usize, limit: u32) -> OpenAq {
    OpenAq::new(
        OpenAqConfig {
            base_url: base_url.to_owned(),
            api_key: "k".to_owned(),
            idw: IdwConfig {
                neighbours,
                ..OpenAqConfig::default().idw
            },
            locations_limit: limit,
            ..any()
        },
        clock(),
    )
    .unwrap()
}

#[tokio::test]
async fn dead_nearest_stations_give_way_to_live_ones() {
    // Five stations at the point stopped reporting a month ago; one 10 km away reports now.
    let mut stations: Vec<_> = (1..=5).map(|id| (id, 0.0, true, false, 720)).collect();
    stations.push((40, 10.0, true, false, 0));
    let server = TestServer::start(neighbourhood(stations, 1_000)).await;
    let s = source_with(&server.base_url, 5, 1_000);
    let a = s.sample(&[q(13.40, 52.52, t0())]).await.unwrap();
    assert_eq!(get(a[0], Pollutant::Pm25), Some(40.0));
    let read: Vec<_> = server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/latest"))
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(
        read,
        ["/v3/locations/40/latest"],
        "dead stations are not read"
    );
}

#[tokio::test]
async fn reference_monitors_come_first_and_mobile_stations_never() {
    // A low-cost sensor 1 km away, a mobile station at the point, a monitor 5 km away.
    let stations = vec![
        (7, 1.0, false, false, 0),
        (9, 0.0, true, true, 0),
        (30, 5.0, true, false, 1),
    ];
    let server = TestServer::start(neighbourhood(stations.clone(), 1_000)).await;
    let s = source_with(&server.base_url, 1, 1_000);
    let a = s.sample(&[q(13.40, 52.52, t0())]).await.unwrap();
    let pm = get(a[0], Pollutant::Pm25).unwrap();
    assert!(
        (pm - 30.0).abs() < 1e-9,
        "the monitor, not the sensor: {pm}"
    );
    let lookup = &server.requests()[0];
    assert_eq!(lookup.param("mobile"), Some("false"));
    // With room for two, the sensor fills the second place; the mobile station never counts.
    let server = TestServer::start(neighbourhood(stations, 1_000)).await;
    let s = source_with(&server.base_url, 3, 1_000);
    let a = s.sample(&[q(13.40, 52.52, t0())]).await.unwrap();
    let pm = get(a[0], Pollutant::Pm25).unwrap();
    assert!(pm > 7.0 && pm < 30.0, "{pm}");
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.path != "/v3/locations/9/latest")
    );
}

#[tokio::test]
async fn station_lists_are_read_page_by_page() {
    // Seven stations, three a page: pages 1, 2 and 3 (a short one) are read, and the one live
    // station, last in the list, is found.
    let mut stations: Vec<_> = (1..=6).map(|id| (id, 0.0, true, false, 720)).collect();
    stations.push((50, 2.0, true, false, 0));
    let server = TestServer::start(neighbourhood(stations, 3)).await;
    let s = source_with(&server.base_url, 5, 3);
    let a = s.sample(&[q(13.40, 52.52, t0())]).await.unwrap();
    assert_eq!(get(a[0], Pollutant::Pm25), Some(50.0));
    let pages: Vec<_> = server
        .requests()
        .iter()
        .filter(|r| r.path == "/v3/locations")
        .map(|r| r.param("page").unwrap().to_owned())
        .collect();
    assert_eq!(pages, ["1", "2", "3"]);
}
