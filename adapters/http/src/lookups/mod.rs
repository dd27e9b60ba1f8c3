//! The lookups: a place's air now, its forecast and history by the hour, and its pollen by
//! the day, read directly instead of through a route score or an alert.
//!
//! | operation | answers |
//! |---|---|
//! | `GET /insights/v1/conditions?key=&lat=&lon=` | the current hour |
//! | `GET /insights/v1/forecast?key=&lat=&lon=&hours=N` | N hours from the current hour, 1 to 96 (24) |
//! | `GET /insights/v1/history?key=&lat=&lon=&hours=N` | the N hours before the current hour, newest first, 1 to 720 (24) |
//! | `GET /insights/v1/pollen?key=&lat=&lon=&days=N` | N civil days from today at the place, 1 to 5 (3) |
//! | `GET /insights/v1/alert-backtest?key=&rule=&lat=&lon=&days=N` | what one of the key's air-quality rules would have sent there over the last N days, 1 to 7 (3) ([`backtest`]) |
//!
//! Each reads the forecast source, the one alerts are evaluated from, through
//! [`aq_core::air_hour::air_hours`] (which the dashboard's place forecast reads too) and the source's pollen days. Each is one
//! request against the key's rate, like every API request, and its work is bounded by its
//! count: at most 720 + 23 hours of one place (the 23 before the first hour feed the
//! averages of the US AQI and the national indexes). The metadata's `regionCode` is the
//! place's country from the server's [`aq_core::CountryLookup`], which also picks the
//! national index an hour lists by default ([`indexes::defaults`]). A fused source (`--fuse-stations`) adds each
//! pollutant's `uncertainty` and the metadata's `fusion` from its
//! [`ForecastSource::hourly_fusion`] of the same hours.

pub(crate) mod backtest;
pub mod indexes;
pub mod query;
pub(crate) mod wire;

use aq_core::air_hour::{NATIONAL_LEAD_HOURS, air_hours_with_lead, hour_of, hours_before};
use aq_core::{
    AirHour, CountryCode, ForecastSource, FusedHour, HourlyConcentrations, HourlyFusion,
    PollenDays, Position, Provenance, SourceError, SourceReach, check_batch_len,
};
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, Uri, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Duration, Utc};
use i18n_core::Language;
use serde::Serialize;

use self::indexes::IndexCode;
use self::query::{Count, HourWindow, LookupQuery, Operation, Span};
use self::wire::{
    ConditionsData, ConditionsResponse, DataSourceBody, FusionBody, HourBody, HoursData,
    HoursResponse, LookupMetadata, PollenData, PollenDayBody, PollenResponse,
};
use crate::error::{ApiError, source_unavailable};
use crate::extract::Authenticated;
use crate::state::AppState;

/// `hours` of a forecast.
pub const FORECAST_HOURS: Count = Count {
    name: "hours",
    max: 96,
    default: 24,
};

/// `hours` of a history.
pub const HISTORY_HOURS: Count = Count {
    name: "hours",
    max: 720,
    default: 24,
};

/// `days` of pollen.
pub const POLLEN_DAYS: Count = Count {
    name: "days",
    max: 5,
    default: 3,
};

/// The current conditions: a place, nothing more.
pub const CONDITIONS: Operation = Operation {
    count: None,
    span: None,
    paged: false,
    extra: &["languageCode", "indexes"],
};

/// A forecast: `hours` or `from`/`to` from the current hour on.
pub const FORECAST: Operation = Operation {
    count: Some(FORECAST_HOURS),
    span: Some(Span::Ahead),
    paged: false,
    extra: &["languageCode", "indexes"],
};

/// A history: `hours` or `from`/`to` before the current hour, by pages.
pub const HISTORY: Operation = Operation {
    count: Some(HISTORY_HOURS),
    span: Some(Span::Before),
    paged: true,
    extra: &["languageCode", "indexes"],
};

/// Pollen: `days` from today.
pub const POLLEN: Operation = Operation {
    count: Some(POLLEN_DAYS),
    span: None,
    paged: false,
    extra: &["languageCode"],
};

/// A lookup's answer (the router adds the forecast source's `Insights-Data-Source`), its
/// `Content-Language` the language its names and advice are in.
fn labelled<T: Serialize>(body: T, language: Language) -> Response {
    let mut response = Json(body).into_response();
    response.headers_mut().insert(
        header::CONTENT_LANGUAGE,
        HeaderValue::from_static(language.tag()),
    );
    response
}

/// The language of an answer's names, categories and advice: the catalogue's language that
/// `languageCode` names (by its primary subtag: `pt-BR` is answered in `pt`), English when it
/// names none or is absent. Notes stay in English, as errors do: they are for the developer.
fn answer_language(query: &LookupQuery) -> Language {
    query
        .language
        .as_deref()
        .and_then(Language::from_tag)
        .unwrap_or_default()
}

