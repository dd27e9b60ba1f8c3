//! Pollen: the three plant types, the 0 to 5 level scale, and conversion from grain counts.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::index::CiCategory;

/// The plant groups that pollen alerts distinguish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PollenType {
    /// Tree pollen (alder, birch, olive, ...).
    Tree,
    /// Grass pollen.
    Grass,
    /// Weed pollen (ragweed, mugwort, ...).
    Weed,
}

impl PollenType {
    /// Every type, in a fixed order.
    pub const ALL: [PollenType; 3] = [PollenType::Tree, PollenType::Grass, PollenType::Weed];

    /// The lower-case name used in messages: `tree`, `grass` or `weed`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PollenType::Tree => "tree",
            PollenType::Grass => "grass",
            PollenType::Weed => "weed",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for PollenType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A pollen level on the 0 to 5 scale: 0 None, 1 Very low, 2 Low, 3 Moderate, 4 High,
/// 5 Very high.
///
/// ```
/// use aq_core::PollenLevel;
///
/// let level = PollenLevel::new(3).unwrap();
/// assert_eq!(level.name(), "Moderate");
/// assert!(PollenLevel::new(6).is_err());
/// ```
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(try_from = "u8", into = "u8")]
pub struct PollenLevel(u8);

/// A pollen level above 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("pollen level {0} is outside 0..=5")]
pub struct PollenLevelError(pub u8);

impl PollenLevel {
    /// No pollen.
    pub const NONE: PollenLevel = PollenLevel(0);
    /// The highest level.
    pub const VERY_HIGH: PollenLevel = PollenLevel(5);
    /// Every level, lowest first.
    pub const ALL: [PollenLevel; 6] = [
        PollenLevel(0),
        PollenLevel(1),
        PollenLevel(2),
        PollenLevel(3),
        PollenLevel(4),
        PollenLevel(5),
    ];

    /// The level `value`.
    ///
    /// # Errors
    /// [`PollenLevelError`] when `value` is above 5.
    pub fn new(value: u8) -> Result<Self, PollenLevelError> {
        if value <= 5 {
            Ok(Self(value))
        } else {
            Err(PollenLevelError(value))
        }
    }

    /// The level as a number, 0 to 5.
    #[must_use]
    pub fn value(self) -> u8 {
        self.0
    }

    /// The level's colour as a CSS hex string: grey for None, then the hues of the cleanliness
    /// index's palette from green (Very low) to red (Very high), so that every map and chart
    /// reads green as little and red as much.
    ///
    /// ```
    /// use aq_core::PollenLevel;
    ///
    /// assert_eq!(PollenLevel::new(1).unwrap().colour(), "#009e3a");
    /// assert_eq!(PollenLevel::VERY_HIGH.colour(), "#e0001b");
    /// ```
    #[must_use]
    pub fn colour(self) -> &'static str {
        match self.0 {
            0 => "#b4b4b4",
            1 => CiCategory::Excellent.colour(),
            2 => CiCategory::Good.colour(),
            3 => CiCategory::Moderate.colour(),
            4 => CiCategory::Low.colour(),
            _ => CiCategory::Poor.colour(),
        }
    }

    /// The level's name: `None`, `Very low`, `Low`, `Moderate`, `High` or `Very high`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "None",
            1 => "Very low",
            2 => "Low",
            3 => "Moderate",
            4 => "High",
            _ => "Very high",
        }
    }
}

impl TryFrom<u8> for PollenLevel {
    type Error = PollenLevelError;

    fn try_from(v: u8) -> Result<Self, Self::Error> {
        Self::new(v)
    }
}

impl From<PollenLevel> for u8 {
    fn from(l: PollenLevel) -> Self {
        l.0
    }
}

impl fmt::Display for PollenLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The levels of the three pollen types at one place and time; a type may be unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PollenLevels {
    levels: [Option<PollenLevel>; 3],
}

impl PollenLevels {
    /// The level of `kind`, if known.
    #[must_use]
    pub fn get(&self, kind: PollenType) -> Option<PollenLevel> {
        self.levels[kind.index()]
    }

    /// Records the level of `kind`.
    pub fn set(&mut self, kind: PollenType, level: PollenLevel) {
        self.levels[kind.index()] = Some(level);
    }

    /// Builder form of [`PollenLevels::set`].
    #[must_use]
    pub fn with(mut self, kind: PollenType, level: PollenLevel) -> Self {
        self.set(kind, level);
        self
    }
}

/// Lower limits, in grains/m³ (daily mean), of levels 1 (Very low), 2 (Low), 3 (Moderate),
/// 4 (High) and 5 (Very high). A mean below the first limit is level 0 (None).
pub type GrainLimits = [f64; 5];

