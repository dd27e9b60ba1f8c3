//! Finding a query's neighbours: each station's readings by time, and the stations near a run
//! of queries kept from one query to the next, so that a route's samples share one R-tree
//! search.

use aq_core::Position;

use super::StationFile;
use crate::idw::Accumulator;
use crate::values::{N_VARS, Values};
use aq_core::position::{chord_to_m, m_to_chord, unit_vector};

/// A station: where it is, and its readings in time order.
#[derive(Debug, Clone)]
pub(super) struct Station {
    /// The station's identifier as the file gives it.
    pub(super) id: String,
    pub(super) position: Position,
    /// Sorted by time (seconds since the epoch), each with the mask of the quantities it has
    /// (bit `k` for quantity `k`).
    pub(super) readings: Vec<(i64, Values, u16)>,
    /// The union of the readings' masks.
    pub(super) measured: u16,
}

impl Station {
    /// The readings usable at `time`: taken at or before it, no more than `max_age` seconds
    /// earlier, latest first, each with its time.
    fn fresh(&self, time: i64, max_age: i64) -> impl Iterator<Item = (i64, &Values, u16)> {
        let known = self.readings.partition_point(|r| r.0 <= time);
        self.readings[..known]
            .iter()
            .rev()
            .take_while(move |r| time - r.0 <= max_age)
            .map(|r| (r.0, &r.1, r.2))
    }

    /// Adds the station's latest usable value of each quantity at `time` to `acc`, the station
    /// `distance_m` away with weight `weight` ([`Accumulator::weight`]); the time of the newest
    /// reading used, or `None` when it has none.
    fn add_fresh(
        &self,
        time: i64,
        max_age: i64,
        acc: &mut [Accumulator; N_VARS],
        distance_m: f64,
        weight: f64,
    ) -> Option<i64> {
        let mut found = 0u16;
        let mut newest = None;
        for (taken, values, mask) in self.fresh(time, max_age) {
            let mut new = mask & !found;
            if new != 0 && newest.is_none() {
                // Latest first: the first reading that adds anything is the newest used.
                newest = Some(taken);
            }
            found |= new;
            while new != 0 {
                let k = new.trailing_zeros() as usize;
                acc[k].add_weighted(distance_m, weight, values.0[k]);
                new &= new - 1;
            }
            // Older readings cannot add a quantity the station never measures.
            if found == self.measured {
                break;
            }
        }
        newest
    }

    /// Whether any value is usable at `time`.
    fn has_fresh(&self, time: i64, max_age: i64) -> bool {
        self.fresh(time, max_age).any(|(_, _, mask)| mask != 0)
    }
}

/// Slack, in chord units of the unit sphere, for rounding in the neighbourhood's bound: about
/// 6 mm on the Earth, far above the arithmetic's error and far below any distance that matters.
const SLACK: f64 = 1e-9;

/// A neighbourhood reaches this many times the distance its first query needed: wider serves
/// more of the following queries before the next tree search, narrower sorts fewer stations per
/// query.
const REACH_FACTOR: f64 = 1.5;

/// The least distance, in metres, a neighbourhood is built for, so that queries beside a station
/// do not search the tree again at every step.
const MIN_REACH_M: f64 = 1_000.0;

/// The stations within `reach` of `centre` (chord distances between unit vectors), kept from one
/// query to the next. A query at `q` may use them when it needs no station further than
/// `reach − |q − centre|`: by the triangle inequality every such station is held. Reused
/// buffers make a query allocation-free once the neighbourhood is built.
#[derive(Debug, Default)]
pub(super) struct Neighbourhood {
    built: bool,
    centre: [f64; 3],
    reach: f64,
    /// Sorted by distance from the centre.
    candidates: Vec<Candidate>,
    /// Scratch: the current query's (squared chord distance, station) pairs.
    order: Vec<(f64, u32)>,
    /// The chord distance the last query needed, as the next rebuild's estimate.
    needed: Option<f64>,
    /// When the newest reading behind the last query's values was taken (seconds), if any.
    pub(super) newest: Option<i64>,
}

impl Neighbourhood {
    /// Keeps only the stations within `reach` of the centre, when that is much less than now.
    fn trim(&mut self, reach: f64) {
        let reach = reach + 2.0 * SLACK;
        if reach * 2.0 < self.reach {
            let kept = self.candidates.partition_point(|c| c.from_centre <= reach);
            self.candidates.truncate(kept);
            self.reach = reach;
        }
    }
}

