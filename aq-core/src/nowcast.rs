//! The US EPA's averaging of hourly values for a current AQI: the NowCast of particles and of
//! ozone, and the 8-hour running mean of carbon monoxide.
//!
//! EPA defines the AQI of PM2.5 and PM10 on 24-hour means and that of O₃ and CO on 8-hour
//! means, which cannot be known until the period is over. For the hour now (and for each hour of
//! a series), EPA reports:
//!
//! - **PM2.5 and PM10: the NowCast**, a weighted mean of the last 12 hours in which hour `i`
//!   hours ago weighs `wⁱ`. The weight factor is `w = min / max` of those hours, no less than
//!   ½: steady air is averaged over nearly twelve hours, fast-changing air (smoke) over about
//!   the last three. Valid when at least two of the three most recent hours have a value;
//!   missing hours are left out of both sums.
//! - **O₃: the ozone NowCast** AirNow reports ozone with since 21 April 2016 (AirNow-Tech,
//!   "AirNow Updates to Ozone Real-time Reporting and Daily Reporting"): the same weighting
//!   over the last 8 hours, with no lower bound on the weight factor, valid like the PM one.
//!   EPA's 2019 refinement predicts the 8-hour mean centred on the hour by a regression fitted
//!   per monitor on its last two weeks, which a model grid has no monitor history for.
//! - **CO: the mean of the hour and the seven before it**, valid with at least six of the
//!   eight hours (EPA's 75 % completeness for an 8-hour mean).
//!
//! Every function takes the hours *newest first*: `hours[0]` is the hour the value is for,
//! `hours[i]` the one `i` hours before it, `None` where there is no value. They work on raw
//! values; the truncation EPA prescribes comes after, in [`crate::AqiTable::aqi`].

/// How many hours the NowCast reads.
pub const NOWCAST_HOURS: usize = 12;

/// How many hours the ozone NowCast reads.
pub const OZONE_NOWCAST_HOURS: usize = 8;

/// How many hours a running mean of carbon monoxide reads.
pub const RUNNING_MEAN_HOURS: usize = 8;

/// The fewest of [`RUNNING_MEAN_HOURS`] hours that make a valid running mean.
pub const RUNNING_MEAN_MIN_HOURS: usize = 6;

/// The lowest weight factor the NowCast uses.
const MIN_WEIGHT: f64 = 0.5;

/// The NowCast of the hours (newest first; only the first [`NOWCAST_HOURS`] are read), or
/// `None` when fewer than two of the three most recent hours have a value.
///
/// ```
/// use aq_core::nowcast::nowcast;
///
/// // Steady air: the NowCast is the plain mean.
/// assert_eq!(nowcast(&[Some(10.0); 12]), Some(10.0));
/// // Only the newest hour known: not enough for a NowCast.
/// assert_eq!(nowcast(&[Some(10.0), None, None]), None);
/// // Two of the three newest hours suffice; the weights still count hours ago.
/// assert_eq!(nowcast(&[Some(20.0), None, Some(20.0)]), Some(20.0));
/// ```
#[must_use]
pub fn nowcast(hours: &[Option<f64>]) -> Option<f64> {
    weighted(hours, NOWCAST_HOURS, MIN_WEIGHT)
}

/// AirNow's ozone NowCast of the hours (newest first; only the first
/// [`OZONE_NOWCAST_HOURS`] are read): the NowCast's weighting with no lower bound on the
/// weight factor, or `None` when fewer than two of the three most recent hours have a value.
///
/// ```
/// use aq_core::nowcast::ozone_nowcast;
///
/// // AirNow's worked example (ppb, newest first, the sixth hour missing): weight factor
/// // 1 − (80 − 22) / 80 = 0.275, NowCast about 65.2 ppb where the 8-hour mean reads 57.6.
/// let hours = [63.0, 69.0, 80.0, 74.0, 60.0, f64::NAN, 35.0, 22.0]
///     .map(|v| (!v.is_nan()).then_some(v));
/// let value = ozone_nowcast(&hours).unwrap();
/// assert!((value - 65.2).abs() < 0.1, "{value}");
/// // Steady air: the plain mean of the eight hours; the ninth is not read.
/// let mut steady = vec![Some(40.0); 8];
/// steady.push(Some(400.0));
/// assert_eq!(ozone_nowcast(&steady), Some(40.0));
/// // An hour at zero makes the weight factor zero: the newest hour alone, and none without it.
/// assert_eq!(ozone_nowcast(&[Some(30.0), Some(0.0), Some(50.0)]), Some(30.0));
/// assert_eq!(ozone_nowcast(&[None, Some(0.0), Some(50.0)]), None);
/// ```
#[must_use]
pub fn ozone_nowcast(hours: &[Option<f64>]) -> Option<f64> {
    weighted(hours, OZONE_NOWCAST_HOURS, 0.0)
}

