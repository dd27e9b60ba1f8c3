//! `AdsClient` against the stand-in of the Data Stores API, and the stand-in against ECMWF's own
//! Python client, which shows the stand-in speaks the API as the ADS does.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::time::Duration;

use insights_ads::{AdsClient, AdsError, EuropeRequest, GLOBAL_DATASET, GlobalRequest, Retry};
use serde_json::Value;
use test_support::ads::AdsStandIn;

const KEY: &str = "00000000-1111-2222-3333-444444444444";

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../grid/fixtures")
            .join(name),
    )
    .unwrap()
}

fn by_dataset(dataset: &str, _inputs: &Value) -> Vec<u8> {
    if dataset == GLOBAL_DATASET {
        fixture("global.grib2")
    } else {
        fixture("europe.grib2")
    }
}

fn quick() -> Retry {
    Retry {
        attempts: 4,
        first_wait: Duration::from_millis(10),
        max_wait: Duration::from_secs(2),
        first_poll: Duration::from_millis(10),
        max_poll: Duration::from_millis(50),
        job_timeout: Duration::from_secs(30),
    }
}

fn run() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-12-03T00:00:00Z")
        .unwrap()
        .into()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_datasets_are_retrieved_with_the_key_in_the_header_after_a_429() {
    let api = AdsStandIn::start(KEY, by_dataset).await;
    let dir = tempfile::tempdir().unwrap();
    let client = AdsClient::new(&api.url(), KEY).unwrap().with_retry(quick());
    api.too_many_requests(1);
    let global = GlobalRequest::new(run());
    let got = client
        .retrieve(
            GLOBAL_DATASET,
            &global.inputs(),
            &dir.path().join("g.grib2"),
        )
        .await
        .unwrap();
    assert_eq!(std::fs::read(&got.path).unwrap(), fixture("global.grib2"));
    let europe = EuropeRequest::new(run());
    let got = client
        .retrieve(
            insights_ads::EUROPE_DATASET,
            &europe.inputs(),
            &dir.path().join("e.grib2"),
        )
        .await
        .unwrap();
    assert_eq!(std::fs::read(&got.path).unwrap(), fixture("europe.grib2"));
    let submitted = api.submitted();
    assert_eq!(submitted.len(), 2, "the 429 is not a job");
    assert!(submitted.iter().all(|s| s.key.as_deref() == Some(KEY)));
    assert_eq!(submitted[0].inputs, global.inputs());
    assert_eq!(submitted[1].inputs["model"][0], "ensemble");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_cut_short_resumes_from_what_it_has() {
    let api = AdsStandIn::start(KEY, by_dataset).await;
    let dir = tempfile::tempdir().unwrap();
    let client = AdsClient::new(&api.url(), KEY).unwrap().with_retry(quick());
    api.cut_downloads(1);
    let target = dir.path().join("g.grib2");
    let got = client
        .retrieve(GLOBAL_DATASET, &GlobalRequest::new(run()).inputs(), &target)
        .await
        .unwrap();
    let whole = fixture("global.grib2");
    assert_eq!(std::fs::read(&target).unwrap(), whole);
    assert_eq!(got.bytes, whole.len() as u64);
    let ranges = api.ranges();
    assert_eq!(ranges.len(), 2, "{ranges:?}");
    assert_eq!(ranges[0], "-");
    assert!(ranges[1].starts_with("bytes="), "{ranges:?}");
    assert!(!dir.path().join("g.grib2.part").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_key_is_refused_with_the_apis_message() {
    let api = AdsStandIn::start(KEY, by_dataset).await;
    let dir = tempfile::tempdir().unwrap();
    let client = AdsClient::new(&api.url(), "wrong")
        .unwrap()
        .with_retry(quick());
    let err = client
        .retrieve(
            GLOBAL_DATASET,
            &GlobalRequest::new(run()).inputs(),
            &dir.path().join("g"),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, AdsError::Refused { status: 401, message, .. } if message.contains("PRIVATE-TOKEN")),
        "{err}"
    );
}

/// ECMWF's `ecmwf-datastores-client` retrieves from the stand-in as from the ADS.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ecmwfs_own_client_retrieves_from_the_stand_in() {
    let Some(python) = test_support::find_tool(
        "ADS_CLIENT_PYTHON",
        "ads-client-venv/bin/python",
        "ads-client-python",
        "run scripts/test (it installs ecmwf-datastores-client in a virtual environment)",
    ) else {
        return;
    };
    let api = AdsStandIn::start(KEY, by_dataset).await;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("from-python.grib2");
    let request = EuropeRequest::new(run()).inputs().to_string();
    let script = "import json, sys\n\
                  from ecmwf.datastores import Client\n\
                  c = Client(url=sys.argv[1], key=sys.argv[2], progress=False, sleep_max=0.2, \
                  retry_after=0.2, maximum_tries=3)\n\
                  print(c.retrieve(sys.argv[3], json.loads(sys.argv[4]), sys.argv[5]))\n";
    let args = [
        "-c".to_owned(),
        script.to_owned(),
        api.url(),
        KEY.to_owned(),
        insights_ads::EUROPE_DATASET.to_owned(),
        request,
        target.display().to_string(),
    ];
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python)
            .args(args)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&target).unwrap(), fixture("europe.grib2"));
    let submitted = api.submitted();
    assert_eq!(submitted.len(), 1);
    assert_eq!(submitted[0].key.as_deref(), Some(KEY));
    assert_eq!(submitted[0].inputs, EuropeRequest::new(run()).inputs());
}
