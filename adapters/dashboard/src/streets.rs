//! The server's streets on the dashboard's maps: where it reads OpenStreetMap extracts
//! (`--roads`), the maps draw the roads with traffic around their view at city zoom, by class,
//! so that a newcomer sees where the heatmap's street-level air comes from and where a route
//! runs.

use aq_core::{Position, RoadStretch};
use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::SignedIn;
use crate::DashboardState;

/// The widest circle asked for, in metres: a large screen's view at the zoom the maps start
/// drawing streets ([`STREET_ZOOM`] in the page script).
pub(crate) const MAX_RADIUS_M: f64 = 5_000.0;

/// The most stretches one answer holds; a view with more gets none and says so (a city's
/// centre at the maps' street zoom holds a few thousand).
pub(crate) const MAX_STRETCHES: usize = 20_000;

/// The zoom from which the maps draw streets, as the page script reads it.
pub(crate) const STREET_ZOOM: u8 = 15;

/// `GET /dashboard/streets?lat=&lon=&radius=`: the query, as typed.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct StreetsQuery {
    #[serde(default)]
    lat: Option<String>,
    #[serde(default)]
    lon: Option<String>,
    #[serde(default)]
    radius: Option<String>,
}

/// The streets within `radius` metres of (`lat`, `lon`) as `{"stretches": [[class, lon, lat,
/// lon, lat], ...], "attribution": ...}`, or `{"tooMany": true}` past [`MAX_STRETCHES`]. Each
/// answer counts as a map tile against the account's allowance; 404 when the server has no
/// streets, 400 naming the parameter at fault.
pub(crate) async fn stretches(
    State(state): State<DashboardState>,
    user: SignedIn,
    Query(query): Query<StreetsQuery>,
) -> Response {
    let Some(roads) = state.dashboard().ports.roads.as_ref() else {
        return refuse(
            StatusCode::NOT_FOUND,
            "this server reads no streets (start it with --roads)",
        );
    };
    let (centre, radius) = match query.parse() {
        Ok(parsed) => parsed,
        Err(why) => return refuse(StatusCode::BAD_REQUEST, &why),
    };
    if let Err(refused) = super::map::tile_allowance(&state, &user).await {
        return refused;
    }
    let attribution = roads.info().attribution;
    match roads.stretches_near(centre, radius, MAX_STRETCHES) {
        Some(stretches) => Json(Streets {
            stretches: stretches.iter().map(row).collect(),
            attribution,
        })
        .into_response(),
        None => Json(json!({"tooMany": true, "attribution": attribution})).into_response(),
    }
}

/// The streets of a view, as the page script reads them.
#[derive(Serialize)]
struct Streets {
    stretches: Vec<Row>,
    attribution: Option<String>,
}

/// A stretch as the page script draws it: its class, then both ends as longitude and
/// latitude; serialised as an array, written straight from the tuple.
type Row = (&'static str, f64, f64, f64, f64);

/// Rounds both ends to about a decimetre, which is all a map draws.
fn row(stretch: &RoadStretch) -> Row {
    let round = |v: f64| (v * 1e6).round() / 1e6;
    (
        stretch.class.name(),
        round(stretch.from.lon()),
        round(stretch.from.lat()),
        round(stretch.to.lon()),
        round(stretch.to.lat()),
    )
}

fn refuse(status: StatusCode, detail: &str) -> Response {
    (status, Json(json!({"detail": detail}))).into_response()
}

impl StreetsQuery {
    fn parse(&self) -> Result<(Position, f64), String> {
        let number = |name: &str, text: &Option<String>| -> Result<f64, String> {
            let text = text.as_deref().ok_or_else(|| format!("{name}: missing"))?;
            text.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{name}: `{text}` is not a number"))
        };
        let (lat, lon) = (number("lat", &self.lat)?, number("lon", &self.lon)?);
        let centre = Position::new(lon, lat).map_err(|e| format!("lat, lon: {e}"))?;
        let radius = number("radius", &self.radius)?;
        if !(0.0..=MAX_RADIUS_M).contains(&radius) {
            return Err(format!(
                "radius: {radius} m is outside 0 to {MAX_RADIUS_M} m (the maps draw streets \
                 only at city zoom)"
            ));
        }
        Ok((centre, radius))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(lat: &str, lon: &str, radius: &str) -> StreetsQuery {
        StreetsQuery {
            lat: Some(lat.into()),
            lon: Some(lon.into()),
            radius: Some(radius.into()),
        }
    }

    #[test]
    fn a_query_in_range_is_read() {
        let (centre, radius) = query("60.17", "24.94", "1500").parse().unwrap();
        assert_eq!((centre.lat(), centre.lon(), radius), (60.17, 24.94, 1500.0));
    }

    #[test]
    fn each_bad_parameter_is_named() {
        for (q, name) in [
            (query("x", "24.94", "10"), "lat:"),
            (query("60.17", "NaN", "10"), "lon:"),
            (query("95", "24.94", "10"), "lat, lon:"),
            (query("60.17", "24.94", "5001"), "radius:"),
            (query("60.17", "24.94", "-1"), "radius:"),
            (StreetsQuery::default(), "lat: missing"),
        ] {
            let why = q.parse().unwrap_err();
            assert!(why.starts_with(name), "{why}");
        }
    }
}
