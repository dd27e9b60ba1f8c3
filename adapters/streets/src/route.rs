//! Walks and rides planned on the network: the port [`StreetRouter`] of `racs-core`, answered
//! with A* (petgraph) over the arcs a walker or a bicycle may take.

use std::collections::{HashMap, HashSet};

use aq_core::Position;
use aq_core::position::chord;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{EdgeFiltered, EdgeRef};
use racs_core::TravelMode;
use racs_core::journey::{Corridor, StreetPath, StreetPoint, StreetRouter};

use crate::network::{StreetNetwork, metres_point};

impl StreetNetwork {
    /// The arcs `mode` may take; `None` for modes that are not planned on streets.
    fn arcs(&self, mode: TravelMode) -> Option<&DiGraph<(), u32, u32>> {
        match mode {
            TravelMode::Walk => Some(&self.walk),
            TravelMode::Cycle => Some(&self.cycle),
            TravelMode::Drive | TravelMode::Passenger => None,
        }
    }

    fn point(&self, node: u32) -> [f64; 3] {
        let [lon, lat] = self.position(node);
        metres_point(lon, lat)
    }

    fn place(&self, node: u32) -> Option<Position> {
        let [lon, lat] = self.position(node);
        Position::new(lon, lat).ok()
    }

    /// The path of `nodes` as the port gives it.
    fn street_path(&self, nodes: Vec<NodeIndex<u32>>) -> Option<StreetPath> {
        let nodes: Vec<u32> = nodes.into_iter().map(|n| n.index() as u32).collect();
        let positions = nodes
            .iter()
            .map(|&n| self.place(n))
            .collect::<Option<Vec<_>>>()?;
        let length_m = nodes
            .windows(2)
            .map(|w| chord(self.point(w[0]), self.point(w[1])))
            .sum();
        Some(StreetPath {
            nodes,
            positions,
            length_m,
        })
    }
}

impl StreetRouter for StreetNetwork {
    fn snap(&self, position: Position, mode: TravelMode, within_m: f64) -> Option<StreetPoint> {
        let main = match mode {
            TravelMode::Walk => &self.walk_main,
            TravelMode::Cycle => &self.cycle_main,
            TravelMode::Drive | TravelMode::Passenger => return None,
        };
        let here = metres_point(position.lon(), position.lat());
        let (n, d2) = self
            .node_tree
            .nearest_neighbor_iter_with_distance_2(here)
            .take_while(|(_, d2)| *d2 <= within_m * within_m)
            .find(|(n, _)| main[n.data as usize])?;
        Some(StreetPoint {
            node: n.data,
            position: self.place(n.data)?,
            distance_m: d2.sqrt(),
        })
    }

    fn path(
        &self,
        from: u32,
        to: u32,
        mode: TravelMode,
        corridor: Option<(&Corridor, &[f64])>,
        weight: f64,
    ) -> Option<StreetPath> {
        let arcs = self.arcs(mode)?;
        let goal = self.point(to);
        // The straight line to the goal never overestimates: every cost is at least the
        // segment's length, and a path is never shorter than the chord between its ends.
        let estimate = |n: NodeIndex<u32>| chord(self.point(n.index() as u32), goal);
        let length = |segment: u32| self.edges()[segment as usize].length_m;
        let (start, end) = (NodeIndex::new(from as usize), NodeIndex::new(to as usize));
        let found = match corridor {
            None => {
                petgraph::algo::astar(arcs, start, |n| n == end, |e| length(*e.weight()), estimate)
            }
            Some((corridor, penalties)) => {
                let index: HashMap<u32, f64> = corridor
                    .segments
                    .iter()
                    .zip(penalties)
                    .map(|(&s, &p)| (s, p))
                    .collect();
                let inside = EdgeFiltered::from_fn(arcs, |e| index.contains_key(e.weight()));
                petgraph::algo::astar(
                    &inside,
                    start,
                    |n| n == end,
                    |e| {
                        let penalty = index.get(e.weight()).copied().unwrap_or(1.0);
                        length(*e.weight()) * (1.0 + weight * penalty)
                    },
                    estimate,
                )
            }
        };
        let (_, nodes) = found?;
        self.street_path(nodes)
    }

    fn corridor(
        &self,
        from: Position,
        to: Position,
        mode: TravelMode,
        max_length_m: f64,
        limit: usize,
    ) -> Option<Corridor> {
        let arcs = self.arcs(mode)?;
        let (a, b) = (
            metres_point(from.lon(), from.lat()),
            metres_point(to.lon(), to.lat()),
        );
        let within = |p: &[f64; 3]| chord(*p, a) + chord(*p, b) <= max_length_m;
        let mut seen: HashSet<u32> = HashSet::new();
        let mut corridor = Corridor::default();
        // Every place of the ellipse lies within half its major axis of the middle of its foci.
        let middle = [
            (a[0] + b[0]) / 2.0,
            (a[1] + b[1]) / 2.0,
            (a[2] + b[2]) / 2.0,
        ];
        let radius = max_length_m / 2.0;
        for node in self
            .node_tree
            .locate_within_distance(middle, radius * radius)
            .filter(|n| within(n.geom()))
        {
            for arc in arcs.edges(NodeIndex::new(node.data as usize)) {
                let segment = *arc.weight();
                let other = self.point(arc.target().index() as u32);
                if !within(&other) || !seen.insert(segment) {
                    continue;
                }
                if corridor.segments.len() == limit {
                    return None;
                }
                let e = self.edges()[segment as usize];
                let [lon_a, lat_a] = self.position(e.from);
                let [lon_b, lat_b] = self.position(e.to);
                corridor.segments.push(segment);
                corridor
                    .midpoints
                    .push(Position::new((lon_a + lon_b) / 2.0, (lat_a + lat_b) / 2.0).ok()?);
            }
        }
        Some(corridor)
    }
}
