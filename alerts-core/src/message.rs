//! Alert messages: the default descriptions of `docs/scoring.md`, custom descriptions with their
//! placeholders, and the predefined recommendations.
//!
//! A message has two parts. The description is the rule's choice: the default text, or the
//! customer's own with `{hours}`, `{days}`, `{aqi}`, `{kind}`, `{category}` and the episode's
//! `{peak_category}`, `{peak_hours}`, `{peak_days}` and `{duration}` filled in; the
//! number of an air-quality description is the index the rule chose ([`AqIndex`]). The
//! recommendation is never customisable: it is picked from a fixed table by the rule's
//! audience ([`Audience`], [`crate::advice`]), the direction of the change and the category
//! the air or pollen reaches.
//!
//! ```
//! use alerts_core::change::{AqChange, Change};
//! use alerts_core::message::{render, MessageConfig};
//! use alerts_core::rule::{AqIndex, MessageSpec};
//! use aq_core::{CleanlinessIndex, Concentration, Concentrations, Pollutant};
//!
//! let ci = |v| CleanlinessIndex::new(v).unwrap();
//! let change = Change::Aq(AqChange::new(3, ci(72.0), ci(31.4)));
//! let config = MessageConfig::default();
//! let msg = render(&MessageSpec::Default, &change, AqIndex::Cleanliness, None, &config);
//! assert_eq!(msg.description, "In 3 hours the air quality is expected to be worse (31 AQI).");
//! // The same change for a rule showing the US AQI, with the hour's concentrations.
//! let air = Concentrations::default().with(Pollutant::Pm25, Concentration::new(55.5).unwrap());
//! let msg = render(&MessageSpec::Default, &change, AqIndex::UsEpa, Some(&[Some(air)]), &config);
//! assert_eq!(msg.description, "In 3 hours the air quality is expected to be worse (US AQI 151).");
//! assert_eq!(
//!     msg.recommendation,
//!     "Limit prolonged or heavy outdoor exertion, especially if you are sensitive to air pollution."
//! );
//! ```

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::sync::{Arc, LazyLock};

use aq_core::{
    AqiCategory, AqiTable, CiCategory, CleanlinessIndex, Concentration, Concentrations, EaqiBands,
    PollenLevel, PollenType, Pollutant,
};
use i18n_core::{Arg, Language};

use crate::advice;
use crate::change::{AqChange, Change, Direction, Duration, PollenChange};
use crate::ndjson::IndexReading;
use crate::rule::{
    AqIndex, Audience, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity, for_each_part,
};

/// The concentrations of the hour a message speaks of and of the hours before it, newest
/// first (`[0]` is the hour itself, `[i]` the one `i` hours earlier; `None` where the source
/// has none): what a US AQI averages, as EPA does, when the hours are there.
pub type AirHours<'a> = &'a [Option<Concentrations>];

/// Computes the "local AQI" that air-quality descriptions show for rules choosing
/// [`AqIndex::UsEpa`], from the concentrations the source gives for the forecast hour.
pub trait LocalAqi: Send + Sync {
    /// The local AQI of one hour's `concentrations`; `None` when they do not give one.
    fn aqi(&self, concentrations: &Concentrations) -> Option<u32>;

    /// The local AQI of the hour `hours[0]`, given the hours before it too. The provided
    /// method reads the hour alone, with [`LocalAqi::aqi`].
    fn aqi_of_hours(&self, hours: AirHours<'_>) -> Option<u32> {
        hours.first().copied().flatten().and_then(|c| self.aqi(&c))
    }

    /// As [`LocalAqi::aqi_of_hours`], and whether the value is only a lower bound (the index
    /// is at least that). The provided method says it never is.
    fn bounded_aqi_of_hours(&self, hours: AirHours<'_>) -> Option<(u32, bool)> {
        self.aqi_of_hours(hours).map(|v| (v, false))
    }
}

