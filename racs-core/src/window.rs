//! The departure window of a score-routes request: the members `departureWindowMinutes` and
//! `departureStepMinutes`, the departures they stand for, and the limit on the scorings they
//! ask for.
//!
//! The departures are `departureTime + k · step` for `k = 0, 1, ...` while `k · step` is at
//! most the window: both ends are included when the step divides the window (a 60-minute window
//! in 15-minute steps is 08:00, 08:15, 08:30, 08:45 and 09:00), and a step that does not
//! divide it stops at the last departure inside it.

use chrono::{DateTime, TimeDelta, Utc};
use serde::de::DeserializeSeed;
use serde::{Deserialize, Deserializer};

use crate::config::Limits;
use crate::error::RequestError;

/// The shortest and longest `departureWindowMinutes`.
pub const WINDOW_MINUTES: (u32, u32) = (15, 720);

/// The shortest and longest `departureStepMinutes`.
pub const STEP_MINUTES: (u32, u32) = (5, 720);

/// `departureStepMinutes` when the request does not say.
pub const DEFAULT_STEP_MINUTES: u32 = 15;

/// When a traveller could leave: from `departureTime` to `window_minutes` later, every
/// `step_minutes`.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use racs_core::DepartureWindow;
///
/// let window = DepartureWindow { window_minutes: 60, step_minutes: 25 };
/// assert_eq!(window.later_departures(), 2);
/// let start = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
/// let times: Vec<String> = window.departures(start).map(|t| t.format("%H:%M").to_string()).collect();
/// assert_eq!(times, ["08:00", "08:25", "08:50"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepartureWindow {
    /// How long after `departureTime` the traveller could still leave, in minutes.
    pub window_minutes: u32,
    /// Minutes between two departures.
    pub step_minutes: u32,
}

impl DepartureWindow {
    /// How many departures after `departureTime` the window holds: `window / step`, rounded
    /// down. Each is one more scoring of every route.
    #[must_use]
    pub fn later_departures(&self) -> u32 {
        self.window_minutes
            .checked_div(self.step_minutes)
            .unwrap_or_default()
    }

    /// The offset of departure `k` from `departureTime`.
    #[must_use]
    pub fn offset(&self, k: u32) -> TimeDelta {
        TimeDelta::minutes(i64::from(k) * i64::from(self.step_minutes))
    }

    /// Every departure of the window in time order, `start` (the request's `departureTime`)
    /// first. Departures past the end of chrono's calendar are left out.
    pub fn departures(&self, start: DateTime<Utc>) -> impl Iterator<Item = DateTime<Utc>> + '_ {
        (0..=self.later_departures()).map_while(move |k| start.checked_add_signed(self.offset(k)))
    }
}

/// Reads `departureWindowMinutes`: a whole number of minutes, or `null` for none.
pub(crate) fn window_minutes<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u32>, D::Error> {
    whole_minutes(deserializer, WINDOW_MINUTES)
}

/// Reads `departureStepMinutes`: a whole number of minutes, or `null` for the default.
pub(crate) fn step_minutes<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u32>, D::Error> {
    whole_minutes(deserializer, STEP_MINUTES)
}

/// A number of minutes within `range`. `15.0` is 15 minutes, as JSON Schema's integers allow.
fn whole_minutes<'de, D: Deserializer<'de>>(
    deserializer: D,
    range: (u32, u32),
) -> Result<Option<u32>, D::Error> {
    let Some(Minutes(v)) = Option::<Minutes>::deserialize(deserializer)? else {
        return Ok(None);
    };
    if v.fract() != 0.0 {
        return Err(serde::de::Error::custom(format!(
            "{v} is not a whole number of minutes"
        )));
    }
    if !(f64::from(range.0)..=f64::from(range.1)).contains(&v) {
        return Err(serde::de::Error::custom(out_of_range(v, range)));
    }
    // Whole and within a range of u32, so the cast is exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(Some(v as u32))
}

