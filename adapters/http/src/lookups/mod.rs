//! The lookups: a place's air now, its forecast and history by the hour, and its pollen by
//! the day, read directly instead of through a route score or an alert.
//!
//! | operation | answers |
//! |---|---|
//! | `GET /insights/v1/conditions?key=&lat=&lon=` | the current hour |
//! | `GET /insights/v1/forecast?key=&lat=&lon=&hours=N` | N hours from the current hour, 1 to 96 (24) |
//! | `GET /insights/v1/history?key=&lat=&lon=&hours=N` | the N hours before the current hour, newest first, 1 to 720 (24) |
//! | `GET /insights/v1/pollen?key=&lat=&lon=&days=N` | N civil days from today at the place, 1 to 5 (3) |
//!
//! Each reads the forecast source, the one alerts are evaluated from, through [`air_hours`]
//! (which the dashboard's place forecast reads too) and the source's pollen days. Each is one
//! request against the key's rate, like every API request, and its work is bounded by its
//! count: at most 720 + 11 hours of one place.

mod query;
pub(crate) mod wire;

use aq_core::air_hour::{AVERAGING_LEAD_HOURS, assemble};
use aq_core::{
    AirHour, AqiTable, EaqiBands, ForecastSource, HourlyConcentrations, Position, Provenance,
    SourceError, SourceReach, check_batch_len,
};
use axum::Json;
use axum::extract::State;
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use self::query::{Count, LookupQuery};
use self::wire::{
    ConditionsData, ConditionsResponse, DataSourceBody, HourBody, HoursData, HoursResponse,
    LookupMetadata, PollenData, PollenDayBody, PollenResponse,
};
use crate::api::{KeyQuery, authenticate};
use crate::error::ApiError;
use crate::tiles::hour_of;
use crate::{AppState, source_unavailable};

/// `hours` of a forecast.
pub(crate) const FORECAST_HOURS: Count = Count {
    name: "hours",
    max: 96,
    default: 24,
};

/// `hours` of a history.
pub(crate) const HISTORY_HOURS: Count = Count {
    name: "hours",
    max: 720,
    default: 24,
};

/// `days` of pollen.
pub(crate) const POLLEN_DAYS: Count = Count {
    name: "days",
    max: 5,
    default: 3,
};

