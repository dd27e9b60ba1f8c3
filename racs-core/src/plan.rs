//! Planning a route's samples (steps 1 to 3 of the RACS algorithm): pure and synchronous.
//!
//! The traveller is assumed to move at constant speed along the route's great-circle
//! (haversine) length, so samples evenly spaced in time are evenly spaced along the route too.

use std::fmt;

use aq_core::{Position, SampleQuery};
use chrono::{DateTime, NaiveDate, NaiveTime, TimeDelta, Timelike, Utc};
use geo::{Haversine, InterpolatePoint, Point};

use crate::config::RacsConfig;

/// The samples of one route: where and when the source is asked for the air.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutePlan {
    queries: Vec<SampleQuery>,
    length_m: f64,
    duration_s: f64,
}

impl RoutePlan {
    /// The samples, first at departure from the first vertex, last at arrival at the last, evenly
    /// spaced in time between.
    #[must_use]
    pub fn queries(&self) -> &[SampleQuery] {
        &self.queries
    }

    /// The route's haversine length, in metres.
    #[must_use]
    pub fn length_m(&self) -> f64 {
        self.length_m
    }

    /// The route's duration, in seconds.
    #[must_use]
    pub fn duration_s(&self) -> f64 {
        self.duration_s
    }

    /// Time between consecutive samples, in seconds.
    #[must_use]
    pub fn interval_s(&self) -> f64 {
        self.duration_s / (self.queries.len() - 1) as f64
    }
}

/// Why a route cannot be scored meaningfully (error 102).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GranularityProblem {
    /// Fewer than two distinct vertices.
    TooFewVertices {
        /// How many distinct vertices there are (0 or 1).
        distinct: usize,
    },
    /// A straight segment longer than [`RacsConfig::max_segment_m`].
    SegmentTooLong {
        /// Index of the segment's first vertex.
        from_vertex: usize,
        /// Its length, in metres.
        length_m: f64,
        /// The configured maximum, in metres.
        max_m: f64,
    },
    /// Distinct vertices that are nonetheless the same place (any longitude at a pole, ±180°):
    /// the whole route is shorter than a millimetre.
    ZeroLength,
    /// A duration that is not a positive number of seconds the calendar can hold.
    UnusableDuration {
        /// The duration, in seconds.
        seconds: f64,
    },
}

impl fmt::Display for GranularityProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooFewVertices { distinct } => {
                write!(f, "{distinct} distinct vertices; at least 2 are needed")
            }
            Self::SegmentTooLong {
                from_vertex,
                length_m,
                max_m,
            } => write!(
                f,
                "the segment from vertex {from_vertex} is {length_m:.0} m long, more than \
                 {max_m} m"
            ),
            Self::ZeroLength => f.write_str("the route has no length"),
            Self::UnusableDuration { seconds } => {
                write!(f, "a duration of {seconds} s cannot be sampled")
            }
        }
    }
}

impl std::error::Error for GranularityProblem {}

/// The haversine length of a polyline, in metres.
#[must_use]
pub fn polyline_length_m(polyline: &[Position]) -> f64 {
    polyline.windows(2).map(|w| w[0].distance_m(w[1])).sum()
}

/// How many intervals between samples a route of `length_m` metres and `duration_s` seconds
/// gets: one sample every [`RacsConfig::sample_interval_s`] and every
/// [`RacsConfig::sample_spacing_m`], within [`RacsConfig::min_samples`] and
/// [`RacsConfig::max_samples`]. The samples are one more than the intervals.
pub(crate) fn sample_intervals(length_m: f64, duration_s: f64, config: &RacsConfig) -> usize {
    let needed = (duration_s / config.sample_interval_s)
        .ceil()
        .max((length_m / config.sample_spacing_m).ceil())
        .max(config.min_samples.saturating_sub(1) as f64)
        .max(1.0);
    let cap = config.max_samples.max(2) - 1;
    // Cast after the cap, so it cannot truncate (NaN casts to 0).
    needed.min(cap as f64) as usize
}

