//! The plants whose pollen the sources count one by one, each belonging to a pollen type.
//!
//! The models behind the sources (the CAMS European forecast, through its own grids or
//! Open-Meteo) count six plants: alder, birch and olive (trees), grasses, and mugwort and
//! ragweed (weeds). A type's count is the sum of its plants' counts, so the tree count is a
//! lower bound of the tree pollen in the air: the models forecast no other tree.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::pollen::PollenType;

/// A plant whose pollen is counted on its own.
///
/// [`Plant::ALL`] lists them by type ([`PollenType::ALL`] order: tree, grass, weed), then by
/// English name within a type: the order every list of plants follows.
///
/// ```
/// use aq_core::{Plant, PollenType};
///
/// assert_eq!(Plant::Birch.pollen_type(), PollenType::Tree);
/// assert_eq!(Plant::Birch.code(), "birch");
/// assert_eq!(Plant::Birch.display_name(), "Birch");
/// assert_eq!(Plant::from_code("ragweed"), Some(Plant::Ragweed));
/// let trees: Vec<_> = Plant::of_type(PollenType::Tree).map(Plant::code).collect();
/// assert_eq!(trees, ["alder", "birch", "olive"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Plant {
    /// Alder (*Alnus*), a tree flowering in late winter.
    Alder,
    /// Birch (*Betula*), a tree flowering in spring.
    Birch,
    /// Olive (*Olea*), a tree of the Mediterranean flowering in late spring.
    Olive,
    /// Grasses (*Poaceae*), counted together as one plant.
    Grass,
    /// Mugwort (*Artemisia*), a weed flowering in summer.
    Mugwort,
    /// Ragweed (*Ambrosia*), a weed flowering in late summer.
    Ragweed,
}

/// How many plants there are.
pub const N_PLANTS: usize = 6;

impl Plant {
    /// Every plant, by type then by name.
    pub const ALL: [Plant; N_PLANTS] = [
        Plant::Alder,
        Plant::Birch,
        Plant::Olive,
        Plant::Grass,
        Plant::Mugwort,
        Plant::Ragweed,
    ];

    /// The type the plant's pollen counts towards.
    #[must_use]
    pub fn pollen_type(self) -> PollenType {
        match self {
            Plant::Alder | Plant::Birch | Plant::Olive => PollenType::Tree,
            Plant::Grass => PollenType::Grass,
            Plant::Mugwort | Plant::Ragweed => PollenType::Weed,
        }
    }

    /// The stable lower-case code, as the API answers it: `alder`, `birch`, `olive`, `grass`,
    /// `mugwort` or `ragweed`.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            Plant::Alder => "alder",
            Plant::Birch => "birch",
            Plant::Olive => "olive",
            Plant::Grass => "grass",
            Plant::Mugwort => "mugwort",
            Plant::Ragweed => "ragweed",
        }
    }

    /// The English name shown to people: `Alder`, `Birch`, `Olive`, `Grasses`, `Mugwort` or
    /// `Ragweed`. Grasses are plural: the count is of the whole family, not one species.
    #[must_use]
    pub fn display_name(self) -> &'static str {
        match self {
            Plant::Alder => "Alder",
            Plant::Birch => "Birch",
            Plant::Olive => "Olive",
            Plant::Grass => "Grasses",
            Plant::Mugwort => "Mugwort",
            Plant::Ragweed => "Ragweed",
        }
    }

    /// The plant whose [`Plant::code`] is `code`.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Plant> {
        Self::ALL.into_iter().find(|p| p.code() == code)
    }

    /// The plants of `kind`, by name.
    pub fn of_type(kind: PollenType) -> impl Iterator<Item = Plant> {
        Self::ALL
            .into_iter()
            .filter(move |p| p.pollen_type() == kind)
    }

    /// Position in [`Plant::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Plant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The counts of `plants` ([`Plant::ALL`] order) summed into their types ([`PollenType::ALL`]
/// order): each type's sum over its plants that have a count, `None` for a type none of whose
/// plants has one. Counts that are negative or not finite are left out, and a sum
/// past the largest `f64` is no count.
///
/// ```
/// use aq_core::plant::type_sums;
///
/// // Alder 3, birch 40, olive missing; no grass; mugwort 0.
/// let sums = type_sums([Some(3.0), Some(40.0), None, None, Some(0.0), None]);
/// assert_eq!(sums, [Some(43.0), None, Some(0.0)]);
/// ```
#[must_use]
pub fn type_sums(plants: [Option<f64>; N_PLANTS]) -> [Option<f64>; 3] {
    let mut sums = [None; 3];
    for (plant, count) in Plant::ALL.into_iter().zip(plants) {
        if let Some(c) = count.filter(|c| c.is_finite() && *c >= 0.0) {
            let sum: &mut Option<f64> = &mut sums[plant.pollen_type() as usize];
            *sum = Some(sum.unwrap_or(0.0) + c);
        }
    }
    sums.map(|s| s.filter(|s| s.is_finite()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_is_ordered_by_type_then_name() {
        let keys: Vec<_> = Plant::ALL
            .iter()
            .map(|p| (p.pollen_type(), p.display_name()))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted);
        for (i, p) in Plant::ALL.into_iter().enumerate() {
            assert_eq!(p.index(), i);
        }
    }

    #[test]
    fn every_type_has_a_plant_and_codes_round_trip() {
        for kind in PollenType::ALL {
            assert!(Plant::of_type(kind).next().is_some(), "{kind}");
        }
        for p in Plant::ALL {
            assert_eq!(Plant::from_code(p.code()), Some(p));
            assert_eq!(p.code(), p.code().to_lowercase());
        }
        assert_eq!(Plant::from_code("oak"), None);
    }

    #[test]
    fn serde_names_are_the_codes() {
        for p in Plant::ALL {
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", p.code()));
        }
    }

    #[test]
    fn a_sum_past_the_largest_number_is_no_count() {
        let big = Some(f64::MAX);
        let sums = type_sums([big, big, None, Some(2.0), Some(f64::NAN), Some(-1.0)]);
        assert_eq!(sums, [None, Some(2.0), None]);
    }
}
