//! The best departure time: every scored route scored again at each later departure of the
//! request's window ([`DepartureWindow`]), one batch call to the source per departure, and the
//! `BestDepartureTime` recommendation for the (route, departure) with the highest RACS.
//!
//! Only routes scored at `departureTime` are candidates: a route that failed there (errors
//! 100, 101, 102) is not scored again. Ties go to the earliest departure, then to the first
//! route in request order, so `departureTime` itself wins unless leaving later is strictly
//! cleaner. A later departure is recommended only when it gains at least
//! [`RacsConfig::min_departure_gain`] over leaving at `departureTime` on the same route; later
//! departures that could not be scored (the source failed or ran out of time) are counted, so
//! the recommendation never claims that nothing later is cleaner when it could not look.

use std::pin::pin;

use aq_core::{AirQualitySource, SampleQuery, check_batch_len};
use chrono::{DateTime, Timelike, Utc};
use futures::future::{Either, select};
use futures::stream::{self, StreamExt};
use runtime_core::{IdGenerator, Timer};

use crate::config::RacsConfig;
use crate::outcome::RouteOutcome;
use crate::plan::{RoutePlan, plan_route};
use crate::request::ScoreRequest;
use crate::response::{
    AdditionalData, AdditionalDataType, Recommendation, RecommendationCode, UtcMillis,
};
use crate::score::score_samples;
use crate::window::DepartureWindow;

/// The (route, departure) with the highest RACS in a request's departure window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BestDeparture {
    /// The route, as its index in request order.
    pub route: usize,
    /// Which departure: 0 is `departureTime`, `k` is `k` steps later.
    pub step: u32,
    /// When to leave.
    pub departure: DateTime<Utc>,
    /// The route's RACS leaving then.
    pub racs: u8,
    /// The same route's RACS leaving at `departureTime` (the one in `racss`).
    pub racs_at_departure_time: u8,
    /// How many later departures the window holds.
    pub later: u32,
    /// How many of them could not be scored at all: the source failed or ran out of time, or
    /// no candidate route had enough coverage.
    pub unscored: u32,
}

impl BestDeparture {
    /// How much higher the RACS is than leaving at `departureTime` on the same route.
    #[must_use]
    pub fn gain(&self) -> u8 {
        self.racs.saturating_sub(self.racs_at_departure_time)
    }
}

/// The best cell of `grid`, as `(step, route)`: `grid[k][i]` is the RACS of route `i` leaving
/// at departure `k` (0 is `departureTime`), `None` when it has none. Routes without a RACS at
/// departure 0 are no candidates. The highest RACS wins; ties go to the smallest `k`, then the
/// smallest `i`. `None` when no route has a RACS at departure 0.
///
/// ```
/// use racs_core::best_in_grid;
///
/// let grid = [
///     vec![Some(60), None, Some(70)],
///     vec![Some(75), Some(99), Some(75)],
///     vec![Some(80), Some(99), Some(80)],
/// ];
/// // Route 1 failed at departureTime; the two routes tie at 80, the first one wins.
/// assert_eq!(best_in_grid(&grid), Some((2, 0)));
/// ```
#[must_use]
pub fn best_in_grid(grid: &[Vec<Option<u8>>]) -> Option<(usize, usize)> {
    let first = grid.first()?;
    let mut best: Option<(usize, usize, u8)> = None;
    for (k, row) in grid.iter().enumerate() {
        for (i, racs) in row.iter().enumerate() {
            let Some(racs) = *racs else { continue };
            if first.get(i).copied().flatten().is_none() {
                continue;
            }
            if best.is_none_or(|(_, _, b)| racs > b) {
                best = Some((k, i, racs));
            }
        }
    }
    best.map(|(k, i, _)| (k, i))
}

