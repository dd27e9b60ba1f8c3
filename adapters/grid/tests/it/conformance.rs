//! The source conformance suite every air-quality adapter runs, on the ingested fixtures.

use aq_core::{Position, SampleQuery};
use aq_grid::GridSource;
use aq_sources::conformance::{
    Expectations, ForecastExpectations, check_air_quality, check_forecast,
};
use chrono::{Duration, TimeZone, Utc};

/// A source over the chunks ingest writes of `files`, read back as a replica reads them.
async fn source(files: &[&str]) -> GridSource {
    GridSource::new(crate::nodes::store_with(files).await)
}

#[tokio::test]
async fn the_grid_passes_the_air_quality_conformance_suite() {
    let source = source(&["global", "europe"]).await;
    let run = Utc.with_ymd_and_hms(2026, 6, 10, 0, 0, 0).unwrap();
    let p = |lon, lat| Position::new(lon, lat).unwrap();
    let q = |position, minutes| SampleQuery {
        position,
        time: run + Duration::minutes(minutes),
    };
    let (paris, delhi, sydney) = (p(2.35, 48.86), p(77.2, 28.6), p(151.2, -33.9));
    let expect = Expectations {
        covered: vec![
            q(paris, 0),
            q(paris, 45),
            q(delhi, 90),
            q(sydney, 120),
            q(p(179.9, -89.9), 10),
        ],
        uncovered: vec![q(paris, -60), q(delhi, 121), q(sydney, 24 * 60)],
    };
    check_air_quality(&source, &expect).await;
}

#[tokio::test]
async fn the_grid_passes_the_forecast_conformance_suite() {
    let source = source(&["europe"]).await;
    let p = |lon, lat| Position::new(lon, lat).unwrap();
    let expect = ForecastExpectations {
        covered: vec![p(2.35, 48.86), p(13.4, 52.5), p(-20.0, 35.0)],
        uncovered: vec![p(77.2, 28.6), p(151.2, -33.9)],
        start: Utc.with_ymd_and_hms(2026, 6, 10, 0, 0, 0).unwrap(),
        hours: 3,
        // Every covered place lies in the European grid, which carries pollen.
        pollen_covered: true,
    };
    check_forecast(&source, &expect).await;
}
