use super::*;

fn ci(v: f64) -> CleanlinessIndex {
    CleanlinessIndex::new(v).unwrap()
}

fn lvl(v: u8) -> PollenLevel {
    PollenLevel::new(v).unwrap()
}

fn aq(hours: u32, now: f64, forecast: f64) -> Change {
    Change::Aq(AqChange::new(hours, ci(now), ci(forecast)))
}

fn pollen(kind: PollenType, day: u32, reference: u8, forecast: u8) -> Change {
    Change::Pollen(PollenChange::new(kind, day, lvl(reference), lvl(forecast)))
}

fn default_text(change: &Change) -> String {
    render(
        &MessageSpec::Default,
        change,
        AqIndex::Cleanliness,
        None,
        &MessageConfig::default(),
    )
    .description
}

#[test]
fn air_quality_defaults() {
    assert_eq!(
        default_text(&aq(1, 80.0, 60.0)),
        "In 1 hour the air quality is expected to be worse (60 AQI)."
    );
    assert_eq!(
        default_text(&aq(2, 60.0, 80.0)),
        "In 2 hours the air quality is expected to be better (80 AQI)."
    );
    assert_eq!(
        default_text(&aq(96, 50.0, 44.5)),
        "In 96 hours the air quality is expected to be worse (45 AQI)."
    );
}

#[test]
fn pollen_defaults_cover_every_day_size_and_direction() {
    assert_eq!(
        default_text(&pollen(PollenType::Tree, 0, 1, 2)),
        "Today tree pollen levels will slightly rise."
    );
    assert_eq!(
        default_text(&pollen(PollenType::Grass, 1, 4, 2)),
        "Tomorrow grass pollen levels will moderately drop."
    );
    assert_eq!(
        default_text(&pollen(PollenType::Weed, 3, 0, 3)),
        "In 3 days weed pollen levels will drastically rise."
    );
    assert_eq!(
        default_text(&pollen(PollenType::Weed, 4, 5, 0)),
        "In 4 days weed pollen levels will drastically drop."
    );
}

#[test]
fn custom_descriptions_fill_every_placeholder() {
    let spec = MessageSpec::Custom {
        deterioration: "{hours}h: {aqi} ({category})".into(),
        improvement: "better by {hours}h".into(),
    };
    let msg = render(
        &spec,
        &aq(6, 70.0, 35.0),
        AqIndex::Cleanliness,
        None,
        &MessageConfig::default(),
    );
    assert_eq!(msg.description, "6h: 35 (Low)");
    let msg = render(
        &spec,
        &aq(6, 35.0, 70.0),
        AqIndex::Cleanliness,
        None,
        &MessageConfig::default(),
    );
    assert_eq!(msg.description, "better by 6h");

    let spec = MessageSpec::Custom {
        deterioration: "{kind} to {category} in {days}d".into(),
        improvement: "{kind} down to {category}".into(),
    };
    let c = pollen(PollenType::Tree, 2, 1, 5);
    assert_eq!(
        render(
            &spec,
            &c,
            AqIndex::Cleanliness,
            None,
            &MessageConfig::default()
        )
        .description,
        "tree to Very high in 2d"
    );
    let c = pollen(PollenType::Weed, 0, 4, 0);
    assert_eq!(
        render(
            &spec,
            &c,
            AqIndex::Cleanliness,
            None,
            &MessageConfig::default()
        )
        .description,
        "weed down to None"
    );
}

