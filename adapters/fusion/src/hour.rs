//! The analysis of one hour over one area: the stations' readings read and checked, the model
//! asked at each station, the residuals checked for outliers, and one analysis per pollutant.

use aq_core::{
    AirQualitySource, Area, Concentration, Concentrations, ObservationQuery, ObservationSource,
    Pollutant, Position, SampleQuery, SourceError, StationId, Uncertainties, check_batch_len,
};
use chrono::{DateTime, Duration, Utc};

use crate::analysis::{Estimate, Observed, PollutantAnalysis};
use crate::config::FusionConfig;
use crate::persistence;
use crate::qc::{self, Exclusions, QcReason};
use aq_core::position::unit_vector;

/// A station reading that passed every check, with the model's value beside it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Checked {
    pub(crate) pollutant: Pollutant,
    pub(crate) position: Position,
    pub(crate) observed: Observed,
    /// The reading, µg/m³.
    pub(crate) value: f64,
    /// The model at the station and the reading's time, µg/m³.
    pub(crate) model: f64,
    /// The station's residuals over the hours read, with their times, where the model
    /// answered: what the correction's persistence is fitted to.
    pub(crate) history: Vec<(DateTime<Utc>, f64)>,
}

/// The readings of the stations in `area` that are usable at `hour`, each beside the model's
/// value there, and the readings left out by quality control of the stations `counted` says
/// count: the analyses of neighbouring cells read the same stations, and each counts only its
/// own cell's, so that a reading is counted once.
///
/// # Errors
/// [`SourceError`] when the stations or the model cannot answer.
pub(crate) async fn checked_readings(
    model: &dyn AirQualitySource,
    stations: &dyn ObservationSource,
    area: Area,
    counted: &(dyn Fn(Position) -> bool + Sync),
    hour: DateTime<Utc>,
    config: &FusionConfig,
) -> Result<(Vec<Checked>, Exclusions), SourceError> {
    let query = ObservationQuery {
        area,
        from: hour - Duration::hours(i64::from(config.history_hours)),
        to: hour,
        max_stations: config.max_stations,
    };
    let series = stations.observations(&query).await?;
    let (candidates, mut excluded) = qc::screen(&series, hour, config, counted);
    // The model at each of a station's readings over the hours read, the newest among them, in
    // one batch.
    let queries: Vec<SampleQuery> = candidates
        .iter()
        .flat_map(|c| {
            c.history.iter().map(|&(time, _)| SampleQuery {
                position: c.position,
                time,
            })
        })
        .collect();
    let answers = if queries.is_empty() {
        Vec::new()
    } else {
        check_batch_len(queries.len(), model.sample(&queries).await?)?
    };
    let mut past = answers.as_slice();
    let mut checked: Vec<Checked> = candidates
        .into_iter()
        .filter_map(|c| {
            let (mine, rest) = past.split_at(c.history.len());
            past = rest;
            let model_of = |a: &Option<aq_core::AirSample>| {
                Some(a.as_ref()?.concentrations?.get(c.pollutant)?.ug_m3())
            };
            // A station the model does not cover has nothing to correct.
            let newest = c.history.iter().position(|&(time, _)| time == c.time)?;
            let model = model_of(&mine[newest])?;
            let history = qc::steady_history(
                c.history
                    .iter()
                    .zip(mine)
                    .filter_map(|(&(time, value), a)| Some((time, value, model_of(a)?)))
                    .collect(),
                config,
            );
            Some(Checked {
                pollutant: c.pollutant,
                position: c.position,
                observed: Observed {
                    station: c.station,
                    unit: unit_vector(c.position),
                    residual: c.value - model,
                    time: c.time,
                },
                value: c.value,
                model,
                history,
            })
        })
        .collect();
    // The first-guess check runs first, so that a gross error does not sway the medians the
    // spatial test judges the others by.
    leave_out(
        &mut checked,
        &mut excluded,
        counted,
        QcReason::GrossError,
        |j| qc::gross_errors(j, config),
    );
    leave_out(
        &mut checked,
        &mut excluded,
        counted,
        QcReason::Outlier,
        |j| qc::outliers(j, config),
    );
    Ok((checked, excluded))
}

/// Removes from `checked` the readings `test` flags, pollutant by pollutant, counting those of
/// the stations `counted` says count under `reason`.
fn leave_out(
    checked: &mut Vec<Checked>,
    excluded: &mut Exclusions,
    counted: &(dyn Fn(Position) -> bool + Sync),
    reason: QcReason,
    test: impl Fn(&[qc::Judged]) -> Vec<bool>,
) {
    let mut flagged = vec![false; checked.len()];
    for p in Pollutant::ALL {
        let of: Vec<usize> = (0..checked.len())
            .filter(|&i| checked[i].pollutant == p)
            .collect();
        let judged: Vec<qc::Judged> = of
            .iter()
            .map(|&i| qc::Judged {
                at: checked[i].observed.unit,
                value: checked[i].value,
                model: checked[i].model,
            })
            .collect();
        for (&i, out) in of.iter().zip(test(&judged)) {
            flagged[i] = out;
        }
    }
    let mut flags = flagged.into_iter();
    checked.retain(|c| {
        let out = flags.next().unwrap_or(false);
        if out && counted(c.position) {
            excluded.add(reason, c.pollutant, &c.observed.station);
        }
        !out
    });
}

