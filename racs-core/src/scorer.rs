//! Scoring a whole request: plan each route, ask the source once per route, score, all routes
//! concurrently and each under its own deadline; then, with a departure window, the later
//! departures ([`crate::departure`]); then assemble the response.

use std::fmt;
use std::pin::pin;
use std::sync::Arc;

use aq_core::{AirQualitySource, Position, check_batch_len};
use chrono::{DateTime, Utc};
use futures::future::{Either, join_all, select};
use runtime_core::{Clock, IdGenerator, Timer};

use crate::config::RacsConfig;
use crate::departure::{BestDeparture, Departures, departure_recommendation};
use crate::dose::DoseAssumptions;
use crate::outcome::{RouteFailure, RouteOutcome};
use crate::plan::{plan_route, polyline_length_m, sample_intervals};
use crate::request::ScoreRequest;
use crate::response::{ScoreResponse, assemble_response};
use crate::score::score_samples;

/// A response together with each route's outcome in request order, for logs and metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreReport {
    /// The response to send.
    pub response: ScoreResponse,
    /// One outcome per route, in request order.
    pub outcomes: Vec<RouteOutcome>,
    /// With a departure window, the best (route, departure), when any route was scored.
    pub best_departure: Option<BestDeparture>,
}

/// Scores requests against an air-quality source, with time and ids from the runtime ports.
///
/// Routes of one request are scored concurrently; each is planned, sampled with one batch call
/// to the source, and scored within [`RacsConfig::route_deadline_ms`], and a route that runs out
/// of time fails alone with error 101. Planning and scoring are synchronous CPU work between
/// await points; a service that wants them off its async threads can call [`plan_route`],
/// [`score_samples`] and [`assemble_response`] itself.
///
/// The future is `Send`, so it can be spawned on a multi-threaded runtime.
#[derive(Clone)]
pub struct Scorer {
    source: Arc<dyn AirQualitySource>,
    clock: Arc<dyn Clock>,
    timer: Arc<dyn Timer>,
    ids: Arc<dyn IdGenerator>,
    config: RacsConfig,
}