#[test]
fn custom_descriptions_name_the_episodes_worst_and_how_long_it_lasts() {
    let spec = MessageSpec::Custom {
        deterioration:
            "worse from {hours}h, worst ({peak_category}) at {peak_hours}h, for {duration}".into(),
        improvement: "{duration}".into(),
    };
    let episode = Change::Aq(AqChange {
        peak_hours: 5,
        peak: ci(12.0),
        last_hours: 6,
        end_hours: Some(7),
        ..AqChange::new(3, ci(70.0), ci(38.0))
    });
    let config = MessageConfig::default();
    let msg = render(&spec, &episode, AqIndex::Cleanliness, None, &config);
    assert_eq!(
        msg.description,
        "worse from 3h, worst (Poor) at 5h, for 4 hours"
    );
    // Advice is for the worst hour: Poor, not the Low of the first.
    assert_eq!(msg.recommendation, recommendation(&aq(5, 70.0, 12.0)));
    let open = Change::Aq(AqChange::new(1, ci(30.0), ci(60.0)));
    assert_eq!(
        render(&spec, &open, AqIndex::Cleanliness, None, &config).description,
        "at least 1 hour"
    );

    let spec = MessageSpec::Custom {
        deterioration: "{kind} up, {peak_category} on day {peak_days}, {duration}".into(),
        improvement: "-".into(),
    };
    let rise = Change::Pollen(PollenChange {
        peak_day: 2,
        peak: lvl(5),
        last_day: 3,
        ..PollenChange::new(PollenType::Grass, 1, lvl(1), lvl(3))
    });
    assert_eq!(
        render(&spec, &rise, AqIndex::Cleanliness, None, &config).description,
        "grass up, Very high on day 2, at least 3 days"
    );
}

#[test]
fn tampered_templates_never_panic() {
    let unclosed = MessageSpec::Custom {
        deterioration: "oops {hours".into(),
        improvement: "x".into(),
    };
    assert_eq!(
        render(
            &unclosed,
            &aq(1, 80.0, 60.0),
            AqIndex::Cleanliness,
            None,
            &MessageConfig::default()
        )
        .description,
        "In 1 hour the air quality is expected to be worse (60 AQI)."
    );
    let foreign = MessageSpec::Custom {
        deterioration: "{kind} {nope}".into(),
        improvement: "x".into(),
    };
    assert_eq!(
        render(
            &foreign,
            &aq(1, 80.0, 60.0),
            AqIndex::Cleanliness,
            None,
            &MessageConfig::default()
        )
        .description,
        "{kind} {nope}"
    );
}

fn pm25(ug_m3: f64) -> Concentrations {
    Concentrations::default().with(Pollutant::Pm25, Concentration::new(ug_m3).unwrap())
}

fn us(change: &Change, air: Option<&Concentrations>) -> String {
    let hours = air.map(|a| [Some(*a)]);
    render(
        &MessageSpec::Default,
        change,
        AqIndex::UsEpa,
        hours.as_ref().map(|h| &h[..]),
        &MessageConfig::default(),
    )
    .description
}

#[test]
fn us_epa_shows_the_2024_table_aqi_of_the_hours_concentrations() {
    // PM2.5 80 µg/m³ lies in 55.5–125.4 (AQI 151–200): 151 + 49 × 24.5 / 69.9 = 168.2.
    assert_eq!(
        us(&aq(3, 60.0, 20.0), Some(&pm25(80.0))),
        "In 3 hours the air quality is expected to be worse (US AQI 168)."
    );
    // 9.0 µg/m³ is the top of Good (AQI 50) since the 2024 revision.
    assert_eq!(
        us(&aq(1, 40.0, 70.0), Some(&pm25(9.0))),
        "In 1 hour the air quality is expected to be better (US AQI 50)."
    );
    // The highest pollutant sets it: NO₂ 191.3 µg/m³ is 100 ppb at 20 °C (AQI 100) over
    // PM2.5's 50.
    let both = pm25(9.0).with(Pollutant::No2, Concentration::new(191.3).unwrap());
    assert_eq!(
        us(&aq(1, 40.0, 70.0), Some(&both)),
        "In 1 hour the air quality is expected to be better (US AQI 100)."
    );
}

