//! Planning a route's samples (steps 1 to 3 of the RACS algorithm): pure and synchronous.
//!
//! The traveller is assumed to move at constant speed along the route's great-circle
//! (haversine) length, so samples evenly spaced in time are evenly spaced along the route too.

use std::fmt;

use aq_core::{Position, SampleQuery};
use chrono::{DateTime, NaiveDate, NaiveTime, TimeDelta, Timelike, Utc};

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

    let intervals = sample_intervals(total, duration_s, config);

    let mut queries = Vec::with_capacity(intervals + 1);
    let mut segment = 0;
    let last_segment = polyline.len() - 2;
    let mut shape = SegmentShape::new(0, polyline, &vectors, &angles, &cumulative);
    let mut clock = SampleClock::new(departure);
    for k in 0..=intervals {
        let fraction = k as f64 / intervals as f64;
        let along = total * fraction;
        if segment < last_segment && cumulative[segment + 1] < along {
            while segment < last_segment && cumulative[segment + 1] < along {
                segment += 1;
            }
            shape = SegmentShape::new(segment, polyline, &vectors, &angles, &cumulative);
        }
        let position = if k == intervals {
            polyline[polyline.len() - 1]
        } else {
            shape.point(along - cumulative[segment])
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

/// Segments up to this long are interpolated in degrees ([`Quadratic`]) rather than along the
/// great circle: at most [`RacsConfig::max_segment_m`] at its default, so every segment of a
/// route the default accepts.
const QUADRATIC_MAX_M: f64 = 2_000.0;

/// ... and only when both ends are this close to the equator, in degrees: towards a pole a
/// short segment can sweep a wide range of longitudes, which no polynomial in degrees follows.
const QUADRATIC_MAX_LAT: f64 = 85.0;

/// The samples' positions on one segment.
enum SegmentShape {
    /// A segment of no length: every sample is its first vertex.
    Point(Position),
    /// Short and away from the poles: a polynomial in degrees.
    Quadratic(Quadratic),
    /// Anything else: spherical linear interpolation.
    Slerp(Slerp),
}

impl SegmentShape {
    /// The shape of segment `i` of `polyline`, from the per-vertex unit vectors, the
    /// segments' central angles and the cumulative distances.
    fn new(
        i: usize,
        polyline: &[Position],
        vectors: &[[f64; 3]],
        angles: &[f64],
        cumulative: &[f64],
    ) -> Self {
        let (a, b) = (polyline[i], polyline[i + 1]);
        let length_m = cumulative[i + 1] - cumulative[i];
        // A segment too short for the interpolation's trigonometry to be stable is one place.
        if length_m < 1e-6 {
            return Self::Point(a);
        }
        let (va, vb) = (vectors[i], vectors[i + 1]);
        if length_m <= QUADRATIC_MAX_M
            && a.lat().abs() <= QUADRATIC_MAX_LAT
            && b.lat().abs() <= QUADRATIC_MAX_LAT
        {
            Self::Quadratic(Quadratic::new(a, b, va, vb, length_m))
        } else {
            Self::Slerp(Slerp {
                a,
                b,
                va,
                vb,
                angle: angles[i],
                length_m,
            })
        }
    }

    /// The point `along_m` metres from the segment's first vertex.
    fn point(&self, along_m: f64) -> Position {
        match self {
            Self::Point(a) => *a,
            Self::Quadratic(q) => q.point(along_m),
            Self::Slerp(s) => s.point(along_m),
        }
    }
}

/// A short segment's great circle, written as a quadratic in longitude and latitude through
/// its two ends and its midpoint, in the fraction of its length.
///
/// Over a segment of at most [`QUADRATIC_MAX_M`] the great circle, drawn in degrees, is a
/// gently bent curve: a straight line in degrees would miss its bend by up to about
/// `L² tan(lat) / 8R` (half a metre at 80°), and equal steps in degrees would not be equal
/// steps along it. A quadratic through its midpoint follows both the bend and the spacing up to
/// terms in `L³`, within a millimetre (the tests' `QUADRATIC_TOLERANCE_M`); it needs one
/// midpoint's trigonometry per segment instead of five transcendental functions per sample.
#[derive(Debug, Clone, Copy)]
struct Quadratic {
    a: Position,
    b: Position,
    /// 1 / length, in 1/m.
    per_m: f64,
    /// Longitude and latitude as `c0 + t (c1 + t c2)`, in degrees, longitude unwrapped from
    /// the first vertex's across the antimeridian.
    lon: [f64; 3],
    lat: [f64; 3],
}

impl Quadratic {
    fn new(a: Position, b: Position, va: [f64; 3], vb: [f64; 3], length_m: f64) -> Self {
        // The great-circle midpoint bisects the chord between the ends.
        let sum = [va[0] + vb[0], va[1] + vb[1], va[2] + vb[2]];
        let norm = (sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]).sqrt();
        let mid = to_degrees(sum.map(|c| c / norm));
        // Longitudes as the nearest turn from the first vertex's, so that a segment across the
        // antimeridian is short in degrees too.
        let unwrap = |lon: f64| a.lon() + wrap_degrees(lon - a.lon());
        let fit =
            |p0: f64, pm: f64, p1: f64| [p0, 4.0 * pm - 3.0 * p0 - p1, 2.0 * (p0 + p1) - 4.0 * pm];
        Self {
            a,
            b,
            per_m: 1.0 / length_m,
            lon: fit(a.lon(), unwrap(mid.0), unwrap(b.lon())),
            lat: fit(a.lat(), mid.1, b.lat()),
        }
    }

    fn point(&self, along_m: f64) -> Position {
        let t = (along_m * self.per_m).clamp(0.0, 1.0);
        // The ends are the vertices themselves.
        if t == 0.0 {
            return self.a;
        }
        if t == 1.0 {
            return self.b;
        }
        let at = |c: &[f64; 3]| c[0] + t * (c[1] + t * c[2]);
        let lon = wrap_degrees(at(&self.lon));
        Position::new(lon, at(&self.lat)).unwrap_or(if t < 0.5 { self.a } else { self.b })
    }
}

/// The same longitude in [-180, 180].
fn wrap_degrees(lon: f64) -> f64 {
    if lon > 180.0 {
        lon - 360.0
    } else if lon < -180.0 {
        lon + 360.0
    } else {
        lon
    }
}

/// A segment's great circle, for segments [`Quadratic`] does not take.
#[derive(Debug, Clone, Copy)]
struct Slerp {
    a: Position,
    b: Position,
    va: [f64; 3],
    vb: [f64; 3],
    angle: f64,
    length_m: f64,
}

impl Slerp {
    /// The point `along_m` metres from `a` on the great circle to `b`.
    fn point(&self, along_m: f64) -> Position {
        let ratio = (along_m / self.length_m).clamp(0.0, 1.0);
        // The ends are the vertices themselves, not their round trip through the sphere.
        if ratio == 0.0 {
            return self.a;
        }
        if ratio == 1.0 {
            return self.b;
        }
        // Spherical linear interpolation between the two unit vectors.
        let (va, vb, angle) = (self.va, self.vb, self.angle);
        let sin_angle = angle.sin();
        let wa = ((1.0 - ratio) * angle).sin() / sin_angle;
        let wb = (ratio * angle).sin() / sin_angle;
        let (lon, lat) = to_degrees([0, 1, 2].map(|i| wa * va[i] + wb * vb[i]));
        // Falls back to the nearer vertex should rounding ever leave the valid range.
        Position::new(lon, lat).unwrap_or(if ratio < 0.5 { self.a } else { self.b })
    }
}

/// Longitude and latitude, in degrees, of a unit vector.
fn to_degrees([x, y, z]: [f64; 3]) -> (f64, f64) {
    // Away from the poles asin of the height is cheaper and as exact as the general form.
    let lat = if z.abs() < 0.9 {
        z.asin()
    } else {
        z.atan2(x.hypot(y))
    };
    (y.atan2(x).to_degrees(), lat.to_degrees())
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

    /// How far, at most, a quadratic sample lies from the great-circle point it stands for, in
    /// metres; [`Quadratic`] is held to it. Measured, the worst is 0.43 mm (a 2 km segment
    /// at 85°), 0.1 mm at 80° and about a micrometre at the equator. A sample is the air at a
    /// place, from sources whose readings change over tens of metres at the least (station
    /// networks kilometres apart, gridded models of a kilometre and more, the demo field's plumes
    /// of hundreds of metres): even a field that went from 0 to 100 within one 100 m sample spacing
    /// would move a sample's CI by at most 0.001 points for a millimetre, far below the score's
    /// whole-point resolution.
    const QUADRATIC_TOLERANCE_M: f64 = 0.001;

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

    /// A segment from (`lon`, `lat`) `length_m` long on `bearing`, with the [`Quadratic`] for it.
    fn quadratic_segment(
        lon: f64,
        lat: f64,
        bearing: f64,
        length_m: f64,
    ) -> (Position, Position, Quadratic) {
        use geo::{Destination, Haversine, Point};
        let a = p(lon, lat);
        let end = Haversine.destination(Point::from(a), bearing, length_m);
        let b = p(end.x(), end.y());
        let length = a.distance_m(b);
        (
            a,
            b,
            Quadratic::new(a, b, unit_vector(a), unit_vector(b), length),
        )
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
    fn quadratic_segments_across_the_antimeridian_stay_near_it() {
        let (a, b, q) = quadratic_segment(179.9995, 60.0, 90.0, 500.0);
        assert!(b.lon() < -179.99, "{b:?}");
        let length = a.distance_m(b);
        for k in 1..10 {
            let here = q.point(length * f64::from(k) / 10.0);
            assert!(here.lon().abs() > 179.99, "{here:?}");
            let off = here.distance_m(a) - length * f64::from(k) / 10.0;
            assert!(off.abs() < QUADRATIC_TOLERANCE_M, "{off}");
        }
    }

    #[test]
    fn long_or_polar_segments_are_slerped_and_short_ones_are_not() {
        let shape = |line: &[Position]| {
            let vectors: Vec<_> = line.iter().map(|&v| unit_vector(v)).collect();
            let angle = central_angle(vectors[0], vectors[1]);
            let cumulative = [0.0, EARTH_RADIUS_M * angle];
            SegmentShape::new(0, line, &vectors, &[angle], &cumulative)
        };
        assert!(matches!(
            shape(&[p(0.0, 0.0), p(0.0, 0.01)]),
            SegmentShape::Quadratic(_)
        ));
        assert!(matches!(
            shape(&[p(0.0, 0.0), p(0.0, 0.02)]),
            SegmentShape::Slerp(_)
        ));
        assert!(matches!(
            shape(&[p(0.0, 85.0), p(0.0, 85.01)]),
            SegmentShape::Slerp(_)
        ));
        assert!(matches!(
            shape(&[p(0.0, 10.0), p(0.0, 10.0 + 1e-12)]),
            SegmentShape::Point(_)
        ));
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
            // Segments up to 2 km below 85° are interpolated in degrees, to within the
            // documented tolerance; the others follow the great circle exactly.
            for (q, e) in plan.queries().iter().zip(&expected) {
                let off = q.position.distance_m(*e);
                proptest::prop_assert!(
                    off < QUADRATIC_TOLERANCE_M, "{:?} is {off} m from {e:?}", q.position
                );
            }
        }

        /// Pins [`Quadratic`] to the closed form it replaces, `geo`'s great-circle
        /// interpolation, over every segment it takes: up to 2 km with both ends within 85° of
        /// the equator, anywhere in longitude (the antimeridian included).
        #[test]
        fn quadratic_points_are_within_a_millimetre_of_the_great_circle(
            lon in -180.0f64..=180.0,
            lat in proptest::prop_oneof![-84.98f64..84.98, 75.0f64..84.98, -84.98f64..-75.0],
            bearing in 0.0f64..360.0,
            length_m in proptest::prop_oneof![0.001f64..2000.0, 1500.0f64..2000.0],
            ratio in 0.0f64..=1.0,
        ) {
            use geo::{Haversine, InterpolatePoint, Point};
            let (a, b, q) = quadratic_segment(lon, lat, bearing, length_m);
            let length = a.distance_m(b);
            let e: Point<f64> = Haversine.point_at_ratio_between(a.into(), b.into(), ratio);
            let off = q.point(ratio * length).distance_m(p(e.x(), e.y()));
            proptest::prop_assert!(off < QUADRATIC_TOLERANCE_M, "{off} m at {ratio} of {a:?} to {b:?}");
        }

        /// Long segments and those near the poles keep the exact great circle: the planner
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
            let mut cumulative = 0.0;
            let mut ends = vec![0.0];
            for w in line.windows(2) {
                cumulative += w[0].distance_m(w[1]);
                ends.push(cumulative);
            }
            let step = plan.length_m() / (plan.queries().len() - 1) as f64;
            for (k, (q, e)) in plan.queries().iter().zip(&expected).enumerate() {
                let along = step * k as f64;
                let s = ends[1..].iter().position(|&c| c >= along).unwrap_or(line.len() - 2);
                let exact = ends[s + 1] - ends[s] > QUADRATIC_MAX_M
                    || line[s].lat().abs() > QUADRATIC_MAX_LAT
                    || line[s + 1].lat().abs() > QUADRATIC_MAX_LAT;
                let tolerance = if exact { 1e-6 } else { QUADRATIC_TOLERANCE_M };
                let off = q.position.distance_m(*e);
                proptest::prop_assert!(off < tolerance, "{:?} is {off} m from {e:?}", q.position);
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
