//! Route playground: paste a cleanest-route request (or start from the sample), see the
//! response, and each route drawn as an SVG line coloured by how clean the air is along it.
//! Nothing is fetched from outside: no map tiles, only the routes and the legend.

use aq_core::{CiCategory, Position};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use racs_core::{RouteId, RouteInput, ScoreRequest};
use serde::Deserialize;

use super::SignedIn;
use super::extract::Action;
use super::limits::{PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE, Verdict};
use super::pages::{self, form_error, layout};
use crate::api::score;
use crate::error::ApiError;
use crate::{AppState, RequestId};

/// Pieces each route is cut into for colouring: enough to show where the air changes without
/// making the drawing a scoring benchmark.
const PIECES: usize = 12;
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 400.0;
const MARGIN: f64 = 20.0;

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

pub(crate) async fn page(user: SignedIn) -> Response {
    pages::page(
        StatusCode::OK,
        layout("Route playground", Some(&user), &form(&user, SAMPLE, None)),
    )
}

pub(crate) async fn run(
    State(state): State<AppState>,
    request_id: RequestId,
    Action { user, form: input }: Action<PlaygroundForm>,
) -> Response {
    let refuse_with = |status: StatusCode, message: String| {
        pages::page(
            status,
            layout(
                "Route playground",
                Some(&user),
                &form(&user, &input.request, Some(&message)),
            ),
        )
    };
    let refuse = |message: String| refuse_with(StatusCode::UNPROCESSABLE_ENTITY, message);
    let allowed = state
        .dashboard()
        .is_some_and(|d| d.account_limits.playground(user.account) == Verdict::Allowed);
    if !allowed {
        return refuse_with(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "You have run the playground {PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE} times this \
                 minute. Wait a minute and run it again."
            ),
        );
    }
    let request =
        match ScoreRequest::from_json_slice(input.request.as_bytes(), &state.config().route_limits)
        {
            Ok(request) => request,
            Err(e) => {
                return refuse(format!(
                    "The API would refuse this request: {e}. Correct it and run it again."
                ));
            }
        };
    // Scored as the API scores: off the connection's task when large.
    let (response, pieces) = match score(&state, &request_id, request.clone()).await {
        Ok(response) => match score_pieces(&state, &request_id, &request).await {
            Ok(pieces) => (response, pieces),
            Err(e) => return e.into_response(),
        },
        Err(e) => return e.into_response(),
    };
    let json = serde_json::to_string_pretty(&response).unwrap_or_default();
    let body = html! {
        section #drawing {
            h2 { "Routes" }
            (drawing(&request, &pieces))
            (legend())
        }
        section #response {
            h2 { "Response" }
            pre { code { (json) } }
        }
        (form(&user, &input.request, None))
    };
    pages::page(
        StatusCode::OK,
        layout("Route playground", Some(&user), &body),
    )
}

fn form(user: &SignedIn, request: &str, error: Option<&str>) -> Markup {
    html! {
        (form_error(error))
        form.card method="post" action="/dashboard/playground" {
            input type="hidden" name="csrf" value=(user.csrf);
            label for="request" { "Cleanest-route request (JSON, as sent to the API)" }
            textarea #request name="request" rows="14" spellcheck="false" { (request) }
            p.hint { "The sample has three walks across Berlin. Scoring here uses no API key and counts against no quota." }
            button type="submit" { "Score routes" }
            " "
            a href="/dashboard/playground" { "Load the sample" }
        }
    }
}

