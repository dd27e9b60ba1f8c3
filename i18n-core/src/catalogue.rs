//! The catalogue: each language's Fluent file, parsed once, and the texts read from it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use unic_langid::LanguageIdentifier;

use crate::Language;

/// One value a message's variable takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg<'a> {
    /// A whole number: counted with the language's plural rules where a message selects on it.
    Number(i64),
    /// A text, put in as given (a selector on it matches its exact value, such as `grass`).
    Text(&'a str),
}

/// The catalogue's files, in [`Language::ALL`]'s order.
const SOURCES: [&str; 8] = [
    include_str!("../locales/en.ftl"),
    include_str!("../locales/de.ftl"),
    include_str!("../locales/fr.ftl"),
    include_str!("../locales/es.ftl"),
    include_str!("../locales/it.ftl"),
    include_str!("../locales/nl.ftl"),
    include_str!("../locales/pl.ftl"),
    include_str!("../locales/pt.ftl"),
];

/// Every language's bundle, and the messages that need no variable, written out once so that
/// reading one is a map lookup that borrows from the catalogue.
struct Catalogue {
    bundles: Vec<FluentBundle<FluentResource>>,
    plain: Vec<HashMap<String, String>>,
}

static CATALOGUE: LazyLock<Catalogue> = LazyLock::new(Catalogue::load);

impl Catalogue {
    fn load() -> Self {
        let mut bundles = Vec::new();
        let mut plain = Vec::new();
        for (language, source) in Language::ALL.into_iter().zip(SOURCES) {
            // The files are compiled in and checked by this crate's tests, so a file that does
            // not parse is a build that should never have passed them.
            let resource = FluentResource::try_new(source.to_owned()).unwrap_or_else(|(_, e)| {
                panic!("locales/{}.ftl does not parse: {e:?}", language.tag())
            });
            let id: LanguageIdentifier = language
                .tag()
                .parse()
                .unwrap_or_else(|_| panic!("`{}` is a language identifier", language.tag()));
            let mut bundle = FluentBundle::new_concurrent(vec![id]);
            // Unicode isolation marks around variables suit right-to-left scripts; in these
            // languages they would only be invisible characters in JSON and webhook files.
            bundle.set_use_isolating(false);
            if let Err(e) = bundle.add_resource(resource) {
                panic!("locales/{}.ftl repeats an id: {e:?}", language.tag());
            }
            let mut texts = HashMap::new();
            for entry in resource_ids(source) {
                if let Some(text) = write(&bundle, entry, None) {
                    texts.insert(entry.to_owned(), text);
                }
            }
            bundles.push(bundle);
            plain.push(texts);
        }
        Self { bundles, plain }
    }
}

/// The ids of a Fluent file's messages: the lines that start an entry (`id = …`).
fn resource_ids(source: &str) -> impl Iterator<Item = &str> {
    source.lines().filter_map(|line| {
        let (id, _) = line.split_once(" =")?;
        let first = id.chars().next()?;
        (first.is_ascii_lowercase()
            && id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
        .then_some(id)
    })
}

/// The message `id` of `bundle` with `args`; `None` when the bundle lacks it or a variable it
/// reads is not given.
fn write(
    bundle: &FluentBundle<FluentResource>,
    id: &str,
    args: Option<&FluentArgs<'_>>,
) -> Option<String> {
    let pattern = bundle.get_message(id)?.value()?;
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, args, &mut errors);
    errors.is_empty().then(|| text.into_owned())
}

/// The catalogue's id of a label of `scale` by its English name, as [`Language::label`] reads
/// it: what a test asks [`Language::has`] of, for every label a program shows.
///
/// ```
/// assert_eq!(i18n_core::label_id("ci", "Extremely poor"), "ci-extremely-poor");
/// ```
#[must_use]
pub fn label_id(scale: &str, english: &str) -> String {
    format!("{scale}-{}", english.to_lowercase().replace(' ', "-"))
}

