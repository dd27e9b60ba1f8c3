//! [`aq_core::CountryLookup`] answered from the boundaries the `country-boundaries` crate
//! embeds: a raster of 360 × 180 cells, each holding the exact polygons that cross it, read
//! once at start-up (under a second) and kept in memory. Nothing is fetched at build or run
//! time.
//!
//! The boundary data is derived from OpenStreetMap: © OpenStreetMap contributors, available
//! under the Open Database License (ODbL 1.0). Every answer that tells a country read from it
//! (a lookup's `regionCode`) owes that credit, which the API documentation gives.
//!
//! ```
//! use aq_core::{CountryLookup, Position};
//! use insights_countries::Countries;
//!
//! let countries = Countries::load().unwrap();
//! let paris = Position::new(2.3522, 48.8566).unwrap();
//! assert_eq!(countries.country(paris).unwrap().as_str(), "FR");
//! ```

use aq_core::{CountryCode, CountryLookup, Position};
use country_boundaries::{BOUNDARIES_ODBL_360X180, CountryBoundaries, LatLon, ReadError};

/// The credit the boundary data asks of every use.
pub const ATTRIBUTION: &str = "© OpenStreetMap contributors (ODbL)";

/// Country boundaries, loaded.
#[derive(Debug)]
pub struct Countries {
    boundaries: CountryBoundaries,
}

impl Countries {
    /// Reads the embedded boundaries.
    ///
    /// # Errors
    /// [`ReadError`] when the embedded data does not read, which would be a broken build of
    /// the crate.
    pub fn load() -> Result<Self, ReadError> {
        Ok(Self {
            boundaries: CountryBoundaries::from_reader(BOUNDARIES_ODBL_360X180)?,
        })
    }
}

impl CountryLookup for Countries {
    fn country(&self, position: Position) -> Option<CountryCode> {
        let at = LatLon::new(position.lat(), position.lon()).ok()?;
        // The ids come smallest area first and include subdivisions (`US-TX`): the country is
        // the first that is two letters.
        self.boundaries
            .ids(at)
            .into_iter()
            .find_map(CountryCode::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_places_have_their_countries_and_the_open_sea_none() {
        let countries = Countries::load().unwrap();
        let at = |lon, lat| {
            countries
                .country(Position::new(lon, lat).unwrap())
                .map(|c| c.as_str().to_owned())
        };
        assert_eq!(at(-0.1276, 51.5072).as_deref(), Some("GB"), "London");
        assert_eq!(at(77.2090, 28.6139).as_deref(), Some("IN"), "Delhi");
        assert_eq!(at(116.4074, 39.9042).as_deref(), Some("CN"), "Beijing");
        assert_eq!(at(-79.3832, 43.6532).as_deref(), Some("CA"), "Toronto");
        assert_eq!(at(2.3522, 48.8566).as_deref(), Some("FR"), "Paris");
        assert_eq!(
            at(-97.0, 33.0).as_deref(),
            Some("US"),
            "Texas, past its subdivision"
        );
        assert_eq!(at(-30.0, 35.0), None, "the middle of the North Atlantic");
    }
}
