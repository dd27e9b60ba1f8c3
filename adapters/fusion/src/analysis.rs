//! One pollutant's analysis at one hour: the residuals (reading minus model) of the stations
//! that passed quality control, the statistics of the errors, and from them the correction to
//! the model and its error variance at any point.
//!
//! With enough stations the correction is the optimal interpolation (simple kriging with a
//! zero mean) of the residuals: for the `K` nearest stations within the correlation support,
//! weights `w = (σb² P + σo² I)⁻¹ σb² p`, where `P` holds the model errors' correlations between
//! the stations and `p` those between the stations and the point; the correction is `w · r` and
//! its error variance `σb² − σb² p · w`. With fewer stations than
//! [`FusionConfig::min_oi_stations`], the residuals are weighted by `ρ(d)`, the same decaying
//! correlation, and divided by the sum of the weights only where it passes one, so that a
//! lone station corrects its surroundings less with distance. Either way a point beyond
//! every station's support gets no correction and the model's error variance.

use aq_core::StationId;
use chrono::{DateTime, Utc};
use nalgebra::{DMatrix, DVector};
use rstar::RTree;
use rstar::primitives::GeomWithData;
use serde::Serialize;

use crate::config::FusionConfig;
use crate::correlation::{Params, fit};
use crate::persistence::Persistence;
use aq_core::position::{chord_distance_m, chord_to_m, m_to_chord};

/// A station reading that passed quality control, as an analysis holds it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Observed {
    pub(crate) station: StationId,
    pub(crate) unit: [f64; 3],
    /// Reading minus the model at the station and the reading's time, µg/m³.
    pub(crate) residual: f64,
    pub(crate) time: DateTime<Utc>,
}

/// How an analysis spreads its residuals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Optimal interpolation with the error statistics fitted to the hour's residuals.
    Fitted,
    /// Optimal interpolation with the default statistics: too few stations to fit them.
    Defaults,
    /// Inverse-distance weighting with a decay length: too few stations for interpolation.
    Idw,
}

impl Method {
    /// The name reports use: `fitted`, `defaults`, `idw`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Fitted => "fitted",
            Method::Defaults => "defaults",
            Method::Idw => "idw",
        }
    }
}

/// The correction at a point.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Estimate {
    /// Add to the model, µg/m³.
    pub(crate) correction: f64,
    /// The error variance of the corrected value, (µg/m³)².
    pub(crate) variance: f64,
    /// The stations that weighed (indices into the analysis's stations).
    pub(crate) used: Vec<usize>,
}

/// One pollutant's analysis at one hour.
#[derive(Debug)]
pub(crate) struct PollutantAnalysis {
    stations: Vec<Observed>,
    tree: RTree<GeomWithData<[f64; 3], usize>>,
    params: Params,
    method: Method,
    neighbours: usize,
    persistence: Persistence,
}

impl PollutantAnalysis {
    /// The analysis of `stations`; `None` when there are none.
    pub(crate) fn build(stations: Vec<Observed>, config: &FusionConfig) -> Option<Self> {
        if stations.is_empty() {
            return None;
        }
        let residuals: Vec<([f64; 3], f64)> =
            stations.iter().map(|s| (s.unit, s.residual)).collect();
        let (params, method) = match fit(&residuals, config) {
            Some(p) => (p, Method::Fitted),
            None => {
                #[allow(clippy::cast_precision_loss)]
                let mean_square =
                    residuals.iter().map(|r| r.1 * r.1).sum::<f64>() / residuals.len() as f64;
                let method = if stations.len() >= config.min_oi_stations {
                    Method::Defaults
                } else {
                    Method::Idw
                };
                (Params::defaults(mean_square, config), method)
            }
        };
        Some(Self::with_params(stations, params, method, config))
    }