/// The cell of `grid` to recommend, as `(step, route)`: [`best_in_grid`]'s when it gains at
/// least `min_gain` over the same route at departure 0, else the best route at departure 0 (a
/// gain under the minimum is no reason to wait).
///
/// ```
/// use racs_core::recommended_in_grid;
///
/// let grid = [vec![Some(60), Some(70)], vec![Some(64), Some(71)]];
/// // Route 1 gains 1 later, route 0 gains 4: with a minimum of 5, leave now on route 1.
/// assert_eq!(recommended_in_grid(&grid, 5), Some((0, 1)));
/// assert_eq!(recommended_in_grid(&grid, 1), Some((1, 1)));
/// ```
#[must_use]
pub fn recommended_in_grid(grid: &[Vec<Option<u8>>], min_gain: u8) -> Option<(usize, usize)> {
    let (k, i) = best_in_grid(grid)?;
    let gain = grid[k][i]?.saturating_sub(grid.first()?.get(i).copied().flatten()?);
    if k == 0 || gain >= min_gain {
        Some((k, i))
    } else {
        best_in_grid(&grid[..1])
    }
}

/// Later departures asked of the source at once. A few, in time order, so that a source that
/// caches by place and hour (Open-Meteo's) answers most departures from what the earlier ones
/// fetched, rather than every departure missing the cache at once.
const CONCURRENT_DEPARTURES: usize = 4;

/// What the scorer needs to score the later departures.
pub(crate) struct Departures<'a> {
    pub(crate) source: &'a dyn AirQualitySource,
    pub(crate) timer: &'a dyn Timer,
    pub(crate) config: &'a RacsConfig,
}

impl Departures<'_> {
    /// Scores every route that has a RACS in `first` (the outcomes at `departure`) at each
    /// later departure of `window`, and picks the best. Departures are scored a few at a time
    /// ([`CONCURRENT_DEPARTURES`]), each with one batch call to the source under the route
    /// deadline; a departure whose call fails or runs out of time has no candidates.
    pub(crate) async fn best(
        &self,
        request: &ScoreRequest,
        window: DepartureWindow,
        departure: DateTime<Utc>,
        first: &[RouteOutcome],
    ) -> Option<BestDeparture> {
        let first_racs: Vec<Option<u8>> = first.iter().map(|o| o.score().map(|s| s.racs)).collect();
        let later: Vec<Vec<Option<u8>>> = stream::iter(
            window
                .departures(departure)
                .skip(1)
                .map(|at| self.score_at(request, at, &first_racs)),
        )
        .buffered(CONCURRENT_DEPARTURES)
        .collect()
        .await;
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let unscored = count(
            later
                .iter()
                .filter(|row| row.iter().all(Option::is_none))
                .count(),
        );
        let later_count = count(later.len());
        let mut grid = Vec::with_capacity(later.len() + 1);
        grid.push(first_racs);
        grid.extend(later);
        let (k, i) = recommended_in_grid(&grid, self.config.min_departure_gain)?;
        let step = u32::try_from(k).ok()?;
        Some(BestDeparture {
            route: i,
            step,
            departure: departure.checked_add_signed(window.offset(step))?,
            racs: grid[k][i]?,
            racs_at_departure_time: grid[0][i]?,
            later: later_count,
            unscored,
        })
    }

    /// The RACS of each candidate route leaving at `at`, in request order.
    async fn score_at(
        &self,
        request: &ScoreRequest,
        at: DateTime<Utc>,
        first_racs: &[Option<u8>],
    ) -> Vec<Option<u8>> {
        let mut scores = vec![None; request.routes.len()];
        let plans: Vec<(usize, RoutePlan)> = request
            .routes
            .iter()
            .enumerate()
            .filter(|(i, _)| first_racs.get(*i).copied().flatten().is_some())
            .filter_map(|(i, route)| {
                plan_route(&route.polyline, request.duration_s(route), at, self.config)
                    .ok()
                    .map(|plan| (i, plan))
            })
            .collect();
        let queries: Vec<SampleQuery> = plans
            .iter()
            .flat_map(|(_, plan)| plan.queries().iter().copied())
            .collect();
        if queries.is_empty() {
            return scores;
        }
        let deadline = pin!(self.timer.sleep(self.config.route_deadline()));
        let call = pin!(self.source.sample_exposure(&queries));
        let answers = match select(deadline, call).await {
            Either::Right((Ok(answers), _)) => check_batch_len(queries.len(), answers).ok(),
            Either::Right((Err(_), _)) | Either::Left(_) => None,
        };
        let Some(answers) = answers else {
            return scores;
        };
        let mut rest = answers.as_slice();
        for (i, plan) in &plans {
            let (own, after) = rest.split_at(plan.queries().len());
            rest = after;
            let assumptions = self
                .config
                .dose_assumptions(request.travel_mode(&request.routes[*i]));
            scores[*i] = score_samples(plan, own, assumptions, self.config)
                .ok()
                .map(|s| s.racs);
        }
        scores
    }
}

