//! A place's forecast on the Alerts page: pick a point (click the map or type coordinates)
//! and see the next 96 hours of the cleanliness index over its category bands, the selected
//! rule's threshold around the CI now, and a marker where the rule would fire with the message
//! it would send; pollen days as bars per type. The charts are SVG drawn on the server, so
//! they need no script and no library under the page's policy.

use alerts_core::backtest::{Backtest, backtest};
use alerts_core::change::Change;
use alerts_core::evaluate::{ci_uncertainties, horizon};
use alerts_core::message::render_rule;
use alerts_core::rule::{AlertRule, DataType};
use aq_core::{
    CiCategory, HourlyCi, PollenLevel, PollenOutlook, PollenType, Position, check_batch_len,
};
use chrono::{DateTime, Utc};
use identity_core::ids::AccountId;
use maud::{Markup, html};
use serde::Deserialize;

use super::legend::{ci_legend, range_text};
use super::limits::{PLACE_FORECASTS_PER_ACCOUNT_PER_MINUTE, Verdict};
use super::pages::capitalise;
use crate::DashboardState;

/// Hours of the index drawn.
pub(crate) const HOURS: u32 = 96;
/// Days of pollen drawn after today.
const POLLEN_DAYS: u32 = 4;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 280.0;
const LEFT: f64 = 40.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 28.0;

/// The point and rule asked for: `?lat=&lon=&rule=` beside the page's own parameters, kept as
/// text so that a bad value comes back as it was typed.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PointQuery {
    #[serde(default)]
    lat: Option<String>,
    #[serde(default)]
    lon: Option<String>,
    #[serde(default)]
    rule: Option<String>,
}

impl PointQuery {
    /// The point, `None` when none was asked for, or what to correct.
    fn position(&self) -> Result<Option<Position>, String> {
        let (Some(lat), Some(lon)) = (self.lat.as_deref(), self.lon.as_deref()) else {
            return Ok(None);
        };
        if lat.trim().is_empty() && lon.trim().is_empty() {
            return Ok(None);
        }
        let number = |name: &str, text: &str| {
            text.trim().parse::<f64>().map_err(|_| {
                format!("{name}: `{text}` is not a number. Type decimal degrees, such as 52.52.")
            })
        };
        let (lat, lon) = (number("Latitude", lat)?, number("Longitude", lon)?);
        Position::new(lon, lat).map(Some).map_err(|e| {
            format!(
                "{}. Pick a point on the map instead.",
                capitalise(&e.to_string())
            )
        })
    }
}

/// The section: the picker, and the charts when a point is chosen. Each chosen point queries
/// the forecast source, so it counts against the account's allowance, as map tiles do;
/// `Err` is the section that says the allowance is spent (the page answers 429).
pub(crate) async fn section(
    state: &DashboardState,
    account: AccountId,
    key: identity_core::ids::KeyId,
    rules: &[AlertRule],
    query: &PointQuery,
) -> Result<Markup, Markup> {
    let now = state.clock().now();
    let chosen_rule = query
        .rule
        .as_deref()
        .and_then(|r| rules.iter().find(|rule| rule.id.0.to_string() == r))
        .or_else(|| rules.iter().find(|r| r.enabled));
    let (position, problem) = match query.position() {
        Ok(p) => (p, None),
        Err(why) => (None, Some(why)),
    };
    let allowed = position.is_none()
        || state
            .dashboard()
            .account_limits
            .place_forecast(account, now)
            .await
            == Verdict::Allowed;
    let charts = match position {
        _ if !allowed => Some(html! {
            p.error #forecast-error role="alert" {
                "You have asked for " (PLACE_FORECASTS_PER_ACCOUNT_PER_MINUTE)
                " place forecasts this minute. Wait a minute and try again."
            }
        }),
        Some(position) => Some(charts(state, position, chosen_rule, now).await),
        None => None,
    };
    let section = html! {
        // Kept as it is when a rule form answers in place (the map and the place picked stay),
        // but for the list of alerts, which the form may have changed.
        section #place-forecast data-keep="lat lon rule" {
            h2 { "A place's forecast" }
            p.hint { "Click the map or type coordinates to see the next " (HOURS) " hours of the cleanliness index there, and where the chosen alert would fire." }
            (super::pages::form_error(problem.as_deref()))
            form #forecast-form method="get" action="/dashboard/rules" {
                input type="hidden" name="key" value=(key.0);
                div.coordinates {
                    label for="forecast-lat" { "Latitude" }
                    input #forecast-lat name="lat" inputmode="decimal" value=[query.lat.as_deref()] placeholder="52.52";
                    label for="forecast-lon" { "Longitude" }
                    input #forecast-lon name="lon" inputmode="decimal" value=[query.lon.as_deref()] placeholder="13.40";
                }
                div #forecast-rules data-fresh {
                    @if !rules.is_empty() {
                        label for="forecast-rule" { "Alert" }
                        select #forecast-rule name="rule" {
                            @for rule in rules {
                                option value=(rule.id.0) selected[chosen_rule.is_some_and(|c| c.id == rule.id)] {
                                    (rule.spec.data_type().label()) " · " (rule.spec.forecast().label()) " · "
                                    (rule.spec.sensitivity().as_str()) " sensitivity"
                                    @if !rule.enabled { " (disabled)" }
                                }
                            }
                        }
                    }
                }
                button.secondary type="submit" { "Show forecast" }
            }
            div #forecast-map.map.small data-time=(now.to_rfc3339()) {}
            (ci_legend())
            @if let Some(charts) = charts { (charts) }
        }
    };
    if allowed { Ok(section) } else { Err(section) }
}

