//! The station file as an [`AirQualitySource`] and a [`ForecastSource`].

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use aq_core::civil::CivilDays;
use aq_core::pollen_day::{DailyMeans, daily_means};
use aq_core::{
    AirQualitySource, AirSample, CleanlinessIndex, ForecastSource, HourlyCi, HourlyConcentrations,
    PollenDays, PollenOutlook, Position, Provenance, SampleQuery, SourceError, SourceInfo,
};

use super::StationFile;
use super::index::Neighbourhood;
use crate::values::Values;

impl StationFile {
    /// The air at `position` and `time`, or `None` when not covered.
    #[must_use]
    pub fn sample_at(&self, position: Position, time: DateTime<Utc>) -> Option<AirSample> {
        self.interpolate(position, time.timestamp(), &mut Neighbourhood::default())
            .air_sample_requiring(&self.config.bands, self.config.required)
    }

    /// `answer` of each query's interpolated values, in order: one neighbourhood serves the
    /// whole batch, whose queries usually lie close together.
    fn answer_each<T>(
        &self,
        queries: &[SampleQuery],
        answer: impl Fn(&Values) -> Option<T>,
    ) -> Vec<Option<T>> {
        let mut hood = Neighbourhood::default();
        queries
            .iter()
            .map(|q| answer(&self.interpolate(q.position, q.time.timestamp(), &mut hood)))
            .collect()
    }

    /// `answer` of each position's interpolated values at every hour from `start`, `hours`
    /// after it included, gathered into a series by `series` (which says whether the position
    /// is covered at all) with the time of the newest reading behind the hours answered: one
    /// neighbourhood serves the batch.
    fn each_hour<T, S>(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
        answer: impl Fn(&Values) -> Option<T>,
        series: impl Fn(DateTime<Utc>, Vec<Option<T>>, Option<DateTime<Utc>>) -> Option<S>,
    ) -> Vec<Option<S>> {
        let mut hood = Neighbourhood::default();
        positions
            .iter()
            .map(|&p| {
                let mut newest = None;
                let values = (0..=i64::from(hours))
                    .map(|h| {
                        let at = start + chrono::Duration::hours(h);
                        let value = answer(&self.interpolate(p, at.timestamp(), &mut hood));
                        if value.is_some() {
                            newest = newest.max(hood.newest);
                        }
                        value
                    })
                    .collect();
                series(
                    start,
                    values,
                    newest.and_then(|t| DateTime::from_timestamp(t, 0)),
                )
            })
            .collect()
    }

    /// `civil`'s days at `position` from the pollen counts interpolated at each hour, with the
    /// time (seconds) of the newest reading behind each hour.
    fn pollen_means(
        &self,
        position: Position,
        civil: &CivilDays,
        hood: &mut Neighbourhood,
    ) -> Option<DailyMeans<Option<i64>>> {
        daily_means(civil, &self.config.pollen, |t| {
            let counts = self.interpolate(position, t, hood).pollen_counts();
            (counts, hood.newest)
        })
    }
}

#[async_trait]
impl AirQualitySource for StationFile {
    fn info(&self) -> SourceInfo {
        SourceInfo::real(self.config.name.clone())
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        Ok(self.answer_each(queries, |v| {
            v.air_sample_requiring(&self.config.bands, self.config.required)
        }))
    }

    async fn sample_ci(
        &self,
        queries: &[SampleQuery],
    ) -> Result<Vec<Option<CleanlinessIndex>>, SourceError> {
        Ok(self.answer_each(queries, |v| {
            v.ci_requiring(&self.config.bands, self.config.required)
        }))
    }
}

#[async_trait]
impl ForecastSource for StationFile {
    fn info(&self) -> SourceInfo {
        SourceInfo::real(self.config.name.clone())
    }

    /// The CI the stations give at each hour, as replayed from the file: hours without fresh
    /// readings are `None`, and a position with no value at any hour is not covered. Each
    /// series is [`Provenance::Observed`] at the newest reading behind its hours.
    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        Ok(self.each_hour(
            positions,
            start,
            hours,
            |values| values.ci_requiring(&self.config.bands, self.config.required),
            |start, values, newest| {
                let series = HourlyCi::covered(start, values)?;
                Some(match newest {
                    Some(newest) => series.with_provenance(Provenance::Observed { newest }),
                    None => series,
                })
            },
        ))
    }

    /// The concentrations of the hours that have a CI, as interpolated from the stations.
    async fn hourly_concentrations(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
        Ok(self.each_hour(
            positions,
            start,
            hours,
            |values| {
                values
                    .air_sample_requiring(&self.config.bands, self.config.required)
                    .and_then(|s| s.concentrations)
            },
            |start, values, _| HourlyConcentrations::covered(start, values),
        ))
    }

    /// Pollen from the file's pollen columns, each civil day's level from the mean of its
    /// hourly counts; a position where no station within reach has any pollen value is not
    /// covered.
    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        let mut hood = Neighbourhood::default();
        Ok(positions
            .iter()
            .map(|&p| {
                let means = self.pollen_means(p, &CivilDays::outlook(p, at, days), &mut hood)?;
                PollenOutlook::from_days(&means.days)
            })
            .collect())
    }

    /// Each day's mean count and level, from the file's pollen readings; the days are
    /// [`Provenance::Observed`] at the newest reading behind their values.
    async fn pollen_days(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenDays>>, SourceError> {
        let mut hood = Neighbourhood::default();
        Ok(positions
            .iter()
            .map(|&p| {
                let means = self.pollen_means(p, &CivilDays::from_today(p, at, days), &mut hood)?;
                let newest = means.behind.into_iter().flatten().max();
                let days = PollenDays::new(means.days);
                Some(match newest.and_then(|t| DateTime::from_timestamp(t, 0)) {
                    Some(newest) => days.with_provenance(Provenance::Observed { newest }),
                    None => days,
                })
            })
            .collect())
    }
}
