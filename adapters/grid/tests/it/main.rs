//! The grid adapter against the outside reference: GRIB2 files written by ecCodes, laid out
//! like the CAMS global and European products, and the values ecCodes decodes from them.
#![allow(clippy::unwrap_used)]

mod conformance;
mod model;
mod nodes;
mod pollen;
mod products;
mod reference;
mod refusals;
