//! Inverse-distance weighting (IDW): the value at a point as the weighted mean of nearby
//! stations' values, each weighted by `1 / distanceᵖ`.
//!
//! Defaults follow the US EPA's AirNow maps, which interpolate station readings with power 5 over
//! the 10 nearest stations. AirNow does not publish a search radius; 25 km is used here because
//! it is also the largest radius OpenAQ's point search accepts, and a station further away says
//! little about the air at street level.
//!
//! ```
//! use aq_sources::idw::inverse_distance_weighted;
//!
//! // Two stations, 1 km and 3 km away: with power 2 the nearer one weighs nine times as much.
//! let v = inverse_distance_weighted([(1_000.0, 10.0), (3_000.0, 20.0)], 2.0).unwrap();
//! assert!((v - 11.0).abs() < 1e-9);
//! // A station at the point itself decides alone.
//! assert_eq!(inverse_distance_weighted([(0.0, 7.0), (10.0, 50.0)], 5.0), Some(7.0));
//! assert_eq!(inverse_distance_weighted([], 5.0), None);
//! ```

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Stations closer than this (metres) count as being at the query point: their mean is the
/// answer, so a station exactly at the point reproduces its own reading instead of being
/// swamped by an infinite weight.
pub const COINCIDENT_M: f64 = 1.0;

/// How station values are interpolated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IdwConfig {
    /// The power `p` of the weights `1 / dᵖ`. Default 5 (AirNow). Higher values favour the
    /// nearest station more strongly. Must be in (0, 20].
    pub power: f64,
    /// At most this many stations, the nearest with a usable reading, are used per query.
    /// Default 10 (AirNow). At least 1.
    pub neighbours: usize,
    /// Stations further than this (metres, great-circle) are ignored; a query with none within
    /// it is not covered. Default 25,000 m.
    pub radius_m: f64,
}

impl Default for IdwConfig {
    fn default() -> Self {
        Self {
            power: 5.0,
            neighbours: 10,
            radius_m: 25_000.0,
        }
    }
}

/// An [`IdwConfig`] value out of range.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum IdwConfigError {
    /// The power is not in (0, 20].
    #[error("IDW power {0} must be in (0, 20]; AirNow uses 5")]
    Power(f64),
    /// The neighbour count is zero.
    #[error("IDW neighbour count must be at least 1; AirNow uses 10")]
    Neighbours,
    /// The radius is not a positive finite number of metres.
    #[error("IDW radius {0} m must be positive and finite, such as 25000")]
    Radius(f64),
}

impl IdwConfig {
    /// Checks every field; call it on configuration read from a file.
    ///
    /// # Errors
    /// [`IdwConfigError`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), IdwConfigError> {
        if !(self.power > 0.0 && self.power <= 20.0) {
            return Err(IdwConfigError::Power(self.power));
        }
        if self.neighbours == 0 {
            return Err(IdwConfigError::Neighbours);
        }
        if !(self.radius_m.is_finite() && self.radius_m > 0.0) {
            return Err(IdwConfigError::Radius(self.radius_m));
        }
        Ok(())
    }
}

/// Running IDW sums for one quantity; adding needs no allocation.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Accumulator {
    sum_w: f64,
    sum_wv: f64,
    coincident_sum: f64,
    coincident_n: u32,
}

impl Accumulator {
    pub(crate) fn add(&mut self, distance_m: f64, value: f64, power: f64) {
        self.add_weighted(distance_m, Self::weight(distance_m, power), value);
    }

    /// The weight of a station `distance_m` away: computed once per station however many
    /// quantities it has, since the power is the dearest step of the sum. Unused (and not
    /// computed) for a coincident station.
    pub(crate) fn weight(distance_m: f64, power: f64) -> f64 {
        if distance_m < COINCIDENT_M {
            f64::NAN
        } else if power.fract() == 0.0 && power.abs() <= 64.0 {
            // Whole powers (AirNow's 5 among them) by repeated multiplication: a few times
            // cheaper than `powf`, and within a few units in the last place of it.
            distance_m.powi(-(power as i32))
        } else {
            distance_m.powf(-power)
        }
    }

    /// [`Accumulator::add`] with the station's [`Accumulator::weight`] already known.
    pub(crate) fn add_weighted(&mut self, distance_m: f64, weight: f64, value: f64) {
        if distance_m < COINCIDENT_M {
            self.coincident_sum += value;
            self.coincident_n += 1;
        } else {
            self.sum_w += weight;
            self.sum_wv += weight * value;
        }
    }

    pub(crate) fn value(&self) -> Option<f64> {
        if self.coincident_n > 0 {
            Some(self.coincident_sum / f64::from(self.coincident_n))
        } else if self.sum_w > 0.0 {
            Some(self.sum_wv / self.sum_w)
        } else {
            None
        }
    }
}

/// The IDW estimate from `(distance in metres, value)` pairs with weights `1 / distance^power`;
/// `None` for no pairs. Pairs closer than [`COINCIDENT_M`] decide alone (their mean).
pub fn inverse_distance_weighted(
    samples: impl IntoIterator<Item = (f64, f64)>,
    power: f64,
) -> Option<f64> {
    let mut acc = Accumulator::default();
    for (d, v) in samples {
        acc.add(d, v, power);
    }
    acc.value()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_are_named() {
        assert_eq!(IdwConfig::default().validate(), Ok(()));
        let bad = IdwConfig {
            power: 0.0,
            ..IdwConfig::default()
        };
        assert!(bad.validate().unwrap_err().to_string().contains("power 0"));
        let bad = IdwConfig {
            neighbours: 0,
            ..IdwConfig::default()
        };
        assert_eq!(bad.validate(), Err(IdwConfigError::Neighbours));
        let bad = IdwConfig {
            radius_m: f64::NAN,
            ..IdwConfig::default()
        };
        assert!(matches!(bad.validate(), Err(IdwConfigError::Radius(_))));
    }

    proptest! {
        #[test]
        fn whole_powers_weigh_as_powf_does(distance in 1.0f64..50_000.0, power in 1u8..=20) {
            let power = f64::from(power);
            let exact = distance.powf(-power);
            let w = Accumulator::weight(distance, power);
            prop_assert!((w - exact).abs() <= exact * 1e-14, "{w} vs {exact}");
        }

        #[test]
        fn estimate_lies_between_min_and_max(
            samples in prop::collection::vec((0.0f64..50_000.0, 0.0f64..500.0), 1..20),
            power in 0.5f64..8.0,
        ) {
            let v = inverse_distance_weighted(samples.iter().copied(), power).unwrap();
            let min = samples.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
            let max = samples.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
            prop_assert!(v >= min - 1e-9 && v <= max + 1e-9, "{v} not in [{min}, {max}]");
        }

        #[test]
        fn a_sample_at_the_point_dominates(
            others in prop::collection::vec((1.0f64..50_000.0, 0.0f64..500.0), 0..20),
            own in 0.0f64..500.0,
        ) {
            let all = std::iter::once((0.0, own)).chain(others.iter().copied());
            prop_assert_eq!(inverse_distance_weighted(all, 5.0), Some(own));
        }
    }
}
