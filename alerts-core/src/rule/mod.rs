//! Alert rules: the four selectors of the dashboard's "add new alert" form, validated.
//!
//! A [`RuleSpec`] can only be built with a combination that `docs/scoring.md` allows: the forecast
//! horizons depend on the data type, a custom message needs both descriptions, and a custom
//! description may use only the placeholders that its data type fills in.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use i18n_core::Language;
use identity_core::ids::KeyId;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::ids::RuleId;

mod persistence;

pub use persistence::{
    DEFAULT_AQ_HYSTERESIS, DEFAULT_AQ_MIN_HOURS, DEFAULT_POLLEN_HYSTERESIS,
    DEFAULT_POLLEN_MIN_DAYS, Persistence, ranges as persistence_ranges,
};

/// The kind of environmental data a rule watches. Serialised as in the NDJSON `data_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataType {
    /// Air quality, on the cleanliness-index scale.
    Aq,
    /// Pollen, per plant type on the 0 to 5 level scale.
    Pollen,
}

impl DataType {
    /// The wire name: `aq` or `pollen`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            DataType::Aq => "aq",
            DataType::Pollen => "pollen",
        }
    }

    /// The name shown in the dashboard: `Air Quality` or `Pollen`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            DataType::Aq => "Air Quality",
            DataType::Pollen => "Pollen",
        }
    }

    /// The forecast horizons a rule of this type may choose, in display order.
    #[must_use]
    pub fn horizons(self) -> &'static [Forecast] {
        match self {
            DataType::Aq => &AQ_HORIZONS,
            DataType::Pollen => &POLLEN_HORIZONS,
        }
    }

    /// The placeholders a custom description of this type may use.
    #[must_use]
    pub fn placeholders(self) -> &'static [&'static str] {
        match self {
            DataType::Aq => &[
                "hours",
                "aqi",
                "category",
                "peak_hours",
                "peak_category",
                "duration",
            ],
            DataType::Pollen => &[
                "days",
                "kind",
                "category",
                "peak_days",
                "peak_category",
                "duration",
            ],
        }
    }
}

impl FromStr for DataType {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "aq" => Ok(DataType::Aq),
            "pollen" => Ok(DataType::Pollen),
            other => Err(RuleError::UnknownValue {
                selector: "type",
                value: other.to_owned(),
                allowed: "aq, pollen",
            }),
        }
    }
}

/// How far ahead a rule looks: hours for air quality, today or days for pollen.
///
/// The text form, used by the admin command line and the stores, is `6h`, `today` or `2d`.
///
/// ```
/// use alerts_core::rule::Forecast;
///
/// assert_eq!("6h".parse::<Forecast>().unwrap(), Forecast::Hours(6));
/// assert_eq!("today".parse::<Forecast>().unwrap(), Forecast::Today);
/// assert_eq!(Forecast::Days(2).to_string(), "2d");
/// assert!("5h".parse::<Forecast>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Forecast {
    /// This many hours ahead (air quality: 1, 2, 3, 6, 12, 24, 48, 72 or 96).
    Hours(u8),
    /// The rest of today (pollen).
    Today,
    /// This many days ahead (pollen: 1 to 4).
    Days(u8),
}

const AQ_HORIZONS: [Forecast; 9] = [
    Forecast::Hours(1),
    Forecast::Hours(2),
    Forecast::Hours(3),
    Forecast::Hours(6),
    Forecast::Hours(12),
    Forecast::Hours(24),
    Forecast::Hours(48),
    Forecast::Hours(72),
    Forecast::Hours(96),
];

const POLLEN_HORIZONS: [Forecast; 5] = [
    Forecast::Today,
    Forecast::Days(1),
    Forecast::Days(2),
    Forecast::Days(3),
    Forecast::Days(4),
];

impl Forecast {
    /// The dashboard label, such as `6 hours`, `1 day` or `Today`.
    #[must_use]
    pub fn label(self) -> String {
        match self {
            Forecast::Hours(1) => "1 hour".to_owned(),
            Forecast::Hours(n) => format!("{n} hours"),
            Forecast::Today => "Today".to_owned(),
            Forecast::Days(1) => "1 day".to_owned(),
            Forecast::Days(n) => format!("{n} days"),
        }
    }
}

impl fmt::Display for Forecast {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Forecast::Hours(n) => write!(f, "{n}h"),
            Forecast::Today => f.write_str("today"),
            Forecast::Days(n) => write!(f, "{n}d"),
        }
    }
}

