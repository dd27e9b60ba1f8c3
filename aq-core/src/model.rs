//! The port [`AirModel`]: a model of the air that gives every quantity at any place and time,
//! such as the synthetic demo field. A grid adapter lays such a model's values on its nodes,
//! computed once per block of nodes and hours, so that it is sampled like any stored forecast.

use chrono::{DateTime, Utc};

use crate::plant::{N_PLANTS, Plant};
use crate::pollen::PollenType;
use crate::pollutant::Concentrations;
use crate::position::Position;
use crate::source::SourceInfo;

/// Every quantity a model gives at one place and time.
///
/// ```
/// use aq_core::{Concentration, Concentrations, ModelHour, Plant, Pollutant, PollenType};
///
/// // Birch 100 and alder 20 of the tree pollen; grass counted as a type alone.
/// let hour = ModelHour {
///     concentrations: Concentrations::default()
///         .with(Pollutant::Pm25, Concentration::new(8.5).unwrap()),
///     pollen: [Some(120.0), Some(4.0), None],
///     plants: [Some(20.0), Some(100.0), None, None, None, None],
/// };
/// assert_eq!(hour.pollen(PollenType::Tree), Some(120.0));
/// assert_eq!(hour.pollen(PollenType::Weed), None);
/// assert_eq!(hour.plant(Plant::Birch), Some(100.0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ModelHour {
    /// The pollutants, µg/m³.
    pub concentrations: Concentrations,
    /// Grains/m³ of each pollen type in [`PollenType::ALL`] order; `None` where the model has
    /// no count.
    pub pollen: [Option<f64>; 3],
    /// Grains/m³ of each plant in [`Plant::ALL`] order, adding up to its type's count; all
    /// `None` for a model that counts types alone.
    pub plants: [Option<f64>; N_PLANTS],
}

impl ModelHour {
    /// Grains/m³ of `kind`.
    #[must_use]
    pub fn pollen(&self, kind: PollenType) -> Option<f64> {
        let k = PollenType::ALL.iter().position(|&t| t == kind)?;
        self.pollen[k]
    }

    /// Grains/m³ of `plant`.
    #[must_use]
    pub fn plant(&self, plant: Plant) -> Option<f64> {
        self.plants[plant.index()]
    }
}

/// A model of the air evaluated on demand: deterministic, so that the same place and time
/// always give the same values, and cheap enough to evaluate on every node of a grid block.
///
/// ```
/// use aq_core::{AirModel, Concentration, Concentrations, ModelHour, Pollutant, Position, SourceInfo};
/// use chrono::{DateTime, Utc};
///
/// /// Cleaner towards the poles: PM2.5 of 30 µg/m³ at the equator, 0 at the poles.
/// struct Gradient;
///
/// impl AirModel for Gradient {
///     fn info(&self) -> SourceInfo {
///         SourceInfo::demo("gradient")
///     }
///     fn hours(&self, position: Position, times: &[DateTime<Utc>]) -> Vec<ModelHour> {
///         let pm25 = Concentration::new(30.0 * (1.0 - position.lat().abs() / 90.0)).unwrap();
///         let hour = ModelHour {
///             concentrations: Concentrations::default().with(Pollutant::Pm25, pm25),
///             pollen: [None; 3],
///             plants: [None; 6],
///         };
///         vec![hour; times.len()]
///     }
/// }
///
/// let at = Gradient.hours(Position::new(0.0, 45.0).unwrap(), &[Utc::now()]);
/// assert_eq!(at[0].concentrations.get(Pollutant::Pm25).unwrap().ug_m3(), 15.0);
/// ```
pub trait AirModel: Send + Sync {
    /// What the model is, for the answers drawn from it.
    fn info(&self) -> SourceInfo;

    /// Every quantity at `position` at each of `times`, in their order: one place at many
    /// hours at once, so that what depends on the place alone is worked out once.
    fn hours(&self, position: Position, times: &[DateTime<Utc>]) -> Vec<ModelHour>;
}
