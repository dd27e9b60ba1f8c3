//! Scoring a planned route from the source's answers (steps 5 and 6 of the RACS algorithm, and
//! the inhaled dose): pure and synchronous.

use aq_core::{EaqiBands, Exposure, round_half_up_0_100};

use crate::config::RacsConfig;
use crate::dose::DoseAssumptions;
use crate::plan::RoutePlan;

/// A scored route.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RouteScore {
    /// The Route Air Cleanliness Score, 0 to 100, 100 cleanest.
    pub racs: u8,
    /// The time-weighted mean CI before rounding.
    pub mean_ci: f64,
    /// The share of the route's time that covered samples carry, in [0, 1].
    pub coverage: f64,
    /// The inhaled dose of PM2.5 in µg: `Σ concentration · factor · ventilation · dt`, the
    /// concentration in µg/m³ (the source's PM2.5, or else the PM2.5 that alone would give the
    /// sample's CI), the in-vehicle factor and the ventilation of [`Self::assumptions`], and
    /// `dt` in minutes. Time not covered by the source counts at the route's mean
    /// concentration, so that gaps in the data do not look like clean air.
    pub dose: f64,
    /// What the dose assumes about the traveller.
    pub assumptions: DoseAssumptions,
    /// True when some covered sample had no PM2.5 from the source, so that part of the dose is
    /// the PM2.5 that alone would give its CI: a PM2.5-equivalent dose, not a measured one.
    pub dose_is_equivalent: bool,
    /// The route's haversine length, in metres.
    pub length_m: f64,
    /// The route's duration, in seconds.
    pub duration_s: f64,
    /// How many samples the source was asked for.
    pub samples: usize,
}

/// The covered samples carry too little of the route's time (error 100).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InsufficientCoverage {
    /// The share of the route's time that covered samples carry, in [0, 1].
    pub coverage: f64,
    /// The share required ([`RacsConfig::min_coverage`]).
    pub required: f64,
}

impl std::fmt::Display for InsufficientCoverage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "covered samples carry {:.0}% of the route's time; {:.0}% is required",
            self.coverage * 100.0,
            self.required * 100.0
        )
    }
}

impl std::error::Error for InsufficientCoverage {}

/// Scores a route from the source's answers to its plan, one answer per query in order (a
/// missing answer counts as not covered).
///
/// Each sample stands for half of the interval on either side of it (the trapezoid rule), so
/// the first and last samples weigh half as much as the others.
///
/// `assumptions` are the breathing rate and in-vehicle factor of the route's travel mode
/// ([`RacsConfig::dose_assumptions`]). Answers are [`Exposure`]s, or plain CIs (whose dose then comes from the PM2.5 that
/// alone would give each CI, [`EaqiBands::pm25_equivalent`]).
///
/// # Errors
/// [`InsufficientCoverage`] (error 100) when covered samples carry less than
/// [`RacsConfig::min_coverage`] of the route's time, or nothing at all.
pub fn score_samples<A: Copy + Into<Exposure>>(
    plan: &RoutePlan,
    answers: &[Option<A>],
    assumptions: DoseAssumptions,
    config: &RacsConfig,
) -> Result<RouteScore, InsufficientCoverage> {
    let n = plan.queries().len();
    let last = n.saturating_sub(1);
    // Trapezoid weights in units of half an interval: exact small integers, so coverage and the
    // mean of a constant field come out exact.
    let weight = |k: usize| if k == 0 || k == last { 1.0 } else { 2.0 };
    let total_weight = 2.0 * last as f64;

    let covered = || {
        (0..n).filter_map(|k| {
            answers
                .get(k)
                .copied()
                .flatten()
                .map(|a| (weight(k), a.into()))
        })
    };
    let covered_weight: f64 = covered().map(|(w, _)| w).sum();
    let bands = EaqiBands::default();
    let coverage = if total_weight > 0.0 {
        covered_weight / total_weight
    } else {
        0.0
    };
    let Some((_, first)) = covered().next() else {
        return Err(InsufficientCoverage {
            coverage,
            required: config.min_coverage,
        });
    };
    if coverage < config.min_coverage {
        return Err(InsufficientCoverage {
            coverage,
            required: config.min_coverage,
        });
    }

    // Averaging the differences from one sample keeps a constant field exact (72.5 stays 72.5
    // and rounds up) where summing raw values would drift.
    let base = first.ci.value();
    let spread: f64 = covered().map(|(w, e)| w * (e.ci.value() - base)).sum();
    let mean_ci = (base + spread / covered_weight).clamp(0.0, 100.0);
    let racs = round_half_up_0_100(mean_ci);
    let pm25 = |e: Exposure| e.pm25_ug_m3.unwrap_or_else(|| bands.pm25_equivalent(e.ci));
    let mean_pm25 = covered().map(|(w, e)| w * pm25(e)).sum::<f64>() / covered_weight;
    let dose = assumptions.dose_ug(mean_pm25, plan.duration_s() / 60.0);
    let dose_is_equivalent = covered().any(|(_, e)| e.pm25_ug_m3.is_none());

    Ok(RouteScore {
        racs,
        mean_ci,
        coverage,
        dose,
        assumptions,
        dose_is_equivalent,
        length_m: plan.length_m(),
        duration_s: plan.duration_s(),
        samples: n,
    })
}