/// Plans the samples of a route that leaves at `departure` and takes `duration_s` seconds.
///
/// A sample falls at least every [`RacsConfig::sample_interval_s`] and every
/// [`RacsConfig::sample_spacing_m`], and there are never fewer than
/// [`RacsConfig::min_samples`] (nor more than [`RacsConfig::max_samples`]).
///
/// ```
/// use aq_core::Position;
/// use chrono::{TimeZone, Utc};
/// use racs_core::{plan_route, RacsConfig};
///
/// // About 1,112 m due north in 10 minutes: 100 m spacing wants 12 intervals, 30 s wants 20.
/// let line = [Position::new(0.0, 0.0).unwrap(), Position::new(0.0, 0.01).unwrap()];
/// let t0 = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
/// let plan = plan_route(&line, 600.0, t0, &RacsConfig::default()).unwrap();
/// assert_eq!(plan.queries().len(), 21);
/// assert_eq!(plan.interval_s(), 30.0);
/// assert_eq!(plan.queries()[20].time, t0 + chrono::Duration::minutes(10));
/// ```
///
/// # Errors
/// [`GranularityProblem`] (error 102) when the route has fewer than two distinct vertices, a
/// segment longer than [`RacsConfig::max_segment_m`], no length, or an unusable duration.
pub fn plan_route(
    polyline: &[Position],
    duration_s: f64,
    departure: DateTime<Utc>,
    config: &RacsConfig,
) -> Result<RoutePlan, GranularityProblem> {
    let Some(&first) = polyline.first() else {
        return Err(GranularityProblem::TooFewVertices { distinct: 0 });
    };
    if polyline.iter().all(|&p| p == first) {
        return Err(GranularityProblem::TooFewVertices { distinct: 1 });
    }

    // cumulative[i] is the distance from the first vertex to vertex i.
    let mut cumulative = Vec::with_capacity(polyline.len());
    let mut total = 0.0;
    cumulative.push(0.0);
    for (i, w) in polyline.windows(2).enumerate() {
        let d = w[0].distance_m(w[1]);
        if d > config.max_segment_m {
            return Err(GranularityProblem::SegmentTooLong {
                from_vertex: i,
                length_m: d,
                max_m: config.max_segment_m,
            });
        }
        total += d;
        cumulative.push(total);
    }
    // Below a millimetre the distance is rounding noise, not travel.
    if total < 1e-3 {
        return Err(GranularityProblem::ZeroLength);
    }
    let unusable = GranularityProblem::UnusableDuration {
        seconds: duration_s,
    };
    // i64 nanoseconds hold about 292 years; a longer trip is not a route.
    if !duration_s.is_finite() || duration_s <= 0.0 || duration_s > 9.0e9 {
        return Err(unusable);
    }

    let intervals = sample_intervals(total, duration_s, config);

    let mut queries = Vec::with_capacity(intervals + 1);
    let mut segment = 0;
    let last_segment = polyline.len() - 2;
    let mut clock = SampleClock::new(departure);
    for k in 0..=intervals {
        let fraction = k as f64 / intervals as f64;
        let along = total * fraction;
        while segment < last_segment && cumulative[segment + 1] < along {
            segment += 1;
        }
        let position = if k == intervals {
            polyline[polyline.len() - 1]
        } else {
            point_on_segment(
                polyline[segment],
                polyline[segment + 1],
                along - cumulative[segment],
                cumulative[segment + 1] - cumulative[segment],
            )
        };
        let offset_ns = round_to_i64(duration_s * fraction * 1e9);
        let time = clock.at(offset_ns).ok_or(unusable)?;
        queries.push(SampleQuery { position, time });
    }

    Ok(RoutePlan {
        queries,
        length_m: total,
        duration_s,
    })
}

/// The point `along_m` metres from `a` on the great circle to `b`, a segment `length_m` long.
///
/// Samples are evenly spaced along the whole route, not within each segment, so each one is
/// placed on its own segment by ratio; `geo`'s `Densify` spaces points per segment instead.
fn point_on_segment(a: Position, b: Position, along_m: f64, length_m: f64) -> Position {
    // A segment too short for the interpolation's trigonometry to be stable is one place.
    if length_m < 1e-6 {
        return a;
    }
    let ratio = (along_m / length_m).clamp(0.0, 1.0);
    // At ratios 0 and 1 geo gives back the vertices themselves.
    let p: Point<f64> = Haversine.point_at_ratio_between(a.into(), b.into(), ratio);
    // Falls back to the nearer vertex should rounding ever leave the valid range.
    Position::new(p.x(), p.y()).unwrap_or(if ratio < 0.5 { a } else { b })
}

