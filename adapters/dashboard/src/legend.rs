//! The legend of the cleanliness index, the same under every map and chart that draws it: the
//! six categories with their ranges and colours, the floor among them, and the colour of
//! places without data.

use aq_core::CiCategory;
use maud::{Markup, html};

/// The colour of a place or sample without a value.
pub(crate) const NO_DATA: &str = "#8c8f94";

/// What a category spans, as users read it: `80 to 100`, `above 0, below 20`, `0`.
pub(crate) fn range_text(category: CiCategory) -> String {
    match (category, category.range()) {
        (CiCategory::ExtremelyPoor, _) => "0".to_owned(),
        (CiCategory::Poor, (_, high)) => format!("above 0, below {high}"),
        (CiCategory::Excellent, (low, high)) => format!("{low} to {high}"),
        (_, (low, high)) => format!("{low} to {}", high - 1.0),
    }
}

/// The legend, cleanest first, with what the number means.
pub(crate) fn ci_legend() -> Markup {
    html! {
        p.hint { "The cleanliness index: 100 is the cleanest air, 0 the dirtiest (it is 100 minus the worst of the European index's sub-indices)." }
        ul.legend.ci-legend {
            @for category in CiCategory::ALL.iter().rev() {
                li {
                    svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" {
                        rect width="14" height="14" fill=(category.colour()) {}
                    }
                    " " (category.name()) " (" (range_text(*category)) ")"
                }
            }
            li {
                svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" {
                    rect width="14" height="14" fill=(NO_DATA) {}
                }
                " no data"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_category_is_listed_with_its_range_cleanest_first() {
        let text = ci_legend().into_string();
        let order: Vec<usize> = [
            "Excellent (80 to 100)",
            "Good (60 to 79)",
            "Moderate (40 to 59)",
            "Low (20 to 39)",
            "Poor (above 0, below 20)",
            "Extremely poor (0)",
            "no data",
        ]
        .iter()
        .map(|item| {
            text.find(item)
                .unwrap_or_else(|| panic!("{item} missing: {text}"))
        })
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    }
}
