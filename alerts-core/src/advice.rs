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
//! ```
//! use alerts_core::advice::aq_advice;
//! use alerts_core::change::Direction;
//! use alerts_core::rule::Audience;
//! use aq_core::CiCategory;
//!
//! assert_eq!(
//!     aq_advice(Audience::General, Direction::Deterioration, CiCategory::Low),
//!     "Limit prolonged or heavy outdoor exertion, especially if you are sensitive to air pollution."
//! );
//! assert!(aq_advice(Audience::Athletes, Direction::Deterioration, CiCategory::Low)
//!     .contains("indoors"));
//! ```

use aq_core::{CiCategory, PollenLevel};

use crate::change::{Change, Direction};
use crate::rule::Audience;

/// The recommendation for `change` to `audience`: [`aq_advice`] or [`pollen_advice`] for the
/// category its episode reaches at its worst (the peak), which is what to prepare for.
#[must_use]
pub fn recommendation(change: &Change, audience: Audience) -> &'static str {
    match change {
        Change::Aq(c) => aq_advice(audience, c.direction(), c.peak.category()),
        Change::Pollen(c) => pollen_advice(audience, c.direction(), c.peak),
    }
}

/// The rows of the air-quality tables: which change, reaching which CI categories.
#[derive(Clone, Copy)]
enum AqRow {
    WorseGood,
    WorseModerate,
    WorseLow,
    WorsePoor,
    WorseExtreme,
    BetterGood,
    BetterModerate,
    BetterUnhealthy,
}

/// The recommendation for air that changes in `direction` and reaches `reaches`, to
/// `audience`.
#[must_use]
pub fn aq_advice(audience: Audience, direction: Direction, reaches: CiCategory) -> &'static str {
    use CiCategory::{Excellent, ExtremelyPoor, Good, Low, Moderate, Poor};
    let row = match (direction, reaches) {
        (Direction::Deterioration, Excellent | Good) => AqRow::WorseGood,
        (Direction::Deterioration, Moderate) => AqRow::WorseModerate,
        (Direction::Deterioration, Low) => AqRow::WorseLow,
        (Direction::Deterioration, Poor) => AqRow::WorsePoor,
        (Direction::Deterioration, ExtremelyPoor) => AqRow::WorseExtreme,
        (Direction::Improvement, Excellent | Good) => AqRow::BetterGood,
        (Direction::Improvement, Moderate) => AqRow::BetterModerate,
        // An improvement cannot end at the floor; the row is there for completeness.
        (Direction::Improvement, Low | Poor | ExtremelyPoor) => AqRow::BetterUnhealthy,
    };
    match audience {
        Audience::General => aq_general(row),
        Audience::Children => aq_children(row),
        Audience::OlderAdults => aq_older_adults(row),
        Audience::HeartOrLungDisease => aq_heart_or_lung(row),
        Audience::Pregnancy => aq_pregnancy(row),
        Audience::Athletes => aq_athletes(row),
    }
}

fn aq_general(row: AqRow) -> &'static str {
    match row {
        AqRow::WorseGood => {
            "Air quality stays good for most people; no change to outdoor plans is needed."
        }
        AqRow::WorseModerate => {
            "People sensitive to air pollution should consider shorter or lighter outdoor activity."
        }
        AqRow::WorseLow => {
            "Limit prolonged or heavy outdoor exertion, especially if you are sensitive to air pollution."
        }
        AqRow::WorsePoor => {
            "Avoid strenuous outdoor activity; move exercise indoors and keep windows closed."
        }
        AqRow::WorseExtreme => {
            "Air pollution is extreme: everyone should avoid outdoor physical activity, stay indoors with windows closed and use an air purifier if you have one."
        }
        AqRow::BetterGood => "A good time for outdoor activity and for airing your home.",
        AqRow::BetterModerate => {
            "Air quality is improving; most people can resume normal outdoor activity."
        }
        AqRow::BetterUnhealthy => {
            "Air quality is improving but still unhealthy; keep limiting prolonged outdoor exertion."
        }
    }
}

