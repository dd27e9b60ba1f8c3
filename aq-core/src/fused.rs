//! What a fused source says beside its values: how sure it is of each pollutant, and how many
//! stations (and how fresh a reading) stand behind an hour at a place. Read by lookups through
//! [`ForecastSource::hourly_fusion`](crate::ForecastSource::hourly_fusion); sources that fuse
//! nothing answer `None`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::pollutant::Pollutant;

/// One error estimate per pollutant: the standard deviation, in µg/m³, of the difference
/// between the value given and the true hourly mean; any pollutant may be missing.
///
/// ```
/// use aq_core::{Pollutant, Uncertainties};
///
/// let u = Uncertainties::default().with(Pollutant::Pm25, 3.2);
/// assert_eq!(u.get(Pollutant::Pm25), Some(3.2));
/// assert_eq!(u.get(Pollutant::No2), None);
/// // Negative or non-finite estimates are not kept.
/// assert_eq!(u.with(Pollutant::O3, f64::NAN).get(Pollutant::O3), None);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Uncertainties {
    values: [Option<f64>; 6],
}

fn slot(p: Pollutant) -> usize {
    match p {
        Pollutant::Pm25 => 0,
        Pollutant::Pm10 => 1,
        Pollutant::No2 => 2,
        Pollutant::O3 => 3,
        Pollutant::So2 => 4,
        Pollutant::Co => 5,
    }
}

impl Uncertainties {
    /// The estimate for `p`, if there is one.
    #[must_use]
    pub fn get(&self, p: Pollutant) -> Option<f64> {
        self.values[slot(p)]
    }

    /// Records the estimate for `p` (µg/m³, one standard deviation); a negative or non-finite
    /// value clears it.
    pub fn set(&mut self, p: Pollutant, sd_ug_m3: f64) {
        self.values[slot(p)] = (sd_ug_m3.is_finite() && sd_ug_m3 >= 0.0).then_some(sd_ug_m3);
    }

    /// Builder form of [`Uncertainties::set`].
    #[must_use]
    pub fn with(mut self, p: Pollutant, sd_ug_m3: f64) -> Self {
        self.set(p, sd_ug_m3);
        self
    }

    /// The pollutants with an estimate, in [`Pollutant::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Pollutant, f64)> + '_ {
        Pollutant::ALL
            .iter()
            .filter_map(|&p| self.get(p).map(|v| (p, v)))
    }
}

/// One fused hour at one place.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct FusedHour {
    /// The error estimate of each pollutant the source gives.
    pub uncertainty: Uncertainties,
    /// How many stations corrected the model here this hour (0: the model's value stands).
    pub stations_used: u32,
    /// When the newest reading among them was taken.
    pub newest_observation: Option<DateTime<Utc>>,
    /// The error estimate of the hour's CI, in CI points: how far the CI of the hour's values,
    /// each raised by its standard deviation, lies below the hour's CI (the CI falls as
    /// concentrations rise). `None` where no pollutant has an estimate.
    #[serde(default)]
    pub ci_uncertainty: Option<f64>,
}

/// A place's fused hours, hour for hour beside [`HourlyCi`](crate::HourlyCi): `values[h]` is
/// the hour `h` hours after `start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HourlyFusion {
    /// The instant of `values[0]`.
    pub start: DateTime<Utc>,
    /// One entry per hour; `None` for an hour the source has no value for.
    pub values: Vec<Option<FusedHour>>,
}
