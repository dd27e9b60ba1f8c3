//! The statistics of the model's errors: how they correlate with distance, how large they are
//! beside the stations' own errors, and their fit to the residuals of an hour.
//!
//! The correlation of the model's errors at two places `d` metres apart is an exponential,
//! `exp(-d / L)`, multiplied by the compactly supported function of Gaspari and Cohn (1999,
//! eq. 4.10) that falls to zero at the support `S = min(6 L, max_radius)`: the product is still
//! a valid correlation (a product of positive-definite functions is positive definite), it is
//! almost the exponential within a few lengths, and beyond the support it is exactly zero, so
//! that a station further away changes nothing and the answer there is the model's.
//!
//! A fitted analysis adds the area's common bias to the model's error as a second part,
//! correlated over the whole radius ([`Params`]).
//!
//! The length `L`, the model error variance `σb²` and the observation error variance `σo²` are
//! fitted per hour and pollutant by the Hollingsworth–Lönnberg method: the mean product of the
//! residuals of station pairs (about their mean), binned by distance, is the model error
//! covariance at that distance (the stations' own errors do not correlate); the curve fitted
//! through the bins, extrapolated to zero distance, is the correlated part of the residuals'
//! variance; what the variance holds beyond it is `σo²`, and the rest of the residuals' mean
//! square, their common bias included, is `σb²`.

use crate::config::FusionConfig;
use aq_core::position::chord_distance_m;

/// The correlation support is this many correlation lengths, unless capped.
pub(crate) const SUPPORT_LENGTHS: f64 = 6.0;

/// The least share of the residuals' mean square left to the observation error, so that the
/// system a point solves never becomes singular, even where stations agree perfectly.
const MIN_OBS_SHARE: f64 = 0.02;

/// The least error variance, (µg/m³)², of either kind: half a microgram of standard deviation.
pub(crate) const MIN_VARIANCE: f64 = 0.25;

/// Pairs of stations are binned by distance in this many bins up to the largest radius.
const BINS: usize = 15;

/// A bin takes part in the fit with at least this many pairs.
const MIN_PAIRS: usize = 5;

/// The fit needs at least this many bins.
const MIN_BINS: usize = 3;

/// The candidate lengths tried, from this many metres up to the largest radius.
const MIN_LENGTH_M: f64 = 2_000.0;

/// How many candidate lengths are tried, spaced evenly in their logarithm.
const LENGTHS: usize = 32;

/// The Gaspari–Cohn function of half-width `c` at distance `d`: 1 at 0, 0 from `2c` on, and
/// within those bounds everywhere.
pub(crate) fn gaspari_cohn(d: f64, c: f64) -> f64 {
    let r = d / c;
    let value = if r >= 2.0 {
        0.0
    } else if r <= 1.0 {
        let r2 = r * r;
        let r3 = r2 * r;
        -0.25 * r3 * r2 + 0.5 * r2 * r2 + 0.625 * r3 - 5.0 / 3.0 * r2 + 1.0
    } else {
        let r2 = r * r;
        let r3 = r2 * r;
        r3 * r2 / 12.0 - 0.5 * r2 * r2 + 0.625 * r3 + 5.0 / 3.0 * r2 - 5.0 * r + 4.0
            - 2.0 / (3.0 * r)
    };
    // Just short of `2c` the outer polynomial's terms cancel to about 1e-15 and rounding can
    // leave it that far below zero: a correlation is never negative.
    value.clamp(0.0, 1.0)
}

/// The error statistics one pollutant's analysis uses.
///
/// The model's error is the sum of two parts: a local one of variance
/// `model_variance − bias_variance` correlated over the length `L`, and the area's common bias,
/// of variance `bias_variance`, correlated over the whole radius (the Gaspari–Cohn function
/// alone, reaching zero at `max_radius_m`), so that the stations around a place tell its bias
/// even when none is near it, and far beyond them all the model stands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// The correlation length `L` of the local part, metres.
    pub length_m: f64,
    /// Beyond this distance, metres, the local part does not correlate: `min(6 L, max_radius)`.
    pub support_m: f64,
    /// The model's error variance `σb²` (both parts), (µg/m³)².
    pub model_variance: f64,
    /// The part of it that is the area's common bias, (µg/m³)²: the residuals' squared mean
    /// when fitted, 0 with the defaults (too few stations to tell a bias from a local error).
    pub bias_variance: f64,
    /// Beyond this distance, metres, the bias part does not correlate either.
    pub bias_support_m: f64,
    /// The stations' error variance `σo²` (measurement and representativeness), (µg/m³)².
    pub obs_variance: f64,
    /// Whether the values were fitted to the hour's residuals, rather than the defaults.
    pub fitted: bool,
}

