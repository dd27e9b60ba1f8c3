//! Leave-one-out cross-validation: each station that passed quality control is predicted,
//! hour by hour, from the model and the other stations alone, and both the model's value and
//! the fused one are scored against its reading.
//!
//! The error statistics of an hour are fitted once from all its stations: a held-out station
//! takes part in `n − 1` of the `n (n − 1) / 2` pairs the fit reads, a small optimism, where
//! refitting for every station would cost `n³`. The correction itself never reads the
//! held-out station.

use std::collections::HashMap;
use std::fmt;

use aq_core::{AirQualitySource, Area, ObservationSource, Pollutant, SourceError, StationId};
use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::analysis::{Method, Observed, PollutantAnalysis};
use crate::config::FusionConfig;
use crate::hour::{Checked, checked_readings, per_pollutant};
use crate::qc::QcReason;

/// Running sums for the scores of one predictor against the readings.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    n: u64,
    error: f64,
    error2: f64,
    x: f64,
    y: f64,
    x2: f64,
    y2: f64,
    xy: f64,
}

impl Sums {
    fn add(&mut self, predicted: f64, observed: f64) {
        let e = predicted - observed;
        self.n += 1;
        self.error += e;
        self.error2 += e * e;
        self.x += predicted;
        self.y += observed;
        self.x2 += predicted * predicted;
        self.y2 += observed * observed;
        self.xy += predicted * observed;
    }

    #[allow(clippy::cast_precision_loss)]
    fn scores(&self) -> Scores {
        if self.n == 0 {
            return Scores::default();
        }
        let n = self.n as f64;
        let cov = self.xy / n - self.x / n * self.y / n;
        let var_x = self.x2 / n - (self.x / n).powi(2);
        let var_y = self.y2 / n - (self.y / n).powi(2);
        let correlation = if var_x > 0.0 && var_y > 0.0 {
            Some(cov / (var_x * var_y).sqrt())
        } else {
            None
        };
        Scores {
            rmse: (self.error2 / n).sqrt(),
            bias: self.error / n,
            correlation,
        }
    }
}

/// How well one predictor matched the readings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Scores {
    /// Root mean square error, µg/m³.
    pub rmse: f64,
    /// Mean error (predicted minus read), µg/m³.
    pub bias: f64,
    /// Pearson's correlation of predicted and read; `None` when either is constant.
    pub correlation: Option<f64>,
}

/// The cross-validation of one pollutant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PollutantScores {
    /// The pollutant.
    pub pollutant: Pollutant,
    /// The readings predicted (station-hours).
    pub readings: u64,
    /// The model alone.
    pub model: Scores,
    /// The fused value from the other stations.
    pub fused: Scores,
    /// The mean error estimate (standard deviation) the fusion gave the predictions, against
    /// a reading: its error variance plus the stations' error variance, µg/m³.
    pub mean_uncertainty: f64,
    /// The share of predictions within 1.96 error estimates of the reading: 0.95 for an
    /// honest error estimate of normal errors.
    pub within_95: f64,
    /// How many of the hours' analyses fitted their statistics, used the defaults, or
    /// weighted by distance.
    pub methods: MethodCounts,
    /// The median correlation length of the hours' analyses, metres.
    pub median_length_m: f64,
}

/// How many analyses used each method.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct MethodCounts {
    /// Optimal interpolation with fitted statistics.
    pub fitted: u32,
    /// Optimal interpolation with the default statistics.
    pub defaults: u32,
    /// Inverse-distance weighting.
    pub idw: u32,
}

/// The hours ahead at which the cross-validation also scores forecasts.
pub const VALIDATION_LEADS: [u32; 3] = [1, 6, 24];

/// How a held-out station's correction, carried ahead from the hour analysed, scored against
/// its reading `lead_hours` later.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeadScores {
    /// Hours after the hour analysed.
    pub lead_hours: u32,
    /// The pollutant.
    pub pollutant: Pollutant,
    /// The readings predicted (station-hours with a reading `lead_hours` later).
    pub readings: u64,
    /// The model alone at the later hour.
    pub model: Scores,
    /// The model plus the correction relaxed with the fitted persistence: what lookups, tiles
    /// and route scores read.
    pub fused: Scores,
    /// The model plus the correction kept whole: what alert rules read changes from.
    pub held: Scores,
}

/// What the cross-validation found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValidationReport {
    /// The hours validated.
    pub hours: usize,
    /// The pollutants some station read, in [`Pollutant::ALL`] order.
    pub pollutants: Vec<PollutantScores>,
    /// The forecast hours ahead ([`VALIDATION_LEADS`]) that some station read, by lead and
    /// then in [`Pollutant::ALL`] order.
    pub ahead: Vec<LeadScores>,
    /// Readings left out by quality control, by reason, over all hours.
    pub excluded: Vec<(QcReason, u64)>,
}