/// The US EPA AQI from the 2024 table ([`AqiTable::Epa2024`]): the highest sub-index over the
/// pollutants measured, each averaged as EPA does where the past hours are given
/// ([`AqiTable::us_aqi`], the same values lookups show), the hour's own value standing in
/// where they are not.
///
/// ```
/// use alerts_core::message::{LocalAqi, UsEpaAqi};
/// use aq_core::{Concentration, Concentrations, Pollutant};
///
/// let air = Concentrations::default().with(Pollutant::Pm25, Concentration::new(35.4).unwrap());
/// assert_eq!(UsEpaAqi.aqi(&air), Some(100));
/// // Hourly SO₂ over 304 ppb (about 810 µg/m³) is past EPA's 1-hour rows: above 200.
/// let so2 = Concentrations::default().with(Pollutant::So2, Concentration::new(1000.0).unwrap());
/// assert_eq!(UsEpaAqi.bounded_aqi_of_hours(&[Some(so2)]), Some((201, true)));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct UsEpaAqi;

impl LocalAqi for UsEpaAqi {
    fn aqi(&self, concentrations: &Concentrations) -> Option<u32> {
        AqiTable::Epa2024
            .local_aqi(concentrations)
            .map(|(aqi, _)| u32::from(aqi))
    }

    fn aqi_of_hours(&self, hours: AirHours<'_>) -> Option<u32> {
        AqiTable::Epa2024
            .us_aqi(hours)
            .map(|aqi| u32::from(aqi.value))
    }

    fn bounded_aqi_of_hours(&self, hours: AirHours<'_>) -> Option<(u32, bool)> {
        AqiTable::Epa2024
            .us_aqi(hours)
            .map(|aqi| (u32::from(aqi.value), aqi.at_least))
    }
}

/// How messages are rendered.
#[derive(Clone, Default)]
pub struct MessageConfig {
    /// The US AQI of rules choosing [`AqIndex::UsEpa`]; `None` (the default) is [`UsEpaAqi`].
    pub local_aqi: Option<Arc<dyn LocalAqi>>,
}

impl fmt::Debug for MessageConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageConfig")
            .field("local_aqi", &self.local_aqi.as_ref().map(|_| "configured"))
            .finish()
    }
}

/// The number an air-quality description shows, and which index it is.
///
/// ```
/// use alerts_core::message::ShownAqi;
///
/// assert_eq!(ShownAqi::Cleanliness(31).to_string(), "31 AQI");
/// assert_eq!(ShownAqi::UsEpa(Some(152)).to_string(), "US AQI 152");
/// assert_eq!(ShownAqi::UsEpa(None).to_string(), "US AQI not available");
/// assert_eq!(ShownAqi::UsEpaAtLeast(201).to_string(), "US AQI above 200");
/// assert_eq!(ShownAqi::UsEpaAtLeast(350).to_string(), "US AQI at least 350");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShownAqi {
    /// The forecast CI, rounded (the spec's `(<aqi> AQI)`).
    Cleanliness(u32),
    /// The US EPA AQI; `None` when the hour's concentrations give none, which the description
    /// says rather than showing a number the data does not support.
    UsEpa(Option<u32>),
    /// The US EPA AQI is at least this value, by how much more the hour's data cannot tell (an
    /// hourly SO₂ past EPA's 1-hour rows): `above 200` for the 201 that SO₂ alone gives,
    /// `at least N` when another pollutant's AQI is higher still.
    UsEpaAtLeast(u32),
}

impl ShownAqi {
    /// What the `{aqi}` placeholder becomes in `language`: the number alone, `not available`,
    /// or a lower bound as a reader says it ("above 200" for the first value past EPA's 1-hour
    /// SO₂ rows, "at least N" for any other).
    fn number(self, language: Language) -> String {
        match self {
            ShownAqi::Cleanliness(n) | ShownAqi::UsEpa(Some(n)) => n.to_string(),
            ShownAqi::UsEpaAtLeast(201) => {
                language.format("aqi-above", &[("value", Arg::Number(200))])
            }
            ShownAqi::UsEpaAtLeast(n) => {
                language.format("aqi-at-least", &[("value", Arg::Number(i64::from(n)))])
            }
            ShownAqi::UsEpa(None) => language.text("aqi-not-available").to_owned(),
        }
    }

    /// The number with its index's name, as a default description shows it, in `language`.
    ///
    /// ```
    /// use alerts_core::message::ShownAqi;
    /// use i18n_core::Language;
    ///
    /// assert_eq!(ShownAqi::UsEpa(None).text(Language::English), "US AQI not available");
    /// assert_ne!(ShownAqi::UsEpa(None).text(Language::Italian), "US AQI not available");
    /// ```
    #[must_use]
    pub fn text(self, language: Language) -> String {
        let id = match self {
            ShownAqi::Cleanliness(_) => "aqi-shown-ci",
            ShownAqi::UsEpa(_) | ShownAqi::UsEpaAtLeast(_) => "aqi-shown-us",
        };
        language.format(id, &[("number", Arg::Text(&self.number(language)))])
    }
}

