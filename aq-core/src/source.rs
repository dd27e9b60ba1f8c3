//! The ports through which the cores read air-quality data.
//!
//! Two traits: [`AirQualitySource`] answers a batch of (position, time) queries, the shape that
//! route scoring needs and that remote sources must batch; [`ForecastSource`] gives a point's
//! hourly CI series and daily pollen levels, the shape that alerts need. Adapters implement
//! them (a demo field, station files, Open-Meteo, OpenAQ); [`crate::memory`] has small in-memory
//! ones for tests.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::fused::HourlyFusion;
use crate::index::CleanlinessIndex;
use crate::pollen::PollenLevels;
use crate::pollen_day::{PollenDay, PollenDays};
use crate::pollutant::Concentrations;
use crate::position::Position;
use crate::provenance::Provenance;

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

/// What route scoring reads of one sample: the CI for the score, and the PM2.5 concentration
/// for the inhaled dose, when the source has it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Exposure {
    /// The cleanliness index.
    pub ci: CleanlinessIndex,
    /// PM2.5 in µg/m³, when the source measures or models it.
    pub pm25_ug_m3: Option<f64>,
}

impl From<CleanlinessIndex> for Exposure {
    fn from(ci: CleanlinessIndex) -> Self {
        Self {
            ci,
            pm25_ug_m3: None,
        }
    }
}