#[test]
fn us_epa_says_when_the_hour_gives_no_us_aqi() {
    assert_eq!(
        us(&aq(2, 80.0, 60.0), None),
        "In 2 hours the air quality is expected to be worse (US AQI not available)."
    );
    // Hourly SO₂ past EPA's 1-hour rows: above 200, by how much the hour cannot tell.
    let so2 = Concentrations::default().with(Pollutant::So2, Concentration::new(1000.0).unwrap());
    assert_eq!(
        us(&aq(2, 80.0, 60.0), Some(&so2)),
        "In 2 hours the air quality is expected to be worse (US AQI above 200)."
    );
    let spec = MessageSpec::Custom {
        deterioration: "AQI {aqi}".into(),
        improvement: "x".into(),
    };
    let config = MessageConfig::default();
    let text = |air: Option<AirHours<'_>>| {
        render(&spec, &aq(2, 80.0, 60.0), AqIndex::UsEpa, air, &config).description
    };
    assert_eq!(text(None), "AQI not available");
    assert_eq!(text(Some(&[Some(pm25(80.0))])), "AQI 168");
    assert_eq!(text(Some(&[Some(so2)])), "AQI above 200");
}

#[test]
fn cleanliness_ignores_the_concentrations() {
    let msg = render(
        &MessageSpec::Default,
        &aq(3, 80.0, 50.0),
        AqIndex::Cleanliness,
        Some(&[Some(pm25(80.0))]),
        &MessageConfig::default(),
    );
    assert_eq!(
        msg.description,
        "In 3 hours the air quality is expected to be worse (50 AQI)."
    );
}

proptest::proptest! {
    #[test]
    fn the_shown_number_is_the_chosen_index(
        forecast in 0.0..=100.0f64,
        pm in 0.0..500.0f64,
        no2 in proptest::option::of(0.0..2000.0f64),
    ) {
        let mut air = pm25(pm);
        if let Some(v) = no2 {
            air.set(Pollutant::No2, Concentration::new(v).unwrap());
        }
        let change = AqChange::new(2, ci(100.0 - forecast), ci(forecast));
        let config = MessageConfig::default();
        let us = config.shown_aqi(AqIndex::UsEpa, &change, Some(&[Some(air)]));
        let table = AqiTable::Epa2024.local_aqi(&air).map(|(a, _)| u32::from(a));
        proptest::prop_assert_eq!(us, ShownAqi::UsEpa(table));
        let clean = config.shown_aqi(AqIndex::Cleanliness, &change, Some(&[Some(air)]));
        proptest::prop_assert_eq!(
            clean,
            ShownAqi::Cleanliness(u32::from(ci(forecast).rounded()))
        );
    }
}

struct Doubled;
impl LocalAqi for Doubled {
    fn aqi(&self, air: &Concentrations) -> Option<u32> {
        UsEpaAqi.aqi(air).map(|a| a * 2)
    }
}

#[test]
fn a_configured_local_aqi_replaces_the_epa_table() {
    let config = MessageConfig {
        local_aqi: Some(Arc::new(Doubled)),
    };
    let air = pm25(9.0);
    let msg = render(
        &MessageSpec::Default,
        &aq(3, 80.0, 50.0),
        AqIndex::UsEpa,
        Some(&[Some(air)]),
        &config,
    );
    assert_eq!(
        msg.description,
        "In 3 hours the air quality is expected to be worse (US AQI 100)."
    );
}

#[test]
fn previews_show_the_chosen_index() {
    let spec = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(6),
        Sensitivity::Low,
        MessageSpec::Default,
    )
    .unwrap();
    let config = MessageConfig::default();
    let ci = preview(&spec, Direction::Deterioration, &config);
    assert_eq!(
        ci.description,
        "In 6 hours the air quality is expected to be worse (25 AQI)."
    );
    let us = preview(
        &spec.with_aq_index(AqIndex::UsEpa),
        Direction::Deterioration,
        &config,
    );
    assert!(
        us.description
            .starts_with("In 6 hours the air quality is expected to be worse (US AQI "),
        "{}",
        us.description
    );
    assert!(
        !us.description.contains("not available"),
        "{}",
        us.description
    );
}

