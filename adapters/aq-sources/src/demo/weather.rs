//! The weather: smooth noise over the sphere, drifting with time, that makes air masses clean
//! or stagnant and vegetation lush or sparse.

use std::f64::consts::TAU;

use rand::RngExt;
use rand_pcg::Pcg64;

use aq_core::position::{EARTH_RADIUS_M, dot};

/// Waves per channel: enough for patterns that do not look periodic.
const WAVES: usize = 5;

/// Drift speed of the pattern, radians of arc per second (about 500 km a day).
const DRIFT_RAD_PER_S: f64 = 500_000.0 / EARTH_RADIUS_M / 86_400.0;

/// The independent noise channels, each a pattern of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Channel {
    /// Particulates, and whether the air is stagnant.
    Particulates,
    /// Nitrogen dioxide.
    No2,
    /// Sulphur dioxide, and the coarse share of particulates.
    So2,
    /// Vegetation, behind pollen.
    Vegetation,
}

impl Channel {
    const ALL: [Channel; 4] = [
        Channel::Particulates,
        Channel::No2,
        Channel::So2,
        Channel::Vegetation,
    ];
}

/// A plane wave on the unit sphere: `amp · sin(freq · (dir · v) + phase)`.
#[derive(Debug, Clone, Copy)]
struct Wave {
    dir: [f64; 3],
    freq: f64,
    phase: f64,
    amp: f64,
}

/// Sums of sine waves over the unit sphere, one set per [`Channel`]: no seams at the
/// antimeridian or the poles, wavelengths of roughly 700 to 2,500 km.
#[derive(Debug, Clone)]
pub(super) struct Weather {
    channels: [[Wave; WAVES]; Channel::ALL.len()],
}

impl Weather {
    /// Draws the waves from `rng`.
    pub(super) fn new(rng: &mut Pcg64) -> Self {
        let channels = std::array::from_fn(|_| {
            std::array::from_fn(|_| Wave {
                // 16 to 57 waves around a great circle: wavelengths of 2,500 to 700 km.
                freq: rng.random_range(16.0..57.0),
                dir: random_direction(rng),
                phase: rng.random_range(0.0..TAU),
                amp: rng.random_range(0.5..1.0),
            })
        });
        Self { channels }
    }

    /// The noise of `channel` in [-1, 1] at `v` (a point on the unit sphere) and `t` (seconds
    /// since the epoch). Each wave moves along its direction at [`DRIFT_RAD_PER_S`].
    pub(super) fn noise(&self, channel: Channel, v: [f64; 3], t: f64) -> f64 {
        let waves = &self.channels[channel as usize];
        let sum: f64 = waves
            .iter()
            .map(|w| w.amp * (w.freq * (dot(w.dir, v) - DRIFT_RAD_PER_S * t) + w.phase).sin())
            .sum();
        sum / waves.iter().map(|w| w.amp).sum::<f64>()
    }
}

/// A direction uniform on the sphere: the height uniform in [-1, 1] (Archimedes' hat-box
/// theorem), the azimuth uniform around it.
fn random_direction(rng: &mut Pcg64) -> [f64; 3] {
    let z: f64 = rng.random_range(-1.0..=1.0);
    let azimuth: f64 = rng.random_range(0.0..TAU);
    let r = (1.0 - z * z).sqrt();
    [r * azimuth.cos(), r * azimuth.sin(), z]
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn noise_stays_within_its_range_and_drifts() {
        let weather = Weather::new(&mut Pcg64::seed_from_u64(3));
        let v = [0.6, 0.0, 0.8];
        for channel in Channel::ALL {
            let now = weather.noise(channel, v, 0.0);
            let week = weather.noise(channel, v, 7.0 * 86_400.0);
            assert!((-1.0..=1.0).contains(&now) && (-1.0..=1.0).contains(&week));
            assert_ne!(now, week, "{channel:?} stands still");
        }
    }

    #[test]
    fn directions_are_unit_vectors() {
        let mut rng = Pcg64::seed_from_u64(9);
        for _ in 0..100 {
            let d = random_direction(&mut rng);
            assert!((dot(d, d) - 1.0).abs() < 1e-12, "{d:?}");
        }
    }
}