/// One pollutant's sums over the hours.
#[derive(Debug, Default)]
struct Tally {
    model: Sums,
    fused: Sums,
    sd_sum: f64,
    within: u64,
    methods: MethodCounts,
    lengths: Vec<f64>,
}

/// One pollutant's sums at one lead.
#[derive(Debug, Default, Clone, Copy)]
struct LeadTally {
    model: Sums,
    fused: Sums,
    held: Sums,
}

/// Cross-validates the fusion of `model` with `stations` over `area` at each of `hours`: the
/// hour itself, and each held-out station's correction carried [`VALIDATION_LEADS`] hours
/// ahead against its reading then (the persistence is fitted from every station's history,
/// the held-out one's included: a small optimism, as for the error statistics).
///
/// # Errors
/// [`SourceError`] when the stations or the model cannot answer.
pub async fn cross_validate(
    model: &dyn AirQualitySource,
    stations: &dyn ObservationSource,
    area: Area,
    hours: &[DateTime<Utc>],
    config: &FusionConfig,
) -> Result<ValidationReport, SourceError> {
    let mut tallies: [Tally; 6] = Default::default();
    let mut ahead = [[LeadTally::default(); 6]; VALIDATION_LEADS.len()];
    let mut excluded = [0u64; QcReason::ALL.len()];
    let mut later: HashMap<DateTime<Utc>, Vec<Checked>> = HashMap::new();
    for &hour in hours {
        let (checked, left_out) =
            checked_readings(model, stations, area, &|_| true, hour, config).await?;
        for (k, reason) in QcReason::ALL.iter().enumerate() {
            excluded[k] += left_out.total(*reason);
        }
        for lead in VALIDATION_LEADS {
            let at = hour + chrono::Duration::hours(i64::from(lead));
            if let std::collections::hash_map::Entry::Vacant(slot) = later.entry(at) {
                let (read, _) =
                    checked_readings(model, stations, area, &|_| true, at, config).await?;
                slot.insert(read);
            }
        }
        let analyses = per_pollutant(&checked, config);
        for (k, ((p, tally), analysis)) in Pollutant::ALL
            .iter()
            .zip(&mut tallies)
            .zip(&analyses)
            .enumerate()
        {
            let Some(analysis) = analysis else { continue };
            let corrections = hold_out_each(*p, &checked, analysis, tally, config);
            for (l, lead) in VALIDATION_LEADS.iter().enumerate() {
                let at = hour + chrono::Duration::hours(i64::from(*lead));
                let relax = analysis.persistence().relax(f64::from(*lead));
                let then = later.get(&at).map_or(&[][..], Vec::as_slice);
                // A station's reading of that very hour: quality control keeps a reading for a
                // while, and an older one would score the correction against what it was made
                // from.
                let fresh = at - chrono::Duration::hours(1);
                for (station, correction) in &corrections {
                    let Some(c) = then.iter().find(|c| {
                        c.pollutant == *p
                            && c.observed.station == *station
                            && c.observed.time > fresh
                    }) else {
                        continue;
                    };
                    let t = &mut ahead[l][k];
                    t.model.add(c.model, c.value);
                    t.fused
                        .add((c.model + relax * correction).max(0.0), c.value);
                    t.held.add((c.model + correction).max(0.0), c.value);
                }
            }
        }
    }
    let ahead = VALIDATION_LEADS
        .iter()
        .zip(ahead)
        .flat_map(|(lead, per)| {
            Pollutant::ALL
                .iter()
                .zip(per)
                .filter(|(_, t)| t.model.n > 0)
                .map(|(&pollutant, t)| LeadScores {
                    lead_hours: *lead,
                    pollutant,
                    readings: t.model.n,
                    model: t.model.scores(),
                    fused: t.fused.scores(),
                    held: t.held.scores(),
                })
        })
        .collect();
    let pollutants = Pollutant::ALL
        .iter()
        .zip(tallies)
        .filter(|(_, t)| t.model.n > 0)
        .map(|(&pollutant, mut t)| {
            #[allow(clippy::cast_precision_loss)]
            let (n, within) = (t.model.n as f64, t.within as f64);
            PollutantScores {
                pollutant,
                readings: t.model.n,
                model: t.model.scores(),
                fused: t.fused.scores(),
                mean_uncertainty: t.sd_sum / n,
                within_95: within / n,
                methods: t.methods,
                median_length_m: crate::qc::median(&mut t.lengths).unwrap_or(0.0),
            }
        })
        .collect();
    Ok(ValidationReport {
        hours: hours.len(),
        pollutants,
        ahead,
        excluded: QcReason::ALL.iter().copied().zip(excluded).collect(),
    })
}