#[test]
fn recommendations_follow_direction_and_reached_category() {
    let worse = |to| recommendation(&aq(1, 100.0, to));
    let better = |to| recommendation(&aq(1, 0.0, to));
    assert!(worse(85.0).contains("no change"));
    assert!(worse(65.0).contains("no change"));
    assert!(worse(45.0).contains("sensitive"));
    assert!(worse(25.0).starts_with("Limit prolonged"));
    assert!(worse(5.0).starts_with("Avoid strenuous"));
    assert!(better(85.0).starts_with("A good time"));
    assert!(better(61.0).starts_with("A good time"));
    assert!(better(50.0).contains("resume"));
    assert!(better(30.0).contains("still unhealthy"));
    assert!(better(10.0).contains("still unhealthy"));

    let up = |to| recommendation(&pollen(PollenType::Grass, 0, 0, to));
    let down = |to| recommendation(&pollen(PollenType::Grass, 0, 5, to));
    assert!(up(1).starts_with("Pollen stays low"));
    assert!(up(2).starts_with("Pollen stays low"));
    assert!(up(3).contains("medication at hand"));
    assert!(up(4).contains("limit time outdoors"));
    assert!(up(5).contains("limit time outdoors"));
    assert!(down(0).starts_with("A good time"));
    assert!(down(3).contains("still moderate"));
    assert!(down(4).contains("remains high"));
}

#[test]
fn previews_recommend_for_the_rules_audience_and_general_as_before() {
    let spec = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(6),
        Sensitivity::Low,
        MessageSpec::Default,
    )
    .unwrap();
    let config = MessageConfig::default();
    let general = preview(&spec, Direction::Deterioration, &config);
    assert_eq!(
        general.recommendation,
        recommendation(&sample_change(&spec, Direction::Deterioration))
    );
    for audience in Audience::ALL {
        let msg = preview(
            &spec.clone().with_audience(audience),
            Direction::Deterioration,
            &config,
        );
        assert_eq!(msg.description, general.description, "{audience:?}");
        assert_eq!(
            msg.recommendation == general.recommendation,
            audience == Audience::General,
            "{audience:?}: {}",
            msg.recommendation
        );
    }
}

/// The number a default air-quality description shows: `(40 AQI)` or `(US AQI 102)`.
fn shown_index(description: &str) -> f64 {
    let inside = description
        .rsplit_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(inside, _)| inside)
        .unwrap_or_else(|| panic!("no index in {description}"));
    inside
        .split(' ')
        .find_map(|word| word.parse().ok())
        .unwrap_or_else(|| panic!("no number in {description}"))
}

#[test]
fn the_worse_preview_is_worse_than_the_better_one_on_every_index_scale() {
    let config = MessageConfig::default();
    for s in Sensitivity::ALL {
        for &f in DataType::Aq.horizons() {
            let spec = RuleSpec::new(DataType::Aq, f, s, MessageSpec::Default).unwrap();
            // The CI: higher is cleaner.
            let worse = preview(&spec, Direction::Deterioration, &config);
            let better = preview(&spec, Direction::Improvement, &config);
            let (w, b) = (
                shown_index(&worse.description),
                shown_index(&better.description),
            );
            assert!(w < b, "{} / {}", worse.description, better.description);
            // The US AQI: higher is worse.
            let us = spec.clone().with_aq_index(AqIndex::UsEpa);
            let worse = preview(&us, Direction::Deterioration, &config);
            let better = preview(&us, Direction::Improvement, &config);
            let (w, b) = (
                shown_index(&worse.description),
                shown_index(&better.description),
            );
            assert!(w > b, "{} / {}", worse.description, better.description);
            // Advice for air that got worse never says it stays good.
            assert!(
                !worse.recommendation.contains("no change"),
                "{}",
                worse.recommendation
            );
        }
    }
}