/// The `BestDepartureTime` recommendation for `best`, `departure` being the request's
/// `departureTime` (or when scoring started), `min_gain` the least gain that recommends waiting
/// ([`RacsConfig::min_departure_gain`]).
///
/// The text names the time (`08:45 UTC`, with the date when it is not `departure`'s), the
/// route, its RACS then, and how much more that is than leaving at `departureTime` on the same
/// route; when leaving at `departureTime` is best, it says that no later departure in the
/// window scores `min_gain` or more higher, or, when some could not be scored, how many. A
/// later departure that could be recommended also says how many others could not be scored.
#[must_use]
pub fn departure_recommendation(
    request: &ScoreRequest,
    window: DepartureWindow,
    best: &BestDeparture,
    departure: DateTime<Utc>,
    min_gain: u8,
    ids: &dyn IdGenerator,
) -> Recommendation {
    let id = &request.routes[best.route].id;
    let then = time_text(best.departure, departure);
    let now = time_text(departure, departure);
    let minutes = window.window_minutes;
    let unscored = match (best.unscored, best.later) {
        (0, _) => String::new(),
        (n, all) if n == all => format!(
            " None of the {all} later departures in the next {minutes} minutes could be scored."
        ),
        (1, all) => format!(" 1 of the {all} later departures could not be scored."),
        (n, all) => format!(" {n} of the {all} later departures could not be scored."),
    };
    let text = if best.step > 0 {
        format!(
            "Leave at {then} on route {id} for a RACS of {}, {} more than leaving at {now} on \
             that route.{unscored}",
            best.racs,
            best.gain()
        )
    } else if best.unscored > 0 {
        format!(
            "Leave at {now} on route {id} for a RACS of {}: no later departure that could be \
             scored is {min_gain} or more higher.{unscored}",
            best.racs
        )
    } else {
        format!(
            "Leave at {now} on route {id} for a RACS of {}: no later departure in the next \
             {minutes} minutes scores {min_gain} or more higher.",
            best.racs
        )
    };
    Recommendation {
        recommendation_id: ids.new_id(),
        code: RecommendationCode::BestDepartureTime,
        name: "Best Departure Time".to_owned(),
        text,
        additional_data: AdditionalData {
            kind: AdditionalDataType::DepartureTime,
            value: UtcMillis(best.departure).to_string(),
            route_id: Some(id.to_string()),
        },
    }
}