/// The charts of one point, or why there are none.
async fn charts(
    state: &DashboardState,
    position: Position,
    rule: Option<&AlertRule>,
    now: DateTime<Utc>,
) -> Markup {
    let source = state.alerts().forecast_source();
    let evaluator = &state.alerts().config().evaluator;
    // The hours come the way the lookups read them, from the start of the current hour.
    let first = aq_core::air_hour::hour_of(now);
    let hours = aq_core::air_hour::air_hours(source.as_ref(), position, first, HOURS + 1).await;
    let pollen = source
        .daily_pollen(&[position], now, POLLEN_DAYS)
        .await
        .and_then(|answers| check_batch_len(1, answers));
    let (place, pollen) = match (hours, pollen) {
        (Ok(h), Ok(mut p)) => (h, p.remove(0)),
        (Err(e), _) | (_, Err(e)) => {
            tracing::warn!(error = %e, "dashboard: forecast source failed");
            return html! { p.error #forecast-error { "The forecast source is unavailable. Wait a minute and try again." } };
        }
    };
    let series = HourlyCi::covered(first, place.hours.iter().map(|h| h.map(|h| h.ci)).collect());
    let mut fired = Vec::new();
    if let Some(rule) = rule {
        // The US AQI averages the hour a change speaks of with the hours before it, as the
        // evaluator and the lookups do; without them the message says it is not available.
        let air_at = |change: &Change| match change {
            Change::Aq(c) => place.air.as_ref().map(|air| {
                aq_core::air_hour::window(air, first + chrono::Duration::hours(i64::from(c.hours)))
            }),
            Change::Pollen(_) => None,
        };
        // The rule reads what the pipeline reads: the hours for changes (a fused source keeps
        // its correction ahead) with their uncertainty, so that where it fires here is where
        // it would fire.
        let for_changes = source
            .hourly_ci_for_changes(&[position], first, HOURS)
            .await
            .and_then(|answers| check_batch_len(1, answers))
            .map(|mut a| a.remove(0))
            .unwrap_or_else(|_| series.clone());
        let fusion = source
            .hourly_fusion(&[position], first, HOURS)
            .await
            .ok()
            .and_then(|mut a| a.pop().flatten());
        let uncertainty = for_changes
            .as_ref()
            .map(|s| ci_uncertainties(s, fusion.as_ref()))
            .unwrap_or_default();
        evaluator.changes(
            &rule.spec,
            for_changes.as_ref(),
            &uncertainty,
            pollen.as_ref(),
            |change, _| {
                let hours = air_at(&change);
                let message = render_rule(
                    &rule.spec,
                    &change,
                    hours.as_ref().map(|h| &h[..]),
                    &evaluator.messages,
                );
                fired.push((change, message));
            },
        );
    }
    let replay = match rule.filter(|r| r.spec.data_type() == DataType::Aq) {
        Some(rule) => replay(source.as_ref(), position, first, &rule.spec, evaluator).await,
        None => None,
    };
    let threshold = rule
        .filter(|r| r.spec.data_type() == DataType::Aq)
        .map(|r| {
            (
                evaluator.thresholds.aq(r.spec.sensitivity()),
                horizon(r.spec.forecast()),
            )
        });
    html! {
        p.hint { "At " (format!("{:.4}, {:.4}", position.lat(), position.lon())) " (latitude, longitude), from " (now.format("%Y-%m-%d %H:%M UTC")) "." }
        @match &series {
            Some(series) => (ci_chart(series, threshold, &fired)),
            None => p #forecast-none { "The forecast source has no air-quality forecast for this place." },
        }
        @match &pollen {
            Some(outlook) => (pollen_chart(outlook, &fired)),
            None => p { "The forecast source has no pollen forecast for this place." },
        }
        @if rule.is_some() {
            @if fired.is_empty() {
                p #forecast-message { "The chosen alert would not fire here in its horizon." }
            } @else {
                ul #forecast-message {
                    @for (change, message) in &fired {
                        li {
                            strong { (when(change)) ": " }
                            (message.description) " " span.hint { (message.recommendation) }
                        }
                    }
                }
            }
        } @else {
            p #forecast-message { "Add an alert above to see where it would fire." }
        }
        @if let Some(result) = &replay {
            (replay_summary(result))
        }
    }
}

