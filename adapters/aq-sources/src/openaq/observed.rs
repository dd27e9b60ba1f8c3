//! OpenAQ's latest readings as taken, for a fused source: the stations inside an area
//! (`GET /v3/locations?bbox={west},{south},{east},{north}&mobile=false`, page by page; an area
//! across the antimeridian is asked as its two halves), the live ones (last measurement within
//! the window), reference monitors first and then nearest the area's centre, up to the
//! query's `max_stations`, each with its sensors' latest values.
//!
//! OpenAQ's latest values are one reading per sensor, so each series holds one reading: the
//! newest per pollutant at the station, converted to µg/m³ but not checked (a negative value
//! stays negative for the reader's quality control to count). A stuck analyser cannot be seen
//! in one reading; stale, negative and outlier readings can.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use aq_core::{
    AirQualitySource, Area, ObservationQuery, ObservationSource, Pollutant, Reading, SourceError,
    SourceInfo, StationId, StationSeries,
};
use async_trait::async_trait;
use chrono::DateTime;

use super::answers::{Location, read_locations};
use super::{OpenAq, SERVICE, Stations, cached, to_ug_m3};
use crate::http;

/// An area's cache key: its bounds in ten-thousandths of a degree (about 11 m).
pub(super) type AreaKey = [i64; 4];

fn key_of(area: &Area) -> AreaKey {
    // Bounds are within ±180°, so the products fit easily.
    #[allow(clippy::cast_possible_truncation)]
    let k = |v: f64| (v * 10_000.0).round() as i64;
    [
        k(area.south()),
        k(area.west()),
        k(area.north()),
        k(area.east()),
    ]
}

/// The boxes OpenAQ is asked for: the area, or its two halves when it crosses the
/// antimeridian; each `[west, south, east, north]`.
fn boxes(area: &Area) -> Vec<[f64; 4]> {
    if area.west() <= area.east() {
        vec![[area.west(), area.south(), area.east(), area.north()]]
    } else {
        vec![
            [area.west(), area.south(), 180.0, area.north()],
            [-180.0, area.south(), area.east(), area.north()],
        ]
    }
}

impl OpenAq {
    async fn fetch_area(&self, area: Area) -> Result<(AreaKey, Arc<Stations>), SourceError> {
        let mut list = Vec::new();
        for [west, south, east, north] in boxes(&area) {
            for page in 1..=self.config.locations_max_pages {
                let mut url = self.url("locations")?;
                url.query_pairs_mut()
                    .append_pair(
                        "bbox",
                        &format!("{west:.4},{south:.4},{east:.4},{north:.4}"),
                    )
                    .append_pair("mobile", "false")
                    .append_pair("limit", &self.config.locations_limit.to_string())
                    .append_pair("page", &page.to_string());
                let body =
                    http::get_body(self.request(url), SERVICE, &self.config.base_url).await?;
                let page = read_locations(&body, &self.config.parameters)?;
                list.extend(page.usable);
                if page.listed < self.config.locations_limit as usize {
                    break;
                }
            }
        }
        let stations = Stations {
            fetched: self.clock.now().timestamp(),
            list,
        };
        Ok((key_of(&area), Arc::new(stations)))
    }
}

#[async_trait]
impl ObservationSource for OpenAq {
    fn info(&self) -> SourceInfo {
        AirQualitySource::info(self)
    }

