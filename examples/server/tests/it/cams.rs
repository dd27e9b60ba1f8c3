//! `--aq-source cams:...` and `insights-server ingest`: one ingest written as chunks to a shared
//! store (a local directory, or S3 with PostgreSQL) and served by every replica, refused files
//! named, and a new run served by a running server without a restart.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Datelike, Duration, Timelike, Utc};
use serde_json::{Value, json};
use test_support::s3::{ACCESS_KEY, BUCKET, S3Server, SECRET_KEY};

use crate::harness::{Deployment, Key, Reply, Server, client, eventually};
use crate::lookups::{lookup, this_hour};
use crate::scale_out::{TestDb, scale_out_deployment};

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../adapters/grid/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// The global fixture (hourly steps 0 to 2) with its reference time moved to `run`, written to
/// `dir/name`; its path.
fn global_run_at(run: DateTime<Utc>, dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, fixture_run_at("global.grib2", run)).unwrap();
    path.display().to_string()
}

/// `conditions` at a place the global grid covers (Delhi, outside the European grid).
pub(crate) async fn conditions(server: &Server, key: &Key) -> Value {
    let url = server.url(&format!(
        "/insights/v1/conditions?key={}&lat=28.6&lon=77.2",
        key.key
    ));
    let reply = Reply::read(client().get(url).send().await.unwrap()).await;
    let body = reply.json();
    assert_eq!(reply.status, 200, "{body}");
    assert_eq!(body["metadata"]["dataSource"]["name"], "cams", "{body}");
    body["data"]["hour"].clone()
}

