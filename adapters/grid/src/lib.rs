//! Air quality from hourly fields on regular latitude/longitude grids: the CAMS global and
//! European forecasts, ingested from GRIB2 and answered with no remote API in the request path.
//!
//! - [`Lattice`]: a regular grid's geometry and the bilinear blend of the four nodes around a
//!   point (a grid round the globe wraps at its last column);
//! - [`GridStore`]: the fields held, per product, valid hour and quantity, the newest run
//!   winning; a commit is all-or-nothing;
//! - [`GridSource`]: the [`aq_core::AirQualitySource`] and [`aq_core::ForecastSource`] over a
//!   store: bilinear in space, linear in time between the whole hours around the instant, the
//!   European grid where it covers the point and has the quantity, the global grid elsewhere,
//!   `None` (not covered) outside every grid or its hours;
//! - [`ingest`]: CAMS GRIB2 files into a store, message by message;
//! - [`DirectoryFeed`]: a directory an operator's job fills, followed by a server, and
//!   [`publish`], which checks a file and places it there.

mod feed;
pub mod ingest;
mod lattice;
mod quantity;
mod source;
mod store;

pub use feed::{DirectoryFeed, PollSummary, publish};
pub use ingest::{IngestError, IngestReport, ingest_file, list_files, read_file};
pub use lattice::{Blend, Lattice, LatticeError};
pub use quantity::{N_QUANTITIES, Quantity};
pub use source::{CAMS_ATTRIBUTION, GridSource};
pub use store::{CommitSummary, Field, GridStore, Layer, LayerSizeError, Product};
