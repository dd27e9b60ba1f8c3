//! The station file's readings as taken: the [`ObservationSource`] a fused source reads, each
//! station's own values rather than an interpolation of several.

use aq_core::{
    ObservationQuery, ObservationSource, Pollutant, Reading, SourceError, SourceInfo, StationId,
    StationSeries,
};
use async_trait::async_trait;
use chrono::DateTime;

use super::StationFile;
use crate::values::Values;

impl StationFile {
    /// The readings `query` asks for: the stations inside its area with a reading in its
    /// window (the nearest its centre when there are more than `max_stations`, in file order),
    /// one series per pollutant a station measured.
    ///
    /// ```
    /// use aq_core::{Area, ObservationQuery, Pollutant};
    /// use aq_sources::{StationFile, StationFileConfig};
    /// use chrono::{TimeZone, Utc};
    ///
    /// let csv = "station_id,lon,lat,time,pm25,no2\n\
    ///            a,13.40,52.52,2026-05-04T08:00:00Z,10,31\n\
    ///            a,13.40,52.52,2026-05-04T09:00:00Z,12,\n\
    ///            b,2.35,48.85,2026-05-04T09:00:00Z,20,40\n";
    /// let file = StationFile::from_csv_str(csv, StationFileConfig::default()).unwrap();
    /// let query = ObservationQuery {
    ///     area: Area::new(52.0, 13.0, 53.0, 14.0).unwrap(),
    ///     from: Utc.with_ymd_and_hms(2026, 5, 4, 7, 0, 0).unwrap(),
    ///     to: Utc.with_ymd_and_hms(2026, 5, 4, 9, 0, 0).unwrap(),
    ///     max_stations: 10,
    /// };
    /// let series = file.observed(&query);
    /// // Station a only (b is in Paris): PM2.5 twice, NO₂ once.
    /// assert_eq!(series.len(), 2);
    /// assert_eq!((series[0].pollutant, series[0].readings.len()), (Pollutant::Pm25, 2));
    /// assert_eq!((series[1].pollutant, series[1].readings[0].value), (Pollutant::No2, 31.0));
    /// ```
    #[must_use]
    pub fn observed(&self, query: &ObservationQuery) -> Vec<StationSeries> {
        let (from, to) = (query.from.timestamp(), query.to.timestamp());
        let centre = query.area.centre();
        let window = |i: usize| {
            let readings = &self.stations[i].readings;
            let first = readings.partition_point(|r| r.0 < from);
            let end = readings.partition_point(|r| r.0 <= to);
            &readings[first..end.max(first)]
        };
        let mut inside: Vec<(f64, usize)> = self
            .stations
            .iter()
            .enumerate()
            .filter(|&(i, s)| query.area.contains(s.position) && !window(i).is_empty())
            .map(|(i, s)| (s.position.distance_m(centre), i))
            .collect();
        inside.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        inside.truncate(query.max_stations);
        inside.sort_by_key(|&(_, i)| i);
        let mut out = Vec::new();
        for (_, i) in inside {
            let station = &self.stations[i];
            for p in Pollutant::ALL {
                let k = Values::pollutant_index(p);
                let readings: Vec<Reading> = window(i)
                    .iter()
                    .filter_map(|(t, values, _)| {
                        Some(Reading {
                            time: DateTime::from_timestamp(*t, 0)?,
                            value: values.get(k)?,
                        })
                    })
                    .collect();
                if !readings.is_empty() {
                    out.push(StationSeries {
                        station: StationId(station.id.clone()),
                        position: station.position,
                        pollutant: p,
                        readings,
                    });
                }
            }
        }
        out
    }
}

#[async_trait]
impl ObservationSource for StationFile {
    fn info(&self) -> SourceInfo {
        SourceInfo::real(self.config.name.clone())
    }

    async fn observations(
        &self,
        query: &ObservationQuery,
    ) -> Result<Vec<StationSeries>, SourceError> {
        Ok(self.observed(query))
    }
}

#[cfg(test)]
mod tests {
    use aq_core::{Area, ObservationQuery};
    use chrono::{TimeZone, Utc};

    use crate::{StationFile, StationFileConfig};

    #[test]
    fn the_nearest_stations_to_the_centre_are_kept_counting_stations_not_series() {
        let csv = "station_id,lon,lat,time,pm25,no2\n\
                   far,13.9,52.9,2026-05-04T08:00:00Z,1,2\n\
                   near,13.5,52.5,2026-05-04T08:00:00Z,3,4\n\
                   middle,13.7,52.6,2026-05-04T08:00:00Z,5,6\n\
                   near,13.5,52.5,2026-05-04T10:00:00Z,7,8\n";
        let file = StationFile::from_csv_str(csv, StationFileConfig::default()).unwrap();
        let query = |max_stations| ObservationQuery {
            area: Area::new(52.0, 13.0, 53.0, 14.0).unwrap(),
            from: Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap(),
            to: Utc.with_ymd_and_hms(2026, 5, 4, 9, 0, 0).unwrap(),
            max_stations,
        };
        let two = file.observed(&query(2));
        let ids: Vec<&str> = two.iter().map(|s| s.station.0.as_str()).collect();
        // Two stations, two pollutants each, in file order; the 10:00 reading is after `to`.
        assert_eq!(ids, ["near", "near", "middle", "middle"]);
        assert!(two.iter().all(|s| s.readings.len() == 1));
        assert_eq!(file.observed(&query(10)).len(), 6);
        assert!(file.observed(&query(0)).is_empty());
    }
}
