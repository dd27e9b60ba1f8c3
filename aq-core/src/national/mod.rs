//! National air-quality indexes, each computed as its publisher defines it from an hour's
//! window of past hourly concentrations (newest first, up to [`WINDOW_HOURS`]):
//!
//! | index | publisher and table | module |
//! |---|---|---|
//! | [`NationalIndex::UkDaqi`] | Defra / COMEAP, Daily Air Quality Index (2011 review, in use since 2012) | [`uk_daqi`] |
//! | [`NationalIndex::IndiaNaqi`] | CPCB, National Air Quality Index (2014) | [`india_naqi`] |
//! | [`NationalIndex::ChinaAqi`] | Ministry of Ecology and Environment, HJ 633-2012 | [`china_aqi`] |
//! | [`NationalIndex::CanadaAqhi`] | Environment and Climate Change Canada, AQHI (Stieb et al. 2008) | [`canada_aqhi`] |
//!
//! Every index names as its dominant pollutant the one that sets its value. An index whose
//! averages lack the hours its completeness rule asks for is `None`: absent, not guessed.
//!
//! ```
//! use aq_core::national::NationalIndex;
//! use aq_core::{Concentration, Concentrations, Pollutant};
//!
//! // A day of 40 µg/m³ of PM2.5: band 4 (Moderate) on the UK index.
//! let hour = Concentrations::default().with(Pollutant::Pm25, Concentration::new(40.0).unwrap());
//! let day = vec![Some(hour); 24];
//! let daqi = NationalIndex::UkDaqi.reading(&day).unwrap();
//! assert_eq!((daqi.value, daqi.category, daqi.dominant), (4, "Moderate", Pollutant::Pm25));
//! assert_eq!(NationalIndex::of_country("gb"), Some(NationalIndex::UkDaqi));
//! ```

pub mod canada_aqhi;
pub mod china_aqi;
pub mod india_naqi;
pub mod uk_daqi;

mod average;
mod breakpoints;

use crate::pollutant::{Concentrations, Pollutant};

/// How many hours, the hour itself first, the longest average of any national index reads:
/// the 24-hour running means of particles.
pub const WINDOW_HOURS: usize = 24;

/// A national index the service computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NationalIndex {
    /// The UK Daily Air Quality Index (Defra), bands 1 to 10.
    UkDaqi,
    /// India's National Air Quality Index (CPCB), 0 to 500.
    IndiaNaqi,
    /// China's AQI (MEE, HJ 633-2012), real-time, 0 to 500.
    ChinaAqi,
    /// Canada's Air Quality Health Index (ECCC), 1 to 10 and above.
    CanadaAqhi,
}

/// One hour on a national index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NationalReading {
    /// The value on the index's own scale.
    pub value: u16,
    /// The publisher's name for the value's category, in English.
    pub category: &'static str,
    /// The category's colour as its publisher draws it (`#rrggbb`).
    pub colour: &'static str,
    /// The pollutant that sets the value.
    pub dominant: Pollutant,
    /// True when the value is a lower bound: the air is past the end of the publisher's
    /// table, which gives no higher number.
    pub at_least: bool,
}

impl NationalIndex {
    /// Every national index, in the order answers list them.
    pub const ALL: [NationalIndex; 4] = [
        NationalIndex::UkDaqi,
        NationalIndex::IndiaNaqi,
        NationalIndex::ChinaAqi,
        NationalIndex::CanadaAqhi,
    ];

