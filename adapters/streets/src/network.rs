//! The street network: the places where ways meet or bend, the segments between them, and an
//! index of the segments with traffic for the nearest road of each class.

use std::collections::HashMap;

use aq_core::position::{EARTH_RADIUS_M, unit_vector_deg};
use aq_core::{NearbyRoads, Position, RoadClass, RoadMap, RoadMapInfo};
use rstar::RTree;
use rstar::primitives::Line;

use crate::tags::WayKind;

/// What OpenStreetMap's licence (ODbL) asks every use of its data to say.
pub const OSM_ATTRIBUTION: &str = "© OpenStreetMap contributors (ODbL)";

/// One segment of a way, between two consecutive nodes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    /// The node it starts at (an index into [`StreetNetwork::position`]).
    pub from: u32,
    /// The node it ends at.
    pub to: u32,
    /// Its length in metres.
    pub length_m: f64,
    /// What its way is.
    pub kind: WayKind,
}

/// A place on the unit sphere scaled to the Earth's radius: straight-line distances between
/// such points are metres, and at street scale they are the distance along the ground to well
/// under a millimetre, wherever on Earth the street is.
fn metres_point(lon: f64, lat: f64) -> [f64; 3] {
    unit_vector_deg(lon, lat).map(|c| c * EARTH_RADIUS_M)
}

/// The streets read from one or more OpenStreetMap extracts.
pub struct StreetNetwork {
    nodes: Vec<[f64; 2]>,
    osm_ids: Vec<i64>,
    edges: Vec<Edge>,
    traffic: [RTree<Line<[f64; 3]>>; 5],
}

impl std::fmt::Debug for StreetNetwork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreetNetwork")
            .field("nodes", &self.nodes.len())
            .field("edges", &self.edges.len())
            .finish_non_exhaustive()
    }
}

impl StreetNetwork {
    /// How many nodes the network has.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Its segments.
    #[must_use]
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Where node `node` is, as `[longitude, latitude]`.
    ///
    /// # Panics
    /// When `node` is not a node of this network.
    #[must_use]
    pub fn position(&self, node: u32) -> [f64; 2] {
        self.nodes[node as usize]
    }

    /// The OpenStreetMap id of node `node`.
    ///
    /// # Panics
    /// When `node` is not a node of this network.
    #[must_use]
    pub fn osm_id(&self, node: u32) -> i64 {
        self.osm_ids[node as usize]
    }

    /// Bytes the network holds, roughly: what a deployment must budget for its extract.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        let segments: usize = self.traffic.iter().map(RTree::size).sum();
        self.nodes.capacity() * size_of::<[f64; 2]>()
            + self.osm_ids.capacity() * size_of::<i64>()
            + self.edges.capacity() * size_of::<Edge>()
            // A leaf and its share of the tree's inner nodes.
            + segments * (size_of::<Line<[f64; 3]>>() + 16)
    }
}

impl RoadMap for StreetNetwork {
    fn info(&self) -> RoadMapInfo {
        RoadMapInfo {
            name: "openstreetmap".to_owned(),
            attribution: Some(OSM_ATTRIBUTION.to_owned()),
        }
    }

    fn nearby(&self, position: Position, within_m: f64) -> NearbyRoads {
        let here = metres_point(position.lon(), position.lat());
        let mut roads = NearbyRoads::default();
        for (class, tree) in RoadClass::ALL.into_iter().zip(&self.traffic) {
            let Some((_, d2)) = tree.nearest_neighbor_with_distance_2(here) else {
                continue;
            };
            let d = d2.sqrt();
            if d <= within_m {
                roads = roads.with(class, d);
            }
        }
        roads
    }
}

/// Gathers ways into a [`StreetNetwork`]; nodes shared by ways (or by extracts) are joined by
/// their OpenStreetMap id.
#[derive(Debug, Default)]
pub struct NetworkBuilder {
    index: HashMap<i64, u32>,
    nodes: Vec<[f64; 2]>,
    osm_ids: Vec<i64>,
    edges: Vec<Edge>,
}