fn run_ok(d: &Deployment, args: &[&str]) -> String {
    let out = d.run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ingest_writes_the_grids_once_refuses_corrupt_files_and_a_new_run_is_served_without_restart()
 {
    let plain = Deployment::new();
    let out = plain.run(&["ingest", &fixture("global.grib2")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--aq-source cams:DIR"));

    let d = Deployment::new();
    let cams = d.path().join("cams");
    let d = d
        .flag("--aq-source", &format!("cams:{}", cams.display()))
        .config("cams_poll_seconds = 1\n");
    // A run of yesterday: within the 48 hours kept, but with no hour of now.
    let yesterday = this_hour() - Duration::hours(30);
    let file = global_run_at(yesterday, d.path(), "yesterday.grib2");
    let said = run_ok(&d, &["ingest", &file]);
    assert!(said.contains("21 messages, 18 fields, 3 skipped"), "{said}");
    let run_dir = yesterday.format("%Y%m%dT%H%M%SZ").to_string();
    assert!(cams.join("manifests/global").join(&run_dir).is_dir());
    // The same file again: the batch is in the store, nothing is written twice.
    let said = run_ok(&d, &["ingest", &file]);
    assert!(said.contains("stored already"), "{said}");
    // The fixture's own run, of June 2026, is past retention: written, then purged.
    let said = run_ok(&d, &["ingest", &fixture("global.grib2")]);
    assert!(said.contains("1 batches past retention purged"), "{said}");
    assert!(cams.join("manifests/global").join(&run_dir).is_dir());

    let bytes = std::fs::read(fixture("europe.grib2")).unwrap();
    let broken = d.path().join("broken.grib2");
    // Cut inside a message: half the file falls exactly between two of the fixture's messages,
    // which leaves a shorter file that is whole.
    std::fs::write(&broken, &bytes[..bytes.len() / 2 + 100]).unwrap();
    let out = d.run(&["ingest", &broken.display().to_string()]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(&broken.display().to_string()), "{said}");
    assert!(!cams.join("manifests/europe").exists());

    let key = d.new_key();
    let server = d.serve(&[]);
    assert!(
        server.log().contains("CAMS grids loaded"),
        "{}",
        server.log()
    );
    // Yesterday's run holds no hour of now.
    assert_eq!(conditions(&server, &key).await, Value::Null);

    // A run from the hour before this one, ingested while the server serves.
    let run = this_hour() - Duration::hours(1);
    let file = global_run_at(run, d.path(), "now.grib2");
    run_ok(&d, &["ingest", &file]);
    let mut hour = Value::Null;
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    while hour.is_null() {
        assert!(
            std::time::Instant::now() < deadline,
            "the new run was never served:\n{}",
            server.log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        hour = conditions(&server, &key).await;
    }
    assert_eq!(
        hour["time"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap(),
        this_hour(),
        "{hour}"
    );
    assert!(
        !server.log().contains("ingested"),
        "the server decoded nothing itself"
    );

    // A download job may also place GRIB2 files in the directory: the server ingests them, and
    // purges this one at once, as its June run is past retention.
    std::fs::copy(fixture("europe.grib2"), cams.join("europe.grib2")).unwrap();
    eventually(
        "the server ingests the placed file and purges its old run",
        || {
            let log = server.log();
            (log.lines()
                .any(|l| l.contains("ingested") && l.contains("europe.grib2"))
                && log
                    .lines()
                    .any(|l| l.contains("purged") && l.contains("europe")))
            .then_some(())
        },
    )
    .await;
    assert_eq!(
        conditions(&server, &key).await,
        hour,
        "the new run still answers"
    );
    let ready = reqwest::get(server.url("/readyz")).await.unwrap();
    assert_eq!(ready.status(), 200);
}

/// The fixture `name` with every message's reference time set to `run`, so that its steps fall
/// on hours a server holds now: it drops hours older than 48 h.
pub(crate) fn fixture_run_at(name: &str, run: DateTime<Utc>) -> Vec<u8> {
    let bytes = std::fs::read(fixture(name)).unwrap();
    let mut out = Vec::with_capacity(bytes.len());
    for message in messages(&bytes) {
        let mut message = message.to_vec();
        set_run(&mut message, run);
        out.extend(message);
    }
    out
}

/// The messages of a GRIB2 file, each whole.
fn messages(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 16 <= bytes.len() {
        assert_eq!(&bytes[at..at + 4], b"GRIB", "a message at {at}");
        let length = u64::from_be_bytes(bytes[at + 8..at + 16].try_into().unwrap());
        let end = at + usize::try_from(length).unwrap();
        out.push(&bytes[at..end]);
        at = end;
    }
    out
}

/// Sets a message's reference time (section 1, octets 13 to 19).
fn set_run(message: &mut [u8], run: DateTime<Utc>) {
    // Section 1 follows the 16 octets of section 0; its year is at its 13th octet.
    let time = 16 + 12;
    let year = u16::try_from(run.year()).unwrap().to_be_bytes();
    message[time..time + 7].copy_from_slice(&[
        year[0],
        year[1],
        run.month() as u8,
        run.day() as u8,
        run.hour() as u8,
        run.minute() as u8,
        run.second() as u8,
    ]);
}

/// The offset of section 4 (the product definition) in a message.
fn section_4(message: &[u8]) -> usize {
    let mut at = 16;
    loop {
        let length = u32::from_be_bytes(message[at..at + 4].try_into().unwrap());
        if message[at + 4] == 4 {
            return at;
        }
        at += usize::try_from(length).unwrap();
    }
}

/// Whether a message is a pollen count of product definition template 4.40 (parameter 59),
/// as the European fixture's six species are.
fn is_pollen(message: &[u8]) -> bool {
    let s4 = section_4(message);
    message[s4 + 7..s4 + 9] == [0, 40] && message[s4 + 10] == 59
}

/// The step of a template 4.40 message in hours: octet 20 of section 4 is the unit (1, hours),
/// octets 21 to 24 the value.
fn step_hours(message: &[u8]) -> u32 {
    let s4 = section_4(message);
    assert_eq!(message[s4 + 19], 1, "a step in hours");
    u32::from_be_bytes(message[s4 + 20..s4 + 24].try_into().unwrap())
}

fn set_step_hours(message: &mut [u8], hours: u32) {
    let s4 = section_4(message);
    message[s4 + 19] = 1;
    message[s4 + 20..s4 + 24].copy_from_slice(&hours.to_be_bytes());
}

/// A European run of `run` with the fixture's six pollen species at each of `steps` (hours
/// after the run): an even hour of the day holds the fixture's values of step 0, an odd one
/// those of step 1, whatever the run, so that the hours of a day differ.
fn europe_pollen_run(run: DateTime<Utc>, steps: std::ops::RangeInclusive<u32>) -> Vec<u8> {
    let bytes = std::fs::read(fixture("europe.grib2")).unwrap();
    let pollen: Vec<&[u8]> = messages(&bytes)
        .into_iter()
        .filter(|m| is_pollen(m))
        .collect();
    assert_eq!(pollen.len(), 12, "six species at two steps");
    let mut out = Vec::new();
    for step in steps {
        let valid = run + Duration::hours(i64::from(step));
        for m in pollen.iter().filter(|m| step_hours(m) == valid.hour() % 2) {
            let mut m = m.to_vec();
            set_run(&mut m, run);
            set_step_hours(&mut m, step);
            out.extend(m);
        }
    }
    out
}

/// Each pollen type's count at node `node` of the European fixture in ecCodes's decoding: the
/// species summed, at steps 0 and 1.
fn europe_pollen_at_node(node: usize) -> [[f64; 2]; 3] {
    let mut out = [[0.0; 2]; 3];
    for (code, steps) in europe_plants_at_node(node) {
        let kind = match code {
            "alder" | "birch" | "olive" => 0,
            "grass" => 1,
            _ => 2,
        };
        out[kind][0] += steps[0];
        out[kind][1] += steps[1];
    }
    out
}

/// Each plant's count at steps 0 and 1 at `node` of the European fixture, as ecCodes decodes
/// it, by the constituent types ECMWF documents for the species; in the order the API lists
/// plants (by type, then by name).
fn europe_plants_at_node(node: usize) -> Vec<(&'static str, [f64; 2])> {
    let text = std::fs::read_to_string(fixture("europe.json")).unwrap();
    let messages: Vec<Value> = serde_json::from_str(&text).unwrap();
    let order = [
        (62100, "alder"),
        (62101, "birch"),
        (64002, "olive"),
        (62300, "grass"),
        (62201, "mugwort"),
        (62200, "ragweed"),
    ];
    let mut out: Vec<(&'static str, [f64; 2])> =
        order.iter().map(|&(_, code)| (code, [0.0; 2])).collect();
    for m in messages
        .iter()
        .filter(|m| m["template"] == 40 && m["parameterNumber"] == 59)
    {
        let constituent = m["constituentType"].as_u64().unwrap();
        let k = order
            .iter()
            .position(|&(c, _)| c == constituent)
            .unwrap_or_else(|| panic!("constituent {constituent}"));
        let step = usize::try_from(m["step"].as_u64().unwrap()).unwrap();
        out[k].1[step] = m["values"][node].as_f64().unwrap();
    }
    out
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

#[tokio::test]
async fn the_pollen_lookup_names_the_runs_its_days_come_from() {
    // Iceland keeps UTC all year, so its civil days are UTC days.
    let today = this_hour() - Duration::hours(i64::from(this_hour().hour()));
    // Today's hours from two runs: the one of 12:00 yesterday holds them all, the one of
    // midnight (newer) the first twelve, which it answers.
    let (older, newer) = (today - Duration::hours(12), today);
    let d = Deployment::new();
    let cams = d.path().join("cams");
    let d = d.flag("--aq-source", &format!("cams:{}", cams.display()));
    for (name, run, steps) in [
        ("older.grib2", older, 12..=35),
        ("newer.grib2", newer, 0..=11),
    ] {
        let file = d.path().join(name);
        std::fs::write(&file, europe_pollen_run(run, steps)).unwrap();
        run_ok(&d, &["ingest", &file.display().to_string()]);
    }
    let key = d.new_key();
    let server = d.serve(&[]);

    // A node of the European grid in Iceland (65° N, 20° W: row 3, column 2 of 29).
    let (meta, data) = lookup(&server, &key, "pollen", "lat=65&lon=-20&days=2").await;
    let source = &meta["dataSource"];
    assert_eq!(source["name"], "cams");
    assert_eq!(source["basis"], "model", "{meta}");
    let run = |t: DateTime<Utc>| json!({"model": "cams-europe", "referenceTime": t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)});
    assert_eq!(
        source["modelRuns"],
        json!([run(older), run(newer)]),
        "{meta}"
    );
    assert_eq!(source["newestObservation"], json!(null));
    assert_eq!(source["provenanceNote"], json!(null));
    assert_eq!(source["newestHour"], json!(null), "days, not hours");
    // Today is whole; tomorrow has no hour held.
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
    // Each type's mean is the mean of its twelve even hours (step 0's counts) and twelve odd
    // ones (step 1's), as ecCodes decodes the fixture.
    let node = europe_pollen_at_node(3 * 29 + 2);
    for (k, kind) in ["tree", "grass", "weed"].into_iter().enumerate() {
        let expected = (node[k][0] + node[k][1]) / 2.0;
        let got = days[0]["types"][kind]["meanGrainsM3"].as_f64().unwrap();
        assert!(
            (got - expected).abs() <= 0.051,
            "{kind}: {got} for {expected}: {data}"
        );
    }
    // Each plant likewise: the grid keeps the species apart.
    let plants = days[0]["plants"].as_array().unwrap();
    let expected = europe_plants_at_node(3 * 29 + 2);
    assert_eq!(plants.len(), expected.len(), "{data}");
    for (plant, (code, steps)) in plants.iter().zip(expected) {
        assert_eq!(plant["code"], code, "{data}");
        let got = plant["meanGrainsM3"].as_f64().unwrap();
        let expected = (steps[0] + steps[1]) / 2.0;
        assert!(
            (got - expected).abs() <= 0.051,
            "{code}: {got} for {expected}: {data}"
        );
    }

    // Delhi, outside the European grid: no day, and nothing to name.
    let (meta, data) = lookup(&server, &key, "pollen", "lat=28.61&lon=77.21").await;
    assert_eq!(data["days"], json!([]));
    assert_eq!(meta["dataSource"]["basis"], json!(null), "{meta}");
    assert_eq!(meta["dataSource"]["modelRuns"], json!([]), "{meta}");
}

/// Starts a server of each deployment, asks each for `conditions` with its own key, and checks
/// that both answer the same hour. The GRIB2 file lies outside the store the servers read, so
/// what they answer is what the one ingest wrote.
async fn both_answer_alike(a: &Deployment, b: &Deployment) {
    let (key_a, key_b) = (a.new_key(), b.new_key());
    let (server_a, server_b) = (a.serve(&[]), b.serve(&[]));
    let hour_a = conditions(&server_a, &key_a).await;
    let hour_b = conditions(&server_b, &key_b).await;
    assert!(hour_a.is_object(), "{hour_a}");
    assert!(hour_a["index"]["value"].is_number(), "{hour_a}");
    assert_eq!(hour_a, hour_b);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_local_store_serve_one_ingest() {
    let shared = tempfile::tempdir().unwrap();
    let grids = shared.path().join("grids");
    let source = format!("cams:{}", grids.display());
    let a = Deployment::new().flag("--aq-source", &source);
    let b = Deployment::new().flag("--aq-source", &source);
    let file = global_run_at(this_hour() - Duration::hours(1), shared.path(), "now.grib2");
    run_ok(&a, &["ingest", &file]);
    both_answer_alike(&a, &b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_postgres_and_s3_serve_one_ingest() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let Some(s3) = S3Server::start() else {
        return;
    };
    // The files' retention deletes what is old in their store: the grids lie beside it.
    let d = Deployment::new()
        .flag("--database-url", &db.url)
        .flag("--object-store", &format!("s3://{BUCKET}/files"))
        .flag("--aq-source", &format!("cams:s3://{BUCKET}/grids"))
        .env("AWS_ENDPOINT_URL", &s3.endpoint)
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .env("AWS_REGION", "us-east-1");
    let refused = scale_out_deployment(&db, &s3)
        .flag("--aq-source", &format!("cams:s3://{BUCKET}/grids"))
        .run(&["ingest", &fixture("global.grib2")]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("retention"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let file = global_run_at(this_hour() - Duration::hours(1), d.path(), "now.grib2");
    let said = run_ok(&d, &["ingest", &file]);
    assert!(said.contains("18 fields"), "{said}");
    assert!(s3.bucket_dir().join("grids/manifests/global").is_dir());
    both_answer_alike(&d, &d).await;
}

/// The malformed fixtures `adapters/grid/fixtures/make_bad_fixtures.py` writes, and the reason
/// `/metrics` counts each under.
const BAD_FILES: [(&str, &str); 4] = [
    ("bad_huge_grid.grib2", "oversized"),
    ("bad_step.grib2", "bad_time"),
    ("bad_cut.grib2", "truncated"),
    ("bad_short_section7.grib2", "truncated"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_files_beside_a_good_one_are_named_and_the_good_one_is_served() {
    let d = Deployment::new();
    let cams = d.path().join("cams");
    std::fs::create_dir_all(&cams).unwrap();
    for (name, _) in BAD_FILES {
        std::fs::copy(fixture(name), cams.join(name)).unwrap();
    }
    std::fs::write(
        cams.join("europe.grib2"),
        fixture_run_at("europe.grib2", this_hour()),
    )
    .unwrap();
    let d = d
        .flag("--aq-source", &format!("cams:{}", cams.display()))
        .config("cams_poll_seconds = 1\n");
    let key = d.new_key();
    // The server listens while the directory is read: it comes up whatever the files hold.
    let server = d.serve(&[]);
    eventually("each bad file named in the log", || {
        let log = server.log();
        BAD_FILES
            .iter()
            .all(|(name, _)| {
                log.lines()
                    .any(|l| l.contains("refused") && l.contains(name))
            })
            .then_some(())
    })
    .await;
    let (meta, data) = lookup(&server, &key, "conditions", "lat=52.52&lon=13.405").await;
    assert!(!data["hour"].is_null(), "{meta}");
    assert_eq!(
        meta["dataSource"]["modelRuns"][0]["model"], "cams-europe",
        "{meta}"
    );
    let mut seen = String::new();
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    let counted = |text: &str| {
        BAD_FILES.iter().all(|(_, reason)| {
            text.lines().any(|l| {
                l.starts_with("insights_cams_files_refused_total")
                    && l.contains(&format!("reason=\"{reason}\""))
                    && !l.ends_with(" 0")
            })
        }) && text.contains("insights_cams_messages_skipped_total{reason=\"not_served\"} 4")
    };
    while !counted(&seen) {
        assert!(
            std::time::Instant::now() < deadline,
            "the refusals never reached /metrics:\n{seen}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let reply = Reply::read(client().get(server.url("/metrics")).send().await.unwrap()).await;
        seen = String::from_utf8_lossy(&reply.body).into_owned();
    }
    // Refused once: a poll later, no bad file was read again.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let log = server.log();
    for (name, _) in BAD_FILES {
        let times = log
            .lines()
            .filter(|l| l.contains("refused") && l.contains(name))
            .count();
        assert_eq!(times, 1, "{name} read again:\n{log}");
    }
}
