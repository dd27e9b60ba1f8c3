//! Route scoring: a request of 50 routes of 500 vertices each (the API's route limit, walks of
//! about 7 km) scored against an in-memory field; and, separately, parsing and validating its
//! body, planning the samples, and the pure scoring of the source's answers.

use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use aq_core::memory::FnSource;
use aq_core::runtime::{FixedClock, SequentialIds, Timer};
use aq_core::{AirSample, CleanlinessIndex, Position};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use racs_core::{
    Limits, RacsConfig, RoutePlan, ScoreRequest, Scorer, encode_polyline, plan_route, score_samples,
};
use serde_json::{Value, json};

const ROUTES: usize = 50;
const VERTICES: usize = 500;

/// A smooth made-up field: cleaner to the north, with waves of a few hundred metres.
fn field(p: Position) -> Option<CleanlinessIndex> {
    let v = 60.0 + 15.0 * (p.lon() * 900.0).sin() + 10.0 * (p.lat() * 1300.0).cos();
    Some(CleanlinessIndex::clamped(v))
}

/// Route `r`: 500 vertices about 14 m apart, winding eastwards from its own start.
fn route(r: usize) -> Vec<Position> {
    let lon0 = 13.20 + 0.004 * r as f64;
    let lat0 = 52.40 + 0.002 * r as f64;
    (0..VERTICES)
        .map(|k| {
            let k = k as f64;
            let lon = lon0 + 0.0002 * k;
            let lat = lat0 + 0.0003 * (k / 25.0).sin();
            Position::new(lon, lat).unwrap_or_else(|e| panic!("bench route: {e}"))
        })
        .collect()
}

/// The request body, with every route's polyline as pairs or as an encoded string.
fn body(encoded: bool) -> Value {
    let routes: Vec<Value> = (0..ROUTES)
        .map(|r| {
            let line = route(r);
            let polyline = if encoded {
                json!(encode_polyline(&line))
            } else {
                json!(line)
            };
            json!({"id": format!("route-{r}"), "polyline": polyline, "routeDuration": 90})
        })
        .collect();
    json!({"routes": routes, "routesSort": "desc", "travelMode": "walk"})
}

/// A tokio sleep behind the timer port (written out because this crate does not depend on
/// `async-trait`).
struct TokioSleep;

impl Timer for TokioSleep {
    fn sleep<'life0, 'async_trait>(
        &'life0 self,
        duration: Duration,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(tokio::time::sleep(duration))
    }
}

fn racs(c: &mut Criterion) {
    let limits = Limits::default();
    let pairs = body(false);
    let encoded = body(true);
    let request =
        ScoreRequest::from_json(&pairs, &limits).unwrap_or_else(|e| panic!("bench request: {e}"));
    let departure = serde_json::from_value(json!("2026-05-04T08:00:00Z"))
        .unwrap_or_else(|e| panic!("bench time: {e}"));
    let config = RacsConfig::default();

    let mut group = c.benchmark_group("racs");
    group.throughput(Throughput::Elements(ROUTES as u64));

    group.bench_function("parse_validate_50x500_pairs", |b| {
        b.iter(|| ScoreRequest::from_json(black_box(&pairs), &limits))
    });
    group.bench_function("parse_validate_50x500_encoded", |b| {
        b.iter(|| ScoreRequest::from_json(black_box(&encoded), &limits))
    });

    let plan_all = || -> Vec<RoutePlan> {
        request
            .routes
            .iter()
            .map(|r| {
                plan_route(&r.polyline, request.duration_s(r), departure, &config)
                    .unwrap_or_else(|e| panic!("bench plan: {e}"))
            })
            .collect()
    };
    group.bench_function("plan_50x500", |b| b.iter(plan_all));

    let plans = plan_all();
    let answers: Vec<Vec<Option<AirSample>>> = plans
        .iter()
        .map(|p| {
            p.queries()
                .iter()
                .map(|q| field(q.position).map(AirSample::from_ci))
                .collect()
        })
        .collect();
    let ventilation = config.ventilation.rate(request.travel_mode);
    group.bench_function("score_samples_50x500", |b| {
        b.iter(|| {
            plans
                .iter()
                .zip(&answers)
                .map(|(p, a)| score_samples(p, black_box(a), ventilation, &config))
                .collect::<Vec<_>>()
        })
    });

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap_or_else(|e| panic!("bench runtime: {e}"));
    let scorer = Scorer::new(
        Arc::new(FnSource::new("bench", |p: Position, _| field(p))),
        Arc::new(FixedClock::new(departure)),
        Arc::new(TokioSleep),
        Arc::new(SequentialIds::default()),
    );
    group.bench_function("score_request_50x500", |b| {
        b.iter(|| runtime.block_on(scorer.score(black_box(&request))))
    });
    group.bench_function("parse_and_score_request_50x500", |b| {
        b.iter(|| {
            let request = ScoreRequest::from_json(black_box(&pairs), &limits)
                .unwrap_or_else(|e| panic!("bench request: {e}"));
            runtime.block_on(scorer.score(&request))
        })
    });
    group.finish();
}

criterion_group!(benches, racs);
criterion_main!(benches);
