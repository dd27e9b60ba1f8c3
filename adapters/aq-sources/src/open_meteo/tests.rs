use std::sync::atomic::{AtomicU16, Ordering};

use aq_core::{Concentrations, PollenType};
use chrono::{NaiveDateTime, TimeZone, Timelike};
use runtime_core::FixedClock;
use serde_json::{Value as Json, json};

use super::*;
use crate::conformance::{self, Expectations, ForecastExpectations};
use crate::test_server::{Reply, Request, TestServer, dead_base_url};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap()
}

fn pos(lon: f64, lat: f64) -> Position {
    Position::new(lon, lat).unwrap()
}

fn q(lon: f64, lat: f64, t: DateTime<Utc>) -> SampleQuery {
    SampleQuery {
        position: pos(lon, lat),
        time: t,
    }
}

/// Answers like Open-Meteo: one structure per requested location (a bare object for one,
/// a list for several), hourly values from start_hour to end_hour. North of 60° every
/// value is null; PM2.5 rises by one each hour of the day so times matter; ozone is never
/// sent; olive pollen is null.
fn fixture(req: &Request) -> Reply {
    let lats: Vec<f64> = req
        .param("latitude")
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    let parse = |s: &str| {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")
            .unwrap()
            .and_utc()
            .timestamp()
    };
    let (start, end) = (
        parse(req.param("start_hour").unwrap()),
        parse(req.param("end_hour").unwrap()),
    );
    let times: Vec<i64> = (start..=end).step_by(3600).collect();
    let locations: Vec<Json> = lats
        .iter()
        .map(|&lat| {
            let v = |f: &dyn Fn(i64) -> f64| -> Vec<Json> {
                times
                    .iter()
                    .map(|&t| if lat >= 60.0 { Json::Null } else { json!(f(t)) })
                    .collect()
            };
            json!({
                "latitude": lat, "longitude": 13.4, "generationtime_ms": 0.5,
                "utc_offset_seconds": 0, "timezone": "GMT", "timezone_abbreviation": "GMT",
                "hourly_units": {"time": "unixtime", "pm10": "μg/m³", "pm2_5": "µg/m³",
                    "nitrogen_dioxide": "μg/m³", "sulphur_dioxide": "μg/m³",
                    "carbon_monoxide": "μg/m³", "alder_pollen": "grains/m³",
                    "birch_pollen": "grains/m³", "olive_pollen": "grains/m³",
                    "grass_pollen": "grains/m³", "mugwort_pollen": "grains/m³",
                    "ragweed_pollen": "grains/m³"},
                "hourly": {
                    "time": times,
                    "pm10": v(&|_| 12.0),
                    "pm2_5": v(&|t| 1.0 + f64::from(u8::try_from((t / 3600) % 24).unwrap())),
                    "nitrogen_dioxide": v(&|_| 5.0),
                    "sulphur_dioxide": v(&|_| 1.0),
                    "carbon_monoxide": v(&|_| 150.0),
                    "alder_pollen": v(&|_| 5.0),
                    "birch_pollen": v(&|_| 20.0),
                    "olive_pollen": times.iter().map(|_| Json::Null).collect::<Vec<_>>(),
                    "grass_pollen": v(&|_| 3.0),
                    "mugwort_pollen": v(&|_| 0.0),
                    "ragweed_pollen": v(&|_| 0.0),
                }
            })
        })
        .collect();
    let body = if locations.len() == 1 {
        locations[0].clone()
    } else {
        Json::Array(locations)
    };
    Reply::json(body.to_string())
}

fn source(base_url: &str) -> OpenMeteo {
    OpenMeteo::new(
        OpenMeteoConfig {
            base_url: base_url.to_owned(),
            timeout_ms: 2_000,
            ..OpenMeteoConfig::default()
        },
        Arc::new(FixedClock::new(now())),
    )
    .unwrap()
}

fn pm25(s: Option<AirSample>) -> f64 {
    s.unwrap()
        .concentrations
        .unwrap()
        .get(Pollutant::Pm25)
        .unwrap()
        .ug_m3()
}

