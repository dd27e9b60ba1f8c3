//! `--aq-source cams:DIR` and `insights-server ingest`: files checked and placed, refused ones
//! named, and a running server taking new files without a restart.

use std::path::PathBuf;

use chrono::{DateTime, Datelike, Duration, Timelike, Utc};
use serde_json::json;

use crate::harness::{Deployment, eventually};
use crate::lookups::{lookup, this_hour};

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../adapters/grid/fixtures")
        .join(name)
        .display()
        .to_string()
}

#[tokio::test]
async fn ingest_places_good_files_refuses_corrupt_ones_and_a_server_follows_without_restart() {
    let plain = Deployment::new();
    let out = plain.run(&["ingest", &fixture("global.grib2")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--aq-source cams:DIR"));

    let d = Deployment::new();
    let cams = d.path().join("cams");
    let d = d
        .flag("--aq-source", &format!("cams:{}", cams.display()))
        .config("cams_poll_seconds = 1\n");
    let out = d.run(&["ingest", &fixture("global.grib2")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("21 messages, 18 fields, 3 skipped"));
    assert!(cams.join("global.grib2").is_file());

    let bytes = std::fs::read(fixture("europe.grib2")).unwrap();
    let broken = d.path().join("broken.grib2");
    // Cut inside a message: half the file falls exactly between two of the fixture's messages,
    // which leaves a shorter file that is whole.
    std::fs::write(&broken, &bytes[..bytes.len() / 2 + 100]).unwrap();
    let out = d.run(&["ingest", &broken.display().to_string()]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(&broken.display().to_string()), "{said}");
    assert!(!cams.join("broken.grib2").exists());

    let server = d.serve(&[]);
    assert!(
        server.log().contains("CAMS grids loaded"),
        "{}",
        server.log()
    );
    let out = d.run(&["ingest", &fixture("europe.grib2")]);
    assert!(out.status.success());
    eventually("the server ingests the new file", || {
        let log = server.log();
        log.lines()
            .any(|l| l.contains("ingested") && l.contains("europe.grib2"))
            .then_some(())
    })
    .await;
    let ready = reqwest::get(server.url("/readyz")).await.unwrap();
    assert_eq!(ready.status(), 200);
}

/// The fixture `name` with every message's reference time (section 1, octets 13 to 19) set to
/// `run`, so that its steps fall on hours a server holds now: it drops hours older than 48 h.
fn fixture_run_at(name: &str, run: DateTime<Utc>) -> Vec<u8> {
    let mut bytes = std::fs::read(fixture(name)).unwrap();
    let mut at = 0;
    while at < bytes.len() {
        assert_eq!(&bytes[at..at + 4], b"GRIB", "{name} at {at}");
        let length = u64::from_be_bytes(bytes[at + 8..at + 16].try_into().unwrap());
        // Section 1 follows the 16 octets of section 0; its year is at its 13th octet.
        let time = at + 16 + 12;
        let year = u16::try_from(run.year()).unwrap().to_be_bytes();
        bytes[time..time + 7].copy_from_slice(&[
            year[0],
            year[1],
            run.month() as u8,
            run.day() as u8,
            run.hour() as u8,
            run.minute() as u8,
            run.second() as u8,
        ]);
        at += usize::try_from(length).unwrap();
    }
    bytes
}

#[tokio::test]
async fn lookups_name_the_model_runs_their_hours_come_from() {
    let now = this_hour();
    // The global run an hour old (hours now − 1 to now + 1), the European one new (now and
    // now + 1).
    let (global_run, europe_run) = (now - Duration::hours(1), now);
    let d = Deployment::new();
    let cams = d.path().join("cams");
    let d = d.flag("--aq-source", &format!("cams:{}", cams.display()));
    for (name, run) in [("global.grib2", global_run), ("europe.grib2", europe_run)] {
        let file = d.path().join(name);
        std::fs::write(&file, fixture_run_at(name, run)).unwrap();
        let out = d.run(&["ingest", &file.display().to_string()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let key = d.new_key();
    let server = d.serve(&[]);
    let run = |model: &str, t: DateTime<Utc>| json!([{"model": model, "referenceTime": t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)}]);

    // Berlin now: every pollutant from the European grid, the newer run.
    let (meta, data) = lookup(&server, &key, "conditions", "lat=52.52&lon=13.405").await;
    assert!(!data["hour"].is_null(), "{meta}");
    let source = &meta["dataSource"];
    assert_eq!(source["name"], "cams");
    assert_eq!(source["basis"], "model", "{source}");
    assert_eq!(
        source["modelRuns"],
        run("cams-europe", europe_run),
        "{source}"
    );
    assert_eq!(source["newestObservation"], json!(null));
    assert_eq!(source["provenanceNote"], json!(null));

    // Berlin an hour ago: before the European run, so the global grid answered.
    let (meta, data) = lookup(&server, &key, "history", "lat=52.52&lon=13.405&hours=2").await;
    assert_eq!(data["hours"].as_array().unwrap().len(), 1, "{meta}");
    assert_eq!(
        meta["dataSource"]["modelRuns"],
        run("cams-global", global_run),
        "{meta}"
    );

    // Delhi, outside the European domain: the global run, for every hour it forecasts.
    let (meta, data) = lookup(&server, &key, "forecast", "lat=28.61&lon=77.21&hours=3").await;
    assert_eq!(data["hours"].as_array().unwrap().len(), 2, "{meta}");
    assert_eq!(
        meta["dataSource"]["modelRuns"],
        run("cams-global", global_run),
        "{meta}"
    );
}
