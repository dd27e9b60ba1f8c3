//! Routes planned, not only scored: the street network's port, and the search for the routes
//! between two places that span the trade-off from the fastest to the least exposed.
//!
//! The search asks the network ([`StreetRouter`]) for the fastest path, then for the streets a
//! journey may use ([`StreetRouter::corridor`]: those that keep it within [`DETOUR_CAP`] of the
//! fastest path's length), asks the air source once for the index at each of those streets,
//! and plans again with exposure weighed more and more: each weight's path costs
//! `length × (1 + weight × (100 − CI) / 100)`, so weight 0 is the fastest and the largest weight
//! the least exposed. Paths that repeat one already found are dropped. The routes are then
//! scored as any posted route is, at the hour the traveller is at each place.

use aq_core::{AirQualitySource, CleanlinessIndex, Position, SampleQuery};
use chrono::{DateTime, Utc};
use thiserror::Error;

use crate::units::TravelMode;

/// How much longer than the fastest a planned route may be: 1.5 times its length. A walk of
/// 20 minutes may become one of 30, and no longer, however clean the detour.
pub const DETOUR_CAP: f64 = 1.5;

/// How far from a usable street an origin or destination may be, in metres.
pub const MAX_SNAP_M: f64 = 500.0;

/// The exposure weights the search plans with, from the fastest to the least exposed.
pub const EXPOSURE_WEIGHTS: [f64; 5] = [0.0, 1.0, 3.0, 10.0, 30.0];

/// The most street segments one journey's corridor may hold: the air is asked once for each,
/// so this bounds the work of one request (a 2 km walk through central Helsinki has a few
/// thousand).
pub const MAX_CORRIDOR_SEGMENTS: usize = 50_000;

/// The farthest apart, in a straight line, that origin and destination may be: 15 km for a
/// walk, 40 km for a ride. Beyond, nobody walks or rides it as one trip, and the searches of
/// one request would range over a region's streets.
#[must_use]
pub fn max_journey_m(mode: TravelMode) -> f64 {
    match mode {
        TravelMode::Cycle => 40_000.0,
        _ => 15_000.0,
    }
}

/// A place on the street network where a journey starts or ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreetPoint {
    /// The network's own id of the node.
    pub node: u32,
    /// Where the node is.
    pub position: Position,
    /// How far the place asked for is from it, in metres.
    pub distance_m: f64,
}

/// The street segments a journey may use, each with the place its air is read at.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Corridor {
    /// The network's own ids of the segments.
    pub segments: Vec<u32>,
    /// The middle of each segment, in the same order.
    pub midpoints: Vec<Position>,
}

/// A path on the network.
#[derive(Debug, Clone, PartialEq)]
pub struct StreetPath {
    /// The network's nodes along it, in order.
    pub nodes: Vec<u32>,
    /// Their places, in order: the route's polyline.
    pub positions: Vec<Position>,
    /// Its length in metres.
    pub length_m: f64,
}

/// A street network that routes are planned on: an adapter holding one in memory (read from
/// OpenStreetMap, say) answers it with plain calls.
pub trait StreetRouter: Send + Sync {
    /// The node nearest to `position` that `mode` can travel from, if one is within
    /// `within_m` metres.
    fn snap(&self, position: Position, mode: TravelMode, within_m: f64) -> Option<StreetPoint>;

    /// The path from `from` to `to` for `mode` of least `Σ length × (1 + weight × penalty)`,
    /// where a segment's penalty is `penalties[i]` for `corridor.segments[i]`; segments outside
    /// the corridor are not used. With no corridor (`None`), every segment may be used and
    /// weighs its length: the fastest path. `None` when `to` cannot be reached.
    fn path(
        &self,
        from: u32,
        to: u32,
        mode: TravelMode,
        corridor: Option<(&Corridor, &[f64])>,
        weight: f64,
    ) -> Option<StreetPath>;

    /// The segments `mode` can use whose both ends lie within the ellipse of places whose
    /// distances to `from` and `to` add up to at most `max_length_m`: every path of that length
    /// or less between them stays inside it. At most `limit` segments; `None` when there are
    /// more.
    fn corridor(
        &self,
        from: Position,
        to: Position,
        mode: TravelMode,
        max_length_m: f64,
        limit: usize,
    ) -> Option<Corridor>;
}