impl From<AirSample> for Exposure {
    fn from(sample: AirSample) -> Self {
        Self {
            ci: sample.ci,
            pm25_ug_m3: sample
                .concentrations
                .and_then(|c| c.get(crate::Pollutant::Pm25))
                .map(crate::Concentration::ug_m3),
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

    /// How outputs name this source (the `Insights-Data-Source` header, files, printed
    /// results): the name, then `; synthetic` for made-up data. Characters outside printable
    /// ASCII, and the separators `;` and `,`, become `-`, so the label is always a valid
    /// header value.
    ///
    /// ```
    /// use aq_core::SourceInfo;
    ///
    /// assert_eq!(SourceInfo::demo("demo").label(), "demo; synthetic");
    /// assert_eq!(SourceInfo::real("open-meteo").label(), "open-meteo");
    /// assert_eq!(SourceInfo::real("a b;c").label(), "a-b-c");
    /// ```
    #[must_use]
    pub fn label(&self) -> String {
        let name: String = self
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_graphic() && c != ';' && c != ',' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        if self.demo {
            format!("{name}; synthetic")
        } else {
            name
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

    /// Answers `queries` with the CI and PM2.5 of each, the same as [`sample`](Self::sample)'s:
    /// what route scoring reads for the score and the inhaled dose. The provided method asks
    /// [`sample`](Self::sample).
    ///
    /// # Errors
    /// As [`sample`](Self::sample).
    async fn sample_exposure(
        &self,
        queries: &[SampleQuery],
    ) -> Result<Vec<Option<Exposure>>, SourceError> {
        Ok(self
            .sample(queries)
            .await?
            .into_iter()
            .map(|answer| answer.map(Exposure::from))
            .collect())
    }
}

/// The hourly CI outlook at one point: `values[0]` is the CI at `start`, `values[h]` the CI `h`
/// hours later. A value may be missing (`None`), and the series may end before the requested
/// horizon when the source forecasts less far ahead.
///
/// `start` is the time the source's value is *for*, which need not be the time asked: a source
/// holding one value per clock hour answers with the hour it read (08:40 asked, the 09:00
/// value given: `start` is 09:00). What names a forecast hour across evaluations at different
/// minutes is [`HourlyCi::valid_at`], so it must be the value's own time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HourlyCi {
    /// The instant `values[0]` stands for.
    pub start: DateTime<Utc>,
    /// One value per hour from `start`.
    pub values: Vec<Option<CleanlinessIndex>>,
    /// Where the values come from: the model runs, or the newest measurement, behind the hours
    /// that have a value. [`Provenance::Unstated`] unless the source says.
    #[serde(default)]
    pub provenance: Provenance,
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
        values.iter().any(Option::is_some).then_some(Self {
            start,
            values,
            provenance: Provenance::Unstated,
        })
    }

    /// The series with `provenance` stated.
    #[must_use]
    pub fn with_provenance(self, provenance: Provenance) -> Self {
        Self { provenance, ..self }
    }

    /// The instant `values[h]` stands for: `start` plus `h` hours.
    ///
    /// ```
    /// use aq_core::HourlyCi;
    /// use chrono::{TimeZone, Utc};
    ///
    /// let start = Utc.with_ymd_and_hms(2026, 5, 1, 9, 0, 0).unwrap();
    /// let series = HourlyCi { start, values: vec![], provenance: Default::default() };
    /// assert_eq!(series.valid_at(2), Utc.with_ymd_and_hms(2026, 5, 1, 11, 0, 0).unwrap());
    /// ```
    #[must_use]
    pub fn valid_at(&self, h: u32) -> DateTime<Utc> {
        self.start
            .checked_add_signed(chrono::TimeDelta::hours(i64::from(h)))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }
}

/// The hourly pollutant concentrations at one point, hour for hour beside [`HourlyCi`]:
/// `values[h]` holds what the source measured or forecast `h` hours after `start`, the
/// concentrations from which it derived that hour's CI. What a national index such as the US
/// EPA AQI is computed from, since a CI cannot be turned back into concentrations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HourlyConcentrations {
    /// The instant of `values[0]`.
    pub start: DateTime<Utc>,
    /// One set per hour from `start`; `None` for an hour without data.
    pub values: Vec<Option<Concentrations>>,
}

impl HourlyConcentrations {
    /// The series, or `None` (the point is not covered) when no hour has a measured pollutant.
    ///
    /// ```
    /// use aq_core::{Concentration, Concentrations, HourlyConcentrations, Pollutant};
    /// use chrono::{TimeZone, Utc};
    ///
    /// let start = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
    /// let pm = Concentrations::default().with(Pollutant::Pm25, Concentration::new(9.0).unwrap());
    /// assert!(HourlyConcentrations::covered(start, vec![None, Some(Concentrations::default())])
    ///     .is_none());
    /// let series = HourlyConcentrations::covered(start, vec![None, Some(pm)]).unwrap();
    /// assert_eq!(series.values[1].unwrap().get(Pollutant::Pm25).unwrap().ug_m3(), 9.0);
    /// ```
    #[must_use]
    pub fn covered(start: DateTime<Utc>, values: Vec<Option<Concentrations>>) -> Option<Self> {
        let values: Vec<Option<Concentrations>> = values
            .into_iter()
            .map(|v| v.filter(|c| !c.is_empty()))
            .collect();
        values
            .iter()
            .any(Option::is_some)
            .then_some(Self { start, values })
    }
}

/// The daily pollen outlook at one point, in the point's civil days (the calendar days of its
/// own time zone): one level per type and day, every day's from the same daily statistic
/// (the source says which), so that days can be compared with each other.
///
/// `yesterday` is there so that today can be compared with a whole day too; an evaluation
/// compares today with yesterday and each later day with today.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PollenOutlook {
    /// Today's civil date at the point, the date of `days[0]`: what names a day across
    /// outlooks fetched at different times (day 1 of today's outlook is day 0 of tomorrow's).
    pub today: NaiveDate,
    /// The levels of the day before today.
    pub yesterday: PollenLevels,
    /// The levels of today and the days after it, today first.
    pub days: Vec<PollenLevels>,
}

impl PollenOutlook {
    /// The outlook of `days`, yesterday first (the days of
    /// [`CivilDays::outlook`](crate::civil::CivilDays::outlook)), or `None` when there is no
    /// day at all.
    ///
    /// ```
    /// use aq_core::{PollenDay, PollenLevel, PollenLevels, PollenOutlook, PollenType};
    /// use chrono::NaiveDate;
    ///
    /// let date = |d| NaiveDate::from_ymd_opt(2026, 6, d).unwrap();
    /// let high = PollenLevels::default().with(PollenType::Grass, PollenLevel::new(4).unwrap());
    /// let days = [
    ///     PollenDay::new(date(9)),
    ///     PollenDay::from_levels(date(10), &high),
    ///     PollenDay::new(date(11)),
    /// ];
    /// let outlook = PollenOutlook::from_days(&days).unwrap();
    /// assert_eq!(outlook.today, date(10));
    /// assert_eq!(outlook.yesterday, PollenLevels::default());
    /// assert_eq!(outlook.days, [high, PollenLevels::default()]);
    /// ```
    #[must_use]
    pub fn from_days(days: &[PollenDay]) -> Option<Self> {
        let (yesterday, rest) = days.split_first()?;
        let today = rest
            .first()
            .map(|d| d.date)
            .or_else(|| yesterday.date.succ_opt())
            .unwrap_or(yesterday.date);
        Some(Self {
            today,
            yesterday: yesterday.levels(),
            days: rest.iter().map(PollenDay::levels).collect(),
        })
    }
}