/// How many days back the place forecast replays the chosen rule.
const REPLAY_DAYS: u32 = 3;

/// What the chosen air-quality rule would have sent here over the last days
/// ([`alerts_core::backtest`], as the API's `alert-backtest` answers it); `None` where the
/// source has no history here.
async fn replay(
    source: &dyn aq_core::ForecastSource,
    position: aq_core::Position,
    first: chrono::DateTime<chrono::Utc>,
    spec: &alerts_core::rule::RuleSpec,
    evaluator: &alerts_core::evaluate::Evaluator,
) -> Option<Backtest> {
    let hours = REPLAY_DAYS * 24;
    let from = first - chrono::Duration::hours(i64::from(hours));
    let history = source
        .hourly_ci(&[position], from, hours - 1)
        .await
        .and_then(|answers| check_batch_len(1, answers))
        .ok()?
        .pop()
        .flatten()?;
    backtest(spec, &evaluator.thresholds, &history, hours)
}

fn replay_summary(result: &Backtest) -> Markup {
    html! {
        section #rule-backtest {
            h3 { "The last " (REPLAY_DAYS) " days here" }
            p {
                "Replayed once an hour on the air that came (as the source analysed it, not the forecasts then): "
                strong { (result.alerts) } " alerts with this rule's Repeat setting ("
                (result.alerts_once) " once per change, " (result.alerts_every) " to a client posting this place every hour)."
            }
            @if result.episodes.is_empty() {
                p.hint { "No change lasted long enough to be told." }
            } @else {
                ul {
                    @for e in &result.episodes {
                        li {
                            (e.told_at.format("%a %H:%M")) ": "
                            (if e.direction == alerts_core::change::Direction::Deterioration { "worse" } else { "better" })
                            " from " (e.starts_at.format("%a %H:%M")) ", at its worst "
                            (e.peak.category().name()) " (" (e.peak.rounded()) ") at " (e.peak_at.format("%H:%M"))
                            ", seen then to last " (e.hours) (if e.hours == 1 { " hour" } else { " hours" })
                        }
                    }
                }
            }
            p.hint { "Change the sensitivity, Lasting at least or Margin above and look again; the API's alert-backtest gives the same for any place." }
        }
    }
}

fn when(change: &Change) -> String {
    match change {
        Change::Aq(c) if c.hours == 1 => "In 1 hour".to_owned(),
        Change::Aq(c) => format!("In {} hours", c.hours),
        Change::Pollen(c) => match c.day {
            0 => format!("Today, {}", c.kind.name()),
            1 => format!("Tomorrow, {}", c.kind.name()),
            d => format!("In {d} days, {}", c.kind.name()),
        },
    }
}

