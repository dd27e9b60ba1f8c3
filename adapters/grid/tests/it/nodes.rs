//! Every node equals ecCodes's value; between nodes and hours the blend is bilinear and linear;
//! valid times are the reference time plus the step.

use std::sync::Arc;

use aq_core::{AirQualitySource, Plant, PollenType, Pollutant, Position, SampleQuery};
use aq_grid::{GridSource, GridStore, Product, Quantity, StoreConfig, ingest_file};
use chrono::{DateTime, Duration, Utc};
use object_store::memory::InMemory;

use crate::reference::{Message, close, expected, fixture, load};

/// Small chunks, so that the fixtures' grids span several blocks (and the global grid's wrap
/// falls inside a chunk's halo) and their hours several hour blocks.
pub(crate) const SMALL: StoreConfig = StoreConfig {
    cache_bytes: 1 << 20,
    chunk_nodes: 8,
    chunk_hours: 2,
    europe_model: aq_grid::EuropeModel::Ensemble,
};

/// What a replica serves after one ingest of `files`: one store writes the chunks, another
/// over the same objects reads them, as a server reads what `insights-server ingest` wrote.
pub(crate) async fn store_with(files: &[&str]) -> Arc<GridStore> {
    let objects: Arc<dyn object_store::ObjectStore> = Arc::new(InMemory::new());
    let writer = GridStore::new(objects.clone(), SMALL);
    for f in files {
        ingest_file(&writer, &fixture(&format!("{f}.grib2")))
            .await
            .unwrap();
    }
    let reader = Arc::new(GridStore::new(objects, SMALL));
    reader.refresh().await.unwrap();
    reader
}

fn valid_times(messages: &[Message]) -> Vec<DateTime<Utc>> {
    let mut t: Vec<_> = messages.iter().map(Message::valid).collect();
    t.sort();
    t.dedup();
    t
}

/// The grid's value of `quantity` at each of `points` at `time`.
async fn grid_values(
    source: &GridSource,
    quantity: Quantity,
    points: &[(f64, f64)],
    time: DateTime<Utc>,
) -> Vec<f64> {
    match quantity {
        Quantity::Pollutant(p) => {
            let queries: Vec<SampleQuery> = points
                .iter()
                .map(|&(lat, lon)| SampleQuery {
                    position: Position::new(lon, lat).unwrap(),
                    time,
                })
                .collect();
            source
                .sample(&queries)
                .await
                .unwrap()
                .into_iter()
                .zip(points)
                .map(|(s, pt)| {
                    s.and_then(|s| s.concentrations)
                        .and_then(|c| c.get(p))
                        .unwrap_or_else(|| panic!("no {p:?} at {pt:?} {time}"))
                        .ug_m3()
                })
                .collect()
        }
        Quantity::Plant(plant) => {
            let mut out = Vec::new();
            for &(lat, lon) in points {
                let v = source
                    .plant_at(Position::new(lon, lat).unwrap(), time, plant)
                    .await
                    .unwrap();
                out.push(v.unwrap_or_else(|| panic!("no {plant:?} pollen at {lat}, {lon} {time}")));
            }
            out
        }
        Quantity::Pollen(kind) => {
            let mut out = Vec::new();
            for &(lat, lon) in points {
                let v = source
                    .pollen_at(Position::new(lon, lat).unwrap(), time, kind)
                    .await
                    .unwrap();
                out.push(v.unwrap_or_else(|| panic!("no {kind:?} pollen at {lat}, {lon} {time}")));
            }
            out
        }
    }
}

fn quantities(regional: bool) -> Vec<Quantity> {
    let mut q: Vec<Quantity> = Pollutant::ALL
        .into_iter()
        .map(Quantity::Pollutant)
        .collect();
    if regional {
        // Each plant, and each type as the sum of its plants.
        q.extend(Plant::ALL.into_iter().map(Quantity::Plant));
        q.extend(PollenType::ALL.into_iter().map(Quantity::Pollen));
    }
    q
}

