//! Reading OpenStreetMap's PBF files: ways first, then only the nodes they need.
//!
//! A PBF file stores its nodes before its ways, and a country has hundreds of millions of nodes
//! that are not on any street: so the file is read twice, once for the streets' ways and the
//! ids of their nodes, once for those nodes' coordinates, and nothing else is kept.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

use osmpbf::{Element, ElementReader};
use thiserror::Error;

use crate::network::NetworkBuilder;
use crate::tags::{WayKind, way_kind};

/// The most nodes an OpenStreetMap way may have (the API's limit): longer ways are left out.
pub const MAX_WAY_NODES: usize = 2_000;

/// Why an extract could not be read.
#[derive(Debug, Error)]
pub enum StreetsError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What failed.
        source: std::io::Error,
    },
    /// The file is not a valid OpenStreetMap PBF file.
    #[error("{path} is not a valid OpenStreetMap PBF file: {reason}")]
    Format {
        /// The file.
        path: String,
        /// What the reader found wrong.
        reason: String,
    },
    /// The extracts hold more nodes or segments than one network can index.
    #[error(
        "{0} hold more street nodes (4,294,967,295) or segments (2,147,483,647) than one network can index"
    )]
    TooLarge(String),
    /// The extracts hold no street, path or road.
    #[error("{0} holds no street, path or road (is it an OpenStreetMap extract with ways?)")]
    Empty(String),
}

/// What one extract added.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Ways kept.
    pub ways: usize,
    /// Nodes of those ways found in the file.
    pub nodes: usize,
    /// Nodes of those ways that the file lacks (an extract cut at its edge): the segments that
    /// touch them are left out.
    pub missing_nodes: usize,
}

/// Adds the streets of the PBF file at `path` to `network`.
///
/// # Errors
/// [`StreetsError`] when the file cannot be read or is not PBF.
pub fn read_file(path: &Path, network: &mut NetworkBuilder) -> Result<ReadStats, StreetsError> {
    let name = path.display().to_string();
    let open = || {
        std::fs::File::open(path)
            .map(std::io::BufReader::new)
            .map_err(|source| StreetsError::Io {
                path: name.clone(),
                source,
            })
    };
    read(&name, open, network)
}

/// Adds the streets of a PBF file held in memory to `network` (what the fuzz target feeds).
///
/// # Errors
/// [`StreetsError::Format`] when the bytes are not PBF.
pub fn read_bytes(
    name: &str,
    bytes: &[u8],
    network: &mut NetworkBuilder,
) -> Result<ReadStats, StreetsError> {
    read(name, || Ok(bytes), network)
}

/// The two passes over a file that `open` opens (once for each), a panic of the PBF decoder
/// turned into a [`StreetsError::Format`].
///
/// The decoder multiplies a node's stored coordinate by its block's granularity without a check,
/// so a file with a large granularity overflows it: a panic where overflow checks are on (debug
/// builds, tests), wrapped nonsense where they are off, which the range check below refuses.
/// Found by the `osm_pbf` fuzz target; a bad `--roads` file must stop the start with a message,
/// never a panic.
fn read<R: Read + Send>(
    name: &str,
    open: impl Fn() -> Result<R, StreetsError>,
    network: &mut NetworkBuilder,
) -> Result<ReadStats, StreetsError> {
    let attempt = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut part = NetworkBuilder::default();
        two_passes(name, &open, &mut part).map(|stats| (stats, part))
    }));
    match attempt {
        Ok(Ok((stats, part))) => {
            network
                .merge(part)
                .map_err(|_| StreetsError::TooLarge(name.to_owned()))?;
            Ok(stats)
        }
        Ok(Err(e)) => Err(e),
        Err(_) => Err(StreetsError::Format {
            path: name.to_owned(),
            reason: "its blocks cannot be decoded (coordinates out of range, or another \
                     malformed block)"
                .to_owned(),
        }),
    }
}

fn two_passes<R: Read + Send>(
    name: &str,
    open: &impl Fn() -> Result<R, StreetsError>,
    network: &mut NetworkBuilder,
) -> Result<ReadStats, StreetsError> {
    let format = |e: osmpbf::Error| StreetsError::Format {
        path: name.to_owned(),
        reason: e.to_string(),
    };
    let mut ways: Vec<(WayKind, Vec<i64>)> = Vec::new();
    ElementReader::new(open()?)
        .for_each(|element| {
            if let Element::Way(way) = element {
                let tags: Vec<(&str, &str)> = way.tags().collect();
                let kind = way_kind(|k| tags.iter().find(|(key, _)| *key == k).map(|(_, v)| *v));
                if let Some(kind) = kind.filter(WayKind::kept) {
                    // OpenStreetMap allows no way of more nodes; a block that packs millions
                    // of zero deltas into a few kilobytes is not a street.
                    let mut refs: Vec<i64> = way.refs().take(MAX_WAY_NODES + 1).collect();
                    if refs.len() <= MAX_WAY_NODES {
                        refs.dedup();
                        ways.push((kind, refs));
                    }
                }
            }
        })
        .map_err(format)?;
    let wanted: HashSet<i64> = ways
        .iter()
        .flat_map(|(_, refs)| refs.iter().copied())
        .collect();
    let mut coordinates: HashMap<i64, (f64, f64)> = HashMap::with_capacity(wanted.len());
    let mut keep = |id: i64, lon: f64, lat: f64| {
        let valid = (-180.0..=180.0).contains(&lon) && (-90.0..=90.0).contains(&lat);
        if valid && wanted.contains(&id) {
            coordinates.insert(id, (lon, lat));
        }
    };
    ElementReader::new(open()?)
        .for_each(|element| match element {
            Element::Node(n) => keep(n.id(), n.lon(), n.lat()),
            Element::DenseNode(n) => keep(n.id(), n.lon(), n.lat()),
            Element::Way(_) | Element::Relation(_) => {}
        })
        .map_err(format)?;
    let stats = ReadStats {
        ways: ways.len(),
        nodes: coordinates.len(),
        missing_nodes: wanted.len() - coordinates.len(),
    };
    drop(wanted);
    let mut run: Vec<(i64, f64, f64)> = Vec::new();
    for (kind, refs) in &ways {
        // A node the file lacks splits the way: the parts on either side are kept.
        for id in refs {
            match coordinates.get(id) {
                Some(&(lon, lat)) => run.push((*id, lon, lat)),
                None => {
                    network.add_way(*kind, &run);
                    run.clear();
                }
            }
        }
        network.add_way(*kind, &run);
        run.clear();
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `osm_pbf` fuzz target: dense nodes whose stored coordinates, scaled by the
    /// block's granularity, overflow the decoder's arithmetic.
    #[test]
    fn coordinates_that_overflow_the_decoder_are_a_format_error_not_a_panic() {
        let bytes = include_bytes!("../../../fuzz/corpus/osm_pbf/coordinate-overflow.osm.pbf");
        let mut network = NetworkBuilder::default();
        let err = read_bytes("overflow.osm.pbf", bytes, &mut network).unwrap_err();
        assert!(
            matches!(&err, StreetsError::Format { path, .. } if path == "overflow.osm.pbf"),
            "{err}"
        );
        assert!(network.is_empty(), "a refused file leaves nothing behind");
    }

    #[test]
    fn bytes_that_are_not_pbf_are_a_format_error() {
        let mut network = NetworkBuilder::default();
        let err = read_bytes("x.osm.pbf", b"<osm version=\"0.6\"/>", &mut network).unwrap_err();
        assert!(
            err.to_string()
                .contains("x.osm.pbf is not a valid OpenStreetMap PBF file")
        );
    }
}