/// Grain-count limits per pollen type, used to turn daily mean counts into levels.
///
/// Defaults follow the count categories of the US National Allergy Bureau (NAB), which are
/// defined on daily (24-hour) mean counts: its Moderate, High and Very high categories start at
/// 15, 90 and 1,500 grains/m³ for trees, 5, 20 and 200 for grasses, and 10, 50 and 500 for
/// weeds. NAB's single Low category is split in half here, the lower half being Very low, to
/// fill the service's six-level scale. Level 1 starts at 1 grain/m³: a daily mean under one
/// grain per cubic metre is below what a volumetric trap resolves (EN 16868:2019), and a model
/// field's traces of a tenth of a grain must not flip a point between None and Very low.
///
/// ```
/// use aq_core::{GrainThresholds, PollenType};
///
/// let t = GrainThresholds::default();
/// assert_eq!(t.level(PollenType::Grass, 0.0).unwrap().value(), 0);
/// assert_eq!(t.level(PollenType::Grass, 0.9).unwrap().value(), 0);
/// assert_eq!(t.level(PollenType::Grass, 1.0).unwrap().value(), 1);
/// assert_eq!(t.level(PollenType::Grass, 25.0).unwrap().value(), 4);
/// assert_eq!(t.level(PollenType::Tree, 2000.0).unwrap().value(), 5);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GrainThresholds {
    /// Tree pollen limits.
    pub tree: GrainLimits,
    /// Grass pollen limits.
    pub grass: GrainLimits,
    /// Weed pollen limits.
    pub weed: GrainLimits,
}

impl Default for GrainThresholds {
    fn default() -> Self {
        Self {
            tree: [1.0, 7.5, 15.0, 90.0, 1500.0],
            grass: [1.0, 2.5, 5.0, 20.0, 200.0],
            weed: [1.0, 5.0, 10.0, 50.0, 500.0],
        }
    }
}

/// A grain count that is negative or not finite.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[error("pollen count {0} grains/m³ must be finite and not negative")]
pub struct GrainCountError(pub f64);

impl GrainThresholds {
    /// The limits of `kind`.
    #[must_use]
    pub fn limits(&self, kind: PollenType) -> &GrainLimits {
        match kind {
            PollenType::Tree => &self.tree,
            PollenType::Grass => &self.grass,
            PollenType::Weed => &self.weed,
        }
    }

    /// The level of a daily mean count of `grains_m3` grains per cubic metre of `kind`.
    ///
    /// # Errors
    /// [`GrainCountError`] for a negative or non-finite count.
    pub fn level(&self, kind: PollenType, grains_m3: f64) -> Result<PollenLevel, GrainCountError> {
        if !grains_m3.is_finite() || grains_m3 < 0.0 {
            return Err(GrainCountError(grains_m3));
        }
        let above = self
            .limits(kind)
            .iter()
            .take_while(|&&limit| grains_m3 >= limit)
            .count();
        // `above` is at most 5, the highest level.
        #[allow(clippy::cast_possible_truncation)]
        Ok(PollenLevel(above as u8))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn limits_start_their_level() {
        let t = GrainThresholds::default();
        for kind in PollenType::ALL {
            for (i, &limit) in t.limits(kind).iter().enumerate() {
                assert_eq!(t.level(kind, limit).unwrap().value() as usize, i + 1);
            }
        }
    }

    #[test]
    fn traces_under_one_grain_are_level_none() {
        let t = GrainThresholds::default();
        for kind in PollenType::ALL {
            assert_eq!(t.level(kind, 0.05).unwrap(), PollenLevel::NONE);
            assert_eq!(t.level(kind, 0.999).unwrap(), PollenLevel::NONE);
            assert_eq!(t.level(kind, 1.0).unwrap().value(), 1);
        }
    }

    #[test]
    fn bad_counts_are_refused() {
        let t = GrainThresholds::default();
        assert!(t.level(PollenType::Weed, -0.1).is_err());
        assert!(t.level(PollenType::Weed, f64::NAN).is_err());
    }

    #[test]
    fn names_cover_the_scale() {
        let names: Vec<_> = (0..=5)
            .map(|v| PollenLevel::new(v).unwrap().name())
            .collect();
        assert_eq!(
            names,
            ["None", "Very low", "Low", "Moderate", "High", "Very high"]
        );
    }

    proptest! {
        #[test]
        fn level_never_falls_as_count_rises(a in 0.0f64..5000.0, b in 0.0f64..5000.0,
            kind in prop::sample::select(PollenType::ALL.to_vec())) {
            let t = GrainThresholds::default();
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(t.level(kind, lo).unwrap() <= t.level(kind, hi).unwrap());
        }
    }
}