/// A time for people: `08:45 UTC`, with seconds only when there are any, and the date when
/// it differs from `reference`'s (`00:15 UTC on 2026-05-02`).
fn time_text(time: DateTime<Utc>, reference: DateTime<Utc>) -> String {
    let clock = if time.second() == 0 && time.nanosecond() == 0 {
        time.format("%H:%M")
    } else {
        time.format("%H:%M:%S")
    };
    if time.date_naive() == reference.date_naive() {
        format!("{clock} UTC")
    } else {
        format!("{clock} UTC on {}", time.format("%Y-%m-%d"))
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use proptest::prelude::*;
    use runtime_core::SequentialIds;

    use super::*;
    use crate::config::Limits;

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
    }

    fn request() -> ScoreRequest {
        let body = br#"{"routes": [
            {"id": "a", "polyline": [[0, 0], [0, 0.01]], "routeDuration": 10},
            {"id": "b", "polyline": [[0.1, 0], [0.1, 0.01]], "routeDuration": 10}],
            "routesSort": "desc", "departureWindowMinutes": 120}"#;
        ScoreRequest::from_json_slice(body, &Limits::default()).unwrap()
    }

    fn window() -> DepartureWindow {
        request().departure_window().unwrap()
    }

    #[test]
    fn a_later_departure_names_the_time_route_and_gain() {
        let best = BestDeparture {
            route: 1,
            step: 3,
            departure: t0() + chrono::TimeDelta::minutes(45),
            racs: 71,
            racs_at_departure_time: 62,
            later: 8,
            unscored: 0,
        };
        let r = departure_recommendation(
            &request(),
            window(),
            &best,
            t0(),
            5,
            &SequentialIds::default(),
        );
        assert_eq!(r.name, "Best Departure Time");
        assert_eq!(r.code, RecommendationCode::BestDepartureTime);
        assert_eq!(
            r.text,
            "Leave at 08:45 UTC on route b for a RACS of 71, 9 more than leaving at 08:00 UTC on \
             that route."
        );
        assert_eq!(
            serde_json::to_value(&r.additional_data).unwrap(),
            serde_json::json!({
                "type": "departureTime", "value": "2026-05-01T08:45:00.000Z", "routeId": "b"
            })
        );
    }

    #[test]
    fn leaving_at_departure_time_says_nothing_later_is_cleaner() {
        let best = BestDeparture {
            route: 0,
            step: 0,
            departure: t0(),
            racs: 64,
            racs_at_departure_time: 64,
            later: 8,
            unscored: 0,
        };
        let text = |best: &BestDeparture| {
            departure_recommendation(
                &request(),
                window(),
                best,
                t0(),
                5,
                &SequentialIds::default(),
            )
            .text
        };
        assert_eq!(
            text(&best),
            "Leave at 08:00 UTC on route a for a RACS of 64: no later departure in the next 120 \
             minutes scores 5 or more higher."
        );
        let r = departure_recommendation(
            &request(),
            window(),
            &best,
            t0(),
            5,
            &SequentialIds::default(),
        );
        assert_eq!(r.additional_data.value, "2026-05-01T08:00:00.000Z");
        // Later departures that could not be scored are never said to score lower.
        let some = BestDeparture {
            unscored: 3,
            ..best
        };
        assert_eq!(
            text(&some),
            "Leave at 08:00 UTC on route a for a RACS of 64: no later departure that could be \
             scored is 5 or more higher. 3 of the 8 later departures could not be scored."
        );
        let none = BestDeparture {
            unscored: 8,
            ..best
        };
        assert!(
            text(&none).ends_with(
                "None of the 8 later departures in the next 120 minutes could be scored."
            ),
            "{}",
            text(&none)
        );
    }

    #[test]
    fn times_carry_the_date_past_midnight_and_seconds_when_there_are_any() {
        let late = Utc.with_ymd_and_hms(2026, 5, 1, 23, 50, 30).unwrap();
        assert_eq!(time_text(late, late), "23:50:30 UTC");
        let next = late + chrono::TimeDelta::minutes(25);
        assert_eq!(time_text(next, late), "00:15:30 UTC on 2026-05-02");
    }

    #[test]
    fn failed_routes_are_no_candidates_and_ties_go_earliest_then_first() {
        assert_eq!(best_in_grid(&[]), None);
        assert_eq!(
            best_in_grid(&[vec![None, None], vec![Some(90), None]]),
            None
        );
        let grid = [vec![Some(50), Some(50)], vec![Some(50), Some(50)]];
        assert_eq!(best_in_grid(&grid), Some((0, 0)));
        let grid = [
            vec![Some(50), Some(50)],
            vec![Some(40), Some(60)],
            vec![Some(60), None],
        ];
        assert_eq!(best_in_grid(&grid), Some((1, 1)));
    }

    fn grid() -> impl Strategy<Value = Vec<Vec<Option<u8>>>> {
        (1usize..6, 1usize..10).prop_flat_map(|(routes, steps)| {
            prop::collection::vec(
                prop::collection::vec(prop::option::weighted(0.8, 0u8..=100), routes),
                steps,
            )
        })
    }

    proptest! {
        /// The best cell is at least every candidate's RACS at departureTime and at every
        /// departure, and no cell before it (in time, then request order) is as high.
        #[test]
        fn the_best_departure_beats_or_ties_everything_and_comes_first(grid in grid()) {
            let candidates: Vec<usize> =
                (0..grid[0].len()).filter(|&i| grid[0][i].is_some()).collect();
            let Some((k, i)) = best_in_grid(&grid) else {
                prop_assert!(candidates.is_empty());
                return Ok(());
            };
            prop_assert!(candidates.contains(&i));
            let best = grid[k][i].unwrap();
            for (kk, row) in grid.iter().enumerate() {
                for &c in &candidates {
                    let Some(r) = row[c] else { continue };
                    prop_assert!(r <= best);
                    if (kk, c) < (k, i) {
                        prop_assert!(r < best, "({kk}, {c}) ties ({k}, {i}) and comes first");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod scoring_tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use aq_core::memory::FnSource;
    use aq_core::{AirSample, CleanlinessIndex, Position, SourceError, SourceInfo};
    use async_trait::async_trait;
    use chrono::{TimeDelta, TimeZone};
    use insights_system::TokioTimer;
    use proptest::prelude::*;
    use runtime_core::{FixedClock, SequentialIds};
    use serde_json::{Value, json};

    use super::*;
    use crate::config::Limits;
    use crate::scorer::Scorer;

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
    }

    fn scorer(source: impl AirQualitySource + 'static) -> Scorer {
        Scorer::new(
            Arc::new(source),
            Arc::new(FixedClock::new(t0())),
            Arc::new(TokioTimer),
            Arc::new(SequentialIds::default()),
        )
    }

    fn request(body: &Value) -> ScoreRequest {
        ScoreRequest::from_json_slice(body.to_string().as_bytes(), &Limits::default()).unwrap()
    }

    /// Route `i` runs north from longitude `i / 10` for about 550 m.
    fn route(i: usize) -> Value {
        let lon = i as f64 / 10.0;
        json!({"id": format!("r{i}"), "polyline": [[lon, 0.0], [lon, 0.005]], "routeDuration": 5})
    }

    fn run<T>(future: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(future)
    }

    /// Counts the source's calls and the size of each batch.
    struct Counting<F> {
        inner: FnSource<F>,
        batches: Mutex<Vec<usize>>,
        calls: AtomicUsize,
    }

    #[async_trait]
    impl<F> AirQualitySource for Counting<F>
    where
        F: Fn(Position, DateTime<Utc>) -> Option<CleanlinessIndex> + Send + Sync + 'static,
    {
        fn info(&self) -> SourceInfo {
            self.inner.info()
        }

        async fn sample(
            &self,
            queries: &[SampleQuery],
        ) -> Result<Vec<Option<AirSample>>, SourceError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.batches.lock().unwrap().push(queries.len());
            self.inner.sample(queries).await
        }
    }

    #[test]
    fn each_later_departure_is_one_batch_of_every_scored_route() {
        let source = Arc::new(Counting {
            inner: FnSource::new("flat", |_: Position, _| CleanlinessIndex::new(60.0).ok()),
            batches: Mutex::new(Vec::new()),
            calls: AtomicUsize::new(0),
        });
        let scorer = Scorer::new(
            source.clone(),
            Arc::new(FixedClock::new(t0())),
            Arc::new(TokioTimer),
            Arc::new(SequentialIds::default()),
        );
        // A single point cannot be scored (102): it is no candidate and is not asked for again.
        let dot = json!({"id": "dot", "polyline": [[0.5, 0.0]], "routeDuration": 5});
        let body = json!({"routes": [route(0), dot, route(1)], "routesSort": "original",
                          "departureWindowMinutes": 60});
        let report = run(scorer.score_report(&request(&body)));
        // Two routes scored at departureTime, then 4 later departures of 15 minutes.
        assert_eq!(source.calls.load(Ordering::SeqCst), 2 + 4);
        let batches = source.batches.lock().unwrap().clone();
        let one_route = batches[0];
        assert_eq!(batches[2..], [2 * one_route; 4]);
        let best = report.best_departure.unwrap();
        assert_eq!(
            (best.route, best.step, best.racs),
            (0, 0, 60),
            "flat air: leave now"
        );
        let mut once = request(&body);
        once.departure_window_minutes = None;
        assert_eq!(
            scorer.planned_samples(&request(&body)),
            5 * scorer.planned_samples(&once),
            "an upper bound: every route at each of the 5 departures"
        );
    }

    #[test]
    fn without_a_window_nothing_changes() {
        let field = FnSource::new("flat", |_: Position, _| CleanlinessIndex::new(60.0).ok());
        let body = json!({"routes": [route(0), route(1)], "routesSort": "desc"});
        let report = run(scorer(field).score_report(&request(&body)));
        assert_eq!(report.best_departure, None);
        assert!(
            report
                .response
                .recommendations
                .iter()
                .all(|r| r.code != RecommendationCode::BestDepartureTime)
        );
    }

    #[test]
    fn air_that_clears_later_recommends_leaving_later() {
        // Route r1 is dirty until 08:30 and clean from then on; r0 stays at 60.
        let field = FnSource::new("clearing", |p: Position, t: DateTime<Utc>| {
            let clean_later = p.lon() > 0.05 && t >= t0() + TimeDelta::minutes(30);
            CleanlinessIndex::new(if clean_later {
                90.0
            } else if p.lon() > 0.05 {
                40.0
            } else {
                60.0
            })
            .ok()
        });
        let body = json!({"routes": [route(0), route(1)], "routesSort": "desc",
                          "departureTime": "2026-05-01T08:00:00Z",
                          "departureWindowMinutes": 60, "departureStepMinutes": 30});
        let response = run(scorer(field).score(&request(&body)));
        let racss: Vec<_> = response
            .racss
            .iter()
            .map(|e| (e.route_id.as_str(), e.racs))
            .collect();
        assert_eq!(
            racss,
            [("r0", Some(60)), ("r1", Some(40))],
            "scores at departureTime"
        );
        let best = response.recommendations.last().unwrap();
        assert_eq!(best.code, RecommendationCode::BestDepartureTime);
        assert_eq!(
            serde_json::to_value(&best.additional_data).unwrap(),
            json!({"type": "departureTime", "value": "2026-05-01T08:30:00.000Z", "routeId": "r1"})
        );
        assert_eq!(
            best.text,
            "Leave at 08:30 UTC on route r1 for a RACS of 90, 50 more than leaving at 08:00 UTC \
             on that route."
        );
    }

    /// A field at 60 at departureTime and `later` from 08:30 on.
    fn later_field(
        later: f64,
    ) -> FnSource<impl Fn(Position, DateTime<Utc>) -> Option<CleanlinessIndex> + Send + Sync> {
        FnSource::new("later", move |_: Position, t: DateTime<Utc>| {
            CleanlinessIndex::new(if t >= t0() + TimeDelta::minutes(30) {
                later
            } else {
                60.0
            })
            .ok()
        })
    }

    fn departure_text(source: impl AirQualitySource + 'static) -> (String, String) {
        let body = json!({"routes": [route(0)], "routesSort": "desc",
                          "departureTime": "2026-05-01T08:00:00Z",
                          "departureWindowMinutes": 60, "departureStepMinutes": 30});
        let response = run(scorer(source).score(&request(&body)));
        let best = response.recommendations.last().unwrap();
        assert_eq!(best.code, RecommendationCode::BestDepartureTime);
        (best.additional_data.value.clone(), best.text.clone())
    }

    #[test]
    fn a_later_departure_gaining_less_than_the_minimum_is_not_recommended() {
        // 60 now, 64 later: 4 points, under the default minimum of 5.
        let (when, text) = departure_text(later_field(64.0));
        assert_eq!(when, "2026-05-01T08:00:00.000Z", "{text}");
        assert_eq!(
            text,
            "Leave at 08:00 UTC on route r0 for a RACS of 60: no later departure in the next 60 \
             minutes scores 5 or more higher."
        );
        // 65 later: exactly the minimum, recommended.
        let (when, text) = departure_text(later_field(65.0));
        assert_eq!(when, "2026-05-01T08:30:00.000Z", "{text}");
    }

    /// Answers for departureTime and fails for every later departure.
    struct FailsLater;

    #[async_trait]
    impl AirQualitySource for FailsLater {
        fn info(&self) -> SourceInfo {
            SourceInfo::real("fails-later")
        }

        async fn sample(
            &self,
            queries: &[SampleQuery],
        ) -> Result<Vec<Option<AirSample>>, SourceError> {
            if queries
                .iter()
                .any(|q| q.time > t0() + TimeDelta::minutes(10))
            {
                return Err(SourceError::Unavailable("down".into()));
            }
            Ok(queries
                .iter()
                .map(|_| CleanlinessIndex::new(60.0).ok().map(AirSample::from_ci))
                .collect())
        }
    }

    #[test]
    fn later_departures_the_source_failed_are_said_to_be_unscored() {
        let (when, text) = departure_text(FailsLater);
        assert_eq!(when, "2026-05-01T08:00:00.000Z");
        assert_eq!(
            text,
            "Leave at 08:00 UTC on route r0 for a RACS of 60: no later departure that could be \
             scored is 5 or more higher. None of the 2 later departures in the next 60 minutes \
             could be scored."
        );
        assert!(!text.contains("no later departure in the next"), "{text}");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// Against a field that changes with place and time: the best departure's RACS is at
        /// least every route's RACS at departureTime, its departure lies in the window on the
        /// step grid, it matches scoring each (route, departure) on its own, and `racss` are
        /// the scores at departureTime.
        #[test]
        fn the_best_departure_is_at_least_every_route_at_departure_time(
            levels in prop::collection::vec(prop::collection::vec(0.0..100.0f64, 8), 1..4),
            window_minutes in 15u32..=180,
            step_minutes in 5u32..=60,
        ) {
            let table = levels.clone();
            let field = FnSource::new("table", move |p: Position, t: DateTime<Utc>| {
                let route = (p.lon() * 10.0).round() as usize;
                let slot = ((t - t0()).num_minutes().max(0) / 25) as usize % 8;
                CleanlinessIndex::new(table.get(route)?[slot]).ok()
            });
            let scorer = scorer(field);
            let routes: Vec<Value> = (0..levels.len()).map(route).collect();
            let body = json!({"routes": routes, "routesSort": "desc",
                              "departureWindowMinutes": window_minutes,
                              "departureStepMinutes": step_minutes});
            let r = request(&body);
            let report = run(scorer.score_report(&r));
            let plain = run(scorer.score_report(&request(&json!({
                "routes": body["routes"], "routesSort": "desc"}))));
            let racs = |resp: &crate::ScoreResponse| -> Vec<_> {
                resp.racss.iter().map(|e| (e.route_id.clone(), e.racs)).collect()
            };
            prop_assert_eq!(racs(&report.response), racs(&plain.response));

            let best = report.best_departure.unwrap();
            for o in &report.outcomes {
                prop_assert!(best.racs >= o.score().unwrap().racs);
            }
            let offset = best.departure - t0();
            prop_assert!(offset >= TimeDelta::zero());
            prop_assert!(offset <= TimeDelta::minutes(window_minutes.into()));
            prop_assert_eq!(offset.num_minutes() % i64::from(step_minutes), 0);
            prop_assert_eq!(offset.num_minutes(), i64::from(best.step * step_minutes));

            // Brute force: each (route, departure) scored on its own.
            let window = r.departure_window().unwrap();
            let grid: Vec<Vec<Option<u8>>> = window
                .departures(t0())
                .map(|at| {
                    r.routes
                        .iter()
                        .map(|route| {
                            let o = run(scorer.score_route(
                                &route.polyline, r.duration_s(route), at,
                                RacsConfig::default().dose_assumptions(None)));
                            o.score().map(|s| s.racs)
                        })
                        .collect()
                })
                .collect();
            prop_assert_eq!(
                recommended_in_grid(&grid, 5),
                Some((best.step as usize, best.route))
            );
            if best.step > 0 {
                prop_assert!(best.gain() >= 5, "a later departure gains the minimum");
            }
            prop_assert_eq!(Some(best.racs), grid[best.step as usize][best.route]);

            let rec = report.response.recommendations.last().unwrap();
            prop_assert_eq!(rec.code, RecommendationCode::BestDepartureTime);
            prop_assert_eq!(
                rec.additional_data.value.clone(),
                UtcMillis(best.departure).to_string()
            );
            let route_id = r.routes[best.route].id.to_string();
            prop_assert_eq!(rec.additional_data.route_id.as_deref(), Some(route_id.as_str()));
        }
    }
}
