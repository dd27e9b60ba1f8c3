//! Reads OpenStreetMap extracts as `insights-server --roads` does and says what they cost: the
//! time to read them, the memory the network holds, the time of a near-road lookup, and the
//! time to plan a walk (the fastest and the less exposed ones, on a flat background with the
//! near-road increment) beside a plain shortest-path search on the same graph, the floor.
//!
//! ```sh
//! cargo run --release -p aq-streets --example read_extract -- FILE.osm.pbf [FILE...]
//! ```
//!
//! Run it under `/usr/bin/time -v` for the process's peak memory (reading holds the ways'
//! node ids and the wanted nodes' coordinates until the network is built).

use std::path::PathBuf;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use aq_core::memory::UniformAir;
use aq_core::street_level::StreetLevel;
use aq_core::{
    AirQualitySource, Concentration, Concentrations, NearRoadModel, Pollutant, Position, RoadMap,
};
use racs_core::TravelMode;
use racs_core::journey::{StreetRouter, candidate_paths};

/// Runs a future whose every step is ready at once (the in-memory sources' are).
fn now<F: std::future::Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}

/// The 50th and 99th percentiles of `times`, in milliseconds.
fn percentiles(times: &mut [Duration]) -> (f64, f64) {
    times.sort_unstable();
    let at = |q: f64| {
        let i = ((times.len() as f64 - 1.0) * q).round() as usize;
        times.get(i).map_or(f64::NAN, |t| t.as_secs_f64() * 1e3)
    };
    (at(0.5), at(0.99))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let paths: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        eprintln!("usage: read_extract FILE.osm.pbf [FILE...]");
        std::process::exit(2);
    }
    let started = Instant::now();
    let network = aq_streets::open(&paths)?;
    let read = started.elapsed();
    println!(
        "read {} extract(s) in {:.2} s: {} nodes, {} segments, {:.1} MiB held ({:.0} bytes a segment)",
        paths.len(),
        read.as_secs_f64(),
        network.node_count(),
        network.edges().len(),
        network.heap_bytes() as f64 / (1024.0 * 1024.0),
        network.heap_bytes() as f64 / network.edges().len() as f64,
    );

    // Near-road lookups at the network's own nodes, shifted by a few tens of metres so that
    // they fall between streets, as a route's samples do.
    let lookups = 100_000usize;
    let step = (network.node_count() / lookups).max(1);
    let places: Vec<Position> = (0..network.node_count())
        .step_by(step)
        .take(lookups)
        .filter_map(|n| {
            let [lon, lat] = network.position(u32::try_from(n).ok()?);
            Position::new(lon + 0.0003, lat + 0.0002).ok()
        })
        .collect();
    let started = Instant::now();
    let mut near = 0usize;
    for &p in &places {
        near += usize::from(!network.nearby(p, 300.0).is_empty());
    }
    let took = started.elapsed();
    println!(
        "{} near-road lookups in {:.3} s: {:.2} µs each ({near} with a road within 300 m)",
        places.len(),
        took.as_secs_f64(),
        took.as_secs_f64() * 1e6 / places.len().max(1) as f64,
    );

    // The streets a dashboard map draws round its view: the roads with traffic within 1.6 km
    // (a desk screen at zoom 15) and within the widest circle the dashboard asks for, 5 km,
    // round the network's middle node.
    let [lon, lat] = network.position(u32::try_from(network.node_count() / 2)?);
    let middle = Position::new(lon, lat)?;
    for radius in [1_600.0, 5_000.0] {
        let started = Instant::now();
        let found = network.stretches_near(middle, radius, 20_000);
        println!(
            "streets within {radius} m of the middle: {} in {:.2} ms",
            found.map_or_else(|| "more than 20,000".to_owned(), |s| s.len().to_string()),
            started.elapsed().as_secs_f64() * 1e3,
        );
    }

    // Trips from a spread of the network's nodes to a place 0.5 to 2 km away in a turning
    // direction: the walks people plan.
    let trips = 200usize.min(places.len());
    let network = Arc::new(network);
    let air = Concentrations::default()
        .with(Pollutant::No2, Concentration::new(15.0)?)
        .with(Pollutant::Pm25, Concentration::new(5.0)?);
    let flat: Arc<dyn AirQualitySource> = Arc::new(UniformAir::new(air));
    let street = StreetLevel::new(flat, network.clone(), NearRoadModel::default());
    let (mut floor, mut planned, mut routes) = (Vec::new(), Vec::new(), 0usize);
    for k in 0..trips {
        let from = places[k * places.len() / trips];
        let (angle, metres) = (k as f64 * 2.4, 500.0 + (k * 397 % 1500) as f64);
        let Ok(to) = Position::new(
            from.lon() + metres * angle.cos() / (111_195.0 * from.lat().to_radians().cos()),
            from.lat() + metres * angle.sin() / 111_195.0,
        ) else {
            continue;
        };
        let (Some(a), Some(b)) = (
            network.snap(from, TravelMode::Walk, 500.0),
            network.snap(to, TravelMode::Walk, 500.0),
        ) else {
            continue;
        };
        let started = Instant::now();
        let fastest = network.path(a.node, b.node, TravelMode::Walk, None, 0.0);
        floor.push(started.elapsed());
        if fastest.is_none() {
            continue;
        }
        let started = Instant::now();
        let paths = now(candidate_paths(
            network.as_ref(),
            &street,
            from,
            to,
            TravelMode::Walk,
            chrono::DateTime::UNIX_EPOCH,
        ));
        planned.push(started.elapsed());
        routes += paths.map_or(0, |p| p.len());
    }
    let (floor50, floor99) = percentiles(&mut floor);
    let (plan50, plan99) = percentiles(&mut planned);
    println!(
        "{} walks of 0.5 to 2 km: planned (with {:.1} routes each) p50 {plan50:.2} ms, p99 \
         {plan99:.2} ms; one shortest-path search p50 {floor50:.2} ms, p99 {floor99:.2} ms",
        planned.len(),
        routes as f64 / planned.len().max(1) as f64,
    );
    Ok(())
}
