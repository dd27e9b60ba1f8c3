use super::*;

fn custom(d: &str, i: &str) -> MessageSpec {
    MessageSpec::Custom {
        deterioration: d.into(),
        improvement: i.into(),
    }
}

#[test]
fn every_offered_horizon_is_accepted_and_no_other() {
    for dt in [DataType::Aq, DataType::Pollen] {
        for f in AQ_HORIZONS.iter().chain(POLLEN_HORIZONS.iter()) {
            let ok = RuleSpec::new(dt, *f, Sensitivity::High, MessageSpec::Default).is_ok();
            assert_eq!(ok, dt.horizons().contains(f), "{dt:?} {f}");
        }
    }
}

#[test]
fn a_stored_rule_without_aq_index_reads_as_cleanliness_and_is_written_back_unchanged() {
    let stored =
        r#"{"type":"aq","forecast":"3h","sensitivity":"high","message":{"kind":"default"}}"#;
    let spec: RuleSpec = serde_json::from_str(stored).unwrap();
    assert_eq!(spec.aq_index(), AqIndex::Cleanliness);
    assert_eq!(serde_json::to_string(&spec).unwrap(), stored);
}

#[test]
fn aq_index_us_epa_round_trips_through_the_rule_json() {
    let spec = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(3),
        Sensitivity::High,
        MessageSpec::Default,
    )
    .unwrap()
    .with_aq_index(AqIndex::UsEpa);
    let json = serde_json::to_value(&spec).unwrap();
    assert_eq!(json["aq_index"], "us_epa");
    assert_eq!(serde_json::from_value::<RuleSpec>(json).unwrap(), spec);
    let bad = r#"{"type":"aq","forecast":"3h","sensitivity":"high","message":{"kind":"default"},"aq_index":"eaqi"}"#;
    assert!(serde_json::from_str::<RuleSpec>(bad).is_err());
}

#[test]
fn aq_index_parses_wire_and_command_line_names_and_names_the_field_otherwise() {
    assert_eq!("us_epa".parse::<AqIndex>().unwrap(), AqIndex::UsEpa);
    assert_eq!("us-epa".parse::<AqIndex>().unwrap(), AqIndex::UsEpa);
    assert_eq!(
        "cleanliness".parse::<AqIndex>().unwrap(),
        AqIndex::Cleanliness
    );
    let err = "eaqi".parse::<AqIndex>().unwrap_err().to_string();
    assert!(err.starts_with("aq_index: `eaqi`"), "{err}");
}