fn aq_children(row: AqRow) -> &'static str {
    match row {
        AqRow::WorseGood => {
            "Air quality stays good; children can play and do sport outdoors as usual."
        }
        AqRow::WorseModerate => {
            "Keep children's outdoor play shorter and calmer, with more breaks, especially for children with asthma."
        }
        AqRow::WorseLow => {
            "Children should avoid long or heavy outdoor exertion; move sport and active play indoors."
        }
        AqRow::WorsePoor => {
            "Keep children indoors with windows closed; postpone outdoor sport and active play."
        }
        AqRow::WorseExtreme => {
            "Air pollution is extreme: keep children indoors with windows closed, with no outdoor play or sport, and keep school runs short."
        }
        AqRow::BetterGood => "A good time for children to play and do sport outdoors.",
        AqRow::BetterModerate => {
            "Air quality is improving; children can return to outdoor play, with breaks for those with asthma."
        }
        AqRow::BetterUnhealthy => {
            "Air quality is improving but still unhealthy; keep children's outdoor play short and calm."
        }
    }
}

fn aq_older_adults(row: AqRow) -> &'static str {
    match row {
        AqRow::WorseGood => "Air quality stays good; older adults can keep their outdoor plans.",
        AqRow::WorseModerate => {
            "Older adults should prefer shorter or lighter outdoor activity, such as an easy walk instead of a long one."
        }
        AqRow::WorseLow => {
            "Older adults should avoid long or heavy outdoor exertion and watch for breathlessness or chest discomfort."
        }
        AqRow::WorsePoor => {
            "Older adults should stay indoors with windows closed and keep physical activity light."
        }
        AqRow::WorseExtreme => {
            "Air pollution is extreme: older adults should stay indoors with windows closed, rest, and seek medical help for chest pain or breathlessness."
        }
        AqRow::BetterGood => "A good time for older adults to walk outdoors and air the home.",
        AqRow::BetterModerate => {
            "Air quality is improving; older adults can resume their usual outdoor activity at an easy pace."
        }
        AqRow::BetterUnhealthy => {
            "Air quality is improving but still unhealthy; older adults should keep outdoor activity short and light."
        }
    }
}

fn aq_heart_or_lung(row: AqRow) -> &'static str {
    match row {
        AqRow::WorseGood => "Air quality stays good; keep to your usual activity and care plan.",
        AqRow::WorseModerate => {
            "With heart or lung disease, choose lighter outdoor activity and keep your reliever medicine at hand."
        }
        AqRow::WorseLow => {
            "With heart or lung disease, avoid long or heavy outdoor exertion, keep your inhaler or medicine at hand and follow your care plan."
        }
        AqRow::WorsePoor => {
            "With heart or lung disease, stay indoors with windows closed, follow your care plan and seek medical advice if symptoms worsen."
        }
        AqRow::WorseExtreme => {
            "Air pollution is extreme: with heart or lung disease stay indoors with windows closed, take medicine as your care plan says and seek medical help at once if symptoms worsen."
        }
        AqRow::BetterGood => {
            "A good time for outdoor activity and airing your home; keep your medicine at hand as usual."
        }
        AqRow::BetterModerate => {
            "Air quality is improving; resume your usual activity at an easy pace, with your medicine at hand."
        }
        AqRow::BetterUnhealthy => {
            "Air quality is improving but still unhealthy; keep avoiding heavy outdoor exertion and follow your care plan."
        }
    }
}

fn aq_pregnancy(row: AqRow) -> &'static str {
    match row {
        AqRow::WorseGood => {
            "Air quality stays good; outdoor walks and activity are fine during pregnancy."
        }
        AqRow::WorseModerate => {
            "During pregnancy, prefer shorter or lighter outdoor activity and routes away from busy roads."
        }
        AqRow::WorseLow => {
            "During pregnancy, limit prolonged outdoor exertion and time near heavy traffic."
        }
        AqRow::WorsePoor => {
            "During pregnancy, avoid strenuous outdoor activity and stay indoors with windows closed where you can."
        }
        AqRow::WorseExtreme => {
            "Air pollution is extreme: during pregnancy stay indoors with windows closed, avoid exertion and keep trips outside short."
        }
        AqRow::BetterGood => "A good time for an outdoor walk and for airing your home.",
        AqRow::BetterModerate => {
            "Air quality is improving; resume usual outdoor activity, preferring routes away from busy roads."
        }
        AqRow::BetterUnhealthy => {
            "Air quality is improving but still unhealthy; during pregnancy keep outdoor exertion short."
        }
    }
}