    /// The index's code, the one Google's Air Quality API gives the same index, so that a
    /// client moving over keeps its codes.
    ///
    /// ```
    /// use aq_core::national::NationalIndex;
    ///
    /// assert_eq!(NationalIndex::CanadaAqhi.code(), "can_ec");
    /// ```
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            NationalIndex::UkDaqi => "gbr_defra",
            NationalIndex::IndiaNaqi => "ind_cpcb",
            NationalIndex::ChinaAqi => "chn_mep",
            NationalIndex::CanadaAqhi => "can_ec",
        }
    }

    /// The index's name, for display.
    #[must_use]
    pub fn display_name(self) -> &'static str {
        match self {
            NationalIndex::UkDaqi => "Daily Air Quality Index (UK, Defra)",
            NationalIndex::IndiaNaqi => "National Air Quality Index (India, CPCB)",
            NationalIndex::ChinaAqi => "Air Quality Index (China, MEE)",
            NationalIndex::CanadaAqhi => "Air Quality Health Index (Canada, ECCC)",
        }
    }

    /// Every category name of the index, cleanest first.
    ///
    /// ```
    /// use aq_core::national::NationalIndex;
    ///
    /// assert_eq!(NationalIndex::UkDaqi.categories(), ["Low", "Moderate", "High", "Very High"]);
    /// ```
    #[must_use]
    pub fn categories(self) -> &'static [&'static str] {
        match self {
            NationalIndex::UkDaqi => &["Low", "Moderate", "High", "Very High"],
            NationalIndex::IndiaNaqi => &[
                "Good",
                "Satisfactory",
                "Moderate",
                "Poor",
                "Very Poor",
                "Severe",
            ],
            NationalIndex::ChinaAqi => &[
                "Excellent",
                "Good",
                "Lightly Polluted",
                "Moderately Polluted",
                "Heavily Polluted",
                "Severely Polluted",
            ],
            NationalIndex::CanadaAqhi => {
                &["Low risk", "Moderate risk", "High risk", "Very high risk"]
            }
        }
    }

    /// The index of the country `alpha2` (ISO 3166-1 alpha-2, either case), when the service
    /// computes one for it.
    ///
    /// ```
    /// use aq_core::national::NationalIndex;
    ///
    /// assert_eq!(NationalIndex::of_country("IN"), Some(NationalIndex::IndiaNaqi));
    /// assert_eq!(NationalIndex::of_country("fr"), None);
    /// ```
    #[must_use]
    pub fn of_country(alpha2: &str) -> Option<NationalIndex> {
        match alpha2.to_ascii_uppercase().as_str() {
            "GB" => Some(NationalIndex::UkDaqi),
            "IN" => Some(NationalIndex::IndiaNaqi),
            "CN" => Some(NationalIndex::ChinaAqi),
            "CA" => Some(NationalIndex::CanadaAqhi),
            _ => None,
        }
    }

    /// The index of `hours[0]`, given newest first (`hours[i]` is the hour `i` hours before
    /// it; only the first [`WINDOW_HOURS`] are read); `None` when the hours do not give it.
    #[must_use]
    pub fn reading(self, hours: &[Option<Concentrations>]) -> Option<NationalReading> {
        let hours = &hours[..hours.len().min(WINDOW_HOURS)];
        match self {
            NationalIndex::UkDaqi => uk_daqi::reading(hours),
            NationalIndex::IndiaNaqi => india_naqi::reading(hours),
            NationalIndex::ChinaAqi => china_aqi::reading(hours),
            NationalIndex::CanadaAqhi => canada_aqhi::reading(hours),
        }
    }
}

/// The highest of `candidates` (the first on a tie, in [`Pollutant::ALL`] order when they
/// come in it), with its pollutant.
fn highest<T: PartialOrd + Copy>(
    candidates: impl IntoIterator<Item = (Pollutant, T)>,
) -> Option<(Pollutant, T)> {
    let mut best: Option<(Pollutant, T)> = None;
    for (p, v) in candidates {
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((p, v));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::pollutant::Concentration;

    fn hour(values: [f64; 6]) -> Concentrations {
        let mut c = Concentrations::default();
        for (p, v) in Pollutant::ALL.into_iter().zip(values) {
            c.set(p, Concentration::new(v).unwrap_or_else(|_| unreachable!()));
        }
        c
    }

    prop_compose! {
        /// A day of hours, some missing, with concentrations that reach past every table.
        fn day()(hours in proptest::collection::vec(
            proptest::option::weighted(0.9, proptest::array::uniform6(0.0f64..3000.0)), 24,
        )) -> Vec<Option<Concentrations>> {
            hours.into_iter().map(|h| h.map(hour)).collect()
        }
    }

    proptest! {
        #[test]
        fn no_index_falls_as_one_concentration_rises(
            hours in day(),
            which in 0usize..6,
            at in 0usize..24,
            more in 0.0f64..2000.0,
        ) {
            let p = Pollutant::ALL[which];
            let mut raised = hours.clone();
            if let Some(h) = raised[at].as_mut() {
                let now = h.get(p).map_or(0.0, Concentration::ug_m3);
                h.set(p, Concentration::new(now + more).unwrap_or_else(|_| unreachable!()));
            }
            for index in NationalIndex::ALL {
                if let Some(before) = index.reading(&hours) {
                    let after = index.reading(&raised);
                    prop_assert!(after.is_some(), "{index:?} vanished");
                    let after = after.unwrap_or_else(|| unreachable!());
                    prop_assert!(after.value >= before.value, "{index:?}: {before:?} then {after:?}");
                }
            }
        }
    }

    #[test]
    fn each_country_with_an_index_has_its_own_and_codes_are_googles() {
        let codes: Vec<_> = NationalIndex::ALL.iter().map(|i| i.code()).collect();
        assert_eq!(codes, ["gbr_defra", "ind_cpcb", "chn_mep", "can_ec"]);
        for (country, index) in [
            ("GB", NationalIndex::UkDaqi),
            ("in", NationalIndex::IndiaNaqi),
            ("Cn", NationalIndex::ChinaAqi),
            ("CA", NationalIndex::CanadaAqhi),
        ] {
            assert_eq!(NationalIndex::of_country(country), Some(index));
        }
        assert_eq!(NationalIndex::of_country("US"), None);
    }

    #[test]
    fn every_category_a_reading_names_is_listed() {
        let mut hours = Vec::new();
        for step in 0..60 {
            let v = f64::from(step) * 40.0;
            hours.push(Some(hour([v / 4.0, v / 2.0, v, v / 3.0, v, v * 10.0])));
            let day = vec![hours[step as usize]; 24];
            for index in NationalIndex::ALL {
                if let Some(r) = index.reading(&day) {
                    assert!(index.categories().contains(&r.category), "{index:?} {r:?}");
                }
            }
        }
    }
}
