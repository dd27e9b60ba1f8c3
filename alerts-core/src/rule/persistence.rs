//! How long a change must last before a rule tells it, and how far back it must come before it
//! counts as over: the guard against one-hour wiggles of a forecast and values flapping across
//! a line.
//!
//! A rule may set both; unset, the defaults of its data type apply (and are not written, so
//! that a rule stored before the choice existed reads with today's defaults):
//!
//! | | minimum duration | hysteresis |
//! |---|---|---|
//! | Air quality | 2 hours (1 to 24) | 2 CI points (0 to 20) |
//! | Pollen | 1 day (1 to 3) | 0 levels (0 to 2) |
//!
//! Two hours is the shortest change a person can act on (a walk, a window, a training
//! session) and leaves out the single-hour wiggles that forecasts carry from one run to the
//! next; a day is pollen's own resolution. Two CI points are about half a microgram of PM2.5 in
//! the cleanest bands: a forecast must come back that far inside the threshold before the
//! episode is over, so a value hovering on the line stays one episode. Pollen levels are
//! already coarse classes, so they need no margin by default.

use serde::{Deserialize, Serialize};

use super::{DataType, RuleError};

/// The default minimum duration of an air-quality change, in hours.
pub const DEFAULT_AQ_MIN_HOURS: u8 = 2;
/// The default minimum duration of a pollen change, in days.
pub const DEFAULT_POLLEN_MIN_DAYS: u8 = 1;
/// The default hysteresis of air quality, in CI points.
pub const DEFAULT_AQ_HYSTERESIS: u8 = 2;
/// The default hysteresis of pollen, in levels.
pub const DEFAULT_POLLEN_HYSTERESIS: u8 = 0;

/// A rule's minimum duration and hysteresis, each `None` for its data type's default.
///
/// ```
/// use alerts_core::rule::{DataType, Persistence};
///
/// let default = Persistence::default();
/// assert_eq!(default.min_duration(DataType::Aq), 2);
/// assert_eq!(default.hysteresis(DataType::Pollen), 0);
/// let set = Persistence::new(DataType::Aq, Some(6), Some(5)).unwrap();
/// assert_eq!((set.min_duration(DataType::Aq), set.hysteresis(DataType::Aq)), (6, 5));
/// // A pollen change of five days cannot be seen in a four-day forecast.
/// assert!(Persistence::new(DataType::Pollen, Some(5), None).is_err());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Persistence {
    /// Hours (air quality) or days (pollen) a change must last; `None` for the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_duration: Option<u8>,
    /// CI points (air quality) or levels (pollen) a change must come back inside its threshold
    /// before it is over; `None` for the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hysteresis: Option<u8>,
}

impl Persistence {
    /// Both settings, checked against what `data_type` allows.
    ///
    /// # Errors
    /// [`RuleError::OutOfRange`] naming `min_duration` or `hysteresis`, with its range and unit.
    pub fn new(
        data_type: DataType,
        min_duration: Option<u8>,
        hysteresis: Option<u8>,
    ) -> Result<Self, RuleError> {
        let (durations, margins) = ranges(data_type);
        let check = |field, value: Option<u8>, (min, max, unit): (u8, u8, &'static str)| match value
        {
            Some(v) if !(min..=max).contains(&v) => Err(RuleError::OutOfRange {
                field,
                value: v,
                min,
                max,
                unit,
            }),
            _ => Ok(()),
        };
        check("min_duration", min_duration, durations)?;
        check("hysteresis", hysteresis, margins)?;
        Ok(Self {
            min_duration,
            hysteresis,
        })
    }

    /// The minimum duration in force: hours for air quality, days for pollen.
    #[must_use]
    pub fn min_duration(&self, data_type: DataType) -> u8 {
        self.min_duration.unwrap_or(match data_type {
            DataType::Aq => DEFAULT_AQ_MIN_HOURS,
            DataType::Pollen => DEFAULT_POLLEN_MIN_DAYS,
        })
    }

    /// The hysteresis in force: CI points for air quality, levels for pollen.
    #[must_use]
    pub fn hysteresis(&self, data_type: DataType) -> u8 {
        self.hysteresis.unwrap_or(match data_type {
            DataType::Aq => DEFAULT_AQ_HYSTERESIS,
            DataType::Pollen => DEFAULT_POLLEN_HYSTERESIS,
        })
    }

    /// Whether both settings are the defaults (nothing to write).
    #[must_use]
    pub fn is_default(&self) -> bool {
        self.min_duration.is_none() && self.hysteresis.is_none()
    }
}

/// What `data_type` allows: (min, max, unit) of the minimum duration, then of the hysteresis.
#[must_use]
pub fn ranges(data_type: DataType) -> ((u8, u8, &'static str), (u8, u8, &'static str)) {
    match data_type {
        DataType::Aq => ((1, 24, "hours"), (0, 20, "CI points")),
        // Four days ahead at most: a change starting tomorrow can be seen to last three.
        DataType::Pollen => ((1, 3, "days"), (0, 2, "levels")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bound_is_inclusive_and_named_when_passed() {
        for dt in [DataType::Aq, DataType::Pollen] {
            let ((dmin, dmax, _), (hmin, hmax, _)) = ranges(dt);
            assert!(Persistence::new(dt, Some(dmin), Some(hmin)).is_ok());
            assert!(Persistence::new(dt, Some(dmax), Some(hmax)).is_ok());
            let err = Persistence::new(dt, Some(dmax + 1), None).unwrap_err();
            assert!(err.to_string().starts_with("min_duration:"), "{err}");
            let err = Persistence::new(dt, None, Some(hmax + 1)).unwrap_err();
            assert!(err.to_string().starts_with("hysteresis:"), "{err}");
        }
        let err = Persistence::new(DataType::Aq, Some(0), None).unwrap_err();
        assert_eq!(err.to_string(), "min_duration: 0 is outside 1 to 24 hours");
    }
}
