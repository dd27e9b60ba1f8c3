//! Alert messages: the default descriptions of `docs/scoring.md`, custom descriptions with their
//! placeholders, and the predefined recommendations.
//!
//! A message has two parts. The description is the rule's choice: the default text, or the
//! customer's own with `{hours}`, `{days}`, `{aqi}`, `{kind}` and `{category}` filled in; the
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
//! let change = Change::Aq(AqChange { hours: 3, now: ci(72.0), forecast: ci(31.4) });
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

use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use aq_core::{
    AqiTable, CleanlinessIndex, Concentration, Concentrations, EaqiBands, PollenLevel, PollenType,
    Pollutant,
};

use crate::advice;
use crate::change::{AqChange, Change, Direction, PollenChange};
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
/// // Hourly SO₂ over 304 ppb (about 797 µg/m³) needs 24-hour values: not computable.
/// let so2 = Concentrations::default().with(Pollutant::So2, Concentration::new(1000.0).unwrap());
/// assert_eq!(UsEpaAqi.aqi(&so2), None);
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
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShownAqi {
    /// The forecast CI, rounded (the spec's `(<aqi> AQI)`).
    Cleanliness(u32),
    /// The US EPA AQI; `None` when the hour's concentrations give none, which the description
    /// says rather than showing a number the data does not support.
    UsEpa(Option<u32>),
}

impl ShownAqi {
    /// What the `{aqi}` placeholder becomes: the number alone, or `not available`.
    fn write_number(self, out: &mut String) -> fmt::Result {
        match self {
            ShownAqi::Cleanliness(n) | ShownAqi::UsEpa(Some(n)) => write!(out, "{n}"),
            ShownAqi::UsEpa(None) => out.write_str(NOT_AVAILABLE),
        }
    }
}

const NOT_AVAILABLE: &str = "not available";

impl fmt::Display for ShownAqi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShownAqi::Cleanliness(n) => write!(f, "{n} AQI"),
            ShownAqi::UsEpa(Some(n)) => write!(f, "US AQI {n}"),
            ShownAqi::UsEpa(None) => write!(f, "US AQI {NOT_AVAILABLE}"),
        }
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
            AqIndex::UsEpa => ShownAqi::UsEpa(concentrations.and_then(|c| match &self.local_aqi {
                Some(local) => local.aqi_of_hours(c),
                None => UsEpaAqi.aqi_of_hours(c),
            })),
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
/// population's; [`render_rule`] renders with a rule's audience.
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
    );
    RenderedMessage {
        description,
        recommendation: recommendation(change),
    }
}

/// Renders the message of `change` for `rule` with every choice it makes: its message
/// selector, its index and its audience's recommendation (where [`render`] gives the general
/// population's).
///
/// ```
/// use alerts_core::change::{AqChange, Change};
/// use alerts_core::message::{render_rule, MessageConfig};
/// use alerts_core::rule::{Audience, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
/// use aq_core::CleanlinessIndex;
///
/// let ci = |v| CleanlinessIndex::new(v).unwrap();
/// let change = Change::Aq(AqChange { hours: 3, now: ci(72.0), forecast: ci(31.4) });
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
    );
    RenderedMessage {
        description,
        recommendation: advice::recommendation(change, rule.audience()),
    }
}

/// Appends the description of `change` to `out`, as [`render`]: the evaluator's
/// allocation-free path, which reuses one buffer for every alert.
pub fn write_description(
    out: &mut String,
    spec: &MessageSpec,
    change: &Change,
    index: AqIndex,
    concentrations: Option<AirHours<'_>>,
    config: &MessageConfig,
) {
    let aqi = match change {
        Change::Aq(aq) => config.shown_aqi(index, aq, concentrations),
        // Pollen descriptions show no index.
        Change::Pollen(_) => ShownAqi::Cleanliness(0),
    };
    write_with_aqi(out, spec, change, aqi);
}

