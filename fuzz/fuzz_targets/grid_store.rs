//! The grid store's objects as they come back from an object store, where anyone who can write
//! to it may have put anything. Any bytes are refused as a chunk exactly when they break the
//! format, and a chunk read writes back to the very same bytes, each value where the format
//! puts it; any bytes are refused as a manifest or read as one of this format, with a batch id
//! as ingest spells it, known quantities and grids whose nodes can be counted and whose blends
//! name their own nodes, and which writes back to a manifest that reads the same. A chunk made
//! from any shape and values (the header's sides and the bytes after it) is refused exactly
//! when they do not fit, or reads back as made.

#![no_main]

use aq_grid::Lattice;
use aq_grid::Quantity;
use aq_grid::chunk::Chunk;
use aq_grid::manifest::{FORMAT, Manifest};
use libfuzzer_sys::fuzz_target;

/// Bytes before a chunk's values: the magic and three sides.
const HEADER: usize = 16;

fuzz_target!(|data: &[u8]| {
    check_decode(data);
    check_built(data);
    check_manifest(data);
});

/// The header's three sides, read as the format spells them (`u32` little-endian).
fn sides(data: &[u8]) -> Option<[usize; 3]> {
    let side = |at: usize| {
        let b = data.get(at..at + 4)?;
        usize::try_from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()
    };
    Some([side(4)?, side(8)?, side(12)?])
}

fn check_decode(data: &[u8]) {
    let well_formed = data.starts_with(b"AQG1")
        && sides(data).is_some_and(|sides| {
            let values: u128 = sides.iter().map(|&s| s as u128).product();
            sides.iter().all(|&s| s > 0) && values * 4 + HEADER as u128 == data.len() as u128
        });
    let chunk = match Chunk::decode(data) {
        Ok(chunk) => chunk,
        Err(e) => {
            assert!(!well_formed, "a well-formed chunk was refused: {e}");
            return;
        }
    };
    assert!(
        well_formed,
        "{} bytes that break the format were read",
        data.len()
    );
    let (rows, cols, hours) = chunk.shape();
    assert_eq!(sides(data), Some([rows, cols, hours]));
    assert_eq!(
        chunk.encode(),
        data,
        "a chunk read writes back to other bytes"
    );
    assert_eq!(chunk.weight(), data.len() as u64);
    let nodes = rows * cols;
    for (k, stored) in data[HEADER..].chunks_exact(4).enumerate() {
        let bits = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
        assert_eq!(
            chunk.value(k / nodes, k % nodes).to_bits(),
            bits,
            "value {k} of {rows} × {cols} × {hours}"
        );
    }
    assert!(chunk.value(hours, 0).is_nan() && chunk.value(0, nodes).is_nan());
}

/// A chunk made from the header's sides and the values after it, as ingest makes one.
fn check_built(data: &[u8]) {
    let Some([rows, cols, hours]) = sides(data) else {
        return;
    };
    let values: Vec<f32> = data[HEADER..]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let fits = [rows, cols, hours].iter().all(|&s| s > 0)
        && rows as u128 * cols as u128 * hours as u128 == values.len() as u128;
    let built = Chunk::new(rows, cols, hours, &values);
    let direct = Chunk::encode_values(rows, cols, hours, &values);
    let (chunk, direct) = match (built, direct) {
        (Ok(chunk), Ok(direct)) => (chunk, direct),
        (Err(_), Err(_)) => {
            assert!(
                !fits,
                "{rows} × {cols} × {hours} of {} values refused",
                values.len()
            );
            return;
        }
        (built, direct) => panic!("made {built:?}, written directly {direct:?}"),
    };
    assert!(
        fits,
        "{rows} × {cols} × {hours} of {} values made",
        values.len()
    );
    let bytes = chunk.encode();
    assert_eq!(bytes, direct, "two ways of writing one chunk differ");
    let back = Chunk::decode(&bytes).unwrap_or_else(|e| panic!("a chunk made is refused: {e}"));
    assert_eq!(back.encode(), bytes);
    let nodes = rows * cols;
    for (k, v) in values.iter().enumerate() {
        assert_eq!(back.value(k / nodes, k % nodes).to_bits(), v.to_bits());
    }
}

fn check_manifest(data: &[u8]) {
    let manifest = match Manifest::decode(data) {
        Ok(manifest) => manifest,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    assert_eq!(manifest.format, FORMAT);
    // As ingest names batches (16 lower-case hexadecimal digits): the id keys the cache of
    // chunks, so two spellings of one id would share chunks.
    let canonical = manifest.batch.len() == 16
        && manifest
            .batch
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    assert!(canonical, "batch id {:?} read", manifest.batch);
    for layer in &manifest.layers {
        assert!(
            Quantity::from_name(&layer.quantity).is_some(),
            "quantity {:?} read",
            layer.quantity
        );
        let lattice = layer
            .lattice
            .lattice()
            .unwrap_or_else(|e| panic!("a manifest read has a grid refused: {e}"));
        check_lattice(&lattice);
    }
    // Written back as the store writes manifests, it reads the same.
    let text = serde_json::to_vec_pretty(&manifest)
        .unwrap_or_else(|e| panic!("a manifest read cannot be written: {e}"));
    let back = Manifest::decode(&text).unwrap_or_else(|e| {
        panic!(
            "a manifest read, written back, is refused: {e}\n{}",
            String::from_utf8_lossy(&text)
        )
    });
    assert_eq!(back, manifest, "a manifest written back reads otherwise");
}

/// A grid a manifest describes counts its nodes, and the blend of any point on it names nodes
/// of the grid with weights that sum to 1.
fn check_lattice(lattice: &Lattice) {
    let (nlat, nlon) = lattice.shape();
    let len = lattice.len();
    assert_eq!(Some(len), nlat.checked_mul(nlon));
    let (dlat, dlon) = lattice.steps();
    for j in [0, nlat / 2, nlat - 1] {
        for i in [0, nlon / 2, nlon - 1] {
            // On a node, and halfway into the cell after it.
            let (lat, lon) = lattice.node(j, i);
            for (lat, lon) in [(lat, lon), (lat + dlat / 2.0, lon + dlon / 2.0)] {
                let Some(blend) = lattice.blend(lat, lon) else {
                    continue;
                };
                assert!(
                    blend.nodes.iter().all(|&n| n < len),
                    "{blend:?} at {lat}, {lon} on {lattice}"
                );
                assert!(
                    blend
                        .weights
                        .iter()
                        .all(|w| (-1e-9..=1.0 + 1e-9).contains(w)),
                    "{blend:?} at {lat}, {lon} on {lattice}"
                );
                let sum: f64 = blend.weights.iter().sum();
                assert!((sum - 1.0).abs() <= 1e-9, "{blend:?} on {lattice}");
            }
        }
    }
}
