//! `insights-server fetch` and `serve --fetch-cams` against a stand-in of ECMWF's Data Stores
//! API (`test_support::ads`, which ECMWF's own Python client also retrieves from: see
//! `adapters/ads/tests`): both datasets, the key in the header, a 429 then success, a download
//! cut short resumed, a run already stored not fetched again, and the fetched data served.

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use serde_json::Value;
use test_support::ads::AdsStandIn;

use crate::cams::{conditions, fixture_run_at};
use crate::harness::{Deployment, client};
use crate::lookups::this_hour;

const KEY: &str = "ads-test-key-0123";

/// The run a request names (`date` `D/D`, `time` `["HH:00"]`).
fn requested_run(inputs: &Value) -> DateTime<Utc> {
    let date = inputs["date"].as_str().unwrap().split('/').next().unwrap();
    let day = NaiveDate::parse_from_str(date, "%Y-%m-%d").unwrap();
    let time = NaiveTime::parse_from_str(inputs["time"][0].as_str().unwrap(), "%H:%M").unwrap();
    day.and_time(time).and_utc()
}

fn fixture_of(dataset: &str) -> &'static str {
    if dataset == insights_ads::GLOBAL_DATASET {
        "global.grib2"
    } else {
        "europe.grib2"
    }
}

fn deployment(api: &AdsStandIn) -> Deployment {
    let d = Deployment::new();
    let cams = d.path().join("cams");
    d.flag("--aq-source", &format!("cams:{}", cams.display()))
        .flag("--ads-url", &api.url())
        .env("INSIGHTS_ADS_KEY", KEY)
        .config("cams_poll_seconds = 1\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_retrieves_both_products_once_through_a_429_and_a_cut_download() {
    // Each file carries the run it was asked for, as the ADS delivers it.
    let api = AdsStandIn::start(KEY, |dataset, inputs| {
        fixture_run_at(fixture_of(dataset), requested_run(inputs))
    })
    .await;
    let d = deployment(&api);
    // Without a key, nothing is asked.
    let out = Deployment::new()
        .flag("--aq-source", "cams:x")
        .flag("--ads-url", &api.url())
        .run(&["fetch"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("INSIGHTS_ADS_KEY"));

    api.too_many_requests(1);
    api.cut_downloads(1);
    let out = d.run(&["fetch"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("global run") && said.contains("europe run"),
        "{said}"
    );
    assert_eq!(said.matches("fetched").count(), 2, "{said}");
    let submitted = api.submitted();
    assert_eq!(submitted.len(), 2, "one job a product, the 429 none");
    assert!(submitted.iter().all(|s| s.key.as_deref() == Some(KEY)));
    let datasets: Vec<&str> = submitted.iter().map(|s| s.dataset.as_str()).collect();
    assert_eq!(
        datasets,
        [insights_ads::GLOBAL_DATASET, insights_ads::EUROPE_DATASET]
    );
    assert_eq!(submitted[1].inputs["model"][0], "ensemble");
    assert_eq!(
        submitted[1].inputs["leadtime_hour"]
            .as_array()
            .unwrap()
            .len(),
        97
    );
    assert_eq!(submitted[0].inputs["leadtime_hour"][40], "120");
    let ranges = api.ranges();
    assert_eq!(ranges.len(), 3, "the cut download resumed: {ranges:?}");
    assert!(ranges[1].starts_with("bytes="), "{ranges:?}");
    let cams = d.path().join("cams");
    assert!(cams.join("manifests/global").is_dir());
    assert!(cams.join("manifests/europe").is_dir());

    // Again: both runs are in the store, nothing is asked for.
    let out = d.run(&["fetch"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert_eq!(said.matches("stored already").count(), 2, "{said}");
    assert_eq!(api.submitted().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_is_fetched_is_served_and_serve_fetch_cams_reports_in_metrics() {
    // A global run of the hour before this one, so that the server has an hour of now.
    let api = AdsStandIn::start(KEY, |dataset, _| {
        fixture_run_at(
            fixture_of(dataset),
            this_hour() - chrono::Duration::hours(1),
        )
    })
    .await;
    let d = deployment(&api).flag("--ads-products", "global");
    let out = d.run(&["fetch"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let key = d.new_key();
    let server = d.serve(&["--fetch-cams"]);
    let hour = conditions(&server, &key).await;
    assert!(
        !hour.is_null(),
        "the fetched run is served:\n{}",
        server.log()
    );
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        let metrics = client()
            .get(server.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if metrics
            .contains("insights_cams_fetch_last_success_timestamp_seconds{product=\"global\"}")
            && metrics.contains("insights_cams_fetch_last_success_age_seconds{product=\"global\"}")
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no fetch gauges:\n{metrics}\n{}",
            server.log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_two_replicas_on_one_database_one_fetches_and_the_other_waits_its_turn() {
    let Some(db) = test_support::postgres::TestDb::create().await else {
        return;
    };
    let api = AdsStandIn::start(KEY, |dataset, _| {
        fixture_run_at(
            fixture_of(dataset),
            this_hour() - chrono::Duration::hours(1),
        )
    })
    .await;
    let d = deployment(&api)
        .flag("--ads-products", "global")
        .flag("--database-url", &db.url);
    let replicas = [d.serve(&["--fetch-cams"]), d.serve(&["--fetch-cams"])];
    let waiting = || {
        replicas
            .iter()
            .filter(|r| r.log().contains("another replica fetches the CAMS runs"))
            .count()
    };
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    while waiting() == 0 || api.submitted().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no replica waited:\n{}\n{}",
            replicas[0].log(),
            replicas[1].log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(waiting(), 1, "one replica holds the lease, the other waits");
    assert_eq!(
        api.submitted().len(),
        1,
        "the global run was asked for once"
    );
}