/// The NowCast weighting over the first `span` hours with the weight factor no lower than
/// `min_weight`.
fn weighted(hours: &[Option<f64>], span: usize, min_weight: f64) -> Option<f64> {
    let hours = &hours[..hours.len().min(span)];
    let recent = hours.iter().take(3).filter(|h| h.is_some()).count();
    if recent < 2 {
        return None;
    }
    let present = || hours.iter().flatten().copied();
    let max = present().fold(f64::NEG_INFINITY, f64::max);
    let min = present().fold(f64::INFINITY, f64::min);
    // All zeros: any weight gives zero; the scaled rate of change is undefined.
    let weight = if max > 0.0 {
        (min / max).max(min_weight)
    } else {
        1.0
    };
    let (mut sum, mut weights) = (0.0, 0.0);
    let mut factor = 1.0;
    for hour in hours {
        if let Some(value) = hour {
            sum += factor * value;
            weights += factor;
        }
        factor *= weight;
    }
    // With no lower bound the weight factor can be 0 (an hour at zero): then only the newest
    // hour weighs, and without it there is nothing to average.
    (weights > 0.0).then(|| sum / weights)
}

/// The running mean of the hour and the seven before it (newest first), or `None` when fewer
/// than six of those eight hours have a value: carbon monoxide's current AQI.
///
/// ```
/// use aq_core::nowcast::running_mean;
///
/// let mut hours = vec![Some(40.0), Some(60.0), None, Some(50.0), Some(50.0), Some(50.0)];
/// assert_eq!(running_mean(&hours), None, "five of eight hours");
/// hours.push(Some(50.0));
/// assert_eq!(running_mean(&hours), Some(50.0));
/// // The ninth hour back is not in the mean.
/// hours.extend([Some(50.0), Some(1000.0)]);
/// assert_eq!(running_mean(&hours), Some(50.0));
/// ```
#[must_use]
pub fn running_mean(hours: &[Option<f64>]) -> Option<f64> {
    let values: Vec<f64> = hours
        .iter()
        .take(RUNNING_MEAN_HOURS)
        .flatten()
        .copied()
        .collect();
    if values.len() < RUNNING_MEAN_MIN_HOURS {
        return None;
    }
    // At most eight values: the count is exact as a float.
    #[allow(clippy::cast_precision_loss)]
    let n = values.len() as f64;
    Some(values.iter().sum::<f64>() / n)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// EPA's worked NowCast example, from AirNow's training slides "Computing the NowCast"
    /// (the method of EPA's Technical Assistance Document for the Reporting of Daily Air
    /// Quality, page 7): the 12 hours, oldest first, are 50 80 75 90 82 53 64 74 21 10 16 13
    /// µg/m³; the range 90 − 10 = 80 scaled by the maximum gives a weight factor of
    /// 1 − 80/90 ≈ 0.11, raised to 0.5, and the NowCast is 17.4 µg/m³.
    #[test]
    fn the_epa_worked_example_gives_17_4() {
        let oldest_first = [
            50.0, 80.0, 75.0, 90.0, 82.0, 53.0, 64.0, 74.0, 21.0, 10.0, 16.0, 13.0,
        ];
        let hours: Vec<Option<f64>> = oldest_first.iter().rev().copied().map(Some).collect();
        let value = nowcast(&hours).unwrap();
        assert_eq!((value * 10.0).floor() / 10.0, 17.4, "{value}");
    }

    #[test]
    fn the_newest_hours_must_be_there() {
        assert_eq!(nowcast(&[None, None, Some(5.0), Some(5.0)]), None);
        assert_eq!(nowcast(&[None, Some(5.0), Some(5.0)]), Some(5.0));
        assert_eq!(nowcast(&[]), None);
    }

    #[test]
    fn zero_air_has_a_zero_nowcast() {
        assert_eq!(nowcast(&[Some(0.0); 12]), Some(0.0));
    }

    #[test]
    fn hours_past_the_twelfth_are_not_read() {
        let mut hours = vec![Some(10.0); 12];
        let twelve = nowcast(&hours);
        hours.push(Some(500.0));
        assert_eq!(nowcast(&hours), twelve);
    }

    proptest! {
        /// A weighted mean lies between the least and the greatest of what it averages.
        #[test]
        fn nowcast_lies_within_its_hours(
            hours in prop::collection::vec(prop::option::of(0.0f64..1000.0), 3..16),
        ) {
            if let Some(value) = nowcast(&hours) {
                let read: Vec<f64> = hours.iter().take(12).flatten().copied().collect();
                let min = read.iter().copied().fold(f64::INFINITY, f64::min);
                let max = read.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                prop_assert!(value >= min - 1e-9 && value <= max + 1e-9);
            }
        }

        #[test]
        fn running_mean_lies_within_its_hours(
            hours in prop::collection::vec(prop::option::of(0.0f64..1000.0), 0..12),
        ) {
            if let Some(value) = running_mean(&hours) {
                let read: Vec<f64> = hours.iter().take(8).flatten().copied().collect();
                prop_assert!(read.len() >= 6);
                let min = read.iter().copied().fold(f64::INFINITY, f64::min);
                let max = read.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                prop_assert!(value >= min - 1e-9 && value <= max + 1e-9);
            }
        }
    }
}