/// The note for a `languageCode` the catalogue does not have: the fallback is English, said
/// in `Content-Language` and here.
fn language_note(query: &LookupQuery) -> Option<String> {
    let asked = query.language.as_deref()?;
    Language::from_tag(asked).is_none().then(|| {
        format!(
            "languageCode `{asked}`: not a language answers are written in, so names and advice \
             are in English (Content-Language says so); the languages are {}.",
            Language::ALL.map(Language::tag).join(", ")
        )
    })
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

/// A fused source's hours at `position` from `first` (`count` of them), by their time; empty
/// for a source that fuses nothing.
async fn fused_hours(
    source: &dyn ForecastSource,
    position: Position,
    first: DateTime<Utc>,
    count: u32,
) -> Result<Option<Vec<(DateTime<Utc>, FusedHour)>>, SourceError> {
    let series: Option<HourlyFusion> = check_batch_len(
        1,
        source
            .hourly_fusion(&[position], first, count.max(1) - 1)
            .await?,
    )?
    .pop()
    .flatten();
    Ok(series.map(|s| {
        s.values
            .iter()
            .enumerate()
            .filter_map(|(k, h)| {
                let t = s.start + Duration::hours(i64::try_from(k).ok()?);
                Some((t, (*h)?))
            })
            .collect()
    }))
}

/// `hour` as answered, with `codes`' indexes, read from the place's concentrations `air`.
fn hour_body(
    codes: &[IndexCode],
    air: Option<&HourlyConcentrations>,
    hour: &AirHour,
    fused: Option<&FusedHour>,
    language: Language,
) -> HourBody {
    let mut body = HourBody::fused(hour, fused, language);
    let window = air.map_or([None; aq_core::national::WINDOW_HOURS], |a| {
        hours_before(a, hour.time)
    });
    // In the order asked; an index the hour does not have (no US AQI) is left out.
    body.indexes = indexes::entries(hour, &window, codes, language);
    body
}

/// The indexes `query` asks for at a place in `country`.
fn codes(query: &LookupQuery, country: Option<CountryCode>) -> Vec<IndexCode> {
    query
        .indexes
        .clone()
        .unwrap_or_else(|| indexes::defaults(country))
}

/// The fused hour of `hour`, if the source fused it.
fn fused_at(fused: Option<&[(DateTime<Utc>, FusedHour)]>, hour: &AirHour) -> Option<FusedHour> {
    fused?
        .iter()
        .find(|(t, _)| *t == hour.time)
        .map(|(_, f)| *f)
}

/// The metadata's `fusion` for the hours answered, when the source fuses.
fn fusion_of(
    fused: Option<&[(DateTime<Utc>, FusedHour)]>,
    hours: &[AirHour],
    now: DateTime<Utc>,
) -> Option<FusionBody> {
    fused?;
    let answered: Vec<FusedHour> = hours.iter().filter_map(|h| fused_at(fused, h)).collect();
    (!answered.is_empty()).then(|| FusionBody::new(&answered, now))
}

/// The metadata of an answer.
fn metadata(
    source: &dyn ForecastSource,
    position: Position,
    country: Option<CountryCode>,
    answer: Answered,
    notes: Vec<String>,
    fusion: Option<FusionBody>,
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
        region_code: country.map(|c| c.lowercase()),
        data_source: DataSourceBody::new(&info, source.reach(), answer.newest_hour, &provenance),
        requested: answer.requested,
        answered: answer.answered,
        notes,
        fusion,
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
    _key: Authenticated,
    uri: Uri,
) -> Result<Response, ApiError> {
    let query = LookupQuery::from_uri(&uri, CONDITIONS)?;
    let source = state.lookups();
    let country = state.countries().country(query.position);
    let codes = codes(&query, country);
    let asked = state.clock().now();
    let now = hour_of(asked);
    let mut place =
        air_hours_with_lead(source.as_ref(), query.position, now, 1, NATIONAL_LEAD_HOURS)
            .await
            .map_err(|e| source_unavailable(&e))?;
    let hour = place.hours.pop().flatten();
    let fused = fused_hours(source.as_ref(), query.position, now, 1)
        .await
        .map_err(|e| source_unavailable(&e))?;
    let fused = fused.as_deref();
    let answered = u32::from(hour.is_some());
    let name = source.info().name;
    let mut notes = hour_notes(&name, 1, answered, source.reach(), false);
    notes.extend(language_note(&query));
    Ok(labelled(
        ConditionsResponse {
            metadata: metadata(
                source.as_ref(),
                query.position,
                country,
                Answered {
                    requested: 1,
                    answered,
                    newest_hour: hour.map(|h| h.time),
                    provenance: place.provenance,
                },
                notes,
                fusion_of(fused, hour.as_slice(), asked),
            ),
            data: ConditionsData {
                hour: hour.as_ref().map(|h| {
                    hour_body(
                        &codes,
                        place.air.as_ref(),
                        h,
                        fused_at(fused, h).as_ref(),
                        answer_language(&query),
                    )
                }),
            },
            error: None,
        },
        answer_language(&query),
    ))
}

/// `GET /insights/v1/forecast`: hours from the current hour on.
pub(crate) async fn forecast(
    State(state): State<AppState>,
    _key: Authenticated,
    uri: Uri,
) -> Result<Response, ApiError> {
    let query = LookupQuery::from_uri(&uri, FORECAST)?;
    let window = query.window(
        Span::Ahead,
        hour_of(state.clock().now()),
        FORECAST_HOURS.max,
    )?;
    hours_answer(&state, &query, window, None).await
}

/// `GET /insights/v1/history`: the hours before the current hour, newest first.
pub(crate) async fn history(
    State(state): State<AppState>,
    _key: Authenticated,
    uri: Uri,
) -> Result<Response, ApiError> {
    let query = LookupQuery::from_uri(&uri, HISTORY)?;
    let window = query.window(
        Span::Before,
        hour_of(state.clock().now()),
        HISTORY_HOURS.max,
    )?;
    let (page, next) = match query.page {
        Some(page) => page.of(window),
        None => (window, None),
    };
    hours_answer(&state, &query, page, Some(next)).await
}

/// The hours of `window`, oldest first for a forecast; newest first for a history, which
/// passes its next page's token (`Some(None)` on the last page).
async fn hours_answer(
    state: &AppState,
    query: &LookupQuery,
    window: HourWindow,
    history: Option<Option<String>>,
) -> Result<Response, ApiError> {
    let newest_first = history.is_some();
    let source = state.lookups();
    let country = state.countries().country(query.position);
    let codes = codes(query, country);
    let (first, count) = (window.first, window.count);
    let place = air_hours_with_lead(
        source.as_ref(),
        query.position,
        first,
        count,
        NATIONAL_LEAD_HOURS,
    )
    .await
    .map_err(|e| source_unavailable(&e))?;
    let fused = fused_hours(source.as_ref(), query.position, first, count)
        .await
        .map_err(|e| source_unavailable(&e))?;
    let fused = fused.as_deref();
    let air = place.air;
    let mut hours: Vec<AirHour> = place.hours.into_iter().flatten().collect();
    let newest = hours.last().map(|h| h.time);
    if newest_first {
        hours.reverse();
    }
    let answered = u32::try_from(hours.len()).unwrap_or(u32::MAX);
    let name = source.info().name;
    let mut notes = hour_notes(&name, count, answered, source.reach(), newest_first);
    notes.extend(language_note(query));
    Ok(labelled(
        HoursResponse {
            metadata: metadata(
                source.as_ref(),
                query.position,
                country,
                Answered {
                    requested: count,
                    answered,
                    newest_hour: newest,
                    provenance: place.provenance,
                },
                notes,
                fusion_of(fused, &hours, state.clock().now()),
            ),
            data: HoursData {
                hours: hours
                    .iter()
                    .map(|h| {
                        hour_body(
                            &codes,
                            air.as_ref(),
                            h,
                            fused_at(fused, h).as_ref(),
                            answer_language(query),
                        )
                    })
                    .collect(),
                next_page_token: history.flatten(),
            },
            error: None,
        },
        answer_language(query),
    ))
}

/// `GET /insights/v1/pollen`: civil days from today at the place.
pub(crate) async fn pollen(
    State(state): State<AppState>,
    _key: Authenticated,
    uri: Uri,
) -> Result<Response, ApiError> {
    let query = LookupQuery::from_uri(&uri, POLLEN)?;
    let source = state.lookups();
    let now = state.clock().now();
    let answer = check_batch_len(
        1,
        source
            .pollen_days(&[query.position], now, query.count)
            .await
            .map_err(|e| source_unavailable(&e))?,
    )
    .map_err(|e| source_unavailable(&e))?
    .pop()
    .flatten()
    .unwrap_or_else(|| PollenDays::new(Vec::new()));
    // A day without any type is a day the source has nothing for: absent, like an hour.
    let days: Vec<PollenDayBody> = answer
        .days
        .iter()
        .take(query.count as usize)
        .filter(|d| !d.is_empty())
        .map(|d| PollenDayBody::new(d, answer_language(&query)))
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
    notes.extend(language_note(&query));
    Ok(labelled(
        PollenResponse {
            metadata: metadata(
                source.as_ref(),
                query.position,
                state.countries().country(query.position),
                Answered {
                    requested: query.count,
                    answered,
                    newest_hour: None,
                    provenance: answer.provenance,
                },
                notes,
                None,
            ),
            data: PollenData { days },
            error: None,
        },
        answer_language(&query),
    ))
}
