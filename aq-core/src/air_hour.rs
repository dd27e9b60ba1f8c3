//! One hour of air at a place, as lookups show it: the cleanliness index, the pollutant that
//! sets it, the concentrations and the US AQI, assembled from a source's hourly series.
//!
//! The index is the source's own CI of the hour, the very value route scores and alerts read.
//! The US AQI of each hour averages its past hours as EPA does ([`crate::us_aqi`]), so a
//! series is asked from [`AVERAGING_LEAD_HOURS`] before the first hour shown; the national
//! indexes ([`crate::national`]) average up to a day, so lookups ask
//! [`NATIONAL_LEAD_HOURS`] ([`air_hours_with_lead`], [`hours_before`]).

use chrono::{DateTime, Duration, TimeZone, Utc};
use serde::{Deserialize, Serialize};

use crate::epa::AqiTable;
use crate::index::{CleanlinessIndex, EaqiBands};
use crate::nowcast::NOWCAST_HOURS;
use crate::pollutant::{Concentrations, Pollutant};
use crate::position::Position;
use crate::provenance::Provenance;
use crate::source::{ForecastSource, HourlyCi, HourlyConcentrations, SourceError, check_batch_len};
use crate::us_aqi::UsAqi;

/// How many hours before the first hour shown the US AQI reads: the NowCast's twelve hours
/// end at the hour itself.
pub const AVERAGING_LEAD_HOURS: u32 = NOWCAST_HOURS as u32 - 1;

/// How many hours before the first hour shown the national indexes read: their longest
/// mean, 24 hours, ends at the hour itself. The US AQI reads its own 12 of them.
pub const NATIONAL_LEAD_HOURS: u32 = crate::national::WINDOW_HOURS as u32 - 1;

/// One hour at one place.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AirHour {
    /// The start of the hour.
    pub time: DateTime<Utc>,
    /// The cleanliness index.
    pub ci: CleanlinessIndex,
    /// The pollutant with the worst EAQI sub-index, when the source gives concentrations.
    pub dominant: Option<Pollutant>,
    /// The concentrations the index came from, when the source gives them.
    pub concentrations: Option<Concentrations>,
    /// The US AQI, when the concentrations give one.
    pub us_aqi: Option<UsAqi>,
}

/// The pollutant with the worst EAQI sub-index in `air` (the first in [`Pollutant::ALL`] order
/// on a tie); `None` when none has a band.
///
/// ```
/// use aq_core::air_hour::dominant;
/// use aq_core::{Concentration, Concentrations, EaqiBands, Pollutant};
///
/// let air = Concentrations::default()
///     .with(Pollutant::Pm25, Concentration::new(12.0).unwrap())
///     .with(Pollutant::No2, Concentration::new(50.0).unwrap());
/// assert_eq!(dominant(&EaqiBands::default(), &air), Some(Pollutant::No2));
/// ```
#[must_use]
pub fn dominant(bands: &EaqiBands, air: &Concentrations) -> Option<Pollutant> {
    let mut worst: Option<(f64, Pollutant)> = None;
    for (p, c) in air.iter() {
        if let Some(sub) = bands.sub_index(p, c.ug_m3())
            && worst.is_none_or(|(w, _)| sub > w)
        {
            worst = Some((sub, p));
        }
    }
    worst.map(|(_, p)| p)
}

