//! Route playground: paste a cleanest-route request (or start from the sample) and see the
//! routes on a map over the heatmap of the cleanliness index, each coloured sample by sample,
//! with a table of the results and the recommendations; the raw response is one click away.
//! The map is the vendored Leaflet ([`super::map`]); nothing is fetched from outside unless an
//! operator configured a basemap.

use aq_core::tile::ramp;
use aq_core::{CiCategory, CleanlinessIndex, Position, check_batch_len};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use chrono::{DateTime, Utc};
use maud::{Markup, html};
use racs_core::journey_request::JourneyRequest;
use racs_core::{ScoreRequest, ScoreResponse, plan_route};
use serde::Deserialize;
use serde_json::json;

use super::extract::Action;
use super::legend::{NO_DATA, ci_legend};
use super::limits::{PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE, Verdict};
use super::map;
use super::pages::{self, form_error, layout};
use super::{SignedIn, axis_order};
use crate::DashboardState;

/// Three walks across central Berlin, the shape of the spec's sample.
const SAMPLE: &str = r#"{
  "routesSort": "desc",
  "routes": [
    {"id": "1", "routeDuration": 35, "polyline": [
      [13.3350, 52.5070], [13.3400, 52.5120], [13.3450, 52.5150], [13.3500, 52.5163],
      [13.3600, 52.5163], [13.3700, 52.5163], [13.3777, 52.5163]]},
    {"id": "2", "routeDuration": 36, "polyline": [
      [13.3350, 52.5070], [13.3420, 52.5110], [13.3500, 52.5125], [13.3600, 52.5130],
      [13.3700, 52.5135], [13.3740, 52.5150], [13.3777, 52.5163]]},
    {"id": "3", "routeDuration": 52, "polyline": [
      [13.3350, 52.5070], [13.3450, 52.5060], [13.3550, 52.5060], [13.3650, 52.5070],
      [13.3700, 52.5100], [13.3740, 52.5130], [13.3777, 52.5163]]}
  ]
}"#;

/// The playground form.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PlaygroundForm {
    #[serde(default)]
    request: String,
}

pub(crate) async fn page(State(state): State<DashboardState>, user: SignedIn) -> Response {
    let now = state.clock().now();
    let empty = json!({"routes": [], "time": now.to_rfc3339()}).to_string();
    let body = html! {
        (form(&user, SAMPLE, None))
        section #map-section {
            h2 { "The air now" }
            div #playground-map.map data-routes=(empty) {}
            (hour_slider(now))
            (ci_legend())
        }
        (map::assets(&state))
    };
    map::allow_basemap(
        &state,
        pages::page(
            StatusCode::OK,
            layout("Route playground", Some(&user), &body),
        ),
    )
}

