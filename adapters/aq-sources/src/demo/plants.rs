//! The field's plants: each pollen type's count shared among the plants of the type, so that a
//! day's plants add up to its types as a model's do.
//!
//! Within the tree season alder flowers first, then birch, then olive; olive only in the
//! latitudes of the Mediterranean. Mugwort flowers before ragweed, and ragweed thrives further
//! from the poles. Grass is one plant. The shares depend on the place's latitude and season day
//! alone, so the plants are as deterministic as the types.

use aq_core::plant::N_PLANTS;
use aq_core::{Plant, PollenType};

use super::calendar::{YEAR_DAYS, bell};
use crate::values::{PlantCounts, Values};

/// Each plant's count in grains/m³ from the type counts of `values`, at latitude `lat` on the
/// hemisphere's `season_day`: the plants of a type add up to the type's count, within
/// rounding.
pub(super) fn plants(values: &Values, lat: f64, season_day: f64) -> PlantCounts {
    let band = |centre: f64, width: f64| (-((lat.abs() - centre) / width).powi(2)).exp();
    let season = |centre: f64, width: f64| bell(season_day, centre, width, YEAR_DAYS);
    let weights: [f64; N_PLANTS] = [
        season(85.0, 14.0) * band(52.0, 14.0),
        season(110.0, 14.0) * band(55.0, 12.0),
        season(130.0, 14.0) * band(38.0, 7.0),
        1.0,
        season(220.0, 14.0),
        season(245.0, 14.0) * band(42.0, 10.0),
    ];
    let mut counts = [f64::NAN; N_PLANTS];
    for kind in PollenType::ALL {
        let Some(total) = values.get(Values::pollen_index(kind)) else {
            continue;
        };
        let of_type = |p: Plant| weights[p.index()];
        let most = Plant::of_type(kind).map(of_type).fold(0.0, f64::max);
        // A plant far out of its season or its latitudes has none of the type's grains, not a
        // trace of them: olive is not in season in Berlin.
        let kept = |p: Plant| {
            let w = of_type(p);
            if w >= 0.01 * most { w } else { 0.0 }
        };
        let sum: f64 = Plant::of_type(kind).map(kept).sum();
        for p in Plant::of_type(kind) {
            counts[p.index()] = if sum > 0.0 {
                total * kept(p) / sum
            } else {
                total / Plant::of_type(kind).map(|_| 1.0).sum::<f64>()
            };
        }
    }
    PlantCounts(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(tree: f64, grass: f64, weed: f64) -> Values {
        let mut v = Values::MISSING;
        v.0[Values::pollen_index(PollenType::Tree)] = tree;
        v.0[Values::pollen_index(PollenType::Grass)] = grass;
        v.0[Values::pollen_index(PollenType::Weed)] = weed;
        v
    }

    #[test]
    fn plants_add_up_to_their_types() {
        for (lat, day) in [(52.0, 100.0), (38.0, 135.0), (-33.9, 250.0), (65.0, 0.0)] {
            let v = values(321.0, 17.5, 42.0);
            let p = plants(&v, lat, day);
            for kind in PollenType::ALL {
                let sum: f64 = Plant::of_type(kind).map(|pl| p.get(pl).unwrap()).sum();
                let total = v.get(Values::pollen_index(kind)).unwrap();
                assert!((sum - total).abs() < 1e-9, "{kind} at {lat}° on day {day}");
            }
        }
    }

    #[test]
    fn alder_leads_birch_and_olive_is_southern() {
        let v = values(100.0, 0.0, 0.0);
        let early = plants(&v, 52.0, 80.0);
        let late = plants(&v, 52.0, 115.0);
        assert!(early.get(Plant::Alder).unwrap() > early.get(Plant::Birch).unwrap());
        assert!(late.get(Plant::Birch).unwrap() > late.get(Plant::Alder).unwrap());
        let olive = |lat| plants(&v, lat, 130.0).get(Plant::Olive).unwrap();
        assert!(olive(38.0) > 10.0 * olive(55.0));
    }

    #[test]
    fn a_plant_far_from_its_season_or_latitudes_has_none() {
        let v = values(100.0, 0.0, 0.0);
        assert_eq!(plants(&v, 52.5, 110.0).get(Plant::Olive), Some(0.0));
        assert!(plants(&v, 38.0, 130.0).get(Plant::Olive).unwrap() > 0.0);
    }

    #[test]
    fn a_type_without_a_count_has_no_plants() {
        let p = plants(&Values::MISSING, 50.0, 100.0);
        assert_eq!(p.counts(), [None; N_PLANTS]);
    }
}
