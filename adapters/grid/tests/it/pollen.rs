//! Daily pollen from the grids: each civil day at a place is the mean of the whole hours of that
//! day in the place's time zone, its level from the same thresholds as every source, and the
//! days name the runs their counts were read from.

use std::sync::Arc;

use aq_core::{
    ForecastSource, GrainThresholds, ModelRun, Plant, PollenType, Position, Provenance,
    check_batch_len,
};
use aq_grid::{Field, GridSource, GridStore, Lattice, Layer, Product, Quantity};
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};

fn utc(d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, d, h, 0, 0).unwrap()
}

fn june(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 6, d).unwrap()
}

/// Grass pollen of the run of `run` at `t`, the same at every node: a daily cycle, and each
/// run a little higher than the one before, so that the hours tell which run they came from.
fn grass(run: DateTime<Utc>, t: DateTime<Utc>) -> f32 {
    let hour = (t - utc(1, 0)).num_hours() % 24;
    let cycle = if (8..20).contains(&hour) { 60.0 } else { 4.0 };
    cycle + (run - utc(9, 0)).num_hours() as f32
}

/// The European run of `run` with grass pollen at every hour from `first` to `last`, on a 1°
/// square around Berlin.
fn run_fields(run: DateTime<Utc>, first: DateTime<Utc>, last: DateTime<Utc>) -> Vec<Field> {
    let lattice = Lattice::new(53.0, -1.0, 2, 13.0, 1.0, 2).unwrap();
    let mut out = Vec::new();
    let mut valid = first;
    while valid <= last {
        let v = grass(run, valid);
        out.push(Field {
            product: Product::Europe,
            quantity: Quantity::Pollen(PollenType::Grass),
            run,
            valid,
            layer: Layer::new(lattice, vec![v; 4].into()).unwrap(),
        });
        valid += Duration::hours(1);
    }
    out
}

fn model(runs: &[DateTime<Utc>]) -> Provenance {
    Provenance::model(runs.iter().map(|&reference_time| ModelRun {
        model: "cams-europe".to_owned(),
        reference_time,
    }))
}

/// A run and the first and last hours it holds.
type Held = (DateTime<Utc>, DateTime<Utc>, DateTime<Utc>);

/// The mean of grass over the hours from `start`, `hours` of them, each from the newest of
/// `runs` (oldest first) that holds it.
fn expected_mean(start: DateTime<Utc>, hours: i64, runs: &[Held]) -> f64 {
    let sum: f64 = (0..hours)
        .map(|h| {
            let t = start + Duration::hours(h);
            let (run, _, _) = runs
                .iter()
                .rev()
                .find(|&&(_, first, last)| first <= t && t <= last)
                .unwrap();
            f64::from(grass(*run, t))
        })
        .sum();
    sum / hours as f64
}