impl FromStr for Forecast {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || RuleError::UnknownValue {
            selector: "forecast",
            value: s.to_owned(),
            allowed: "1h, 2h, 3h, 6h, 12h, 24h, 48h, 72h, 96h (air quality); today, 1d, 2d, 3d, 4d (pollen)",
        };
        let parsed = if s == "today" {
            Forecast::Today
        } else if let Some(h) = s.strip_suffix('h') {
            Forecast::Hours(h.parse().map_err(|_| bad())?)
        } else if let Some(d) = s.strip_suffix('d') {
            Forecast::Days(d.parse().map_err(|_| bad())?)
        } else {
            return Err(bad());
        };
        if AQ_HORIZONS.contains(&parsed) || POLLEN_HORIZONS.contains(&parsed) {
            Ok(parsed)
        } else {
            Err(bad())
        }
    }
}

impl From<Forecast> for String {
    fn from(f: Forecast) -> Self {
        f.to_string()
    }
}

impl TryFrom<String> for Forecast {
    type Error = RuleError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

/// How large a change trips the alert. Applies to rises and falls alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sensitivity {
    /// A small change (the index changed slightly).
    High,
    /// A moderate change (the index changed).
    Medium,
    /// A large change (the index changed drastically).
    Low,
}

impl Sensitivity {
    /// Every sensitivity, most sensitive first.
    pub const ALL: [Sensitivity; 3] = [Sensitivity::High, Sensitivity::Medium, Sensitivity::Low];

    /// The wire name: `high`, `medium` or `low`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Sensitivity::High => "high",
            Sensitivity::Medium => "medium",
            Sensitivity::Low => "low",
        }
    }
}

impl FromStr for Sensitivity {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "high" => Ok(Sensitivity::High),
            "medium" => Ok(Sensitivity::Medium),
            "low" => Ok(Sensitivity::Low),
            other => Err(RuleError::UnknownValue {
                selector: "sensitivity",
                value: other.to_owned(),
                allowed: "high, medium, low",
            }),
        }
    }
}

/// The index an air-quality description shows as its number: the cleanliness index, or a
/// national index computed from the concentrations the source gives. Pollen rules show no
/// index and ignore it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AqIndex {
    /// The forecast CI, rounded: `(31 AQI)`, the spec's wording.
    #[default]
    Cleanliness,
    /// The US EPA AQI (2024 table) of the forecast hour's concentrations: `(US AQI 152)`.
    UsEpa,
}

impl AqIndex {
    /// Every index, the default first.
    pub const ALL: [AqIndex; 2] = [AqIndex::Cleanliness, AqIndex::UsEpa];

    /// The wire name: `cleanliness` or `us_epa`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AqIndex::Cleanliness => "cleanliness",
            AqIndex::UsEpa => "us_epa",
        }
    }

    /// The name shown in forms.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            AqIndex::Cleanliness => "Cleanliness index",
            AqIndex::UsEpa => "US EPA AQI",
        }
    }

    fn is_cleanliness(&self) -> bool {
        *self == AqIndex::Cleanliness
    }
}

impl FromStr for AqIndex {
    type Err = RuleError;

    /// Accepts the wire names, and `us-epa` as command lines spell it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cleanliness" => Ok(AqIndex::Cleanliness),
            "us_epa" | "us-epa" => Ok(AqIndex::UsEpa),
            other => Err(RuleError::UnknownValue {
                selector: "aq_index",
                value: other.to_owned(),
                allowed: "cleanliness, us_epa",
            }),
        }
    }
}

/// Whom a rule's recommendations speak to: the general population, a sensitive group, or
/// athletes. Each picks its own predefined recommendations (`crate::advice`); the description
/// is the same for all. Wire names are snake_case; rules stored before the choice existed have
/// none and read as [`Audience::General`], which is never written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    /// Everyone: the recommendations of the spec.
    #[default]
    General,
    /// Children, who breathe more air for their size and play hard outdoors.
    Children,
    /// Older adults.
    OlderAdults,
    /// People with heart or lung disease, asthma included.
    HeartOrLungDisease,
    /// Pregnant people.
    Pregnancy,
    /// People who train or compete outdoors.
    Athletes,
}

impl Audience {
    /// Every audience, the default first.
    pub const ALL: [Audience; 6] = [
        Audience::General,
        Audience::Children,
        Audience::OlderAdults,
        Audience::HeartOrLungDisease,
        Audience::Pregnancy,
        Audience::Athletes,
    ];

