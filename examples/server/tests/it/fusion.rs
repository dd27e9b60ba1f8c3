//! `--fuse-stations`: CAMS grids corrected by a station file, served on port 0 (lookups with
//! each pollutant's uncertainty and the stations behind them, exclusions in `/metrics`), and
//! `insights-server validate` on the synthetic set the README shows.

use std::sync::Arc;

use aq_core::Pollutant;
use aq_grid::{Field, GridStore, Lattice, Layer, Product, Quantity, StoreConfig};
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde_json::Value;

use crate::fusion_set::{self, SEED};
use crate::harness::{Deployment, Reply, client};
use crate::lookups::{lookup, this_hour};

/// A grid around Berlin, 50° to 55° N and 9° to 19° E at 0.25°, with 20 µg/m³ of PM2.5 and 30
/// of NO₂ everywhere, from six hours ago to eight hours ahead.
async fn flat_grid(dir: &std::path::Path) {
    let objects = object_store::local::LocalFileSystem::new_with_prefix(dir).unwrap();
    let store = GridStore::new(Arc::new(objects), StoreConfig::default());
    let lattice = Lattice::new(55.0, -0.25, 21, 9.0, 0.25, 41).unwrap();
    let run = this_hour() - Duration::hours(6);
    let mut fields = Vec::new();
    for h in 0..=14 {
        for (p, v) in [(Pollutant::Pm25, 20.0), (Pollutant::No2, 30.0)] {
            fields.push(Field {
                product: Product::Europe,
                quantity: Quantity::Pollutant(p),
                run,
                valid: run + Duration::hours(h),
                layer: Layer::new(lattice, vec![v; lattice.len()].into()).unwrap(),
            });
        }
    }
    store.commit(fields).await.unwrap();
}

fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Five stations in Berlin reading about 32 µg/m³ of PM2.5 (the model says 20) and 30 of NO₂
/// over the last four hours, one that stopped eight hours ago, and one reading 1,000.
fn berlin_stations(path: &std::path::Path) {
    let mut csv = String::from("station_id,lon,lat,time,pm25,no2\n");
    let places = [
        (13.40, 52.50),
        (13.30, 52.55),
        (13.50, 52.45),
        (13.35, 52.45),
        (13.48, 52.56),
    ];
    for h in 0..=4 {
        let t = this_hour() - Duration::hours(4 - h);
        for (k, (lon, lat)) in places.iter().enumerate() {
            let wobble = 0.1 * ((h as usize + k) % 3) as f64;
            csv.push_str(&format!(
                "B{k},{lon},{lat},{},{},{}\n",
                stamp(t),
                32.0 + wobble,
                30.0 + wobble
            ));
        }
        csv.push_str(&format!(
            "BROKEN,13.42,52.50,{},{},31\n",
            stamp(t),
            1_000.0 + h as f64
        ));
    }
    csv.push_str(&format!(
        "SILENT,13.38,52.52,{},25,30\n",
        stamp(this_hour() - Duration::hours(8))
    ));
    std::fs::write(path, csv).unwrap();
}

fn pm25(hour: &Value) -> (f64, f64) {
    let p = &hour["pollutants"]["pm25"];
    (
        p["value"].as_f64().unwrap(),
        p["uncertainty"].as_f64().unwrap(),
    )
}

