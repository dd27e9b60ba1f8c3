//! The nine quantities the sources carry, in one flat array so that hot loops need no allocation,
//! and the plants' pollen counts that the sources which tell plants apart keep beside them.

use aq_core::plant::N_PLANTS;
use aq_core::{
    CleanlinessIndex, Concentration, Concentrations, EaqiBands, GrainThresholds, Plant,
    PollenCounts, PollenLevels, PollenType, Pollutant, RequiredPollutants,
};

/// Number of quantities: the six pollutants of [`Pollutant::ALL`], then tree, grass and weed
/// pollen (grains/m³).
pub(crate) const N_VARS: usize = 9;

/// Index of the first pollen quantity.
pub(crate) const POLLEN_START: usize = 6;

/// Concentrations in µg/m³ (indices 0..6, [`Pollutant::ALL`] order) and pollen counts in
/// grains/m³ (indices 6..9, [`PollenType::ALL`] order); NaN marks a missing value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Values(pub(crate) [f64; N_VARS]);

impl Default for Values {
    fn default() -> Self {
        Self::MISSING
    }
}

impl Values {
    pub(crate) const MISSING: Values = Values([f64::NAN; N_VARS]);

    pub(crate) fn get(&self, i: usize) -> Option<f64> {
        let v = self.0[i];
        (!v.is_nan()).then_some(v)
    }

    pub(crate) fn pollutant_index(p: Pollutant) -> usize {
        match p {
            Pollutant::Pm25 => 0,
            Pollutant::Pm10 => 1,
            Pollutant::No2 => 2,
            Pollutant::O3 => 3,
            Pollutant::So2 => 4,
            Pollutant::Co => 5,
        }
    }

    pub(crate) fn pollen_index(kind: PollenType) -> usize {
        match kind {
            PollenType::Tree => POLLEN_START,
            PollenType::Grass => POLLEN_START + 1,
            PollenType::Weed => POLLEN_START + 2,
        }
    }

    /// Bit `k` set for each quantity `k` present.
    pub(crate) fn mask(&self) -> u16 {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.is_nan())
            .fold(0, |m, (k, _)| m | 1 << k)
    }

    pub(crate) fn concentrations(&self) -> Concentrations {
        let mut c = Concentrations::default();
        for p in Pollutant::ALL {
            if let Some(v) = self.get(Self::pollutant_index(p))
                && let Ok(conc) = Concentration::new(v)
            {
                c.set(p, conc);
            }
        }
        c
    }

    /// The air sample these values give, or `None` when no pollutant with an EAQI band is
    /// present (carbon monoxide alone cannot make a CI).
    pub(crate) fn air_sample(&self, bands: &EaqiBands) -> Option<aq_core::AirSample> {
        self.ci(bands).map(|ci| aq_core::AirSample {
            ci,
            concentrations: Some(self.concentrations()),
        })
    }

    /// The CI of [`Values::air_sample`] without building its concentrations: all that route
    /// scoring asks for ([`aq_core::AirQualitySource::sample_ci`]).
    pub(crate) fn ci(&self, bands: &EaqiBands) -> Option<CleanlinessIndex> {
        // The pollutants lead, in `Pollutant::ALL` order; the chunk always exists.
        bands.ci_of(self.0.first_chunk::<POLLEN_START>()?)
    }

    /// [`Values::ci`], or `None` when the pollutants `required` are not all present.
    pub(crate) fn ci_requiring(
        &self,
        bands: &EaqiBands,
        required: RequiredPollutants,
    ) -> Option<CleanlinessIndex> {
        let pollutants = self.0.first_chunk::<POLLEN_START>()?;
        if required.met_by(pollutants) {
            bands.ci_of(pollutants)
        } else {
            None
        }
    }

    /// [`Values::air_sample`], or `None` when the pollutants `required` are not all present.
    pub(crate) fn air_sample_requiring(
        &self,
        bands: &EaqiBands,
        required: RequiredPollutants,
    ) -> Option<aq_core::AirSample> {
        self.ci_requiring(bands, required)
            .map(|ci| aq_core::AirSample {
                ci,
                concentrations: Some(self.concentrations()),
            })
    }

    /// The counts of tree, grass and weed pollen, as [`aq_core::pollen_day::daily_means`]
    /// reads an hour.
    pub(crate) fn pollen_counts(&self) -> [Option<f64>; 3] {
        PollenType::ALL.map(|kind| self.get(Self::pollen_index(kind)))
    }

    pub(crate) fn pollen_levels(&self, thresholds: &GrainThresholds) -> PollenLevels {
        let mut levels = PollenLevels::default();
        for kind in PollenType::ALL {
            if let Some(v) = self.get(Self::pollen_index(kind))
                && let Ok(level) = thresholds.level(kind, v)
            {
                levels.set(kind, level);
            }
        }
        levels
    }
}

/// Pollen counts of each plant in grains/m³ ([`Plant::ALL`] order); NaN marks a missing value.
/// Apart from [`Values`], which the station sources accumulate quantity by quantity and which
/// name no plant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PlantCounts(pub(crate) [f64; N_PLANTS]);

impl PlantCounts {
    pub(crate) const MISSING: PlantCounts = PlantCounts([f64::NAN; N_PLANTS]);

    pub(crate) fn get(&self, plant: Plant) -> Option<f64> {
        let v = self.0[plant.index()];
        (!v.is_nan()).then_some(v)
    }

    pub(crate) fn counts(&self) -> [Option<f64>; N_PLANTS] {
        Plant::ALL.map(|p| self.get(p))
    }
}

/// One place and hour of a source that tells plants apart: its quantities, each pollen type's
/// count the sum of its plants', and the plants' counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CellHour {
    pub(crate) values: Values,
    pub(crate) plants: PlantCounts,
}

impl CellHour {
    pub(crate) const MISSING: CellHour = CellHour {
        values: Values::MISSING,
        plants: PlantCounts::MISSING,
    };

    /// The hour's counts of types and plants, as [`aq_core::pollen_day::daily_means`] reads an
    /// hour.
    pub(crate) fn pollen_counts(&self) -> PollenCounts {
        PollenCounts {
            types: self.values.pollen_counts(),
            plants: self.plants.counts(),
        }
    }
}
