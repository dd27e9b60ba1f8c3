//! Quality control of station readings before they correct anything: stale, negative and
//! stuck readings by each station's own series, then gross errors by their departure from the
//! model (the first-guess check of data assimilation) unless a neighbour sees the same air, then
//! spatial outliers by their residuals against their neighbours' and the model. Every reading
//! left out is counted by its reason.

use aq_core::{Pollutant, Position, StationId, StationSeries};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::config::FusionConfig;
use aq_core::position::{chord2, m_to_chord};

/// Why a station's reading was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QcReason {
    /// Its newest reading is older than [`FusionConfig::max_age_s`].
    Stale,
    /// Its newest reading is negative, or not a number.
    Negative,
    /// Its value has not changed for [`FusionConfig::stuck_hours`].
    Stuck,
    /// Its departure from the model is beyond [`FusionConfig::gross_error_factor`] times the
    /// error expected of it, and no neighbour within [`FusionConfig::outlier_radius_m`] reads
    /// within [`FusionConfig::outlier_ratio`] of it.
    GrossError,
    /// Its residual is far from both its neighbours' and the model
    /// ([`FusionConfig::outlier_z`]).
    Outlier,
}

impl QcReason {
    /// Every reason, in the order the checks run.
    pub const ALL: [QcReason; 5] = [
        QcReason::Stale,
        QcReason::Negative,
        QcReason::Stuck,
        QcReason::GrossError,
        QcReason::Outlier,
    ];

    /// The reason's name in metrics and logs: `stale`, `negative`, `stuck`, `gross_error`,
    /// `outlier`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            QcReason::Stale => "stale",
            QcReason::Negative => "negative",
            QcReason::Stuck => "stuck",
            QcReason::GrossError => "gross_error",
            QcReason::Outlier => "outlier",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The readings left out of one analysis, counted by pollutant and reason, with the first
/// few stations of each reason named for the logs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exclusions {
    counts: [[u64; 5]; 6],
    named: Vec<(QcReason, Pollutant, StationId)>,
}

/// How many excluded stations the logs name per analysis; the counts hold them all.
const NAMED: usize = 12;

/// `p`'s place in [`Pollutant::ALL`], where the fusion keeps one entry per pollutant.
pub(crate) fn pollutant_index(p: Pollutant) -> usize {
    Pollutant::ALL.iter().position(|&q| q == p).unwrap_or(0)
}

impl Exclusions {
    pub(crate) fn add(&mut self, reason: QcReason, pollutant: Pollutant, station: &StationId) {
        self.counts[pollutant_index(pollutant)][reason.index()] += 1;
        if self.named.len() < NAMED {
            self.named.push((reason, pollutant, station.clone()));
        }
    }

    /// How many readings of `pollutant` were left out for `reason`.
    #[must_use]
    pub fn count(&self, pollutant: Pollutant, reason: QcReason) -> u64 {
        self.counts[pollutant_index(pollutant)][reason.index()]
    }

    /// How many readings were left out for `reason`, over all pollutants.
    #[must_use]
    pub fn total(&self, reason: QcReason) -> u64 {
        self.counts.iter().map(|c| c[reason.index()]).sum()
    }

    /// Every (pollutant, reason, count) with a count above zero.
    pub fn iter(&self) -> impl Iterator<Item = (Pollutant, QcReason, u64)> + '_ {
        Pollutant::ALL.iter().flat_map(move |&p| {
            QcReason::ALL
                .iter()
                .map(move |&r| (p, r, self.count(p, r)))
                .filter(|&(_, _, n)| n > 0)
        })
    }

    /// The first stations left out, for the logs.
    #[must_use]
    pub fn named(&self) -> &[(QcReason, Pollutant, StationId)] {
        &self.named
    }

    /// Whether nothing was left out.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.counts.iter().flatten().all(|&n| n == 0)
    }
}

/// A station's newest reading of one pollutant that passed the checks of its own series.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    pub(crate) station: StationId,
    pub(crate) position: Position,
    pub(crate) pollutant: Pollutant,
    pub(crate) time: DateTime<Utc>,
    pub(crate) value: f64,
    /// Every reading of the series up to the hour, the newest included: how its departures
    /// from the model persisted.
    pub(crate) history: Vec<(DateTime<Utc>, f64)>,
}

/// The fewest equal readings in a row that can make a station stuck.
const STUCK_READINGS: usize = 3;