    async fn observations(
        &self,
        query: &ObservationQuery,
    ) -> Result<Vec<StationSeries>, SourceError> {
        let area = query.area;
        let now = self.clock.now();
        let listed = cached(&self.areas, [key_of(&area)], now, 1, |_| {
            self.fetch_area(area)
        })
        .await?;
        let Some(stations) = listed.get(&key_of(&area)) else {
            return Ok(Vec::new());
        };
        let (from, to) = (query.from.timestamp(), query.to.timestamp());
        // A station that reported within the window, as the list last knew.
        let since = from.min(stations.fetched - (to - from));
        let centre = area.centre();
        let prefer = self.config.prefer_monitors;
        let mut live: Vec<(f64, &Location)> = stations
            .list
            .iter()
            .filter(|l| l.last.is_some_and(|last| last >= since) && area.contains(l.position))
            .map(|l| (l.position.distance_m(centre), l))
            .collect();
        live.sort_by(|a, b| {
            (prefer && !a.1.monitor)
                .cmp(&(prefer && !b.1.monitor))
                .then(a.0.total_cmp(&b.0))
                .then(a.1.id.cmp(&b.1.id))
        });
        live.truncate(query.max_stations);
        let ids: HashSet<u64> = live.iter().map(|(_, l)| l.id).collect();
        let latest = self.latest_for(ids).await?;
        let mut out = Vec::new();
        for (_, location) in live {
            let Some(values) = latest.get(&location.id) else {
                continue;
            };
            let mut newest: HashMap<Pollutant, (i64, f64)> = HashMap::new();
            for (sensor, pollutant, unit) in &location.sensors {
                let Some(&(time, raw)) = values.get(sensor) else {
                    continue;
                };
                if time < from || time > to {
                    continue;
                }
                let Some(value) = to_ug_m3(*pollutant, unit, raw) else {
                    continue;
                };
                let slot = newest.entry(*pollutant).or_insert((time, value));
                if time > slot.0 {
                    *slot = (time, value);
                }
            }
            for p in Pollutant::ALL {
                let Some(&(time, value)) = newest.get(&p) else {
                    continue;
                };
                let Some(time) = DateTime::from_timestamp(time, 0) else {
                    continue;
                };
                out.push(StationSeries {
                    station: StationId(location.id.to_string()),
                    position: location.position,
                    pollutant: p,
                    readings: vec![Reading { time, value }],
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use aq_core::Position;
    use chrono::{Duration, TimeZone, Utc};
    use runtime_core::FixedClock;
    use serde_json::{Value as Json, json};

    use super::*;
    use crate::openaq::OpenAqConfig;
    use crate::test_server::{Reply, Request, TestServer};

    fn t0() -> DateTime<chrono::Utc> {
        Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap()
    }

    fn location(id: u64, lat: f64, lon: f64, monitor: bool, last: DateTime<Utc>) -> Json {
        json!({"id": id, "name": format!("station {id}"), "isMobile": false, "isMonitor": monitor,
               "sensors": [
                   {"id": id * 10, "parameter": {"id": 2, "name": "pm25", "units": "µg/m³"}},
                   {"id": id * 10 + 1, "parameter": {"id": 7, "name": "no2", "units": "ppm"}}],
               "coordinates": {"latitude": lat, "longitude": lon},
               "datetimeLast": {"utc": last.to_rfc3339()}})
    }

    fn latest(sensor: u64, value: f64, at: DateTime<Utc>) -> Json {
        json!({"datetime": {"utc": at.to_rfc3339()}, "value": value, "sensorsId": sensor})
    }

    fn page(results: Vec<Json>) -> String {
        json!({"meta": {"found": results.len()}, "results": results}).to_string()
    }

    /// Three live stations in Berlin (one a low-cost sensor, one reading a negative PM2.5) and
    /// one silent for a day.
    fn berlin(req: &Request) -> Reply {
        match req.path.as_str() {
            "/v3/locations" => {
                assert!(req.param("bbox").is_some(), "{req:?}");
                assert_eq!(req.param("mobile"), Some("false"));
                Reply::json(page(vec![
                    location(1, 52.52, 13.40, true, t0()),
                    location(2, 52.50, 13.30, false, t0()),
                    location(3, 52.55, 13.45, true, t0()),
                    location(4, 52.51, 13.41, true, t0() - Duration::hours(24)),
                ]))
            }
            "/v3/locations/1/latest" => Reply::json(page(vec![
                latest(10, 12.0, t0()),
                latest(11, 0.02, t0() - Duration::hours(1)),
            ])),
            "/v3/locations/2/latest" => Reply::json(page(vec![latest(20, 30.0, t0())])),
            "/v3/locations/3/latest" => Reply::json(page(vec![latest(30, -4.0, t0())])),
            _ => Reply::status(404, r#"{"detail":"Not Found"}"#),
        }
    }

    fn source(base_url: &str) -> OpenAq {
        OpenAq::new(
            OpenAqConfig {
                base_url: base_url.to_owned(),
                api_key: "k".to_owned(),
                ..OpenAqConfig::default()
            },
            Arc::new(FixedClock::new(t0())),
        )
        .unwrap()
    }

    fn query(max_stations: usize) -> ObservationQuery {
        ObservationQuery {
            area: Area::new(52.0, 13.0, 53.0, 14.0).unwrap(),
            from: t0() - Duration::hours(12),
            to: t0(),
            max_stations,
        }
    }

    #[tokio::test]
    async fn an_areas_live_stations_give_their_latest_readings_as_taken() {
        let server = TestServer::start(berlin).await;
        let s = source(&server.base_url);
        let series = s.observations(&query(10)).await.unwrap();
        let of = |id: &str, p: Pollutant| {
            series
                .iter()
                .find(|s| s.station.0 == id && s.pollutant == p)
                .map(|s| s.readings.clone())
        };
        assert_eq!(
            of("1", Pollutant::Pm25),
            Some(vec![Reading {
                time: t0(),
                value: 12.0
            }])
        );
        // 0.02 ppm of NO₂ at 20 °C.
        let no2 = of("1", Pollutant::No2).unwrap()[0].value;
        assert!((no2 - 38.25).abs() < 0.01, "{no2}");
        assert_eq!(of("2", Pollutant::Pm25).unwrap()[0].value, 30.0);
        // Negative readings are passed on for the reader to judge.
        assert_eq!(of("3", Pollutant::Pm25).unwrap()[0].value, -4.0);
        // Silent for a day: not live.
        assert!(series.iter().all(|s| s.station.0 != "4"));
        let bbox = server.requests()[0].param("bbox").unwrap().to_owned();
        assert_eq!(bbox, "13.0000,52.0000,14.0000,53.0000");

        // Two stations at most: the monitors, before the nearer low-cost sensor.
        let two = s.observations(&query(2)).await.unwrap();
        let mut ids: Vec<&str> = two.iter().map(|s| s.station.0.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids, ["1", "3"]);
        // The area's list was asked once.
        let listed = server
            .requests()
            .iter()
            .filter(|r| r.path == "/v3/locations")
            .count();
        assert_eq!(listed, 1);
    }

    #[test]
    fn an_area_across_the_antimeridian_is_asked_in_two_halves() {
        let fiji = Area::new(-20.0, 177.0, -15.0, -179.0).unwrap();
        assert_eq!(
            boxes(&fiji),
            vec![[177.0, -20.0, 180.0, -15.0], [-180.0, -20.0, -179.0, -15.0]]
        );
        assert!(fiji.contains(Position::new(179.0, -17.0).unwrap()));
    }
}
