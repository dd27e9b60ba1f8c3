//! The formats' errors, the answering rules, and the neighbourhood search against an exhaustive one.

use chrono::TimeZone;
use proptest::prelude::*;

use aq_core::{AirQualitySource, AirSample, Concentration, ForecastSource, SampleQuery};

use super::index::chord2;
use super::*;
use crate::idw::Accumulator;
use crate::values::N_VARS;
use aq_core::position::chord_to_m;

fn pos(lon: f64, lat: f64) -> Position {
    Position::new(lon, lat).unwrap()
}

/// The default configuration without the EEA minimum, for tests of interpolation on readings
/// of one pollutant.
fn config() -> StationFileConfig {
    StationFileConfig {
        required: RequiredPollutants::Any,
        ..StationFileConfig::default()
    }
}

fn t(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 4, h, m, 0).unwrap()
}

fn pm25(s: Option<AirSample>) -> f64 {
    s.unwrap()
        .concentrations
        .unwrap()
        .get(Pollutant::Pm25)
        .unwrap()
        .ug_m3()
}

#[test]
fn csv_errors_name_line_and_column() {
    let c = config();
    let e = StationFile::from_csv_str(
        "station_id,lon,lat,time,pm25\na,1,2,2026-05-04T08:00:00Z,5\nb,1,2,2026-05-04T08:00:00Z,-3\n",
        c.clone(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "station CSV line 3, column `pm25`: -3 is not a value in µg/m³: it must be finite and not negative"
    );
    let e = StationFile::from_csv_str("station_id,lon,lat,time\na,1,2,yesterday\n", c.clone())
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("station CSV line 2, column `time`: `yesterday` is not an RFC 3339"),
        "{e}"
    );
    let e = StationFile::from_csv_str("station_id,lon,lat,time,pm2.6\n", c.clone()).unwrap_err();
    assert!(e.to_string().contains("unknown column `pm2.6`"), "{e}");
    let e = StationFile::from_csv_str("station_id,lon,time\n", c.clone()).unwrap_err();
    assert!(e.to_string().contains("missing column `lat`"), "{e}");
    let e = StationFile::from_csv_str(
        "station_id,lon,lat,time\na,1,95,2026-05-04T08:00:00Z\n",
        c.clone(),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("line 2, column `lat`: latitude 95"),
        "{e}"
    );
    let e = StationFile::from_csv_str(
        "station_id,lon,lat,time\na,1,2,2026-05-04T08:00:00Z\na,1.5,2,2026-05-04T09:00:00Z\n",
        c.clone(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("CSV line 3: station `a` is at 1.5, 2"),
        "{e}"
    );
    let e = StationFile::from_csv_str("station_id,lon,lat,time\na,1,2\n", c.clone()).unwrap_err();
    assert!(e.to_string().starts_with("station CSV line 2:"), "{e}");
    assert!(matches!(
        StationFile::from_csv_str("station_id,lon,lat,time\n", c),
        Err(StationFileError::Empty)
    ));
}

#[test]
fn csv_accepts_aliases_comments_and_ignored_columns() {
    let csv = "# exported 2026-05-04\nStation_ID,Longitude,Latitude,time,PM2_5,_name\n\
               a,1,2,2026-05-04T08:00:00+02:00,5,Somewhere, far\n";
    // The unquoted comma makes a ragged row: reported with its line.
    let e = StationFile::from_csv_str(csv, config()).unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
    let csv = csv.replace("Somewhere, far", "\"Somewhere, far\"");
    let f = StationFile::from_csv_str(&csv, config()).unwrap();
    assert_eq!((f.station_count(), f.reading_count()), (1, 1));
    // 08:00+02:00 is 06:00 UTC.
    assert!(f.sample_at(pos(1.0, 2.0), t(5, 59)).is_none());
    assert_eq!(pm25(f.sample_at(pos(1.0, 2.0), t(6, 0))), 5.0);
}

#[test]
fn geojson_both_layouts_and_errors() {
    let doc = r#"{"type":"FeatureCollection","features":[
      {"type":"Feature","id":17,"geometry":{"type":"Point","coordinates":[13.40,52.52]},
       "properties":{"time":"2026-05-04T08:00:00Z","pm25":10,"name":"ignored"}},
      {"type":"Feature","geometry":{"type":"Point","coordinates":[13.50,52.52,34.0]},
       "properties":{"station_id":"b","readings":[
         {"time":"2026-05-04T07:00:00Z","pm25":30},
         {"time":"2026-05-04T08:00:00Z","pm25":20,"no2":null,"grass_pollen":12}]}}]}"#;
    let f = StationFile::from_geojson_str(doc, config()).unwrap();
    assert_eq!((f.station_count(), f.reading_count()), (2, 3));
    assert!((pm25(f.sample_at(pos(13.45, 52.52), t(9, 0))) - 15.0).abs() < 1e-6);

    let bad = doc.replace("\"pm25\":20", "\"pm25\":\"high\"");
    let e = StationFile::from_geojson_str(&bad, config()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "station GeoJSON feature 1, `properties.readings[1].pm25`: expected a number in µg/m³ or null, found \"high\""
    );
    let bad = doc.replace("\"id\":17,", "");
    let e = StationFile::from_geojson_str(&bad, config()).unwrap_err();
    assert!(
        e.to_string().contains("feature 0, `properties.station_id`"),
        "{e}"
    );
    let bad = doc.replace(
        "\"Point\",\"coordinates\":[13.40,52.52]",
        "\"LineString\",\"coordinates\":[[13.40,52.52],[13.41,52.52]]",
    );
    let e = StationFile::from_geojson_str(&bad, config()).unwrap_err();
    assert!(e.to_string().contains("feature 0, `geometry.type`"), "{e}");
    // A geometry that is not GeoJSON at all is named by its place in the document.
    let bad = doc.replace("[13.40,52.52]", "[13.40]");
    let e = StationFile::from_geojson_str(&bad, config()).unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
    let e = StationFile::from_geojson_str("[1,2]", config()).unwrap_err();
    assert!(
        e.to_string().contains("expected a FeatureCollection"),
        "{e}"
    );
}