#[tokio::test]
async fn a_day_is_the_mean_of_its_hours_in_the_places_time_zone_from_the_runs_that_hold_them() {
    // Run A of 9 June 00:00 holds 9 June 20:00 to 11 June 00:00; run B of 10 June 12:00 holds
    // 10 June 12:00 to 12 June 06:00 and, being newer, answers the hours both hold; run C of
    // 12 June 00:00 holds only the first six hours of 12 June.
    let (a, b, c) = (utc(9, 0), utc(10, 12), utc(12, 0));
    let holds: [Held; 3] = [
        (a, utc(9, 20), utc(11, 0)),
        (b, utc(10, 12), utc(12, 6)),
        (c, utc(12, 0), utc(12, 5)),
    ];
    let store = Arc::new(GridStore::in_memory());
    let fields = holds
        .iter()
        .flat_map(|&(run, first, last)| run_fields(run, first, last))
        .collect();
    store.commit(fields).await.unwrap();
    let source = GridSource::new(store);
    let berlin = Position::new(13.4, 52.5).unwrap();
    let thresholds = GrainThresholds::default();

    // Berlin keeps UTC+2 in June: 10 June there runs from 22:00 UTC on 9 June.
    let answer = source
        .pollen_days(&[berlin], utc(10, 12) + Duration::minutes(30), 3)
        .await
        .unwrap();
    let days = check_batch_len(1, answer).unwrap().pop().flatten().unwrap();
    assert_eq!(days.days.len(), 3);
    let dates: Vec<NaiveDate> = days.days.iter().map(|d| d.date).collect();
    assert_eq!(dates, [june(10), june(11), june(12)]);
    for (k, day) in days.days.iter().take(2).enumerate() {
        let start = utc(9, 22) + Duration::days(k as i64);
        let mean = expected_mean(start, 24, &holds);
        let got = day.get(PollenType::Grass).unwrap();
        let counted = got.mean_grains_m3.unwrap();
        assert!(
            (counted - mean).abs() < 1e-9,
            "{}: {counted} ≠ {mean}",
            day.date
        );
        assert_eq!(
            got.level,
            thresholds.level(PollenType::Grass, mean).unwrap(),
            "{}",
            day.date
        );
        assert!(day.get(PollenType::Tree).is_none(), "no tree pollen held");
    }
    // 12 June has nine hours held (22:00 on 11 June to 06:00): not a day.
    assert!(days.days[2].is_empty());
    // 10 June read runs A and B; C's hours lie in a day with no value, behind nothing.
    assert_eq!(days.provenance, model(&[a, b]));

    // From 11 June: one day from B alone.
    let answer = source.pollen_days(&[berlin], utc(11, 12), 2).await.unwrap();
    let days = answer[0].as_ref().unwrap();
    assert!(!days.days[0].is_empty());
    assert!(days.days[1].is_empty());
    assert_eq!(days.provenance, model(&[b]));

    // The outlook alerts compare has the same levels, yesterday first.
    let outlook = source
        .daily_pollen(&[berlin], utc(11, 12), 1)
        .await
        .unwrap();
    let outlook = outlook[0].as_ref().unwrap();
    assert_eq!(outlook.today, june(11));
    let answer = source.pollen_days(&[berlin], utc(10, 12), 2).await.unwrap();
    let days = answer[0].as_ref().unwrap();
    assert_eq!(outlook.yesterday, days.days[0].levels());
    assert_eq!(outlook.days[0], days.days[1].levels());
}

#[tokio::test]
async fn a_place_outside_the_pollen_grids_has_no_pollen() {
    let store = Arc::new(GridStore::in_memory());
    store
        .commit(run_fields(utc(9, 0), utc(9, 20), utc(11, 0)))
        .await
        .unwrap();
    let source = GridSource::new(store);
    let madrid = Position::new(-3.7, 40.4).unwrap();
    let berlin = Position::new(13.4, 52.5).unwrap();
    let answer = source
        .pollen_days(&[madrid, berlin, madrid], utc(10, 12), 1)
        .await
        .unwrap();
    assert!(answer[0].is_none() && answer[2].is_none());
    assert!(answer[1].is_some(), "the answers keep the order asked");
    let outlooks = source
        .daily_pollen(&[madrid], utc(10, 12), 1)
        .await
        .unwrap();
    assert_eq!(outlooks, [None]);
}

#[tokio::test]
async fn the_fixtures_two_hours_of_pollen_are_no_whole_day() {
    // The European fixture holds its six species at 00:00 and 01:00 UTC on 10 June: Paris is
    // covered, but no day there has three quarters of its hours.
    let source = GridSource::new(crate::nodes::store_with(&["europe"]).await);
    let paris = Position::new(2.35, 48.86).unwrap();
    let answer = source.pollen_days(&[paris], utc(10, 0), 1).await.unwrap();
    let days = answer[0].as_ref().unwrap();
    assert_eq!(days.days.len(), 1);
    assert_eq!(days.days[0].date, june(10));
    assert!(days.days[0].is_empty());
}

/// `quantity` of the European run of `run` at every hour from `first` to `last`, `value` at
/// every node of the square around Berlin.
fn constant(
    quantity: Quantity,
    run: DateTime<Utc>,
    first: DateTime<Utc>,
    last: DateTime<Utc>,
    value: f32,
) -> Vec<Field> {
    let lattice = Lattice::new(53.0, -1.0, 2, 13.0, 1.0, 2).unwrap();
    let hours = (last - first).num_hours();
    (0..=hours)
        .map(|h| Field {
            product: Product::Europe,
            quantity,
            run,
            valid: first + Duration::hours(h),
            layer: Layer::new(lattice, vec![value; 4].into()).unwrap(),
        })
        .collect()
}

