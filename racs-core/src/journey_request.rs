//! The planned-route request (the cleanest-route path's third body, told apart by `origin`)
//! and its answer: the candidate routes of [`crate::journey`], scored as posted routes are.

use aq_core::Position;
use aq_core::json::{self, Object};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use crate::error::RequestError;
use crate::journey::{JourneyError, StreetPath, StreetRouter, candidate_paths};
use crate::request;
use crate::request::{RouteId, RouteInput, ScoreRequest};
use crate::response::{
    AdditionalData, AdditionalDataType, Recommendation, RecommendationCode, ScoreResponse,
};
use crate::scorer::Scorer;
use crate::units::{DurationUnit, LengthUnit, RoutesSort, TravelMode};

/// A walk's speed on the flat, 1.3 m/s (4.7 km/h): within adults' comfortable walking speeds
/// (docs/scoring.md, "Planned walks and rides", gives the source).
pub const WALK_M_PER_S: f64 = 1.3;

/// A city ride's speed, 4.5 m/s (16 km/h): about urban cyclists' mean travel speed with stops
/// (docs/scoring.md, "Planned walks and rides", gives the source).
pub const CYCLE_M_PER_S: f64 = 4.5;

/// A request to plan routes between two places and score them.
///
/// ```
/// use racs_core::TravelMode;
/// use racs_core::journey_request::JourneyRequest;
///
/// let body = br#"{"origin": [24.9506, 60.1726], "destination": [24.9514, 60.1649],
///                 "travelMode": "walk", "routesSort": "desc"}"#;
/// let request = JourneyRequest::from_json_slice(body).unwrap();
/// assert_eq!(request.travel_mode, TravelMode::Walk);
/// assert_eq!(request.origin.lat(), 60.1726);
///
/// let bad = br#"{"origin": [24.95, 91], "destination": [24.95, 60.16],
///                "travelMode": "walk", "routesSort": "desc"}"#;
/// let err = JourneyRequest::from_json_slice(bad).unwrap_err();
/// assert!(err.to_string().starts_with("origin: latitude 91 is outside [-90, 90]"), "{err}");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JourneyRequest {
    /// Where the journey starts, `[longitude, latitude]`.
    #[serde(deserialize_with = "point")]
    pub origin: Position,
    /// Where it ends, `[longitude, latitude]`.
    #[serde(deserialize_with = "point")]
    pub destination: Position,
    /// `walk` or `cycle`.
    pub travel_mode: TravelMode,
    /// The order of `racss` in the answer.
    pub routes_sort: RoutesSort,
    /// The unit of the answer's `routeDuration`s (default minutes).
    #[serde(default, deserialize_with = "json::or_default")]
    pub duration_units: DurationUnit,
    /// The unit of the answer's `routeLength`s (default metres).
    #[serde(default, deserialize_with = "json::or_default")]
    pub length_units: LengthUnit,
    /// When the journey starts (default: when planning starts), as RFC 3339.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "request::departure_time"
    )]
    pub departure_time: Option<DateTime<Utc>>,
}

/// A `[longitude, latitude]` pair, in range.
fn point<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Position, D::Error> {
    let pair = <[f64; 2]>::deserialize(deserializer)?;
    Position::try_from(pair).map_err(serde::de::Error::custom)
}

impl JourneyRequest {
    /// Reads a planned-route body and checks what reading cannot: the mode is one planned on
    /// streets, the places differ, and `departureTime` lies within the years 0000 to 9999.
    ///
    /// # Errors
    /// [`RequestError::Invalid`] naming the member at fault.
    pub fn from_json_slice(body: &[u8]) -> Result<Self, RequestError> {
        let Object(request) = json::from_slice::<Object<Self>>(body)?;
        if !matches!(request.travel_mode, TravelMode::Walk | TravelMode::Cycle) {
            return Err(RequestError::invalid(
                "travelMode",
                format!(
                    "`{}` is not planned on streets; a planned route is a `walk` or a `cycle`",
                    request.travel_mode.as_str()
                ),
            ));
        }
        if request.origin == request.destination {
            return Err(RequestError::invalid(
                "destination",
                "is the same place as `origin`",
            ));
        }
        if request
            .departure_time
            .is_some_and(|t| !request::year_in_range(t))
        {
            return Err(RequestError::invalid(
                "departureTime",
                "the time is outside the years 0000 to 9999 in UTC",
            ));
        }
        Ok(request)
    }