/// One analysis per pollutant from `checked`.
pub(crate) fn per_pollutant(
    checked: &[Checked],
    config: &FusionConfig,
) -> [Option<PollutantAnalysis>; 6] {
    Pollutant::ALL.map(|p| {
        let of: Vec<Observed> = checked
            .iter()
            .filter(|c| c.pollutant == p)
            .map(|c| c.observed.clone())
            .collect();
        let histories: Vec<Vec<(DateTime<Utc>, f64)>> = checked
            .iter()
            .filter(|c| c.pollutant == p)
            .map(|c| c.history.clone())
            .collect();
        PollutantAnalysis::build(of, config)
            .map(|a| a.with_persistence(persistence::fit(&histories, config)))
    })
}

/// One analysis's estimate of each pollutant at one place, in [`Pollutant::ALL`] order, with
/// the stations behind them.
#[derive(Debug)]
pub(crate) struct Estimates {
    each: [Option<Estimate>; 6],
    stations_used: u32,
    newest: Option<DateTime<Utc>>,
}

/// Every pollutant's analysis of one hour over one area.
#[derive(Debug)]
pub(crate) struct HourAnalysis {
    /// The hour analysed.
    pub(crate) hour: DateTime<Utc>,
    /// When it was made (by the source's clock).
    pub(crate) made: DateTime<Utc>,
    /// In [`Pollutant::ALL`] order.
    pub(crate) pollutants: [Option<PollutantAnalysis>; 6],
    /// The readings left out.
    pub(crate) excluded: Exclusions,
}

/// The model's values at a point corrected by an analysis.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fused {
    pub(crate) concentrations: Concentrations,
    pub(crate) uncertainty: Uncertainties,
    /// How many stations corrected the value (each counted once over its pollutants).
    pub(crate) stations_used: u32,
    pub(crate) newest: Option<DateTime<Utc>>,
    /// Whether any value differs from the model's.
    pub(crate) changed: bool,
}

impl HourAnalysis {
    /// The readings the analysis holds, for the cache's weight.
    pub(crate) fn readings(&self) -> usize {
        self.pollutants
            .iter()
            .flatten()
            .map(|a| a.stations().len())
            .sum()
    }

    /// Each pollutant's estimate at the unit vector `at`: what [`HourAnalysis::fuse`] corrects
    /// with. A place reads one analysis for every hour ahead of now, so its estimates are made
    /// once and serve each of those hours.
    pub(crate) fn estimates(&self, at: [f64; 3]) -> Estimates {
        let each = self
            .pollutants
            .each_ref()
            .map(|a| a.as_ref().map(|a| a.estimate(at)));
        // The stations behind them, each once over its pollutants: counted here, once for
        // every hour the estimates serve.
        let mut used: Vec<&StationId> = Vec::new();
        let mut newest = None;
        for (analysis, e) in self.pollutants.iter().zip(&each) {
            if let (Some(analysis), Some(e)) = (analysis, e) {
                for &i in &e.used {
                    let s = &analysis.stations()[i];
                    newest = newest.max(Some(s.time));
                    used.push(&s.station);
                }
            }
        }
        used.sort_unstable();
        used.dedup();
        Estimates {
            each,
            stations_used: u32::try_from(used.len()).unwrap_or(u32::MAX),
            newest,
        }
    }

    /// `model` corrected with `estimates` (this analysis's, at the place), `ahead` hours after
    /// the hour analysed (0 at or before it): the correction scaled by its pollutant's
    /// persistence there (1 at the hour analysed, falling towards 0 ahead of it). A pollutant
    /// without stations keeps the model's value and has no error estimate; a corrected value
    /// below zero is zero.
    pub(crate) fn fuse(&self, estimates: &Estimates, model: &Concentrations, ahead: f64) -> Fused {
        let mut out = Fused {
            concentrations: *model,
            uncertainty: Uncertainties::default(),
            stations_used: 0,
            newest: None,
            changed: false,
        };
        for (p, value) in model.iter() {
            let k = qc::pollutant_index(p);
            let (Some(analysis), Some(e)) = (&self.pollutants[k], &estimates.each[k]) else {
                continue;
            };
            let relax = analysis.persistence().relax(ahead);
            let relax2 = relax * relax;
            let model_variance = analysis.params().model_variance;
            let variance = relax2 * e.variance + (1.0 - relax2) * model_variance;
            out.uncertainty.set(p, variance.sqrt());
            if relax > 0.0 && !e.used.is_empty() {
                out.stations_used = estimates.stations_used;
                out.newest = estimates.newest;
            }
            let correction = relax * e.correction;
            if correction == 0.0 {
                continue;
            }
            let fused = (value.ug_m3() + correction).max(0.0);
            if let Ok(c) = Concentration::new(fused) {
                out.changed |= c != value;
                out.concentrations.set(p, c);
            }
        }
        out
    }
}