/// `x.round() as i64`, exactly, without the call to libm's `round` that `f64::round` makes on
/// processors without SSE 4.1 (the default x86-64 target): one per sample.
fn round_to_i64(x: f64) -> i64 {
    // Truncates toward zero and saturates; `x - whole` is then exact, since both are within one
    // unit of each other (and from 2^52 up every float is a whole number).
    let whole = x as i64;
    let rest = x - whole as f64;
    if rest >= 0.5 {
        whole.saturating_add(1)
    } else if rest <= -0.5 {
        whole.saturating_sub(1)
    } else {
        whole
    }
}

/// The times of a route's samples: `departure` plus an offset, exactly as
/// [`DateTime::checked_add_signed`] gives it, without its calendar arithmetic while the
/// samples stay within one day.
struct SampleClock {
    departure: DateTime<Utc>,
    /// The day the last sample fell on, and the offset from departure at its midnight, in
    /// nanoseconds; `None` when departure is inside a leap second, which only chrono's own
    /// arithmetic handles.
    day: Option<(NaiveDate, i64)>,
}

const NANOS_PER_DAY: i64 = 86_400 * 1_000_000_000;

impl SampleClock {
    fn new(departure: DateTime<Utc>) -> Self {
        let time = departure.time();
        let day = (time.nanosecond() < 1_000_000_000).then(|| {
            let since_midnight = i64::from(time.num_seconds_from_midnight()) * 1_000_000_000
                + i64::from(time.nanosecond());
            (departure.date_naive(), -since_midnight)
        });
        Self { departure, day }
    }

    /// `departure + offset_ns`, or `None` outside the calendar.
    fn at(&mut self, offset_ns: i64) -> Option<DateTime<Utc>> {
        let Some((date, midnight)) = self.day else {
            return self
                .departure
                .checked_add_signed(TimeDelta::nanoseconds(offset_ns));
        };
        if let Some(since_midnight) = offset_ns.checked_sub(midnight)
            && (0..NANOS_PER_DAY).contains(&since_midnight)
        {
            // Whole seconds of a day and nanoseconds below one: both in range.
            let time = NaiveTime::from_num_seconds_from_midnight_opt(
                (since_midnight / 1_000_000_000) as u32,
                (since_midnight % 1_000_000_000) as u32,
            )?;
            return Some(date.and_time(time).and_utc());
        }
        let at = self
            .departure
            .checked_add_signed(TimeDelta::nanoseconds(offset_ns))?;
        let time = at.time();
        let since_midnight = i64::from(time.num_seconds_from_midnight()) * 1_000_000_000
            + i64::from(time.nanosecond());
        self.day = Some((at.date_naive(), offset_ns - since_midnight));
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use proptest::strategy::Strategy as _;

    use super::*;

    /// How far, at most, a sample may lie from the great-circle point it stands for, in metres,
    /// when checked by another construction than the planner's. A sample is the air at a place,
    /// from sources whose readings change over tens of metres at the least (station networks
    /// kilometres apart, gridded models of a kilometre and more, the demo field's plumes of
    /// hundreds of metres): even a field that went from 0 to 100 within one 100 m sample spacing
    /// would move a sample's CI by at most 0.001 points for a millimetre, far below the score's
    /// whole-point resolution.
    const GREAT_CIRCLE_TOLERANCE_M: f64 = 0.001;

    fn p(lon: f64, lat: f64) -> Position {
        Position::new(lon, lat).unwrap()
    }

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
    }

    fn plan(line: &[Position], duration_s: f64) -> Result<RoutePlan, GranularityProblem> {
        plan_route(line, duration_s, t0(), &RacsConfig::default())
    }

    #[test]
    fn fewer_than_two_distinct_vertices_is_102() {
        assert_eq!(
            plan(&[], 60.0),
            Err(GranularityProblem::TooFewVertices { distinct: 0 })
        );
        assert_eq!(
            plan(&[p(1.0, 1.0), p(1.0, 1.0), p(1.0, 1.0)], 60.0),
            Err(GranularityProblem::TooFewVertices { distinct: 1 })
        );
    }