/// Each series' newest reading at or before `hour`, unless the series is stale, negative or
/// stuck there (counted in the exclusions when `counted` says the station's position counts).
pub(crate) fn screen(
    series: &[StationSeries],
    hour: DateTime<Utc>,
    config: &FusionConfig,
    counted: &dyn Fn(Position) -> bool,
) -> (Vec<Candidate>, Exclusions) {
    let mut kept = Vec::new();
    let mut excluded = Exclusions::default();
    let max_age = Duration::seconds(i64::try_from(config.max_age_s).unwrap_or(i64::MAX));
    let stuck_for = Duration::hours(i64::from(config.stuck_hours));
    for s in series {
        let known: Vec<_> = s.readings.iter().filter(|r| r.time <= hour).collect();
        let Some(newest) = known.iter().max_by_key(|r| r.time) else {
            continue;
        };
        let reason = if newest.time < hour - max_age {
            Some(QcReason::Stale)
        } else if !(newest.value.is_finite() && newest.value >= 0.0) {
            Some(QcReason::Negative)
        } else if stuck(&known, newest.value, newest.time, stuck_for) {
            Some(QcReason::Stuck)
        } else {
            None
        };
        match reason {
            Some(reason) => {
                if counted(s.position) {
                    excluded.add(reason, s.pollutant, &s.station);
                }
            }
            None => kept.push(Candidate {
                station: s.station.clone(),
                position: s.position,
                pollutant: s.pollutant,
                time: newest.time,
                value: newest.value,
                history: known
                    .iter()
                    .filter(|r| r.value.is_finite())
                    .map(|r| (r.time, r.value))
                    .collect(),
            }),
        }
    }
    (kept, excluded)
}

/// Whether the unbroken run of readings equal to the newest, counted back from it, holds at
/// least [`STUCK_READINGS`] readings over `stuck_for` or longer.
fn stuck(
    known: &[&aq_core::Reading],
    value: f64,
    newest: DateTime<Utc>,
    stuck_for: Duration,
) -> bool {
    let mut by_time: Vec<&aq_core::Reading> = known.to_vec();
    by_time.sort_by_key(|r| std::cmp::Reverse(r.time));
    let mut count = 0;
    let mut oldest = newest;
    for r in by_time {
        // Exactly equal: a frozen logger repeats its last value to the bit.
        #[allow(clippy::float_cmp)]
        let same = r.value == value;
        if !same {
            break;
        }
        count += 1;
        oldest = r.time;
    }
    count >= STUCK_READINGS && newest - oldest >= stuck_for
}

/// A station's residuals over the hours read, from its `readings` (time, value, model there
/// and then), without the hours a past spike or a logger's error code made: a negative
/// reading, or a residual further from the station's median residual than
/// `gross_error_factor` times the expected error. The persistence of the corrections is
/// fitted to these, and one bad hour would otherwise decide how long every correction of the
/// cell lasts; a bias the station shows every hour stays whole.
pub(crate) fn steady_history(
    readings: Vec<(DateTime<Utc>, f64, f64)>,
    config: &FusionConfig,
) -> Vec<(DateTime<Utc>, f64)> {
    let readings: Vec<_> = readings.into_iter().filter(|r| r.1 >= 0.0).collect();
    let mut residuals: Vec<f64> = readings.iter().map(|r| r.1 - r.2).collect();
    let Some(middle) = median(&mut residuals) else {
        return Vec::new();
    };
    readings
        .into_iter()
        .filter(|&(_, value, model)| {
            let expected = config.gross_error_floor + config.gross_error_fraction * model.max(0.0);
            (value - model - middle).abs() <= config.gross_error_factor * expected
        })
        .map(|(time, value, model)| (time, value - model))
        .collect()
}

/// The median of `values` (which it sorts); `None` when empty.
pub(crate) fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    Some(if values.len().is_multiple_of(2) {
        f64::midpoint(values[mid - 1], values[mid])
    } else {
        values[mid]
    })
}

/// Scales a median absolute deviation to a standard deviation for normal errors.
const MAD_TO_SD: f64 = 1.4826;

/// A station reading as the outlier test sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Judged {
    /// Where, as a unit vector.
    pub(crate) at: [f64; 3],
    /// The reading, µg/m³.
    pub(crate) value: f64,
    /// The model there, µg/m³.
    pub(crate) model: f64,
}

impl Judged {
    fn residual(&self) -> f64 {
        self.value - self.model
    }
}

/// Whether `a` and `b` (µg/m³) lie within `ratio` of each other, with 1 µg/m³ added to both
/// sides so that readings near zero compare sensibly.
fn within_ratio(a: f64, b: f64, ratio: f64) -> bool {
    ((a.max(0.0) + 1.0) / (b.max(0.0) + 1.0)).ln().abs() <= ratio.ln()
}