    /// The analysis of `stations` with error statistics already known: what cross-validation
    /// builds without each station in turn.
    pub(crate) fn with_params(
        stations: Vec<Observed>,
        params: Params,
        method: Method,
        config: &FusionConfig,
    ) -> Self {
        let tree = RTree::bulk_load(
            stations
                .iter()
                .enumerate()
                .map(|(i, s)| GeomWithData::new(s.unit, i))
                .collect(),
        );
        Self {
            stations,
            tree,
            params,
            method,
            neighbours: config.neighbours,
            persistence: Persistence {
                hours: config.relaxation_hours,
                fitted: false,
            },
        }
    }

    /// The analysis with `persistence` for its correction ahead of its hour.
    pub(crate) fn with_persistence(self, persistence: Persistence) -> Self {
        Self {
            persistence,
            ..self
        }
    }

    /// How long the correction holds ahead of the hour analysed.
    pub(crate) fn persistence(&self) -> Persistence {
        self.persistence
    }

    pub(crate) fn params(&self) -> &Params {
        &self.params
    }

    pub(crate) fn method(&self) -> Method {
        self.method
    }

    pub(crate) fn stations(&self) -> &[Observed] {
        &self.stations
    }

    /// The correction and its error variance at the unit vector `at`.
    pub(crate) fn estimate(&self, at: [f64; 3]) -> Estimate {
        let p = &self.params;
        let reach2 = m_to_chord(p.reach_m()).powi(2);
        let near: Vec<(usize, f64)> = self
            .tree
            .nearest_neighbor_iter_with_distance_2(at)
            .take_while(|(_, d2)| *d2 < reach2)
            .take(self.neighbours)
            .map(|(g, d2)| (g.data, chord_to_m(d2.sqrt())))
            .filter(|&(_, d)| p.correlation(d) > 0.0)
            .collect();
        if near.is_empty() {
            return Estimate {
                correction: 0.0,
                variance: p.model_variance,
                used: Vec::new(),
            };
        }
        let solved = match self.method {
            Method::Idw => None,
            Method::Fitted | Method::Defaults => self.interpolate(&near),
        };
        solved.unwrap_or_else(|| self.weighted(&near))
    }

    /// Optimal interpolation from `near` (station, metres from the point); `None` if the
    /// system cannot be factorised, which a valid correlation never allows.
    fn interpolate(&self, near: &[(usize, f64)]) -> Option<Estimate> {
        let p = &self.params;
        let k = near.len();
        let system = DMatrix::from_fn(k, k, |i, j| {
            let d = chord_distance_m(self.stations[near[i].0].unit, self.stations[near[j].0].unit);
            let noise = if i == j { p.obs_variance } else { 0.0 };
            p.model_variance * p.correlation(d) + noise
        });
        let towards = DVector::from_fn(k, |i, _| p.model_variance * p.correlation(near[i].1));
        let weights = system.cholesky()?.solve(&towards);
        let residuals = DVector::from_fn(k, |i, _| self.stations[near[i].0].residual);
        Some(Estimate {
            correction: weights.dot(&residuals),
            variance: (p.model_variance - weights.dot(&towards)).max(0.0),
            used: near.iter().map(|&(i, _)| i).collect(),
        })
    }

