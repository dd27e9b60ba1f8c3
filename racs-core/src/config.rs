//! The tunable numbers of route scoring and of request parsing, each with the default that
//! `docs/scoring.md` and `docs/api.md` document.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::dose::{DoseAssumptions, InVehicleAir, Ventilation};
use crate::units::TravelMode;

/// How routes are scored. Every field is a default of the scoring design, named with its unit.
///
/// Deserialises from a partial table (missing fields keep their defaults), so a server's
/// configuration file needs to name only what it changes.
///
/// ```
/// use racs_core::RacsConfig;
///
/// let config = RacsConfig::default();
/// assert_eq!(config.max_segment_m, 2000.0);
/// assert_eq!(config.route_deadline().as_secs(), 2);
/// assert!(config.validate().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RacsConfig {
    /// The longest allowed straight segment between two consecutive vertices, in metres; a
    /// longer one makes the route fail with error 102. Default 2,000.
    pub max_segment_m: f64,
    /// The longest time between two samples, in seconds. Default 30.
    pub sample_interval_s: f64,
    /// The longest distance between two samples along the route, in metres. Default 100.
    pub sample_spacing_m: f64,
    /// The fewest samples a route gets, however short. Default 10.
    pub min_samples: usize,
    /// A safety bound on the samples of one route, so that a very long route cannot exhaust
    /// memory or the source: beyond it the samples spread out evenly (at the defaults only
    /// routes longer than 1,000 km or 83 hours reach it). Default 10,000.
    pub max_samples: usize,
    /// The share of the route's time that covered samples must carry, in [0, 1]; less makes the
    /// route fail with error 100. Default 0.75.
    pub min_coverage: f64,
    /// Each route's time budget, source call included, in milliseconds; when it passes the route
    /// fails with error 101 and the other routes go on. Default 2,000.
    pub route_deadline_ms: u64,
    /// Breathing rates of the inhaled dose by travel mode, in m³/min.
    pub ventilation: Ventilation,
    /// In-vehicle PM2.5 as a multiple of the outdoor PM2.5, by travel mode, for the dose.
    pub in_vehicle: InVehicleAir,
    /// The least RACS gain, in points, for which a later departure is recommended over leaving
    /// at `departureTime`. Default 5: a RACS is a rounded mean of modelled or interpolated
    /// values, and a gain of a point or two is within what the next forecast run changes.
    pub min_departure_gain: u8,
    /// Adds the optional `details` member (length in `lengthUnits`, coverage, dose) to each
    /// `racss` entry. Default false: the response carries exactly the spec's members.
    pub include_details: bool,
}

impl Default for RacsConfig {
    fn default() -> Self {
        Self {
            max_segment_m: 2000.0,
            sample_interval_s: 30.0,
            sample_spacing_m: 100.0,
            min_samples: 10,
            max_samples: 10_000,
            min_coverage: 0.75,
            route_deadline_ms: 2000,
            ventilation: Ventilation::default(),
            in_vehicle: InVehicleAir::default(),
            min_departure_gain: 5,
            include_details: false,
        }
    }
}

/// A configuration value that cannot work, named by its field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("racs configuration: {field} {problem}")]
pub struct ConfigError {
    /// The field, as named in the configuration file.
    pub field: &'static str,
    /// What is wrong and what would work.
    pub problem: String,
}

fn positive(field: &'static str, v: f64) -> Result<(), ConfigError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ConfigError {
            field,
            problem: format!("is {v}; it must be a finite number above 0"),
        })
    }
}

impl RacsConfig {
    /// What the dose of a route travelled by `mode` assumes (walking when `None`).
    #[must_use]
    pub fn dose_assumptions(&self, mode: Option<TravelMode>) -> DoseAssumptions {
        DoseAssumptions::of(mode, &self.ventilation, &self.in_vehicle)
    }

    /// The per-route deadline as a duration.
    #[must_use]
    pub fn route_deadline(&self) -> Duration {
        Duration::from_millis(self.route_deadline_ms)
    }

