//! A fused nowcast: a model's air quality (such as the CAMS grids) corrected by what stations
//! measure, with an estimate of its error at every place and hour.
//!
//! [`FusedSource`] wraps any model behind [`aq_core::AirQualitySource`] and
//! [`aq_core::ForecastSource`] and any station feed behind [`aq_core::ObservationSource`], and
//! is itself both of the model's ports, so that route scores, alerts, tiles and lookups read the
//! fused field unchanged. For each hour, over a cell of [`FusionConfig::cell_deg`] degrees and
//! the stations within [`FusionConfig::max_radius_m`] of it:
//!
//! 1. the stations' readings are checked ([`qc`]): stale, negative, stuck, gross-error (far
//!    from the model, and no neighbour sees the same) and spatial-outlier readings are left
//!    out and counted by [`QcReason`];
//! 2. each remaining station's residual (its newest reading minus the model there and then) is
//!    spread over space by optimal interpolation with an exponential, compactly supported
//!    correlation whose length and error variances are fitted to the hour's residuals
//!    ([`correlation`]), or by distance weighting when the stations are few ([`analysis`]);
//! 3. a point's value is the model's plus the correction from its nearest stations, its error
//!    estimate the interpolation's error variance; beyond every station's support the value is
//!    the model's and the error the model's;
//! 4. ahead of the newest hour, the correction relaxes to the model with an e-folding time
//!    fitted to how the stations' residuals persisted over the hours read ([`persistence`]),
//!    or [`FusionConfig::relaxation_hours`] when they are too few to tell.
//!
//! [`cross_validate`] predicts each station from the others and scores the model and the
//! fused field against the readings. docs/scoring.md gives the method, its parameters and
//! their sources.
//!
//! ```
//! use std::sync::Arc;
//!
//! use aq_core::{AirQualitySource, Pollutant, Position, Reading, SampleQuery, StationId,
//!     StationSeries};
//! use runtime_core::FixedClock;
//! use aq_fusion::{FusedSource, FusionConfig, MemoryStations};
//! use chrono::{TimeZone, Utc};
//! # use aq_core::{AirSample, Concentration, Concentrations, ForecastSource, HourlyCi,
//! #     PollenOutlook, SourceError, SourceInfo};
//! # use chrono::DateTime;
//! # /// 20 µg/m³ of PM2.5 everywhere, always.
//! # struct Flat;
//! # #[async_trait::async_trait]
//! # impl AirQualitySource for Flat {
//! #     fn info(&self) -> SourceInfo { SourceInfo::real("flat") }
//! #     async fn sample(&self, q: &[SampleQuery]) -> Result<Vec<Option<AirSample>>, SourceError> {
//! #         let c = Concentrations::default().with(Pollutant::Pm25, Concentration::new(20.0).unwrap());
//! #         Ok(q.iter().map(|_| Some(AirSample {
//! #             ci: aq_core::EaqiBands::default().ci(&c).unwrap(), concentrations: Some(c) })).collect())
//! #     }
//! # }
//! # #[async_trait::async_trait]
//! # impl ForecastSource for Flat {
//! #     fn info(&self) -> SourceInfo { SourceInfo::real("flat") }
//! #     async fn hourly_ci(&self, p: &[Position], _: DateTime<Utc>, _: u32)
//! #         -> Result<Vec<Option<HourlyCi>>, SourceError> { Ok(vec![None; p.len()]) }
//! #     async fn daily_pollen(&self, p: &[Position], _: DateTime<Utc>, _: u32)
//! #         -> Result<Vec<Option<PollenOutlook>>, SourceError> { Ok(vec![None; p.len()]) }
//! # }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let now = Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap();
//! // One station in Berlin reads 32 µg/m³ where the model (`Flat`) says 20.
//! let berlin = Position::new(13.40, 52.52).unwrap();
//! let stations = MemoryStations::new("berlin", vec![StationSeries {
//!     station: StationId("DEBE010".into()),
//!     position: berlin,
//!     pollutant: Pollutant::Pm25,
//!     readings: vec![Reading { time: now, value: 32.0 }],
//! }]);
//! let model = Arc::new(Flat);
//! let fused = FusedSource::new(model.clone(), model, Arc::new(stations),
//!     Arc::new(FixedClock::new(now)), FusionConfig::default()).unwrap();
//! let fused = &fused;
//! let pm25 = move |lon: f64| async move {
//!     let q = SampleQuery { position: Position::new(lon, 52.52).unwrap(), time: now };
//!     let answer = fused.sample(&[q]).await.unwrap()[0].unwrap();
//!     answer.concentrations.unwrap().get(Pollutant::Pm25).unwrap().ug_m3()
//! };
//! // At the station, its reading; 10 km east, part of the correction; 300 km east, the model.
//! assert!((pm25(13.40).await - 32.0).abs() < 1e-9);
//! let near = pm25(13.55).await;
//! assert!(20.0 < near && near < 32.0, "{near}");
//! assert_eq!(pm25(17.80).await, 20.0);
//! # });
//! ```

pub mod analysis;
mod cell;
mod config;
pub mod correlation;
mod hour;
mod memory;
pub mod persistence;
pub mod qc;
mod source;
mod validate;

pub use analysis::Method;
pub use config::{FusionConfig, FusionConfigError};
pub use correlation::Params;
pub use memory::MemoryStations;
pub use qc::{Exclusions, QcReason};
pub use source::{ExclusionSink, FusedSource};
pub use validate::{
    LeadScores, MethodCounts, PollutantScores, Scores, VALIDATION_LEADS, ValidationReport,
    cross_validate,
};