#[tokio::test]
async fn batches_cells_into_one_request_and_caches() {
    let server = TestServer::start(fixture).await;
    let s = source(&server.base_url);
    let queries = [
        q(13.40, 52.52, now()),
        q(13.41, 52.51, now() + chrono::Duration::minutes(29)),
        q(2.35, 48.86, now() + chrono::Duration::hours(2)),
        q(2.35, 70.0, now()),
    ];
    let answers = s.sample(&queries).await.unwrap();
    assert_eq!(answers.len(), 4);
    // 08:00 and 08:29 read the 08:00 value (9 µg/m³); 10:00 reads 11.
    assert_eq!(pm25(answers[0]), 9.0);
    assert_eq!(pm25(answers[1]), 9.0);
    assert_eq!(pm25(answers[2]), 11.0);
    assert!(answers[3].is_none(), "all nulls: not covered");
    // No ozone was sent: the CI comes from the rest (PM2.5 9 µg/m³, sub-index 28).
    let c = answers[0].unwrap().concentrations.unwrap();
    assert!(c.get(Pollutant::O3).is_none());
    assert!((answers[0].unwrap().ci.value() - 72.0).abs() < 1e-9);

    let requests = server.requests();
    assert_eq!(requests.len(), 1, "three cells, one request");
    let r = &requests[0];
    assert_eq!(r.path, "/v1/air-quality");
    assert_eq!(r.param("latitude").unwrap().split(',').count(), 3);
    assert_eq!(r.param("timeformat"), Some("unixtime"));
    assert_eq!(r.param("start_hour"), Some("2026-05-04T08:00"));
    assert_eq!(r.param("end_hour"), Some("2026-05-04T10:00"));
    for var in [
        "pm10",
        "pm2_5",
        "nitrogen_dioxide",
        "ozone",
        "sulphur_dioxide",
        "carbon_monoxide",
        "alder_pollen",
        "birch_pollen",
        "grass_pollen",
        "mugwort_pollen",
        "olive_pollen",
        "ragweed_pollen",
    ] {
        assert!(
            r.param("hourly").unwrap().split(',').any(|v| v == var),
            "{var}"
        );
    }

    // The same cells and hours again: from the cache.
    let again = s.sample(&queries).await.unwrap();
    assert_eq!(again, answers);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn cells_are_split_across_requests() {
    let server = TestServer::start(fixture).await;
    let s = OpenMeteo::new(
        OpenMeteoConfig {
            base_url: server.base_url.clone(),
            max_locations_per_request: 2,
            ..OpenMeteoConfig::default()
        },
        Arc::new(FixedClock::new(now())),
    )
    .unwrap();
    let queries: Vec<_> = (0..5).map(|i| q(f64::from(i), 10.0, now())).collect();
    let answers = s.sample(&queries).await.unwrap();
    assert!(answers.iter().all(Option::is_some));
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn cached_answers_expire_by_the_clock() {
    let server = TestServer::start(fixture).await;
    let clock = Arc::new(FixedClock::new(now()));
    let s = OpenMeteo::new(
        OpenMeteoConfig {
            base_url: server.base_url.clone(),
            cache_ttl_s: 600,
            ..OpenMeteoConfig::default()
        },
        clock.clone(),
    )
    .unwrap();
    let query = [q(13.40, 52.52, now())];
    s.sample(&query).await.unwrap();
    clock.advance(chrono::Duration::seconds(599));
    s.sample(&query).await.unwrap();
    assert_eq!(server.requests().len(), 1, "fresh for ten minutes");
    clock.advance(chrono::Duration::seconds(1));
    s.sample(&query).await.unwrap();
    assert_eq!(server.requests().len(), 2, "asked again once stale");
}

#[tokio::test]
async fn hours_outside_the_api_window_need_no_request() {
    let server = TestServer::start(fixture).await;
    let s = source(&server.base_url);
    let answers = s
        .sample(&[
            q(1.0, 1.0, now() + chrono::Duration::days(8)),
            q(1.0, 1.0, now() - chrono::Duration::days(93)),
        ])
        .await
        .unwrap();
    assert_eq!(answers, [None, None]);
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn pollen_adds_up_plants_and_takes_daily_means() {
    let server = TestServer::start(fixture).await;
    let s = source(&server.base_url);
    let out = s
        .daily_pollen(&[pos(13.4, 52.5), pos(13.4, 65.0)], now(), 1)
        .await
        .unwrap();
    let o = out[0].as_ref().unwrap();
    // Tree: alder 5 + birch 20 (+ olive null) = 25 grains/m³ → level 3 (15 to 90).
    assert_eq!(o.yesterday.get(PollenType::Tree).unwrap().value(), 3);
    // Grass 3 → level 2; weed 0 → level 0.
    assert_eq!(o.yesterday.get(PollenType::Grass).unwrap().value(), 2);
    assert_eq!(o.yesterday.get(PollenType::Weed).unwrap().value(), 0);
    assert_eq!(o.days.len(), 2);
    assert_eq!(o.days[1], o.yesterday);
    // Berlin's civil days: yesterday, today and tomorrow, 72 hours from 22:00 UTC (CEST).
    let r = &server.requests()[0];
    assert_eq!(r.param("start_hour"), Some("2026-05-02T22:00"));
    assert_eq!(r.param("end_hour"), Some("2026-05-05T21:00"));
    assert!(out[1].is_none(), "only nulls: no pollen outlook");
    // The days of a lookup: the same means, and the runs unnamed as for the hours.
    let days = s
        .pollen_days(&[pos(13.4, 52.5), pos(13.4, 65.0)], now(), 2)
        .await
        .unwrap();
    let today = days[0].as_ref().unwrap();
    assert_eq!(today.days.len(), 2);
    let tree = today.days[0].get(PollenType::Tree).unwrap();
    assert_eq!(tree.mean_grains_m3, Some(25.0));
    assert_eq!(today.days[0].levels(), o.days[0]);
    assert_eq!(today.provenance, Provenance::unnamed_runs(UNNAMED_RUN));
    assert!(days[1].is_none());
    let series = s.hourly_ci(&[pos(13.4, 52.5)], now(), 3).await.unwrap();
    assert_eq!(series[0].as_ref().unwrap().values.len(), 4);
    let air = s
        .hourly_concentrations(&[pos(13.4, 52.5)], now(), 3)
        .await
        .unwrap();
    let air = air[0].as_ref().unwrap();
    for (c, ci) in air.values.iter().zip(&series[0].as_ref().unwrap().values) {
        let derived = c.and_then(|c| EaqiBands::default().ci(&c));
        assert_eq!(derived, *ci, "the CI comes from these concentrations");
    }
}

#[tokio::test]
async fn pollen_days_keep_each_plant_the_answer_gives() {
    let server = TestServer::start(fixture).await;
    let s = source(&server.base_url);
    let days = s
        .pollen_days(&[pos(13.4, 52.5), pos(13.4, 65.0)], now(), 2)
        .await
        .unwrap();
    let day = days[0].as_ref().unwrap().days[0];
    let plants: Vec<(Plant, f64, u8, bool)> = day
        .plants()
        .map(|(p, v)| (p, v.mean_grains_m3, v.level.value(), v.in_season()))
        .collect();
    // Olive is null every hour: left out. Alder 5 is Very low and birch 20 Moderate on the
    // tree thresholds, grass 3 Low; mugwort and ragweed are counted at 0, out of season.
    assert_eq!(
        plants,
        [
            (Plant::Alder, 5.0, 1, true),
            (Plant::Birch, 20.0, 3, true),
            (Plant::Grass, 3.0, 2, true),
            (Plant::Mugwort, 0.0, 0, false),
            (Plant::Ragweed, 0.0, 0, false),
        ]
    );
    // The type is the sum of its plants, its level that of the sum.
    let tree = day.get(PollenType::Tree).unwrap();
    assert_eq!(tree.mean_grains_m3, Some(25.0));
    assert_eq!(tree.level.value(), 3);
    assert!(days[1].is_none(), "only nulls: no plant either");
}

#[tokio::test]
async fn hourly_series_start_at_the_hour_read_on_either_side_of_the_half_hour() {
    let server = TestServer::start(fixture).await;
    let s = source(&server.base_url);
    let at = |m| now() + chrono::Duration::minutes(m);
    for (asked, read) in [(at(20), now()), (at(40), at(60))] {
        let series = s.hourly_ci(&[pos(13.4, 52.5)], asked, 2).await.unwrap();
        let series = series[0].as_ref().unwrap();
        assert_eq!(series.start, read, "asked at {asked}");
        // PM2.5 is 1 + the hour of the day: the first value is the hour read's.
        let pm = 1.0 + f64::from(u8::try_from(read.hour()).unwrap());
        let want = EaqiBands::default().ci(&Concentrations::default()
            .with(Pollutant::Pm25, aq_core::Concentration::new(pm).unwrap())
            .with(Pollutant::Pm10, aq_core::Concentration::new(12.0).unwrap())
            .with(Pollutant::No2, aq_core::Concentration::new(5.0).unwrap())
            .with(Pollutant::So2, aq_core::Concentration::new(1.0).unwrap())
            .with(Pollutant::Co, aq_core::Concentration::new(150.0).unwrap()));
        assert_eq!(series.values[0], want);
        let air = s
            .hourly_concentrations(&[pos(13.4, 52.5)], asked, 2)
            .await
            .unwrap();
        assert_eq!(air[0].as_ref().unwrap().start, read);
    }
}

#[tokio::test]
async fn server_errors_are_unavailable_and_bad_requests_refused() {
    let status = Arc::new(AtomicU16::new(500));
    let st = Arc::clone(&status);
    let server = TestServer::start(move |_| {
        let code = st.load(Ordering::SeqCst);
        Reply::status(
            code,
            r#"{"error":true,"reason":"Parameter 'start_hour' is out of allowed range"}"#,
        )
    })
    .await;
    let s = source(&server.base_url);
    let e = s.sample(&[q(1.0, 1.0, now())]).await.unwrap_err();
    assert!(
        matches!(&e, SourceError::Unavailable(m) if m.contains("HTTP 500")),
        "{e}"
    );
    status.store(400, Ordering::SeqCst);
    let e = s.sample(&[q(1.0, 1.0, now())]).await.unwrap_err();
    assert!(
        matches!(&e, SourceError::Refused(m) if m.contains("out of allowed range")),
        "{e}"
    );
    // Failures are not cached: a later call asks again.
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn slow_answers_time_out_and_dead_servers_are_unavailable() {
    let server = TestServer::start(|r| fixture(r).after(Duration::from_secs(3))).await;
    let s = OpenMeteo::new(
        OpenMeteoConfig {
            base_url: server.base_url.clone(),
            timeout_ms: 200,
            ..OpenMeteoConfig::default()
        },
        Arc::new(FixedClock::new(now())),
    )
    .unwrap();
    assert_eq!(
        s.sample(&[q(1.0, 1.0, now())]).await,
        Err(SourceError::Timeout)
    );

    let dead = source(&dead_base_url().await);
    let e = dead.sample(&[q(1.0, 1.0, now())]).await.unwrap_err();
    assert!(
        matches!(&e, SourceError::Unavailable(m) if m.contains("cannot be reached")),
        "{e}"
    );
}

#[tokio::test]
async fn malformed_answers_are_invalid() {
    for (body, expect) in [
        ("not json", "invalid JSON"),
        (r#"[{"hourly":{"time":[1]}}]"#, "2 requested"),
        (
            r#"{"hourly":{"time":[1777881600],"pm2_5":[1,2]}}"#,
            "2 values for 1 times",
        ),
        (
            r#"{"hourly_units":{"pm2_5":"ppm"},"hourly":{"time":[1777881600],"pm2_5":[1]}}"#,
            "expected µg/m³",
        ),
    ] {
        let server = TestServer::start(move |_| Reply::json(body)).await;
        let s = source(&server.base_url);
        let e = s.sample(&[q(1.0, 1.0, now()), q(2.0, 1.0, now())]).await;
        let e = if expect == "2 requested" {
            e.unwrap_err()
        } else {
            s.sample(&[q(1.0, 1.0, now())]).await.unwrap_err()
        };
        assert!(
            matches!(&e, SourceError::InvalidResponse(m) if m.contains(expect)),
            "{body}: {e}"
        );
    }
}

#[tokio::test]
async fn conforms_to_the_ports() {
    let server = TestServer::start(fixture).await;
    let s = source(&server.base_url);
    conformance::check_air_quality(
        &s,
        &Expectations {
            covered: vec![
                q(13.4, 52.5, now()),
                q(13.4, 52.5, now() + chrono::Duration::hours(5)),
                q(-70.0, -30.0, now()),
            ],
            uncovered: vec![
                q(13.4, 70.0, now()),
                q(13.4, 52.5, now() + chrono::Duration::days(9)),
            ],
        },
    )
    .await;
    conformance::check_forecast(
        &s,
        &ForecastExpectations {
            covered: vec![pos(13.4, 52.5), pos(100.0, -10.0)],
            uncovered: vec![pos(13.4, 75.0)],
            start: now(),
            hours: 12,
            pollen_covered: true,
        },
    )
    .await;
}
