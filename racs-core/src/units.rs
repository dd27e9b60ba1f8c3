//! The closed vocabularies of a score-routes request: duration and length units, the sort
//! order, and the travel mode.

use std::fmt;

use serde::Serialize;
use serde::de::{self, Deserialize, Deserializer, Visitor};

/// The unit of every `routeDuration` in a request (`durationUnits`; default minutes).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub enum DurationUnit {
    /// `s`.
    #[serde(rename = "s")]
    Seconds,
    /// `m`, the default.
    #[default]
    #[serde(rename = "m")]
    Minutes,
    /// `h`.
    #[serde(rename = "h")]
    Hours,
}

impl DurationUnit {
    /// Every unit, in the order the API documents them.
    pub const ALL: [DurationUnit; 3] = [
        DurationUnit::Seconds,
        DurationUnit::Minutes,
        DurationUnit::Hours,
    ];

    /// The unit's name on the wire: `s`, `m` or `h`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            DurationUnit::Seconds => "s",
            DurationUnit::Minutes => "m",
            DurationUnit::Hours => "h",
        }
    }

    /// The unit written out for people: `seconds`, `minutes`, `hours`.
    ///
    /// ```
    /// assert_eq!(racs_core::DurationUnit::Minutes.word(), "minutes");
    /// ```
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            DurationUnit::Seconds => "seconds",
            DurationUnit::Minutes => "minutes",
            DurationUnit::Hours => "hours",
        }
    }

    /// How many seconds one of this unit is.
    #[must_use]
    pub fn seconds(self) -> f64 {
        match self {
            DurationUnit::Seconds => 1.0,
            DurationUnit::Minutes => 60.0,
            DurationUnit::Hours => 3600.0,
        }
    }
}

/// The unit of every length a response reports (`lengthUnits`; default metres).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub enum LengthUnit {
    /// `m`, the default.
    #[default]
    #[serde(rename = "m")]
    Metres,
    /// `km`.
    #[serde(rename = "km")]
    Kilometres,
    /// `ft` (international foot, 0.3048 m).
    #[serde(rename = "ft")]
    Feet,
    /// `yd` (international yard, 0.9144 m).
    #[serde(rename = "yd")]
    Yards,
    /// `mi` (international mile, 1,609.344 m).
    #[serde(rename = "mi")]
    Miles,
}

impl LengthUnit {
    /// Every unit, in the order the API documents them.
    pub const ALL: [LengthUnit; 5] = [
        LengthUnit::Metres,
        LengthUnit::Kilometres,
        LengthUnit::Feet,
        LengthUnit::Yards,
        LengthUnit::Miles,
    ];

    /// The unit's name on the wire: `m`, `km`, `ft`, `yd` or `mi`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            LengthUnit::Metres => "m",
            LengthUnit::Kilometres => "km",
            LengthUnit::Feet => "ft",
            LengthUnit::Yards => "yd",
            LengthUnit::Miles => "mi",
        }
    }

    /// The unit written out for people: `metres`, `kilometres`, `feet`, `yards`, `miles`.
    ///
    /// ```
    /// assert_eq!(racs_core::LengthUnit::Metres.word(), "metres");
    /// ```
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            LengthUnit::Metres => "metres",
            LengthUnit::Kilometres => "kilometres",
            LengthUnit::Feet => "feet",
            LengthUnit::Yards => "yards",
            LengthUnit::Miles => "miles",
        }
    }

    /// How many metres one of this unit is.
    #[must_use]
    pub fn metres(self) -> f64 {
        match self {
            LengthUnit::Metres => 1.0,
            LengthUnit::Kilometres => 1000.0,
            LengthUnit::Feet => 0.3048,
            LengthUnit::Yards => 0.9144,
            LengthUnit::Miles => 1609.344,
        }
    }

    /// `metres` expressed in this unit.
    ///
    /// ```
    /// use racs_core::LengthUnit;
    ///
    /// assert_eq!(LengthUnit::Kilometres.from_metres(2500.0), 2.5);
    /// assert!((LengthUnit::Miles.from_metres(1609.344) - 1.0).abs() < 1e-12);
    /// ```
    #[must_use]
    pub fn from_metres(self, metres: f64) -> f64 {
        metres / self.metres()
    }
}

/// The order of `racss` in the response (`routesSort`, required).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RoutesSort {
    /// Cleanest first; routes without a score last.
    Desc,
    /// Least clean first; routes without a score last.
    Asc,
    /// The order of the request.
    Original,
}

impl RoutesSort {
    /// Every order, in the order the API documents them.
    pub const ALL: [RoutesSort; 3] = [RoutesSort::Desc, RoutesSort::Asc, RoutesSort::Original];