    /// Inverse-distance weighting with the correlation as the decaying weight.
    fn weighted(&self, near: &[(usize, f64)]) -> Estimate {
        let p = &self.params;
        let weights: Vec<f64> = near.iter().map(|&(_, d)| p.correlation(d)).collect();
        let total: f64 = weights.iter().sum();
        let sum: f64 = near
            .iter()
            .zip(&weights)
            .map(|(&(i, _), w)| w * self.stations[i].residual)
            .sum();
        let share = total.min(1.0);
        Estimate {
            correction: sum / total.max(1.0),
            variance: p.model_variance * (1.0 - share) + p.obs_variance * share,
            used: near.iter().map(|&(i, _)| i).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use aq_core::Position;
    use chrono::TimeZone;
    use proptest::prelude::*;

    use super::*;
    use aq_core::position::unit_vector;

    fn observed(lon: f64, lat: f64, residual: f64) -> Observed {
        Observed {
            station: StationId(format!("{lon},{lat}")),
            unit: unit_vector(Position::new(lon, lat).unwrap()),
            residual,
            time: Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap(),
        }
    }

    fn at(lon: f64, lat: f64) -> [f64; 3] {
        unit_vector(Position::new(lon, lat).unwrap())
    }

    #[test]
    fn one_station_corrects_by_its_weight_and_fades_with_distance() {
        let config = FusionConfig::default();
        let lone = PollutantAnalysis::build(vec![observed(13.4, 52.5, 10.0)], &config).unwrap();
        assert_eq!(lone.method(), Method::Idw);
        let here = lone.estimate(at(13.4, 52.5));
        assert!((here.correction - 10.0).abs() < 1e-9, "{here:?}");
        let near = lone.estimate(at(13.6, 52.5)).correction;
        let far = lone.estimate(at(14.4, 52.5)).correction;
        assert!(0.0 < far && far < near && near < 10.0, "{near} {far}");
        let beyond = lone.estimate(at(16.0, 52.5));
        assert_eq!(beyond.correction, 0.0);
        assert_eq!(beyond.variance, lone.params().model_variance);
        assert!(beyond.used.is_empty());
    }

    #[test]
    fn interpolation_weighs_the_station_at_the_point_by_the_error_ratio() {
        let config = FusionConfig::default();
        let three = vec![
            observed(13.4, 52.5, 6.0),
            observed(16.0, 52.5, 6.0),
            observed(13.4, 54.0, 6.0),
        ];
        let a = PollutantAnalysis::build(three, &config).unwrap();
        assert_eq!(a.method(), Method::Defaults);
        let p = *a.params();
        let here = a.estimate(at(13.4, 52.5));
        // The other two stations are beyond the default support of 150 km: the station alone,
        // weighted σb² / (σb² + σo²) = 2/3.
        assert!((here.correction - 4.0).abs() < 1e-9, "{here:?}");
        let expected = p.model_variance * p.obs_variance / (p.model_variance + p.obs_variance);
        assert!((here.variance - expected).abs() < 1e-9);
    }

    proptest! {
        #[test]
        fn zero_residuals_correct_nothing_and_the_error_never_exceeds_the_models(
            stations in prop::collection::vec((12.0f64..15.0, 51.0f64..54.0), 1..40),
            point in (11.0f64..16.0, 50.0f64..55.0),
            residual in -50.0f64..50.0,
        ) {
            let config = FusionConfig::default();
            let zero: Vec<Observed> =
                stations.iter().map(|&(lon, lat)| observed(lon, lat, 0.0)).collect();
            let a = PollutantAnalysis::build(zero, &config).unwrap();
            let e = a.estimate(at(point.0, point.1));
            prop_assert_eq!(e.correction, 0.0);
            prop_assert!(e.variance <= a.params().model_variance + 1e-9);

            // Whatever the residuals, the error estimate lies between none and the model's.
            let same: Vec<Observed> =
                stations.iter().map(|&(lon, lat)| observed(lon, lat, residual)).collect();
            let a = PollutantAnalysis::build(same, &config).unwrap();
            let e = a.estimate(at(point.0, point.1));
            prop_assert!(e.variance >= 0.0 && e.variance <= a.params().model_variance + 1e-9);
        }

        #[test]
        fn beyond_every_stations_support_the_model_stands(
            stations in prop::collection::vec((12.0f64..15.0, 51.0f64..54.0, -50.0f64..50.0), 1..40),
            lon in -60.0f64..-10.0,
        ) {
            let config = FusionConfig::default();
            let all: Vec<Observed> =
                stations.iter().map(|&(lon, lat, r)| observed(lon, lat, r)).collect();
            let a = PollutantAnalysis::build(all, &config).unwrap();
            let e = a.estimate(at(lon, 52.0));
            prop_assert_eq!(e.correction, 0.0);
            prop_assert_eq!(e.variance, a.params().model_variance);
        }
    }
}
