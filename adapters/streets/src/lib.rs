//! Streets from OpenStreetMap, for air at street level and for routes planned on them.
//!
//! - [`tags`]: what a way's tags say (its traffic class, who may walk or ride it, which way).
//! - [`read`]: reading PBF extracts, keeping only the streets and the nodes they pass through.
//! - [`network`]: the [`StreetNetwork`], which answers the near-road model's port
//!   [`aq_core::RoadMap`] with the nearest road of each class;
//! - [`route`]: walks and rides planned on it, `racs-core`'s port
//!   [`racs_core::journey::StreetRouter`] answered with A*.
//!
//! ```no_run
//! use aq_core::{Position, RoadMap};
//!
//! let streets = aq_streets::open(&["helsinki.osm.pbf".into()])?;
//! let roads = streets.nearby(Position::new(24.9384, 60.1699)?, 500.0);
//! println!("{roads:?}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod network;
pub mod read;
pub mod route;
pub mod tags;

use std::path::PathBuf;

pub use network::{Edge, NetworkBuilder, OSM_ATTRIBUTION, StreetNetwork};
pub use read::{ReadStats, StreetsError};

/// The streets of the PBF extracts at `paths`, joined where they share nodes.
///
/// # Errors
/// [`StreetsError`] when a file cannot be read or is not PBF, or when the files hold no street.
pub fn open(paths: &[PathBuf]) -> Result<StreetNetwork, StreetsError> {
    let mut builder = NetworkBuilder::default();
    for path in paths {
        read::read_file(path, &mut builder)?;
    }
    if builder.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(StreetsError::Empty(names.join(", ")));
    }
    Ok(builder.build())
}