fn x_of(hour: f64) -> f64 {
    LEFT + hour / f64::from(HOURS) * (WIDTH - LEFT - RIGHT)
}

fn y_of(ci: f64) -> f64 {
    TOP + (100.0 - ci) / 100.0 * (HEIGHT - TOP - BOTTOM)
}

/// The index over the next hours: category bands, the line (broken where a value is
/// missing), the threshold band of an air-quality rule over its horizon, and the marker where
/// it fires.
fn ci_chart(
    series: &HourlyCi,
    threshold: Option<(f64, u32)>,
    fired: &[(Change, alerts_core::message::RenderedMessage)],
) -> Markup {
    let mut path = String::new();
    let mut pen_down = false;
    for (h, value) in series.values.iter().enumerate().take(HOURS as usize + 1) {
        match value {
            Some(ci) => {
                let op = if pen_down { 'L' } else { 'M' };
                path.push_str(&format!(
                    "{op}{:.1},{:.1} ",
                    x_of(h as f64),
                    y_of(ci.value())
                ));
                pen_down = true;
            }
            None => pen_down = false,
        }
    }
    let now = series.values.first().copied().flatten();
    let band = threshold.zip(now).map(|((delta, hours), now)| {
        (
            (now.value() + delta).min(100.0),
            (now.value() - delta).max(0.0),
            f64::from(hours),
            delta,
        )
    });
    let plot_w = WIDTH - LEFT - RIGHT;
    html! {
        svg #forecast-chart.chart xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 {WIDTH} {HEIGHT}"))
            role="img" aria-label=(format!("The cleanliness index over the next {HOURS} hours")) {
            // The 20-point bands; the floor, Extremely poor, is the chart's bottom line.
            @for category in CiCategory::BANDS {
                @let low = category.lower_bound();
                rect.band x=(LEFT) y=(format!("{:.1}", y_of(low + 20.0))) width=(plot_w)
                    height=(format!("{:.1}", y_of(low) - y_of(low + 20.0)))
                    fill=(category.colour()) fill-opacity="0.18" {
                    title { (category.name()) " (" (range_text(category)) ")" }
                }
                text.axis x=(LEFT - 6.0) y=(format!("{:.1}", y_of(low) + 4.0)) text-anchor="end" font-size="11" { (low) }
            }
            line.floor x1=(LEFT) x2=(LEFT + plot_w) y1=(format!("{:.1}", y_of(0.0))) y2=(format!("{:.1}", y_of(0.0)))
                stroke=(CiCategory::ExtremelyPoor.colour()) stroke-width="3" {
                title { (CiCategory::ExtremelyPoor.name()) " (" (range_text(CiCategory::ExtremelyPoor)) ")" }
            }
            @for h in (0..=HOURS).step_by(12) {
                line x1=(format!("{:.1}", x_of(f64::from(h)))) x2=(format!("{:.1}", x_of(f64::from(h))))
                    y1=(TOP) y2=(HEIGHT - BOTTOM) stroke="#dcdcde" {}
                text.axis x=(format!("{:.1}", x_of(f64::from(h)))) y=(HEIGHT - 10.0)
                    text-anchor=(if h == HOURS { "end" } else { "middle" }) font-size="11" {
                    @if h == 0 { "now" } @else { "+" (h) " h" }
                }
            }
            @if let Some((upper, lower, hours, delta)) = band {
                rect.threshold x=(LEFT) y=(format!("{:.1}", y_of(upper))) width=(format!("{:.1}", x_of(hours) - LEFT))
                    height=(format!("{:.1}", y_of(lower) - y_of(upper))) fill="#1d2327" fill-opacity="0.08"
                    stroke="#1d2327" stroke-dasharray="4 3" {
                    title { "The alert's threshold: a change of " (delta) " CI points from now, within " (hours) " hours" }
                }
            }
            path.ci-line d=(path.trim_end()) fill="none" stroke="#1d2327" stroke-width="2" {}
            @for (change, message) in fired {
                @if let Change::Aq(c) = change {
                    circle.fires cx=(format!("{:.1}", x_of(f64::from(c.hours)))) cy=(format!("{:.1}", y_of(c.forecast.value())))
                        r="7" fill="#b32d2e" stroke="#fff" stroke-width="2" {
                        title { (message.description) }
                    }
                    text.fires-label x=(format!("{:.1}", x_of(f64::from(c.hours)) + 10.0)) y=(format!("{:.1}", y_of(c.forecast.value()) - 10.0))
                        font-size="12" fill="#8a2424" { "fires in " (c.hours) " h" }
                }
            }
        }
    }
}