#[cfg(test)]
mod tests {
    use aq_core::{CleanlinessIndex, Position};
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::plan::plan_route;

    fn plan() -> RoutePlan {
        let line = [
            Position::new(0.0, 0.0).unwrap(),
            Position::new(0.0, 0.001).unwrap(),
        ];
        let t0 = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
        // Ten samples, nine intervals of 20 s.
        plan_route(&line, 180.0, t0, &RacsConfig::default()).unwrap()
    }

    fn ci(v: f64) -> Option<CleanlinessIndex> {
        Some(CleanlinessIndex::new(v).unwrap())
    }

    /// Outdoor air breathed at `m3_per_min`.
    fn breathing(m3_per_min: f64) -> DoseAssumptions {
        DoseAssumptions {
            travel_mode: crate::TravelMode::Walk,
            breathing_m3_per_min: m3_per_min,
            pm25_factor: 1.0,
        }
    }

    #[test]
    fn a_constant_field_scores_its_value_rounded_half_up() {
        let plan = plan();
        for (v, expected) in [(72.5, 73), (72.49, 72), (0.0, 0), (100.0, 100), (33.3, 33)] {
            let answers = vec![ci(v); 10];
            let s = score_samples(&plan, &answers, breathing(1.0), &RacsConfig::default()).unwrap();
            assert_eq!(s.racs, expected, "{v}");
            assert_eq!(s.mean_ci, v);
            assert_eq!(s.coverage, 1.0);
        }
    }

    #[test]
    fn the_mean_is_time_weighted_by_the_trapezoid_rule() {
        // End samples weigh 1, inner ones 2: (1·0 + 8·2·50 + 1·100) / 18 = 50.
        let mut answers = vec![ci(50.0); 10];
        answers[0] = ci(0.0);
        answers[9] = ci(100.0);
        let s = score_samples(&plan(), &answers, breathing(1.0), &RacsConfig::default()).unwrap();
        assert!((s.mean_ci - 50.0).abs() < 1e-12);
        // An inner sample weighs twice an end one: (2·0 + 1·60 + 7·2·60 + 1·60) / 18 ≈ 53.3.
        let mut answers = vec![ci(60.0); 10];
        answers[1] = ci(0.0);
        let s = score_samples(&plan(), &answers, breathing(1.0), &RacsConfig::default()).unwrap();
        assert!((s.mean_ci - 960.0 / 18.0).abs() < 1e-12);
        assert_eq!(s.racs, 53);
    }