#[test]
fn open_picks_format_by_extension_and_reports_io() {
    let dir = std::env::temp_dir().join(format!("aq-sources-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.csv");
    std::fs::write(
        &path,
        "station_id,lon,lat,time,no2\na,1,2,2026-05-04T08:00:00Z,30\n",
    )
    .unwrap();
    assert_eq!(
        StationFile::open(&path, config()).unwrap().station_count(),
        1
    );
    let e = StationFile::open(dir.join("missing.csv"), config()).unwrap_err();
    assert!(e.to_string().contains("cannot read station file"), "{e}");
    let e = StationFile::open(dir.join("s.txt"), config()).unwrap_err();
    assert!(e.to_string().contains("unknown format"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn stale_and_future_readings_are_ignored() {
    let csv = "station_id,lon,lat,time,pm25\n\
               a,0,0,2026-05-04T08:00:00Z,10\n\
               a,0,0,2026-05-04T12:00:00Z,40\n";
    let f = StationFile::from_csv_str(csv, config()).unwrap();
    let here = pos(0.0, 0.0);
    assert_eq!(pm25(f.sample_at(here, t(11, 0))), 10.0);
    assert!(f.sample_at(here, t(11, 1)).is_none(), "older than 3 hours");
    assert_eq!(pm25(f.sample_at(here, t(12, 0))), 40.0);
    assert!(
        f.sample_at(here, t(7, 59)).is_none(),
        "nothing measured yet"
    );
}

#[test]
fn radius_and_neighbour_count_are_honoured() {
    // Stations every 0.1° of longitude along the equator (about 11.1 km apart).
    let readings = (0..10).map(|i| StationReading {
        station_id: format!("s{i}"),
        position: pos(f64::from(i) * 0.1, 0.0),
        time: t(8, 0),
        concentrations: Concentrations::default()
            .with(Pollutant::Pm25, Concentration::new(f64::from(i)).unwrap()),
        pollen: PollenCounts::default(),
    });
    let readings: Vec<_> = readings.collect();
    let one = StationFileConfig {
        idw: IdwConfig {
            neighbours: 1,
            ..IdwConfig::default()
        },
        ..config()
    };
    let f = StationFile::from_readings(readings.clone(), one).unwrap();
    assert_eq!(pm25(f.sample_at(pos(0.52, 0.0), t(8, 0))), 5.0);
    let f = StationFile::from_readings(readings, config()).unwrap();
    assert!(
        f.sample_at(pos(1.1, 0.0), t(8, 0)).is_some(),
        "22 km from s9"
    );
    assert!(
        f.sample_at(pos(1.05, 0.1), t(8, 0)).is_some(),
        "20 km from s9"
    );
    assert!(
        f.sample_at(pos(1.2, 0.0), t(8, 0)).is_none(),
        "33 km from s9"
    );
    // Across the antimeridian there is no seam.
    let f = StationFile::from_csv_str(
        "station_id,lon,lat,time,pm25\na,179.95,0,2026-05-04T08:00:00Z,7\n",
        config(),
    )
    .unwrap();
    assert_eq!(pm25(f.sample_at(pos(-179.95, 0.0), t(8, 0))), 7.0);
}

#[test]
fn a_station_with_only_co_gives_no_ci() {
    let f = StationFile::from_csv_str(
        "station_id,lon,lat,time,co\na,0,0,2026-05-04T08:00:00Z,400\n",
        config(),
    )
    .unwrap();
    assert!(f.sample_at(pos(0.0, 0.0), t(8, 0)).is_none());
}

#[test]
fn bad_config_is_refused() {
    let c = StationFileConfig {
        idw: IdwConfig {
            power: -1.0,
            ..IdwConfig::default()
        },
        ..config()
    };
    let e = StationFile::from_csv_str("station_id,lon,lat,time\na,0,0,2026-05-04T08:00:00Z\n", c)
        .unwrap_err();
    assert!(e.to_string().contains("IDW power -1"), "{e}");
}

#[tokio::test]
async fn forecast_replays_the_file() {
    let csv = "station_id,lon,lat,time,pm25,tree_pollen\n\
               a,0,0,2026-05-04T08:00:00Z,10,\n\
               a,0,0,2026-05-04T10:00:00Z,50,100\n";
    let f = StationFile::from_csv_str(csv, config()).unwrap();
    let here = pos(0.0, 0.0);
    let far = pos(50.0, 0.0);
    let series = f.hourly_ci(&[here, far], t(7, 0), 3).await.unwrap();
    let values: Vec<_> = series[0]
        .as_ref()
        .unwrap()
        .values
        .iter()
        .map(|v| v.map(|c| c.rounded()))
        .collect();
    assert_eq!(values, [None, Some(70), Some(70), Some(40)]);
    assert!(series[1].is_none());
    // The newest reading behind the hours answered: 10:00's, read at 10:00.
    assert_eq!(
        series[0].as_ref().unwrap().provenance,
        aq_core::Provenance::Observed { newest: t(10, 0) }
    );
    // Up to 09:00 only the 08:00 reading was used.
    let earlier = f.hourly_ci(&[here], t(7, 0), 2).await.unwrap();
    assert_eq!(
        earlier[0].as_ref().unwrap().provenance,
        aq_core::Provenance::Observed { newest: t(8, 0) }
    );
    // The concentrations beside the CI: hour 1 (08:00) is the file's PM2.5 10 µg/m³.
    let air = f
        .hourly_concentrations(&[here, far], t(7, 0), 3)
        .await
        .unwrap();
    let air = air[0].as_ref().unwrap();
    let pm: Vec<_> = air
        .values
        .iter()
        .map(|c| c.and_then(|c| c.get(Pollutant::Pm25)).map(|c| c.ug_m3()))
        .collect();
    assert_eq!(pm[..2], [None, Some(10.0)]);
    assert!(pm[2..].iter().all(Option::is_some), "{pm:?}");
    let pollen = f.daily_pollen(&[here, far], t(9, 0), 1).await.unwrap();
    let outlook = pollen[0].as_ref().unwrap();
    assert_eq!(outlook.yesterday.get(PollenType::Tree), None);
    assert_eq!(
        outlook.days[0].get(PollenType::Tree),
        None,
        "one reading does not make a day"
    );
    assert!(pollen[1].is_none());
}

#[tokio::test]
async fn pollen_days_are_daily_means_of_the_readings() {
    // Tree pollen read every three hours on 4 May: 330 grains/m³ from 09:00 to 17:59, 30 the
    // rest of the day. Each hour takes its latest reading: 9 hours of 330 and 15 of 30, a
    // daily mean of 142.5 grains/m³, High (90 to 1,500).
    let mut csv = String::from("station_id,lon,lat,time,tree_pollen\n");
    for h in (0..24).step_by(3) {
        let count = if (9..=15).contains(&h) { 330 } else { 30 };
        csv.push_str(&format!("a,0,0,2026-05-04T{h:02}:00:00Z,{count}\n"));
    }
    let f = StationFile::from_csv_str(&csv, config()).unwrap();
    let pollen = f.daily_pollen(&[pos(0.0, 0.0)], t(23, 0), 0).await.unwrap();
    let outlook = pollen[0].as_ref().unwrap();
    assert_eq!(outlook.days[0].get(PollenType::Tree).unwrap().value(), 4);
    // The day of a lookup: its mean count, observed until the last reading, at 21:00.
    let days = f.pollen_days(&[pos(0.0, 0.0)], t(23, 0), 2).await.unwrap();
    let days = days[0].as_ref().unwrap();
    let tree = days.days[0].get(PollenType::Tree).unwrap();
    assert_eq!(tree.mean_grains_m3, Some(142.5));
    assert_eq!(tree.level.value(), 4);
    assert!(days.days[1].is_empty(), "no reading on 5 May");
    assert_eq!(
        days.provenance,
        aq_core::Provenance::Observed { newest: t(21, 0) }
    );
}

#[tokio::test]
async fn conforms_to_the_ports() {
    use crate::conformance::{self, Expectations, ForecastExpectations};
    let csv = "station_id,lon,lat,time,pm25,no2,grass_pollen\n\
               a,13.40,52.52,2026-05-04T08:00:00Z,10,30,4\n\
               a,13.40,52.52,2026-05-04T09:00:00Z,40,60,8\n\
               b,13.50,52.50,2026-05-04T08:30:00Z,20,,\n";
    let f = StationFile::from_csv_str(csv, config()).unwrap();
    let q = |lon, lat, t| SampleQuery {
        position: pos(lon, lat),
        time: t,
    };
    conformance::check_air_quality(
        &f,
        &Expectations {
            covered: vec![
                q(13.40, 52.52, t(8, 10)),
                q(13.40, 52.52, t(9, 10)),
                q(13.45, 52.51, t(8, 45)),
            ],
            uncovered: vec![
                q(13.40, 52.52, t(7, 59)),
                q(14.5, 52.52, t(8, 30)),
                q(13.40, 52.52, t(12, 1)),
            ],
        },
    )
    .await;
    conformance::check_forecast(
        &f,
        &ForecastExpectations {
            covered: vec![pos(13.40, 52.52), pos(13.50, 52.50)],
            uncovered: vec![pos(10.0, 50.0)],
            start: t(6, 0),
            hours: 8,
            pollen_covered: true,
        },
    )
    .await;
}

fn station_strategy() -> impl Strategy<Value = Vec<(f64, f64, f64)>> {
    prop::collection::vec((-0.2f64..0.2, -0.2f64..0.2, 0.0f64..300.0), 1..25)
}

/// The module documentation's rule applied to every station, nearest first (ties in file
/// order): what the neighbourhood search must reproduce bit for bit.
fn exhaustive(f: &StationFile, position: Position, time: DateTime<Utc>) -> Option<AirSample> {
    let (q, time, max_age) = (unit_vector(position), time.timestamp(), f.max_age());
    let mut all: Vec<(f64, usize)> = f
        .stations
        .iter()
        .enumerate()
        .map(|(i, s)| (chord2(unit_vector(s.position), q), i))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut acc = [Accumulator::default(); N_VARS];
    let mut used = 0;
    for (d2, i) in all {
        if d2 > f.max_chord2 || used == f.config.idw.neighbours {
            break;
        }
        let readings = &f.stations[i].readings;
        let known = readings.partition_point(|r| r.0 <= time);
        let recent = readings[..known]
            .iter()
            .rev()
            .take_while(|r| time - r.0 <= max_age);
        let mut any = false;
        for (k, a) in acc.iter_mut().enumerate() {
            if let Some(v) = recent.clone().find_map(|r| r.1.get(k)) {
                a.add(chord_to_m(d2.sqrt()), v, f.config.idw.power);
                any = true;
            }
        }
        used += usize::from(any);
    }
    let mut out = Values::MISSING;
    for (o, a) in out.0.iter_mut().zip(acc.iter()) {
        *o = a.value().unwrap_or(f64::NAN);
    }
    out.air_sample(&f.config.bands)
}

/// Stations (lon, lat, which hours and pollutants, PM2.5, NO₂), query steps (Δlon, Δlat,
/// tenths of an hour), the neighbour count and the radius.
type NeighbourhoodCase = (
    Vec<(f64, f64, u8, f64, f64)>,
    Vec<(f64, f64, u32)>,
    usize,
    f64,
);

/// Stations in a 0.4° square, some sharing a place, each with readings at some of the hours
/// 6 to 9 and PM2.5, NO₂ or both; and a walk of queries through the square over the morning.
fn neighbourhood_case() -> impl Strategy<Value = NeighbourhoodCase> {
    (
        prop::collection::vec(
            (
                -0.2f64..0.2,
                -0.2f64..0.2,
                0u8..64,
                0.0f64..80.0,
                0.0f64..80.0,
            ),
            1..60,
        ),
        prop::collection::vec((-0.03f64..0.03, -0.03f64..0.03, 0u32..40), 1..40),
        // Past HEAD too, where every query sorts its whole neighbourhood.
        1usize..24,
        2_000.0f64..30_000.0,
    )
}

proptest! {
    #[test]
    fn batches_answer_as_an_exhaustive_search_does(
        (stations, steps, neighbours, radius_m) in neighbourhood_case(),
    ) {
        let mut readings = Vec::new();
        for (i, &(lon, lat, mask, pm, no2)) in stations.iter().enumerate() {
            // Every fourth station stands where an earlier one stands: equal distances.
            let (lon, lat) = if i % 4 == 3 { (stations[i / 2].0, stations[i / 2].1) } else { (lon, lat) };
            for h in 0..4u32 {
                if mask & (1 << h) == 0 {
                    continue;
                }
                let mut c = Concentrations::default();
                if mask & 16 == 0 {
                    c.set(Pollutant::Pm25, Concentration::new(pm + f64::from(h)).unwrap());
                }
                if mask & 32 == 0 {
                    c.set(Pollutant::No2, Concentration::new(no2).unwrap());
                }
                readings.push(StationReading {
                    station_id: i.to_string(),
                    position: pos(lon, lat),
                    time: t(6 + h, 0),
                    concentrations: c,
                    pollen: PollenCounts::default(),
                });
            }
        }
        prop_assume!(!readings.is_empty());
        let config = StationFileConfig {
            idw: IdwConfig { neighbours, radius_m, ..IdwConfig::default() },
            max_age_s: 5_400,
            ..config()
        };
        let f = StationFile::from_readings(readings, config).unwrap();
        let (mut lon, mut lat) = (0.0, 0.0);
        let queries: Vec<SampleQuery> = steps
            .iter()
            .map(|&(dlon, dlat, minutes)| {
                lon = f64::clamp(lon + dlon, -0.3, 0.3);
                lat = f64::clamp(lat + dlat, -0.3, 0.3);
                SampleQuery { position: pos(lon, lat), time: t(6, 0) + chrono::Duration::minutes(i64::from(minutes) * 6) }
            })
            .collect();
        let got = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f.sample(&queries))
            .unwrap();
        for (q, answer) in queries.iter().zip(got) {
            prop_assert_eq!(answer, exhaustive(&f, q.position, q.time), "at {:?}", q);
            prop_assert_eq!(f.sample_at(q.position, q.time), exhaustive(&f, q.position, q.time));
        }
    }

    #[test]
    fn interpolation_lies_between_stations_used(
        stations in station_strategy(),
        qlon in -0.2f64..0.2,
        qlat in -0.2f64..0.2,
        power in 1.0f64..6.0,
    ) {
        let readings: Vec<_> = stations.iter().enumerate().map(|(i, &(lon, lat, v))| StationReading {
            station_id: i.to_string(),
            position: pos(lon, lat),
            time: t(8, 0),
            concentrations: Concentrations::default().with(Pollutant::Pm25, Concentration::new(v).unwrap()),
            pollen: PollenCounts::default(),
        }).collect();
        let config = StationFileConfig { idw: IdwConfig { power, ..IdwConfig::default() }, ..config() };
        let f = StationFile::from_readings(readings, config).unwrap();
        let q = pos(qlon, qlat);
        // The stations used: the ten nearest within 25 km.
        let mut near: Vec<_> = stations.iter()
            .map(|&(lon, lat, v)| (pos(lon, lat).distance_m(q), v))
            .filter(|&(d, _)| d <= 25_000.0)
            .collect();
        near.sort_by(|a, b| a.0.total_cmp(&b.0));
        near.truncate(10);
        match f.sample_at(q, t(8, 30)) {
            None => prop_assert!(near.is_empty()),
            Some(s) => {
                let v = s.concentrations.unwrap().get(Pollutant::Pm25).unwrap().ug_m3();
                let min = near.iter().map(|n| n.1).fold(f64::INFINITY, f64::min);
                let max = near.iter().map(|n| n.1).fold(f64::NEG_INFINITY, f64::max);
                prop_assert!(v >= min - 1e-9 && v <= max + 1e-9, "{v} not in [{min}, {max}]");
            }
        }
    }

    #[test]
    fn a_station_at_the_query_point_dominates(
        stations in station_strategy(),
        pick in any::<prop::sample::Index>(),
    ) {
        let readings: Vec<_> = stations.iter().enumerate().map(|(i, &(lon, lat, v))| StationReading {
            station_id: i.to_string(),
            position: pos(lon, lat),
            time: t(8, 0),
            concentrations: Concentrations::default().with(Pollutant::Pm25, Concentration::new(v).unwrap()),
            pollen: PollenCounts::default(),
        }).collect();
        let f = StationFile::from_readings(readings, config()).unwrap();
        let (lon, lat, v) = stations[pick.index(stations.len())];
        // Stations within a metre of each other share the answer; skip those draws.
        let crowded = stations.iter().filter(|s| pos(s.0, s.1).distance_m(pos(lon, lat)) < 1.0).count() > 1;
        prop_assume!(!crowded);
        prop_assert_eq!(pm25(f.sample_at(pos(lon, lat), t(9, 0))), v);
    }
}

#[tokio::test]
async fn a_particle_sensor_alone_gives_no_ci_by_default() {
    // A PM2.5 sensor by a road, and 20 km away a station with PM2.5 and NO₂. Under the EEA's
    // traffic-station minimum (NO₂ and particles), the sensor's surroundings are not covered;
    // where both stations reach, the pair makes a CI.
    let csv = "station_id,lon,lat,time,pm25,no2\n\
               road,0,0,2026-05-04T08:00:00Z,3,\n\
               full,0,0.18,2026-05-04T08:00:00Z,20,40\n";
    let strict = StationFile::from_csv_str(csv, StationFileConfig::default()).unwrap();
    let q = |lat| SampleQuery {
        position: pos(0.0, lat),
        time: t(8, 30),
    };
    let near_road = q(-0.05);
    let between = q(0.09);
    let answers = strict.sample(&[near_road, between]).await.unwrap();
    assert!(answers[0].is_none(), "PM alone is not enough");
    assert!(answers[1].is_some(), "PM and NO₂ together are");
    assert_eq!(
        strict.sample_ci(&[near_road]).await.unwrap(),
        vec![None],
        "sample_ci agrees with sample"
    );
    let lenient = StationFile::from_csv_str(csv, config()).unwrap();
    assert!(lenient.sample(&[near_road]).await.unwrap()[0].is_some());
}
