//! OpenStreetMap PBF extracts, as an operator's `--roads` file may hold anything. Any bytes are
//! either refused with an error naming the file, or read into a street network whose segments
//! join nodes it has, with finite lengths that are the distances between their ends, and whose
//! nearest roads lie within the distance asked.
//!
//! The PBF decoder (`osmpbf`) overflows on coordinates scaled past `i64`, and the reader turns
//! that panic into a format error (`read.rs` says why). libFuzzer's panic hook aborts on every
//! panic before it can unwind, so the target lets the decoder's own panics unwind and keeps
//! aborting on any other: a panic in this project's code is still a finding.

#![no_main]

use aq_core::position::unit_vector_deg;
use aq_core::{Position, RoadClass, RoadMap};
use aq_streets::{NetworkBuilder, StreetsError, read::read_bytes};
use libfuzzer_sys::fuzz_target;

static HOOK: std::sync::Once = std::sync::Once::new();

fuzz_target!(|data: &[u8]| {
    HOOK.call_once(|| {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_decoder = info.location().is_some_and(|l| l.file().contains("/osmpbf-"));
            if !in_decoder {
                abort(info);
            }
        }));
    });
    let mut builder = NetworkBuilder::default();
    match read_bytes("fuzz.osm.pbf", data, &mut builder) {
        Err(StreetsError::Format { path, .. }) => assert_eq!(path, "fuzz.osm.pbf"),
        Err(e) => panic!("bytes in memory fail only as a format error: {e}"),
        Ok(stats) => {
            assert!(stats.nodes <= data.len(), "more nodes than bytes");
            let network = builder.build();
            let nodes = network.node_count();
            for e in network.edges() {
                assert!((e.from as usize) < nodes && (e.to as usize) < nodes);
                let [a, b] = [network.position(e.from), network.position(e.to)];
                let ends = aq_core::position::chord_distance_m(
                    unit_vector_deg(a[0], a[1]),
                    unit_vector_deg(b[0], b[1]),
                );
                assert!(e.length_m.is_finite() && (e.length_m - ends).abs() < 1e-6);
            }
            if let Some(first) = network.edges().first() {
                let [lon, lat] = network.position(first.from);
                let here = Position::new(lon, lat).expect("the reader keeps valid coordinates");
                let roads = network.nearby(here, 300.0);
                for class in RoadClass::ALL {
                    if let Some(d) = roads.get(class) {
                        assert!((0.0..=300.0).contains(&d), "{class:?} at {d} m");
                    }
                }
                if let Some(class) = first.kind.class {
                    assert!(roads.get(class).is_some_and(|d| d < 1e-3), "a node is on its road");
                }
            }
        }
    }
});
