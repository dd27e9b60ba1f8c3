use super::*;

const NUMBERS: [i64; 6] = [0, 1, 2, 3, 5, 22];
const KINDS: [&str; 3] = ["tree", "grass", "weed"];
/// Texts no translation would write by itself: where English shows one, the translation must.
const SENTINELS: [(&str, &str); 3] = [
    ("aqi", "<aqi-value>"),
    ("number", "<number-value>"),
    ("duration", "<duration-value>"),
];

fn args(n: i64, kind: &'static str) -> Vec<(&'static str, Arg<'static>)> {
    let mut args: Vec<_> = ["hours", "n", "day", "size", "value"]
        .into_iter()
        .map(|name| (name, Arg::Number(n)))
        .collect();
    args.push(("kind", Arg::Text(kind)));
    args.extend(SENTINELS.map(|(name, text)| (name, Arg::Text(text))));
    args
}

fn english_ids() -> Vec<&'static str> {
    resource_ids(SOURCES[0]).collect()
}

#[test]
fn every_language_has_every_english_id_in_its_order_and_no_other() {
    let english = english_ids();
    assert!(english.len() > 100, "{}", english.len());
    for (language, source) in Language::ALL.into_iter().zip(SOURCES) {
        let ids: Vec<_> = resource_ids(source).collect();
        assert_eq!(ids, english, "locales/{language}.ftl");
        for id in &english {
            assert!(language.has(id), "{language} {id}");
        }
    }
}

#[test]
fn every_message_writes_in_every_language_with_the_values_english_shows() {
    for id in english_ids() {
        for n in NUMBERS {
            for kind in KINDS {
                let args = args(n, kind);
                let mut fluent = FluentArgs::new();
                for (name, value) in &args {
                    match *value {
                        Arg::Number(v) => fluent.set(*name, v),
                        Arg::Text(t) => fluent.set(*name, t),
                    }
                }
                let english = write(&CATALOGUE.bundles[0], id, Some(&fluent))
                    .unwrap_or_else(|| panic!("en {id} does not write"));
                for language in Language::ALL {
                    let text = write(&CATALOGUE.bundles[language as usize], id, Some(&fluent))
                        .unwrap_or_else(|| panic!("{language} {id} does not write"));
                    assert!(!text.trim().is_empty(), "{language} {id} is empty");
                    for (_, sentinel) in SENTINELS {
                        if english.contains(sentinel) {
                            assert!(text.contains(sentinel), "{language} {id}: {text}");
                        }
                    }
                    if n >= 2 && english.contains(&n.to_string()) {
                        assert!(
                            text.contains(&n.to_string()),
                            "{language} {id} n={n}: {text}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn advice_and_alert_messages_are_translated_not_copied() {
    for language in &Language::ALL[1..] {
        for id in english_ids() {
            let sentence = id.starts_with("air-")
                || id.starts_with("pollen-up-")
                || id.starts_with("pollen-down-");
            if sentence {
                assert_ne!(
                    language.text(id),
                    Language::English.text(id),
                    "{language} {id}"
                );
            }
        }
        let drop = language.format(
            "alert-pollen-drop",
            &[
                ("day", Arg::Number(1)),
                ("kind", Arg::Text("grass")),
                ("size", Arg::Number(2)),
            ],
        );
        assert_ne!(
            drop,
            Language::English.format(
                "alert-pollen-drop",
                &[
                    ("day", Arg::Number(1)),
                    ("kind", Arg::Text("grass")),
                    ("size", Arg::Number(2))
                ],
            )
        );
    }
}

#[test]
fn the_pollen_sentence_says_each_kind_size_and_day_apart_in_every_language() {
    for language in Language::ALL {
        for id in ["alert-pollen-rise", "alert-pollen-drop"] {
            let mut seen = std::collections::HashSet::new();
            for day in [0, 1, 3] {
                for kind in KINDS {
                    for size in [1, 2, 3] {
                        let text = language.format(
                            id,
                            &[
                                ("day", Arg::Number(day)),
                                ("kind", Arg::Text(kind)),
                                ("size", Arg::Number(size)),
                            ],
                        );
                        assert!(seen.insert(text.clone()), "{language} {id}: {text}");
                    }
                }
            }
        }
    }
}

#[test]
fn polish_counts_hours_in_three_forms_and_english_in_two() {
    let hours = |language: Language, n| language.format("duration-hours", &[("n", Arg::Number(n))]);
    // One, few (2 to 4, 22 to 24) and many (5 to 21) in Polish.
    let word = |text: String| text.split_once(' ').map(|(_, w)| w.to_owned()).unwrap();
    let polish: std::collections::HashSet<_> = [1, 2, 5, 22]
        .map(|n| word(hours(Language::Polish, n)))
        .into_iter()
        .collect();
    assert_eq!(polish.len(), 3, "{polish:?}");
    assert_eq!(
        word(hours(Language::Polish, 2)),
        word(hours(Language::Polish, 22))
    );
    assert_eq!(hours(Language::English, 22), "22 hours");
}

#[test]
fn each_language_names_itself_and_the_names_differ() {
    let names: std::collections::HashSet<_> = Language::ALL.map(Language::name).into();
    assert_eq!(names.len(), Language::ALL.len());
    assert_eq!(Language::German.name(), "Deutsch");
}

#[test]
fn a_missing_variable_falls_back_to_the_id_rather_than_a_broken_sentence() {
    assert_eq!(
        Language::German.format("alert-air-worse", &[]),
        "alert-air-worse"
    );
}
