//! The score-routes body: any bytes are either refused with an error naming a place in the body
//! (when the body is JSON), or accepted, the same from the bytes and from a reader, and scored,
//! every route getting a RACS in 0..=100 or its own error code, in the order `routesSort` asks
//! for; with a departure window, the best departure beats or ties every route at
//! `departureTime` and lies inside the window on its step grid.

#![no_main]

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use aq_core::memory::FnSource;
use aq_core::{CleanlinessIndex, Position};
use chrono::{DateTime, Utc};
use insights_fuzz::{NeverTimer, has_repeated_members, path_resolves};
use libfuzzer_sys::fuzz_target;
use racs_core::{
    CompletionStatus, ErrorCode, Limits, RacsConfig, RecommendationCode, RequestError,
    RouteOutcome, RoutesSort, ScoreReport, ScoreRequest, ScoreResponse, Scorer,
};
use runtime_core::{FixedClock, SequentialIds};
use serde_json::Value;

/// Small limits keep an input's scoring to a few milliseconds.
static LIMITS: LazyLock<Limits> = LazyLock::new(|| Limits {
    max_routes: 8,
    max_vertices_per_route: 200,
    // Every later departure scores every route again.
    max_departure_scorings: 64,
    ..Limits::default()
});

/// Members a refusal may name although the body lacks them.
const REQUIRED: [&str; 5] = ["routes", "routesSort", "id", "polyline", "routeDuration"];

/// The scorer's clock: `departureTime` when a request has none.
const NOW_S: i64 = 1_777_622_400;

static SCORER: LazyLock<Scorer> = LazyLock::new(|| {
    let t0 = DateTime::from_timestamp(NOW_S, 0).unwrap_or_default();
    Scorer::new(
        Arc::new(FnSource::new("fuzz field", field)),
        Arc::new(FixedClock::new(t0)),
        Arc::new(NeverTimer),
        Arc::new(SequentialIds::default()),
    )
    .with_config(RacsConfig {
        // Bounds the source's work per route; routes longer than this spread their samples out.
        max_samples: 500,
        include_details: true,
        ..RacsConfig::default()
    })
});

/// A made-up field that changes with place and hour and has no data in western bands of
/// latitude, so that routes also fail for lack of data.
fn field(p: Position, t: DateTime<Utc>) -> Option<CleanlinessIndex> {
    let wave = (p.lon() * 700.0).sin() * 40.0 + (p.lat() * 900.0).cos() * 30.0;
    let hour = f64::from(u8::try_from(t.timestamp().rem_euclid(86_400) / 3600).unwrap_or(0));
    if p.lon() < 0.0 && (p.lat() * 10.0).sin() > 0.5 {
        return None;
    }
    Some(CleanlinessIndex::clamped(50.0 + wave + hour))
}

fuzz_target!(|data: &[u8]| {
    let from_reader = ScoreRequest::from_reader(data, &LIMITS);
    let request = match ScoreRequest::from_json_slice(data, &LIMITS) {
        Ok(request) => request,
        Err(e) => {
            assert!(
                from_reader.is_err(),
                "a reader accepted what the bytes refused: {e}"
            );
            check_refused(data, &e);
            return;
        }
    };
    assert_eq!(from_reader.as_ref(), Ok(&request));
    // What small limits accept, the defaults accept the same way.
    assert_eq!(
        ScoreRequest::from_json_slice(data, &Limits::default()).as_ref(),
        Ok(&request)
    );
    assert_eq!(request.validate(&LIMITS), Ok(()));
    // The request serialises to the wire form, which reads back as the same request.
    let wire = serde_json::to_vec(&request)
        .unwrap_or_else(|e| panic!("{request:?} does not serialise: {e}"));
    assert_eq!(
        ScoreRequest::from_json_slice(&wire, &LIMITS).as_ref(),
        Ok(&request),
        "the wire form {} reads differently",
        String::from_utf8_lossy(&wire)
    );
    check_scores(&request);
});

/// A refusal says what is wrong and, for a body that is JSON, names a place in it.
fn check_refused(data: &[u8], e: &RequestError) {
    let field = match e {
        RequestError::Invalid(field) | RequestError::TooLarge(field) => field,
        RequestError::Unreadable(_) => panic!("bytes in memory were unreadable: {e}"),
    };
    assert!(!field.problem.is_empty(), "{e} does not say what is wrong");
    // A tree keeps the last of repeated members, where the reader stops at the first.
    if let Ok(body) = serde_json::from_slice::<Value>(data)
        && !has_repeated_members(data)
    {
        assert!(
            path_resolves(&body, &field.path, &REQUIRED, true),
            "{e} names {:?}, which is not in {body}",
            field.path
        );
    }
}