    /// The traveller's speed in metres per second.
    #[must_use]
    pub fn speed_m_per_s(&self) -> f64 {
        match self.travel_mode {
            TravelMode::Cycle => CYCLE_M_PER_S,
            _ => WALK_M_PER_S,
        }
    }
}

/// One planned route: its path on the streets and its duration and length in the request's
/// units, under the id its score has in the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRoute {
    /// Its id in the answer: `1` for the fastest, then on towards the least exposed.
    pub id: RouteId,
    /// The path.
    pub path: StreetPath,
    /// The route as the answer gives it: the path's places, with points added along
    /// stretches over 500 m so that no segment is too long to score.
    pub polyline: Vec<Position>,
    /// The PM2.5 the traveller inhales along it, in µg, when it was scored.
    pub inhaled_pm25_ug: Option<f64>,
    /// How long it takes, in the request's `durationUnits`.
    pub duration: f64,
    /// How long it is, in the request's `lengthUnits`.
    pub length: f64,
}

/// The answer to a planned-route request: the routes, and their scores in the route-scoring
/// answer's shape.
#[derive(Debug, Clone)]
pub struct PlannedRoutes {
    /// The routes, fastest first.
    pub routes: Vec<PlannedRoute>,
    /// Their scores, in the request's `routesSort` order.
    pub scores: ScoreResponse,
    /// When the journey starts: the request's `departureTime`, or when planning started.
    pub departure: DateTime<Utc>,
    /// The route-scoring request the routes were scored as: what posting them back sends.
    pub request: ScoreRequest,
}

/// Longest stretch between two points of a planned route: a long bridge or a straight rural
/// track is one segment of the map, and a route's scoring refuses segments over 2 km (error
/// 102), so points are added along it.
const MAX_STRETCH_M: f64 = 500.0;

/// `positions` with points added along every stretch longer than [`MAX_STRETCH_M`] (on the
/// straight line between its ends, which a street segment is).
fn densified(positions: &[Position]) -> Vec<Position> {
    let mut out = Vec::with_capacity(positions.len());
    for pair in positions.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        out.push(a);
        let pieces = (a.distance_m(b) / MAX_STRETCH_M).ceil() as usize;
        for k in 1..pieces {
            let t = k as f64 / pieces as f64;
            if let Ok(p) = Position::new(
                a.lon() + (b.lon() - a.lon()) * t,
                a.lat() + (b.lat() - a.lat()) * t,
            ) {
                out.push(p);
            }
        }
    }
    out.extend(positions.last());
    out
}