/// A colour per pollen type.
fn pollen_colour(kind: PollenType) -> &'static str {
    match kind {
        PollenType::Tree => "#7a5c2e",
        PollenType::Grass => "#4f9a35",
        PollenType::Weed => "#8e5aa8",
    }
}

/// Each day's level per pollen type (from the day's mean hourly count) as bars, today first, with the level now as a line
/// and a marker on the bar where a pollen rule fires.
fn pollen_chart(
    outlook: &PollenOutlook,
    fired: &[(Change, alerts_core::message::RenderedMessage)],
) -> Markup {
    const H: f64 = 200.0;
    let days = outlook.days.len().min(POLLEN_DAYS as usize + 1);
    let plot_w = WIDTH - LEFT - RIGHT;
    let group = plot_w / days.max(1) as f64;
    let bar = group / 4.0;
    let y = |level: u8| TOP + (5.0 - f64::from(level)) / 5.0 * (H - TOP - BOTTOM);
    let fires = |day: usize, kind: PollenType| {
        fired
            .iter()
            .any(|(c, _)| matches!(c, Change::Pollen(p) if p.kind == kind && p.day as usize == day))
    };
    html! {
        svg #pollen-chart.chart xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 {WIDTH} {H}"))
            role="img" aria-label="Pollen levels per day and type" {
            @for level in 0..=5u8 {
                line x1=(LEFT) x2=(WIDTH - RIGHT) y1=(format!("{:.1}", y(level))) y2=(format!("{:.1}", y(level))) stroke="#dcdcde" {}
                text.axis x=(LEFT - 6.0) y=(format!("{:.1}", y(level) + 4.0)) text-anchor="end" font-size="11" { (level) }
            }
            @for (day, levels) in outlook.days.iter().take(days).enumerate() {
                @let x0 = LEFT + group * day as f64 + bar / 2.0;
                @for (i, kind) in PollenType::ALL.iter().enumerate() {
                    @if let Some(level) = levels.get(*kind) {
                        @let x = x0 + bar * i as f64;
                        rect.pollen-bar x=(format!("{x:.1}")) y=(format!("{:.1}", y(level.value())))
                            width=(format!("{:.1}", bar - 2.0)) height=(format!("{:.1}", y(0) - y(level.value())))
                            fill=(pollen_colour(*kind)) data-kind=(kind.name()) {
                            title { (kind.name()) ": " (level_name(level)) }
                        }
                        @if fires(day, *kind) {
                            circle.fires cx=(format!("{:.1}", x + bar / 2.0 - 1.0)) cy=(format!("{:.1}", y(level.value()) - 9.0)) r="6" fill="#b32d2e" {}
                        }
                    }
                }
                text.axis x=(format!("{:.1}", LEFT + group * (day as f64 + 0.5))) y=(H - 10.0) text-anchor="middle" font-size="11" {
                    @match day { 0 => "today", 1 => "tomorrow", d => { "+" (d) " days" } }
                }
            }
        }
        ul.legend {
            @for kind in PollenType::ALL {
                li {
                    svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" { rect width="14" height="14" fill=(pollen_colour(kind)) {} }
                    " " (kind.name())
                    @if let Some(today) = outlook.days.first().and_then(|d| d.get(kind)) { ": " (today_text(today)) }
                }
            }
        }
    }
}

/// Today's level in the legend: "none today", or "Moderate (3) today".
fn today_text(level: PollenLevel) -> String {
    if level.value() == 0 {
        "none today".to_owned()
    } else {
        format!("{} today", level_name(level))
    }
}

fn level_name(level: PollenLevel) -> String {
    format!("{} ({})", level.name(), level.value())
}
