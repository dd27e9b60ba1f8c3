//! The predefined recommendations: one table per [`Audience`], picked by the direction of the
//! change and the category it reaches.
//!
//! The general population's table is the spec's. The others say what matters to their group:
//! children and older adults cut down heavy or long exertion from Moderate air on; people with
//! heart or lung disease keep their medicine at hand and follow their care plan; in pregnancy,
//! long exertion and busy roads are what to limit; athletes move hard training indoors or to
//! cleaner hours. Every audience has a text of its own for every cell, so a rule's audience
//! always shows in its messages.
//!
//! The texts are the catalogue's (`i18n-core`, ids `air-…` and `pollen-…`), in every language
//! it has; this module picks the cell.
//!
//! ```
//! use alerts_core::advice::aq_advice;
//! use alerts_core::change::Direction;
//! use alerts_core::rule::Audience;
//! use aq_core::CiCategory;
//! use i18n_core::Language;
//!
//! let low = |language, audience| aq_advice(language, audience, Direction::Deterioration, CiCategory::Low);
//! assert_eq!(
//!     low(Language::English, Audience::General),
//!     "Limit prolonged or heavy outdoor exertion, especially if you are sensitive to air pollution."
//! );
//! assert!(low(Language::English, Audience::Athletes).contains("indoors"));
//! assert_ne!(low(Language::German, Audience::General), low(Language::English, Audience::General));
//! ```

use std::collections::HashMap;
use std::sync::LazyLock;

use aq_core::{CiCategory, PollenLevel};
use i18n_core::Language;

use crate::change::{Change, Direction};
use crate::rule::Audience;

/// The recommendation for `change` to `audience` in `language`: [`aq_advice`] or
/// [`pollen_advice`] for the category its episode reaches at its worst (the peak), which is
/// what to prepare for.
#[must_use]
pub fn recommendation(change: &Change, audience: Audience, language: Language) -> &'static str {
    match change {
        Change::Aq(c) => aq_advice(language, audience, c.direction(), c.peak.category()),
        Change::Pollen(c) => pollen_advice(language, audience, c.direction(), c.peak),
    }
}

/// The recommendation for air that changes in `direction` and reaches `reaches`, to
/// `audience`, in `language`.
#[must_use]
pub fn aq_advice(
    language: Language,
    audience: Audience,
    direction: Direction,
    reaches: CiCategory,
) -> &'static str {
    use CiCategory::{Excellent, ExtremelyPoor, Good, Low, Moderate, Poor};
    let row = match (direction, reaches) {
        (Direction::Deterioration, Excellent | Good) => "air-worse-good",
        (Direction::Deterioration, Moderate) => "air-worse-moderate",
        (Direction::Deterioration, Low) => "air-worse-low",
        (Direction::Deterioration, Poor) => "air-worse-poor",
        (Direction::Deterioration, ExtremelyPoor) => "air-worse-extreme",
        (Direction::Improvement, Excellent | Good) => "air-better-good",
        (Direction::Improvement, Moderate) => "air-better-moderate",
        // An improvement cannot end at the floor; the row is there for completeness.
        (Direction::Improvement, Low | Poor | ExtremelyPoor) => "air-better-unhealthy",
    };
    text(language, row, audience)
}

/// The recommendation for pollen that changes in `direction` and reaches `reaches`, to
/// `audience`, in `language`.
#[must_use]
pub fn pollen_advice(
    language: Language,
    audience: Audience,
    direction: Direction,
    reaches: PollenLevel,
) -> &'static str {
    let row = match (direction, reaches.value()) {
        (Direction::Deterioration, 0..=2) => "pollen-up-low",
        (Direction::Deterioration, 3) => "pollen-up-moderate",
        (Direction::Deterioration, _) => "pollen-up-high",
        (Direction::Improvement, 0..=2) => "pollen-down-low",
        (Direction::Improvement, 3) => "pollen-down-moderate",
        (Direction::Improvement, _) => "pollen-down-high",
    };
    text(language, row, audience)
}

/// Every row of the table, by its id in the catalogue.
const ROWS: [&str; 14] = [
    "air-worse-good",
    "air-worse-moderate",
    "air-worse-low",
    "air-worse-poor",
    "air-worse-extreme",
    "air-better-good",
    "air-better-moderate",
    "air-better-unhealthy",
    "pollen-up-low",
    "pollen-up-moderate",
    "pollen-up-high",
    "pollen-down-low",
    "pollen-down-moderate",
    "pollen-down-high",
];

/// Every cell's text in each language, looked up in the catalogue once: an alert job writes a
/// recommendation per alert, and putting each cell's id together per alert was a measurable
/// share of an alert job's time (docs/benchmarks.md).
type Cells = HashMap<(&'static str, Audience), [&'static str; Language::ALL.len()]>;

static CELLS: LazyLock<Cells> = LazyLock::new(|| {
    let mut cells = Cells::new();
    for row in ROWS {
        for audience in Audience::ALL {
            let id = format!("{row}-{}", audience_id(audience));
            let texts = Language::ALL.map(|language| language.get(&id).unwrap_or_default());
            cells.insert((row, audience), texts);
        }
    }
    cells
});

