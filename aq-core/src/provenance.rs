//! Where the values of one answer come from: the model runs behind a forecast, or the newest
//! measurement behind an interpolation. What a reader needs to judge how fresh an answer is,
//! and what a source can only say while it answers, since runs are replaced and readings
//! arrive between two answers.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One run of a forecast model: which model, and the reference time its forecast starts from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ModelRun {
    /// The model (or product) that ran, such as `cams-europe`.
    pub model: String,
    /// The run's reference time (the analysis time its forecast steps count from).
    pub reference_time: DateTime<Utc>,
}

/// Where the values of one answer come from.
///
/// Sources that know say so with each answer ([`HourlyCi::provenance`](crate::HourlyCi)); the
/// default, [`Provenance::Unstated`], is for sources that cannot tell.
///
/// ```
/// use aq_core::{ModelRun, Provenance};
/// use chrono::{TimeZone, Utc};
///
/// let run = |h| ModelRun {
///     model: "cams-global".to_owned(),
///     reference_time: Utc.with_ymd_and_hms(2026, 6, 10, h, 0, 0).unwrap(),
/// };
/// // Runs are listed once each, in order, however often the hours repeat them.
/// let p = Provenance::model([run(12), run(0), run(12)]);
/// assert_eq!(p, Provenance::Model { runs: vec![run(0), run(12)], note: None });
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "basis", rename_all = "camelCase")]
pub enum Provenance {
    /// The source does not say.
    #[default]
    Unstated,
    /// Made-up values: no model ran and nothing was measured.
    Synthetic,
    /// Forecast or reanalysis output of a model.
    Model {
        /// The runs the answer's values come from, each once, oldest first; empty when the
        /// source does not publish its runs.
        runs: Vec<ModelRun>,
        /// Why `runs` is empty or incomplete, for people to read.
        note: Option<String>,
    },
    /// Measurements, interpolated or as taken.
    Observed {
        /// When the newest measurement behind the answer was taken.
        newest: DateTime<Utc>,
    },
}

impl Provenance {
    /// Model output from `runs`, each listed once, oldest first.
    #[must_use]
    pub fn model(runs: impl IntoIterator<Item = ModelRun>) -> Self {
        let mut runs: Vec<ModelRun> = runs.into_iter().collect();
        runs.sort_by(|a, b| {
            a.reference_time
                .cmp(&b.reference_time)
                .then_with(|| a.model.cmp(&b.model))
        });
        runs.dedup();
        Self::Model { runs, note: None }
    }

    /// Model output from runs the source does not name; `note` says why, for people to read.
    #[must_use]
    pub fn unnamed_runs(note: impl Into<String>) -> Self {
        Self::Model {
            runs: Vec::new(),
            note: Some(note.into()),
        }
    }
}