impl Language {
    /// The catalogue's text `id`, which takes no variable: in this language, or in English
    /// where this language lacks it; the id itself where English lacks it too, so that a
    /// missing text shows instead of vanishing.
    ///
    /// ```
    /// use i18n_core::Language;
    ///
    /// assert_eq!(Language::English.text("pollen-level-very-high"), "Very high");
    /// assert_eq!(Language::French.text("language-name"), "Français");
    /// assert_eq!(Language::German.text("no-such-text"), "no-such-text");
    /// ```
    #[must_use]
    pub fn text(self, id: &str) -> &str {
        self.get(id).unwrap_or(id)
    }

    /// The catalogue's text `id`, which takes no variable, as [`Language::text`] finds it
    /// (English where this language lacks it), for an id put together at run time; `None` where
    /// English lacks it too.
    ///
    /// ```
    /// use i18n_core::Language;
    ///
    /// let level = "high";
    /// assert_eq!(Language::English.get(&format!("pollen-level-{level}")), Some("High"));
    /// assert_eq!(Language::English.get("pollen-level-extreme"), None);
    /// ```
    #[must_use]
    pub fn get(self, id: &str) -> Option<&'static str> {
        let catalogue: &'static Catalogue = &CATALOGUE;
        catalogue.plain[self as usize]
            .get(id)
            .or_else(|| catalogue.plain[Language::English as usize].get(id))
            .map(String::as_str)
    }

    /// The name of a category (or another label) of `scale`, by its English name: the id is the
    /// scale, a hyphen and the name in lower case with hyphens for spaces (`ci` and `Extremely
    /// poor` read `ci-extremely-poor`). The English name itself where the catalogue lacks it.
    ///
    /// ```
    /// use i18n_core::Language;
    ///
    /// assert_eq!(Language::English.label("usa-epa", "Unhealthy for Sensitive Groups"),
    ///     "Unhealthy for Sensitive Groups");
    /// assert_ne!(Language::Spanish.label("ci", "Extremely poor"), "Extremely poor");
    /// assert_eq!(Language::Spanish.label("ci", "Unheard of"), "Unheard of");
    /// ```
    #[must_use]
    pub fn label(self, scale: &str, english: &'static str) -> &'static str {
        self.get(&label_id(scale, english)).unwrap_or(english)
    }

    /// The catalogue's message `id` with its variables: in this language, or in English where
    /// this language lacks it (or reads a variable not given); the id itself where neither
    /// can write it.
    ///
    /// ```
    /// use i18n_core::{Arg, Language};
    ///
    /// let args = [("hours", Arg::Number(3)), ("aqi", Arg::Text("31 AQI"))];
    /// assert_eq!(
    ///     Language::English.format("alert-air-worse", &args),
    ///     "In 3 hours the air quality is expected to be worse (31 AQI)."
    /// );
    /// ```
    #[must_use]
    pub fn format(self, id: &str, args: &[(&str, Arg<'_>)]) -> String {
        let mut fluent = FluentArgs::with_capacity(args.len());
        for (name, value) in args {
            let value = match *value {
                Arg::Number(n) => FluentValue::from(n),
                Arg::Text(t) => FluentValue::from(t),
            };
            fluent.set(Cow::Borrowed(*name), value);
        }
        let catalogue = &*CATALOGUE;
        write(&catalogue.bundles[self as usize], id, Some(&fluent))
            .or_else(|| {
                write(
                    &catalogue.bundles[Language::English as usize],
                    id,
                    Some(&fluent),
                )
            })
            .unwrap_or_else(|| id.to_owned())
    }

    /// Whether the catalogue has the message `id` in this language itself, not by falling
    /// back to English: what tests of every text a program shows ask.
    #[must_use]
    pub fn has(self, id: &str) -> bool {
        CATALOGUE.bundles[self as usize].has_message(id)
    }

    /// The language's own name for itself (`Deutsch`), for a list to choose from.
    #[must_use]
    pub fn name(self) -> &'static str {
        CATALOGUE.plain[self as usize]
            .get("language-name")
            .map_or(self.tag(), String::as_str)
    }
}

#[cfg(test)]
mod tests;