fn aq_athletes(row: AqRow) -> &'static str {
    match row {
        AqRow::WorseGood => "Air quality stays good; train outdoors as planned.",
        AqRow::WorseModerate => {
            "Consider easing long or high-intensity outdoor sessions, or training at a cleaner time of day."
        }
        AqRow::WorseLow => {
            "Move hard or long training indoors or to cleaner hours; keep outdoor sessions easy."
        }
        AqRow::WorsePoor => "Train indoors; postpone hard outdoor sessions until the air improves.",
        AqRow::WorseExtreme => {
            "Air pollution is extreme: cancel outdoor training and competition; keep indoor sessions light if the air indoors is not filtered."
        }
        AqRow::BetterGood => "A good time for outdoor training, hard sessions included.",
        AqRow::BetterModerate => {
            "Air quality is improving; normal outdoor training can resume, saving the hardest sessions for cleaner air."
        }
        AqRow::BetterUnhealthy => {
            "Air quality is improving but still unhealthy; keep hard training indoors for now."
        }
    }
}

/// The rows of the pollen tables: which change, reaching which levels.
#[derive(Clone, Copy)]
enum PollenRow {
    UpLow,
    UpModerate,
    UpHigh,
    DownLow,
    DownModerate,
    DownHigh,
}

/// The recommendation for pollen that changes in `direction` and reaches `reaches`, to
/// `audience`.
#[must_use]
pub fn pollen_advice(
    audience: Audience,
    direction: Direction,
    reaches: PollenLevel,
) -> &'static str {
    let row = match (direction, reaches.value()) {
        (Direction::Deterioration, 0..=2) => PollenRow::UpLow,
        (Direction::Deterioration, 3) => PollenRow::UpModerate,
        (Direction::Deterioration, _) => PollenRow::UpHigh,
        (Direction::Improvement, 0..=2) => PollenRow::DownLow,
        (Direction::Improvement, 3) => PollenRow::DownModerate,
        (Direction::Improvement, _) => PollenRow::DownHigh,
    };
    match audience {
        Audience::General => pollen_general(row),
        Audience::Children => pollen_children(row),
        Audience::OlderAdults => pollen_older_adults(row),
        Audience::HeartOrLungDisease => pollen_heart_or_lung(row),
        Audience::Pregnancy => pollen_pregnancy(row),
        Audience::Athletes => pollen_athletes(row),
    }
}

fn pollen_general(row: PollenRow) -> &'static str {
    match row {
        PollenRow::UpLow => "Pollen stays low; most allergy sufferers will not be affected.",
        PollenRow::UpModerate => "Allergy sufferers should keep their medication at hand.",
        PollenRow::UpHigh => {
            "Allergy sufferers should take their medication early, limit time outdoors and keep windows closed."
        }
        PollenRow::DownLow => "A good time for outdoor activity, even with a pollen allergy.",
        PollenRow::DownModerate => {
            "Pollen is easing but still moderate; allergy sufferers should stay prepared."
        }
        PollenRow::DownHigh => {
            "Pollen is easing but remains high; allergy sufferers should keep taking precautions."
        }
    }
}

fn pollen_children(row: PollenRow) -> &'static str {
    match row {
        PollenRow::UpLow => "Pollen stays low; children with hay fever can play outdoors as usual.",
        PollenRow::UpModerate => {
            "Keep the allergy medicine of children with hay fever at hand; washing hands and face after outdoor play helps."
        }
        PollenRow::UpHigh => {
            "Give children with hay fever their medicine before going out, keep outdoor play short and wash their hair and hands afterwards."
        }
        PollenRow::DownLow => "A good time for children to play outdoors, even with hay fever.",
        PollenRow::DownModerate => {
            "Pollen is easing but still moderate; keep children's allergy medicine at hand."
        }
        PollenRow::DownHigh => {
            "Pollen is easing but remains high; children with hay fever should keep taking their medicine and play outdoors for shorter spells."
        }
    }
}

fn pollen_older_adults(row: PollenRow) -> &'static str {
    match row {
        PollenRow::UpLow => "Pollen stays low; older adults with allergies will rarely notice it.",
        PollenRow::UpModerate => {
            "Older adults with a pollen allergy should keep their medication at hand; a pharmacist can say which remedies suit their other medicines."
        }
        PollenRow::UpHigh => {
            "Older adults with a pollen allergy should take their medication early, limit time outdoors and keep windows closed."
        }
        PollenRow::DownLow => {
            "A good time for older adults to be outdoors, even with a pollen allergy."
        }
        PollenRow::DownModerate => {
            "Pollen is easing but still moderate; older adults with allergies should stay prepared."
        }
        PollenRow::DownHigh => {
            "Pollen is easing but remains high; older adults with allergies should keep taking precautions."
        }
    }
}