pub(crate) async fn run(
    State(state): State<DashboardState>,
    headers: HeaderMap,
    Action { user, form: input }: Action<PlaygroundForm>,
) -> Response {
    let refuse_with = |status: StatusCode, message: String| {
        // A refused request may be refused for points written the other way round; a run
        // over the minute's allowance looks at nothing.
        let hints = (status == StatusCode::UNPROCESSABLE_ENTITY)
            .then(|| order_hints(&state, &input.request));
        let body = html! {
            @if let Some(hints) = hints { (hints) }
            (form(&user, &input.request, Some(&message)))
        };
        pages::page(status, layout("Route playground", Some(&user), &body))
    };
    let refuse = |message: String| refuse_with(StatusCode::UNPROCESSABLE_ENTITY, message);
    let verdict = state
        .dashboard()
        .account_limits
        .playground(user.account, state.clock().now())
        .await;
    if verdict == Verdict::Unavailable {
        return crate::limits_unavailable();
    }
    if verdict != Verdict::Allowed {
        return refuse_with(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "You have run the playground {PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE} times this \
                 minute. Wait a minute and run it again."
            ),
        );
    }
    let (request, response, doses): (ScoreRequest, ScoreResponse, Vec<Option<f64>>) =
        if planned_body(&input.request) {
            // A planned route: the server finds the routes, then scores them as posted ones.
            if input.request.len() > MAX_PLANNED_BYTES {
                return refuse(format!(
                    "The API refuses planned-route bodies over {MAX_PLANNED_BYTES} bytes; this one \
                 is {}.",
                    input.request.len()
                ));
            }
            let journey = match JourneyRequest::from_json_slice(input.request.as_bytes()) {
                Ok(journey) => journey,
                Err(e) => {
                    return refuse(format!(
                        "The API would refuse this request: {e}. Correct it and run it again."
                    ));
                }
            };
            match state.api().plan(&headers, journey).await {
                Ok(planned) => {
                    let doses = planned.routes.iter().map(|r| r.inhaled_pm25_ug).collect();
                    (planned.request, planned.scores, doses)
                }
                Err(refusal) => {
                    return refuse_with(
                        refusal.status,
                        format!("The server could not plan this trip: {}", refusal.detail),
                    );
                }
            }
        } else {
            let request = match ScoreRequest::from_json_slice(
                input.request.as_bytes(),
                state.api().route_limits(),
            ) {
                Ok(request) => request,
                Err(e) => {
                    return refuse(format!(
                        "The API would refuse this request: {e}. Correct it and run it again."
                    ));
                }
            };
            // Scored as the API scores: off the connection's task when large.
            match state.api().score(&headers, request.clone()).await {
                Ok(report) => {
                    let doses = report
                        .outcomes
                        .iter()
                        .map(|o| o.score().map(|s| s.dose))
                        .collect();
                    (request, report.response, doses)
                }
                Err(e) => return e,
            }
        };
    let drawn = match samples(&state, &request).await {
        Ok(drawn) => drawn,
        Err(e) => return e,
    };
    let json = serde_json::to_string_pretty(&response).unwrap_or_default();
    let body = html! {
        section #map-section {
            h2 { "Routes" }
            (order_hints(&state, &input.request))
            div #playground-map.map data-routes=(map_data(&request, &drawn)) {}
            (hour_slider(drawn.departure))
            (ci_legend())
        }
        section #results {
            h2 { "Results" }
            (results(&request, &response, &drawn, &doses))
            details {
                summary { "The response as the API sends it" }
                pre { code { (json) } }
            }
        }
        (form(&user, &input.request, None))
        (map::assets(&state))
    };
    map::allow_basemap(
        &state,
        pages::page(
            StatusCode::OK,
            layout("Route playground", Some(&user), &body),
        ),
    )
}

/// The largest planned-route body the API reads.
const MAX_PLANNED_BYTES: usize = 4 * 1024;

/// Whether a body asks for routes to be planned: an object with `origin` or `destination` at
/// its top level, as the API tells the bodies apart.
fn planned_body(text: &str) -> bool {
    serde_json::from_str::<std::collections::HashMap<String, serde::de::IgnoredAny>>(text)
        .is_ok_and(|o| o.contains_key("origin") || o.contains_key("destination"))
}

/// Says which routes of the body look like `[latitude, longitude]` (see [`axis_order`]).
fn order_hints(state: &DashboardState, request: &str) -> Markup {
    let max_routes = state.api().route_limits().max_routes;
    html! {
        @for hint in axis_order::swapped_routes(request, max_routes) {
            p.warning.order-hint role="status" { (hint) }
        }
    }
}

