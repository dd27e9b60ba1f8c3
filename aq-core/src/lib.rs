//! The air-quality and pollen model behind the insights engine.
//!
//! - [`Position`]: validated WGS 84 coordinates and great-circle distances.
//! - [`Pollutant`], [`Concentration`], [`Concentrations`]: what a sensor or model measures.
//! - [`CleanlinessIndex`] (CI): one 0 to 100 scale, 100 cleanest, computed from concentrations
//!   with the 2024 European Air Quality Index bands ([`EaqiBands`]); the scale of route scores and
//!   air-quality alerts. Its [`CiCategory`] bands line up with the Universal AQI.
//! - [`AqiTable`]: the US EPA AQI (2024 and 2012 tables) for display as a local AQI;
//!   [`nowcast`]: EPA's averaging of hourly values (NowCast, 8-hour means) and [`UsAqi`], the
//!   US AQI of an hour with it.
//! - [`AirHour`] ([`air_hour`]): one hour at a place as lookups show it;
//!   [`PollenDay`] ([`pollen_day`]): one civil day's pollen, from the daily mean count, over
//!   the place's civil days ([`civil`]: the days of its time zone).
//! - [`national`]: the UK DAQI, India's NAQI, China's AQI and Canada's AQHI, each with its
//!   publisher's averaging, categories and colours; [`CountryLookup`] ([`country`]): the port
//!   answering the country of a place, which picks a place's national index.
//! - [`PollenType`], [`PollenLevel`], [`GrainThresholds`]: pollen on a 0 to 5 scale;
//!   [`Plant`] ([`plant`]): the plants of each type that the sources count one by one.
//! - The ports [`AirQualitySource`] and [`ForecastSource`], which adapters implement, with
//!   in-memory versions in [`memory`]; [`Provenance`]: the model runs or the newest
//!   measurement behind an answer.
//! - The port [`AirModel`] ([`model`]): a model evaluated at any place and time, such as the
//!   synthetic demo field, which a grid lays on its nodes.
//! - The port [`ObservationSource`] ([`observation`]): station readings as taken, which a
//!   fused source corrects a model with; [`HourlyFusion`] ([`fused`]): how sure a fused source
//!   is of its hours.
//!
//! - [`NearRoadModel`] ([`near_road`]): the traffic increment next to roads, by [`RoadClass`]
//!   and distance, read through the port [`RoadMap`]; [`StreetLevel`] ([`street_level`]): any
//!   source with it added.
//!
//! - [`FieldError`]: a request problem with the JSON path where it is; [`json`]: the JSON
//!   rules both request types share (paths in errors, ids as sent, objects only).
//!
//! The crate does no I/O and reads no clock: times come in as arguments.
//!
//! ```
//! use aq_core::{Concentration, Concentrations, EaqiBands, Pollutant};
//!
//! let air = Concentrations::default()
//!     .with(Pollutant::Pm25, Concentration::new(12.0).unwrap())
//!     .with(Pollutant::O3, Concentration::new(70.0).unwrap());
//! let ci = EaqiBands::default().ci(&air).unwrap();
//! // PM2.5 at 12 µg/m³ (sub-index 34) is worse than O₃ at 70 µg/m³ (25).
//! assert_eq!(ci.rounded(), 66);
//! assert_eq!(ci.category().name(), "Good");
//! ```

pub mod air_hour;
pub mod civil;
pub mod country;
pub mod epa;
pub mod field;
pub mod fused;
pub mod index;
pub mod json;
pub mod memory;
pub mod model;
pub mod national;
pub mod near_road;
pub mod nowcast;
pub mod observation;
pub mod plant;
pub mod pollen;
pub mod pollen_day;
pub mod pollutant;
pub mod position;
pub mod provenance;
pub mod source;
pub mod street_level;
pub mod tile;
pub mod us_aqi;

pub use air_hour::AirHour;
pub use country::{CountryCode, CountryLookup, NoCountries};
pub use epa::{AqiCategory, AqiError, AqiTable, EpaMetric};
pub use field::FieldError;
pub use fused::{FusedHour, HourlyFusion, Uncertainties};
pub use index::{
    BandLimits, BandsError, CiCategory, CiError, CleanlinessIndex, EaqiBands, RequiredPollutants,
    round_half_up_0_100,
};
pub use model::{AirModel, ModelHour};
pub use near_road::{NearRoadModel, NearbyRoads, RoadClass, RoadMap, RoadMapInfo, RoadStretch};
pub use observation::{
    Area, AreaError, ObservationQuery, ObservationSource, Reading, StationId, StationSeries,
};
pub use plant::Plant;
pub use pollen::{
    GrainCountError, GrainLimits, GrainThresholds, PollenLevel, PollenLevelError, PollenLevels,
    PollenType,
};
pub use pollen_day::{
    DailyMeans, DailyPollenMean, PlantDay, PollenCounts, PollenDay, PollenDays, PollenTypeDay,
};
pub use pollutant::{
    Concentration, ConcentrationError, Concentrations, MOLAR_VOLUME_20C, MOLAR_VOLUME_25C,
    Pollutant, ReferenceConditions, STATED_AT,
};
pub use position::{Position, PositionError};
pub use provenance::{ModelRun, Provenance};
pub use source::{
    AirQualitySource, AirSample, Exposure, ForecastSource, HourlyCi, HourlyConcentrations,
    PollenOutlook, SampleQuery, SourceError, SourceInfo, SourceReach, check_batch_len,
};
pub use street_level::StreetLevel;
pub use us_aqi::{AqiMethod, UsAqi};
