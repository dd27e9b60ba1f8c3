//! The languages of the catalogue and how a request names one.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A language the catalogue is written in.
///
/// Written as its BCP 47 primary language subtag (`de`); a longer tag names the same language
/// (`de-AT`, `pt-BR`), since the catalogue has one text per language, not per region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Language {
    /// English (`en`): the catalogue's source and every fallback.
    #[default]
    English,
    /// German (`de`).
    German,
    /// French (`fr`).
    French,
    /// Spanish (`es`).
    Spanish,
    /// Italian (`it`).
    Italian,
    /// Dutch (`nl`).
    Dutch,
    /// Polish (`pl`).
    Polish,
    /// Portuguese (`pt`).
    Portuguese,
}

/// A tag that names no language of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLanguage(pub String);

impl fmt::Display for UnknownLanguage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a language of the catalogue; name one of {}",
            self.0,
            Language::ALL.map(Language::tag).join(", ")
        )
    }
}

impl std::error::Error for UnknownLanguage {}

impl Language {
    /// Every language, English first.
    pub const ALL: [Language; 8] = [
        Language::English,
        Language::German,
        Language::French,
        Language::Spanish,
        Language::Italian,
        Language::Dutch,
        Language::Polish,
        Language::Portuguese,
    ];

    /// The language's BCP 47 tag, as `Content-Language` says it.
    #[must_use]
    pub fn tag(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::German => "de",
            Language::French => "fr",
            Language::Spanish => "es",
            Language::Italian => "it",
            Language::Dutch => "nl",
            Language::Polish => "pl",
            Language::Portuguese => "pt",
        }
    }

    /// The language a BCP 47 tag names, by its primary subtag, in any case: `pt-BR` and `PT`
    /// are Portuguese. `None` for a language the catalogue does not have.
    ///
    /// ```
    /// use i18n_core::Language;
    ///
    /// assert_eq!(Language::from_tag("pt-BR"), Some(Language::Portuguese));
    /// assert_eq!(Language::from_tag("nl_BE"), Some(Language::Dutch));
    /// assert_eq!(Language::from_tag("sv"), None);
    /// assert_eq!(Language::from_tag(""), None);
    /// ```
    #[must_use]
    pub fn from_tag(tag: &str) -> Option<Language> {
        let primary = tag.split(['-', '_']).next().unwrap_or_default();
        Language::ALL
            .into_iter()
            .find(|l| l.tag().eq_ignore_ascii_case(primary))
    }

    /// The language an `Accept-Language` header prefers among the catalogue's, by its quality
    /// values (the first listed on a tie); English when it names none of them, or is malformed.
    ///
    /// ```
    /// use i18n_core::Language;
    ///
    /// assert_eq!(Language::preferred("sv-SE, de;q=0.8, en;q=0.5"), Language::German);
    /// assert_eq!(Language::preferred("fr-CA;q=0.4, es;q=0.9"), Language::Spanish);
    /// assert_eq!(Language::preferred("*"), Language::English);
    /// ```
    #[must_use]
    pub fn preferred(accept_language: &str) -> Language {
        let mut best: Option<(f32, Language)> = None;
        for item in accept_language.split(',') {
            let mut parts = item.split(';');
            let Some(language) = parts.next().and_then(|t| Language::from_tag(t.trim())) else {
                continue;
            };
            let quality = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())
                .unwrap_or(0.0);
            if quality > 0.0 && best.is_none_or(|(q, _)| quality > q) {
                best = Some((quality, language));
            }
        }
        best.map_or(Language::English, |(_, l)| l)
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

impl FromStr for Language {
    type Err = UnknownLanguage;

    fn from_str(tag: &str) -> Result<Self, Self::Err> {
        Language::from_tag(tag).ok_or_else(|| UnknownLanguage(tag.to_owned()))
    }
}

impl Serialize for Language {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.tag())
    }
}

impl<'de> Deserialize<'de> for Language {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let tag = String::deserialize(deserializer)?;
        tag.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tag_reads_back_as_its_language_and_as_json() {
        for language in Language::ALL {
            assert_eq!(Language::from_tag(language.tag()), Some(language));
            let json = serde_json::to_string(&language).unwrap();
            assert_eq!(json, format!("\"{}\"", language.tag()));
            assert_eq!(serde_json::from_str::<Language>(&json).unwrap(), language);
        }
        let refused = serde_json::from_str::<Language>("\"sv\"").unwrap_err();
        assert!(
            refused.to_string().contains("`sv` is not a language"),
            "{refused}"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_header_gives_a_language_and_an_exact_tag_is_read_as_itself(
            header in "[ -~]{0,64}",
            pick in 0usize..8,
        ) {
            let _ = Language::preferred(&header);
            let _ = Language::from_tag(&header);
            let language = Language::ALL[pick];
            // Whatever comes first at a lower quality, a language named at the full quality
            // is the one preferred.
            let tagged = format!("{};q=0.9, {}", header.replace([',', ';'], " "), language.tag());
            proptest::prop_assert_eq!(Language::preferred(&tagged), language);
            proptest::prop_assert_eq!(Language::preferred(language.tag()), language);
        }
    }

    #[test]
    fn a_refused_quality_or_an_unknown_language_is_never_preferred() {
        assert_eq!(Language::preferred("de;q=0, fr;q=0.1"), Language::French);
        assert_eq!(Language::preferred("de;q=abc"), Language::English);
        assert_eq!(Language::preferred(""), Language::English);
        assert_eq!(Language::preferred("pl, pt"), Language::Polish);
    }
}
