//! A driver for counting instructions per request with callgrind, without HTTP or an
//! air-quality source: the HTTP ratio's one-route request (seven vertices across Berlin, 35
//! minutes, 71 samples) parsed and checked (both through a JSON tree and straight from its
//! bytes), planned, scored against a constant field and written out, `N` times (first
//! argument, default 1,000).
//!
//! ```sh
//! cargo build --release -p benches --example one_route_profile
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/racs.cg \
//!   target/release/examples/one_route_profile 1000
//! callgrind_annotate --inclusive=yes /tmp/racs.cg | grep one_route_profile::
//! ```
//!
//! (With `CARGO_TARGET_DIR` set, the binary is under that directory instead of `target/`.)
//!
//! Each step is a function of its own that is never inlined, so its inclusive count divided by
//! `N` is that step's cost per request. The source's cost is left out on purpose: the
//! `stations` benchmark measures the station source on its own.

use std::hint::black_box;
use std::sync::Arc;

use aq_core::CleanlinessIndex;
use aq_core::memory::constant;
use chrono::{TimeZone, Utc};
use insights_system::TokioTimer;
use racs_core::{Limits, RacsConfig, RoutePlan, ScoreRequest, ScoreResponse, Scorer, plan_route};
use runtime_core::{FixedClock, SequentialIds};
use serde::Deserialize;
use serde_json::Value;

/// The body `insights-load` sends for the HTTP ratio, byte for byte.
const BODY: &[u8] = br#"{"durationUnits":"m","lengthUnits":"km","routes":[{"id":"avenue","polyline":[[13.335,52.507],[13.34,52.512],[13.345,52.515],[13.35,52.5163],[13.36,52.5163],[13.37,52.5163],[13.3777,52.5163]],"routeDuration":35}],"routesSort":"desc"}"#;

#[inline(never)]
fn parse_tree(body: &[u8]) -> Value {
    serde_json::from_slice(body).expect("the body is JSON")
}

#[inline(never)]
fn check_tree(body: &Value, limits: &Limits) -> ScoreRequest {
    let request = ScoreRequest::deserialize(body).expect("the body is a request");
    request
        .validate(limits)
        .expect("the body is a valid request");
    request
}

#[inline(never)]
fn read_bytes(body: &[u8], limits: &Limits) -> ScoreRequest {
    ScoreRequest::from_json_slice(body, limits).expect("the body is a valid request")
}

#[inline(never)]
fn plan(request: &ScoreRequest, config: &RacsConfig) -> RoutePlan {
    let route = &request.routes[0];
    let t0 = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
    plan_route(&route.polyline, request.duration_s(route), t0, config).expect("plannable")
}

#[inline(never)]
fn write(response: &ScoreResponse) -> Vec<u8> {
    serde_json::to_vec(response).expect("serialisable")
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(1000, |a| a.parse().expect("a count"));
    let limits = Limits::default();
    let config = RacsConfig::default();
    let scorer = Scorer::new(
        Arc::new(constant(CleanlinessIndex::new(72.0).expect("in range"))),
        Arc::new(FixedClock::new(
            Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap(),
        )),
        Arc::new(TokioTimer),
        Arc::new(SequentialIds::default()),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let mut bytes = 0;
    for _ in 0..n {
        let tree = parse_tree(black_box(BODY));
        let request = check_tree(&tree, &limits);
        assert_eq!(read_bytes(black_box(BODY), &limits), request);
        bytes += black_box(plan(&request, &config)).queries().len();
        let response = runtime.block_on(scorer.score(&request));
        bytes += write(&response).len();
    }
    println!("{n} requests, {bytes} bytes and samples");
}
