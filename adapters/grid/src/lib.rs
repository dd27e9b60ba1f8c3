//! Air quality from hourly fields on regular latitude/longitude grids: the CAMS global and
//! European forecasts, ingested once from GRIB2 into chunks in an object store that every
//! replica reads, and answered with no remote API in the request path.
//!
//! - [`Lattice`]: a regular grid's geometry and the bilinear blend of the four nodes around a
//!   point (a grid round the globe wraps at its last column);
//! - [`chunk`]: a block of nodes of one quantity over a block of hours, its encoding (`f32`
//!   little-endian) and its worst-case error ([`chunk::MAX_RELATIVE_ERROR`]);
//! - [`manifest`]: what one ingest of one file adds per product and run (a batch), and where
//!   its chunks and manifest lie in the store;
//! - [`GridStore`]: the batches in an object store (a local directory, S3, or memory), the
//!   catalog of their manifests (per product, valid hour and quantity the newest run wins),
//!   a bounded cache of hot chunks, and the purge of runs past retention;
//! - [`GridSource`]: the [`aq_core::AirQualitySource`] and [`aq_core::ForecastSource`] over a
//!   store: bilinear in space, linear in time between the whole hours around the instant, the
//!   European grid where it covers the point and has the quantity, the global grid elsewhere,
//!   `None` (not covered) outside every grid or its hours, and the daily pollen of a point's
//!   civil days from the hourly counts of the grids that carry them;
//! - [`ingest`]: CAMS GRIB2 files into a store, streamed one hour block of one quantity at a
//!   time;
//! - [`DirectoryFeed`]: a directory an operator's job fills, followed by a server;
//! - [`GridStore::from_model`] with a [`ModelGrid`]: an [`aq_core::AirModel`] (the demo
//!   field) laid on a grid's nodes, computed per block on first use and cached, so that it is
//!   sampled through the same chunks as the CAMS grids.

mod cache;
mod catalog;
pub mod chunk;
mod error;
mod feed;
mod field;
mod grouping;
pub mod ingest;
mod lattice;
pub mod manifest;
mod model;
mod quantity;
mod sampling;
mod source;
mod store;
mod tiling;
mod writer;

pub use cache::DEFAULT_CACHE_BYTES;
pub use error::StoreError;
pub use feed::{DirectoryFeed, FeedError, PollSummary};
pub use field::{Field, Layer, LayerSizeError, Product};
pub use ingest::params::{EuropeModel, SkipReason};
pub use ingest::{IngestError, IngestReport, Refusal, ingest_file, list_files};
pub use lattice::{Blend, Lattice, LatticeError};
pub use model::{MODEL_CHUNK_HOURS, MODEL_CHUNK_NODES, ModelGrid, WHOLE_BLOCK_FACTOR};
pub use quantity::{N_QUANTITIES, Quantity};
pub use source::{CAMS_ATTRIBUTION, GridSource, POLLEN_FORECAST_DAYS, POLLEN_FORECAST_REASON};
pub use store::{
    CommitSummary, DEFAULT_CHUNK_HOURS, DEFAULT_CHUNK_NODES, GridStore, ORPHAN_GRACE, StoreConfig,
};
