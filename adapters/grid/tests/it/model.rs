//! A model laid on a grid ([`GridStore::from_model`]): the demo field through the same chunks
//! as the CAMS grids, its blocks computed on first use.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aq_core::{
    AirModel, AirQualitySource, Concentration, Concentrations, ForecastSource, ModelHour,
    Pollutant, Position, Provenance, SampleQuery, SourceInfo,
};
use aq_grid::{GridSource, GridStore, Lattice, ModelGrid};
use aq_sources::DemoField;
use aq_sources::conformance::{
    Expectations, ForecastExpectations, check_air_quality, check_forecast,
};
use chrono::{DateTime, Duration, TimeZone, Utc};

fn p(lon: f64, lat: f64) -> Position {
    Position::new(lon, lat).unwrap()
}

/// 20 × 20 positions `step` degrees apart, the south-west one at (`west`, `south`).
fn square(west: f64, south: f64, step: f64) -> Vec<Position> {
    (0..400)
        .map(|i| {
            p(
                west + f64::from(i % 20) * step,
                south + f64::from(i / 20) * step,
            )
        })
        .collect()
}

fn t(day: u32, h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 4, day, h, m, 0).unwrap()
}

fn demo() -> GridSource {
    let store = GridStore::from_model(Arc::new(DemoField::default()), ModelGrid::default());
    GridSource::new(Arc::new(store))
}

/// PM2.5 of `2 × lat + lon + hours since 1 April 2026` µg/m³ (plus 400 to stay positive),
/// counting the evaluations.
#[derive(Default)]
struct Plane {
    evaluations: AtomicUsize,
}

impl Plane {
    fn at(lat: f64, lon: f64, time: DateTime<Utc>) -> f64 {
        let hours = (time - t(1, 0, 0)).num_seconds() as f64 / 3600.0;
        400.0 + 2.0 * lat + lon + hours
    }

    fn evaluations(&self) -> usize {
        self.evaluations.load(Ordering::SeqCst)
    }
}

impl AirModel for Plane {
    fn info(&self) -> SourceInfo {
        SourceInfo::real("plane")
    }

    fn hours(&self, position: Position, times: &[DateTime<Utc>]) -> Vec<ModelHour> {
        self.evaluations.fetch_add(times.len(), Ordering::SeqCst);
        times
            .iter()
            .map(|&time| ModelHour {
                concentrations: Concentrations::default().with(
                    Pollutant::Pm25,
                    Concentration::new(Self::at(position.lat(), position.lon(), time)).unwrap(),
                ),
                pollen: [None; 3],
                plants: [None; 6],
            })
            .collect()
    }
}

/// A 0.1° grid over Europe in chunks of 8 cells and 4 hours.
fn europe() -> ModelGrid {
    ModelGrid {
        lattice: Lattice::new(72.0, -0.1, 401, -25.0, 0.1, 701).unwrap(),
        chunk_nodes: 8,
        chunk_hours: 4,
        cache_bytes: 64 << 20,
    }
}

fn pm25(sample: Option<aq_core::AirSample>) -> f64 {
    sample
        .unwrap()
        .concentrations
        .unwrap()
        .get(Pollutant::Pm25)
        .unwrap()
        .ug_m3()
}

#[tokio::test]
async fn a_model_is_sampled_bilinearly_in_space_and_linearly_in_time() {
    let plane = Arc::new(Plane::default());
    let store = Arc::new(GridStore::from_model(plane.clone(), europe()));
    let source = GridSource::new(store);
    // A plane is reproduced exactly by bilinear and linear blends, to the f32 of the nodes.
    let queries: Vec<SampleQuery> = [
        (p(2.35, 48.86), t(20, 8, 0)),
        (p(13.404, 52.518), t(20, 8, 30)),
        (p(-3.7, 40.42), t(21, 23, 15)),
        // A node, at a whole hour: the model's own value.
        (p(10.0, 50.0), t(20, 12, 0)),
    ]
    .into_iter()
    .map(|(position, time)| SampleQuery { position, time })
    .collect();
    let answers = source.sample(&queries).await.unwrap();
    for (q, a) in queries.iter().zip(answers) {
        let want = Plane::at(q.position.lat(), q.position.lon(), q.time);
        let got = pm25(a);
        assert!((got - want).abs() < 1e-4, "{got} against {want} at {q:?}");
    }
    // Outside the grid: not covered.
    let outside = SampleQuery {
        position: p(151.2, -33.9),
        time: t(20, 8, 0),
    };
    assert!(source.sample(&[outside]).await.unwrap()[0].is_none());
}

#[tokio::test]
async fn an_answer_does_not_depend_on_the_positions_asked_with_it() {
    let source = demo();
    let paris = p(2.3522, 48.8566);
    let start = t(14, 6, 0);
    let alone = source.hourly_ci(&[paris], start, 24).await.unwrap();
    // A lone position computes only its own nodes, and keeps nothing.
    assert_eq!(source.store().cached_bytes(), 0);
    // Two thousand positions around it make its blocks worth computing whole.
    let crowd: Vec<Position> = std::iter::once(paris)
        .chain((0..2_000).map(|i| {
            let (dx, dy) = (f64::from(i % 50), f64::from(i / 50));
            p(2.25 + dx * 0.004, 48.78 + dy * 0.004)
        }))
        .collect();
    let together = source.hourly_ci(&crowd, start, 24).await.unwrap();
    assert!(
        source.store().cached_bytes() > 0,
        "blocks computed whole are kept"
    );
    assert_eq!(alone[0], together[0]);
    // And once held, the same again.
    assert_eq!(source.hourly_ci(&[paris], start, 24).await.unwrap(), alone);
}