    #[test]
    fn coverage_below_the_minimum_is_insufficient() {
        // Uncovered: samples 0..=4 weigh 1 + 4·2 = 9 of 18, coverage 0.5.
        let mut answers = vec![ci(80.0); 10];
        for a in answers.iter_mut().take(5) {
            *a = None;
        }
        let e =
            score_samples(&plan(), &answers, breathing(1.0), &RacsConfig::default()).unwrap_err();
        assert_eq!(e.coverage, 0.5);
        // Both ends and one inner sample uncovered weigh 1 + 1 + 2 = 4 of 18, leaving 14/18.
        let mut answers = vec![ci(80.0); 10];
        answers[0] = None;
        answers[9] = None;
        answers[4] = None;
        let s = score_samples(&plan(), &answers, breathing(1.0), &RacsConfig::default()).unwrap();
        assert!((s.coverage - 14.0 / 18.0).abs() < 1e-12);
        assert_eq!(s.racs, 80);
        // Coverage equal to the minimum is enough.
        let exact = RacsConfig {
            min_coverage: 14.0 / 18.0,
            ..RacsConfig::default()
        };
        assert!(score_samples(&plan(), &answers, breathing(1.0), &exact).is_ok());
    }

    #[test]
    fn nothing_covered_is_insufficient_even_with_no_minimum() {
        let config = RacsConfig {
            min_coverage: 0.0,
            ..RacsConfig::default()
        };
        let none: [Option<CleanlinessIndex>; 10] = [None; 10];
        let e = score_samples(&plan(), &none, breathing(1.0), &config).unwrap_err();
        assert_eq!(e.coverage, 0.0);
        // Too few answers count as uncovered rather than panicking.
        assert!(score_samples(&plan(), &none[..0], breathing(1.0), &config).is_err());
    }

    #[test]
    fn the_dose_is_micrograms_of_pm25_breathed_in() {
        // 20 µg/m³ of PM2.5 for 3 minutes, walking at 0.025 m³/min: 1.5 µg.
        let exposure = |ci_value, pm25| {
            Some(Exposure {
                ci: CleanlinessIndex::new(ci_value).unwrap(),
                pm25_ug_m3: pm25,
            })
        };
        let answers = vec![exposure(60.0, Some(20.0)); 10];
        let s = score_samples(&plan(), &answers, breathing(0.025), &RacsConfig::default()).unwrap();
        assert!((s.dose - 1.5).abs() < 1e-12, "{}", s.dose);
        // Cycling breathes 0.043 m³/min: 2.58 µg.
        let s = score_samples(&plan(), &answers, breathing(0.043), &RacsConfig::default()).unwrap();
        assert!((s.dose - 2.58).abs() < 1e-12, "{}", s.dose);
        // A gap counts at the mean concentration, not as clean air.
        let mut gappy = answers.clone();
        gappy[4] = None;
        let s = score_samples(&plan(), &gappy, breathing(0.025), &RacsConfig::default()).unwrap();
        assert!((s.dose - 1.5).abs() < 1e-12, "{}", s.dose);
        // Inside a vehicle whose air holds half the outdoor PM2.5: half the dose, and the
        // assumptions travel with the score.
        let inside = DoseAssumptions {
            pm25_factor: 0.5,
            ..breathing(0.025)
        };
        let s = score_samples(&plan(), &answers, inside, &RacsConfig::default()).unwrap();
        assert!((s.dose - 0.75).abs() < 1e-12, "{}", s.dose);
        assert_eq!(s.assumptions, inside);
    }

    #[test]
    fn without_pm25_the_dose_takes_the_pm25_that_gives_the_ci() {
        // CI 60 is sub-index 40, the top of Fair: 15 µg/m³ of PM2.5 would give it. Three
        // minutes walking: 15 · 0.025 · 3 = 1.125 µg.
        let answers = vec![ci(60.0); 10];
        let s = score_samples(&plan(), &answers, breathing(0.025), &RacsConfig::default()).unwrap();
        assert!((s.dose - 1.125).abs() < 1e-12, "{}", s.dose);
        // Cleaner air, less dose; clean air (CI 100), none.
        let s = score_samples(
            &plan(),
            &[ci(90.0); 10],
            breathing(0.025),
            &RacsConfig::default(),
        )
        .unwrap();
        assert!(s.dose < 1.125);
        let s = score_samples(
            &plan(),
            &[ci(100.0); 10],
            breathing(0.025),
            &RacsConfig::default(),
        )
        .unwrap();
        assert_eq!(s.dose, 0.0);
    }
}