fn form(user: &SignedIn, request: &str, error: Option<&str>) -> Markup {
    html! {
        (form_error(error))
        form.card #playground-form method="post" action="/dashboard/playground" {
            input type="hidden" name="csrf" value=(user.csrf);
            label for="request" { "Cleanest-route request (JSON, as sent to the API)" }
            textarea #request name="request" rows="14" spellcheck="false" { (request) }
            p.hint { "The sample has three walks across Berlin. Scoring here uses no API key and counts against no quota." }
            p.hint { "To have walks or rides planned on the server's streets instead, click the map twice (where you start, then where you go), or send {\"origin\": [lon, lat], \"destination\": [lon, lat], \"travelMode\": \"walk\", \"routesSort\": \"desc\"}. To draw your own routes, choose \"draws routes\" below and click their points on the map; each takes as long as walking it." }
            p.hint { "Points are [longitude, latitude] pairs, GeoJSON's order: Berlin is [13.40, 52.52]. A route drawn far from where you meant (in the sea, on another continent) has them the other way round." }
            label for="plan-mode" { "Clicking the map" }
            select #plan-mode {
                option value="walk" selected { "plans a walk (start, then destination)" }
                option value="cycle" { "plans a ride (start, then destination)" }
                option value="draw" { "draws routes, point by point" }
            }
            // For drawing; the page script shows them when drawing is chosen.
            button.secondary #draw-next type="button" hidden { "Start another route" }
            " "
            button.secondary #draw-clear type="button" hidden { "Clear the drawing" }
            " "
            button type="submit" { "Score routes" }
            " "
            a href="/dashboard/playground" { "Load the sample" }
        }
    }
}

/// What the map draws of each route: its samples where the source was asked, and the CI
/// found at each.
struct Drawn {
    departure: DateTime<Utc>,
    /// Per route in request order: the samples with their CI, and the route's length in
    /// metres; empty when the route could not be planned.
    routes: Vec<(Vec<Sample>, Option<f64>)>,
}

/// Where a route was sampled, and the CI found there.
type Sample = (Position, Option<CleanlinessIndex>);

/// Plans every route as the scorer does and asks the source once for all their samples.
async fn samples(state: &DashboardState, request: &ScoreRequest) -> Result<Drawn, Response> {
    let scorer = state.scorer();
    let departure = request
        .departure_time
        .unwrap_or_else(|| state.clock().now());
    let plans: Vec<_> = request
        .routes
        .iter()
        .map(|route| {
            plan_route(
                &route.polyline,
                request.duration_s(route),
                departure,
                scorer.config(),
            )
            .ok()
        })
        .collect();
    let queries: Vec<_> = plans
        .iter()
        .flatten()
        .flat_map(|plan| plan.queries().iter().copied())
        .collect();
    let answers = if queries.is_empty() {
        Vec::new()
    } else {
        let answers = scorer
            .source()
            .sample_ci(&queries)
            .await
            .map_err(|e| state.api().source_unavailable(&e))?;
        check_batch_len(queries.len(), answers).map_err(|e| state.api().source_unavailable(&e))?
    };
    let mut answers = answers.into_iter();
    let routes = plans
        .iter()
        .map(|plan| match plan {
            Some(plan) => (
                plan.queries()
                    .iter()
                    .map(|q| (q.position, answers.next().flatten()))
                    .collect(),
                Some(plan.length_m()),
            ),
            None => (Vec::new(), None),
        })
        .collect();
    Ok(Drawn { departure, routes })
}

/// The map's data as JSON, for the page script: each route's id, its polyline as
/// `[lat, lon]` pairs, its samples and the colour of each stretch between two samples (the
/// heatmap's ramp at their mean CI, grey without data).
fn map_data(request: &ScoreRequest, drawn: &Drawn) -> String {
    let routes: Vec<_> = request
        .routes
        .iter()
        .zip(&drawn.routes)
        .enumerate()
        .map(|(i, (route, (samples, _)))| {
            let colours: Vec<_> = samples
                .windows(2)
                .map(|pair| match (pair[0].1, pair[1].1) {
                    (Some(a), Some(b)) => hex(ramp((a.value() + b.value()) / 2.0)),
                    (Some(v), None) | (None, Some(v)) => hex(ramp(v.value())),
                    (None, None) => NO_DATA.to_owned(),
                })
                .collect();
            json!({
                "id": route.id.as_str(),
                "line": route.polyline.iter().map(|p| [p.lat(), p.lon()]).collect::<Vec<_>>(),
                "samples": samples.iter().map(|(p, _)| [p.lat(), p.lon()]).collect::<Vec<_>>(),
                "colours": colours,
                "outline": route_colour(i),
            })
        })
        .collect();
    json!({"routes": routes, "time": drawn.departure.to_rfc3339()}).to_string()
}

