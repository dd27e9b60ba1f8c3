//! The street network: the places where ways meet or bend, the segments between them, and an
//! index of the segments with traffic for the nearest road of each class.

use std::collections::HashMap;

use aq_core::position::{EARTH_RADIUS_M, unit_vector_deg};
use aq_core::{NearbyRoads, Position, RoadClass, RoadMap, RoadMapInfo, RoadStretch};
use petgraph::graph::DiGraph;
use rstar::RTree;
use rstar::primitives::{GeomWithData, Line};

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
pub(crate) fn metres_point(lon: f64, lat: f64) -> [f64; 3] {
    unit_vector_deg(lon, lat).map(|c| c * EARTH_RADIUS_M)
}

/// A segment with traffic in metres, with its index among the network's segments.
type TrafficSegment = GeomWithData<Line<[f64; 3]>, u32>;

/// The streets read from one or more OpenStreetMap extracts.
pub struct StreetNetwork {
    nodes: Vec<[f64; 2]>,
    osm_ids: Vec<i64>,
    edges: Vec<Edge>,
    /// The segments with traffic, by class, each with its index in `edges`.
    traffic: [RTree<TrafficSegment>; 5],
    /// Every node, for the nearest to a place and the nodes around a journey.
    pub(crate) node_tree: RTree<GeomWithData<[f64; 3], u32>>,
    /// Who may go where: an arc for each direction a walker may take along a segment, its
    /// weight the segment's index.
    pub(crate) walk: DiGraph<(), u32, u32>,
    /// The same for bicycles, one-way streets one way.
    pub(crate) cycle: DiGraph<(), u32, u32>,
    /// Whether each node lies on the largest connected part of the walking arcs: journeys start
    /// and end there, never on a fragment (a footway cut off at the extract's edge).
    pub(crate) walk_main: Vec<bool>,
    /// The same for the cycling arcs.
    pub(crate) cycle_main: Vec<bool>,
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
        let arcs = self.walk.edge_count() + self.cycle.edge_count();
        // A graph's node and arc records: two links each, and the arc's ends and weight.
        let graph = 2 * self.nodes.len() * 8 + arcs * 16;
        self.nodes.capacity() * size_of::<[f64; 2]>()
            + self.osm_ids.capacity() * size_of::<i64>()
            + self.edges.capacity() * size_of::<Edge>()
            // A leaf and its share of the tree's inner nodes.
            + segments * (size_of::<TrafficSegment>() + 16)
            + self.node_tree.size() * (size_of::<GeomWithData<[f64; 3], u32>>() + 16)
            + graph
            + self.walk_main.capacity()
            + self.cycle_main.capacity()
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

    fn stretches_near(
        &self,
        centre: Position,
        radius_m: f64,
        limit: usize,
    ) -> Option<Vec<RoadStretch>> {
        let here = metres_point(centre.lon(), centre.lat());
        let mut stretches = Vec::new();
        for (class, tree) in RoadClass::ALL.into_iter().zip(&self.traffic) {
            for segment in tree.locate_within_distance(here, radius_m * radius_m) {
                if stretches.len() == limit {
                    return None;
                }
                let edge = &self.edges[segment.data as usize];
                let [lon_a, lat_a] = self.nodes[edge.from as usize];
                let [lon_b, lat_b] = self.nodes[edge.to as usize];
                // The network holds only positions it could read as such.
                let (Ok(from), Ok(to)) = (Position::new(lon_a, lat_a), Position::new(lon_b, lat_b))
                else {
                    continue;
                };
                stretches.push(RoadStretch { class, from, to });
            }
        }
        Some(stretches)
    }
}

/// More street nodes, or segments, than one network can index: a `u32` each, and a `u32` for
/// each of a walkable segment's two arcs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("more street nodes or segments than one network can index")]
pub struct TooManyNodes;

/// The most segments a network holds: each walkable one is two arcs of a graph indexed by
/// `u32`.
const MAX_SEGMENTS: usize = (u32::MAX / 2) as usize;

/// Gathers ways into a [`StreetNetwork`]; nodes shared by ways (or by extracts) are joined by
/// their OpenStreetMap id.
#[derive(Debug, Default)]
pub struct NetworkBuilder {
    index: HashMap<i64, u32>,
    nodes: Vec<[f64; 2]>,
    osm_ids: Vec<i64>,
    edges: Vec<Edge>,
    /// Set when a node found no index: the network is then refused.
    overflowed: bool,
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
            let (Some(from), Some(to)) = (self.node(a), self.node(b)) else {
                self.overflowed = true;
                return;
            };
            if self.edges.len() >= MAX_SEGMENTS {
                self.overflowed = true;
                return;
            }
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

