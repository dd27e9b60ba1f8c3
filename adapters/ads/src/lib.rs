//! A client of ECMWF's Data Stores API, as the Atmosphere Data Store (ADS) serves it, for the
//! two CAMS forecasts the grids read.
//!
//! The API follows OGC API Processes: a request is posted as the `inputs` of a process's
//! execution (`{url}/retrieve/v1/processes/{dataset}/execution`), which answers a job; the
//! job's `monitor` link is polled until its status is `successful` (or `failed`, `rejected`,
//! `dismissed`, `deleted`: an error with the API's message); the job's results then name one
//! asset whose `href` is downloaded and checked against its `file:size`. Every request carries
//! the key in the `PRIVATE-TOKEN` header. [`AdsClient::retrieve`] does all of that, backing off
//! on 429 and 5xx answers (honouring `Retry-After`) and resuming a download cut short from the
//! bytes it already has when the server takes a `Range`.
//!
//! [`GlobalRequest`] and [`EuropeRequest`] build the two datasets' requests with the names the
//! ADS download forms use.

mod client;
mod request;

pub use client::{AdsClient, AdsError, Retrieval, Retry};
pub use request::{
    Area, EUROPE_DATASET, EUROPE_MODELS, EUROPE_VARIABLES, EuropeRequest, GLOBAL_DATASET,
    GLOBAL_VARIABLES, GlobalRequest,
};

/// The public ADS API, the default root of [`AdsClient`].
pub const PUBLIC_ADS_URL: &str = "https://ads.atmosphere.copernicus.eu/api";