#[tokio::test]
async fn a_day_lists_each_plant_held_beside_its_types() {
    // As ingest writes a run: each type the sum of its species, each species a plant.
    let run = utc(9, 0);
    let (first, last) = (utc(9, 0), utc(12, 0));
    let mut fields = Vec::new();
    for (quantity, value) in [
        (Quantity::Pollen(PollenType::Tree), 42.5),
        (Quantity::Plant(Plant::Alder), 2.5),
        (Quantity::Plant(Plant::Birch), 40.0),
        (Quantity::Pollen(PollenType::Weed), 0.0),
        (Quantity::Plant(Plant::Ragweed), 0.0),
    ] {
        fields.extend(constant(quantity, run, first, last, value));
    }
    let store = Arc::new(GridStore::in_memory());
    store.commit(fields).await.unwrap();
    let source = GridSource::new(store);
    let berlin = Position::new(13.4, 52.5).unwrap();

    let answer = source.pollen_days(&[berlin], utc(10, 12), 1).await.unwrap();
    let day = &answer[0].as_ref().unwrap().days[0];
    let plants: Vec<(Plant, f64)> = day.plants().map(|(p, d)| (p, d.mean_grains_m3)).collect();
    assert_eq!(
        plants,
        [
            (Plant::Alder, 2.5),
            (Plant::Birch, 40.0),
            (Plant::Ragweed, 0.0)
        ]
    );
    assert_eq!(
        day.get(PollenType::Tree).unwrap().mean_grains_m3,
        Some(42.5)
    );
    assert_eq!(day.get(PollenType::Weed).unwrap().mean_grains_m3, Some(0.0));
    assert!(day.get(PollenType::Grass).is_none(), "no grass held");
    assert_eq!(
        source
            .plant_at(berlin, utc(10, 12), Plant::Birch)
            .await
            .unwrap(),
        Some(40.0)
    );
    // Alerts read the types alone: the same levels.
    let outlook = source
        .daily_pollen(&[berlin], utc(11, 12), 1)
        .await
        .unwrap();
    assert_eq!(outlook[0].as_ref().unwrap().yesterday, day.levels());
}

#[tokio::test]
async fn a_batch_of_types_alone_lists_only_grass_among_plants() {
    // A batch written before the grid store kept plants: types alone. Grass, the one plant of
    // its type, is its type's layer.
    let mut fields = constant(
        Quantity::Pollen(PollenType::Tree),
        utc(9, 0),
        utc(9, 0),
        utc(12, 0),
        30.0,
    );
    fields.extend(run_fields(utc(9, 0), utc(9, 0), utc(12, 0)));
    let store = Arc::new(GridStore::in_memory());
    store.commit(fields).await.unwrap();
    let source = GridSource::new(store);
    let berlin = Position::new(13.4, 52.5).unwrap();
    let answer = source.pollen_days(&[berlin], utc(10, 12), 1).await.unwrap();
    let day = &answer[0].as_ref().unwrap().days[0];
    assert_eq!(
        day.get(PollenType::Tree).unwrap().mean_grains_m3,
        Some(30.0)
    );
    let plants: Vec<Plant> = day.plants().map(|(p, _)| p).collect();
    assert_eq!(plants, [Plant::Grass]);
    assert_eq!(
        day.plant(Plant::Grass).unwrap().mean_grains_m3,
        day.get(PollenType::Grass).unwrap().mean_grains_m3.unwrap()
    );
}

#[tokio::test]
async fn the_grass_plant_and_the_grass_type_are_one_layer_under_either_name() {
    // One run, its first hours committed under the plant's name and the later ones under the
    // type's: one layer holding them all, not two layers with the same name in one batch.
    let mut fields = constant(
        Quantity::Plant(Plant::Grass),
        utc(9, 0),
        utc(9, 0),
        utc(9, 5),
        12.0,
    );
    fields.extend(constant(
        Quantity::Pollen(PollenType::Grass),
        utc(9, 0),
        utc(9, 6),
        utc(9, 12),
        20.0,
    ));
    let store = Arc::new(GridStore::in_memory());
    store.commit(fields).await.unwrap();
    let source = GridSource::new(store);
    let berlin = Position::new(13.4, 52.5).unwrap();
    for (time, want) in [(utc(9, 3), 12.0), (utc(9, 9), 20.0)] {
        let plant = source.plant_at(berlin, time, Plant::Grass).await.unwrap();
        let kind = source
            .pollen_at(berlin, time, PollenType::Grass)
            .await
            .unwrap();
        assert_eq!((plant, kind), (Some(want), Some(want)), "{time}");
    }
}
