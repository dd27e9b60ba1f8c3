//! Property tests for every property `docs/scoring.md` requires of RACS.

use aq_core::{CleanlinessIndex, Position, round_half_up_0_100};
use chrono::{DateTime, TimeZone, Utc};
use geo::{Destination, Haversine, InterpolatePoint, Point};
use proptest::prelude::*;
use runtime_core::SequentialIds;

use crate::config::RacsConfig;
use crate::outcome::{ErrorCode, RouteFailure, RouteOutcome};
use crate::plan::plan_route;
use crate::request::{RouteId, RouteInput, ScoreRequest};
use crate::response::{CompletionStatus, assemble_response, sort_order};
use crate::score::{RouteScore, score_samples};
use crate::units::{DurationUnit, LengthUnit, RoutesSort};

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

/// A route: a start and steps of (bearing in degrees, length in metres), plus a duration.
#[derive(Debug, Clone)]
struct Route {
    line: Vec<Position>,
    duration_s: f64,
}

fn route() -> impl Strategy<Value = Route> {
    (
        -170.0..170.0f64,
        -60.0..60.0f64,
        prop::collection::vec((0.0..360.0f64, 20.0..1500.0f64), 1..6),
        60.0..3600.0f64,
    )
        .prop_map(|(lon, lat, steps, duration_s)| {
            let mut line = vec![Position::new(lon, lat).unwrap()];
            for (bearing, length) in steps {
                let last: Point<f64> = (*line.last().unwrap()).into();
                let next = Haversine.destination(last, bearing, length);
                line.push(Position::new(next.x(), next.y()).unwrap());
            }
            Route { line, duration_s }
        })
}

/// A smooth field over the route's area: a level plus two waves with wavelengths of 300 m to
/// 3 km, clamped into [0, 100].
#[derive(Debug, Clone, Copy)]
struct Field {
    level: f64,
    amp_x: f64,
    amp_y: f64,
    wave_x_m: f64,
    wave_y_m: f64,
    phase: f64,
}

fn field() -> impl Strategy<Value = Field> {
    (
        0.0..100.0f64,
        0.0..30.0f64,
        0.0..30.0f64,
        300.0..3000.0f64,
        300.0..3000.0f64,
        0.0..6.3f64,
    )
        .prop_map(|(level, amp_x, amp_y, wave_x_m, wave_y_m, phase)| Field {
            level,
            amp_x,
            amp_y,
            wave_x_m,
            wave_y_m,
            phase,
        })
}

impl Field {
    fn at(&self, p: Position) -> f64 {
        let x = p.lon() * 111_320.0 * p.lat().to_radians().cos();
        let y = p.lat() * 110_540.0;
        let v = self.level
            + self.amp_x * (x / self.wave_x_m * std::f64::consts::TAU + self.phase).sin()
            + self.amp_y * (y / self.wave_y_m * std::f64::consts::TAU).cos();
        v.clamp(0.0, 100.0)
    }
}

/// Scores `route` the way the scorer does, with `ci` as the source.
fn score(
    route: &Route,
    ci: impl Fn(Position) -> Option<f64>,
) -> Result<RouteScore, crate::score::InsufficientCoverage> {
    let config = RacsConfig::default();
    let plan = plan_route(&route.line, route.duration_s, t0(), &config).unwrap();
    let answers: Vec<Option<CleanlinessIndex>> = plan
        .queries()
        .iter()
        .map(|q| ci(q.position).map(CleanlinessIndex::clamped))
        .collect();
    score_samples(&plan, &answers, config.dose_assumptions(None), &config)
}