    /// Checks that every value can work, for a server to refuse a bad configuration at start.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first field that cannot work.
    pub fn validate(&self) -> Result<(), ConfigError> {
        positive("max_segment_m", self.max_segment_m)?;
        positive("sample_interval_s", self.sample_interval_s)?;
        positive("sample_spacing_m", self.sample_spacing_m)?;
        if self.min_samples < 2 {
            return Err(ConfigError {
                field: "min_samples",
                problem: format!("is {}; it must be at least 2", self.min_samples),
            });
        }
        if self.max_samples < self.min_samples {
            return Err(ConfigError {
                field: "max_samples",
                problem: format!(
                    "is {}; it must be at least min_samples ({})",
                    self.max_samples, self.min_samples
                ),
            });
        }
        if !(0.0..=1.0).contains(&self.min_coverage) {
            return Err(ConfigError {
                field: "min_coverage",
                problem: format!("is {}; it must be in [0, 1]", self.min_coverage),
            });
        }
        if self.route_deadline_ms == 0 {
            return Err(ConfigError {
                field: "route_deadline_ms",
                problem: "is 0; it must be at least 1".to_owned(),
            });
        }
        positive(
            "ventilation.walk_m3_per_min",
            self.ventilation.walk_m3_per_min,
        )?;
        positive(
            "ventilation.cycle_m3_per_min",
            self.ventilation.cycle_m3_per_min,
        )?;
        positive(
            "ventilation.passenger_m3_per_min",
            self.ventilation.passenger_m3_per_min,
        )?;
        if self.min_departure_gain > 100 {
            return Err(ConfigError {
                field: "min_departure_gain",
                problem: format!(
                    "is {}; it must be at most 100, the whole RACS scale",
                    self.min_departure_gain
                ),
            });
        }
        positive(
            "ventilation.drive_m3_per_min",
            self.ventilation.drive_m3_per_min,
        )?;
        positive(
            "in_vehicle.drive_pm25_factor",
            self.in_vehicle.drive_pm25_factor,
        )?;
        positive(
            "in_vehicle.passenger_pm25_factor",
            self.in_vehicle.passenger_pm25_factor,
        )?;
        Ok(())
    }
}

/// Limits on what one request may hold, checked while parsing it. Exceeding a count limit is a
/// [`RequestError::TooLarge`](crate::RequestError::TooLarge) (HTTP 413); the others are
/// ordinary invalid input (HTTP 400).
///
/// ```
/// use racs_core::Limits;
///
/// let limits = Limits { max_routes: 5, ..Limits::default() };
/// assert_eq!(limits.max_vertices_per_route, 20_000);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Most routes in one request. Default 50.
    pub max_routes: usize,
    /// Most vertices in one route's polyline. Default 20,000.
    pub max_vertices_per_route: usize,
    /// Longest route id, in bytes of UTF-8. Default 256.
    pub max_route_id_bytes: usize,
    /// Longest `routeDuration`, in seconds after unit conversion. Default 604,800 (7 days).
    pub max_route_duration_s: f64,
    /// Most extra scorings a departure window may ask for: routes × departures after
    /// `departureTime` (`departureWindowMinutes / departureStepMinutes`, rounded down).
    /// Default 1,000 (20 routes over 12 hours in 15-minute steps is 960).
    pub max_departure_scorings: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_routes: 50,
            max_vertices_per_route: 20_000,
            max_route_id_bytes: 256,
            max_route_duration_s: 604_800.0,
            max_departure_scorings: 1000,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_ones() {
        let c = RacsConfig::default();
        assert_eq!(c.max_segment_m, 2000.0);
        assert_eq!(c.sample_interval_s, 30.0);
        assert_eq!(c.sample_spacing_m, 100.0);
        assert_eq!(c.min_samples, 10);
        assert_eq!(c.min_coverage, 0.75);
        assert_eq!(c.route_deadline(), Duration::from_secs(2));
        assert_eq!(c.ventilation, Ventilation::default());
        assert_eq!(c.in_vehicle, InVehicleAir::default());
        assert_eq!(c.min_departure_gain, 5);
        let l = Limits::default();
        assert_eq!((l.max_routes, l.max_vertices_per_route), (50, 20_000));
    }

    #[test]
    fn partial_tables_keep_defaults_and_unknown_fields_are_refused() {
        let c: RacsConfig = serde_json::from_str(r#"{"min_coverage": 0.5}"#).unwrap();
        assert_eq!(c.min_coverage, 0.5);
        assert_eq!(c.max_segment_m, 2000.0);
        assert!(serde_json::from_str::<RacsConfig>(r#"{"min_coverag": 0.5}"#).is_err());
    }

    #[test]
    fn validate_names_the_bad_field() {
        let bad = RacsConfig {
            min_coverage: 1.5,
            ..RacsConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "min_coverage");
        let bad = RacsConfig {
            sample_spacing_m: 0.0,
            ..RacsConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "sample_spacing_m");
        let bad = RacsConfig {
            max_samples: 3,
            ..RacsConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "max_samples");
        let bad = RacsConfig {
            in_vehicle: InVehicleAir {
                passenger_pm25_factor: -1.0,
                ..InVehicleAir::default()
            },
            ..RacsConfig::default()
        };
        assert_eq!(
            bad.validate().unwrap_err().field,
            "in_vehicle.passenger_pm25_factor"
        );
    }
}
