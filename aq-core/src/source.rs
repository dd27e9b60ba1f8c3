//! The ports through which the cores read air-quality data.
//!
//! Two traits: [`AirQualitySource`] answers a batch of (position, time) queries, the shape that
//! route scoring needs and that remote sources must batch; [`ForecastSource`] gives a point's
//! hourly CI series and daily pollen levels, the shape that alerts need. Adapters implement
//! them (a demo field, station files, Open-Meteo, OpenAQ); [`crate::memory`] has small in-memory
//! ones for tests.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::index::CleanlinessIndex;
use crate::pollen::PollenLevels;
use crate::pollutant::Concentrations;
use crate::position::Position;

/// One question to an [`AirQualitySource`]: the air at `position` at `time`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SampleQuery {
    /// Where.
    pub position: Position,
    /// When (a past, present or future instant; sources answer future times from forecasts).
    pub time: DateTime<Utc>,
}

/// A source's answer for one covered query.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AirSample {
    /// The cleanliness index there and then.
    pub ci: CleanlinessIndex,
    /// The concentrations behind it, when the source has them.
    pub concentrations: Option<Concentrations>,
}

impl AirSample {
    /// A sample that carries only a CI.
    #[must_use]
    pub fn from_ci(ci: CleanlinessIndex) -> Self {
        Self {
            ci,
            concentrations: None,
        }
    }
}

/// What a source is, for responses and logs that show where data came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceInfo {
    /// A short stable name, such as `demo` or `open-meteo`.
    pub name: String,
    /// True for synthetic data that must be labelled as such wherever it is shown.
    pub demo: bool,
    /// The attribution the data's licence asks for, if any.
    pub attribution: Option<String>,
}

impl SourceInfo {
    /// Information about a source of real data named `name`.
    #[must_use]
    pub fn real(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            demo: false,
            attribution: None,
        }
    }

    /// Information about a source of synthetic data named `name`.
    #[must_use]
    pub fn demo(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            demo: true,
            attribution: None,
        }
    }
}

/// Why a source could not answer. The whole batch fails; partial coverage is expressed with
/// `None` answers, not errors.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SourceError {
    /// The source could not be reached or refused the request; worth retrying later.
    #[error("air-quality source unavailable: {0}")]
    Unavailable(String),
    /// The source did not answer in time.
    #[error("air-quality source timed out")]
    Timeout,
    /// The source answered with something that could not be understood.
    #[error("air-quality source sent an invalid response: {0}")]
    InvalidResponse(String),
    /// The query itself cannot be answered by this source (too many points, say).
    #[error("air-quality query refused: {0}")]
    Refused(String),
}

/// A source of air quality at arbitrary places and times, queried in batches.
///
/// Contract (checked by every adapter's conformance tests): the answer has exactly one entry
/// per query, in query order; `None` means the source has no value there (no sensor within its
/// radius, an empty grid cell, a time outside its range), never an error; and
/// [`sample_ci`](Self::sample_ci), when a source answers it itself, gives exactly the CIs of
/// [`sample`](Self::sample).
#[async_trait]
pub trait AirQualitySource: Send + Sync {
    /// What this source is.
    fn info(&self) -> SourceInfo;

    /// Answers `queries` in one call.
    ///
    /// # Errors
    /// [`SourceError`] when the source cannot answer the batch at all.
    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError>;

    /// Answers `queries` with the cleanliness index alone, the same as
    /// [`sample`](Self::sample)'s `ci` for each: all that route scoring reads. The provided
    /// method asks [`sample`](Self::sample); a source that derives the CI from concentrations it
    /// computes should answer directly, since building and copying the concentrations of every
    /// sample costs about as much as deriving the CI.
    ///
    /// # Errors
    /// As [`sample`](Self::sample).
    async fn sample_ci(
        &self,
        queries: &[SampleQuery],
    ) -> Result<Vec<Option<CleanlinessIndex>>, SourceError> {
        Ok(self
            .sample(queries)
            .await?
            .into_iter()
            .map(|answer| answer.map(|s| s.ci))
            .collect())
    }
}

/// The hourly CI outlook at one point: `values[0]` is the CI at `start`, `values[h]` the CI `h`
/// hours later. A value may be missing (`None`), and the series may end before the requested
/// horizon when the source forecasts less far ahead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HourlyCi {
    /// The instant of `values[0]`.
    pub start: DateTime<Utc>,
    /// One value per hour from `start`.
    pub values: Vec<Option<CleanlinessIndex>>,
}

impl HourlyCi {
    /// The series, or `None` (the point is not covered) when it has no value at all.
    ///
    /// ```
    /// use aq_core::{CleanlinessIndex, HourlyCi};
    /// use chrono::{TimeZone, Utc};
    ///
    /// let start = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
    /// assert!(HourlyCi::covered(start, vec![None, None]).is_none());
    /// let series = HourlyCi::covered(start, vec![None, CleanlinessIndex::new(64.0).ok()]);
    /// assert_eq!(series.unwrap().values.len(), 2);
    /// ```
    #[must_use]
    pub fn covered(start: DateTime<Utc>, values: Vec<Option<CleanlinessIndex>>) -> Option<Self> {
        values
            .iter()
            .any(Option::is_some)
            .then_some(Self { start, values })
    }
}

/// The daily pollen outlook at one point: the levels now, and each day's forecast peak,
/// `days[0]` being today (in the point's local day as the source defines it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PollenOutlook {
    /// The levels at the time of the query.
    pub now: PollenLevels,
    /// Forecast daily peak levels, today first.
    pub days: Vec<PollenLevels>,
}

/// A source of forecasts at points, queried in batches.
///
/// Same contract as [`AirQualitySource`]: one answer per position, in order; `None` for a
/// position the source does not cover.
#[async_trait]
pub trait ForecastSource: Send + Sync {
    /// What this source is.
    fn info(&self) -> SourceInfo;

    /// The hourly CI at each position from `start` for `hours` hours after it (so up to
    /// `hours + 1` values).
    ///
    /// # Errors
    /// [`SourceError`] when the source cannot answer the batch at all.
    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError>;

    /// The pollen levels at each position now (`at`) and for today and `days` days after it
    /// (so up to `days + 1` daily peaks).
    ///
    /// # Errors
    /// [`SourceError`] when the source cannot answer the batch at all.
    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError>;
}

/// Checks that a batch answer has one entry per query, as the port contract demands, so that a
/// faulty adapter shows up as an error instead of silently shifted answers.
///
/// # Errors
/// [`SourceError::InvalidResponse`] when the lengths differ.
pub fn check_batch_len<T>(expected: usize, answers: Vec<T>) -> Result<Vec<T>, SourceError> {
    if answers.len() == expected {
        Ok(answers)
    } else {
        Err(SourceError::InvalidResponse(format!(
            "{} answers for {expected} queries",
            answers.len()
        )))
    }
}