    /// The wire name: `general`, `children`, `older_adults`, `heart_or_lung_disease`,
    /// `pregnancy` or `athletes`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Audience::General => "general",
            Audience::Children => "children",
            Audience::OlderAdults => "older_adults",
            Audience::HeartOrLungDisease => "heart_or_lung_disease",
            Audience::Pregnancy => "pregnancy",
            Audience::Athletes => "athletes",
        }
    }

    /// The name shown in forms and lists.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Audience::General => "General population",
            Audience::Children => "Children",
            Audience::OlderAdults => "Older adults",
            Audience::HeartOrLungDisease => "Heart or lung disease",
            Audience::Pregnancy => "Pregnancy",
            Audience::Athletes => "Athletes",
        }
    }

    fn is_general(&self) -> bool {
        *self == Audience::General
    }
}

impl FromStr for Audience {
    type Err = RuleError;

    /// Accepts the wire names, and the same with hyphens (`older-adults`) as command lines
    /// spell them.
    ///
    /// ```
    /// use alerts_core::rule::Audience;
    ///
    /// assert_eq!("older-adults".parse::<Audience>().unwrap(), Audience::OlderAdults);
    /// assert_eq!("heart_or_lung_disease".parse::<Audience>().unwrap(), Audience::HeartOrLungDisease);
    /// assert!("teenagers".parse::<Audience>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wire = s.replace('-', "_");
        Audience::ALL
            .into_iter()
            .find(|a| a.as_str() == wire)
            .ok_or_else(|| RuleError::UnknownValue {
                selector: "audience",
                value: s.to_owned(),
                allowed: "general, children, older_adults, heart_or_lung_disease, pregnancy, athletes",
            })
    }
}

/// Whether a rule tells of the same change again. With [`Repeat::Once`], an alert for a
/// point id and a rule is left out of later files while the change it told of is still the one
/// ahead: the same direction, the same forecast hour (air quality) or civil day (pollen, per
/// type) and the same category reached. It comes again when the forecast turns, reaches another
/// category, moves to another hour or day, or the change has passed. Rules stored before the
/// choice existed have none and read as [`Repeat::Every`], which is never written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repeat {
    /// Every request gets every alert its points raise: the spec's behaviour.
    #[default]
    Every,
    /// A change is told once per point id.
    Once,
}

impl Repeat {
    /// Both choices, the default first.
    pub const ALL: [Repeat; 2] = [Repeat::Every, Repeat::Once];

    /// The wire name: `every` or `once`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Repeat::Every => "every",
            Repeat::Once => "once",
        }
    }

    /// The name shown in forms and lists.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Repeat::Every => "Every request",
            Repeat::Once => "Once per change",
        }
    }

    fn is_every(&self) -> bool {
        *self == Repeat::Every
    }
}

impl FromStr for Repeat {
    type Err = RuleError;

    /// ```
    /// use alerts_core::rule::Repeat;
    ///
    /// assert_eq!("once".parse::<Repeat>().unwrap(), Repeat::Once);
    /// assert!("twice".parse::<Repeat>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Repeat::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| RuleError::UnknownValue {
                selector: "repeat",
                value: s.to_owned(),
                allowed: "every, once",
            })
    }
}

/// The message selector: the predefined descriptions, or the customer's own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MessageSpec {
    /// The predefined descriptions.
    Default,
    /// Custom descriptions; the recommendation stays predefined.
    Custom {
        /// Used when the air or pollen gets worse.
        deterioration: String,
        /// Used when it gets better.
        improvement: String,
    },
}

/// The most characters a custom description may have.
pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// The four selectors of one rule, validated together.
///
/// ```
/// use alerts_core::rule::{DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
///
/// let rule = RuleSpec::new(DataType::Aq, Forecast::Hours(6), Sensitivity::Medium,
///     MessageSpec::Custom {
///         deterioration: "Air gets worse in {hours} hours ({aqi}).".into(),
///         improvement: "Air gets better in {hours} hours.".into(),
///     }).unwrap();
/// assert_eq!(rule.data_type(), DataType::Aq);
///
/// // Pollen looks days ahead, not hours.
/// assert!(RuleSpec::new(DataType::Pollen, Forecast::Hours(6), Sensitivity::Low,
///     MessageSpec::Default).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawRuleSpec", into = "RawRuleSpec")]
pub struct RuleSpec {
    data_type: DataType,
    forecast: Forecast,
    sensitivity: Sensitivity,
    message: MessageSpec,
    aq_index: AqIndex,
    audience: Audience,
    repeat: Repeat,
    persistence: Persistence,
    language: Language,
}