impl fmt::Debug for Scorer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scorer")
            .field("source", &self.source.info().name)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Scorer {
    /// A scorer with the default [`RacsConfig`].
    #[must_use]
    pub fn new(
        source: Arc<dyn AirQualitySource>,
        clock: Arc<dyn Clock>,
        timer: Arc<dyn Timer>,
        ids: Arc<dyn IdGenerator>,
    ) -> Self {
        Self {
            source,
            clock,
            timer,
            ids,
            config: RacsConfig::default(),
        }
    }

    /// The same scorer with `config`.
    #[must_use]
    pub fn with_config(mut self, config: RacsConfig) -> Self {
        self.config = config;
        self
    }

    /// The configuration in use.
    #[must_use]
    pub fn config(&self) -> &RacsConfig {
        &self.config
    }

    /// The time on the scorer's clock: when a request that names none departs.
    pub(crate) fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    /// A new id from the scorer's generator.
    pub(crate) fn new_id(&self) -> uuid::Uuid {
        self.ids.new_id()
    }

    /// The air-quality source it scores against: other views of the same air (heatmap tiles)
    /// read it too, so that they show what scores are computed from.
    #[must_use]
    pub fn source(&self) -> &Arc<dyn AirQualitySource> {
        &self.source
    }

    /// What the air-quality source is, so that responses can say when data is synthetic.
    #[must_use]
    pub fn source_info(&self) -> aq_core::SourceInfo {
        self.source.info()
    }

    /// How many air-quality samples scoring `request` asks the source for, at most: what a
    /// server weighs to decide where to run the scoring.
    ///
    /// ```
    /// use std::sync::Arc;
    ///
    /// use aq_core::memory::FnSource;
    /// use runtime_core::{FixedClock, SequentialIds};
    /// use aq_core::CleanlinessIndex;
    /// use chrono::{TimeZone, Utc};
    /// use insights_system::TokioTimer;
    /// use racs_core::{Limits, ScoreRequest, Scorer};
    ///
    /// let scorer = Scorer::new(
    ///     Arc::new(FnSource::new("flat", |_, _| CleanlinessIndex::new(70.0).ok())),
    ///     Arc::new(FixedClock::new(Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap())),
    ///     Arc::new(TokioTimer),
    ///     Arc::new(SequentialIds::default()),
    /// );
    /// // About 1,112 m due north in 10 minutes: a sample every 30 s, 21 in all.
    /// let body = br#"{"routes": [{"id": 1, "polyline": [[0, 0], [0, 0.01]], "routeDuration": 10}],
    ///                 "routesSort": "desc"}"#;
    /// let request = ScoreRequest::from_json_slice(body, &Limits::default()).unwrap();
    /// assert_eq!(scorer.planned_samples(&request), 21);
    /// ```
    #[must_use]
    pub fn planned_samples(&self, request: &ScoreRequest) -> usize {
        // Each later departure of a window asks for every route's samples again.
        let departures = request
            .departure_window()
            .map_or(1, |w| w.later_departures() as usize + 1);
        request
            .routes
            .iter()
            .map(|route| {
                let length_m = polyline_length_m(&route.polyline);
                sample_intervals(length_m, request.duration_s(route), &self.config) + 1
            })
            .sum::<usize>()
            .saturating_mul(departures)
    }

    /// Scores every route of `request` and builds the response.
    pub async fn score(&self, request: &ScoreRequest) -> ScoreResponse {
        self.score_report(request).await.response
    }

    /// Like [`Scorer::score`], also returning each route's outcome with its cause.
    pub async fn score_report(&self, request: &ScoreRequest) -> ScoreReport {
        let departure = request.departure_time.unwrap_or_else(|| self.clock.now());
        let outcomes = join_all(request.routes.iter().map(|route| {
            self.score_route(
                &route.polyline,
                request.duration_s(route),
                departure,
                self.config.dose_assumptions(request.travel_mode(route)),
            )
        }))
        .await;
        let best_departure = match request.departure_window() {
            None => None,
            Some(window) => {
                let departures = Departures {
                    source: &*self.source,
                    timer: &*self.timer,
                    config: &self.config,
                };
                departures
                    .best(request, window, departure, &outcomes)
                    .await
                    .map(|best| (window, best))
            }
        };
        let time = self.clock.now();
        let mut response = assemble_response(request, &outcomes, &*self.ids, time, &self.config);
        if let Some((window, best)) = best_departure {
            response.recommendations.push(departure_recommendation(
                request,
                window,
                &best,
                departure,
                self.config.min_departure_gain,
                &*self.ids,
            ));
        }
        ScoreReport {
            response,
            outcomes,
            best_departure: best_departure.map(|(_, best)| best),
        }
    }

    /// Scores one route leaving at `departure` and taking `duration_s` seconds, under the route
    /// deadline. `assumptions` are what the dose assumes of the traveller
    /// ([`RacsConfig::dose_assumptions`]).
    pub async fn score_route(
        &self,
        polyline: &[Position],
        duration_s: f64,
        departure: DateTime<Utc>,
        assumptions: DoseAssumptions,
    ) -> RouteOutcome {
        // Polled first, so the deadline starts before any of the route's own work.
        let deadline = pin!(self.timer.sleep(self.config.route_deadline()));
        let work = pin!(async {
            let plan = plan_route(polyline, duration_s, departure, &self.config)
                .map_err(RouteFailure::NotGranular)?;
            let answers = self
                .source
                .sample_exposure(plan.queries())
                .await
                .and_then(|a| check_batch_len(plan.queries().len(), a))
                .map_err(RouteFailure::Source)?;
            score_samples(&plan, &answers, assumptions, &self.config)
                .map_err(RouteFailure::InsufficientCoverage)
        });
        match select(deadline, work).await {
            Either::Left(((), _)) => RouteOutcome::Failed(RouteFailure::TimedOut),
            Either::Right((result, _)) => result.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use aq_core::SourceError;

    use crate::outcome::ErrorCode;
    use crate::plan::GranularityProblem;
    use std::future::Future;
    use std::pin::Pin;
    use std::time::Duration;

    use aq_core::memory::{FnSource, constant};
    use aq_core::{AirSample, CleanlinessIndex, SampleQuery, SourceInfo};
    use async_trait::async_trait;
    use chrono::TimeZone;
    use insights_system::TokioTimer;
    use mockall::mock;
    use runtime_core::{FixedClock, SequentialIds};
    use serde_json::json;
    use uuid::Uuid;

    use super::*;
    use crate::config::Limits;
    use crate::response::{CompletionStatus, RecommendationCode};
    use crate::units::LengthUnit;

    type Answers = Result<Vec<Option<AirSample>>, SourceError>;

    mock! {
        // The mocked method hands back a future, so an expectation can make the source slow.
        Source {
            fn answer(&self, queries: &[SampleQuery]) -> Pin<Box<dyn Future<Output = Answers> + Send>>;
        }
    }

    #[async_trait]
    impl AirQualitySource for MockSource {
        fn info(&self) -> SourceInfo {
            SourceInfo::demo("mock")
        }

        async fn sample(&self, queries: &[SampleQuery]) -> Answers {
            self.answer(queries).await
        }
    }

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
    }

    fn ci(v: f64) -> CleanlinessIndex {
        CleanlinessIndex::new(v).unwrap()
    }

    fn scorer(source: impl AirQualitySource + 'static) -> Scorer {
        Scorer::new(
            Arc::new(source),
            Arc::new(FixedClock::new(t0())),
            Arc::new(TokioTimer),
            Arc::new(SequentialIds::default()),
        )
    }

    fn request(body: serde_json::Value) -> ScoreRequest {
        ScoreRequest::from_json_slice(body.to_string().as_bytes(), &Limits::default()).unwrap()
    }

    /// Three short routes starting at distinct longitudes 10.0, 10.1 and 10.2.
    fn three_routes(sort: &str) -> ScoreRequest {
        request(json!({
            "routes": [
                {"id": "a", "polyline": [[10.0, 50.0], [10.0, 50.005]], "routeDuration": 5},
                {"id": "b", "polyline": [[10.1, 50.0], [10.1, 50.005]], "routeDuration": 5},
                {"id": "c", "polyline": [[10.2, 50.0], [10.2, 50.005]], "routeDuration": 5}
            ],
            "routesSort": sort
        }))
    }

    fn starts_at(lon: f64) -> impl Fn(&[SampleQuery]) -> bool + Send + 'static {
        move |q: &[SampleQuery]| q.first().is_some_and(|s| s.position.lon() == lon)
    }

    fn every(
        v: f64,
    ) -> impl FnMut(&[SampleQuery]) -> Pin<Box<dyn Future<Output = Answers> + Send>> {
        move |q: &[SampleQuery]| {
            let answers = vec![Some(AirSample::from_ci(ci(v))); q.len()];
            Box::pin(async move { Ok(answers) })
        }
    }

    #[tokio::test]
    async fn a_slow_route_times_out_alone() {
        let mut source = MockSource::new();
        source
            .expect_answer()
            .withf(starts_at(10.0))
            .times(1)
            .returning(every(70.0));
        source
            .expect_answer()
            .withf(starts_at(10.1))
            .times(1)
            .returning(|q| {
                let answers = vec![Some(AirSample::from_ci(ci(99.0))); q.len()];
                Box::pin(async move {
                    TokioTimer.sleep(Duration::from_secs(60)).await;
                    Ok(answers)
                })
            });
        source
            .expect_answer()
            .withf(starts_at(10.2))
            .times(1)
            .returning(every(40.0));
        let scorer = scorer(source).with_config(RacsConfig {
            route_deadline_ms: 200,
            ..RacsConfig::default()
        });

        let report = scorer.score_report(&three_routes("desc")).await;
        let r = &report.response;
        let got: Vec<_> = r
            .racss
            .iter()
            .map(|e| (e.route_id.as_str(), e.racs, e.error))
            .collect();
        assert_eq!(
            got,
            [
                ("a", Some(70), ErrorCode::Empty),
                ("c", Some(40), ErrorCode::Empty),
                ("b", None, ErrorCode::TimedOut),
            ]
        );
        assert_eq!(
            report.outcomes[1],
            RouteOutcome::Failed(RouteFailure::TimedOut)
        );
        assert_eq!(r.completion_status, CompletionStatus::CompletedWithErrors);
    }

    #[tokio::test]
    async fn a_route_the_source_barely_covers_gets_100() {
        let mut source = MockSource::new();
        source
            .expect_answer()
            .withf(starts_at(10.0))
            .times(1)
            .returning(|q| {
                // Only the first third of the route has data.
                let n = q.len();
                let answers: Vec<_> = (0..n)
                    .map(|k| (k < n / 3).then(|| AirSample::from_ci(ci(90.0))))
                    .collect();
                Box::pin(async move { Ok(answers) })
            });
        source
            .expect_answer()
            .withf(starts_at(10.1))
            .times(1)
            .returning(every(60.0));
        source
            .expect_answer()
            .withf(starts_at(10.2))
            .times(1)
            .returning(every(50.0));

        let report = scorer(source).score_report(&three_routes("original")).await;
        let a = &report.response.racss[0];
        assert_eq!((a.route_id.as_str(), a.racs), ("a", None));
        assert_eq!(a.error, ErrorCode::InsufficientData);
        match &report.outcomes[0] {
            RouteOutcome::Failed(RouteFailure::InsufficientCoverage(c)) => {
                assert!(c.coverage < 0.4, "{c:?}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(report.response.racss[1].racs, Some(60));
        assert_eq!(report.response.racss[2].racs, Some(50));
    }

    #[tokio::test]
    async fn source_failures_are_100_or_101_for_a_source_timeout() {
        let mut source = MockSource::new();
        source
            .expect_answer()
            .withf(starts_at(10.0))
            .times(1)
            .returning(|_| {
                Box::pin(async { Err(SourceError::Unavailable("connection refused".into())) })
            });
        source
            .expect_answer()
            .withf(starts_at(10.1))
            .times(1)
            .returning(|_| Box::pin(async { Err(SourceError::Timeout) }));
        source
            .expect_answer()
            .withf(starts_at(10.2))
            .times(1)
            // One answer short: the port contract is broken, nothing is scored from it.
            .returning(|q| {
                let answers = vec![Some(AirSample::from_ci(ci(50.0))); q.len() - 1];
                Box::pin(async move { Ok(answers) })
            });

        let report = scorer(source).score_report(&three_routes("asc")).await;
        let codes: Vec<_> = report.response.racss.iter().map(|e| e.error).collect();
        assert_eq!(
            codes,
            [
                ErrorCode::InsufficientData,
                ErrorCode::TimedOut,
                ErrorCode::InsufficientData
            ]
        );
        assert!(matches!(
            report.outcomes[2],
            RouteOutcome::Failed(RouteFailure::Source(SourceError::InvalidResponse(_)))
        ));
        assert_eq!(report.response.completion_status, CompletionStatus::Failed);
        assert!(report.response.recommendations.is_empty());
    }

    #[tokio::test]
    async fn a_route_that_is_not_granular_never_reaches_the_source() {
        let mut source = MockSource::new();
        source.expect_answer().never();
        let r = request(json!({
            "routes": [
                {"id": 1, "polyline": [[10.0, 50.0]], "routeDuration": 5},
                {"id": 2, "polyline": [[10.0, 50.0], [10.0, 50.05]], "routeDuration": 5}
            ],
            "routesSort": "desc"
        }));
        let report = scorer(source).score_report(&r).await;
        assert!(
            report
                .response
                .racss
                .iter()
                .all(|e| e.error == ErrorCode::NotGranular)
        );
        assert!(matches!(
            report.outcomes[1],
            RouteOutcome::Failed(RouteFailure::NotGranular(
                GranularityProblem::SegmentTooLong { .. }
            ))
        ));
    }

    #[tokio::test]
    async fn one_route_in_all_three_polyline_forms_scores_the_same() {
        // Cleaner to the north-west, so every sample matters.
        let field = FnSource::new("gradient", |p: Position, _| {
            CleanlinessIndex::new(
                (50.0 + (p.lat() - 52.0) * 40.0 - (p.lon() - 13.0) * 20.0).clamp(0.0, 100.0),
            )
            .ok()
        });
        let line = [
            Position::new(13.40, 52.50).unwrap(),
            Position::new(13.41, 52.51).unwrap(),
            Position::new(13.42, 52.51).unwrap(),
        ];
        let pairs = serde_json::to_value(line).unwrap();
        let r = request(json!({
            "routes": [
                {"id": "array", "polyline": pairs, "routeDuration": 20},
                {"id": "string", "polyline": pairs.to_string(), "routeDuration": 20},
                {"id": "encoded", "polyline": crate::encode_polyline(&line), "routeDuration": 20}
            ],
            "routesSort": "original"
        }));
        let report = scorer(field).score_report(&r).await;
        let scores: Vec<_> = report.outcomes.iter().map(|o| o.score().copied()).collect();
        assert!(scores[0].is_some());
        assert_eq!(scores[0], scores[1]);
        assert_eq!(scores[0], scores[2]);
    }

    #[tokio::test]
    async fn ids_and_time_come_from_the_ports_and_departure_defaults_to_now() {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let field = FnSource::new("log", move |_, t| {
            log.lock().unwrap().push(t);
            Some(ci(80.0))
        });
        let clock = Arc::new(FixedClock::new(t0()));
        let scorer = Scorer::new(
            Arc::new(field),
            clock.clone(),
            Arc::new(TokioTimer),
            Arc::new(SequentialIds::default()),
        );
        let response = scorer.score(&three_routes("desc")).await;
        assert_eq!(response.response_id, Uuid::from_u128(1));
        let racs_ids: Vec<_> = response.racss.iter().map(|e| e.racs_id.as_u128()).collect();
        assert_eq!(racs_ids, [2, 3, 4]);
        assert_eq!(
            response.recommendations[0].recommendation_id,
            Uuid::from_u128(5)
        );
        assert_eq!(response.time, t0());
        let times = seen.lock().unwrap();
        assert_eq!(times.iter().min(), Some(&t0()));
        assert_eq!(
            times.iter().max(),
            Some(&(t0() + chrono::Duration::minutes(5)))
        );
    }

    #[tokio::test]
    async fn departure_time_moves_the_samples() {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let field = FnSource::new("log", move |_, t| {
            log.lock().unwrap().push(t);
            Some(ci(80.0))
        });
        let r = request(json!({
            "routes": [{"id": "a", "polyline": [[10.0, 50.0], [10.0, 50.005]], "routeDuration": 5}],
            "routesSort": "desc",
            "departureTime": "2026-06-01T17:30:00Z"
        }));
        scorer(field).score(&r).await;
        let first = Utc.with_ymd_and_hms(2026, 6, 1, 17, 30, 0).unwrap();
        assert_eq!(seen.lock().unwrap().iter().min(), Some(&first));
    }

    #[tokio::test]
    async fn lowest_exposure_names_a_shorter_route_in_slightly_dirtier_air() {
        // Without PM2.5 from the source, CI 80 stands for 5 µg/m³ and CI 70 for 10 µg/m³ of
        // PM2.5. "long" is cleaner (80) but takes 60 min walking: 5 · 0.026 · 60 = 7.8 µg.
        // "short" scores 70 in 10 min: 10 · 0.026 · 10 = 2.6 µg.
        let field = FnSource::new("two", |p: Position, _| {
            Some(ci(if p.lon() < 10.05 { 80.0 } else { 70.0 }))
        });
        let r = request(json!({
            "routes": [
                {"id": "long", "polyline": [[10.0, 50.0], [10.0, 50.01]], "routeDuration": 60},
                {"id": "short", "polyline": [[10.1, 50.0], [10.1, 50.005]], "routeDuration": 10}
            ],
            "routesSort": "desc",
            "travelMode": "walk"
        }));
        let report = scorer(field).score_report(&r).await;
        let recs = &report.response.recommendations;
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].code, RecommendationCode::CleanestRoute);
        assert_eq!(recs[0].additional_data.value, "long");
        assert_eq!(recs[0].name, "Cleanest Route");
        assert_eq!(recs[1].code, RecommendationCode::LowestExposure);
        assert_eq!(recs[1].additional_data.value, "short");
        let doses: Vec<_> = report
            .outcomes
            .iter()
            .map(|o| o.score().unwrap().dose)
            .collect();
        assert!(
            (doses[0] - 7.8).abs() < 1e-9 && (doses[1] - 2.6).abs() < 1e-9,
            "{doses:?}"
        );
        // The field gives no PM2.5: the dose is derived from the index, and says so, with what
        // the estimate assumes.
        assert_eq!(
            recs[1].text,
            "Route short means the least pollution breathed in over the whole trip, counting how \
             long each route takes: about 2.6 µg of PM2.5-equivalent (derived from the index \
             where the source gives no PM2.5). This is an estimate for an adult walking \
             (breathing 0.026 m³ of air a minute) in the outdoor air along the route."
        );

        let wire = serde_json::to_value(&report.response).unwrap();
        assert_eq!(
            wire["recommendations"][1]["additionalData"],
            json!({"type": "routeId", "value": "short"})
        );
        assert_eq!(wire["completionStatus"], json!("Completed"));
    }

    #[tokio::test]
    async fn each_route_breathes_at_its_own_travel_mode() {
        // Equally clean air and equally long: walking breathes 0.026 m³/min, driving 0.013, so
        // the driven route has the least dose although the request says walk.
        let field = FnSource::new("flat", |_: Position, _| Some(ci(70.0)));
        let r = request(json!({
            "routes": [
                {"id": "w", "polyline": [[10.0, 50.0], [10.0, 50.01]], "routeDuration": 20},
                {"id": "d", "polyline": [[10.1, 50.0], [10.1, 50.01]], "routeDuration": 20,
                 "travelMode": "drive"}
            ],
            "routesSort": "original",
            "travelMode": "walk"
        }));
        let report = scorer(field).score_report(&r).await;
        let doses: Vec<_> = report
            .outcomes
            .iter()
            .map(|o| o.score().unwrap().dose)
            .collect();
        // 10 µg/m³ for 20 minutes: 5.2 µg walking, 2.6 µg driving.
        assert!(
            (doses[0] - 5.2).abs() < 1e-9 && (doses[1] - 2.6).abs() < 1e-9,
            "{doses:?}"
        );
        let recs = &report.response.recommendations;
        assert_eq!(
            recs[0].additional_data.value, "w",
            "cleanest: the first of a tie"
        );
        assert_eq!(recs[1].code, RecommendationCode::LowestExposure);
        assert_eq!(recs[1].additional_data.value, "d");
        assert!(recs[1].text.contains("about 2.6 µg"), "{}", recs[1].text);
        assert!(
            recs[1].text.ends_with(
                "an adult driving (breathing 0.013 m³ of air a minute) with the air inside the \
                 vehicle taken as the outdoor air along the route."
            ),
            "{}",
            recs[1].text
        );
        assert_eq!(
            recs[0].text,
            "Routes w and d tie for the cleanest air along the way (RACS 70); route w is named \
             as the first in the request."
        );
    }

    #[tokio::test]
    async fn a_passenger_breathes_a_quarter_of_what_a_cyclist_does() {
        let field = FnSource::new("flat", |_: Position, _| Some(ci(70.0)));
        let r = request(json!({
            "routes": [
                {"id": "p", "polyline": [[10.0, 50.0], [10.0, 50.01]], "routeDuration": 20},
                {"id": "x", "polyline": [[10.1, 50.0], [10.1, 50.01]], "routeDuration": 20,
                 "travelMode": "cycle"}
            ],
            "routesSort": "original",
            "travelMode": "passenger"
        }));
        let report = scorer(field).score_report(&r).await;
        // 10 µg/m³ for 20 minutes at 0.010 m³/min: 2.0 µg; cycling at 0.043, 8.6 µg, the 4.3
        // times that Int Panis et al. measured.
        let dose = |i: usize| report.outcomes[i].score().unwrap().dose;
        assert!((dose(0) - 2.0).abs() < 1e-9, "{}", dose(0));
        assert!((dose(1) / dose(0) - 4.3).abs() < 1e-9, "{}", dose(1));
        let recs = &report.response.recommendations;
        assert_eq!(
            recs.len(),
            1,
            "the passenger is both cleanest (tied) and least exposed"
        );
    }

    #[tokio::test]
    async fn details_report_length_in_the_requested_unit() {
        let r = request(json!({
            "routes": [{"id": "a", "polyline": [[0.0, 0.0], [0.0, 0.01]], "routeDuration": 5}],
            "routesSort": "desc",
            "lengthUnits": "km"
        }));
        let plain = scorer(constant(ci(50.0))).score(&r).await;
        assert!(
            serde_json::to_value(&plain).unwrap()["racss"][0]
                .get("details")
                .is_none()
        );

        let detailed = scorer(constant(ci(50.0)))
            .with_config(RacsConfig {
                include_details: true,
                ..RacsConfig::default()
            })
            .score(&r)
            .await;
        let d = detailed.racss[0].details.as_ref().unwrap();
        assert!((d.length - 1.112).abs() < 0.001, "{}", d.length);
        assert_eq!(d.length_units, LengthUnit::Kilometres);
        assert_eq!(d.coverage, Some(1.0));
        // CI 50 stands for 32.5 µg/m³ of PM2.5; 5 minutes walking (no travel mode named):
        // 32.5 · 0.026 · 5 µg, in the outdoor air.
        assert!((d.inhaled_pm25_ug.unwrap() - 4.225).abs() < 1e-9, "{d:?}");
        assert_eq!(d.travel_mode, Some(crate::TravelMode::Walk));
        assert_eq!(d.breathing_m3_per_min, Some(0.026));
        assert_eq!(d.pm25_in_vehicle_factor, Some(1.0));
        let wire = serde_json::to_value(&detailed).unwrap();
        assert_eq!(wire["racss"][0]["details"]["lengthUnits"], json!("km"));
    }

    #[test]
    fn scoring_futures_can_be_spawned() {
        fn assert_send<T: Send>(_: &T) {}
        let scorer = scorer(constant(ci(50.0)));
        let r = three_routes("desc");
        assert_send(&scorer.score(&r));
    }
}