impl fmt::Display for ShownAqi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text(Language::English))
    }
}

impl MessageConfig {
    /// What an air-quality description shows for `change` under `index`: the forecast CI, or
    /// the US AQI of `concentrations` (the source's for the forecast hour, `None` when it gave
    /// none).
    #[must_use]
    pub fn shown_aqi(
        &self,
        index: AqIndex,
        change: &AqChange,
        concentrations: Option<AirHours<'_>>,
    ) -> ShownAqi {
        match index {
            AqIndex::Cleanliness => ShownAqi::Cleanliness(u32::from(change.forecast.rounded())),
            AqIndex::UsEpa => match concentrations.and_then(|c| self.us_aqi(c)) {
                Some((value, true)) => ShownAqi::UsEpaAtLeast(value),
                other => ShownAqi::UsEpa(other.map(|(value, _)| value)),
            },
        }
    }

    /// The US AQI of the hour `hours[0]`, and whether it is a lower bound: the configured
    /// local AQI, or [`UsEpaAqi`].
    fn us_aqi(&self, hours: AirHours<'_>) -> Option<(u32, bool)> {
        match &self.local_aqi {
            Some(local) => local.bounded_aqi_of_hours(hours),
            None => UsEpaAqi.bounded_aqi_of_hours(hours),
        }
    }

    /// The value and category of `index` for an hour whose CI is `ci` and whose concentrations
    /// (with the hours before) are `concentrations`: the NDJSON `index` and `peak` members.
    ///
    /// ```
    /// use alerts_core::message::MessageConfig;
    /// use alerts_core::rule::AqIndex;
    /// use aq_core::{CleanlinessIndex, Concentration, Concentrations, Pollutant};
    ///
    /// let ci = CleanlinessIndex::new(31.4).unwrap();
    /// let config = MessageConfig::default();
    /// let reading = config.reading(AqIndex::Cleanliness, ci, None);
    /// assert_eq!((reading.value, &*reading.category), (Some(31.0), "Low"));
    /// let air = Concentrations::default().with(Pollutant::Pm25, Concentration::new(55.5).unwrap());
    /// let reading = config.reading(AqIndex::UsEpa, ci, Some(&[Some(air)]));
    /// assert_eq!((reading.value, &*reading.category), (Some(151.0), "Unhealthy"));
    /// ```
    #[must_use]
    pub fn reading(
        &self,
        index: AqIndex,
        ci: CleanlinessIndex,
        concentrations: Option<AirHours<'_>>,
    ) -> IndexReading {
        match index {
            AqIndex::Cleanliness => IndexReading {
                code: Cow::Borrowed("cleanliness"),
                value: Some(f64::from(ci.rounded())),
                category: Cow::Borrowed(ci.category().name()),
                at_least: false,
            },
            AqIndex::UsEpa => {
                let aqi = concentrations.and_then(|c| self.us_aqi(c));
                IndexReading {
                    code: Cow::Borrowed("us_aqi"),
                    value: aqi.map(|(v, _)| f64::from(v)),
                    category: Cow::Borrowed(aqi.map_or("", |(v, _)| {
                        AqiCategory::of(u16::try_from(v).unwrap_or(u16::MAX)).name()
                    })),
                    at_least: aqi.is_some_and(|(_, bound)| bound),
                }
            }
        }
    }
}

/// A rendered message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedMessage {
    /// The description: default or custom.
    pub description: String,
    /// The predefined recommendation.
    pub recommendation: &'static str,
}

/// Renders the message of `change` for a rule whose message selector is `spec` and whose
/// air-quality index is `index`; `concentrations` are the source's for the forecast hour of an
/// air-quality change (what a US AQI is computed from). The recommendation is the general
/// population's, in English; [`render_rule`] renders with a rule's audience and language.
#[must_use]
pub fn render(
    spec: &MessageSpec,
    change: &Change,
    index: AqIndex,
    concentrations: Option<AirHours<'_>>,
    config: &MessageConfig,
) -> RenderedMessage {
    let mut description = String::new();
    write_description(
        &mut description,
        spec,
        change,
        index,
        concentrations,
        config,
        Language::English,
    );
    RenderedMessage {
        description,
        recommendation: recommendation(change),
    }
}

