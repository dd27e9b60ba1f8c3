//! Running means over the newest hours of a window, with the share of hours a publisher
//! requires before a mean counts.

use crate::pollutant::{Concentrations, Pollutant};

/// The mean of `pollutant` over the `span` newest hours of `hours` (newest first), when at
/// least `least` of them have a value; `None` otherwise.
pub(crate) fn mean(
    hours: &[Option<Concentrations>],
    pollutant: Pollutant,
    span: usize,
    least: usize,
) -> Option<f64> {
    let values: Vec<f64> = hours
        .iter()
        .take(span)
        .filter_map(|h| h.and_then(|c| c.get(pollutant)).map(|c| c.ug_m3()))
        .collect();
    if values.len() < least.max(1) {
        return None;
    }
    #[allow(clippy::cast_precision_loss)]
    let n = values.len() as f64;
    Some(values.iter().sum::<f64>() / n)
}

/// The hour's own value of `pollutant`.
pub(crate) fn now(hours: &[Option<Concentrations>], pollutant: Pollutant) -> Option<f64> {
    hours
        .first()
        .copied()
        .flatten()
        .and_then(|c| c.get(pollutant))
        .map(|c| c.ug_m3())
}

/// `ug_m3` of the gas `pollutant`, stated at the project's 20 °C, restated at 25 °C and
/// 1013.25 hPa: the same mixing ratio is fewer micrograms in the warmer cubic metre.
pub(crate) fn at_25c(pollutant: Pollutant, ug_m3: f64) -> f64 {
    match pollutant.molar_mass() {
        Some(_) => ug_m3 * crate::pollutant::MOLAR_VOLUME_20C / crate::pollutant::MOLAR_VOLUME_25C,
        None => ug_m3,
    }
}

/// `ug_m3` of the gas `pollutant` in ppb at the conditions the project states µg/m³ at.
pub(crate) fn ppb(pollutant: Pollutant, ug_m3: f64) -> Option<f64> {
    crate::pollutant::Concentration::new(ug_m3)
        .ok()?
        .to_ppb(pollutant, crate::pollutant::STATED_AT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pollutant::Concentration;

    #[test]
    fn a_mean_needs_its_share_of_hours() {
        let pm = |v| {
            Some(Concentrations::default().with(Pollutant::Pm25, Concentration::new(v).unwrap()))
        };
        let mut hours = vec![pm(10.0), pm(20.0), None, pm(30.0)];
        assert_eq!(mean(&hours, Pollutant::Pm25, 4, 3), Some(20.0));
        assert_eq!(mean(&hours, Pollutant::Pm25, 4, 4), None);
        hours[0] = None;
        assert_eq!(mean(&hours, Pollutant::Pm25, 2, 1), Some(20.0));
        assert_eq!(mean(&hours, Pollutant::No2, 4, 1), None);
    }

    #[test]
    fn twenty_degrees_restated_at_twenty_five_is_less() {
        // 100 µg/m³ of NO₂ at 20 °C is 100 × 24.055 / 24.45 = 98.38 µg/m³ at 25 °C.
        assert!((at_25c(Pollutant::No2, 100.0) - 98.384).abs() < 1e-3);
        assert_eq!(at_25c(Pollutant::Pm10, 100.0), 100.0);
    }
}
