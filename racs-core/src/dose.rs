//! What the inhaled dose assumes about the traveller: how fast they breathe, and how the air they
//! breathe compares with the outdoor air along the route, by travel mode.
//!
//! Every default below comes from a source, and `docs/scoring.md` ("The inhaled dose") gives
//! each with its range. The absolute rates are the US EPA *Exposure Factors Handbook* (2011,
//! chapter 6, Table 6-2, adults' short-term inhalation rates by activity level); the ratios
//! between modes follow the studies that measured travellers' breathing on the same routes:
//! Int Panis et al. (*Atmospheric Environment* 44, 2010), cyclists 4.3 times car passengers;
//! Zuurbier et al. (*Environmental Health* 8:48, 2009), cyclists 2.1 times car and 2.0 times
//! bus passengers. The in-vehicle factors follow the same on-route studies and the
//! meta-analysis of Cepeda et al. (*Lancet Public Health* 2, 2017), which found car and bus
//! travellers' PM concentrations close to those of cyclists and pedestrians on the same roads.

use serde::{Deserialize, Serialize};

use crate::units::TravelMode;

/// Minute ventilation by travel mode, in m³/min, of an adult.
///
/// ```
/// use racs_core::{TravelMode, Ventilation};
///
/// let v = Ventilation::default();
/// // Cycling breathes 4.3 times what sitting in a car does (Int Panis et al., 2010).
/// let ratio = v.rate(Some(TravelMode::Cycle)) / v.rate(Some(TravelMode::Passenger));
/// assert!((ratio - 4.3).abs() < 0.01, "{ratio}");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ventilation {
    /// Walking: the EPA's moderate-intensity mean for adults 21 to 31 (0.026 to 0.029 over the
    /// adult age groups to 61). Default 0.026.
    pub walk_m3_per_min: f64,
    /// Cycling in traffic: between the EPA's moderate (0.026 to 0.029) and high-intensity
    /// (0.049 to 0.053) means; measured on the road at 0.046 ± 0.015 (Cole et al.,
    /// *Environmental Health* 17:78, 2018). Default 0.043.
    pub cycle_m3_per_min: f64,
    /// Driving a car: the EPA's light-intensity means for adults (0.012 to 0.013). Default
    /// 0.013.
    pub drive_m3_per_min: f64,
    /// A passenger of a car, bus or train: the cycling rate over the 4.3 that Int Panis et al.
    /// measured between cyclists and car passengers on the same routes (Zuurbier et al.'s 2.1,
    /// and 2.0 for bus passengers, give up to 0.021). Above the EPA's sedentary means (0.0042 to
    /// 0.0050), which were measured at rest rather than on the move. Default 0.010.
    pub passenger_m3_per_min: f64,
}

impl Default for Ventilation {
    fn default() -> Self {
        Self {
            walk_m3_per_min: 0.026,
            cycle_m3_per_min: 0.043,
            drive_m3_per_min: 0.013,
            passenger_m3_per_min: 0.010,
        }
    }
}

impl Ventilation {
    /// The rate for `mode`; walking when no mode is named, by the route or the request.
    #[must_use]
    pub fn rate(&self, mode: Option<TravelMode>) -> f64 {
        match mode {
            None | Some(TravelMode::Walk) => self.walk_m3_per_min,
            Some(TravelMode::Cycle) => self.cycle_m3_per_min,
            Some(TravelMode::Drive) => self.drive_m3_per_min,
            Some(TravelMode::Passenger) => self.passenger_m3_per_min,
        }
    }
}

/// PM2.5 inside a vehicle as a multiple of the outdoor PM2.5 along its route, by travel mode.
/// Walkers and cyclists breathe the outdoor air itself (factor 1, not configurable).
///
/// The on-route studies found in-vehicle PM2.5 close to the road's: Int Panis et al. (2010)
/// report bicycle-to-car ratios of PM "close to 1 and rarely significant"; Cepeda et al. (2017)
/// pooled car travellers at a median 1.22 times active travellers (interquartile range 0.90 to
/// 1.76, all pollutants) and bus travellers at 1.0 (0.79 to 1.41). Closed windows with the fan
/// on recirculation lower PM2.5 inside a car well below the road's, but a route's mode does not
/// say how its vehicle is ventilated; a service that knows can set the factor.
///
/// ```
/// use racs_core::{InVehicleAir, TravelMode};
///
/// let air = InVehicleAir::default();
/// assert_eq!(air.pm25_factor(Some(TravelMode::Cycle)), 1.0);
/// assert_eq!(air.pm25_factor(Some(TravelMode::Drive)), 1.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InVehicleAir {
    /// A car's driver. Default 1.0.
    pub drive_pm25_factor: f64,
    /// A passenger of a car, bus or train: the sources give car and bus travellers alike
    /// (Cepeda et al.'s medians 1.22 and 1.0 overlap), so one factor serves both. Default 1.0.
    pub passenger_pm25_factor: f64,
}

impl Default for InVehicleAir {
    fn default() -> Self {
        Self {
            drive_pm25_factor: 1.0,
            passenger_pm25_factor: 1.0,
        }
    }
}

impl InVehicleAir {
    /// The factor for `mode`: 1 for walking and cycling (outdoor air), or when no mode is named
    /// (walking).
    #[must_use]
    pub fn pm25_factor(&self, mode: Option<TravelMode>) -> f64 {
        match mode {
            None | Some(TravelMode::Walk | TravelMode::Cycle) => 1.0,
            Some(TravelMode::Drive) => self.drive_pm25_factor,
            Some(TravelMode::Passenger) => self.passenger_pm25_factor,
        }
    }
}

