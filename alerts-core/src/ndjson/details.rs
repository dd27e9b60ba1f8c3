//! The members a program reads of an alert, written after the spec's seven: which rule, when
//! it was evaluated, the episode (its start, worst step and end) and the index values at its
//! start and at its worst, so that nothing has to be parsed out of the description.
//!
//! ```
//! use alerts_core::change::{ChangeTime, Direction};
//! use alerts_core::ids::RuleId;
//! use alerts_core::ndjson::{AlertDetails, IndexReading};
//! use chrono::{TimeZone, Utc};
//!
//! let hour = |h| ChangeTime::Hour(Utc.with_ymd_and_hms(2026, 5, 1, h, 0, 0).unwrap());
//! let details = AlertDetails {
//!     rule_id: RuleId(uuid::Uuid::nil()),
//!     evaluated_at: Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap(),
//!     direction: Direction::Deterioration,
//!     subject: "aq".into(),
//!     starts_at: hour(11),
//!     index: IndexReading {
//!         code: "cleanliness".into(), value: Some(38.0), category: "Low".into(), at_least: false,
//!     },
//!     peak_at: hour(14),
//!     peak: IndexReading {
//!         code: "cleanliness".into(), value: Some(17.0), category: "Poor".into(), at_least: false,
//!     },
//!     ends_at: Some(hour(18)),
//!     duration: 7,
//!     probability: None,
//!     language: i18n_core::Language::German,
//! };
//! let json = serde_json::to_value(&details).unwrap();
//! assert_eq!(json["starts_at"], "2026-05-01T11:00:00Z");
//! assert_eq!(json["peak"]["category"], "Poor");
//! // The description and recommendation are German; the members for programs are not.
//! assert_eq!(json["language"], "de");
//! ```

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use i18n_core::Language;
use serde::{Deserialize, Serialize};

use crate::change::{ChangeTime, Direction};
use crate::ids::RuleId;

/// What a program reads of an alert beside its description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlertDetails {
    /// The rule that raised it.
    pub rule_id: RuleId,
    /// When the request was evaluated (the "now" the change is measured from).
    pub evaluated_at: DateTime<Utc>,
    /// `deterioration` or `improvement`.
    pub direction: Direction,
    /// What changes: `aq`, or the pollen type (`tree`, `grass`, `weed`).
    pub subject: Cow<'static, str>,
    /// The episode's first hour (RFC 3339, UTC) or civil day at the point (`YYYY-MM-DD`).
    pub starts_at: ChangeTime,
    /// The rule's index at that hour or day.
    pub index: IndexReading,
    /// The episode's worst hour or day in its direction.
    pub peak_at: ChangeTime,
    /// The rule's index then.
    pub peak: IndexReading,
    /// The first hour or day past the episode; `null` when it lasts to the end of the forecast
    /// read, and `duration` is then the least it lasts.
    pub ends_at: Option<ChangeTime>,
    /// How long it lasts: hours for air quality, days for pollen.
    pub duration: u32,
    /// Where the source gives an uncertainty (a fused source does): the probability that the
    /// air at the peak is in the peak's category or one beyond it, the true CI taken as normal
    /// around the peak's value ([`crate::evaluate::reach_probability`]). Not written otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
    /// The language of the description and the recommendation (the rule's), as a BCP 47 tag;
    /// the members for programs (`subject`, the categories) read the same in every language.
    /// English in a file written before rules had a language.
    #[serde(default)]
    pub language: Language,
}

/// One value of an index, with its category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexReading {
    /// `cleanliness` (0 to 100, higher is cleaner), `us_aqi` (EPA, higher is worse) or
    /// `pollen_level` (0 to 5).
    pub code: Cow<'static, str>,
    /// The value; `null` when the hour's data give none (a US AQI needs concentrations).
    pub value: Option<f64>,
    /// The category's name on that index's scale; empty when there is no value.
    pub category: Cow<'static, str>,
    /// Whether `value` is only a lower bound (a US AQI whose hourly SO₂ is past EPA's 1-hour
    /// rows); written only when it is.
    #[serde(default, skip_serializing_if = "is_false")]
    pub at_least: bool,
}

/// Whether `b` is false: a member written only when it says something.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(b: &bool) -> bool {
    !*b
}