/// Any JSON number, named `minutes` in the message when it is something else.
struct Minutes(f64);

impl<'de> Deserialize<'de> for Minutes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        aq_core::json::Number("minutes")
            .deserialize(deserializer)
            .map(Self)
    }
}

fn out_of_range(v: impl std::fmt::Display, (lo, hi): (u32, u32)) -> String {
    format!("{v} minutes is outside {lo} to {hi}")
}

/// The request's window, when it has one; checks the members' ranges (for requests not read
/// from JSON), that a step comes with a window, and that routes × later departures stays
/// within [`Limits::max_departure_scorings`].
pub(crate) fn checked(
    window: Option<u32>,
    step: Option<u32>,
    routes: usize,
    limits: &Limits,
) -> Result<Option<DepartureWindow>, RequestError> {
    let in_range = |v: u32, (lo, hi): (u32, u32)| (lo..=hi).contains(&v);
    if let Some(w) = window.filter(|&w| !in_range(w, WINDOW_MINUTES)) {
        return Err(RequestError::invalid(
            "departureWindowMinutes",
            out_of_range(w, WINDOW_MINUTES),
        ));
    }
    if let Some(s) = step.filter(|&s| !in_range(s, STEP_MINUTES)) {
        return Err(RequestError::invalid(
            "departureStepMinutes",
            out_of_range(s, STEP_MINUTES),
        ));
    }
    let Some(window_minutes) = window else {
        if step.is_some() {
            return Err(RequestError::invalid(
                "departureStepMinutes",
                "needs departureWindowMinutes, the window it steps through",
            ));
        }
        return Ok(None);
    };
    let window = DepartureWindow {
        window_minutes,
        step_minutes: step.unwrap_or(DEFAULT_STEP_MINUTES),
    };
    let later = window.later_departures() as usize;
    let scorings = routes.saturating_mul(later);
    if scorings > limits.max_departure_scorings {
        return Err(RequestError::too_large(
            "departureWindowMinutes",
            format!(
                "{routes} routes × {later} later departures are {scorings} scorings, more than \
                 the limit of {} (max_departure_scorings)",
                limits.max_departure_scorings
            ),
        ));
    }
    Ok(Some(window))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_step_that_divides_the_window_includes_its_end() {
        let start = DateTime::from_timestamp(1_777_622_400, 0).unwrap();
        let window = DepartureWindow {
            window_minutes: 60,
            step_minutes: 15,
        };
        let times: Vec<_> = window.departures(start).collect();
        assert_eq!(times.len(), 5);
        assert_eq!(times[4] - start, TimeDelta::minutes(60));
    }

    #[test]
    fn a_step_without_a_window_is_refused() {
        let e = checked(None, Some(10), 1, &Limits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "departureStepMinutes: needs departureWindowMinutes, the window it steps through"
        );
        assert_eq!(checked(None, None, 1, &Limits::default()), Ok(None));
    }

    #[test]
    fn ranges_are_checked_for_requests_built_in_rust() {
        let e = checked(Some(721), None, 1, &Limits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "departureWindowMinutes: 721 minutes is outside 15 to 720"
        );
        let e = checked(Some(60), Some(4), 1, &Limits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "departureStepMinutes: 4 minutes is outside 5 to 720"
        );
    }

    fn parse(members: &str) -> Result<crate::ScoreRequest, String> {
        let body = format!(
            r#"{{"routes": [{{"id": 1, "polyline": [[0, 0], [0, 0.01]], "routeDuration": 10}}],
                 "routesSort": "desc"{members}}}"#
        );
        crate::ScoreRequest::from_json_slice(body.as_bytes(), &Limits::default()).map_err(|e| {
            let text = e.to_string();
            text.split(" at line ")
                .next()
                .unwrap_or_default()
                .to_owned()
        })
    }

    #[test]
    fn the_members_are_read_as_whole_minutes_and_named_when_wrong() {
        let r = parse(r#", "departureWindowMinutes": 90.0, "departureStepMinutes": null"#).unwrap();
        assert_eq!(
            r.departure_window(),
            Some(DepartureWindow {
                window_minutes: 90,
                step_minutes: 15
            })
        );
        assert_eq!(
            parse(r#", "departureWindowMinutes": null"#)
                .unwrap()
                .departure_window(),
            None
        );
        for (members, error) in [
            (
                r#", "departureWindowMinutes": 14"#,
                "departureWindowMinutes: 14 minutes is outside 15 to 720",
            ),
            (
                r#", "departureWindowMinutes": 1e30"#,
                "departureWindowMinutes: 1000000000000000000000000000000 minutes is outside 15 \
                 to 720",
            ),
            (
                r#", "departureWindowMinutes": 30.5"#,
                "departureWindowMinutes: 30.5 is not a whole number of minutes",
            ),
            (
                r#", "departureWindowMinutes": 60, "departureStepMinutes": 0"#,
                "departureStepMinutes: 0 minutes is outside 5 to 720",
            ),
            (
                r#", "departureWindowMinutes": "60""#,
                "departureWindowMinutes: invalid type: string \"60\", expected a number (minutes)",
            ),
            (
                r#", "departureStepMinutes": 10"#,
                "departureStepMinutes: needs departureWindowMinutes, the window it steps through",
            ),
        ] {
            assert_eq!(parse(members).unwrap_err(), error, "{members}");
        }
    }

    proptest! {
        /// Every departure lies in [departureTime, departureTime + window], on the step grid,
        /// and the next step would leave the window.
        #[test]
        fn steps_stay_inside_the_window(
            window_minutes in WINDOW_MINUTES.0..=WINDOW_MINUTES.1,
            step_minutes in STEP_MINUTES.0..=STEP_MINUTES.1,
            start_s in 0i64..253_402_300_799,
        ) {
            let start = DateTime::from_timestamp(start_s, 0).unwrap();
            let window = DepartureWindow { window_minutes, step_minutes };
            let times: Vec<_> = window.departures(start).collect();
            prop_assert_eq!(times.len() as u32, window.later_departures() + 1);
            prop_assert_eq!(times[0], start);
            for (k, t) in times.iter().enumerate() {
                let offset = (*t - start).num_minutes();
                prop_assert!((0..=i64::from(window_minutes)).contains(&offset));
                prop_assert_eq!(offset, k as i64 * i64::from(step_minutes));
            }
            let last = (*times.last().unwrap() - start).num_minutes();
            prop_assert!(last + i64::from(step_minutes) > i64::from(window_minutes));
        }

        /// A window is refused with 413 exactly when routes × later departures exceed the
        /// configured limit, and the refusal names the member and the limit.
        #[test]
        fn the_limit_holds(
            routes in 1usize..60,
            window_minutes in WINDOW_MINUTES.0..=WINDOW_MINUTES.1,
            step_minutes in STEP_MINUTES.0..=STEP_MINUTES.1,
            max_departure_scorings in 0usize..3000,
        ) {
            let limits = Limits { max_departure_scorings, ..Limits::default() };
            let scorings = routes * (window_minutes / step_minutes) as usize;
            match checked(Some(window_minutes), Some(step_minutes), routes, &limits) {
                Ok(window) => {
                    prop_assert!(scorings <= max_departure_scorings);
                    let window = window.unwrap();
                    prop_assert!(routes * window.later_departures() as usize <= max_departure_scorings);
                }
                Err(RequestError::TooLarge(field)) => {
                    prop_assert!(scorings > max_departure_scorings);
                    prop_assert_eq!(field.path, "departureWindowMinutes");
                    prop_assert!(field.problem.contains("max_departure_scorings"));
                    let limit_text = format!("limit of {max_departure_scorings}");
                    prop_assert!(field.problem.contains(&limit_text));
                }
                Err(e) => prop_assert!(false, "{e}"),
            }
        }
    }
}
