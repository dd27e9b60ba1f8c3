//! How a fused source checks, weighs and relaxes the station corrections. Every default is
//! explained where it is set, and docs/scoring.md gives the method and its sources.

use aq_core::EaqiBands;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The settings of a [`FusedSource`](crate::FusedSource) and of the cross-validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FusionConfig {
    /// A station whose newest reading is older than this many seconds before the hour analysed
    /// is left out as *stale*. Default 10,800 (3 hours), the station sources' own limit:
    /// hourly networks publish an hour or two late, and older air is a poor guide to the air
    /// now.
    pub max_age_s: u64,
    /// Hours of readings read before each hour analysed: what the stale and stuck checks look
    /// back over. Default 12; at least `stuck_hours` and at least `max_age_s` in hours.
    pub history_hours: u32,
    /// A station whose newest value has stood unchanged for this many hours (three readings at
    /// least) is left out as *stuck*. Default 6: hourly means of a real pollutant do not
    /// repeat to the last digit for six hours, while a frozen logger or a flat-lined analyser
    /// does.
    pub stuck_hours: u32,
    /// A reading whose departure from the model (reading minus model) is more than this many
    /// times the error expected of it (`gross_error_floor` plus `gross_error_fraction` of the
    /// model's value) is left out as a *gross error*, unless a neighbour within
    /// `outlier_radius_m` reads within `outlier_ratio` of it. Default 4: operational
    /// first-guess checks reject departures beyond a few times their expected standard
    /// deviation; with the expected error below, a broken analyser reading 1,000 µg/m³ where
    /// the model says 20 departs by sixty-five expected errors, a street at 51 where the model
    /// says 25 by one and a half.
    pub gross_error_factor: f64,
    /// The part of a departure's expected error that does not grow with the air, µg/m³:
    /// instrument noise and the model's error in clean air. Default 5.
    pub gross_error_floor: f64,
    /// The part of a departure's expected error that grows with the model's value, as a
    /// fraction of it. Default 0.5: a regional model's hourly errors at a station are of the
    /// order of its own value (normalised mean errors of 30 to 60 % are usual for PM and NO₂).
    pub gross_error_fraction: f64,
    /// A station whose residual (reading minus model) lies more than this many robust standard
    /// deviations from both the median residual of its neighbours and from zero (the model) is
    /// left out as a *spatial outlier*. Default 6: under normal errors one honest station in
    /// about 500 million; air-quality residuals have heavier tails, so the margin is wide, and a
    /// reading of 1,000 µg/m³ among readings of 10 lies hundreds of deviations away.
    pub outlier_z: f64,
    /// A spatial outlier's reading must also lie more than this many times above (or below)
    /// both its neighbours' median reading and the model. Default 5: a busy street reads two or
    /// three times its background (51 µg/m³ where the model says 25), a broken analyser a
    /// hundred (1,000 among 10s).
    pub outlier_ratio: f64,
    /// The neighbours that judge a spatial outlier stand within this many metres. Default
    /// 50,000.
    pub outlier_radius_m: f64,
    /// A station with fewer neighbours than this within `outlier_radius_m` is never judged an
    /// outlier: without neighbours, a high reading and a local event look alike. Default 2.
    pub outlier_min_neighbours: usize,
    /// The least robust standard deviation, µg/m³, the outlier test divides by, so that a
    /// network of nearly equal residuals does not make every small difference an outlier.
    /// Default 5.
    pub outlier_min_spread: f64,
    /// The correlation length (metres) of the model's errors when the stations are too few to
    /// fit it. Default 25,000: an exponential's practical range (where correlation falls to 5 %)
    /// is three lengths, and 75 km matches the 60 to 80 km ranges fitted for the residuals of
    /// the Czech PM2.5 maps (docs/scoring.md).
    pub correlation_length_m: f64,
    /// The ratio of the observation error variance to the model error variance when the
    /// stations are too few to fit them. Default 0.5: a station at the point weighs two thirds,
    /// the model one third, since a reading stands for a street corner and the model for a cell.
    pub error_ratio: f64,
    /// No station further than this many metres corrects a point, whatever the fitted length:
    /// the correction's support (six correlation lengths) is capped here, and each analysis
    /// reads stations this far around its cell. Default 150,000.
    pub max_radius_m: f64,
    /// The least stations with a reading of a pollutant in an analysis for its correlation
    /// length and error variances to be fitted from the residuals; with fewer, the defaults
    /// above are used. Default 12.
    pub min_fit_stations: usize,
    /// With fewer stations than this, the residuals are spread by inverse-distance weighting
    /// with the decay length `correlation_length_m` instead of optimal interpolation. Default
    /// 3.
    pub min_oi_stations: usize,
    /// A point is corrected from at most this many stations, the nearest: what bounds the work
    /// per point (one Cholesky factorisation of this size). Default 12.
    pub neighbours: usize,
    /// Ahead of the newest hour analysed, the correction falls off as `exp(-hours ahead / τ)`,
    /// and the value returns to the model's; `τ` is fitted per pollutant to how the stations'
    /// residuals persisted over the hours read (see [`crate::persistence`]). This is `τ` when
    /// there are too few pairs of readings to fit it (`relaxation_min_pairs`). Default 24: a
    /// model's bias at a site persists for days, while local events pass within hours.
    pub relaxation_hours: f64,
    /// The shortest fitted `τ`, hours. Default 3: a correction that changes sign from hour to
    /// hour is noise, and it should not last past the next readings.
    pub relaxation_min_hours: f64,
    /// The longest fitted `τ`, hours. Default 120: bias corrections from recent observations
    /// keep improving forecasts up to about five days ahead, and a bias that held for the 12
    /// hours read keeps 83 % of itself 23 hours on.
    pub relaxation_max_hours: f64,
    /// The fewest pairs of residuals one hour apart (over all stations) for `τ` to be fitted.
    /// Default 24: two stations' half days.
    pub relaxation_min_pairs: usize,
    /// Analyses are made per cell of this many degrees of latitude and longitude. Default 1.
    pub cell_deg: f64,
    /// The most stations one analysis reads (those nearest its cell's centre). Default 400.
    pub max_stations: usize,
    /// The most station readings the analyses kept in memory hold together, about 120 bytes
    /// each; the analyses least likely to be asked again go first. Default 500,000 (about
    /// 60 MB).
    pub cache_readings: u64,
    /// An analysis of a recent hour (one whose readings may still arrive) is made again after
    /// this many seconds. Default 600.
    pub refresh_s: u64,
    /// The most analyses one call to the source makes; the points of further cells and hours
    /// keep the model's values (no correction, no error estimate) until a later call has made
    /// theirs, those most points wait on first. Default 32: a heatmap tile of the whole world
    /// spans hundreds of cells, and no one request should make hundreds of analyses.
    pub max_new_analyses: usize,
    /// The bands that turn the fused concentrations into a CI (EAQI 2024 by default).
    pub bands: EaqiBands,
}