impl Params {
    /// The model errors' correlation at `d` metres apart.
    pub(crate) fn correlation(&self, d: f64) -> f64 {
        let local = (self.model_variance - self.bias_variance).max(0.0);
        let bias = if d >= self.bias_support_m {
            0.0
        } else {
            self.bias_variance * gaspari_cohn(d, self.bias_support_m / 2.0)
        };
        (local * correlation(d, self.length_m, self.support_m) + bias) / self.model_variance
    }

    /// Beyond this distance, metres, a station corrects nothing.
    pub(crate) fn reach_m(&self) -> f64 {
        if self.bias_variance > 0.0 {
            self.support_m.max(self.bias_support_m)
        } else {
            self.support_m
        }
    }

    /// The defaults of `config` scaled to residuals of mean square `mean_square`.
    pub(crate) fn defaults(mean_square: f64, config: &FusionConfig) -> Self {
        let total = mean_square.max(2.0 * MIN_VARIANCE);
        let model = (total / (1.0 + config.error_ratio)).max(MIN_VARIANCE);
        Self {
            length_m: config.correlation_length_m,
            support_m: support(config.correlation_length_m, config),
            model_variance: model,
            bias_variance: 0.0,
            bias_support_m: config.max_radius_m,
            obs_variance: (total - model).max(MIN_VARIANCE),
            fitted: false,
        }
    }
}

/// The correlation support of length `length_m`.
pub(crate) fn support(length_m: f64, config: &FusionConfig) -> f64 {
    (SUPPORT_LENGTHS * length_m).min(config.max_radius_m)
}

/// The correlation of model errors `d` metres apart for length `length_m` and support
/// `support_m`.
pub(crate) fn correlation(d: f64, length_m: f64, support_m: f64) -> f64 {
    if d >= support_m {
        0.0
    } else {
        (-d / length_m).exp() * gaspari_cohn(d, support_m / 2.0)
    }
}