    /// The index of node `id`, given one if it is new; `None` when `u32` has none left.
    fn node(&mut self, (id, lon, lat): (i64, f64, f64)) -> Option<u32> {
        if let Some(&n) = self.index.get(&id) {
            return Some(n);
        }
        let n = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&n| n < u32::MAX)?;
        self.index.insert(id, n);
        self.nodes.push([lon, lat]);
        self.osm_ids.push(id);
        Some(n)
    }

    /// Adds what `other` gathered: one extract read apart, so that a file refused halfway
    /// leaves nothing of itself behind.
    ///
    /// # Errors
    /// [`TooManyNodes`] when the nodes together are more than a `u32` can index.
    pub fn merge(&mut self, other: NetworkBuilder) -> Result<(), TooManyNodes> {
        if other.overflowed {
            return Err(TooManyNodes);
        }
        if self.nodes.is_empty() {
            *self = other;
            return self.check();
        }
        let mut local = Vec::with_capacity(other.nodes.len());
        for (&id, &[lon, lat]) in other.osm_ids.iter().zip(&other.nodes) {
            local.push(self.node((id, lon, lat)).ok_or(TooManyNodes)?);
        }
        if self.edges.len() + other.edges.len() > MAX_SEGMENTS {
            return Err(TooManyNodes);
        }
        self.edges.extend(other.edges.into_iter().map(|e| Edge {
            from: local[e.from as usize],
            to: local[e.to as usize],
            ..e
        }));
        Ok(())
    }

    /// Whether every node got an index of its own.
    fn check(&self) -> Result<(), TooManyNodes> {
        if self.overflowed {
            Err(TooManyNodes)
        } else {
            Ok(())
        }
    }

    /// True while no way has given a segment.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// The network, its index built.
    #[must_use]
    pub fn build(self) -> StreetNetwork {
        let mut segments: [Vec<TrafficSegment>; 5] = Default::default();
        for (i, e) in self.edges.iter().enumerate() {
            let Some(class) = e.kind.class else { continue };
            let [lon_a, lat_a] = self.nodes[e.from as usize];
            let [lon_b, lat_b] = self.nodes[e.to as usize];
            let line = Line::new(metres_point(lon_a, lat_a), metres_point(lon_b, lat_b));
            segments[class as usize].push(GeomWithData::new(
                line,
                u32::try_from(i).unwrap_or(u32::MAX),
            ));
        }
        let mut walk = DiGraph::with_capacity(self.nodes.len(), 0);
        let mut cycle = DiGraph::with_capacity(self.nodes.len(), 0);
        for _ in &self.nodes {
            walk.add_node(());
            cycle.add_node(());
        }
        for (i, e) in self.edges.iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            let (a, b) = (e.from.into(), e.to.into());
            if e.kind.walk {
                walk.add_edge(a, b, i);
                walk.add_edge(b, a, i);
            }
            if e.kind.cycle_forward {
                cycle.add_edge(a, b, i);
            }
            if e.kind.cycle_backward {
                cycle.add_edge(b, a, i);
            }
        }
        let walk_main = largest_part(&walk);
        let cycle_main = largest_strong_part(&cycle);
        let node_tree = RTree::bulk_load(
            self.nodes
                .iter()
                .enumerate()
                .map(|(n, &[lon, lat])| {
                    GeomWithData::new(metres_point(lon, lat), u32::try_from(n).unwrap_or(u32::MAX))
                })
                .collect(),
        );
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
            node_tree,
            walk,
            cycle,
            walk_main,
            cycle_main,
        }
    }
}

/// Whether each node is on the largest part of `arcs` in which every node reaches every other
/// (one-way streets make a ride's parts differ from a walk's).
fn largest_strong_part(arcs: &DiGraph<(), u32, u32>) -> Vec<bool> {
    let mut main = vec![false; arcs.node_count()];
    let parts = petgraph::algo::kosaraju_scc(arcs);
    if let Some(largest) = parts.iter().max_by_key(|p| p.len()).filter(|p| p.len() > 1) {
        for n in largest {
            main[n.index()] = true;
        }
    }
    main
}

/// Whether each node is on the largest part of `arcs` joined when directions are ignored (for
/// walking, whose arcs go both ways, the part in which every node reaches every other).
fn largest_part(arcs: &DiGraph<(), u32, u32>) -> Vec<bool> {
    let mut parts = petgraph::unionfind::UnionFind::<u32>::new(arcs.node_count());
    for arc in arcs.raw_edges() {
        parts.union(arc.source().index() as u32, arc.target().index() as u32);
    }
    let labels = parts.into_labeling();
    let mut sizes: HashMap<u32, usize> = HashMap::new();
    for (n, &label) in labels.iter().enumerate() {
        // A node no arc touches is a part of its own that nobody can travel from.
        let touched = arcs
            .neighbors_undirected((n as u32).into())
            .next()
            .is_some();
        if touched {
            *sizes.entry(label).or_default() += 1;
        }
    }
    let Some((&main, _)) = sizes
        .iter()
        .max_by_key(|(label, size)| (**size, std::cmp::Reverse(**label)))
    else {
        return vec![false; labels.len()];
    };
    labels.iter().map(|&l| l == main).collect()
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
    fn stretches_near_a_place_are_those_with_traffic_within_the_radius_up_to_the_limit() {
        let mut b = NetworkBuilder::default();
        // A primary road of two 111 m segments along the equator, a footway beside it, and a
        // primary road 2 km north.
        b.add_way(PRIMARY, &[(1, 0.0, 0.0), (2, 0.001, 0.0), (3, 0.002, 0.0)]);
        b.add_way(FOOTWAY, &[(4, 0.0, 0.0001), (5, 0.002, 0.0001)]);
        b.add_way(PRIMARY, &[(6, 0.0, 0.018), (7, 0.001, 0.018)]);
        let net = b.build();
        let centre = Position::new(0.001, 0.0).unwrap();
        let near = net.stretches_near(centre, 500.0, 10).unwrap();
        assert_eq!(near.len(), 2, "{near:?}");
        assert!(
            near.iter()
                .all(|s| s.class == RoadClass::Primary && s.from.lat() == 0.0)
        );
        assert_eq!(net.stretches_near(centre, 2_500.0, 10).unwrap().len(), 3);
        assert_eq!(
            net.stretches_near(centre, 2_500.0, 2),
            None,
            "more than the limit"
        );
        let between = Position::new(0.0, 0.009).unwrap();
        assert_eq!(
            net.stretches_near(between, 100.0, 0),
            Some(Vec::new()),
            "none near is an empty list, not too many"
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