impl Default for FusionConfig {
    fn default() -> Self {
        Self {
            max_age_s: 10_800,
            history_hours: 12,
            stuck_hours: 6,
            gross_error_factor: 4.0,
            gross_error_floor: 5.0,
            gross_error_fraction: 0.5,
            outlier_z: 6.0,
            outlier_ratio: 5.0,
            outlier_radius_m: 50_000.0,
            outlier_min_neighbours: 2,
            outlier_min_spread: 5.0,
            correlation_length_m: 25_000.0,
            error_ratio: 0.5,
            max_radius_m: 150_000.0,
            min_fit_stations: 12,
            min_oi_stations: 3,
            neighbours: 12,
            relaxation_hours: 24.0,
            relaxation_min_hours: 3.0,
            relaxation_max_hours: 120.0,
            relaxation_min_pairs: 24,
            cell_deg: 1.0,
            max_stations: 400,
            cache_readings: 500_000,
            refresh_s: 600,
            max_new_analyses: 32,
            bands: EaqiBands::default(),
        }
    }
}

/// A setting out of its range.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("fusion setting `{field}`: {problem}")]
pub struct FusionConfigError {
    /// The setting.
    pub field: &'static str,
    /// What is wrong with it.
    pub problem: String,
}

fn positive(field: &'static str, v: f64) -> Result<(), FusionConfigError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(FusionConfigError {
            field,
            problem: format!("{v} must be a positive number"),
        })
    }
}

