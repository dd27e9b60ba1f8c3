//! Air-quality sources: the adapters behind [`aq_core::AirQualitySource`] and
//! [`aq_core::ForecastSource`].
//!
//! | source | what it is | covers |
//! |---|---|---|
//! | [`DemoField`] | synthetic, global, deterministic from a seed; labelled demo data | everywhere, any time |
//! | [`StationFile`] | stations and readings from CSV or GeoJSON, inverse-distance weighted | within a radius of a station with a fresh reading |
//! | [`OpenMeteo`] | the Open-Meteo air-quality API (CAMS model, hourly, with pollen in Europe) | the model's grid and forecast window |
//! | [`OpenAq`] | the latest measurements of OpenAQ v3 stations near a point | within a radius of a station with a fresh reading |
//!
//! Every source answers a batch in one call, one answer per query in order, `None` where it has
//! no value; the `conformance` module (behind the `conformance` feature) checks exactly that and is run on
//! all four here.
//!
//! ```
//! use aq_core::{AirQualitySource, Position, SampleQuery};
//! use aq_sources::DemoField;
//! use chrono::{TimeZone, Utc};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let field = DemoField::new(7);
//! let query = SampleQuery {
//!     position: Position::new(13.405, 52.52).unwrap(),
//!     time: Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap(),
//! };
//! let answers = field.sample(&[query]).await.unwrap();
//! let sample = answers[0].unwrap();
//! assert!((0.0..=100.0).contains(&sample.ci.value()));
//! assert!(field.info().demo);
//! # });
//! ```

mod cache;
#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
pub mod demo;
mod grid;
mod http;
pub mod idw;
pub mod open_meteo;
pub mod openaq;
pub mod stations;
#[cfg(test)]
mod test_server;
mod values;

pub use demo::DemoField;
pub use http::ConfigError;
pub use idw::{IdwConfig, IdwConfigError};
pub use open_meteo::{OpenMeteo, OpenMeteoConfig};
pub use openaq::{OpenAq, OpenAqConfig};
pub use stations::{
    PollenCounts, StationFile, StationFileConfig, StationFileError, StationReading,
};
