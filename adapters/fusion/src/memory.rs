//! Station readings held in memory: an [`ObservationSource`] for tests, examples and readings
//! an embedding program already has.

use aq_core::{
    ObservationQuery, ObservationSource, SourceError, SourceInfo, StationId, StationSeries,
};
use async_trait::async_trait;

/// Series held in memory, answered by the port's contract: the stations inside the area, the
/// nearest its centre first when more than asked, the readings in the window.
///
/// ```
/// use aq_core::{Area, ObservationQuery, ObservationSource, Pollutant, Position, Reading,
///     StationId, StationSeries};
/// use aq_fusion::MemoryStations;
/// use chrono::{TimeZone, Utc};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let t = |h| Utc.with_ymd_and_hms(2026, 6, 10, h, 0, 0).unwrap();
/// let stations = MemoryStations::new("berlin", vec![StationSeries {
///     station: StationId("DEBE010".into()),
///     position: Position::new(13.35, 52.54).unwrap(),
///     pollutant: Pollutant::Pm25,
///     readings: vec![Reading { time: t(7), value: 11.0 }, Reading { time: t(9), value: 14.0 }],
/// }]);
/// let query = ObservationQuery {
///     area: Area::new(52.0, 13.0, 53.0, 14.0).unwrap(),
///     from: t(6),
///     to: t(8),
///     max_stations: 10,
/// };
/// let answer = stations.observations(&query).await.unwrap();
/// // The 09:00 reading is after the window.
/// assert_eq!(answer[0].readings, vec![Reading { time: t(7), value: 11.0 }]);
/// # });
/// ```
#[derive(Debug, Clone, Default)]
pub struct MemoryStations {
    name: String,
    series: Vec<StationSeries>,
}

impl MemoryStations {
    /// A source named `name` holding `series`.
    #[must_use]
    pub fn new(name: impl Into<String>, series: Vec<StationSeries>) -> Self {
        Self {
            name: name.into(),
            series,
        }
    }
}

#[async_trait]
impl ObservationSource for MemoryStations {
    fn info(&self) -> SourceInfo {
        SourceInfo::real(self.name.clone())
    }

    async fn observations(
        &self,
        query: &ObservationQuery,
    ) -> Result<Vec<StationSeries>, SourceError> {
        let centre = query.area.centre();
        let mut inside: Vec<(f64, &StationId)> = self
            .series
            .iter()
            .filter(|s| query.area.contains(s.position))
            .map(|s| (s.position.distance_m(centre), &s.station))
            .collect();
        inside.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
        let mut kept: Vec<&StationId> = Vec::new();
        for (_, id) in inside {
            if kept.len() == query.max_stations {
                break;
            }
            if !kept.contains(&id) {
                kept.push(id);
            }
        }
        kept.sort();
        Ok(self
            .series
            .iter()
            .filter(|s| query.area.contains(s.position) && kept.binary_search(&&s.station).is_ok())
            .map(|s| StationSeries {
                readings: s
                    .readings
                    .iter()
                    .filter(|r| r.time >= query.from && r.time <= query.to)
                    .copied()
                    .collect(),
                ..s.clone()
            })
            .filter(|s| !s.readings.is_empty())
            .collect())
    }
}