/// Why no route could be planned; each names the request's field it is about.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JourneyError {
    /// The place is farther than [`MAX_SNAP_M`] from any street `travelMode` can use.
    #[error("`{field}` is more than {MAX_SNAP_M} m from any street a {mode} can use")]
    OffStreet {
        /// `origin` or `destination`.
        field: &'static str,
        /// The travel mode's name.
        mode: &'static str,
    },
    /// Origin and destination are the same place on the network.
    #[error("`origin` and `destination` are the same place on the street network")]
    SamePlace,
    /// No path joins them for the mode.
    #[error("no street path for a {0} joins `origin` to `destination`")]
    NoConnection(&'static str),
    /// The journey's corridor holds more streets than one request may read the air of.
    #[error(
        "`origin` and `destination` are too far apart: the streets between them are more \
         than {MAX_CORRIDOR_SEGMENTS} segments"
    )]
    TooFar,
    /// Origin and destination are farther apart than [`max_journey_m`] allows the mode.
    #[error("`origin` and `destination` are more than {0} m apart for one trip")]
    TooLong(u32),
    /// A planned route is beyond what a posted route may be (its vertices, its duration).
    #[error("the planned route cannot be scored: {0}")]
    Unscorable(String),
    /// The air source could not answer.
    #[error("the air-quality source could not answer: {0}")]
    Source(String),
}

/// The distinct paths from `origin` to `destination` for `mode`, fastest first, then less and
/// less exposed by the air of `source` at `departure` (see the module's documentation).
///
/// # Errors
/// [`JourneyError`] when a place is off the network, both are the same, none joins them, the
/// corridor is too large or the source fails.
pub async fn candidate_paths(
    router: &dyn StreetRouter,
    source: &dyn AirQualitySource,
    origin: Position,
    destination: Position,
    mode: TravelMode,
    departure: DateTime<Utc>,
) -> Result<Vec<StreetPath>, JourneyError> {
    let name = mode.as_str();
    let limit = max_journey_m(mode);
    if origin.distance_m(destination) > limit {
        return Err(JourneyError::TooLong(limit as u32));
    }
    let from = router
        .snap(origin, mode, MAX_SNAP_M)
        .ok_or(JourneyError::OffStreet {
            field: "origin",
            mode: name,
        })?;
    let to = router
        .snap(destination, mode, MAX_SNAP_M)
        .ok_or(JourneyError::OffStreet {
            field: "destination",
            mode: name,
        })?;
    if from.node == to.node {
        return Err(JourneyError::SamePlace);
    }
    let fastest = router
        .path(from.node, to.node, mode, None, 0.0)
        .ok_or(JourneyError::NoConnection(name))?;
    let max_length = fastest.length_m * DETOUR_CAP;
    let corridor = router
        .corridor(
            from.position,
            to.position,
            mode,
            max_length,
            MAX_CORRIDOR_SEGMENTS,
        )
        .ok_or(JourneyError::TooFar)?;
    let queries: Vec<SampleQuery> = corridor
        .midpoints
        .iter()
        .map(|&position| SampleQuery {
            position,
            time: departure,
        })
        .collect();
    let indexes = source
        .sample_ci(&queries)
        .await
        .map_err(|e| JourneyError::Source(e.to_string()))?;
    let indexes = aq_core::check_batch_len(queries.len(), indexes)
        .map_err(|e| JourneyError::Source(e.to_string()))?;
    let penalties: Vec<f64> = indexes.iter().map(|ci| penalty(*ci)).collect();

    let mut paths = vec![fastest];
    for &weight in &EXPOSURE_WEIGHTS[1..] {
        let Some(path) = router.path(
            from.node,
            to.node,
            mode,
            Some((&corridor, &penalties)),
            weight,
        ) else {
            continue;
        };
        let distinct = paths.iter().all(|p| p.nodes != path.nodes);
        if distinct && path.length_m <= max_length {
            paths.push(path);
        }
    }
    Ok(paths)
}

/// How much a segment's air weighs against its length: 0 at CI 100, 1 at CI 0; a segment
/// without data weighs as the middle of the scale, neither sought nor avoided.
fn penalty(ci: Option<CleanlinessIndex>) -> f64 {
    ci.map_or(0.5, |ci| (100.0 - ci.value()) / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaner_air_weighs_less_and_no_data_weighs_the_middle() {
        let ci = |v| CleanlinessIndex::new(v).ok();
        assert_eq!(penalty(ci(100.0)), 0.0);
        assert_eq!(penalty(ci(0.0)), 1.0);
        assert!(penalty(ci(80.0)) < penalty(ci(40.0)));
        assert_eq!(penalty(None), 0.5);
    }

    #[test]
    fn the_weights_start_with_the_fastest_and_grow() {
        assert_eq!(EXPOSURE_WEIGHTS[0], 0.0);
        assert!(EXPOSURE_WEIGHTS.windows(2).all(|w| w[0] < w[1]));
    }
}