fn check_scores(request: &ScoreRequest) {
    let report = futures::executor::block_on(SCORER.score_report(request));
    let response = &report.response;
    let json = serde_json::to_string(response)
        .unwrap_or_else(|e| panic!("{response:?} does not serialise: {e}"));
    let read_back: Result<ScoreResponse, _> = serde_json::from_str(&json);
    assert_eq!(
        read_back.as_ref().ok(),
        Some(response),
        "the response reads back differently from {json}"
    );
    let routes = &request.routes;
    assert_eq!(report.outcomes.len(), routes.len());
    assert_eq!(response.racss.len(), routes.len());

    let racs_of: HashMap<&str, Option<u8>> = response
        .racss
        .iter()
        .map(|e| (e.route_id.as_str(), e.racs))
        .collect();
    assert_eq!(racs_of.len(), routes.len(), "each route appears once");
    for (route, outcome) in routes.iter().zip(&report.outcomes) {
        let racs = racs_of.get(route.id.as_str()).copied();
        let Some(racs) = racs else {
            panic!("route {} is missing from the response", route.id);
        };
        match outcome {
            RouteOutcome::Scored(score) => {
                assert_eq!(racs, Some(score.racs), "route {}", route.id);
                assert!(score.racs <= 100, "{score:?}");
                assert!((0.0..=100.0).contains(&score.mean_ci), "{score:?}");
                assert!((0.0..=1.0).contains(&score.coverage), "{score:?}");
                assert!(score.dose.is_finite() && score.dose >= 0.0, "{score:?}");
                assert!(
                    score.length_m.is_finite() && score.length_m >= 0.0,
                    "{score:?}"
                );
            }
            RouteOutcome::Failed(failure) => {
                assert_eq!(
                    racs, None,
                    "route {} failed ({failure}) yet has a RACS",
                    route.id
                );
            }
        }
    }
    for entry in &response.racss {
        assert_eq!(
            entry.racs.is_some(),
            entry.error == ErrorCode::Empty,
            "{entry:?}"
        );
        if let Some(details) = &entry.details {
            assert!(
                details.length.is_finite() && details.length >= 0.0,
                "{entry:?}"
            );
            if let Some(c) = details.coverage {
                assert!((0.0..=1.0).contains(&c), "{entry:?}");
            }
        }
    }

    let in_order: Vec<Option<u8>> = response.racss.iter().map(|e| e.racs).collect();
    let ids: Vec<&str> = response.racss.iter().map(|e| e.route_id.as_str()).collect();
    match request.routes_sort {
        RoutesSort::Original => {
            let request_ids: Vec<&str> = routes.iter().map(|r| r.id.as_str()).collect();
            assert_eq!(ids, request_ids);
        }
        RoutesSort::Desc | RoutesSort::Asc => {
            let key = |r: Option<u8>| match (r, request.routes_sort) {
                (None, _) => 101,
                (Some(v), RoutesSort::Asc) => i32::from(v),
                (Some(v), _) => 100 - i32::from(v),
            };
            assert!(
                in_order.windows(2).all(|w| key(w[0]) <= key(w[1])),
                "{:?} is not in {:?} order",
                in_order,
                request.routes_sort
            );
        }
    }

    let scored = in_order.iter().filter(|r| r.is_some()).count();
    assert_eq!(
        response.completion_status,
        CompletionStatus::from_counts(scored, routes.len())
    );
    check_best_departure(request, &report, &racs_of);
    let best = in_order.iter().flatten().max().copied();
    let cleanest: Vec<_> = response
        .recommendations
        .iter()
        .filter(|r| r.code == RecommendationCode::CleanestRoute)
        .collect();
    match best {
        None => assert!(
            response
                .recommendations
                .iter()
                .all(|r| r.code == RecommendationCode::BestDepartureTime),
            "{response:?}"
        ),
        Some(best) => {
            assert_eq!(cleanest.len(), 1, "{response:?}");
            let named = cleanest[0].additional_data.value.as_str();
            assert_eq!(
                racs_of.get(named).copied(),
                Some(Some(best)),
                "{response:?}"
            );
        }
    }
}

/// With a window and a scored route, one `BestDepartureTime`, last, naming a scored route at a
/// departure of the window with a RACS at least every route's at `departureTime`; else none.
fn check_best_departure(
    request: &ScoreRequest,
    report: &ScoreReport,
    racs_of: &HashMap<&str, Option<u8>>,
) {
    let response = &report.response;
    let advice: Vec<_> = response
        .recommendations
        .iter()
        .filter(|r| r.code == RecommendationCode::BestDepartureTime)
        .collect();
    let any_scored = racs_of.values().any(Option::is_some);
    let (Some(window), true) = (request.departure_window(), any_scored) else {
        assert!(advice.is_empty(), "{response:?}");
        assert_eq!(report.best_departure, None);
        return;
    };
    assert_eq!(advice.len(), 1, "{response:?}");
    assert_eq!(response.recommendations.last(), Some(advice[0]));
    let best = report
        .best_departure
        .unwrap_or_else(|| panic!("no best departure for {response:?}"));
    let id = request.routes[best.route].id.as_str();
    assert_eq!(advice[0].additional_data.route_id.as_deref(), Some(id));
    assert_eq!(
        racs_of.get(id).copied().flatten(),
        Some(best.racs_at_departure_time)
    );
    assert!(
        racs_of.values().flatten().all(|&r| best.racs >= r),
        "{best:?}"
    );
    assert!(
        best.step <= window.later_departures(),
        "{best:?} {window:?}"
    );
    let start = request
        .departure_time
        .unwrap_or_else(|| DateTime::from_timestamp(NOW_S, 0).unwrap_or_default());
    assert_eq!(
        Some(best.departure),
        start.checked_add_signed(window.offset(best.step))
    );
}