/// A station of a [`Neighbourhood`].
#[derive(Debug, Clone, Copy)]
struct Candidate {
    position: [f64; 3],
    /// Chord distance from the neighbourhood's centre.
    from_centre: f64,
    station: u32,
}

/// The most neighbours a query keeps by insertion before falling back to sorting its whole
/// neighbourhood.
const HEAD: usize = 16;

/// Whether `a` (squared chord distance, station) comes before `b`: nearer, or as near and
/// earlier in the file.
fn nearer(a: (f64, u32), b: (f64, u32)) -> bool {
    nearest_first(a, b).is_lt()
}

/// The order of [`nearer`]. Distances between finite points are never NaN.
fn nearest_first(a: (f64, u32), b: (f64, u32)) -> std::cmp::Ordering {
    a.0.partial_cmp(&b.0)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(a.1.cmp(&b.1))
}

/// The squared straight-line distance between two points, as the R-tree computes it.
pub(super) fn chord2(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (dx, dy, dz) = (a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    dx * dx + dy * dy + dz * dz
}

impl StationFile {
    /// Every quantity interpolated at `position` and `time` (seconds); NaN where no station
    /// within reach has it. `hood` carries the stations near the previous query, so that a run of
    /// nearby queries (a route's samples, one place at many hours) shares one R-tree search.
    pub(super) fn interpolate(
        &self,
        position: Position,
        time: i64,
        hood: &mut Neighbourhood,
    ) -> Values {
        let q = unit_vector(position);
        if hood.built
            && let Ok(values) = self.walk(q, time, hood)
        {
            return values;
        }
        let max_chord = self.max_chord2.sqrt();
        let min_chord = m_to_chord(MIN_REACH_M).min(max_chord);
        let reach = |needed: f64| REACH_FACTOR * needed.clamp(min_chord, max_chord);
        // The previous query's need is usually this one's too.
        let needed = hood.needed.unwrap_or_else(|| self.needed_by_tree(q, time));
        self.refill(hood, q, reach(needed));
        if let Ok(values) = self.walk(q, time, hood) {
            return values;
        }
        // The estimate fell short (a jump to sparser ground, or stations without fresh
        // readings): the tree says how far this query must reach.
        self.refill(hood, q, reach(self.needed_by_tree(q, time)));
        if let Ok(values) = self.walk(q, time, hood) {
            return values;
        }
        // Not expected: a neighbourhood over the whole search radius always answers. Trimmed
        // afterwards, so that the next queries read few stations.
        self.refill(hood, q, REACH_FACTOR * max_chord);
        let values = self.walk(q, time, hood).unwrap_or_else(|partial| partial);
        hood.trim(reach(hood.needed.unwrap_or(max_chord)));
        values
    }

    /// The chord distance the query needs: to its `neighbours`-th station with a fresh reading,
    /// or the search radius when there are fewer. Only an estimate for the neighbourhood's
    /// reach; the answer itself comes from [`StationFile::walk`].
    fn needed_by_tree(&self, q: [f64; 3], time: i64) -> f64 {
        let max_age = self.max_age();
        let mut used = 0;
        for (point, d2) in self.tree.nearest_neighbor_iter_with_distance_2(q) {
            if d2 > self.max_chord2 {
                break;
            }
            if self.stations[point.data as usize].has_fresh(time, max_age) {
                used += 1;
                if used == self.config.idw.neighbours {
                    return d2.sqrt();
                }
            }
        }
        self.max_chord2.sqrt()
    }

    /// Makes `hood` hold every station within `reach` (chord) of `q`.
    fn refill(&self, hood: &mut Neighbourhood, q: [f64; 3], reach: f64) {
        let reach = reach + 2.0 * SLACK;
        hood.candidates.clear();
        hood.candidates
            .extend(
                self.tree
                    .locate_within_distance(q, reach * reach)
                    .map(|g| Candidate {
                        position: *g.geom(),
                        from_centre: chord2(*g.geom(), q).sqrt(),
                        station: g.data,
                    }),
            );
        // Nearest to the centre first, so that a query can stop reading candidates as soon as
        // none of the rest can be nearer than those it has.
        hood.candidates
            .sort_unstable_by(|a, b| a.from_centre.total_cmp(&b.from_centre));
        hood.centre = q;
        hood.reach = reach;
        hood.built = true;
    }

    /// Interpolates at `q` from the neighbourhood's stations: the nearest first (ties in file
    /// order), the first `neighbours` with a fresh reading, none beyond the radius. `Err` when
    /// the neighbourhood cannot vouch that no nearer station is missing from it.
    fn walk(&self, q: [f64; 3], time: i64, hood: &mut Neighbourhood) -> Result<Values, Values> {
        // Every station within `vouched` of `q` is within `reach` of the centre, hence held.
        let off_centre = chord2(q, hood.centre).sqrt();
        let vouched = hood.reach - off_centre - SLACK;
        if vouched <= 0.0 {
            hood.newest = None;
            return Err(Values::MISSING);
        }
        let limit2 = (vouched * vouched).min(self.max_chord2);
        let whole_radius = vouched * vouched >= self.max_chord2;
        let within = |c: &Candidate| {
            let d2 = chord2(c.position, q);
            (d2 <= limit2).then_some((d2, c.station))
        };

        // Usually the nearest `neighbours` all have fresh readings and are all the query needs:
        // keep just those, in order, by insertion (no sort of the whole neighbourhood).
        let head = self.config.idw.neighbours.min(HEAD);
        let order = &mut hood.order;
        order.clear();
        let mut more = false;
        for c in &hood.candidates {
            if order.len() == head {
                // No station is nearer to `q` than its distance from the centre less
                // `off_centre`; those still to come are all further from the centre.
                let bound = c.from_centre - off_centre - SLACK;
                if bound > 0.0 && bound * bound > order[head - 1].0 {
                    more = true;
                    break;
                }
            }
            let Some((d2, i)) = within(c) else {
                continue;
            };
            if order.len() == head {
                more = true;
                if !nearer((d2, i), order[head - 1]) {
                    continue;
                }
                order.pop();
            }
            match order.last() {
                // Candidates come roughly nearest first: most go at the end.
                Some(&last) if nearer((d2, i), last) => {
                    let at = order.partition_point(|&o| nearer(o, (d2, i)));
                    order.insert(at, (d2, i));
                }
                _ => order.push((d2, i)),
            }
        }
        let (mut out, mut kth, mut newest) = self.weigh(order, time);
        if kth.is_none() && more {
            // Some of the nearest have no fresh reading, or more neighbours are wanted than the
            // head holds: every station within reach, in order.
            order.clear();
            order.extend(hood.candidates.iter().filter_map(within));
            order.sort_unstable_by(|&a, &b| nearest_first(a, b));
            (out, kth, newest) = self.weigh(order, time);
        }
        hood.newest = newest;
        if kth.is_none() && !whole_radius {
            return Err(out);
        }
        hood.needed = Some(kth.unwrap_or_else(|| self.max_chord2.sqrt()));
        Ok(out)
    }

    /// The inverse-distance weighting over `order` (squared chord distance, station; nearest
    /// first), the chord distance of the `neighbours`-th station used, if it was reached, and
    /// the time of the newest reading used.
    fn weigh(&self, order: &[(f64, u32)], time: i64) -> (Values, Option<f64>, Option<i64>) {
        let idw = &self.config.idw;
        let max_age = self.max_age();
        let mut acc = [Accumulator::default(); N_VARS];
        let mut used = 0;
        let mut kth = None;
        let mut newest = None;
        for &(d2, i) in order {
            // Stations without a fresh reading are rare: weighing one for nothing costs less
            // than looking its readings up twice.
            let distance = chord_to_m(d2.sqrt());
            let weight = Accumulator::weight(distance, idw.power);
            let Some(taken) =
                self.stations[i as usize].add_fresh(time, max_age, &mut acc, distance, weight)
            else {
                continue;
            };
            newest = newest.max(Some(taken));
            used += 1;
            if used == idw.neighbours {
                kth = Some(d2.sqrt());
                break;
            }
        }
        let mut out = Values::MISSING;
        for (o, a) in out.0.iter_mut().zip(acc.iter()) {
            *o = a.value().unwrap_or(f64::NAN);
        }
        (out, kth, newest)
    }

    pub(super) fn max_age(&self) -> i64 {
        i64::try_from(self.config.max_age_s).unwrap_or(i64::MAX)
    }
}
