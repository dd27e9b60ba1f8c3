//! The names of the ports' enums as they appear in stored rows and metrics, owned here so that
//! every store, the server's metrics and the dashboard spell them alike. Each name is the one
//! serde writes for the variant, which a test checks. The SQL schemas state the same names in
//! their CHECK constraints and in the partial index of due jobs (`stage <> 'done'`), where they
//! must stay literal for the index to serve; the conformance suite proves that every name a store
//! writes it can read back.

use thiserror::Error;

use super::StoreError;

/// A name that none of an enum's variants carries, as [`std::str::FromStr`] on
/// [`JobStage`](super::JobStage), [`JobOutcome`](super::JobOutcome) and
/// [`DeliveryErrorKind`](super::DeliveryErrorKind) returns it.
///
/// ```
/// use alerts_core::ports::{JobStage, StoreError, UnknownName};
///
/// let e = "later".parse::<JobStage>().unwrap_err();
/// assert_eq!(e, UnknownName { what: "job stage", name: "later".to_owned() });
/// assert_eq!(e.to_string(), "unknown job stage `later`");
/// // Read back from a store, an unknown name means damaged data.
/// assert!(matches!(StoreError::from(e), StoreError::Corrupt(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown {what} `{name}`")]
pub struct UnknownName {
    /// What the name was meant to name, such as `job stage`.
    pub what: &'static str,
    /// The name given.
    pub name: String,
}

impl From<UnknownName> for StoreError {
    fn from(e: UnknownName) -> Self {
        Self::Corrupt(e.to_string())
    }
}

/// Gives a fieldless enum its names: `as_str`, `ALL`, `Display` and `FromStr` (with
/// [`UnknownName`]), from one list of variant–name pairs.
macro_rules! names {
    ($ty:ident, $what:literal, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every variant, in declaration order.
            pub const ALL: &[Self] = &[$(Self::$variant),+];

            /// The variant's name, as stores keep it and serde writes it.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::ports::UnknownName;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok(Self::$variant),)+
                    other => Err($crate::ports::UnknownName {
                        what: $what,
                        name: other.to_owned(),
                    }),
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use std::fmt::Debug;
    use std::str::FromStr;

    use serde::Serialize;

    use crate::ports::{DeliveryErrorKind, JobOutcome, JobStage};

    fn round_trips<T>(all: &[T])
    where
        T: Copy + Debug + PartialEq + Serialize + FromStr<Err = crate::ports::UnknownName>,
        T: std::fmt::Display,
    {
        for &v in all {
            let name = v.to_string();
            assert_eq!(serde_json::to_value(v).unwrap(), name.as_str(), "{v:?}");
            assert_eq!(name.parse::<T>().unwrap(), v);
        }
        assert!("".parse::<T>().is_err());
    }

    #[test]
    fn every_name_parses_back_and_matches_serde() {
        round_trips(JobStage::ALL);
        round_trips(JobOutcome::ALL);
        round_trips(DeliveryErrorKind::ALL);
    }

    #[test]
    fn unknown_names_say_what_they_were_meant_to_name() {
        assert_eq!(
            "later".parse::<JobOutcome>().unwrap_err().to_string(),
            "unknown job outcome `later`"
        );
        assert_eq!(
            "dns".parse::<DeliveryErrorKind>().unwrap_err().to_string(),
            "unknown delivery error `dns`"
        );
    }
}