/// Inserts vertices on the great circle of each segment at the given fractions.
fn densify(line: &[Position], fractions: &[f64]) -> Vec<Position> {
    let mut out = vec![line[0]];
    for (i, w) in line.windows(2).enumerate() {
        let f = fractions[i % fractions.len()];
        let m: Point<f64> = Haversine.point_at_ratio_between(w[0].into(), w[1].into(), f);
        out.push(Position::new(m.x(), m.y()).unwrap());
        out.push(w[1]);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn racs_stays_in_0_to_100(route in route(), f in field(), holes in 0.0..0.3f64) {
        // Values anywhere on the scale, some samples uncovered.
        let result = score(&route, |p| {
            let v = f.at(p);
            (v.fract() >= holes).then_some(v)
        });
        if let Ok(s) = result {
            prop_assert!(s.racs <= 100);
            prop_assert!((0.0..=100.0).contains(&s.mean_ci));
        }
    }

    #[test]
    fn a_field_cleaner_everywhere_never_lowers_racs(
        route in route(),
        f in field(),
        lift in field(),
        gap_m in 200.0..2000.0f64,
    ) {
        // The same samples are covered in both fields.
        let covered = |p: Position| (p.lat() * 110_540.0 / gap_m).sin() > -0.8;
        let base = score(&route, |p| covered(p).then(|| f.at(p)));
        let cleaner = score(&route, |p| covered(p).then(|| (f.at(p) + lift.at(p) / 4.0).min(100.0)));
        match (base, cleaner) {
            (Ok(a), Ok(b)) => prop_assert!(b.racs >= a.racs, "{} then {}", a.racs, b.racs),
            (Err(_), Err(_)) => {}
            (a, b) => prop_assert!(false, "coverage differs: {a:?} / {b:?}"),
        }
    }

    #[test]
    fn densifying_a_polyline_changes_racs_by_at_most_1(
        route in route(),
        f in field(),
        fractions in prop::collection::vec(0.05..0.95f64, 1..4),
    ) {
        let dense = Route { line: densify(&route.line, &fractions), ..route.clone() };
        let a = score(&route, |p| Some(f.at(p))).unwrap();
        let b = score(&dense, |p| Some(f.at(p))).unwrap();
        prop_assert!(a.racs.abs_diff(b.racs) <= 1, "{} vs {}", a.racs, b.racs);
    }

    #[test]
    fn a_constant_field_gives_its_rounded_value(
        route in route(),
        v in prop_oneof![0.0..=100.0f64, (0u8..100).prop_map(|n| f64::from(n) + 0.5)],
    ) {
        let s = score(&route, |_| Some(v)).unwrap();
        prop_assert_eq!(s.racs, round_half_up_0_100(v));
    }

    #[test]
    fn sorting_is_a_stable_permutation(racs in prop::collection::vec(prop::option::of(0u8..=100), 0..40)) {
        for sort in RoutesSort::ALL {
            let order = sort_order(&racs, sort);
            let mut seen = order.clone();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..racs.len()).collect::<Vec<_>>());
            for w in order.windows(2) {
                let (a, b) = (racs[w[0]], racs[w[1]]);
                match sort {
                    RoutesSort::Original => prop_assert!(w[0] < w[1]),
                    RoutesSort::Desc | RoutesSort::Asc => {
                        // Failed routes last; equal keys keep request order.
                        prop_assert!(!(a.is_none() && b.is_some()));
                        if a == b {
                            prop_assert!(w[0] < w[1]);
                        } else if let (Some(a), Some(b)) = (a, b) {
                            let in_order = if sort == RoutesSort::Desc { a > b } else { a < b };
                            prop_assert!(in_order, "{} then {}", a, b);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn completion_status_follows_the_error_counts(codes in prop::collection::vec(0usize..4, 1..20)) {
        let outcomes: Vec<RouteOutcome> = codes
            .iter()
            .map(|&c| match c {
                0 => RouteOutcome::Scored(RouteScore {
                    racs: 50,
                    mean_ci: 50.0,
                    coverage: 1.0,
                    dose: 10.0,
                    assumptions: RacsConfig::default().dose_assumptions(None),
                    dose_is_equivalent: false,
                    length_m: 100.0,
                    duration_s: 60.0,
                    samples: 10,
                }),
                1 => RouteOutcome::Failed(RouteFailure::InsufficientCoverage(
                    crate::score::InsufficientCoverage { coverage: 0.1, required: 0.75 },
                )),
                2 => RouteOutcome::Failed(RouteFailure::TimedOut),
                _ => RouteOutcome::Failed(RouteFailure::NotGranular(
                    crate::plan::GranularityProblem::TooFewVertices { distinct: 1 },
                )),
            })
            .collect();
        let request = ScoreRequest {
            routes: (0..codes.len())
                .map(|i| RouteInput {
                    id: RouteId::new(i.to_string()),
                    polyline: vec![],
                    route_duration: 1.0,
                    travel_mode: None,
                })
                .collect(),
            duration_units: DurationUnit::Minutes,
            length_units: LengthUnit::Metres,
            routes_sort: RoutesSort::Desc,
            departure_time: None,
            travel_mode: None,
            departure_window_minutes: None,
            departure_step_minutes: None,
        };
        let response = assemble_response(
            &request,
            &outcomes,
            &SequentialIds::default(),
            t0(),
            &RacsConfig::default(),
        );
        let ok = response.racss.iter().filter(|e| e.error == ErrorCode::Empty).count();
        let failed = response.racss.len() - ok;
        prop_assert_eq!(ok, codes.iter().filter(|&&c| c == 0).count());
        let expected = if failed == 0 {
            CompletionStatus::Completed
        } else if ok == 0 {
            CompletionStatus::Failed
        } else {
            CompletionStatus::CompletedWithErrors
        };
        prop_assert_eq!(response.completion_status, expected);
        for e in &response.racss {
            prop_assert_eq!(e.racs.is_some(), e.error == ErrorCode::Empty);
        }
        prop_assert_eq!(response.recommendations.is_empty(), ok == 0);
    }
}