/// A place's hours as [`air_hours`] reads them.
#[derive(Debug, Clone)]
pub(crate) struct PlaceHours {
    /// The hours asked for, `None` where the source has no value.
    pub hours: Vec<Option<AirHour>>,
    /// The concentrations from the hours before the first on: what a US AQI of each hour
    /// averages (`aq_core::air_hour::window`).
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
pub(crate) async fn air_hours(
    source: &dyn ForecastSource,
    position: Position,
    first: DateTime<Utc>,
    count: u32,
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
    let lead = AVERAGING_LEAD_HOURS;
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

/// The key and the rate, then the query: what every lookup does first.
async fn admit(state: &AppState, uri: &Uri, count: Option<Count>) -> Result<LookupQuery, ApiError> {
    let key = KeyQuery::from_uri(uri)?;
    let key_id = authenticate(state, key.key.as_deref()).await?;
    state.check_rate(key_id)?;
    LookupQuery::from_uri(uri, count)
}

/// A lookup's answer (the router adds the forecast source's `Insights-Data-Source`).
fn labelled<T: Serialize>(body: T) -> Response {
    Json(body).into_response()
}

/// What a lookup's answer holds, for its metadata.
struct Answered {
    /// How many hours or days were asked for.
    requested: u32,
    /// How many of them the source has.
    answered: u32,
    /// The newest hour with a value.
    newest_hour: Option<DateTime<Utc>>,
    /// Where the values come from.
    provenance: Provenance,
}

/// The metadata of an answer.
fn metadata(
    source: &dyn ForecastSource,
    position: Position,
    answer: Answered,
    notes: Vec<String>,
) -> LookupMetadata {
    let info = source.info();
    let mut notes = notes;
    if info.demo {
        notes.push("Synthetic demo data: not measurements, not a forecast.".to_owned());
    }
    // Provenance speaks of the values answered: with none, there is nothing to tell.
    let provenance = if answer.answered == 0 {
        Provenance::Unstated
    } else {
        answer.provenance
    };
    LookupMetadata {
        position: position.into(),
        data_source: DataSourceBody::new(&info, source.reach(), answer.newest_hour, &provenance),
        requested: answer.requested,
        answered: answer.answered,
        notes,
    }
}

/// What to say when some of `requested` hours are absent.
fn hour_notes(
    name: &str,
    requested: u32,
    answered: u32,
    reach: SourceReach,
    history: bool,
) -> Vec<String> {
    let mut notes = Vec::new();
    if answered == requested {
        return notes;
    }
    if answered == 0 {
        notes.push(format!(
            "The source `{name}` has no air-quality data for this place at the hours asked: \
             the place is outside what it covers, or it has no values for those hours."
        ));
    } else {
        notes.push(format!(
            "{} of the {requested} hours asked are absent: the source `{name}` has no value \
             for them here.",
            requested - answered
        ));
    }
    let window = if history {
        reach
            .past_hours
            .map(|h| format!("The source `{name}` keeps {h} hours of history."))
    } else {
        reach
            .ahead_hours
            .map(|h| format!("The source `{name}` forecasts {h} hours ahead."))
    };
    notes.extend(window);
    notes
}

/// `GET /insights/v1/conditions`: the current hour.
pub(crate) async fn conditions(
    State(state): State<AppState>,
    uri: Uri,
) -> Result<Response, ApiError> {
    let query = admit(&state, &uri, None).await?;
    let source = state.alerts().forecast_source();
    let now = hour_of(state.clock().now());
    let mut place = air_hours(source.as_ref(), query.position, now, 1)
        .await
        .map_err(|e| source_unavailable(&e))?;
    let hour = place.hours.pop().flatten();
    let answered = u32::from(hour.is_some());
    let name = source.info().name;
    let notes = hour_notes(&name, 1, answered, source.reach(), false);
    Ok(labelled(ConditionsResponse {
        metadata: metadata(
            source.as_ref(),
            query.position,
            Answered {
                requested: 1,
                answered,
                newest_hour: hour.map(|h| h.time),
                provenance: place.provenance,
            },
            notes,
        ),
        data: ConditionsData {
            hour: hour.as_ref().map(HourBody::from),
        },
        error: None,
    }))
}

/// `GET /insights/v1/forecast`: hours from the current hour on.
pub(crate) async fn forecast(
    State(state): State<AppState>,
    uri: Uri,
) -> Result<Response, ApiError> {
    let query = admit(&state, &uri, Some(FORECAST_HOURS)).await?;
    let first = hour_of(state.clock().now());
    hours_answer(&state, query, first, false).await
}

/// `GET /insights/v1/history`: the hours before the current hour, newest first.
pub(crate) async fn history(State(state): State<AppState>, uri: Uri) -> Result<Response, ApiError> {
    let query = admit(&state, &uri, Some(HISTORY_HOURS)).await?;
    let first = hour_of(state.clock().now()) - Duration::hours(i64::from(query.count));
    hours_answer(&state, query, first, true).await
}

async fn hours_answer(
    state: &AppState,
    query: LookupQuery,
    first: DateTime<Utc>,
    newest_first: bool,
) -> Result<Response, ApiError> {
    let source = state.alerts().forecast_source();
    let place = air_hours(source.as_ref(), query.position, first, query.count)
        .await
        .map_err(|e| source_unavailable(&e))?;
    let mut hours: Vec<AirHour> = place.hours.into_iter().flatten().collect();
    let newest = hours.last().map(|h| h.time);
    if newest_first {
        hours.reverse();
    }
    let answered = u32::try_from(hours.len()).unwrap_or(u32::MAX);
    let name = source.info().name;
    let notes = hour_notes(&name, query.count, answered, source.reach(), newest_first);
    Ok(labelled(HoursResponse {
        metadata: metadata(
            source.as_ref(),
            query.position,
            Answered {
                requested: query.count,
                answered,
                newest_hour: newest,
                provenance: place.provenance,
            },
            notes,
        ),
        data: HoursData {
            hours: hours.iter().map(HourBody::from).collect(),
        },
        error: None,
    }))
}

/// `GET /insights/v1/pollen`: civil days from today at the place.
pub(crate) async fn pollen(State(state): State<AppState>, uri: Uri) -> Result<Response, ApiError> {
    let query = admit(&state, &uri, Some(POLLEN_DAYS)).await?;
    let source = state.alerts().forecast_source();
    let now = state.clock().now();
    let days = check_batch_len(
        1,
        source
            .pollen_days(&[query.position], now, query.count)
            .await
            .map_err(|e| source_unavailable(&e))?,
    )
    .map_err(|e| source_unavailable(&e))?
    .pop()
    .flatten()
    .unwrap_or_default();
    // A day without any type is a day the source has nothing for: absent, like an hour.
    let days: Vec<PollenDayBody> = days
        .iter()
        .take(query.count as usize)
        .filter(|d| d.levels() != aq_core::PollenLevels::default())
        .map(PollenDayBody::from)
        .collect();
    let answered = u32::try_from(days.len()).unwrap_or(u32::MAX);
    let name = source.info().name;
    let mut notes = Vec::new();
    if answered == 0 {
        notes.push(format!(
            "The source `{name}` has no pollen data for this place on the days asked: the \
             place is outside what it covers, or it is out of season there."
        ));
    } else if answered < query.count {
        notes.push(format!(
            "{} of the {} days asked are absent: the source `{name}` has no whole day of \
             pollen values for them here.",
            query.count - answered,
            query.count
        ));
    }
    Ok(labelled(PollenResponse {
        metadata: metadata(
            source.as_ref(),
            query.position,
            Answered {
                requested: query.count,
                answered,
                newest_hour: None,
                // The pollen port answers days without saying where they come from.
                provenance: Provenance::Unstated,
            },
            notes,
        ),
        data: PollenData { days },
        error: None,
    }))
}