/// The colour that tells a route apart on the map and in the table: none of the index's
/// palette, which colours the stretches inside it.
fn route_colour(index: usize) -> &'static str {
    const OUTLINES: [&str; 6] = [
        "#1d2327", "#2271b1", "#c2185b", "#6d4c41", "#00838f", "#5c6bc0",
    ];
    OUTLINES[index % OUTLINES.len()]
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Hours the slider reaches past the departure's hour.
const SLIDER_HOURS: u32 = 47;

fn hour_slider(departure: DateTime<Utc>) -> Markup {
    let start = aq_core::air_hour::hour_of(departure);
    html! {
        div.slider {
            label for="hour" { "Heatmap hour: " output #hour-shown for="hour" { (start.format("%Y-%m-%d %H:00 UTC")) } }
            input #hour type="range" min="0" max=(SLIDER_HOURS) value="0" step="1"
                data-start=(start.to_rfc3339());
            p.hint { "The routes are coloured at their departure; the slider moves the heatmap through the next two days." }
        }
    }
}

/// The results as a table, in the response's order, and the recommendations; `doses` holds
/// each route's inhaled dose in request order, shown where the answer's details do not carry it.
fn results(
    request: &ScoreRequest,
    response: &ScoreResponse,
    drawn: &Drawn,
    doses: &[Option<f64>],
) -> Markup {
    let units = request.length_units;
    let route_of = |id: &str| request.routes.iter().position(|r| r.id.as_str() == id);
    html! {
        p.hint { "RACS, the route air cleanliness score: the cleanliness index of the air along the route, weighed by the time spent in each stretch, 0 (dirtiest) to 100 (cleanest)." }
        table #results-table {
            thead { tr {
                th { "Route" } th { "RACS" } th { "Duration (" (request.duration_units.word()) ")" }
                th { "Length (" (units.word()) ")" } th { "Dose" } th { "Error" }
            } }
            tbody {
                @for entry in &response.racss {
                    @let index = route_of(entry.route_id.as_str());
                    @let route = index.map(|i| &request.routes[i]);
                    @let length_m = entry
                        .details
                        .as_ref()
                        .map(|d| units.metres() * d.length)
                        .or_else(|| index.and_then(|i| drawn.routes[i].1));
                    tr.result {
                        td data-label="Route" {
                            @if let Some(i) = index {
                                svg.swatch width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" {
                                    rect width="14" height="14" fill=(route_colour(i)) {}
                                }
                                " "
                            }
                            (entry.route_id.as_str())
                        }
                        td data-label="RACS" {
                            @match entry.racs {
                                Some(racs) => {
                                    @let category = CiCategory::of(f64::from(racs));
                                    svg.swatch width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" {
                                        rect width="14" height="14" fill=(category.colour()) {}
                                    }
                                    " " strong { (racs) } " " (category.name())
                                }
                                None => "–",
                            }
                        }
                        td data-label="Duration" { @if let Some(route) = route { (format!("{:.1}", route.route_duration)) } }
                        td data-label="Length" { @if let Some(m) = length_m { (format!("{:.2}", units.from_metres(m))) } }
                        td data-label="Dose" {
                            @match entry
                                .details
                                .as_ref()
                                .and_then(|d| d.inhaled_pm25_ug)
                                .or_else(|| index.and_then(|i| doses.get(i).copied().flatten())) {
                                Some(dose) => (format!("{dose:.1} µg")),
                                None => "–",
                            }
                        }
                        td data-label="Error" {
                            @if entry.error.code() == 0 { "none" } @else { (entry.error.code()) ": " (entry.error.text()) }
                        }
                    }
                }
            }
        }
        @if response.recommendations.is_empty() {
            p #recommendations { "No recommendation: no route could be scored." }
        } @else {
            ul #recommendations {
                @for r in &response.recommendations {
                    // A departure time's route is in `routeId`; the others name it in `value`.
                    li {
                        strong { (r.name) } " — route "
                        (r.additional_data.route_id.as_deref().unwrap_or(&r.additional_data.value))
                        ": " (r.text)
                    }
                }
            }
        }
    }
}