#[tokio::test]
async fn a_cams_grid_fused_with_a_station_file_answers_with_its_uncertainty_and_counts_exclusions()
{
    let d = Deployment::new();
    let cams = d.path().join("cams");
    std::fs::create_dir_all(&cams).unwrap();
    flat_grid(&cams).await;
    let file = d.path().join("stations.csv");
    berlin_stations(&file);
    let d = d
        .flag("--aq-source", &format!("cams:{}", cams.display()))
        .flag("--fuse-stations", &format!("stations:{}", file.display()));
    let key = d.new_key();
    let server = d.serve(&[]);

    // Beside the stations: most of the way to their 32, and surer than the model alone.
    let (meta, data) = lookup(&server, &key, "conditions", "lat=52.50&lon=13.40").await;
    assert_eq!(meta["dataSource"]["name"], "cams+station-file", "{meta}");
    let (near, near_sd) = pm25(&data["hour"]);
    assert!((26.0..=32.5).contains(&near), "{data}");
    assert!(near_sd > 0.0, "{data}");
    let fusion = &meta["fusion"];
    assert!(fusion["stationsUsed"].as_u64().unwrap() >= 3, "{meta}");
    assert!(
        fusion["newestObservationAgeMinutes"].as_u64().unwrap() < 60,
        "{meta}"
    );
    assert!(
        data["hour"]["pollutants"]["no2"]["uncertainty"].is_number(),
        "{data}"
    );

    // 120 km east: all but the model's value, and all but the model's error.
    let (_, data) = lookup(&server, &key, "conditions", "lat=52.50&lon=15.20").await;
    let (aside, aside_sd) = pm25(&data["hour"]);
    assert_eq!(aside, 20.0, "{data}");
    assert!(aside_sd > near_sd, "{near_sd} {aside_sd}");
    // 300 km east, beyond every station's reach: the model's value, and no station to tell
    // its error.
    let (meta, data) = lookup(&server, &key, "conditions", "lat=52.50&lon=17.90").await;
    let far = &data["hour"]["pollutants"]["pm25"];
    assert_eq!(far["value"], 20.0, "{data}");
    assert!(far["uncertainty"].is_null(), "{data}");
    assert_eq!(meta["fusion"]["stationsUsed"], 0, "{meta}");

    // Ahead, the correction fades towards the model and the error grows.
    let (_, data) = lookup(&server, &key, "forecast", "lat=52.50&lon=13.40&hours=6").await;
    let hours: Vec<(f64, f64)> = data["hours"].as_array().unwrap().iter().map(pm25).collect();
    assert_eq!(hours.len(), 6, "{data}");
    for w in hours.windows(2) {
        assert!(w[1].0 <= w[0].0 && w[1].0 > 20.0, "{hours:?}");
        assert!(w[1].1 >= w[0].1, "{hours:?}");
    }

    // Tiles and route scores read the same fused source.
    let tile = client()
        .get(server.url(&format!("/insights/v1/tiles/5/17/10.png?key={}", key.key)))
        .send()
        .await
        .unwrap();
    assert_eq!(tile.status(), 200);
    let label = tile.headers()["insights-data-source"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(label.contains("cams+station-file"), "{label}");

    let metrics = Reply::read(client().get(server.url("/metrics")).send().await.unwrap()).await;
    let text = String::from_utf8_lossy(&metrics.body).into_owned();
    for reason in ["stale", "gross_error"] {
        let line = format!(
            "insights_fusion_station_exclusions_total{{pollutant=\"pm25\",reason=\"{reason}\"}}"
        );
        let count: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix(&line))
            .unwrap_or_else(|| panic!("{line} missing:\n{text}"))
            .trim()
            .parse()
            .unwrap();
        assert!(count >= 1.0, "{text}");
    }
    assert!(
        server.log().contains("left out by quality control") && server.log().contains("BROKEN"),
        "{}",
        server.log()
    );
}

#[tokio::test]
async fn validate_scores_the_synthetic_set_with_the_fusion_well_ahead_of_the_model() {
    let d = Deployment::new();
    let set = fusion_set::write(d.path(), SEED).await;
    let d = d
        .flag("--aq-source", &format!("cams:{}", set.cams.display()))
        .flag(
            "--fuse-stations",
            &format!("stations:{}", set.stations.display()),
        );
    let until = fusion_set::last_hour().to_rfc3339_opts(SecondsFormat::Secs, true);
    let hours = fusion_set::HOURS.to_string();
    let out = d.run(&["validate", "--until", &until, "--hours", &hours, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["hours"], 24);
    let pollutants = report["pollutants"].as_array().unwrap();
    assert_eq!(pollutants.len(), 4, "{report}");
    for p in pollutants {
        let (model, fused) = (
            p["model"]["rmse"].as_f64().unwrap(),
            p["fused"]["rmse"].as_f64().unwrap(),
        );
        // The particles' model error is mostly bias and scale, which the stations correct;
        // NO₂ and O₃ vary along roads narrower than the stations' spacing, where a station says
        // little of its neighbourhood.
        let most = match p["pollutant"].as_str().unwrap() {
            "pm25" | "pm10" => 0.6,
            _ => 1.0,
        };
        assert!(fused < most * model, "{p}");
        assert!(p["fused"]["bias"].as_f64().unwrap().abs() < 1.0, "{p}");
        assert!(p["readings"].as_u64().unwrap() >= 24 * 55, "{p}");
    }
    let excluded = &report["excluded"];
    let count = |reason: &str| {
        excluded
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e[0] == reason)
            .map_or(0, |e| e[1].as_u64().unwrap())
    };
    // FR-BROKEN every hour, by the first-guess check before the spatial test is asked; no
    // honest station; FR-STUCK from its sixth unchanged hour on.
    assert_eq!(count("gross_error"), 24, "{report}");
    assert_eq!(count("outlier"), 0, "{report}");
    assert_eq!(count("stuck"), 18, "{report}");

    // The text report, as the README shows it.
    let out = d.run(&["validate", "--until", &until, "--hours", &hours]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("RMSE ratio") && text.contains("PM2.5"),
        "{text}"
    );
    println!("{text}");

    // Without stations there is nothing to validate.
    let plain = Deployment::new().flag("--aq-source", &format!("cams:{}", set.cams.display()));
    let out = plain.run(&["validate"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--fuse-stations"));
}
