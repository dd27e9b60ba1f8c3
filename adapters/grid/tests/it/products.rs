//! The product named by its producer, never by its grid; the European model chosen by a
//! setting; 3-hourly steps answered at every hour; what is skipped counted by reason; and files
//! whose headers lie refused whole, each with its reason, and not read again until they change.

use std::collections::BTreeMap;
use std::sync::Arc;

use aq_core::{AirQualitySource, Pollutant, Position, SampleQuery};
use aq_grid::ingest::{Refusal, scan_bytes, tally};
use aq_grid::{
    DirectoryFeed, EuropeModel, GridSource, GridStore, Product, Quantity, SkipReason, StoreConfig,
    ingest_file,
};
use chrono::{Duration, TimeZone, Utc};
use object_store::memory::InMemory;

use crate::reference::{close, expected, fixture, load};

fn run() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 10, 0, 0, 0).unwrap()
}

#[tokio::test]
async fn a_global_crop_on_the_european_grid_is_the_global_product_in_kg_m3() {
    let store = Arc::new(GridStore::in_memory());
    let report = ingest_file(&store, &fixture("global_crop.grib2"))
        .await
        .unwrap();
    assert_eq!((report.messages, report.skipped), (18, 0));
    assert!(store.hours(Product::Europe).is_empty());
    // Steps 0, 3 and 6 and every hour between.
    let hours: Vec<_> = (0..=6).map(|h| run() + Duration::hours(h)).collect();
    assert_eq!(store.hours(Product::Global), hours);
    assert_eq!(report.commit.taken, 6 * 7);
    // Each step decoded once, however many filled hours read it.
    assert_eq!(report.decoded, 18);
    // Paris's PM2.5 is tens of µg/m³, not the 10⁻⁹ its kg m⁻³ would read as.
    let source = GridSource::new(store);
    let paris = SampleQuery {
        position: Position::new(2.35, 48.86).unwrap(),
        time: run(),
    };
    let got = source.sample(&[paris]).await.unwrap()[0]
        .unwrap()
        .concentrations
        .unwrap()
        .get(Pollutant::Pm25)
        .unwrap()
        .ug_m3();
    assert!((1.0..100.0).contains(&got), "{got}");
}

#[tokio::test]
async fn every_hour_between_two_3_hourly_steps_lies_on_the_line_between_them() {
    let messages = load("global_crop");
    let source = GridSource::new(crate::nodes::store_with(&["global_crop"]).await);
    for quantity in Pollutant::ALL.map(Quantity::Pollutant) {
        let Quantity::Pollutant(p) = quantity else {
            unreachable!()
        };
        let a = expected(&messages, quantity, run());
        let b = expected(&messages, quantity, run() + Duration::hours(3));
        let m = &a.first;
        let nodes = [(2, 3), (10, 20), (17, 28)];
        for hour in 1..3 {
            let w = f64::from(hour) / 3.0;
            let time = run() + Duration::hours(i64::from(hour));
            let queries: Vec<SampleQuery> = nodes
                .iter()
                .map(|&(j, i)| {
                    let (lat, lon) = m.node(j, i);
                    SampleQuery {
                        position: Position::new(lon, lat).unwrap(),
                        time,
                    }
                })
                .collect();
            let got = source.sample(&queries).await.unwrap();
            for (&(j, i), g) in nodes.iter().zip(got) {
                let g = g.unwrap().concentrations.unwrap().get(p).unwrap().ug_m3();
                let k = j * m.ni + i;
                let want = (1.0 - w) * a.values[k] + w * b.values[k];
                assert!(
                    close(g, want, a.tolerance.max(b.tolerance)),
                    "{p:?} at {time} node ({j}, {i}): {g} vs {want}"
                );
            }
        }
    }
}

#[tokio::test]
async fn the_european_model_is_the_ensemble_median_unless_set_and_skips_are_counted() {
    let store = GridStore::in_memory();
    let report = ingest_file(&store, &fixture("europe.grib2")).await.unwrap();
    // NO, NH₃, dust and wildfire PM10 not served; CHIMERE's PM2.5 another model's.
    let skips = BTreeMap::from([(SkipReason::OtherModel, 1), (SkipReason::NotServed, 4)]);
    assert_eq!(report.skips, skips);
    assert_eq!((report.messages, report.skipped), (29, 5));
    // Six pollutants, three types and five plants (grass is its type) at two steps.
    assert_eq!(report.commit.taken, 28);
    let counted = tally();
    for (reason, n) in [(SkipReason::OtherModel, 1), (SkipReason::NotServed, 4)] {
        let held = counted
            .skipped
            .iter()
            .find(|(r, _)| *r == reason)
            .unwrap()
            .1;
        assert!(held >= n, "{reason:?}: {held}");
    }

    let chimere = GridStore::new(
        Arc::new(InMemory::new()),
        StoreConfig {
            europe_model: EuropeModel::Chimere,
            ..StoreConfig::default()
        },
    );
    let report = ingest_file(&chimere, &fixture("europe.grib2"))
        .await
        .unwrap();
    assert_eq!(report.skips, BTreeMap::from([(SkipReason::OtherModel, 28)]));
    assert_eq!(report.commit.taken, 1, "CHIMERE's one PM2.5 field");
    assert_eq!(chimere.hours(Product::Europe), vec![run()]);
}

