//! The station file as an [`AirQualitySource`] and a [`ForecastSource`].

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use aq_core::{
    AirQualitySource, AirSample, CleanlinessIndex, ForecastSource, HourlyCi, PollenOutlook,
    Position, SampleQuery, SourceError, SourceInfo,
};

use super::StationFile;
use super::index::Neighbourhood;
use crate::geo::solar_day_start;
use crate::values::Values;

impl StationFile {
    /// The air at `position` and `time`, or `None` when not covered.
    #[must_use]
    pub fn sample_at(&self, position: Position, time: DateTime<Utc>) -> Option<AirSample> {
        self.interpolate(position, time.timestamp(), &mut Neighbourhood::default())
            .air_sample(&self.config.bands)
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

    fn pollen_outlook(
        &self,
        position: Position,
        at: DateTime<Utc>,
        days: u32,
        hood: &mut Neighbourhood,
    ) -> Option<PollenOutlook> {
        let now = self.interpolate(position, at.timestamp(), hood);
        let day0 = solar_day_start(position.lon(), at);
        let mut seen = now.has_pollen();
        let days = (0..=i64::from(days))
            .map(|d| {
                let mut peak = Values::MISSING;
                for h in 0..24 {
                    peak.max_with(&self.interpolate(position, day0 + d * 86_400 + h * 3600, hood));
                }
                seen |= peak.has_pollen();
                peak.pollen_levels(&self.config.pollen)
            })
            .collect();
        seen.then(|| PollenOutlook {
            now: now.pollen_levels(&self.config.pollen),
            days,
        })
    }
}

#[async_trait]
impl AirQualitySource for StationFile {
    fn info(&self) -> SourceInfo {
        SourceInfo::real(self.config.name.clone())
    }

    async fn sample(&self, queries: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
        Ok(self.answer_each(queries, |v| v.air_sample(&self.config.bands)))
    }

    async fn sample_ci(
        &self,
        queries: &[SampleQuery],
    ) -> Result<Vec<Option<CleanlinessIndex>>, SourceError> {
        Ok(self.answer_each(queries, |v| v.ci(&self.config.bands)))
    }
}

#[async_trait]
impl ForecastSource for StationFile {
    fn info(&self) -> SourceInfo {
        SourceInfo::real(self.config.name.clone())
    }

    /// The CI the stations give at each hour, as replayed from the file: hours without fresh
    /// readings are `None`, and a position with no value at any hour is not covered.
    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let mut hood = Neighbourhood::default();
        Ok(positions
            .iter()
            .map(|&p| {
                let values: Vec<_> = (0..=i64::from(hours))
                    .map(|h| {
                        let at = start + chrono::Duration::hours(h);
                        self.interpolate(p, at.timestamp(), &mut hood)
                            .ci(&self.config.bands)
                    })
                    .collect();
                HourlyCi::covered(start, values)
            })
            .collect())
    }

    /// Pollen from the file's pollen columns; a position where no station within reach has any
    /// pollen value is not covered.
    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        let mut hood = Neighbourhood::default();
        Ok(positions
            .iter()
            .map(|&p| self.pollen_outlook(p, at, days, &mut hood))
            .collect())
    }
}
