//! Reads OpenStreetMap extracts as `insights-server --roads` does and says what they cost: the
//! time to read them, the memory the network holds, and the time of a near-road lookup.
//!
//! ```sh
//! cargo run --release -p aq-streets --example read_extract -- FILE.osm.pbf [FILE...]
//! ```
//!
//! Run it under `/usr/bin/time -v` for the process's peak memory (reading holds the ways'
//! node ids and the wanted nodes' coordinates until the network is built).

use std::path::PathBuf;
use std::time::Instant;

use aq_core::{Position, RoadMap};

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
    Ok(())
}