/// The catalogue's text of one cell: its row's id, then the audience's.
fn text(language: Language, row: &'static str, audience: Audience) -> &'static str {
    CELLS
        .get(&(row, audience))
        .map_or("", |texts| texts[language as usize])
}

/// How the catalogue's ids name `audience`.
fn audience_id(audience: Audience) -> &'static str {
    match audience {
        Audience::General => "general",
        Audience::Children => "children",
        Audience::OlderAdults => "older-adults",
        Audience::HeartOrLungDisease => "heart-or-lung",
        Audience::Pregnancy => "pregnancy",
        Audience::Athletes => "athletes",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    const DIRECTIONS: [Direction; 2] = [Direction::Deterioration, Direction::Improvement];

    fn levels() -> impl Iterator<Item = PollenLevel> {
        (0..=5).map(|v| PollenLevel::new(v).unwrap())
    }

    #[test]
    fn every_audience_has_its_own_text_for_every_change() {
        for direction in DIRECTIONS {
            for category in CiCategory::ALL {
                let texts: HashSet<_> = Audience::ALL
                    .iter()
                    .map(|&a| aq_advice(Language::English, a, direction, category))
                    .collect();
                assert_eq!(
                    texts.len(),
                    Audience::ALL.len(),
                    "{direction:?} {category:?}"
                );
            }
            for level in levels() {
                let texts: HashSet<_> = Audience::ALL
                    .iter()
                    .map(|&a| pollen_advice(Language::English, a, direction, level))
                    .collect();
                assert_eq!(texts.len(), Audience::ALL.len(), "{direction:?} {level:?}");
            }
        }
    }

    #[test]
    fn every_cell_has_its_own_text_in_every_language_of_the_catalogue() {
        for language in Language::ALL {
            let english = Language::English;
            for direction in DIRECTIONS {
                for category in CiCategory::ALL {
                    let texts: HashSet<_> = Audience::ALL
                        .iter()
                        .map(|&a| aq_advice(language, a, direction, category))
                        .collect();
                    assert_eq!(texts.len(), Audience::ALL.len(), "{language} {category:?}");
                    for audience in Audience::ALL {
                        let text = aq_advice(language, audience, direction, category);
                        assert!(text.ends_with('.'), "{language} {audience:?} {category:?}");
                        if language != english {
                            assert_ne!(text, aq_advice(english, audience, direction, category));
                        }
                    }
                }
                for level in levels() {
                    let texts: HashSet<_> = Audience::ALL
                        .iter()
                        .map(|&a| pollen_advice(language, a, direction, level))
                        .collect();
                    assert_eq!(texts.len(), Audience::ALL.len(), "{language} {level:?}");
                    for audience in Audience::ALL {
                        let text = pollen_advice(language, audience, direction, level);
                        assert!(text.ends_with('.'), "{language} {audience:?} {level:?}");
                        if language != english {
                            assert_ne!(text, pollen_advice(english, audience, direction, level));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn each_audience_keeps_eight_air_and_six_pollen_texts() {
        // The tables of every audience distinguish the same cells as the general one.
        for audience in Audience::ALL {
            let aq: HashSet<_> = DIRECTIONS
                .iter()
                .flat_map(|&d| {
                    CiCategory::ALL.map(|c| aq_advice(Language::English, audience, d, c))
                })
                .collect();
            assert_eq!(aq.len(), 8, "{audience:?}");
            let pollen: HashSet<_> = DIRECTIONS
                .iter()
                .flat_map(|&d| {
                    levels().map(move |l| pollen_advice(Language::English, audience, d, l))
                })
                .collect();
            assert_eq!(pollen.len(), 6, "{audience:?}");
        }
    }

    #[test]
    fn the_advice_speaks_to_its_group_where_the_air_is_unhealthy() {
        let low = |a| {
            aq_advice(
                Language::English,
                a,
                Direction::Deterioration,
                CiCategory::Low,
            )
        };
        assert!(low(Audience::Children).contains("Children"));
        assert!(low(Audience::OlderAdults).contains("Older adults"));
        assert!(low(Audience::HeartOrLungDisease).contains("care plan"));
        assert!(low(Audience::HeartOrLungDisease).contains("inhaler"));
        assert!(low(Audience::Pregnancy).contains("pregnancy"));
        assert!(low(Audience::Athletes).contains("training indoors"));
        // Sensitive groups already cut down at Moderate, where the general advice only asks
        // sensitive people to consider it.
        let moderate = |a| {
            aq_advice(
                Language::English,
                a,
                Direction::Deterioration,
                CiCategory::Moderate,
            )
        };
        assert!(moderate(Audience::Children).contains("shorter"));
        assert!(moderate(Audience::OlderAdults).contains("shorter"));
        let high = |a| {
            pollen_advice(
                Language::English,
                a,
                Direction::Deterioration,
                PollenLevel::VERY_HIGH,
            )
        };
        assert!(high(Audience::HeartOrLungDisease).contains("asthma"));
        assert!(high(Audience::Athletes).contains("indoors"));
    }
}