    #[test]
    fn a_segment_longer_than_the_maximum_is_102() {
        // 0.02° of latitude is about 2,224 m.
        let err = plan(&[p(0.0, 0.0), p(0.0, 0.01), p(0.0, 0.03)], 600.0).unwrap_err();
        match err {
            GranularityProblem::SegmentTooLong {
                from_vertex,
                length_m,
                max_m,
            } => {
                assert_eq!(from_vertex, 1);
                assert!((length_m - 2223.9).abs() < 1.0, "{length_m}");
                assert_eq!(max_m, 2000.0);
            }
            other => panic!("{other:?}"),
        }
        // Just under the maximum is fine.
        assert!(plan(&[p(0.0, 0.0), p(0.0, 0.0179)], 600.0).is_ok());
    }

    #[test]
    fn distinct_vertices_at_the_same_place_have_no_length() {
        assert_eq!(
            plan(&[p(-180.0, 10.0), p(180.0, 10.0)], 60.0),
            Err(GranularityProblem::ZeroLength)
        );
    }

    #[test]
    fn short_routes_get_ten_samples() {
        // 111 m in 60 s: spacing wants 2 intervals, time wants 2, the minimum 9.
        let plan = plan(&[p(0.0, 0.0), p(0.0, 0.001)], 60.0).unwrap();
        assert_eq!(plan.queries().len(), 10);
        assert!((plan.interval_s() - 60.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn long_slow_routes_are_sampled_every_30_s_and_long_fast_ones_every_100_m() {
        // ~1,112 m in one hour: 120 intervals of 30 s.
        let slow = plan(&[p(0.0, 0.0), p(0.0, 0.01)], 3600.0).unwrap();
        assert_eq!(slow.queries().len(), 121);
        // ~5,560 m (five segments) in 60 s: 56 intervals of at most 100 m.
        let line: Vec<Position> = (0..=5).map(|i| p(0.0, f64::from(i) * 0.01)).collect();
        let fast = plan(&line, 60.0).unwrap();
        assert_eq!(fast.queries().len(), 57);
        for w in fast.queries().windows(2) {
            assert!(w[0].position.distance_m(w[1].position) <= 100.0 + 1e-6);
        }
    }

    #[test]
    fn samples_are_evenly_spaced_in_time_and_along_the_route() {
        let line = [p(0.0, 0.0), p(0.0, 0.005), p(0.005, 0.005)];
        let plan = plan(&line, 300.0).unwrap();
        let q = plan.queries();
        assert_eq!(q[0].position, line[0]);
        assert_eq!(q[q.len() - 1].position, line[2]);
        assert_eq!(q[0].time, t0());
        assert_eq!(q[q.len() - 1].time, t0() + TimeDelta::seconds(300));
        let step = plan.length_m() / (q.len() - 1) as f64;
        for w in q.windows(2) {
            // Across the corner the chord is shorter than the path; never longer.
            let d = w[0].position.distance_m(w[1].position);
            assert!(d <= step + 1e-6 && d >= step * 0.7, "{d} vs {step}");
            let dt = (w[1].time - w[0].time).num_milliseconds();
            assert!((dt as f64 - plan.interval_s() * 1000.0).abs() <= 1.0);
        }
    }

    #[test]
    fn the_sample_count_is_capped() {
        let config = RacsConfig {
            max_samples: 50,
            ..RacsConfig::default()
        };
        let plan = plan_route(&[p(0.0, 0.0), p(0.0, 0.01)], 36_000.0, t0(), &config).unwrap();
        assert_eq!(plan.queries().len(), 50);
    }

    #[test]
    fn unusable_durations_are_102() {
        for d in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e12] {
            assert!(matches!(
                plan(&[p(0.0, 0.0), p(0.0, 0.001)], d),
                Err(GranularityProblem::UnusableDuration { .. })
            ));
        }
    }

    #[test]
    fn routes_across_the_antimeridian_stay_near_it() {
        let plan = plan(&[p(179.999, 0.0), p(-179.999, 0.0)], 60.0).unwrap();
        for q in plan.queries() {
            assert!(q.position.lon().abs() > 179.99, "{:?}", q.position);
        }
    }

    /// A segment from (`lon`, `lat`) `length_m` long on `bearing`, and its haversine length.
    fn segment(lon: f64, lat: f64, bearing: f64, length_m: f64) -> (Position, Position, f64) {
        use geo::{Destination, Haversine, Point};
        let a = p(lon, lat);
        let end = Haversine.destination(Point::from(a), bearing, length_m);
        let b = p(end.x(), end.y());
        (a, b, a.distance_m(b))
    }

    #[test]
    fn rounding_to_i64_at_the_edges() {
        for x in [
            0.0,
            -0.0,
            0.499_999_999_999_999_94,
            0.5,
            -0.5,
            2.5,
            4_503_599_627_370_495.5,
            9.2e18,
            9.3e18,
            -9.3e18,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert_eq!(round_to_i64(x), x.round() as i64, "{x}");
        }
    }

    #[test]
    fn segments_across_the_antimeridian_stay_near_it() {
        let (a, b, length) = segment(179.9995, 60.0, 90.0, 500.0);
        assert!(b.lon() < -179.99, "{b:?}");
        for k in 1..10 {
            let along = length * f64::from(k) / 10.0;
            let here = point_on_segment(a, b, along, length);
            assert!(here.lon().abs() > 179.99, "{here:?}");
            let off = here.distance_m(a) - along;
            assert!(off.abs() < GREAT_CIRCLE_TOLERANCE_M, "{off}");
        }
    }

    #[test]
    fn a_segment_of_no_length_is_its_first_vertex() {
        let a = p(0.0, 10.0);
        let b = p(0.0, 10.0 + 1e-12);
        assert_eq!(point_on_segment(a, b, 0.0, a.distance_m(b)), a);
        assert_eq!(point_on_segment(a, b, 1e-7, a.distance_m(b)), a);
    }

    /// The plan as `geo`'s haversine functions would make it, computed apart from the planner:
    /// its segment search and ratios are written independently of `plan_route`'s.
    fn haversine_reference(line: &[Position], samples: usize) -> (f64, Vec<Position>) {
        use geo::{Haversine, InterpolatePoint, Point};
        let mut cumulative = vec![0.0];
        for w in line.windows(2) {
            cumulative.push(cumulative.last().unwrap() + w[0].distance_m(w[1]));
        }
        let total = *cumulative.last().unwrap();
        let intervals = samples - 1;
        let positions = (0..=intervals)
            .map(|k| {
                let along = total * k as f64 / intervals as f64;
                let s = cumulative[1..]
                    .iter()
                    .position(|&c| c >= along)
                    .unwrap_or(line.len() - 2);
                let length = cumulative[s + 1] - cumulative[s];
                let ratio = ((along - cumulative[s]) / length).clamp(0.0, 1.0);
                let q: Point<f64> =
                    Haversine.point_at_ratio_between(line[s].into(), line[s + 1].into(), ratio);
                p(q.x(), q.y())
            })
            .collect();
        (total, positions)
    }

    proptest::proptest! {
        #[test]
        fn lengths_and_samples_match_haversine(
            lon in -179.0f64..179.0,
            lat in -85.0f64..85.0,
            steps in proptest::collection::vec((0.0f64..360.0, 0.01f64..1999.0), 1..12),
            duration_s in 10.0f64..7200.0,
        ) {
            use geo::{Destination, Haversine, Point};
            let mut line = vec![p(lon, lat)];
            for (bearing, length) in steps {
                let next = Haversine.destination(Point::from(*line.last().unwrap()), bearing, length);
                line.push(p(next.x(), next.y()));
            }
            let plan = plan(&line, duration_s).unwrap();
            let (total, expected) = haversine_reference(&line, plan.queries().len());
            proptest::prop_assert!((plan.length_m() - total).abs() < 1e-6, "{} vs {total}", plan.length_m());
            for (q, e) in plan.queries().iter().zip(&expected) {
                let off = q.position.distance_m(*e);
                proptest::prop_assert!(off < 1e-6, "{:?} is {off} m from {e:?}", q.position);
            }
        }

        /// Every point the planner puts on a segment up to 2 km long, anywhere in longitude
        /// (the antimeridian included) and within 85° of the equator, is where another
        /// construction of the great circle (the bearing from the first vertex, then the
        /// destination at that distance) puts it.
        #[test]
        fn segment_points_are_within_a_millimetre_of_the_great_circle(
            lon in -180.0f64..=180.0,
            lat in proptest::prop_oneof![-84.98f64..84.98, 75.0f64..84.98, -84.98f64..-75.0],
            bearing in 0.0f64..360.0,
            length_m in proptest::prop_oneof![0.001f64..2000.0, 1500.0f64..2000.0],
            ratio in 0.0f64..=1.0,
        ) {
            use geo::{Haversine, InterpolatePoint, Point};
            let (a, b, length) = segment(lon, lat, bearing, length_m);
            let e: Point<f64> = Haversine.point_at_distance_between(a.into(), b.into(), ratio * length);
            let off = point_on_segment(a, b, ratio * length, length).distance_m(p(e.x(), e.y()));
            proptest::prop_assert!(off < GREAT_CIRCLE_TOLERANCE_M, "{off} m at {ratio} of {a:?} to {b:?}");
        }

        /// Long segments and those near the poles follow the great circle too: the planner
        /// matches the haversine reference to well under a millimetre there.
        #[test]
        fn long_and_polar_segments_match_haversine_exactly(
            lon in -179.0f64..179.0,
            lat in proptest::prop_oneof![-89.9f64..89.9, 85.0f64..89.9, -89.9f64..-85.0],
            steps in proptest::collection::vec((0.0f64..360.0, 0.01f64..30_000.0), 1..6),
            duration_s in 10.0f64..7200.0,
        ) {
            use geo::{Destination, Haversine, Point};
            let mut line = vec![p(lon, lat)];
            for (bearing, length) in steps {
                let next = Haversine.destination(Point::from(*line.last().unwrap()), bearing, length);
                line.push(p(next.x(), next.y()));
            }
            let config = RacsConfig { max_segment_m: 30_001.0, ..RacsConfig::default() };
            let Ok(plan) = plan_route(&line, duration_s, t0(), &config) else {
                // Distinct vertices at one place (a pole): nothing to compare.
                return Ok(());
            };
            let (_, expected) = haversine_reference(&line, plan.queries().len());
            for (q, e) in plan.queries().iter().zip(&expected) {
                let off = q.position.distance_m(*e);
                proptest::prop_assert!(off < 1e-6, "{:?} is {off} m from {e:?}", q.position);
            }
        }

        /// Pins the rounding shortcut to `f64::round`: equal for every float, whole, halfway,
        /// huge or negative.
        #[test]
        fn rounding_to_i64_is_f64_round(
            x in proptest::prop_oneof![
                0.0f64..1e4,
                0.0f64..9.3e18,
                (0i64..1 << 53).prop_map(|n| n as f64 + 0.5),
                (0i64..1 << 53).prop_map(|n| n as f64 - 0.5),
                proptest::num::f64::ANY,
            ],
        ) {
            proptest::prop_assert_eq!(round_to_i64(x), x.round() as i64, "{}", x);
        }

        /// The clock's shortcut within a day gives exactly what chrono's arithmetic gives,
        /// across midnights, leap seconds at departure and the end of the calendar.
        #[test]
        fn sample_times_are_departure_plus_their_offsets(
            secs in -62_167_219_200i64..253_402_300_800,
            nanos in 0u32..1_000_000_000,
            leap in proptest::bool::weighted(0.1),
            steps in proptest::collection::vec(
                proptest::prop_oneof![0i64..60_000_000_000, 0i64..200_000_000_000_000],
                1..30,
            ),
        ) {
            let mut departure = DateTime::from_timestamp(secs, nanos).unwrap();
            if leap {
                let date = departure.date_naive();
                departure = date.and_hms_nano_opt(23, 59, 59, 1_000_000_000 + nanos).unwrap().and_utc();
            }
            let mut clock = SampleClock::new(departure);
            let mut offset = 0i64;
            for step in steps {
                offset += step;
                proptest::prop_assert_eq!(
                    clock.at(offset),
                    departure.checked_add_signed(TimeDelta::nanoseconds(offset)),
                    "{} + {} ns", departure, offset
                );
            }
        }
    }
}
