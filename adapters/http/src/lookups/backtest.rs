//! `GET /insights/v1/alert-backtest?key=&rule=&lat=&lon=&days=N`: what one of the key's
//! air-quality rules would have sent at a place over the last N days, evaluated once an hour on
//! the source's analysed history ([`alerts_core::backtest`]). A customer tunes a rule's
//! sensitivity, minimum duration and margin with it before enabling the rule; a disabled rule
//! is backtested like an enabled one.

use alerts_core::backtest::{Backtest, BacktestEpisode, MAX_BACKTEST_DAYS, backtest};
use alerts_core::ids::RuleId;
use alerts_core::rule::DataType;
use aq_core::air_hour::hour_of;
use aq_core::check_batch_len;
use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use chrono::{DateTime, Duration, Utc};
use i18n_core::Language;
use serde::Serialize;
use utoipa::ToSchema;

use super::labelled;
use super::query::{Count, LookupQuery, Operation};
use super::wire::PositionBody;
use crate::error::{ApiError, ErrorCode, source_unavailable, store_unavailable};
use crate::extract::Authenticated;
use crate::state::AppState;

/// `days` of a backtest.
pub(crate) const BACKTEST_DAYS: Count = Count {
    name: "days",
    max: MAX_BACKTEST_DAYS,
    default: 3,
};

/// What a rule would have sent at a place over the past days.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BacktestResponse {
    /// The rule replayed.
    #[schema(format = Uuid)]
    pub rule: String,
    /// Where.
    pub position: PositionBody,
    /// The first hour evaluated.
    pub from: DateTime<Utc>,
    /// The hour after the last one evaluated (the current hour).
    pub to: DateTime<Utc>,
    /// The hourly evaluations made: one per hour the source has a value for.
    pub evaluations: u32,
    /// The alerts the rule would have sent with its own repeat setting to a client posting
    /// the place once an hour.
    pub alerts: u32,
    /// The alerts with `repeat: once`: one per episode, or per peak beyond the one told.
    pub alerts_once: u32,
    /// The alerts with `repeat: every`: one per hour an episode lay ahead.
    pub alerts_every: u32,
    /// The episodes, each when first told, oldest first.
    pub episodes: Vec<BacktestEpisodeBody>,
    /// How the backtest was made, and what it cannot know.
    pub notes: Vec<String>,
}

/// One episode a backtest found.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BacktestEpisodeBody {
    /// The evaluation hour that first told it.
    pub told_at: DateTime<Utc>,
    /// `deterioration` or `improvement`.
    #[schema(pattern = "^(deterioration|improvement)$")]
    pub direction: String,
    /// Its first hour.
    pub starts_at: DateTime<Utc>,
    /// Its worst hour.
    pub peak_at: DateTime<Utc>,
    /// The cleanliness index then, rounded.
    #[schema(minimum = 0, maximum = 100)]
    pub peak: u8,
    /// Its category.
    pub peak_category: String,
    /// How many hours it lasted, as far as the history read.
    pub hours: u32,
}

impl From<&BacktestEpisode> for BacktestEpisodeBody {
    fn from(e: &BacktestEpisode) -> Self {
        Self {
            told_at: e.told_at,
            direction: e.direction.as_str().to_owned(),
            starts_at: e.starts_at,
            peak_at: e.peak_at,
            peak: e.peak.rounded(),
            peak_category: e.peak.category().name().to_owned(),
            hours: e.hours,
        }
    }
}

/// The `rule` parameter: one of the key's rule ids.
fn rule_param(uri: &Uri) -> Result<RuleId, ApiError> {
    let query = uri.query().unwrap_or_default();
    let mut found = None;
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        if name == "rule" {
            if found.is_some() {
                return Err(ApiError::invalid(
                    "rule: given more than once; pass it once",
                ));
            }
            found = Some(value.into_owned());
        }
    }
    let Some(text) = found else {
        return Err(ApiError::invalid(
            "rule: missing; pass the id of one of this key's alert rules (the dashboard's \
             alert rules page and `admin list-rules` show them)",
        ));
    };
    text.trim()
        .parse::<RuleId>()
        .map_err(|_| ApiError::invalid(format!("rule: `{text}` is not a rule id (a UUID)")))
}

/// `GET /insights/v1/alert-backtest`.
pub(crate) async fn alert_backtest(
    State(state): State<AppState>,
    Authenticated(key): Authenticated,
    uri: Uri,
) -> Result<Response, ApiError> {
    let query = LookupQuery::from_uri(
        &uri,
        Operation {
            count: Some(BACKTEST_DAYS),
            span: None,
            paged: false,
            extra: &["rule"],
        },
    )?;
    let id = rule_param(&uri)?;
    let alerts = state.alerts();
    let rule = alerts
        .rules(key)
        .await
        .map_err(store_unavailable)?
        .into_iter()
        .find(|r| r.id == id)
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotFound,
                format!("rule: this key has no alert rule {id}"),
            )
        })?;
    if rule.spec.data_type() != DataType::Aq {
        return Err(ApiError::invalid(format!(
            "rule: {id} is a pollen rule; backtests replay air-quality rules, hour by hour, and \
             no source keeps a history of daily pollen to replay"
        )));
    }
    let to = hour_of(state.clock().now());
    let hours = query.count * 24;
    let from = to - Duration::hours(i64::from(hours));
    let source = alerts.forecast_source();
    let history = check_batch_len(
        1,
        source
            .hourly_ci(&[query.position], from, hours.saturating_sub(1))
            .await
            .map_err(|e| source_unavailable(&e))?,
    )
    .map_err(|e| source_unavailable(&e))?
    .pop()
    .flatten();
    let thresholds = &alerts.config().evaluator.thresholds;
    let empty = Backtest {
        evaluations: 0,
        alerts: 0,
        alerts_once: 0,
        alerts_every: 0,
        episodes: Vec::new(),
    };
    let result = history
        .as_ref()
        .and_then(|h| backtest(&rule.spec, thresholds, h, hours))
        .unwrap_or(empty);
    let mut notes = vec![
        "Each hour is evaluated on the hours that followed as the source analysed them, not on \
         the forecasts issued then: what the rule makes of the air that came, with a perfect \
         forecast. The last hours see less ahead than the rule's horizon."
            .to_owned(),
    ];
    if result.evaluations == 0 {
        notes.push(format!(
            "The source `{}` has no air-quality history for this place over these days.",
            source.info().name
        ));
    }
    Ok(labelled(
        BacktestResponse {
            rule: id.to_string(),
            position: query.position.into(),
            from,
            to,
            evaluations: result.evaluations,
            alerts: result.alerts,
            alerts_once: result.alerts_once,
            alerts_every: result.alerts_every,
            episodes: result.episodes.iter().map(Into::into).collect(),
            notes,
        },
        Language::English,
    ))
}