#[test]
fn a_stored_rule_without_audience_reads_as_general_and_others_round_trip() {
    let stored =
        r#"{"type":"pollen","forecast":"1d","sensitivity":"low","message":{"kind":"default"}}"#;
    let spec: RuleSpec = serde_json::from_str(stored).unwrap();
    assert_eq!(spec.audience(), Audience::General);
    assert_eq!(serde_json::to_string(&spec).unwrap(), stored);
    for audience in Audience::ALL {
        let json = serde_json::to_value(spec.clone().with_audience(audience)).unwrap();
        if audience == Audience::General {
            assert!(json.get("audience").is_none(), "{json}");
        } else {
            assert_eq!(json["audience"], audience.as_str());
        }
        let back = serde_json::from_value::<RuleSpec>(json).unwrap();
        assert_eq!(back.audience(), audience);
        assert_eq!(audience.as_str().parse::<Audience>().unwrap(), audience);
        let dashed = audience.as_str().replace('_', "-");
        assert_eq!(dashed.parse::<Audience>().unwrap(), audience);
    }
    let bad = format!(r#"{},"audience":"teens"}}"#, &stored[..stored.len() - 1]);
    assert!(serde_json::from_str::<RuleSpec>(&bad).is_err());
    let err = "teens".parse::<Audience>().unwrap_err().to_string();
    assert!(err.starts_with("audience: `teens`"), "{err}");
}

#[test]
fn a_stored_rule_without_repeat_reads_as_every_and_once_round_trips() {
    let stored =
        r#"{"type":"aq","forecast":"6h","sensitivity":"medium","message":{"kind":"default"}}"#;
    let spec: RuleSpec = serde_json::from_str(stored).unwrap();
    assert_eq!(spec.repeat(), Repeat::Every);
    assert_eq!(serde_json::to_string(&spec).unwrap(), stored);
    let once = spec.with_repeat(Repeat::Once);
    let json = serde_json::to_string(&once).unwrap();
    assert_eq!(
        json,
        r#"{"type":"aq","forecast":"6h","sensitivity":"medium","message":{"kind":"default"},"repeat":"once"}"#
    );
    assert_eq!(serde_json::from_str::<RuleSpec>(&json).unwrap(), once);
    let bad = json.replace("once", "twice");
    assert!(serde_json::from_str::<RuleSpec>(&bad).is_err());
    let err = "twice".parse::<Repeat>().unwrap_err().to_string();
    assert!(err.starts_with("repeat: `twice`"), "{err}");
}

#[test]
fn a_stored_rule_without_language_reads_as_english_and_others_round_trip() {
    use i18n_core::Language;
    let stored =
        r#"{"type":"aq","forecast":"6h","sensitivity":"medium","message":{"kind":"default"}}"#;
    let spec: RuleSpec = serde_json::from_str(stored).unwrap();
    assert_eq!(spec.language(), Language::English);
    assert_eq!(
        serde_json::to_string(&spec).unwrap(),
        stored,
        "English is not written"
    );
    let german = spec.with_language(Language::German);
    let json = serde_json::to_string(&german).unwrap();
    assert!(json.ends_with(r#","language":"de"}"#), "{json}");
    assert_eq!(serde_json::from_str::<RuleSpec>(&json).unwrap(), german);
    let bad = json.replace(r#""de""#, r#""sv""#);
    let err = serde_json::from_str::<RuleSpec>(&bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("`sv` is not a language"), "{err}");
}

#[test]
fn forecast_text_round_trips_and_refuses_others() {
    for f in AQ_HORIZONS.iter().chain(POLLEN_HORIZONS.iter()) {
        assert_eq!(f.to_string().parse::<Forecast>().unwrap(), *f);
    }
    for bad in [
        "0h", "4h", "97h", "5d", "0d", "tomorrow", "", "h", "-1h", "6 h",
    ] {
        assert!(bad.parse::<Forecast>().is_err(), "{bad}");
    }
}

#[test]
fn custom_needs_both_descriptions() {
    let err = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(1),
        Sensitivity::Low,
        custom("worse", "  "),
    )
    .unwrap_err();
    assert_eq!(
        err,
        RuleError::MissingDescription {
            field: "improvement"
        }
    );
}

#[test]
fn unknown_placeholder_is_named() {
    let err = RuleSpec::new(
        DataType::Pollen,
        Forecast::Today,
        Sensitivity::Low,
        custom("{kind} rises", "{aqi} better"),
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("`{aqi}`"), "{text}");
    assert!(text.contains("message.improvement"), "{text}");
    assert!(text.contains("{days}, {kind}, {category}"), "{text}");
}

#[test]
fn unclosed_brace_reports_its_position() {
    let err = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(1),
        Sensitivity::Low,
        custom("ok", "été {hours"),
    )
    .unwrap_err();
    assert_eq!(
        err,
        RuleError::UnclosedBrace {
            field: "improvement",
            at: 4
        }
    );
}

#[test]
fn serde_validates_stored_specs() {
    let spec = RuleSpec::new(
        DataType::Pollen,
        Forecast::Days(2),
        Sensitivity::Medium,
        MessageSpec::Default,
    )
    .unwrap();
    let json = serde_json::to_string(&spec).unwrap();
    assert_eq!(
        json,
        r#"{"type":"pollen","forecast":"2d","sensitivity":"medium","message":{"kind":"default"}}"#
    );
    assert_eq!(serde_json::from_str::<RuleSpec>(&json).unwrap(), spec);
    let bad = json.replace("2d", "6h");
    assert!(serde_json::from_str::<RuleSpec>(&bad).is_err());
}