/// The unvalidated shape of a [`RuleSpec`], as stored and as sent by forms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawRuleSpec {
    /// The Type selector.
    #[serde(rename = "type")]
    pub data_type: DataType,
    /// The Forecast selector.
    pub forecast: Forecast,
    /// The Sensitivity Trigger selector.
    pub sensitivity: Sensitivity,
    /// The Message selector.
    pub message: MessageSpec,
    /// The index air-quality descriptions show; absent (as in rules stored before the choice
    /// existed) means the cleanliness index, and the default is not written.
    #[serde(default, skip_serializing_if = "AqIndex::is_cleanliness")]
    pub aq_index: AqIndex,
    /// Whom the recommendations speak to; absent (as in rules stored before the choice
    /// existed) means the general population, and the default is not written.
    #[serde(default, skip_serializing_if = "Audience::is_general")]
    pub audience: Audience,
    /// Whether a change is told again; absent (as in rules stored before the choice existed)
    /// means every request, and the default is not written.
    #[serde(default, skip_serializing_if = "Repeat::is_every")]
    pub repeat: Repeat,
    /// The minimum duration and hysteresis; absent members (as in rules stored before the
    /// choice existed) mean the data type's defaults, which are not written.
    #[serde(flatten)]
    pub persistence: Persistence,
    /// The language of the descriptions and recommendations (the catalogue's, `i18n-core`);
    /// absent (as in rules stored before the choice existed) means English, and the default
    /// is not written.
    #[serde(default, skip_serializing_if = "is_english")]
    pub language: Language,
}

fn is_english(language: &Language) -> bool {
    *language == Language::English
}

/// Why a rule was refused. Each message says which selector or field is wrong and what it
/// accepts.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    /// A selector value outside its list.
    #[error("{selector}: `{value}` is not allowed; expected one of {allowed}")]
    UnknownValue {
        /// Which selector.
        selector: &'static str,
        /// What was given.
        value: String,
        /// The allowed values.
        allowed: &'static str,
    },
    /// A horizon that the data type does not offer.
    #[error("forecast: {forecast} is not offered for {data_type} alerts; choose one of {allowed}")]
    HorizonNotOffered {
        /// The data type's label.
        data_type: &'static str,
        /// The horizon given.
        forecast: Forecast,
        /// The horizons offered, in text form.
        allowed: String,
    },
    /// A custom message with an empty description.
    #[error(
        "message.{field}: a custom message needs both a deterioration and an improvement description"
    )]
    MissingDescription {
        /// `deterioration` or `improvement`.
        field: &'static str,
    },
    /// A description over [`MAX_DESCRIPTION_CHARS`].
    #[error("message.{field}: at most {max} characters, got {len}")]
    DescriptionTooLong {
        /// `deterioration` or `improvement`.
        field: &'static str,
        /// The limit.
        max: usize,
        /// The length given.
        len: usize,
    },
    /// A `{placeholder}` that the data type does not fill in, or a brace that opens no
    /// placeholder.
    #[error(
        "message.{field}: unknown placeholder `{{{name}}}`; {data_type} descriptions may use {allowed}"
    )]
    UnknownPlaceholder {
        /// `deterioration` or `improvement`.
        field: &'static str,
        /// The placeholder's name as written.
        name: String,
        /// The data type's label.
        data_type: &'static str,
        /// The placeholders allowed, as `{hours}, {aqi}, {category}`.
        allowed: String,
    },
    /// A minimum duration or hysteresis outside what the data type allows.
    #[error("{field}: {value} is outside {min} to {max} {unit}")]
    OutOfRange {
        /// `min_duration` or `hysteresis`.
        field: &'static str,
        /// What was given.
        value: u8,
        /// The smallest allowed.
        min: u8,
        /// The largest allowed.
        max: u8,
        /// Hours, days, CI points or levels.
        unit: &'static str,
    },
    /// A `{` without its `}`.
    #[error(
        "message.{field}: `{{` at character {at} is not closed; write placeholders as {{name}}"
    )]
    UnclosedBrace {
        /// `deterioration` or `improvement`.
        field: &'static str,
        /// The character offset of the brace.
        at: usize,
    },
}