/// Each route cut into pieces, each piece scored as a route of its own: the colour along
/// the line. One scorer call for all pieces.
async fn score_pieces(
    state: &AppState,
    request_id: &RequestId,
    request: &ScoreRequest,
) -> Result<Vec<Vec<(Vec<Position>, Option<u8>)>>, ApiError> {
    let mut pieces: Vec<Vec<Vec<Position>>> = Vec::new();
    let mut inputs = Vec::new();
    for (r, route) in request.routes.iter().enumerate() {
        let vertices = route.polyline.len();
        let per_piece = vertices.saturating_sub(1).div_ceil(PIECES).max(1);
        let mut route_pieces = Vec::new();
        let mut start = 0;
        while start + 1 < vertices {
            let end = (start + per_piece).min(vertices - 1);
            let polyline = route.polyline[start..=end].to_vec();
            let share = (end - start) as f64 / (vertices - 1) as f64;
            inputs.push(RouteInput {
                id: RouteId::new(format!("{r}-{start}")),
                polyline: polyline.clone(),
                route_duration: (route.route_duration * share).max(f64::MIN_POSITIVE),
            });
            route_pieces.push(polyline);
            start = end;
        }
        pieces.push(route_pieces);
    }
    let piece_request = ScoreRequest {
        routes: inputs,
        ..request.clone()
    };
    let scored = score(state, request_id, piece_request).await?;
    let score_of = |id: &str| {
        scored
            .racss
            .iter()
            .find(|e| e.route_id.as_str() == id)
            .and_then(|e| e.racs)
    };
    Ok(pieces
        .into_iter()
        .enumerate()
        .map(|(r, route_pieces)| {
            let mut start = 0;
            route_pieces
                .into_iter()
                .map(|polyline| {
                    let score = score_of(&format!("{r}-{start}"));
                    start += polyline.len() - 1;
                    (polyline, score)
                })
                .collect()
        })
        .collect())
}

fn drawing(request: &ScoreRequest, pieces: &[Vec<(Vec<Position>, Option<u8>)>]) -> Markup {
    let all = request.routes.iter().flat_map(|r| r.polyline.iter());
    let (mut min_lon, mut max_lon, mut min_lat, mut max_lat) = (180.0, -180.0, 90.0, -90.0);
    for p in all {
        min_lon = p.lon().min(min_lon);
        max_lon = p.lon().max(max_lon);
        min_lat = p.lat().min(min_lat);
        max_lat = p.lat().max(max_lat);
    }
    // Longitude degrees shrink with latitude; scaling by the cosine keeps shapes true.
    let squeeze = ((min_lat + max_lat) / 2.0_f64).to_radians().cos().max(0.01);
    let span_x = ((max_lon - min_lon) * squeeze).max(1e-9);
    let span_y = (max_lat - min_lat).max(1e-9);
    let scale = ((WIDTH - 2.0 * MARGIN) / span_x).min((HEIGHT - 2.0 * MARGIN) / span_y);
    let point = |p: &Position| {
        let x = MARGIN + (p.lon() - min_lon) * squeeze * scale;
        let y = HEIGHT - MARGIN - (p.lat() - min_lat) * scale;
        format!("{x:.1},{y:.1}")
    };
    html! {
        svg #routes-svg xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 {WIDTH} {HEIGHT}"))
            role="img" aria-label="The routes, coloured by the cleanliness index along them" {
            rect width=(WIDTH) height=(HEIGHT) fill="#fbfbfb" {}
            @for (r, route) in pieces.iter().enumerate() {
                g {
                    title { "Route " (request.routes[r].id.as_str()) }
                    @for (polyline, score) in route {
                        polyline fill="none" stroke-width="5" stroke-linecap="round"
                            stroke=(score.map_or("#8c8f94", |s| CiCategory::of(f64::from(s)).colour()))
                            points=(polyline.iter().map(&point).collect::<Vec<_>>().join(" ")) {}
                    }
                    @if let Some(first) = request.routes[r].polyline.last() {
                        text font-size="12" x=(point(first).split(',').next().unwrap_or("0"))
                            y=(point(first).split(',').nth(1).unwrap_or("0")) dx="6" dy="-6" {
                            (request.routes[r].id.as_str())
                        }
                    }
                }
            }
        }
    }
}

fn legend() -> Markup {
    html! {
        ul.legend {
            @for category in CiCategory::ALL {
                li {
                    svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" {
                        rect width="14" height="14" fill=(category.colour()) {}
                    }
                    " " (category.name())
                }
            }
            li {
                svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" {
                    rect width="14" height="14" fill="#8c8f94" {}
                }
                " no data"
            }
        }
    }
}