/// The hours `first`, `first + 1 h`, … (`count` of them) from a source's series of CIs and
/// concentrations, which may start earlier (their past hours feed the US AQI): `None` for an
/// hour without a CI, which the source does not cover.
///
/// ```
/// use aq_core::air_hour::assemble;
/// use aq_core::{AqiTable, CleanlinessIndex, EaqiBands, HourlyCi};
/// use chrono::{Duration, TimeZone, Utc};
///
/// let start = Utc.with_ymd_and_hms(2026, 5, 1, 0, 0, 0).unwrap();
/// let ci = HourlyCi::covered(start, vec![CleanlinessIndex::new(70.0).ok(), None]).unwrap();
/// let hours = assemble(Some(&ci), None, start, 3, &EaqiBands::default(), AqiTable::Epa2024);
/// assert_eq!(hours[0].unwrap().ci.value(), 70.0);
/// assert!(hours[1].is_none() && hours[2].is_none(), "not covered, not invented");
/// ```
#[must_use]
pub fn assemble(
    ci: Option<&HourlyCi>,
    air: Option<&HourlyConcentrations>,
    first: DateTime<Utc>,
    count: usize,
    bands: &EaqiBands,
    table: AqiTable,
) -> Vec<Option<AirHour>> {
    let ci_at = |t: DateTime<Utc>| ci.and_then(|s| at(s.start, &s.values, t).copied().flatten());
    let air_at = |t: DateTime<Utc>| air.and_then(|s| at(s.start, &s.values, t).copied().flatten());
    (0..count)
        .map(|k| {
            let time = first + Duration::hours(i64::try_from(k).unwrap_or(i64::MAX));
            let ci = ci_at(time)?;
            let concentrations = air_at(time);
            let window = air.map_or([None; NOWCAST_HOURS], |a| window(a, time));
            Some(AirHour {
                time,
                ci,
                dominant: concentrations.as_ref().and_then(|c| dominant(bands, c)),
                concentrations,
                us_aqi: table.us_aqi(&window),
            })
        })
        .collect()
}

/// The hours the US AQI of the hour `t` reads from `air`, newest first: `[0]` is `t`'s own,
/// `[i]` the one `i` hours earlier, `None` outside the series.
///
/// ```
/// use aq_core::air_hour::window;
/// use aq_core::{Concentrations, HourlyConcentrations};
/// use chrono::{Duration, TimeZone, Utc};
///
/// let start = Utc.with_ymd_and_hms(2026, 5, 1, 0, 0, 0).unwrap();
/// let air = HourlyConcentrations { start, values: vec![Some(Concentrations::default()); 3] };
/// let w = window(&air, start + Duration::hours(2));
/// assert!(w[0].is_some() && w[2].is_some() && w[3].is_none());
/// ```
#[must_use]
pub fn window(
    air: &HourlyConcentrations,
    t: DateTime<Utc>,
) -> [Option<Concentrations>; NOWCAST_HOURS] {
    hours_before(air, t)
}

/// The `N` hours of `air` ending with the hour `t`, newest first, as [`window`] reads its
/// twelve: `N` = [`crate::national::WINDOW_HOURS`] gives a national index its day.
///
/// ```
/// use aq_core::air_hour::hours_before;
/// use aq_core::{Concentrations, HourlyConcentrations};
/// use chrono::{Duration, TimeZone, Utc};
///
/// let start = Utc.with_ymd_and_hms(2026, 5, 1, 0, 0, 0).unwrap();
/// let air = HourlyConcentrations { start, values: vec![Some(Concentrations::default()); 24] };
/// let day: [_; 24] = hours_before(&air, start + Duration::hours(23));
/// assert!(day.iter().all(Option::is_some));
/// ```
#[must_use]
pub fn hours_before<const N: usize>(
    air: &HourlyConcentrations,
    t: DateTime<Utc>,
) -> [Option<Concentrations>; N] {
    std::array::from_fn(|i| {
        let hours_before = i64::try_from(i).unwrap_or(0);
        at(air.start, &air.values, t - Duration::hours(hours_before))
            .copied()
            .flatten()
    })
}

/// The value of a series starting at `start` for the hour `t`; `None` outside it or between
/// whole hours.
fn at<T>(start: DateTime<Utc>, values: &[T], t: DateTime<Utc>) -> Option<&T> {
    let offset = (t - start).num_seconds();
    if offset < 0 || offset % 3600 != 0 {
        return None;
    }
    values.get(usize::try_from(offset / 3600).ok()?)
}

/// The start of the hour of `t`: the hour a lookup, a tile or a place's forecast shows for
/// an instant.
///
/// ```
/// use aq_core::air_hour::hour_of;
/// use chrono::{TimeZone, Utc};
///
/// let t = Utc.with_ymd_and_hms(2026, 5, 1, 8, 59, 59).unwrap();
/// assert_eq!(hour_of(t), Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap());
/// ```
#[must_use]
pub fn hour_of(t: DateTime<Utc>) -> DateTime<Utc> {
    let seconds = t.timestamp();
    Utc.timestamp_opt(seconds - seconds.rem_euclid(3600), 0)
        .single()
        .unwrap_or(t)
}