#[test]
fn previews_match_the_rule_horizon_and_sensitivity() {
    for s in Sensitivity::ALL {
        for &f in DataType::Aq.horizons() {
            let spec = RuleSpec::new(DataType::Aq, f, s, MessageSpec::Default).unwrap();
            let worse = preview(&spec, Direction::Deterioration, &MessageConfig::default());
            let Forecast::Hours(h) = f else { panic!() };
            let unit = if h == 1 { "hour" } else { "hours" };
            assert!(
                worse.description.starts_with(&format!(
                    "In {h} {unit} the air quality is expected to be worse"
                )),
                "{}",
                worse.description
            );
            let better = preview(&spec, Direction::Improvement, &MessageConfig::default());
            assert!(better.description.contains("better"));
        }
        for &f in DataType::Pollen.horizons() {
            let spec = RuleSpec::new(DataType::Pollen, f, s, MessageSpec::Default).unwrap();
            let msg = preview(&spec, Direction::Deterioration, &MessageConfig::default());
            let size = match s {
                Sensitivity::High => "slightly",
                Sensitivity::Medium => "moderately",
                Sensitivity::Low => "drastically",
            };
            assert!(msg.description.contains(size), "{}", msg.description);
            assert!(msg.description.ends_with("rise."), "{}", msg.description);
        }
    }
}

#[test]
fn a_rule_in_another_language_fills_its_placeholders_and_defaults_in_it() {
    use i18n_core::{Arg, Language};
    let german = |message| {
        RuleSpec::new(
            DataType::Pollen,
            Forecast::Days(1),
            Sensitivity::Medium,
            message,
        )
        .unwrap()
        .with_language(Language::German)
    };
    let custom = german(MessageSpec::Custom {
        deterioration: "{kind}: {category}, {duration}".into(),
        improvement: "{kind} sinkt".into(),
    });
    let msg = preview(&custom, Direction::Deterioration, &MessageConfig::default());
    // The sample lasts to the end of the days read: "at least 1 day".
    let one_day = Language::German.format("duration-days", &[("n", Arg::Number(1))]);
    let expected = format!(
        "{}: {}, {}",
        Language::German.text("pollen-type-grass"),
        Language::German.label("pollen-level", "Moderate"),
        Language::German.format("duration-at-least", &[("duration", Arg::Text(&one_day))])
    );
    assert_eq!(msg.description, expected);
    assert!(!msg.description.contains("grass") && !msg.description.contains("day"));
    let default = preview(
        &german(MessageSpec::Default),
        Direction::Improvement,
        &MessageConfig::default(),
    );
    assert_eq!(
        default.description,
        Language::German.format(
            "alert-pollen-drop",
            &[
                ("day", Arg::Number(1)),
                ("kind", Arg::Text("grass")),
                ("size", Arg::Number(2))
            ]
        )
    );
    assert_ne!(
        default.description,
        "Tomorrow grass pollen levels will moderately drop."
    );
    assert_eq!(
        default.recommendation,
        advice::pollen_advice(
            Language::German,
            Audience::General,
            Direction::Improvement,
            lvl(2)
        )
    );
}

#[test]
fn the_us_aqi_shown_in_a_description_says_its_bound_in_the_rules_language() {
    use i18n_core::Language;
    for language in Language::ALL {
        let above = ShownAqi::UsEpaAtLeast(201).text(language);
        let at_least = ShownAqi::UsEpaAtLeast(350).text(language);
        assert!(
            above.contains("200") && at_least.contains("350"),
            "{language}: {above} {at_least}"
        );
        assert!(
            above.contains("US AQI") || above.contains("AQI"),
            "{language}: {above}"
        );
    }
    assert_eq!(
        ShownAqi::UsEpaAtLeast(201).text(Language::English),
        "US AQI above 200"
    );
}
