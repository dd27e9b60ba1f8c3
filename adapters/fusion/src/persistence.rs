//! How long a station correction holds ahead of the newest hour analysed: its e-folding time,
//! fitted to how the stations' residuals (reading minus model) persisted over the hours read.
//!
//! For a lag of `k` hours, the persistence `φ(k) = Σ r(t) r(t+k) / Σ r(t)²` over every station's
//! pairs of residuals `k` hours apart is the least-squares slope of a residual on the one `k`
//! hours before it: 1 for a bias that stays, `exp(−k/τ)` for one that fades with e-folding time
//! `τ`, near 0 for noise. `τ` is fitted to `φ(1)` … `φ(MAX_LAG)` by least squares on
//! `ln φ(k) = −k/τ`, and kept within [`FusionConfig::relaxation_min_hours`] and
//! [`FusionConfig::relaxation_max_hours`]. With fewer than
//! [`FusionConfig::relaxation_min_pairs`] pairs one hour apart (a source with one reading per
//! station, a network that just started) the default [`FusionConfig::relaxation_hours`] holds.
//!
//! A fixed time made a model bias that the stations had shown for twelve hours fade to a third
//! within a day, and the fused forecast invented a trend that no data showed; fitted, a bias
//! that stays is carried, and a local event that passed fades as fast as it did.
//!
//! ```text
//! residuals 50, 50, 50 … (12 h)        φ(k) = 1          τ = relaxation_max_hours
//! residuals 50·exp(−t / 4 h)            φ(k) = exp(−k/4)  τ = 4 h
//! ```

use chrono::{DateTime, Utc};

use crate::config::FusionConfig;

/// The longest lag fitted, hours: within the 12 hours read, lags up to 6 keep at least half of
/// each series' pairs.
const MAX_LAG: i64 = 6;

/// Residuals below this mean square, (µg/m³)², carry no correction worth a fit.
const LEAST_MEAN_SQUARE: f64 = 1e-6;

/// The e-folding time of a pollutant's correction and whether it was fitted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Persistence {
    /// Hours.
    pub(crate) hours: f64,
    /// False when the default held for want of pairs.
    pub(crate) fitted: bool,
}

impl Persistence {
    /// The share of a correction that holds `ahead` hours after the hour analysed.
    pub(crate) fn relax(&self, ahead: f64) -> f64 {
        if ahead <= 0.0 {
            1.0
        } else {
            (-ahead / self.hours).exp()
        }
    }
}

/// The persistence of the residual series `histories` (each a station's residuals with their
/// times, in any order).
pub(crate) fn fit(histories: &[Vec<(DateTime<Utc>, f64)>], config: &FusionConfig) -> Persistence {
    let fallback = Persistence {
        hours: config.relaxation_hours,
        fitted: false,
    };
    // Per lag: Σ r(t) r(t+k), Σ r(t)², pairs.
    let mut sums = [(0.0f64, 0.0f64, 0usize); MAX_LAG as usize];
    for series in histories {
        for &(t, r) in series {
            for &(u, s) in series {
                let seconds = (u - t).num_seconds();
                // Readings on the hour, give or take ten minutes of a network's timestamps.
                let lag = (seconds + 1_800).div_euclid(3_600);
                if !(1..=MAX_LAG).contains(&lag) || (seconds - lag * 3_600).abs() > 600 {
                    continue;
                }
                let slot = &mut sums[usize::try_from(lag - 1).unwrap_or(0)];
                slot.0 += r * s;
                slot.1 += r * r;
                slot.2 += 1;
            }
        }
    }
    let (_, first_square, first_pairs) = sums[0];
    #[allow(clippy::cast_precision_loss)]
    let enough = first_pairs >= config.relaxation_min_pairs
        && first_square / first_pairs as f64 > LEAST_MEAN_SQUARE;
    if !enough {
        return fallback;
    }
    let (mut kk, mut k_log) = (0.0, 0.0);
    for (lag, &(product, square, pairs)) in (1..=MAX_LAG).zip(&sums) {
        if pairs == 0 || square <= 0.0 {
            continue;
        }
        #[allow(clippy::cast_precision_loss)]
        let k = lag as f64;
        // A residual that grew is a bias that stays; one that changed sign has not persisted
        // at all, as fast as the bounds allow.
        let shortest = (-k / config.relaxation_min_hours).exp();
        // `max` then `min` rather than `clamp`, which panics on bounds a caller's unchecked
        // settings could give.
        let phi = (product / square).max(shortest).min(1.0);
        kk += k * k;
        k_log += k * phi.ln();
    }
    let hours = if k_log < 0.0 {
        -kk / k_log
    } else {
        config.relaxation_max_hours
    };
    Persistence {
        hours: hours
            .min(config.relaxation_max_hours)
            .max(config.relaxation_min_hours),
        fitted: true,
    }
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone};

    use super::*;

    fn series(
        stations: usize,
        residual: impl Fn(usize, i64) -> f64,
    ) -> Vec<Vec<(DateTime<Utc>, f64)>> {
        let now = Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap();
        (0..stations)
            .map(|s| {
                (-12..=0)
                    .map(|h| (now + Duration::hours(h), residual(s, h)))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_bias_that_stays_holds_as_long_as_allowed() {
        let config = FusionConfig::default();
        let p = fit(&series(15, |s, _| 50.0 + s as f64), &config);
        assert!(p.fitted);
        assert_eq!(p.hours, config.relaxation_max_hours);
        assert!(p.relax(23.0) >= 0.75, "{}", p.relax(23.0));
    }

    #[test]
    fn a_fading_residual_gives_its_own_e_folding_time() {
        let config = FusionConfig::default();
        let p = fit(
            &series(10, |_, h| 50.0 * (-(h + 12) as f64 / 4.0).exp()),
            &config,
        );
        assert!(p.fitted);
        assert!((p.hours - 4.0).abs() < 1e-6, "{}", p.hours);
    }

    #[test]
    fn a_residual_that_keeps_changing_sign_fades_within_hours_and_few_pairs_keep_the_default() {
        let config = FusionConfig::default();
        let alternating = fit(
            &series(10, |_, h| if h % 2 == 0 { 5.0 } else { -5.0 }),
            &config,
        );
        assert!(alternating.fitted);
        assert!(alternating.hours < 12.0, "{}", alternating.hours);
        let one = fit(&series(1, |_, _| 50.0), &config);
        assert_eq!(
            one,
            Persistence {
                hours: config.relaxation_hours,
                fitted: false
            }
        );
        let latest_only: Vec<Vec<(DateTime<Utc>, f64)>> = series(40, |_, _| 50.0)
            .into_iter()
            .map(|s| s[12..].to_vec())
            .collect();
        assert!(!fit(&latest_only, &config).fitted);
    }
}