/// How far from now a [`ForecastSource`] answers hourly series: what lookups tell a customer
/// about hours that are absent. `None` means no fixed window: the data itself decides (a
/// synthetic field answers any time; a station file as far back as its readings go).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceReach {
    /// Hours before now the source keeps, if it keeps a fixed window.
    pub past_hours: Option<u32>,
    /// Hours after now the source forecasts, if it forecasts a fixed window.
    pub ahead_hours: Option<u32>,
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
    /// `hours + 1` values). Each series' [`HourlyCi::start`] is the time its first value is
    /// for: `start` itself for a source that answers any instant, the hour read for one that
    /// answers from hourly values.
    ///
    /// # Errors
    /// [`SourceError`] when the source cannot answer the batch at all.
    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError>;

    /// The hourly concentrations at each position over the same hours as
    /// [`hourly_ci`](Self::hourly_ci), each hour's being those its CI was derived from. Asked
    /// only when a rule shows a national index. The provided method knows no concentrations
    /// and answers `None` for every position, for sources that only give an index.
    ///
    /// # Errors
    /// [`SourceError`] when the source cannot answer the batch at all.
    async fn hourly_concentrations(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
        let _ = (start, hours);
        Ok(vec![None; positions.len()])
    }

    /// The daily pollen levels at each position for yesterday, today (the civil day at the
    /// position that contains `at`) and `days` days after today (so up to `days + 1` entries
    /// in [`PollenOutlook::days`]).
    ///
    /// # Errors
    /// [`SourceError`] when the source cannot answer the batch at all.
    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError>;

    /// The pollen of `days` civil days at each position from today (the day at the position
    /// that contains `at`), with each type's daily mean count where the source has counts, and
    /// where the days' values come from ([`PollenDays::provenance`]: the model runs, or the
    /// newest measurement, behind the days that have a value). The levels are those
    /// [`daily_pollen`](Self::daily_pollen) gives for the same days. The provided method asks
    /// [`daily_pollen`](Self::daily_pollen) and gives levels without counts or provenance, for
    /// sources that only have levels.
    ///
    /// # Errors
    /// [`SourceError`] when the source cannot answer the batch at all.
    async fn pollen_days(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenDays>>, SourceError> {
        let outlooks = self
            .daily_pollen(positions, at, days.saturating_sub(1))
            .await?;
        Ok(outlooks
            .into_iter()
            .map(|o| {
                o.map(|o| {
                    PollenDays::new(
                        o.days
                            .iter()
                            .take(days as usize)
                            .enumerate()
                            .map(|(k, levels)| {
                                let date = o
                                    .today
                                    .checked_add_days(chrono::Days::new(k as u64))
                                    .unwrap_or(o.today);
                                PollenDay::from_levels(date, levels)
                            })
                            .collect(),
                    )
                })
            })
            .collect())
    }

    /// The hourly CI that changes ahead are read from (alert rules): the same hours as
    /// [`hourly_ci`](Self::hourly_ci), and for every source whose values ahead are its own
    /// forecast, the same values (the provided method). A source that corrects a model with
    /// readings relaxes the correction towards the model ahead of now as the readings age:
    /// that is its uncertainty growing, not the air changing, so here it answers with the
    /// correction kept as it is now at every hour ahead, and a change it shows is one the model
    /// forecasts.
    ///
    /// # Errors
    /// [`SourceError`] when the source cannot answer the batch at all.
    async fn hourly_ci_for_changes(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        self.hourly_ci(positions, start, hours).await
    }

    /// How far back and ahead the source answers hourly series. The provided method knows of
    /// no fixed window.
    fn reach(&self) -> SourceReach {
        SourceReach::default()
    }

    /// How sure the source is of the same hours as [`hourly_concentrations`](Self::hourly_concentrations),
    /// and what stands behind them, for a source that corrects a model with station readings.
    /// The provided method fuses nothing and answers `None` for every position.
    ///
    /// # Errors
    /// [`SourceError`] when the source cannot answer the batch at all.
    async fn hourly_fusion(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyFusion>>, SourceError> {
        let _ = (start, hours);
        Ok(vec![None; positions.len()])
    }
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