/// Predicts each of `analysis`'s stations from the others, scoring into `tally`; each
/// station's correction from the others.
fn hold_out_each(
    pollutant: Pollutant,
    checked: &[Checked],
    analysis: &PollutantAnalysis,
    tally: &mut Tally,
    config: &FusionConfig,
) -> Vec<(StationId, f64)> {
    let params = *analysis.params();
    match analysis.method() {
        Method::Fitted => tally.methods.fitted += 1,
        Method::Defaults => tally.methods.defaults += 1,
        Method::Idw => tally.methods.idw += 1,
    }
    tally.lengths.push(params.length_m);
    let of: Vec<&Checked> = checked
        .iter()
        .filter(|c| c.pollutant == pollutant)
        .collect();
    let mut corrections = Vec::with_capacity(of.len());
    for (i, held) in of.iter().enumerate() {
        let others: Vec<Observed> = of
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, c)| c.observed.clone())
            .collect();
        let (correction, variance) = if others.is_empty() {
            (0.0, params.model_variance)
        } else {
            let without = PollutantAnalysis::with_params(others, params, analysis.method(), config);
            let e = without.estimate(held.observed.unit);
            (e.correction, e.variance)
        };
        corrections.push((held.observed.station.clone(), correction));
        let fused = (held.model + correction).max(0.0);
        tally.model.add(held.model, held.value);
        tally.fused.add(fused, held.value);
        let sd = (variance + params.obs_variance).sqrt();
        tally.sd_sum += sd;
        if (fused - held.value).abs() <= 1.96 * sd {
            tally.within += 1;
        }
    }
    corrections
}

fn r(c: Option<f64>) -> String {
    c.map_or_else(|| "-".to_owned(), |c| format!("{c:.2}"))
}

impl fmt::Display for ValidationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Leave-one-out cross-validation over {} hours (µg/m³; bias is predicted minus read)",
            self.hours
        )?;
        writeln!(
            f,
            "{:<9} {:>8} | {:>10} {:>7} {:>5} | {:>10} {:>7} {:>5} | {:>10} {:>9} {:>9}",
            "pollutant",
            "readings",
            "model RMSE",
            "bias",
            "r",
            "fused RMSE",
            "bias",
            "r",
            "RMSE ratio",
            "mean σ",
            "in ±1.96σ"
        )?;
        for p in &self.pollutants {
            let ratio = if p.model.rmse > 0.0 {
                format!("{:.2}", p.fused.rmse / p.model.rmse)
            } else {
                "-".to_owned()
            };
            writeln!(
                f,
                "{:<9} {:>8} | {:>10.2} {:>7.2} {:>5} | {:>10.2} {:>7.2} {:>5} | {:>10} {:>9.2} {:>8.1}%",
                p.pollutant.name(),
                p.readings,
                p.model.rmse,
                p.model.bias,
                r(p.model.correlation),
                p.fused.rmse,
                p.fused.bias,
                r(p.fused.correlation),
                ratio,
                p.mean_uncertainty,
                100.0 * p.within_95
            )?;
        }
        writeln!(
            f,
            "Error statistics per pollutant (hours fitted / defaults / distance-weighted; median correlation length):"
        )?;
        for p in &self.pollutants {
            writeln!(
                f,
                "  {:<6} {} / {} / {}; {:.0} km",
                p.pollutant.name(),
                p.methods.fitted,
                p.methods.defaults,
                p.methods.idw,
                p.median_length_m / 1_000.0
            )?;
        }
        if !self.ahead.is_empty() {
            writeln!(
                f,
                "Hours ahead: each held-out station's correction carried forward, relaxed (as lookups read it) and held (as alert rules read it):"
            )?;
            writeln!(
                f,
                "{:>5} {:<9} {:>8} | {:>10} | {:>12} | {:>9}",
                "ahead", "pollutant", "readings", "model RMSE", "relaxed RMSE", "held RMSE"
            )?;
            for a in &self.ahead {
                writeln!(
                    f,
                    "{:>4}h {:<9} {:>8} | {:>10.2} | {:>12.2} | {:>9.2}",
                    a.lead_hours,
                    a.pollutant.name(),
                    a.readings,
                    a.model.rmse,
                    a.fused.rmse,
                    a.held.rmse
                )?;
            }
        }
        let left: Vec<String> = self
            .excluded
            .iter()
            .map(|(r, n)| format!("{} {n}", r.as_str()))
            .collect();
        writeln!(
            f,
            "Readings left out by quality control: {}",
            left.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_of_a_perfect_and_a_biased_predictor() {
        let mut perfect = Sums::default();
        let mut biased = Sums::default();
        for v in [1.0, 5.0, 9.0, 4.0] {
            perfect.add(v, v);
            biased.add(2.0 * v + 1.0, v);
        }
        let p = perfect.scores();
        assert_eq!((p.rmse, p.bias), (0.0, 0.0));
        assert!((p.correlation.unwrap() - 1.0).abs() < 1e-12);
        let b = biased.scores();
        // Errors v + 1: 2, 6, 10, 5.
        assert!((b.bias - 5.75).abs() < 1e-12);
        assert!((b.rmse - (165.0f64 / 4.0).sqrt()).abs() < 1e-12);
        assert!((b.correlation.unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(Sums::default().scores(), Scores::default());
    }
}