/// Renders the message of `change` for `rule` with every choice it makes: its message
/// selector, its index, its audience's recommendation (where [`render`] gives the general
/// population's) and its language.
///
/// ```
/// use alerts_core::change::{AqChange, Change};
/// use alerts_core::message::{render_rule, MessageConfig};
/// use alerts_core::rule::{Audience, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
/// use aq_core::CleanlinessIndex;
///
/// let ci = |v| CleanlinessIndex::new(v).unwrap();
/// let change = Change::Aq(AqChange::new(3, ci(72.0), ci(31.4)));
/// let rule = RuleSpec::new(DataType::Aq, Forecast::Hours(3), Sensitivity::High,
///     MessageSpec::Default).unwrap().with_audience(Audience::Athletes);
/// let msg = render_rule(&rule, &change, None, &MessageConfig::default());
/// assert_eq!(msg.description, "In 3 hours the air quality is expected to be worse (31 AQI).");
/// assert_eq!(
///     msg.recommendation,
///     "Move hard or long training indoors or to cleaner hours; keep outdoor sessions easy."
/// );
/// ```
#[must_use]
pub fn render_rule(
    rule: &RuleSpec,
    change: &Change,
    concentrations: Option<AirHours<'_>>,
    config: &MessageConfig,
) -> RenderedMessage {
    let mut description = String::new();
    write_description(
        &mut description,
        rule.message(),
        change,
        rule.aq_index(),
        concentrations,
        config,
        rule.language(),
    );
    RenderedMessage {
        description,
        recommendation: advice::recommendation(change, rule.audience(), rule.language()),
    }
}

/// Appends the description of `change` in `language` to `out`, as [`render_rule`]: the
/// evaluator's path, which reuses one buffer for every alert.
pub fn write_description(
    out: &mut String,
    spec: &MessageSpec,
    change: &Change,
    index: AqIndex,
    concentrations: Option<AirHours<'_>>,
    config: &MessageConfig,
    language: Language,
) {
    let aqi = match change {
        Change::Aq(aq) => config.shown_aqi(index, aq, concentrations),
        // Pollen descriptions show no index.
        Change::Pollen(_) => ShownAqi::Cleanliness(0),
    };
    write_with_aqi(out, spec, change, aqi, language);
}

fn write_with_aqi(
    out: &mut String,
    spec: &MessageSpec,
    change: &Change,
    aqi: ShownAqi,
    language: Language,
) {
    match spec {
        MessageSpec::Default => write_default(out, change, aqi, language),
        MessageSpec::Custom {
            deterioration,
            improvement,
        } => {
            let (field, template) = match change.direction() {
                Direction::Deterioration => ("deterioration", deterioration),
                Direction::Improvement => ("improvement", improvement),
            };
            let start = out.len();
            // Both callbacks append to the same buffer, one at a time.
            let cell = RefCell::new(&mut *out);
            let rendered = for_each_part(
                field,
                template,
                |literal| cell.borrow_mut().push_str(literal),
                |name| {
                    // Cannot fail: the placeholder sink only appends to a String.
                    let _ = write_placeholder(&mut cell.borrow_mut(), name, change, aqi, language);
                    Ok(())
                },
            );
            // A stored rule was validated when saved, so this only guards against a template
            // that was tampered with in storage: the customer still gets a sensible message.
            if rendered.is_err() {
                out.truncate(start);
                write_default(out, change, aqi, language);
            }
        }
    }
}