fn pollen_heart_or_lung(row: PollenRow) -> &'static str {
    match row {
        PollenRow::UpLow => "Pollen stays low; keep to your usual care plan.",
        PollenRow::UpModerate => {
            "Pollen can set off asthma: keep your reliever inhaler and allergy medicine at hand."
        }
        PollenRow::UpHigh => {
            "High pollen can set off asthma attacks: take your preventer as prescribed, carry your reliever, limit time outdoors and keep windows closed."
        }
        PollenRow::DownLow => {
            "Pollen is low; a good time for outdoor activity, following your usual care plan."
        }
        PollenRow::DownModerate => {
            "Pollen is easing but still moderate; keep your reliever inhaler at hand."
        }
        PollenRow::DownHigh => {
            "Pollen is easing but remains high; keep taking your preventer and carry your reliever."
        }
    }
}

fn pollen_pregnancy(row: PollenRow) -> &'static str {
    match row {
        PollenRow::UpLow => "Pollen stays low; hay fever is unlikely to bother you.",
        PollenRow::UpModerate => {
            "With hay fever in pregnancy, keep at hand a remedy your doctor or pharmacist has approved."
        }
        PollenRow::UpHigh => {
            "With hay fever in pregnancy, use the remedy your doctor or pharmacist approved, limit time outdoors and keep windows closed."
        }
        PollenRow::DownLow => "A good time for an outdoor walk, even with hay fever.",
        PollenRow::DownModerate => {
            "Pollen is easing but still moderate; keep your approved hay fever remedy at hand."
        }
        PollenRow::DownHigh => {
            "Pollen is easing but remains high; keep using your approved hay fever remedy and limit time outdoors."
        }
    }
}

fn pollen_athletes(row: PollenRow) -> &'static str {
    match row {
        PollenRow::UpLow => "Pollen stays low; outdoor training should not be affected.",
        PollenRow::UpModerate => {
            "With hay fever, take your medication before outdoor training and shower after it."
        }
        PollenRow::UpHigh => {
            "With hay fever, move hard sessions indoors, take your medication early and shower after outdoor training."
        }
        PollenRow::DownLow => "A good time for outdoor training, even with hay fever.",
        PollenRow::DownModerate => {
            "Pollen is easing but still moderate; with hay fever, keep your medication at hand for outdoor training."
        }
        PollenRow::DownHigh => {
            "Pollen is easing but remains high; with hay fever, keep hard sessions indoors for now."
        }
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
                    .map(|&a| aq_advice(a, direction, category))
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
                    .map(|&a| pollen_advice(a, direction, level))
                    .collect();
                assert_eq!(texts.len(), Audience::ALL.len(), "{direction:?} {level:?}");
            }
        }
    }

    #[test]
    fn each_audience_keeps_eight_air_and_six_pollen_texts() {
        // The tables of every audience distinguish the same cells as the general one.
        for audience in Audience::ALL {
            let aq: HashSet<_> = DIRECTIONS
                .iter()
                .flat_map(|&d| CiCategory::ALL.map(|c| aq_advice(audience, d, c)))
                .collect();
            assert_eq!(aq.len(), 8, "{audience:?}");
            let pollen: HashSet<_> = DIRECTIONS
                .iter()
                .flat_map(|&d| levels().map(move |l| pollen_advice(audience, d, l)))
                .collect();
            assert_eq!(pollen.len(), 6, "{audience:?}");
        }
    }

    #[test]
    fn the_advice_speaks_to_its_group_where_the_air_is_unhealthy() {
        let low = |a| aq_advice(a, Direction::Deterioration, CiCategory::Low);
        assert!(low(Audience::Children).contains("Children"));
        assert!(low(Audience::OlderAdults).contains("Older adults"));
        assert!(low(Audience::HeartOrLungDisease).contains("care plan"));
        assert!(low(Audience::HeartOrLungDisease).contains("inhaler"));
        assert!(low(Audience::Pregnancy).contains("pregnancy"));
        assert!(low(Audience::Athletes).contains("training indoors"));
        // Sensitive groups already cut down at Moderate, where the general advice only asks
        // sensitive people to consider it.
        let moderate = |a| aq_advice(a, Direction::Deterioration, CiCategory::Moderate);
        assert!(moderate(Audience::Children).contains("shorter"));
        assert!(moderate(Audience::OlderAdults).contains("shorter"));
        let high = |a| pollen_advice(a, Direction::Deterioration, PollenLevel::VERY_HIGH);
        assert!(high(Audience::HeartOrLungDisease).contains("asthma"));
        assert!(high(Audience::Athletes).contains("indoors"));
    }
}