/// The malformed fixtures (`fixtures/make_bad_fixtures.py`) and the kind each is refused as.
const BAD: [(&str, Refusal); 4] = [
    ("bad_huge_grid.grib2", Refusal::Oversized),
    ("bad_step.grib2", Refusal::BadTime),
    ("bad_cut.grib2", Refusal::Truncated),
    ("bad_short_section7.grib2", Refusal::Truncated),
];

#[tokio::test]
async fn files_whose_headers_lie_are_refused_whole_before_anything_is_allocated() {
    let store = GridStore::in_memory();
    for (name, kind) in BAD {
        let path = fixture(name);
        let e = ingest_file(&store, &path).await.unwrap_err();
        assert_eq!((e.kind, e.store_failed), (kind, false), "{name}: {e}");
        assert_eq!(e.file, path);
        let bytes = std::fs::read(&path).unwrap();
        assert!(scan_bytes(&bytes).is_err(), "{name}");
    }
    assert!(store.manifests().is_empty());
    let e = ingest_file(&store, &fixture("bad_huge_grid.grib2"))
        .await
        .unwrap_err();
    assert!(e.reason.contains("4294836225 grid points"), "{e}");
    let e = ingest_file(&store, &fixture("bad_short_section7.grib2"))
        .await
        .unwrap_err();
    assert!(e.reason.contains("section 7"), "{e}");
    // The good files scan and decode whole.
    for name in ["europe.grib2", "global.grib2", "global_crop.grib2"] {
        let bytes = std::fs::read(fixture(name)).unwrap();
        assert!(scan_bytes(&bytes).unwrap() > 0, "{name}");
    }
}

#[tokio::test]
async fn a_refused_file_is_not_read_again_until_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("europe.grib2"), dir.path().join("good.grib2")).unwrap();
    for (name, _) in BAD {
        std::fs::copy(fixture(name), dir.path().join(name)).unwrap();
    }
    let store = Arc::new(GridStore::in_memory());
    let mut feed = DirectoryFeed::new(dir.path().to_owned(), store.clone(), Duration::days(3650));
    let now = run();
    let first = feed.poll(now).await.unwrap();
    assert_eq!(first.ingested.len(), 1);
    let mut refused: Vec<_> = first
        .refused
        .iter()
        .map(|e| e.file.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    refused.sort();
    let mut names: Vec<_> = BAD.iter().map(|(n, _)| n.to_string()).collect();
    names.sort();
    assert_eq!(refused, names);
    let again = feed.poll(now).await.unwrap();
    assert!(again.ingested.is_empty() && again.refused.is_empty());
    // Replaced by a whole file, the cut one is read again.
    std::fs::copy(
        fixture("global_crop.grib2"),
        dir.path().join("bad_cut.grib2"),
    )
    .unwrap();
    let changed = feed.poll(now).await.unwrap();
    assert_eq!(changed.ingested.len(), 1);
    assert!(changed.refused.is_empty());
}

#[tokio::test]
async fn a_bitmap_section_too_short_to_hold_its_header_is_refused_not_a_panic() {
    // Found by the `grib_scan` fuzz target: a section 6 of 5 bytes that says a bitmap follows.
    let path = fixture("bad_bitmap_section.grib2");
    let bytes = std::fs::read(&path).unwrap();
    let why = scan_bytes(&bytes).unwrap_err();
    assert!(why.starts_with("truncated"), "{why}");
    let e = ingest_file(&GridStore::in_memory(), &path)
        .await
        .unwrap_err();
    assert_eq!(e.kind, Refusal::Truncated, "{e}");
}

#[tokio::test]
async fn run_length_packing_is_refused_not_a_panic() {
    // Found by the `grib_scan` fuzz target: template 5.200, whose decoder's shifts overflow on
    // a header that lies; no CAMS product packs so.
    let path = fixture("bad_run_length.grib2");
    let bytes = std::fs::read(&path).unwrap();
    let why = scan_bytes(&bytes).unwrap_err();
    assert!(why.contains("run-length packing"), "{why}");
    let e = ingest_file(&GridStore::in_memory(), &path)
        .await
        .unwrap_err();
    assert_eq!(e.kind, Refusal::Undecodable, "{e}");
}