/// A place's hours as [`air_hours`] reads them.
#[derive(Debug, Clone)]
pub struct PlaceHours {
    /// The hours asked for, `None` where the source has no value.
    pub hours: Vec<Option<AirHour>>,
    /// The concentrations from the hours before the first on: what a US AQI of each hour
    /// averages ([`window`]).
    pub air: Option<HourlyConcentrations>,
    /// Where the hours' values come from, as the source says.
    pub provenance: Provenance,
}

/// The hours `first`, `first + 1 h`, … (`count` of them) at `position` from `source`, with
/// the past hours the US AQI averages: the one path from a forecast source to hours that
/// lookups and the dashboard share. An hour the source does not cover is `None`.
///
/// # Errors
/// [`SourceError`] when the source cannot answer, or answers with the wrong number of entries.
pub async fn air_hours(
    source: &dyn ForecastSource,
    position: Position,
    first: DateTime<Utc>,
    count: u32,
) -> Result<PlaceHours, SourceError> {
    air_hours_with_lead(source, position, first, count, AVERAGING_LEAD_HOURS).await
}

/// [`air_hours`] with the concentrations asked from `lead` hours before `first`: lookups ask
/// [`NATIONAL_LEAD_HOURS`] for the national indexes' day-long means, the dashboard the US
/// AQI's [`AVERAGING_LEAD_HOURS`]. The hours' own values do not depend on it.
///
/// # Errors
/// [`SourceError`] when the source cannot answer, or answers with the wrong number of entries.
pub async fn air_hours_with_lead(
    source: &dyn ForecastSource,
    position: Position,
    first: DateTime<Utc>,
    count: u32,
    lead: u32,
) -> Result<PlaceHours, SourceError> {
    let count = count.max(1);
    let ci = check_batch_len(1, source.hourly_ci(&[position], first, count - 1).await?)?
        .pop()
        .flatten();
    let Some(ci) = ci else {
        return Ok(PlaceHours {
            hours: vec![None; count as usize],
            air: None,
            provenance: Provenance::Unstated,
        });
    };
    let air = check_batch_len(
        1,
        source
            .hourly_concentrations(
                &[position],
                first - Duration::hours(i64::from(lead)),
                count - 1 + lead,
            )
            .await?,
    )?
    .pop()
    .flatten();
    let hours = assemble(
        Some(&ci),
        air.as_ref(),
        first,
        count as usize,
        &EaqiBands::default(),
        AqiTable::Epa2024,
    );
    Ok(PlaceHours {
        hours,
        air,
        provenance: ci.provenance,
    })
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::pollutant::Concentration;

    #[test]
    fn an_hour_reads_its_own_values_and_averages_the_past() {
        let start = Utc.with_ymd_and_hms(2026, 5, 1, 0, 0, 0).unwrap();
        let pm = |v| {
            Some(Concentrations::default().with(Pollutant::Pm25, Concentration::new(v).unwrap()))
        };
        let ci = HourlyCi::covered(start, vec![CleanlinessIndex::new(60.0).ok(); 14]).unwrap();
        let mut values = vec![pm(10.0); 12];
        values.extend([pm(50.0), None]);
        let air = HourlyConcentrations { start, values };
        let first = start + Duration::hours(11);
        let hours = assemble(
            Some(&ci),
            Some(&air),
            first,
            3,
            &EaqiBands::default(),
            AqiTable::Epa2024,
        );
        let h = hours.iter().map(|h| h.unwrap()).collect::<Vec<_>>();
        assert_eq!(h[0].time, first);
        assert_eq!(
            h[1].concentrations
                .unwrap()
                .get(Pollutant::Pm25)
                .unwrap()
                .ug_m3(),
            50.0
        );
        // The NowCast of 50 after eleven hours of 10 is far below 50's own AQI.
        let nowcast = h[1].us_aqi.unwrap();
        assert!(nowcast.value < AqiTable::Epa2024.local_aqi(&pm(50.0).unwrap()).unwrap().0);
        // The last hour has a CI but no concentrations: no pollutants, and an AQI from its past.
        assert_eq!(h[2].concentrations, None);
        assert_eq!(h[2].dominant, None);
        assert!(
            h[2].us_aqi.is_some(),
            "two of the three newest hours suffice"
        );
    }
}