    /// The order's name on the wire: `desc`, `asc` or `original`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RoutesSort::Desc => "desc",
            RoutesSort::Asc => "asc",
            RoutesSort::Original => "original",
        }
    }
}

/// How the traveller moves (`travelMode`, an optional extension of the API). It sets the
/// ventilation rate of the inhaled-dose proxy behind the `LowestExposure` recommendation.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TravelMode {
    /// On foot.
    Walk,
    /// By bicycle.
    Cycle,
    /// Driving a car.
    Drive,
    /// Sitting as a passenger (car, bus, train): sedentary breathing.
    Passenger,
}

impl TravelMode {
    /// Every mode, in the order the API documents them.
    pub const ALL: [TravelMode; 4] = [
        TravelMode::Walk,
        TravelMode::Cycle,
        TravelMode::Drive,
        TravelMode::Passenger,
    ];

    /// The mode's name on the wire: `walk`, `cycle`, `drive` or `passenger`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TravelMode::Walk => "walk",
            TravelMode::Cycle => "cycle",
            TravelMode::Drive => "drive",
            TravelMode::Passenger => "passenger",
        }
    }
}

macro_rules! display_as_str {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}

display_as_str!(DurationUnit, LengthUnit, RoutesSort, TravelMode);

/// Each vocabulary is read from its wire name only, and a refusal lists the allowed names,
/// whatever was sent instead (serde's derived enums also take `{"m": null}`, and answer a
/// number with a bare "expected value").
macro_rules! deserialize_by_name {
    ($($t:ty),*) => {$(
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct ByName;

                impl Visitor<'_> for ByName {
                    type Value = $t;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "one of {}", allowed(&<$t>::ALL, <$t>::as_str))
                    }

                    fn visit_str<E: de::Error>(self, name: &str) -> Result<$t, E> {
                        lookup(&<$t>::ALL, name, <$t>::as_str).ok_or_else(|| {
                            E::custom(format!(
                                "{name:?} is not allowed; expected one of {}",
                                allowed(&<$t>::ALL, <$t>::as_str)
                            ))
                        })
                    }
                }

                deserializer.deserialize_str(ByName)
            }
        }
    )*};
}

deserialize_by_name!(DurationUnit, LengthUnit, RoutesSort, TravelMode);

/// Finds the member of `all` whose wire name is `name`.
fn lookup<T: Copy>(all: &[T], name: &str, as_str: fn(T) -> &'static str) -> Option<T> {
    all.iter().copied().find(|&v| as_str(v) == name)
}

/// The allowed wire names, comma separated, for error messages.
fn allowed<T: Copy>(all: &[T], as_str: fn(T) -> &'static str) -> String {
    all.iter()
        .map(|&v| as_str(v))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_minutes_and_metres() {
        assert_eq!(DurationUnit::default(), DurationUnit::Minutes);
        assert_eq!(LengthUnit::default(), LengthUnit::Metres);
    }

    #[test]
    fn wire_names_match_serde() {
        for u in DurationUnit::ALL {
            assert_eq!(
                serde_json::to_value(u).unwrap(),
                serde_json::json!(u.as_str())
            );
        }
        for u in LengthUnit::ALL {
            assert_eq!(
                serde_json::to_value(u).unwrap(),
                serde_json::json!(u.as_str())
            );
        }
        for s in RoutesSort::ALL {
            assert_eq!(
                serde_json::to_value(s).unwrap(),
                serde_json::json!(s.as_str())
            );
        }
        for m in TravelMode::ALL {
            assert_eq!(
                serde_json::to_value(m).unwrap(),
                serde_json::json!(m.as_str())
            );
        }
    }

    #[test]
    fn conversions() {
        assert_eq!(DurationUnit::Hours.seconds(), 3600.0);
        assert_eq!(DurationUnit::Minutes.seconds(), 60.0);
        assert!((LengthUnit::Feet.from_metres(0.3048) - 1.0).abs() < 1e-12);
        assert!((LengthUnit::Yards.from_metres(9.144) - 10.0).abs() < 1e-12);
    }

    #[test]
    fn lookup_and_allowed() {
        assert_eq!(
            lookup(&RoutesSort::ALL, "asc", RoutesSort::as_str),
            Some(RoutesSort::Asc)
        );
        assert_eq!(lookup(&RoutesSort::ALL, "ASC", RoutesSort::as_str), None);
        assert_eq!(
            allowed(&RoutesSort::ALL, RoutesSort::as_str),
            "desc, asc, original"
        );
    }
}