async fn every_node_equals_eccodes(name: &str, regional: bool) {
    let messages = load(name);
    let source = GridSource::new(store_with(&[name]).await);
    let mut checked = 0;
    for valid in valid_times(&messages) {
        for quantity in quantities(regional) {
            let want = expected(&messages, quantity, valid);
            let m = &want.first;
            let nodes: Vec<(usize, usize)> = (0..m.nj)
                .flat_map(|j| (0..m.ni).map(move |i| (j, i)))
                .collect();
            let points: Vec<(f64, f64)> = nodes.iter().map(|&(j, i)| m.node(j, i)).collect();
            let got = grid_values(&source, quantity, &points, valid).await;
            for ((&(j, i), g), w) in nodes.iter().zip(&got).zip(&want.values) {
                assert!(
                    close(*g, *w, want.tolerance),
                    "{name} {quantity:?} {valid} node ({j}, {i}): grid {g}, ecCodes {w} ± {}",
                    want.tolerance
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 2_500, "only {checked} nodes checked");
}

#[tokio::test]
async fn every_global_node_equals_the_value_eccodes_decodes() {
    every_node_equals_eccodes("global", false).await;
}

#[tokio::test]
async fn every_european_node_equals_the_value_eccodes_decodes() {
    every_node_equals_eccodes("europe", true).await;
}

#[tokio::test]
async fn every_node_of_a_global_crop_equals_the_value_eccodes_decodes() {
    every_node_equals_eccodes("global_crop", false).await;
}

/// The bilinear blend of the reference at the fractional node (`fj`, `fi`).
fn bilinear(m: &Message, values: &[f64], fj: f64, fi: f64) -> f64 {
    let (j, i) = (fj.floor() as usize, fi.floor() as usize);
    let (u, t) = (fj - j as f64, fi - i as f64);
    let i1 = (i + 1) % m.ni;
    let v = |j: usize, i: usize| values[j * m.ni + i];
    (1.0 - u) * ((1.0 - t) * v(j, i) + t * v(j, i1))
        + u * ((1.0 - t) * v(j + 1, i) + t * v(j + 1, i1))
}

async fn blends_between_nodes_and_hours(name: &str, regional: bool, cells: &[(f64, f64)]) {
    let messages = load(name);
    let source = GridSource::new(store_with(&[name]).await);
    let times = valid_times(&messages);
    for quantity in quantities(regional) {
        let a = expected(&messages, quantity, times[0]);
        let b = expected(&messages, quantity, times[1]);
        let m = &a.first;
        let points: Vec<(f64, f64)> = cells
            .iter()
            .map(|&(fj, fi)| {
                let lon = m.west + m.di * fi;
                (
                    m.north - m.dj * fj,
                    if lon > 180.0 { lon - 360.0 } else { lon },
                )
            })
            .collect();
        // In space, at the first hour.
        let got = grid_values(&source, quantity, &points, times[0]).await;
        for (&(fj, fi), g) in cells.iter().zip(&got) {
            let want = bilinear(m, &a.values, fj, fi);
            assert!(
                close(*g, want, a.tolerance),
                "{name} {quantity:?} at ({fj}, {fi}): {g} vs {want}"
            );
        }
        // In time, a quarter of the way to the next hour.
        let quarter = times[0] + (times[1] - times[0]) / 4;
        let got = grid_values(&source, quantity, &points, quarter).await;
        for (&(fj, fi), g) in cells.iter().zip(&got) {
            let want =
                0.75 * bilinear(m, &a.values, fj, fi) + 0.25 * bilinear(m, &b.values, fj, fi);
            let tol = a.tolerance.max(b.tolerance);
            assert!(
                close(*g, want, tol),
                "{name} {quantity:?} at ({fj}, {fi}) {quarter}: {g} vs {want}"
            );
        }
    }
}

#[tokio::test]
async fn between_global_nodes_the_blend_is_bilinear_and_linear_in_time() {
    // Fractional (row, column): cell centres, a point a third along an edge, and the cell that
    // wraps from 350°E back to 0°E.
    let cells = [
        (3.5, 4.5),
        (10.25, 20.75),
        (7.0, 12.333),
        (12.5, 35.5),
        (0.5, 0.5),
    ];
    blends_between_nodes_and_hours("global", false, &cells).await;
}

#[tokio::test]
async fn between_the_3_hourly_steps_of_a_global_crop_the_blend_is_linear() {
    let cells = [(3.5, 4.5), (16.25, 27.75), (9.0, 12.333)];
    blends_between_nodes_and_hours("global_crop", false, &cells).await;
}

#[tokio::test]
async fn between_european_nodes_the_blend_is_bilinear_and_linear_in_time() {
    let cells = [(3.5, 4.5), (16.25, 27.75), (9.0, 12.333), (0.1, 0.9)];
    blends_between_nodes_and_hours("europe", true, &cells).await;
}

#[tokio::test]
async fn valid_times_are_the_reference_time_plus_the_step() {
    for (name, product) in [("global", Product::Global), ("europe", Product::Europe)] {
        let store = store_with(&[name]).await;
        assert_eq!(store.hours(product), valid_times(&load(name)), "{name}");
        let source = GridSource::new(store);
        let last = *valid_times(&load(name)).last().unwrap();
        let first = valid_times(&load(name))[0];
        let berlin = Position::new(13.4, 52.5).unwrap();
        let at = |time| SampleQuery {
            position: berlin,
            time,
        };
        let answers = source
            .sample(&[
                at(first),
                at(last),
                at(first - Duration::minutes(1)),
                at(last + Duration::minutes(1)),
            ])
            .await
            .unwrap();
        assert!(answers[0].is_some() && answers[1].is_some(), "{name}");
        assert!(
            answers[2].is_none() && answers[3].is_none(),
            "{name}: outside its hours"
        );
    }
}

#[tokio::test]
async fn europe_answers_where_it_covers_and_the_global_grid_elsewhere() {
    let both = GridSource::new(store_with(&["global", "europe"]).await);
    let europe = GridSource::new(store_with(&["europe"]).await);
    let global = GridSource::new(store_with(&["global"]).await);
    let time = valid_times(&load("europe"))[0];
    let pm = |s: Option<aq_core::AirSample>| {
        s.unwrap()
            .concentrations
            .unwrap()
            .get(Pollutant::Pm25)
            .unwrap()
            .ug_m3()
    };
    let ask = |lon, lat| {
        [SampleQuery {
            position: Position::new(lon, lat).unwrap(),
            time,
        }]
    };
    let paris = ask(2.35, 48.86);
    assert_eq!(
        pm(both.sample(&paris).await.unwrap()[0]),
        pm(europe.sample(&paris).await.unwrap()[0])
    );
    assert_ne!(
        pm(both.sample(&paris).await.unwrap()[0]),
        pm(global.sample(&paris).await.unwrap()[0])
    );
    let delhi = ask(77.2, 28.6);
    assert!(europe.sample(&delhi).await.unwrap()[0].is_none());
    assert_eq!(
        pm(both.sample(&delhi).await.unwrap()[0]),
        pm(global.sample(&delhi).await.unwrap()[0])
    );
}
