//! The country of a place: the port [`CountryLookup`], which an adapter answers from
//! boundaries it holds, and [`CountryCode`], an ISO 3166-1 alpha-2 code. A lookup uses it to
//! pick the place's national index.

use std::fmt;

use crate::position::Position;

/// An ISO 3166-1 alpha-2 country code, held in upper case (`GB`).
///
/// ```
/// use aq_core::CountryCode;
///
/// let gb = CountryCode::new("gb").unwrap();
/// assert_eq!((gb.as_str(), gb.lowercase().as_str()), ("GB", "gb"));
/// assert!(CountryCode::new("GBR").is_none() && CountryCode::new("G1").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CountryCode([u8; 2]);

impl CountryCode {
    /// `code` when it is two ASCII letters (either case); `None` otherwise.
    #[must_use]
    pub fn new(code: &str) -> Option<Self> {
        match code.as_bytes() {
            &[a, b] if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
                Some(Self([a.to_ascii_uppercase(), b.to_ascii_uppercase()]))
            }
            _ => None,
        }
    }

    /// The code in upper case, as ISO writes it.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // Two ASCII letters by construction.
        std::str::from_utf8(&self.0).unwrap_or("")
    }

    /// The code in lower case, as Google's Air Quality API answers `regionCode`.
    #[must_use]
    pub fn lowercase(&self) -> String {
        self.as_str().to_ascii_lowercase()
    }
}

impl fmt::Display for CountryCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The country a position lies in.
pub trait CountryLookup: Send + Sync {
    /// The country of `position`; `None` at sea or where no country's boundary reaches.
    fn country(&self, position: Position) -> Option<CountryCode>;
}

/// A lookup that knows no country: every place is `None`. For servers and tests that do not
/// load boundaries.
///
/// ```
/// use aq_core::{CountryLookup, NoCountries, Position};
///
/// assert_eq!(NoCountries.country(Position::new(-0.12, 51.5).unwrap()), None);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCountries;

impl CountryLookup for NoCountries {
    fn country(&self, _position: Position) -> Option<CountryCode> {
        None
    }
}