/// What a route's dose assumes: the mode, its breathing rate and its in-vehicle factor. The
/// response's recommendation text and the route's `details` say them.
///
/// ```
/// use racs_core::{DoseAssumptions, InVehicleAir, TravelMode, Ventilation};
///
/// let a = DoseAssumptions::of(None, &Ventilation::default(), &InVehicleAir::default());
/// assert_eq!(a.travel_mode, TravelMode::Walk);
/// // 10 µg/m³ for 20 minutes on foot: 10 × 0.026 × 20 = 5.2 µg.
/// assert!((a.dose_ug(10.0, 20.0) - 5.2).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DoseAssumptions {
    /// The traveller's mode (walking when neither the route nor the request names one).
    pub travel_mode: TravelMode,
    /// The breathing rate, m³/min.
    pub breathing_m3_per_min: f64,
    /// The air breathed as a multiple of the outdoor PM2.5 along the route.
    pub pm25_factor: f64,
}

impl DoseAssumptions {
    /// The assumptions for `mode` under the configured rates and factors.
    #[must_use]
    pub fn of(mode: Option<TravelMode>, rates: &Ventilation, air: &InVehicleAir) -> Self {
        Self {
            travel_mode: mode.unwrap_or(TravelMode::Walk),
            breathing_m3_per_min: rates.rate(mode),
            pm25_factor: air.pm25_factor(mode),
        }
    }

    /// The µg of PM2.5 breathed in over `minutes` in outdoor air of `outdoor_ug_m3` on average.
    #[must_use]
    pub fn dose_ug(&self, outdoor_ug_m3: f64, minutes: f64) -> f64 {
        outdoor_ug_m3 * self.pm25_factor * self.breathing_m3_per_min * minutes
    }

    /// What the traveller is doing, for people: "walking", "cycling", "driving", or "riding as
    /// a passenger".
    #[must_use]
    pub fn activity(&self) -> &'static str {
        match self.travel_mode {
            TravelMode::Walk => "walking",
            TravelMode::Cycle => "cycling",
            TravelMode::Drive => "driving",
            TravelMode::Passenger => "riding as a passenger",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_breathing_rate_is_the_documented_number() {
        let v = Ventilation::default();
        assert_eq!(v.rate(Some(TravelMode::Walk)), 0.026);
        assert_eq!(v.rate(Some(TravelMode::Cycle)), 0.043);
        assert_eq!(v.rate(Some(TravelMode::Drive)), 0.013);
        assert_eq!(v.rate(Some(TravelMode::Passenger)), 0.010);
        assert_eq!(v.rate(None), 0.026, "walking by default");
    }

    #[test]
    fn the_rates_keep_the_ratios_the_on_route_studies_measured() {
        let v = Ventilation::default();
        let cycle = v.rate(Some(TravelMode::Cycle));
        let passenger = v.rate(Some(TravelMode::Passenger));
        // Int Panis et al. (2010): 4.3; Zuurbier et al. (2009): 2.1. The default is the first,
        // and never outside the two.
        assert!((cycle / passenger - 4.3).abs() < 0.01);
        assert!((2.1..=4.3 + 0.01).contains(&(cycle / passenger)));
        // Every rate between the EPA's adult sedentary and high-intensity means.
        for mode in TravelMode::ALL {
            assert!((0.0042..=0.053).contains(&v.rate(Some(mode))), "{mode}");
        }
        // The EPA's activity levels order them: passenger < drive < walk < cycle.
        assert!(passenger < v.rate(Some(TravelMode::Drive)));
        assert!(v.rate(Some(TravelMode::Drive)) < v.rate(Some(TravelMode::Walk)));
        assert!(v.rate(Some(TravelMode::Walk)) < cycle);
    }

    #[test]
    fn each_in_vehicle_factor_is_the_documented_number() {
        let air = InVehicleAir::default();
        for mode in TravelMode::ALL {
            assert_eq!(air.pm25_factor(Some(mode)), 1.0, "{mode}");
        }
        let closed = InVehicleAir {
            drive_pm25_factor: 0.4,
            ..InVehicleAir::default()
        };
        assert_eq!(closed.pm25_factor(Some(TravelMode::Drive)), 0.4);
        assert_eq!(
            closed.pm25_factor(Some(TravelMode::Cycle)),
            1.0,
            "outdoor air"
        );
    }

    #[test]
    fn a_cycle_trip_and_a_car_trip_through_the_same_air_compare_as_the_sources_say() {
        // 20 minutes as a car passenger, 25 minutes cycling, both through 12 µg/m³ of PM2.5.
        let (rates, air) = (Ventilation::default(), InVehicleAir::default());
        let car =
            DoseAssumptions::of(Some(TravelMode::Passenger), &rates, &air).dose_ug(12.0, 20.0);
        let bike = DoseAssumptions::of(Some(TravelMode::Cycle), &rates, &air).dose_ug(12.0, 25.0);
        // Breathing 4.3 times as much (Int Panis et al.) for 1.25 times as long, in air that the
        // on-route studies found alike: 5.4 times the dose. The earlier rates made it 11.9.
        let ratio = bike / car;
        assert!((ratio - 4.3 * 1.25).abs() < 0.02, "{ratio}");
        assert!(
            (car - 2.4).abs() < 1e-9 && (bike - 12.9).abs() < 1e-9,
            "{car} {bike}"
        );
    }
}
