//! Cleanest-route scoring: the Route Air Cleanliness Score (RACS), 0 to 100, 100 cleanest.
//!
//! This crate implements operation 2 of the insights API, "score routes", as a library:
//!
//! - [`ScoreRequest::from_json_slice`] reads and checks a request body, reporting problems with
//!   their JSON path ([`RequestError`]); polylines come as arrays of `[lon, lat]` pairs, as
//!   strings holding such arrays, or as Google encoded polylines ([`decode_polyline`]).
//! - [`Scorer`] scores every route concurrently against an [`aq_core::AirQualitySource`]: it
//!   plans samples evenly in time along the route ([`plan_route`]), asks the source for all of
//!   them in one call, and takes the time-weighted mean cleanliness index ([`score_samples`]),
//!   each route under its own deadline. Routes that cannot be scored get error 100, 101 or 102
//!   ([`ErrorCode`]) without affecting the others.
//! - [`assemble_response`] orders the results ([`sort_order`]), sets the
//!   [`CompletionStatus`] and adds the `CleanestRoute` and `LowestExposure` recommendations.
//! - With `departureWindowMinutes` ([`DepartureWindow`]), every scored route is scored again at
//!   each later departure of the window, one batch call to the source per departure, and the
//!   response adds `BestDepartureTime` ([`best_in_grid`], [`departure_recommendation`]).
//!
//! Every tunable number is a field of [`RacsConfig`] or [`Limits`], with the documented default.
//! - [`journey`]: routes planned between two places on a street network (the port
//!   [`journey::StreetRouter`]), from the fastest to the least exposed.
//!
//! The crate does no I/O and reads no clock: the air comes through the source port, time,
//! deadlines and ids through [`runtime_core`].
//!
//! # Scoring routes from a Rust service
//!
//! ```
//! use std::sync::Arc;
//!
//! use aq_core::memory::FnSource;
//! use runtime_core::{FixedClock, SequentialIds};
//! use aq_core::{CleanlinessIndex, Position};
//! use chrono::{TimeZone, Utc};
//! use insights_system::TokioTimer;
//! use racs_core::{CompletionStatus, ErrorCode, Limits, ScoreRequest, Scorer};
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! // Air that is cleaner to the east of 13.40° E (demo data).
//! let field = FnSource::new("demo", |p: Position, _| {
//!     CleanlinessIndex::new(if p.lon() > 13.40 { 80.0 } else { 55.0 }).ok()
//! });
//! let scorer = Scorer::new(
//!     Arc::new(field),
//!     Arc::new(FixedClock::new(Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap())),
//!     Arc::new(TokioTimer),
//!     Arc::new(SequentialIds::default()),
//! );
//!
//! let body = json!({
//!     "routes": [
//!         {"id": "west", "polyline": [[13.395, 52.520], [13.399, 52.525]], "routeDuration": 8},
//!         {"id": "east", "polyline": [[13.405, 52.520], [13.409, 52.525]], "routeDuration": 9},
//!         {"id": "dot", "polyline": [[13.405, 52.520]], "routeDuration": 1}
//!     ],
//!     "routesSort": "desc"
//! });
//! let request = ScoreRequest::from_json_slice(body.to_string().as_bytes(), &Limits::default())?;
//! let response = scorer.score(&request).await;
//!
//! let order: Vec<_> = response.racss.iter().map(|r| (r.route_id.as_str(), r.racs)).collect();
//! assert_eq!(order, [("east", Some(80)), ("west", Some(55)), ("dot", None)]);
//! assert_eq!(response.racss[2].error, ErrorCode::NotGranular);
//! assert_eq!(response.completion_status, CompletionStatus::CompletedWithErrors);
//! assert_eq!(response.recommendations[0].additional_data.value, "east");
//!
//! let wire = serde_json::to_value(&response)?;
//! assert_eq!(wire["racss"][0]["error"], json!({"code": 0, "text": "EMPTY"}));
//! assert_eq!(wire["racss"][2]["RACS"], json!(null));
//! assert_eq!(wire["time"], json!("2026-05-01T08:00:00.000Z"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

mod config;
mod departure;
mod dose;
mod error;
pub mod journey;
pub mod journey_request;
mod outcome;
mod plan;
mod polylines;
#[cfg(test)]
mod properties;
mod request;
mod response;
mod score;
mod scorer;
mod units;
mod window;

pub use config::{ConfigError, Limits, RacsConfig};
pub use departure::{BestDeparture, best_in_grid, departure_recommendation, recommended_in_grid};
pub use dose::{DoseAssumptions, InVehicleAir, Ventilation};
pub use error::RequestError;
pub use outcome::{ErrorCode, RouteFailure, RouteOutcome};
pub use plan::{GranularityProblem, RoutePlan, plan_route, polyline_length_m};
pub use polylines::{EncodedPolylineError, decode_polyline, encode_polyline};
pub use request::{RouteId, RouteInput, ScoreRequest};
pub use response::{
    AdditionalData, AdditionalDataType, CompletionStatus, RacsEntry, Recommendation,
    RecommendationCode, RouteDetails, ScoreResponse, UtcMillis, assemble_response, dose_text,
    sort_order,
};
pub use score::{InsufficientCoverage, RouteScore, score_samples};
pub use scorer::{ScoreReport, Scorer};
pub use units::{DurationUnit, LengthUnit, RoutesSort, TravelMode};
pub use window::{DEFAULT_STEP_MINUTES, DepartureWindow, STEP_MINUTES, WINDOW_MINUTES};