/// The names placeholders show, in one language: looked up in the catalogue once rather than
/// per alert, by the order of [`CiCategory::ALL`], the pollen levels' values and
/// [`PollenType::ALL`].
struct Names {
    ci: [&'static str; 6],
    levels: [&'static str; 6],
    kinds: [&'static str; 3],
}

static NAMES: LazyLock<[Names; Language::ALL.len()]> = LazyLock::new(|| {
    Language::ALL.map(|language| Names {
        ci: CiCategory::ALL.map(|c| language.label("ci", c.name())),
        levels: PollenLevel::ALL.map(|l| language.label("pollen-level", l.name())),
        kinds: PollenType::ALL.map(|k| language.label("pollen-type", k.name())),
    })
});

fn write_placeholder(
    out: &mut String,
    name: &str,
    change: &Change,
    aqi: ShownAqi,
    language: Language,
) -> fmt::Result {
    let names = &NAMES[language as usize];
    let ci = |c: CleanlinessIndex| names.ci[c.category() as usize];
    let pollen = |l: PollenLevel| names.levels[usize::from(l.value())];
    match (name, change) {
        ("hours", Change::Aq(c)) => write!(out, "{}", c.hours),
        ("aqi", Change::Aq(_)) => out.write_str(&aqi.number(language)),
        ("category", Change::Aq(c)) => out.write_str(ci(c.forecast)),
        ("peak_hours", Change::Aq(c)) => write!(out, "{}", c.peak_hours),
        ("peak_category", Change::Aq(c)) => out.write_str(ci(c.peak)),
        ("duration", Change::Aq(c)) => {
            out.write_str(&duration(c.duration(), "duration-hours", language))
        }
        ("days", Change::Pollen(c)) => write!(out, "{}", c.day),
        ("kind", Change::Pollen(c)) => out.write_str(names.kinds[c.kind as usize]),
        ("category", Change::Pollen(c)) => out.write_str(pollen(c.forecast)),
        ("peak_days", Change::Pollen(c)) => write!(out, "{}", c.peak_day),
        ("peak_category", Change::Pollen(c)) => out.write_str(pollen(c.peak)),
        ("duration", Change::Pollen(c)) => {
            out.write_str(&duration(c.duration(), "duration-days", language))
        }
        // Validation refuses placeholders that the data type does not fill; one that slipped
        // through stays visible as written rather than vanishing.
        (other, _) => write!(out, "{{{other}}}"),
    }
}

/// `{duration}`: `3 hours`, or `at least 3 hours` when the episode lasts to the end of the
/// forecast read, counted by the catalogue's `unit` (`duration-hours` or `duration-days`).
fn duration(duration: Duration, unit: &str, language: Language) -> String {
    let n = language.format(unit, &[("n", Arg::Number(i64::from(duration.steps())))]);
    match duration {
        Duration::AtLeast(_) => {
            language.format("duration-at-least", &[("duration", Arg::Text(&n))])
        }
        Duration::Exactly(_) => n,
    }
}

fn write_default(out: &mut String, change: &Change, aqi: ShownAqi, language: Language) {
    let text = match change {
        Change::Aq(c) => {
            let id = match c.direction() {
                Direction::Deterioration => "alert-air-worse",
                Direction::Improvement => "alert-air-better",
            };
            let aqi = aqi.text(language);
            language.format(
                id,
                &[
                    ("hours", Arg::Number(i64::from(c.hours))),
                    ("aqi", Arg::Text(&aqi)),
                ],
            )
        }
        Change::Pollen(c) => {
            let id = match c.direction() {
                Direction::Deterioration => "alert-pollen-rise",
                Direction::Improvement => "alert-pollen-drop",
            };
            language.format(
                id,
                &[
                    ("day", Arg::Number(i64::from(c.day))),
                    ("kind", Arg::Text(c.kind.name())),
                    ("size", Arg::Number(i64::from(c.levels()))),
                ],
            )
        }
    };
    out.push_str(&text);
}

/// The general population's predefined recommendation for `change`, chosen by its direction
/// and the category it reaches (the CI category for air quality, the level for pollen);
/// [`advice::recommendation`] gives any audience's.
///
/// | change | reaches | advice |
/// |---|---|---|
/// | air worse | Excellent, Good | no change needed |
/// | air worse | Moderate | sensitive people take it easier |
/// | air worse | Low | limit prolonged outdoor exertion |
/// | air worse | Poor | avoid strenuous outdoor activity, stay indoors |
/// | air worse | Extremely poor | everyone: no outdoor activity, stay indoors |
/// | air better | Excellent, Good | a good time to be outdoors and air the home |
/// | air better | Moderate | most people can resume outdoor activity |
/// | air better | Low, Poor | still unhealthy, keep limiting exertion |
/// | pollen rises | None to Low | most allergy sufferers unaffected |
/// | pollen rises | Moderate | keep medication at hand |
/// | pollen rises | High, Very high | take medication early, limit time outdoors |
/// | pollen drops | None to Low | a good time outdoors for allergy sufferers |
/// | pollen drops | Moderate | easing, stay prepared |
/// | pollen drops | High, Very high | easing but high, keep taking precautions |
#[must_use]
pub fn recommendation(change: &Change) -> &'static str {
    advice::recommendation(change, Audience::General, Language::English)
}

/// A representative change for a rule, so that the dashboard can show the message the rule
/// would produce: at the rule's horizon, in `direction`, of a size that trips its sensitivity
/// with the default thresholds (grass pollen for pollen rules).
#[must_use]
pub fn sample_change(spec: &RuleSpec, direction: Direction) -> Change {
    let step = match spec.sensitivity() {
        Sensitivity::High => 1u8,
        Sensitivity::Medium => 2,
        Sensitivity::Low => 3,
    };
    match spec.data_type() {
        DataType::Aq => {
            let hours = match spec.forecast() {
                Forecast::Hours(h) => u32::from(h),
                Forecast::Today | Forecast::Days(_) => 1,
            };
            // 8, 15 or 30 CI points: past the 5, 10 and 20 point defaults, both ways from one
            // moderate hour, so that the worse sample always ends in dirtier air than the
            // better one, whichever index the message shows (a US AQI rises as the CI falls).
            let delta = [8.0, 15.0, 30.0][usize::from(step - 1)];
            let now = 55.0;
            let forecast = match direction {
                Direction::Deterioration => now - delta,
                Direction::Improvement => now + delta,
            };
            // Lasting the rule's minimum duration: what `{duration}` shows at the least.
            Change::Aq(AqChange {
                last_hours: hours + u32::from(spec.min_duration()) - 1,
                ..AqChange::new(
                    hours,
                    CleanlinessIndex::clamped(now),
                    CleanlinessIndex::clamped(forecast),
                )
            })
        }
        DataType::Pollen => {
            let day = match spec.forecast() {
                Forecast::Days(d) => u32::from(d),
                Forecast::Today | Forecast::Hours(_) => 0,
            };
            let level = |v: u8| PollenLevel::new(v.min(5)).unwrap_or(PollenLevel::VERY_HIGH);
            let (reference, forecast) = match direction {
                Direction::Deterioration => (level(1), level(1 + step)),
                Direction::Improvement => (level(4), level(4 - step)),
            };
            Change::Pollen(PollenChange {
                last_day: day + u32::from(spec.min_duration()) - 1,
                ..PollenChange::new(PollenType::Grass, day, reference, forecast)
            })
        }
    }
}

/// The message a rule would produce for a sample change in `direction` ("preview" in the
/// dashboard's rule form), its recommendation the rule's audience's.
///
/// ```
/// use alerts_core::change::Direction;
/// use alerts_core::message::{preview, MessageConfig};
/// use alerts_core::rule::{DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
///
/// let spec = RuleSpec::new(DataType::Pollen, Forecast::Days(1), Sensitivity::Medium,
///     MessageSpec::Custom {
///         deterioration: "{kind} pollen up to {category}, {days} day(s) ahead".into(),
///         improvement: "{kind} pollen easing".into(),
///     }).unwrap();
/// let msg = preview(&spec, Direction::Deterioration, &MessageConfig::default());
/// assert_eq!(msg.description, "grass pollen up to Moderate, 1 day(s) ahead");
///
/// let default = RuleSpec::new(DataType::Pollen, Forecast::Days(1), Sensitivity::Medium,
///     MessageSpec::Default).unwrap();
/// let msg = preview(&default, Direction::Improvement, &MessageConfig::default());
/// assert_eq!(msg.description, "Tomorrow grass pollen levels will moderately drop.");
/// ```
#[must_use]
pub fn preview(spec: &RuleSpec, direction: Direction, config: &MessageConfig) -> RenderedMessage {
    let change = sample_change(spec, direction);
    // A US AQI needs concentrations: the preview's are PM2.5 alone, at the level that gives the
    // sample's forecast CI, so both indices speak of the same air.
    let air = match &change {
        Change::Aq(c) => Concentration::new(EaqiBands::default().pm25_equivalent(c.forecast))
            .ok()
            .map(|pm| Concentrations::default().with(Pollutant::Pm25, pm)),
        Change::Pollen(_) => None,
    };
    let hours = air.map(|a| [Some(a)]);
    render_rule(spec, &change, hours.as_ref().map(|h| &h[..]), config)
}

#[cfg(test)]
mod tests;