fn write_with_aqi(out: &mut String, spec: &MessageSpec, change: &Change, aqi: ShownAqi) {
    match spec {
        MessageSpec::Default => write_default(out, change, aqi),
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
                    let _ = write_placeholder(&mut cell.borrow_mut(), name, change, aqi);
                    Ok(())
                },
            );
            // A stored rule was validated when saved, so this only guards against a template
            // that was tampered with in storage: the customer still gets a sensible message.
            if rendered.is_err() {
                out.truncate(start);
                write_default(out, change, aqi);
            }
        }
    }
}

fn write_placeholder(out: &mut String, name: &str, change: &Change, aqi: ShownAqi) -> fmt::Result {
    match (name, change) {
        ("hours", Change::Aq(c)) => write!(out, "{}", c.hours),
        ("aqi", Change::Aq(_)) => aqi.write_number(out),
        ("category", Change::Aq(c)) => out.write_str(c.forecast.category().name()),
        ("days", Change::Pollen(c)) => write!(out, "{}", c.day),
        ("kind", Change::Pollen(c)) => out.write_str(c.kind.name()),
        ("category", Change::Pollen(c)) => out.write_str(c.forecast.name()),
        // Validation refuses placeholders that the data type does not fill; one that slipped
        // through stays visible as written rather than vanishing.
        (other, _) => write!(out, "{{{other}}}"),
    }
}

fn write_default(out: &mut String, change: &Change, aqi: ShownAqi) {
    // Writing to a String cannot fail.
    let _ = match change {
        Change::Aq(c) => {
            let hours = if c.hours == 1 { "hour" } else { "hours" };
            let way = match c.direction() {
                Direction::Deterioration => "worse",
                Direction::Improvement => "better",
            };
            write!(
                out,
                "In {} {hours} the air quality is expected to be {way} ({aqi}).",
                c.hours
            )
        }
        Change::Pollen(c) => {
            match c.day {
                0 => out.push_str("Today"),
                1 => out.push_str("Tomorrow"),
                n => {
                    let _ = write!(out, "In {n} days");
                }
            }
            let size = match c.levels() {
                1 => "slightly",
                2 => "moderately",
                _ => "drastically",
            };
            let way = match c.direction() {
                Direction::Deterioration => "rise",
                Direction::Improvement => "drop",
            };
            write!(out, " {} pollen levels will {size} {way}.", c.kind.name())
        }
    };
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
    advice::recommendation(change, Audience::General)
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
            Change::Aq(AqChange {
                hours,
                now: CleanlinessIndex::clamped(now),
                forecast: CleanlinessIndex::clamped(forecast),
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
                kind: PollenType::Grass,
                day,
                reference,
                forecast,
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
mod tests {
    use super::*;

    fn ci(v: f64) -> CleanlinessIndex {
        CleanlinessIndex::new(v).unwrap()
    }

    fn lvl(v: u8) -> PollenLevel {
        PollenLevel::new(v).unwrap()
    }

    fn aq(hours: u32, now: f64, forecast: f64) -> Change {
        Change::Aq(AqChange {
            hours,
            now: ci(now),
            forecast: ci(forecast),
        })
    }

    fn pollen(kind: PollenType, day: u32, reference: u8, forecast: u8) -> Change {
        Change::Pollen(PollenChange {
            kind,
            day,
            reference: lvl(reference),
            forecast: lvl(forecast),
        })
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
        // The highest pollutant sets it: NO₂ 188.2 µg/m³ is 100 ppb (AQI 100) over PM2.5's 50.
        let both = pm25(9.0).with(Pollutant::No2, Concentration::new(188.2).unwrap());
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
        let so2 =
            Concentrations::default().with(Pollutant::So2, Concentration::new(1000.0).unwrap());
        assert_eq!(
            us(&aq(2, 80.0, 60.0), Some(&so2)),
            "In 2 hours the air quality is expected to be worse (US AQI not available)."
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
            let change = AqChange { hours: 2, now: ci(100.0 - forecast), forecast: ci(forecast) };
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
}