impl NetworkBuilder {
    /// Adds a way of `kind` through `nodes` (id, longitude, latitude), in the way's order.
    /// Ways of fewer than two nodes add nothing.
    pub fn add_way(&mut self, kind: WayKind, nodes: &[(i64, f64, f64)]) {
        for pair in nodes.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if a.0 == b.0 {
                continue;
            }
            let from = self.node(a);
            let to = self.node(b);
            let length_m = aq_core::position::chord_distance_m(
                unit_vector_deg(a.1, a.2),
                unit_vector_deg(b.1, b.2),
            );
            self.edges.push(Edge {
                from,
                to,
                length_m,
                kind,
            });
        }
    }

    fn node(&mut self, (id, lon, lat): (i64, f64, f64)) -> u32 {
        if let Some(&n) = self.index.get(&id) {
            return n;
        }
        let n = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.index.insert(id, n);
        self.nodes.push([lon, lat]);
        self.osm_ids.push(id);
        n
    }

    /// Adds what `other` gathered: one extract read apart, so that a file refused halfway
    /// leaves nothing of itself behind.
    pub fn merge(&mut self, other: NetworkBuilder) {
        let local: Vec<u32> = other
            .osm_ids
            .iter()
            .zip(&other.nodes)
            .map(|(&id, &[lon, lat])| self.node((id, lon, lat)))
            .collect();
        self.edges.extend(other.edges.into_iter().map(|e| Edge {
            from: local[e.from as usize],
            to: local[e.to as usize],
            ..e
        }));
    }

    /// True while no way has given a segment.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// The network, its index built.
    #[must_use]
    pub fn build(self) -> StreetNetwork {
        let mut segments: [Vec<Line<[f64; 3]>>; 5] = Default::default();
        for e in &self.edges {
            let Some(class) = e.kind.class else { continue };
            let [lon_a, lat_a] = self.nodes[e.from as usize];
            let [lon_b, lat_b] = self.nodes[e.to as usize];
            segments[class as usize].push(Line::new(
                metres_point(lon_a, lat_a),
                metres_point(lon_b, lat_b),
            ));
        }
        let mut nodes = self.nodes;
        let mut osm_ids = self.osm_ids;
        let mut edges = self.edges;
        nodes.shrink_to_fit();
        osm_ids.shrink_to_fit();
        edges.shrink_to_fit();
        StreetNetwork {
            nodes,
            osm_ids,
            edges,
            traffic: segments.map(RTree::bulk_load),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRIMARY: WayKind = WayKind {
        class: Some(RoadClass::Primary),
        walk: true,
        cycle_forward: true,
        cycle_backward: true,
    };
    const FOOTWAY: WayKind = WayKind {
        class: None,
        walk: true,
        cycle_forward: false,
        cycle_backward: false,
    };

    #[test]
    fn the_nearest_road_of_each_class_is_measured_to_its_segment_not_its_nodes() {
        let mut b = NetworkBuilder::default();
        // A primary road 1 km along the equator.
        b.add_way(PRIMARY, &[(1, 0.0, 0.0), (2, 0.009, 0.0)]);
        b.add_way(FOOTWAY, &[(3, 0.0, 0.001), (4, 0.009, 0.001)]);
        let net = b.build();
        // Halfway along, 0.0005° (55.6 m) north of it: far from both nodes, near the segment.
        let roads = net.nearby(Position::new(0.0045, 0.0005).unwrap(), 500.0);
        let d = roads.get(RoadClass::Primary).unwrap();
        assert!((d - 55.6).abs() < 0.1, "{d}");
        assert_eq!(
            roads.get(RoadClass::Minor),
            None,
            "a footway carries no traffic"
        );
        assert!(
            net.nearby(Position::new(0.0045, 0.01).unwrap(), 500.0)
                .is_empty()
        );
    }

    #[test]
    fn ways_sharing_a_node_share_it_in_the_network() {
        let mut b = NetworkBuilder::default();
        b.add_way(PRIMARY, &[(1, 0.0, 0.0), (2, 0.001, 0.0)]);
        b.add_way(FOOTWAY, &[(2, 0.001, 0.0), (3, 0.001, 0.001)]);
        let net = b.build();
        assert_eq!(net.node_count(), 3);
        assert_eq!(net.edges()[0].to, net.edges()[1].from);
        assert!((net.edges()[0].length_m - 111.19).abs() < 0.01);
    }
}
