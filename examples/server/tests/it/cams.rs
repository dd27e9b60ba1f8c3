//! `--aq-source cams:DIR` and `insights-server ingest`: files checked and placed, refused ones
//! named, and a running server taking new files without a restart.

use std::path::PathBuf;

use crate::harness::{Deployment, eventually};

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