#[tokio::test]
async fn a_block_computed_whole_is_computed_once_for_every_caller() {
    let plane = Arc::new(Plane::default());
    let source = GridSource::new(Arc::new(GridStore::from_model(plane.clone(), europe())));
    // Positions over the whole of one chunk of 8 × 8 cells (49.6° to 50.4° N, 9.4° to
    // 10.2° E), on every cell of it.
    let positions = square(9.45, 49.65, 0.035);
    let start = t(20, 0, 0);
    let calls = (0..4).map(|_| source.hourly_ci(&positions, start, 3));
    let answers = futures::future::join_all(calls).await;
    assert!(
        answers
            .iter()
            .all(|a| a.as_ref().unwrap() == answers[0].as_ref().unwrap())
    );
    // One block of 9 × 9 nodes and 4 hours.
    assert_eq!(plane.evaluations(), 9 * 9 * 4);
    source.hourly_ci(&positions, start, 3).await.unwrap();
    assert_eq!(plane.evaluations(), 9 * 9 * 4);
}

#[tokio::test]
async fn small_calls_around_one_place_have_its_block_computed_whole_after_a_few() {
    let plane = Arc::new(Plane::default());
    let store = Arc::new(GridStore::from_model(plane.clone(), europe()));
    let source = GridSource::new(store.clone());
    let start = t(20, 0, 0);
    // One position, 4 nodes over the 4 hours of a block: a sixteenth of a whole block of
    // 9 × 9 nodes, so each call computes its own nodes until the calls have needed, together,
    // an eighth of the block.
    let mut calls = 0;
    while store.cached_bytes() == 0 {
        source
            .hourly_ci(&[p(10.05, 50.05)], start, 3)
            .await
            .unwrap();
        calls += 1;
        assert!(calls <= 3, "the block was never computed whole");
    }
    assert_eq!(calls, 3);
    let before = plane.evaluations();
    // Now held: nearby positions in the same block cost nothing.
    source.hourly_ci(&[p(9.9, 50.3)], start, 3).await.unwrap();
    assert_eq!(plane.evaluations(), before);
}

#[tokio::test]
async fn scattered_positions_cost_a_few_evaluations_each_wherever_they_are() {
    let plane = Arc::new(Plane::default());
    let source = GridSource::new(Arc::new(GridStore::from_model(plane.clone(), europe())));
    // One position per chunk, far apart: no block is worth computing whole.
    let positions: Vec<Position> = (0..300)
        .map(|i| {
            p(
                -20.0 + f64::from(i % 30) * 2.13,
                35.5 + f64::from(i / 30) * 3.07,
            )
        })
        .collect();
    let hours = 24;
    let series = source
        .hourly_ci(&positions, t(20, 5, 0), hours)
        .await
        .unwrap();
    assert!(series.iter().all(Option::is_some));
    let asked = positions.len() * (hours as usize + 1);
    assert!(
        plane.evaluations() <= 4 * asked,
        "{} evaluations for {asked} position-hours",
        plane.evaluations()
    );
    assert_eq!(source.store().cached_bytes(), 0);
}

#[tokio::test]
async fn the_demo_field_on_its_grid_is_labelled_synthetic() {
    let source = demo();
    let info = ForecastSource::info(&source);
    assert_eq!(info.name, "demo");
    assert!(info.demo);
    let berlin = p(13.405, 52.52);
    let series = source
        .hourly_ci(&[berlin], t(20, 6, 0), 6)
        .await
        .unwrap()
        .remove(0)
        .unwrap();
    assert_eq!(series.provenance, Provenance::Synthetic);
    let days = source.pollen_days(&[berlin], t(20, 6, 0), 2).await.unwrap();
    assert_eq!(days[0].as_ref().unwrap().provenance, Provenance::Synthetic);
}

#[tokio::test]
async fn the_demo_field_on_its_grid_stays_near_the_field() {
    let source = demo();
    let field = DemoField::default();
    // A day of every 0.05° over a degree around Paris: its centre, suburbs, road corridors.
    let positions = square(1.863, 48.367, 0.05);
    let start = t(20, 6, 0);
    let series = source.hourly_ci(&positions, start, 23).await.unwrap();
    let mut off: Vec<f64> = Vec::new();
    for (position, s) in positions.iter().zip(series) {
        for (h, ci) in s.unwrap().values.iter().enumerate() {
            let exact = field
                .ci_at(*position, start + Duration::hours(h as i64))
                .unwrap();
            off.push((ci.unwrap().value() - exact.value()).abs());
        }
    }
    off.sort_by(f64::total_cmp);
    let mean = off.iter().sum::<f64>() / off.len() as f64;
    let p99 = off[off.len() * 99 / 100];
    // Nodes 0.02° apart hold the field's values: the blend is the field but where a feature is
    // narrower than the spacing (a road plume), a few index points off there.
    assert!(mean < 0.25, "mean {mean}");
    assert!(p99 < 5.0, "99th percentile {p99}");
}

#[tokio::test]
async fn the_demo_field_on_its_grid_passes_the_conformance_suites() {
    let source = demo();
    let q = |position, time| SampleQuery { position, time };
    check_air_quality(
        &source,
        &Expectations {
            covered: vec![
                q(p(2.35, 48.86), t(5, 8, 0)),
                q(p(2.35, 48.86), t(5, 20, 30)),
                q(p(-179.9, -89.0), t(1, 0, 0)),
                q(p(179.995, 10.0), t(1, 0, 0)),
                q(p(151.2, -33.9), t(1, 12, 0)),
            ],
            uncovered: vec![],
        },
    )
    .await;
    check_forecast(
        &source,
        &ForecastExpectations {
            covered: vec![p(13.4, 52.5), p(-58.4, -34.6)],
            uncovered: vec![],
            start: t(20, 6, 0),
            hours: 96,
            pollen_covered: true,
        },
    )
    .await;
}