fn at_least(field: &'static str, v: usize, least: usize) -> Result<(), FusionConfigError> {
    if v >= least {
        Ok(())
    } else {
        Err(FusionConfigError {
            field,
            problem: format!("{v} must be at least {least}"),
        })
    }
}

impl FusionConfig {
    /// Checks every setting.
    ///
    /// ```
    /// use aq_fusion::FusionConfig;
    ///
    /// assert!(FusionConfig::default().validate().is_ok());
    /// let bad = FusionConfig { neighbours: 0, ..FusionConfig::default() };
    /// assert_eq!(bad.validate().unwrap_err().to_string(),
    ///     "fusion setting `neighbours`: 0 must be at least 1");
    /// ```
    ///
    /// # Errors
    /// [`FusionConfigError`] naming the first setting out of range.
    pub fn validate(&self) -> Result<(), FusionConfigError> {
        positive("gross_error_factor", self.gross_error_factor)?;
        positive("gross_error_floor", self.gross_error_floor)?;
        positive("gross_error_fraction", self.gross_error_fraction)?;
        positive("outlier_z", self.outlier_z)?;
        positive("outlier_radius_m", self.outlier_radius_m)?;
        if !(self.outlier_ratio.is_finite() && self.outlier_ratio > 1.0) {
            return Err(FusionConfigError {
                field: "outlier_ratio",
                problem: format!("{} must be a number above 1", self.outlier_ratio),
            });
        }
        positive("outlier_min_spread", self.outlier_min_spread)?;
        positive("correlation_length_m", self.correlation_length_m)?;
        positive("error_ratio", self.error_ratio)?;
        positive("max_radius_m", self.max_radius_m)?;
        positive("relaxation_hours", self.relaxation_hours)?;
        positive("relaxation_min_hours", self.relaxation_min_hours)?;
        if !(self.relaxation_max_hours.is_finite()
            && self.relaxation_max_hours >= self.relaxation_min_hours)
        {
            return Err(FusionConfigError {
                field: "relaxation_max_hours",
                problem: format!(
                    "{} must be a number of hours at least relaxation_min_hours ({})",
                    self.relaxation_max_hours, self.relaxation_min_hours
                ),
            });
        }
        at_least("relaxation_min_pairs", self.relaxation_min_pairs, 2)?;
        positive("cell_deg", self.cell_deg)?;
        if self.cell_deg > 10.0 {
            return Err(FusionConfigError {
                field: "cell_deg",
                problem: format!("{} must be at most 10 degrees", self.cell_deg),
            });
        }
        if self.max_radius_m > 1_000_000.0 {
            return Err(FusionConfigError {
                field: "max_radius_m",
                problem: format!("{} must be at most 1,000,000 m", self.max_radius_m),
            });
        }
        at_least("neighbours", self.neighbours, 1)?;
        if self.neighbours > 64 {
            return Err(FusionConfigError {
                field: "neighbours",
                problem: format!("{} must be at most 64", self.neighbours),
            });
        }
        at_least("min_oi_stations", self.min_oi_stations, 1)?;
        at_least("min_fit_stations", self.min_fit_stations, 3)?;
        at_least("max_stations", self.max_stations, 1)?;
        at_least("max_new_analyses", self.max_new_analyses, 1)?;
        at_least("stuck_hours", self.stuck_hours as usize, 2)?;
        let max_age_hours = self.max_age_s.div_ceil(3_600);
        at_least(
            "history_hours",
            self.history_hours as usize,
            (self.stuck_hours as usize).max(usize::try_from(max_age_hours).unwrap_or(usize::MAX)),
        )?;
        if self.history_hours > 72 {
            return Err(FusionConfigError {
                field: "history_hours",
                problem: format!("{} must be at most 72", self.history_hours),
            });
        }
        self.bands.validate().map_err(|e| FusionConfigError {
            field: "bands",
            problem: e.to_string(),
        })
    }
}