impl RuleSpec {
    /// Validates the four selectors together.
    ///
    /// # Errors
    /// [`RuleError`] naming the first selector or field that is wrong.
    pub fn new(
        data_type: DataType,
        forecast: Forecast,
        sensitivity: Sensitivity,
        message: MessageSpec,
    ) -> Result<Self, RuleError> {
        if !data_type.horizons().contains(&forecast) {
            return Err(RuleError::HorizonNotOffered {
                data_type: data_type.label(),
                forecast,
                allowed: data_type
                    .horizons()
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        if let MessageSpec::Custom {
            deterioration,
            improvement,
        } = &message
        {
            check_description(data_type, "deterioration", deterioration)?;
            check_description(data_type, "improvement", improvement)?;
        }
        Ok(Self {
            data_type,
            forecast,
            sensitivity,
            message,
            aq_index: AqIndex::default(),
            audience: Audience::default(),
            repeat: Repeat::default(),
            persistence: Persistence::default(),
            language: Language::English,
        })
    }

    /// The same rule with `persistence`, checked against its data type.
    ///
    /// ```
    /// use alerts_core::rule::{DataType, Forecast, MessageSpec, Persistence, RuleSpec, Sensitivity};
    ///
    /// let rule = RuleSpec::new(DataType::Aq, Forecast::Hours(12), Sensitivity::High,
    ///     MessageSpec::Default).unwrap();
    /// assert_eq!(rule.min_duration(), 2);
    /// let rule = rule.with_persistence(Persistence { min_duration: Some(4), hysteresis: None })
    ///     .unwrap();
    /// assert_eq!((rule.min_duration(), rule.hysteresis()), (4, 2));
    /// ```
    ///
    /// # Errors
    /// [`RuleError::OutOfRange`] naming the setting.
    pub fn with_persistence(mut self, persistence: Persistence) -> Result<Self, RuleError> {
        self.persistence = Persistence::new(
            self.data_type,
            persistence.min_duration,
            persistence.hysteresis,
        )?;
        Ok(self)
    }

    /// The minimum duration and hysteresis as set (`None` where the default applies).
    #[must_use]
    pub fn persistence(&self) -> Persistence {
        self.persistence
    }

    /// The minimum duration in force: hours for air quality, days for pollen.
    #[must_use]
    pub fn min_duration(&self) -> u8 {
        self.persistence.min_duration(self.data_type)
    }

    /// The hysteresis in force: CI points for air quality, levels for pollen.
    #[must_use]
    pub fn hysteresis(&self) -> u8 {
        self.persistence.hysteresis(self.data_type)
    }

    /// The same rule showing `index` in its air-quality descriptions.
    ///
    /// ```
    /// use alerts_core::rule::{AqIndex, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
    ///
    /// let rule = RuleSpec::new(DataType::Aq, Forecast::Hours(3), Sensitivity::High,
    ///     MessageSpec::Default).unwrap();
    /// assert_eq!(rule.aq_index(), AqIndex::Cleanliness);
    /// assert_eq!(rule.with_aq_index(AqIndex::UsEpa).aq_index(), AqIndex::UsEpa);
    /// ```
    #[must_use]
    pub fn with_aq_index(mut self, index: AqIndex) -> Self {
        self.aq_index = index;
        self
    }

    /// The same rule with recommendations for `audience`.
    ///
    /// ```
    /// use alerts_core::rule::{Audience, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
    ///
    /// let rule = RuleSpec::new(DataType::Aq, Forecast::Hours(3), Sensitivity::High,
    ///     MessageSpec::Default).unwrap();
    /// assert_eq!(rule.audience(), Audience::General);
    /// assert_eq!(rule.with_audience(Audience::Athletes).audience(), Audience::Athletes);
    /// ```
    #[must_use]
    pub fn with_audience(mut self, audience: Audience) -> Self {
        self.audience = audience;
        self
    }

    /// The same rule telling of a change `repeat` times.
    ///
    /// ```
    /// use alerts_core::rule::{DataType, Forecast, MessageSpec, Repeat, RuleSpec, Sensitivity};
    ///
    /// let rule = RuleSpec::new(DataType::Aq, Forecast::Hours(3), Sensitivity::High,
    ///     MessageSpec::Default).unwrap();
    /// assert_eq!(rule.repeat(), Repeat::Every);
    /// assert_eq!(rule.with_repeat(Repeat::Once).repeat(), Repeat::Once);
    /// ```
    #[must_use]
    pub fn with_repeat(mut self, repeat: Repeat) -> Self {
        self.repeat = repeat;
        self
    }

    /// The same rule writing its messages in `language`.
    ///
    /// ```
    /// use alerts_core::rule::{DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
    /// use i18n_core::Language;
    ///
    /// let rule = RuleSpec::new(DataType::Aq, Forecast::Hours(3), Sensitivity::High,
    ///     MessageSpec::Default).unwrap();
    /// assert_eq!(rule.language(), Language::English);
    /// assert_eq!(rule.with_language(Language::Dutch).language(), Language::Dutch);
    /// ```
    #[must_use]
    pub fn with_language(mut self, language: Language) -> Self {
        self.language = language;
        self
    }

    /// The language its messages are written in.
    #[must_use]
    pub fn language(&self) -> Language {
        self.language
    }

    /// Whether a change is told again.
    #[must_use]
    pub fn repeat(&self) -> Repeat {
        self.repeat
    }

    /// Whom the recommendations speak to.
    #[must_use]
    pub fn audience(&self) -> Audience {
        self.audience
    }

    /// The index air-quality descriptions show.
    #[must_use]
    pub fn aq_index(&self) -> AqIndex {
        self.aq_index
    }

    /// The Type selector.
    #[must_use]
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The Forecast selector.
    #[must_use]
    pub fn forecast(&self) -> Forecast {
        self.forecast
    }

    /// The Sensitivity selector.
    #[must_use]
    pub fn sensitivity(&self) -> Sensitivity {
        self.sensitivity
    }

    /// The Message selector.
    #[must_use]
    pub fn message(&self) -> &MessageSpec {
        &self.message
    }
}

impl TryFrom<RawRuleSpec> for RuleSpec {
    type Error = RuleError;

    fn try_from(raw: RawRuleSpec) -> Result<Self, Self::Error> {
        Self::new(raw.data_type, raw.forecast, raw.sensitivity, raw.message)?
            .with_aq_index(raw.aq_index)
            .with_audience(raw.audience)
            .with_repeat(raw.repeat)
            .with_language(raw.language)
            .with_persistence(raw.persistence)
    }
}

impl From<RuleSpec> for RawRuleSpec {
    fn from(spec: RuleSpec) -> Self {
        Self {
            data_type: spec.data_type,
            forecast: spec.forecast,
            sensitivity: spec.sensitivity,
            message: spec.message,
            aq_index: spec.aq_index,
            audience: spec.audience,
            repeat: spec.repeat,
            persistence: spec.persistence,
            language: spec.language,
        }
    }
}

/// Splits a description into literal text and placeholders, calling `on_placeholder` for each
/// `{name}`. The one parser behind validation and message rendering, so that what is accepted
/// when a rule is saved is exactly what renders later.
///
/// # Errors
/// [`RuleError::UnclosedBrace`] for a `{` without `}`; whatever `on_placeholder` returns.
pub fn for_each_part(
    field: &'static str,
    text: &str,
    mut on_literal: impl FnMut(&str),
    mut on_placeholder: impl FnMut(&str) -> Result<(), RuleError>,
) -> Result<(), RuleError> {
    let mut rest = text;
    let mut offset = 0;
    while let Some(open) = rest.find('{') {
        on_literal(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or(RuleError::UnclosedBrace {
            field,
            at: text[..offset + open].chars().count(),
        })?;
        on_placeholder(&after[..close])?;
        offset += open + 1 + close + 1;
        rest = &after[close + 1..];
    }
    on_literal(rest);
    Ok(())
}

fn check_description(
    data_type: DataType,
    field: &'static str,
    text: &str,
) -> Result<(), RuleError> {
    if text.trim().is_empty() {
        return Err(RuleError::MissingDescription { field });
    }
    let len = text.chars().count();
    if len > MAX_DESCRIPTION_CHARS {
        return Err(RuleError::DescriptionTooLong {
            field,
            max: MAX_DESCRIPTION_CHARS,
            len,
        });
    }
    for_each_part(
        field,
        text,
        |_| {},
        |name| {
            if data_type.placeholders().contains(&name) {
                Ok(())
            } else {
                Err(RuleError::UnknownPlaceholder {
                    field,
                    name: name.to_owned(),
                    data_type: data_type.label(),
                    allowed: data_type
                        .placeholders()
                        .iter()
                        .map(|p| format!("{{{p}}}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                })
            }
        },
    )
}

/// A stored rule: its spec, the key it belongs to, and whether it is enabled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlertRule {
    /// The rule's id.
    pub id: RuleId,
    /// The API key the rule belongs to.
    pub key_id: KeyId,
    /// The four selectors.
    pub spec: RuleSpec,
    /// Disabled rules are kept but not evaluated.
    pub enabled: bool,
    /// When the rule was created.
    pub created_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests;
