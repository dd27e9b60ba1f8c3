//! Planning a route's samples (steps 1 to 3 of the RACS algorithm): pure and synchronous.
//!
//! The traveller is assumed to move at constant speed along the route's great-circle
//! (haversine) length, so samples evenly spaced in time are evenly spaced along the route too.

use std::fmt;

use aq_core::{Position, SampleQuery};
use chrono::{DateTime, TimeDelta, Utc};

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

    // Each vertex's trigonometry is done once, as a point on the unit sphere that both the
    // segment lengths and the samples between its two segments use.
    let vectors: Vec<[f64; 3]> = polyline.iter().map(|&p| unit_vector(p)).collect();
    // angles[i] is segment i's central angle; cumulative[i] the distance from the first vertex
    // to vertex i.
    let mut angles = Vec::with_capacity(polyline.len() - 1);
    let mut cumulative = Vec::with_capacity(polyline.len());
    let mut total = 0.0;
    cumulative.push(0.0);
    for (i, w) in vectors.windows(2).enumerate() {
        let angle = central_angle(w[0], w[1]);
        let d = EARTH_RADIUS_M * angle;
        if d > config.max_segment_m {
            return Err(GranularityProblem::SegmentTooLong {
                from_vertex: i,
                length_m: d,
                max_m: config.max_segment_m,
            });
        }
        angles.push(angle);
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

    let needed = (duration_s / config.sample_interval_s)
        .ceil()
        .max((total / config.sample_spacing_m).ceil())
        .max(config.min_samples.saturating_sub(1) as f64)
        .max(1.0);
    let cap = config.max_samples.max(2) - 1;
    // Cast after the cap, so it cannot truncate.
    let intervals = needed.min(cap as f64) as usize;

    let mut queries = Vec::with_capacity(intervals + 1);
    let mut segment = 0;
    let last_segment = polyline.len() - 2;
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
                (polyline[segment], vectors[segment]),
                (polyline[segment + 1], vectors[segment + 1]),
                angles[segment],
                cumulative[segment + 1] - cumulative[segment],
                along - cumulative[segment],
            )
        };
        let offset = TimeDelta::nanoseconds((duration_s * fraction * 1e9).round() as i64);
        let time = departure.checked_add_signed(offset).ok_or(unusable)?;
        queries.push(SampleQuery { position, time });
    }

    Ok(RoutePlan {
        queries,
        length_m: total,
        duration_s,
    })
}

/// Mean Earth radius in metres: the sphere of [`Position::distance_m`].
const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// The position as a point on the unit sphere.
fn unit_vector(p: Position) -> [f64; 3] {
    let (sin_lat, cos_lat) = p.lat().to_radians().sin_cos();
    let (sin_lon, cos_lon) = p.lon().to_radians().sin_cos();
    [cos_lat * cos_lon, cos_lat * sin_lon, sin_lat]
}

/// The angle between two points of the unit sphere, in radians, from the chord between them.
fn central_angle(a: [f64; 3], b: [f64; 3]) -> f64 {
    let norm = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let chord = norm([a[0] - b[0], a[1] - b[1], a[2] - b[2]]);
    if chord < 1.0 {
        // Up to 60°, which takes in every segment a route may have: asin is cheap and exact
        // enough here.
        2.0 * (chord / 2.0).asin()
    } else {
        // Near opposite points asin loses precision; the chord's complement restores it.
        let across = norm([a[0] + b[0], a[1] + b[1], a[2] + b[2]]);
        2.0 * chord.atan2(across)
    }
}

/// The point `along_m` metres from `a` on the great circle to `b` (`length_m` apart, `angle`
/// radians), each given as a position and its unit vector.
fn point_on_segment(
    (a, va): (Position, [f64; 3]),
    (b, vb): (Position, [f64; 3]),
    angle: f64,
    length_m: f64,
    along_m: f64,
) -> Position {
    // A segment too short for the interpolation's trigonometry to be stable is one place.
    if length_m < 1e-6 {
        return a;
    }
    let ratio = (along_m / length_m).clamp(0.0, 1.0);
    // The ends are the vertices themselves, not their round trip through the sphere.
    if ratio == 0.0 {
        return a;
    }
    if ratio == 1.0 {
        return b;
    }
    // Spherical linear interpolation between the two unit vectors.
    let sin_angle = angle.sin();
    let wa = ((1.0 - ratio) * angle).sin() / sin_angle;
    let wb = (ratio * angle).sin() / sin_angle;
    let [x, y, z] = [0, 1, 2].map(|i| wa * va[i] + wb * vb[i]);
    // Away from the poles asin of the height is cheaper and as exact as the general form.
    let lat = if z.abs() < 0.9 {
        z.asin()
    } else {
        z.atan2(x.hypot(y))
    }
    .to_degrees();
    let lon = y.atan2(x).to_degrees();
    // Falls back to the nearer vertex should rounding ever leave the valid range.
    Position::new(lon, lat).unwrap_or(if ratio < 0.5 { a } else { b })
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

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

    /// The plan as `geo`'s haversine functions would make it: the reference the unit-vector
    /// arithmetic must match to well under a millimetre.
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
    }
}