/// The statistics fitted to `residuals` (unit vector, residual) by the Hollingsworth–Lönnberg
/// method; `None` when the stations are fewer than `min_fit_stations` or too few pairs fall in
/// enough distance bins. When no positive covariance fits at any length, the residuals do not
/// correlate: the statistics then correct the common bias alone.
///
/// The shape (`L`) and the split between the two error variances are fitted to the residuals'
/// covariance about their mean, since a bias common to the area makes every pair's product
/// large whatever its distance and would pass for an endless correlation; the bias is then
/// given back to the model's error variance (`σb²` is the residuals' mean square less `σo²`),
/// so that the correction, which relaxes to zero away from the stations, treats it as an error
/// of the model near them. Each bin weighs the same in the fit: pairs within a bin share their
/// stations, so a bin's estimate rests on about as many independent readings as there are
/// stations, however many pairs it counts.
pub(crate) fn fit(residuals: &[([f64; 3], f64)], config: &FusionConfig) -> Option<Params> {
    let n = residuals.len();
    if n < config.min_fit_stations {
        return None;
    }
    #[allow(clippy::cast_precision_loss)]
    let count = n as f64;
    let mean = residuals.iter().map(|r| r.1).sum::<f64>() / count;
    let mean_square = residuals.iter().map(|r| r.1 * r.1).sum::<f64>() / count;
    let variance = (mean_square - mean * mean).max(0.0);
    let width = config.max_radius_m / BINS as f64;
    let mut sum_product = [0.0; BINS];
    let mut sum_distance = [0.0; BINS];
    let mut pairs = [0usize; BINS];
    for (i, a) in residuals.iter().enumerate() {
        for b in &residuals[i + 1..] {
            let d = chord_distance_m(a.0, b.0);
            if d >= config.max_radius_m {
                continue;
            }
            // In range by the test above.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let k = ((d / width) as usize).min(BINS - 1);
            sum_product[k] += (a.1 - mean) * (b.1 - mean);
            sum_distance[k] += d;
            pairs[k] += 1;
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let bins: Vec<(f64, f64)> = (0..BINS)
        .filter(|&k| pairs[k] >= MIN_PAIRS)
        .map(|k| {
            let p = pairs[k] as f64;
            (sum_distance[k] / p, sum_product[k] / p)
        })
        .collect();
    if bins.len() < MIN_BINS {
        return None;
    }
    let ratio = (config.max_radius_m / MIN_LENGTH_M).ln();
    let mut best: Option<(f64, f64, f64)> = None;
    for step in 0..LENGTHS {
        #[allow(clippy::cast_precision_loss)]
        let length = MIN_LENGTH_M * (ratio * step as f64 / (LENGTHS - 1) as f64).exp();
        let reach = support(length, config);
        let (mut num, mut den) = (0.0, 0.0);
        for &(d, c) in &bins {
            let rho = correlation(d, length, reach);
            num += rho * c;
            den += rho * rho;
        }
        if den <= 0.0 {
            continue;
        }
        let correlated = num / den;
        if correlated <= 0.0 {
            continue;
        }
        let misfit: f64 = bins
            .iter()
            .map(|&(d, c)| (c - correlated * correlation(d, length, reach)).powi(2))
            .sum();
        if best.is_none_or(|(m, _, _)| misfit < m) {
            best = Some((misfit, length, correlated));
        }
    }
    let Some((_, length, correlated)) = best else {
        // Enough stations and pairs, and no positive covariance at any length: beyond their
        // common bias the residuals are the stations' own, and only the bias is corrected.
        let bias = mean * mean;
        return Some(Params {
            length_m: MIN_LENGTH_M,
            support_m: support(MIN_LENGTH_M, config),
            model_variance: bias + MIN_VARIANCE,
            bias_variance: bias,
            bias_support_m: config.max_radius_m,
            obs_variance: variance.max(MIN_VARIANCE),
            fitted: true,
        });
    };
    let correlated = correlated.min(variance * (1.0 - MIN_OBS_SHARE));
    let obs = (variance - correlated).max(MIN_VARIANCE);
    let model = (mean_square - obs).max(MIN_VARIANCE);
    Some(Params {
        length_m: length,
        support_m: support(length, config),
        model_variance: model,
        bias_variance: (mean * mean).min(model),
        bias_support_m: config.max_radius_m,
        obs_variance: obs,
        fitted: true,
    })
}

#[cfg(test)]
mod tests {
    use aq_core::Position;
    use proptest::prelude::*;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64;

    use super::*;
    use aq_core::position::unit_vector;

    #[test]
    fn gaspari_cohn_is_one_at_zero_zero_from_twice_its_half_width_and_continuous() {
        assert!((gaspari_cohn(0.0, 10.0) - 1.0).abs() < 1e-12);
        assert_eq!(gaspari_cohn(20.0, 10.0), 0.0);
        // Continuous where the two pieces meet, and at the support.
        assert!((gaspari_cohn(10.0 - 1e-9, 10.0) - gaspari_cohn(10.0 + 1e-9, 10.0)).abs() < 1e-6);
        assert!(gaspari_cohn(20.0 - 1e-6, 10.0).abs() < 1e-9);
        // Where the two pieces meet: -1/4 + 1/2 + 5/8 - 5/3 + 1 = 5/24.
        assert!((gaspari_cohn(10.0, 10.0) - 0.208_333).abs() < 1e-5);
        // Just short of the support, where rounding left the polynomial at -1e-15.
        assert_eq!(gaspari_cohn(149_996.674_443_110_07, 75_000.0), 0.0);
    }

    proptest! {
        #[test]
        fn correlation_falls_with_distance_from_one_to_zero(
            length in 1_000.0f64..100_000.0,
            a in 0.0f64..300_000.0,
            b in 0.0f64..300_000.0,
        ) {
            let config = FusionConfig::default();
            let s = support(length, &config);
            let (near, far) = if a <= b { (a, b) } else { (b, a) };
            let (cn, cf) = (correlation(near, length, s), correlation(far, length, s));
            prop_assert!((0.0..=1.0).contains(&cn) && (0.0..=1.0).contains(&cf));
            prop_assert!(cf <= cn + 1e-12, "{near} {cn} {far} {cf}");
            if far >= config.max_radius_m {
                prop_assert_eq!(cf, 0.0);
            }
        }
    }

    #[test]
    fn a_common_bias_correlates_over_the_whole_radius() {
        let config = FusionConfig::default();
        let p = Params {
            bias_variance: 9.0,
            model_variance: 25.0,
            support_m: 100_000.0,
            ..Params::defaults(30.0, &config)
        };
        assert!((p.correlation(0.0) - 1.0).abs() < 1e-12);
        // Beyond the local part's reach, the bias part alone.
        let far = 140_000.0;
        let expected = 9.0 * gaspari_cohn(far, 75_000.0) / 25.0;
        assert!((p.correlation(far) - expected).abs() < 1e-12);
        assert_eq!(p.correlation(150_000.0), 0.0);
        assert_eq!(p.reach_m(), 150_000.0);
    }

    /// Residuals drawn from a known model error field (correlation length `length`, variance
    /// `model`) plus station noise of variance `obs`, at stations scattered over 300 km.
    fn synthetic(length: f64, model: f64, obs: f64, seed: u64) -> Vec<([f64; 3], f64)> {
        let mut rng = Pcg64::seed_from_u64(seed);
        let n = 150;
        let places: Vec<[f64; 3]> = (0..n)
            .map(|_| {
                let lon = rng.random_range(10.0..14.0);
                let lat = rng.random_range(50.0..53.0);
                unit_vector(Position::new(lon, lat).unwrap())
            })
            .collect();
        // A Gaussian field with exponential covariance: its Cholesky factor times white noise.
        let cov = nalgebra::DMatrix::from_fn(n, n, |i, j| {
            model * (-chord_distance_m(places[i], places[j]) / length).exp()
        });
        let l = cov.cholesky().unwrap().unpack();
        let normal = |rng: &mut Pcg64| {
            // Box–Muller.
            let (u, v): (f64, f64) = (rng.random_range(1e-12..1.0), rng.random_range(0.0..1.0));
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let white = nalgebra::DVector::from_fn(n, |_, _| normal(&mut rng));
        let field = l * white;
        places
            .iter()
            .zip(field.iter())
            .map(|(&p, &f)| (p, f + obs.sqrt() * normal(&mut rng)))
            .collect()
    }

    #[test]
    fn the_fit_recovers_the_error_statistics_of_a_known_field() {
        let config = FusionConfig::default();
        // Averaged over several draws: one field of 150 stations is a small sample.
        let (mut lengths, mut models, mut obs) = (Vec::new(), Vec::new(), Vec::new());
        for seed in 0..8 {
            let p = fit(&synthetic(30_000.0, 25.0, 4.0, seed), &config).unwrap();
            assert!(p.fitted);
            lengths.push(p.length_m);
            models.push(p.model_variance);
            obs.push(p.obs_variance);
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (l, m, o) = (mean(&lengths), mean(&models), mean(&obs));
        assert!((15_000.0..60_000.0).contains(&l), "length {l}");
        assert!((12.0..40.0).contains(&m), "model variance {m}");
        assert!(o < m, "observation variance {o} against {m}");
    }

    #[test]
    fn residuals_that_do_not_correlate_correct_their_common_bias_alone() {
        let config = FusionConfig::default();
        // Independent noise about a bias of 4, at stations over 300 km.
        let mut noise = synthetic(30_000.0, 1e-9, 9.0, 3);
        for r in &mut noise {
            r.1 += 4.0;
        }
        let p = fit(&noise, &config).unwrap();
        assert!(p.bias_variance > 10.0, "{p:?}");
        assert!(p.model_variance - p.bias_variance < 3.0, "{p:?}");
        assert!(p.obs_variance > p.model_variance - p.bias_variance, "{p:?}");
    }

    #[test]
    fn too_few_stations_are_not_fitted() {
        let config = FusionConfig::default();
        let few = synthetic(30_000.0, 25.0, 4.0, 1)[..5].to_vec();
        assert_eq!(fit(&few, &config), None);
        let defaults = Params::defaults(30.0, &config);
        assert!(!defaults.fitted);
        assert!((defaults.model_variance - 20.0).abs() < 1e-9);
        assert!((defaults.obs_variance - 10.0).abs() < 1e-9);
    }
}