/// Which readings are gross errors: a departure from the model (reading minus model) beyond
/// `gross_error_factor` times the error expected of it, `gross_error_floor` plus
/// `gross_error_fraction` of the model's value (a model's error grows with its value, and a
/// reading's own error with the air it reads), unless a neighbour within `outlier_radius_m`
/// reads within `outlier_ratio` of it. This is the first-guess check of data assimilation,
/// which judges every reading against the background before any neighbour is asked: a broken
/// analyser with one neighbour or none is caught, while a plume or a model bias that several
/// stations see together is kept for the analysis to correct.
pub(crate) fn gross_errors(readings: &[Judged], config: &FusionConfig) -> Vec<bool> {
    let reach2 = m_to_chord(config.outlier_radius_m).powi(2);
    readings
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let expected =
                config.gross_error_floor + config.gross_error_fraction * r.model.max(0.0);
            if r.residual().abs() <= config.gross_error_factor * expected {
                return false;
            }
            let seen_by_neighbour = readings.iter().enumerate().any(|(j, other)| {
                j != i
                    && chord2(r.at, other.at) <= reach2
                    && within_ratio(r.value, other.value, config.outlier_ratio)
            });
            !seen_by_neighbour
        })
        .collect()
}

/// Which readings are spatial outliers: a residual (reading minus model) more than
/// `outlier_z` robust standard deviations from the median residual of the neighbours within
/// `outlier_radius_m` and as far from zero (the model itself), and a reading more than
/// `outlier_ratio` times above (or below) both the neighbours' median reading and the model.
/// The robust standard deviation is the median absolute deviation of all the residuals,
/// scaled, and never less than `outlier_min_spread`. The ratio keeps a real local peak (a
/// street at 51 µg/m³ where the model says 25) from looking like a broken analyser (1,000 among
/// 10s) merely because the residuals elsewhere are small.
pub(crate) fn outliers(readings: &[Judged], config: &FusionConfig) -> Vec<bool> {
    let mut all: Vec<f64> = readings.iter().map(Judged::residual).collect();
    let Some(centre) = median(&mut all) else {
        return Vec::new();
    };
    let mut deviations: Vec<f64> = readings
        .iter()
        .map(|r| (r.residual() - centre).abs())
        .collect();
    let spread = median(&mut deviations).map_or(0.0, |mad| MAD_TO_SD * mad);
    let limit = config.outlier_z * spread.max(config.outlier_min_spread);
    let reach2 = m_to_chord(config.outlier_radius_m).powi(2);
    let (mut residuals, mut values) = (Vec::new(), Vec::new());
    readings
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if r.residual().abs() <= limit {
                return false;
            }
            residuals.clear();
            values.clear();
            for (j, other) in readings.iter().enumerate() {
                if j != i && chord2(r.at, other.at) <= reach2 {
                    residuals.push(other.residual());
                    values.push(other.value);
                }
            }
            if residuals.len() < config.outlier_min_neighbours {
                return false;
            }
            let (Some(around), Some(typical)) = (median(&mut residuals), median(&mut values))
            else {
                return false;
            };
            (r.residual() - around).abs() > limit
                && !within_ratio(r.value, typical, config.outlier_ratio)
                && !within_ratio(r.value, r.model, config.outlier_ratio)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use aq_core::Reading;
    use chrono::TimeZone;

    use super::*;
    use aq_core::position::unit_vector;

    fn at(h: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 6, 10, 12, 0, 0).unwrap() + Duration::hours(h)
    }

    fn series(id: &str, readings: &[(i64, f64)]) -> StationSeries {
        StationSeries {
            station: StationId(id.to_owned()),
            position: Position::new(13.4, 52.5).unwrap(),
            pollutant: Pollutant::Pm25,
            readings: readings
                .iter()
                .map(|&(h, value)| Reading { time: at(h), value })
                .collect(),
        }
    }

    #[test]
    fn each_check_leaves_out_its_own_case_and_counts_it() {
        let config = FusionConfig::default();
        let all = [
            series("fresh", &[(-2, 10.0), (-1, 11.0), (0, 12.0)]),
            series("stale", &[(-5, 10.0), (-4, 11.0)]),
            series("negative", &[(-1, 3.0), (0, -2.0)]),
            series(
                "stuck",
                &[(-7, 9.0), (-6, 12.5), (-3, 12.5), (-1, 12.5), (0, 12.5)],
            ),
            // Equal for only five hours: not stuck.
            series("steady", &[(-6, 9.0), (-5, 12.5), (-2, 12.5), (0, 12.5)]),
            // A reading after the hour is not known then.
            series("future", &[(1, 10.0)]),
        ];
        let (kept, excluded) = screen(&all, at(0), &config, &|_| true);
        let ids: Vec<&str> = kept.iter().map(|c| c.station.0.as_str()).collect();
        assert_eq!(ids, ["fresh", "steady"]);
        assert_eq!(kept[0].value, 12.0);
        for reason in [QcReason::Stale, QcReason::Negative, QcReason::Stuck] {
            assert_eq!(excluded.count(Pollutant::Pm25, reason), 1, "{reason:?}");
        }
        assert_eq!(excluded.total(QcReason::Outlier), 0);
        assert_eq!(excluded.named().len(), 3);
    }

    #[test]
    fn a_reading_far_from_its_neighbours_and_the_model_is_an_outlier() {
        let config = FusionConfig::default();
        let place = |i: u32| unit_vector(Position::new(13.0 + 0.05 * f64::from(i), 52.5).unwrap());
        let judged = |i: u32, value: f64, model: f64| Judged {
            at: place(i),
            value,
            model,
        };
        // 1,000 among readings of about 10, where the model says 10.
        let mut readings: Vec<Judged> = (0..10)
            .map(|i| judged(i, 9.0 + f64::from(i % 3), 10.0))
            .collect();
        readings.push(judged(10, 1_000.0, 10.0));
        let flags = outliers(&readings, &config);
        assert_eq!(flags.iter().filter(|&&f| f).count(), 1);
        assert!(flags[10]);
        // A street at 51 where the model and the neighbours say 25: a local peak, kept.
        let mut street: Vec<Judged> = (0..10).map(|i| judged(i, 25.0, 25.0)).collect();
        street.push(judged(10, 51.0, 25.0));
        assert!(outliers(&street, &config).iter().all(|&f| !f));
        // A biased model: every residual near 40, and one station at 60 agrees with them.
        let biased: Vec<Judged> = (0..10)
            .map(|i| judged(i, 50.0 + f64::from(i), 10.0))
            .collect();
        assert!(outliers(&biased, &config).iter().all(|&f| !f));
        // Alone, a high reading is a local event, not an outlier.
        let alone = [
            judged(0, 1_000.0, 10.0),
            Judged {
                at: unit_vector(Position::new(20.0, 40.0).unwrap()),
                value: 10.0,
                model: 10.0,
            },
        ];
        assert!(outliers(&alone, &config).iter().all(|&f| !f));
        // A dead analyser reading 0 among 80s is an outlier too.
        let mut low: Vec<Judged> = (0..10)
            .map(|i| judged(i, 78.0 + f64::from(i % 4), 80.0))
            .collect();
        low.push(judged(10, 0.0, 80.0));
        assert!(outliers(&low, &config)[10]);
    }

    /// A place `km` kilometres east of 13° E on 52.5° N.
    fn east(km: f64) -> [f64; 3] {
        unit_vector(Position::new(13.0 + km / 67.7, 52.5).unwrap())
    }

    #[test]
    fn an_isolated_broken_analyser_is_a_gross_error_however_few_its_neighbours() {
        let config = FusionConfig::default();
        let judged = |km: f64, value: f64, model: f64| Judged {
            at: east(km),
            value,
            model,
        };
        // 1,000 µg/m³ where the model says 20, its one neighbour 25 km away 15.
        let pair = [judged(0.0, 1_000.0, 20.0), judged(25.0, 15.0, 18.0)];
        assert_eq!(gross_errors(&pair, &config), [true, false]);
        assert!(
            outliers(&pair, &config).iter().all(|&f| !f),
            "the spatial test alone needs two neighbours and keeps it"
        );
        // Alone, too.
        assert_eq!(gross_errors(&pair[..1], &config), [true]);
        // A busy street at 51 where the model says 25: within what a model misses.
        assert_eq!(gross_errors(&[judged(0.0, 51.0, 25.0)], &config), [false]);
        // Fifteen stations that all read 60 over a model of 10: a bias they agree on, kept.
        let biased: Vec<Judged> = (0..15)
            .map(|i| judged(f64::from(i) * 3.0, 60.0 + f64::from(i % 3), 10.0))
            .collect();
        assert!(gross_errors(&biased, &config).iter().all(|&f| !f));
        // A plume two stations 10 km apart both see.
        let plume = [judged(0.0, 300.0, 20.0), judged(10.0, 250.0, 20.0)];
        assert_eq!(gross_errors(&plume, &config), [false, false]);
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&mut []), None);
    }
}