impl Scorer {
    /// Plans routes for `request` on `streets` with this scorer's air, then scores them as a
    /// route-scoring request of the same routes would be: posted back, a planned route scores
    /// the same. The planned routes must keep `limits`, as a posted route must (a route too
    /// many vertices long could not be posted back).
    ///
    /// # Errors
    /// [`JourneyError`] when no route can be planned.
    pub async fn plan(
        &self,
        streets: &dyn StreetRouter,
        request: &JourneyRequest,
        limits: &crate::Limits,
    ) -> Result<PlannedRoutes, JourneyError> {
        let departure = request.departure_time.unwrap_or_else(|| self.now());
        let paths = candidate_paths(
            streets,
            self.source().as_ref(),
            request.origin,
            request.destination,
            request.travel_mode,
            departure,
        )
        .await?;
        let speed = request.speed_m_per_s();
        let mut routes: Vec<PlannedRoute> = paths
            .into_iter()
            .enumerate()
            .map(|(i, path)| PlannedRoute {
                id: RouteId::new((i + 1).to_string()),
                polyline: densified(&path.positions),
                inhaled_pm25_ug: None,
                duration: path.length_m / speed / request.duration_units.seconds(),
                length: request.length_units.from_metres(path.length_m),
                path,
            })
            .collect();
        let scoring = ScoreRequest {
            routes: routes
                .iter()
                .map(|r| RouteInput {
                    id: r.id.clone(),
                    polyline: r.polyline.clone(),
                    route_duration: r.duration,
                    travel_mode: None,
                })
                .collect(),
            duration_units: request.duration_units,
            length_units: request.length_units,
            routes_sort: request.routes_sort,
            departure_time: Some(departure),
            travel_mode: Some(request.travel_mode),
            departure_window_minutes: None,
            departure_step_minutes: None,
        };
        // The same limits as a posted route's, so that every planned route can be posted back.
        scoring
            .validate(limits)
            .map_err(|e| JourneyError::Unscorable(e.to_string()))?;
        let report = self.score_report(&scoring).await;
        for (route, outcome) in routes.iter_mut().zip(&report.outcomes) {
            route.inhaled_pm25_ug = outcome.score().map(|s| s.dose);
        }
        let mut scores = report.response;
        let fastest = routes.first().filter(|r| {
            scores
                .racss
                .iter()
                .any(|e| e.route_id == r.id && e.racs.is_some())
        });
        if let Some(fastest) = fastest {
            let minutes = fastest.path.length_m / speed / 60.0;
            scores.recommendations.insert(
                0,
                Recommendation {
                    recommendation_id: self.new_id(),
                    code: RecommendationCode::FastestRoute,
                    name: "Fastest Route".to_owned(),
                    text: format!(
                        "Route {} is the quickest ({minutes:.0} min); the others trade time for \
                         cleaner air.",
                        fastest.id
                    ),
                    additional_data: AdditionalData {
                        kind: AdditionalDataType::RouteId,
                        value: fastest.id.to_string(),
                        route_id: None,
                    },
                },
            );
        }
        Ok(PlannedRoutes {
            routes,
            scores,
            departure,
            request: scoring,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_stretches_get_points_and_the_path_keeps_its_own() {
        let p = |lon, lat| Position::new(lon, lat).unwrap();
        // 1.1 km along the equator, then 50 m.
        let path = [p(0.0, 0.0), p(0.01, 0.0), p(0.01045, 0.0)];
        let out = densified(&path);
        assert_eq!(out.first(), path.first());
        assert_eq!(out.last(), path.last());
        assert!(out.contains(&path[1]));
        assert_eq!(
            out.len(),
            5,
            "three pieces of the first stretch, one of the second"
        );
        assert!(
            out.windows(2)
                .all(|w| w[0].distance_m(w[1]) <= MAX_STRETCH_M + 1e-6)
        );
        assert_eq!(densified(&path[..1]), path[..1]);
    }

    #[test]
    fn only_walks_and_rides_are_planned_and_the_places_must_differ() {
        let body = |mode: &str, to: [f64; 2]| {
            format!(
                r#"{{"origin": [24.95, 60.17], "destination": [{}, {}],
                    "travelMode": "{mode}", "routesSort": "desc"}}"#,
                to[0], to[1]
            )
        };
        let err = JourneyRequest::from_json_slice(body("drive", [24.96, 60.17]).as_bytes());
        assert!(err.unwrap_err().to_string().starts_with("travelMode:"));
        let err = JourneyRequest::from_json_slice(body("walk", [24.95, 60.17]).as_bytes());
        assert!(err.unwrap_err().to_string().starts_with("destination:"));
        let ok = JourneyRequest::from_json_slice(body("cycle", [24.96, 60.17]).as_bytes());
        assert_eq!(ok.unwrap().speed_m_per_s(), CYCLE_M_PER_S);
    }
}
