//! The `indexes` of an hour: the same air on every index the API computes, each with its own
//! value, category, colour and dominant pollutant, so that an app shows its users the scale
//! they know in the colours its publisher uses, without a palette of its own.
//!
//! | code | index | value | dominant pollutant |
//! |---|---|---|---|
//! | `ci` | the cleanliness index route scores and alerts read | 0 (dirtiest) to 100 | the worst European sub-index |
//! | `eaqi` | the European Environment Agency's European Air Quality Index | band 1 (Good) to 6 (Extremely poor) | the same: the EAQI is the worst sub-index's band |
//! | `usa_epa` | the US EPA AQI (2024 table, NowCast where the source has the past hours) | 0 and up | the pollutant with the highest sub-AQI |
//! | `gbr_defra` | the UK Daily Air Quality Index (Defra) | band 1 to 10 | the pollutant with the highest band |
//! | `ind_cpcb` | India's National AQI (CPCB) | 0 to 500 | the pollutant with the highest sub-index |
//! | `chn_mep` | China's real-time AQI (MEE, HJ 633-2012) | 0 to 500 | the pollutant with the highest IAQI |
//! | `can_ec` | Canada's Air Quality Health Index (ECCC) | 1 to 10, then "10+" (11 and up) | the pollutant adding most to the sum |
//!
//! The one rule for the dominant pollutant: each index names the pollutant that sets its own
//! value. The CI and the EAQI share their sub-indices; the others have their own breakpoints
//! and averaging ([`aq_core::national`]), so that in one hour PM2.5 may set one index while
//! ozone sets another.
//!
//! By default an hour lists `ci`, `eaqi`, `usa_epa` and the national index of the place's
//! country when the API computes one (GB, IN, CN, CA); `indexes=` names any of them anywhere.

use aq_core::national::{NationalIndex, WINDOW_HOURS};
use aq_core::{AirHour, CiCategory, Concentrations, CountryCode, Pollutant};
use i18n_core::Language;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;

/// One index's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexCode {
    /// The cleanliness index.
    Ci,
    /// The EEA's European AQI.
    Eaqi,
    /// The US EPA AQI.
    UsaEpa,
    /// A national index.
    National(NationalIndex),
}

impl IndexCode {
    /// Every code, in the order the API documents them.
    pub const ALL: [IndexCode; 7] = [
        IndexCode::Ci,
        IndexCode::Eaqi,
        IndexCode::UsaEpa,
        IndexCode::National(NationalIndex::UkDaqi),
        IndexCode::National(NationalIndex::IndiaNaqi),
        IndexCode::National(NationalIndex::ChinaAqi),
        IndexCode::National(NationalIndex::CanadaAqhi),
    ];

    /// The codes every place lists by default, before its country's own.
    pub const EVERYWHERE: [IndexCode; 3] = [IndexCode::Ci, IndexCode::Eaqi, IndexCode::UsaEpa];

    /// The code as written in `indexes=` and in the answer.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            IndexCode::Ci => "ci",
            IndexCode::Eaqi => "eaqi",
            IndexCode::UsaEpa => "usa_epa",
            IndexCode::National(n) => n.code(),
        }
    }

    fn display_name(self) -> &'static str {
        match self {
            IndexCode::Ci => "Cleanliness index (0 to 100, higher is cleaner)",
            IndexCode::Eaqi => "European Air Quality Index (EEA)",
            IndexCode::UsaEpa => "US AQI (EPA)",
            IndexCode::National(n) => n.display_name(),
        }
    }

    /// The catalogue's scale of the index's category names (`i18n-core`): its code with
    /// hyphens, as `usa-epa`; the id of a category is the scale and the category's English
    /// name ([`i18n_core::label_id`]).
    #[must_use]
    pub fn scale(self) -> String {
        self.as_str().replace('_', "-")
    }

    /// The catalogue's id of the index's name for display: `index-` and its scale.
    #[must_use]
    pub fn display_id(self) -> String {
        format!("index-{}", self.scale())
    }

    /// The index's name in `language`.
    #[must_use]
    pub fn display_name_in(self, language: Language) -> &'static str {
        language
            .get(&self.display_id())
            .unwrap_or(self.display_name())
    }

    /// Every category name the index may answer.
    pub(crate) fn categories(self) -> Vec<&'static str> {
        match self {
            IndexCode::Ci => CiCategory::ALL.iter().map(|c| c.name()).collect(),
            IndexCode::Eaqi => CiCategory::ALL.iter().map(|c| c.eea().1).collect(),
            IndexCode::UsaEpa => aq_core::AqiCategory::ALL.iter().map(|c| c.name()).collect(),
            IndexCode::National(n) => n.categories().to_vec(),
        }
    }
}

/// The indexes an hour lists when `indexes=` is absent: those of every place, then the
/// national index of `country` when the API computes one.
#[must_use]
pub fn defaults(country: Option<CountryCode>) -> Vec<IndexCode> {
    let mut codes = IndexCode::EVERYWHERE.to_vec();
    codes.extend(
        country
            .and_then(|c| NationalIndex::of_country(c.as_str()))
            .map(IndexCode::National),
    );
    codes
}

/// The codes of an `indexes` parameter: comma-separated, each once, in the order given;
/// `None` when absent (the place's [`defaults`]).
///
/// # Errors
/// 400 naming `indexes` for an empty list or a code the API does not compute.
pub fn parse(text: Option<&str>) -> Result<Option<Vec<IndexCode>>, ApiError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let known = || {
        IndexCode::ALL
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut codes = Vec::new();
    for part in text.split(',').map(str::trim) {
        let code = IndexCode::ALL
            .into_iter()
            .find(|c| c.as_str().eq_ignore_ascii_case(part))
            .ok_or_else(|| {
                ApiError::invalid(format!(
                    "indexes: `{part}` is not an index this API computes; name one or more of {}, comma-separated",
                    known()
                ))
            })?;
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    Ok(Some(codes))
}

/// One index's reading of an hour.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IndexEntry {
    /// The index's code: `ci`, `eaqi`, `usa_epa`, or a national index's (`gbr_defra`,
    /// `ind_cpcb`, `chn_mep`, `can_ec`), the codes Google's Air Quality API gives them.
    pub code: &'static str,
    /// The index's name, for display.
    pub display_name: &'static str,
    /// The index's value on its own scale (the EAQI's is its band, 1 to 6; the UK's its
    /// band, 1 to 10; Canada's AQHI above 10 is its "10+").
    #[schema(minimum = 0)]
    pub value: u16,
    /// The index's own name for the value's category.
    pub category: &'static str,
    /// The category's colour as its publisher draws it, a CSS hex string (`#rrggbb`).
    #[schema(pattern = "^#[0-9a-f]{6}$")]
    pub color: &'static str,
    /// The pollutant that sets this index's value; null when the source gives no
    /// concentrations.
    pub dominant_pollutant: Option<&'static str>,
    /// True when the value is a lower bound: hourly SO₂ past 304 ppb gives the US AQI only
    /// "above 200"; air past the end of India's or China's table reads 500 at least.
    /// Absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub at_least: bool,
}

/// The entries of `hour` for `codes`, in their order, from the hour's `window` of past
/// concentrations (newest first, the hour's own first); an index the hour does not give (no
/// US AQI, a national index short of the hours its averages need) is left out.
/// Names and categories are in `language`.
pub(crate) fn entries(
    hour: &AirHour,
    window: &[Option<Concentrations>; WINDOW_HOURS],
    codes: &[IndexCode],
    language: Language,
) -> Vec<IndexEntry> {
    codes
        .iter()
        .filter_map(|&code| entry(code, hour, window, language))
        .collect()
}

/// The entries of the indexes every place lists, from `hour` alone, in `language`.
pub(crate) fn of(hour: &AirHour, language: Language) -> Vec<IndexEntry> {
    let window = [None; WINDOW_HOURS];
    entries(hour, &window, &IndexCode::EVERYWHERE, language)
}

fn entry(
    code: IndexCode,
    hour: &AirHour,
    window: &[Option<Concentrations>; WINDOW_HOURS],
    language: Language,
) -> Option<IndexEntry> {
    let category: CiCategory = hour.ci.category();
    let dominant = hour.dominant.map(Pollutant::code);
    let scale = code.scale();
    let base = |value, category, color, dominant_pollutant, at_least| IndexEntry {
        code: code.as_str(),
        display_name: code.display_name_in(language),
        value,
        category: language.label(&scale, category),
        color,
        dominant_pollutant,
        at_least,
    };
    match code {
        IndexCode::Ci => Some(base(
            u16::from(hour.ci.rounded()),
            category.name(),
            category.colour(),
            dominant,
            false,
        )),
        IndexCode::Eaqi => Some(base(
            u16::from(category.eea().0),
            category.eea().1,
            category.eea_colour(),
            dominant,
            false,
        )),
        IndexCode::UsaEpa => hour.us_aqi.map(|aqi| {
            base(
                aqi.value,
                aqi.category.name(),
                aqi.category.colour(),
                Some(aqi.dominant.code()),
                aqi.at_least,
            )
        }),
        IndexCode::National(n) => n.reading(window).map(|r| {
            base(
                r.value,
                r.category,
                r.colour,
                Some(r.dominant.code()),
                r.at_least,
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogues_english_names_each_index_as_the_core_does() {
        for code in IndexCode::ALL {
            assert_eq!(code.display_name_in(Language::English), code.display_name());
            if code != IndexCode::UsaEpa {
                // "US AQI (EPA)" is the index's name in every language.
                assert_ne!(code.display_name_in(Language::Polish), code.display_name());
            }
        }
    }

    #[test]
    fn codes_are_read_in_order_once_each_and_unknown_ones_refused() {
        assert_eq!(parse(None).unwrap(), None);
        assert_eq!(
            parse(Some("usa_epa, CI,usa_epa")).unwrap().unwrap(),
            vec![IndexCode::UsaEpa, IndexCode::Ci]
        );
        assert_eq!(
            parse(Some("ind_cpcb")).unwrap().unwrap(),
            vec![IndexCode::National(NationalIndex::IndiaNaqi)]
        );
        let e = parse(Some("ci,uaqi")).unwrap_err().detail;
        assert!(e.starts_with("indexes: `uaqi` is not an index"), "{e}");
        for code in IndexCode::ALL {
            assert!(e.contains(code.as_str()), "{e} lists {}", code.as_str());
        }
        assert!(
            parse(Some(""))
                .unwrap_err()
                .detail
                .starts_with("indexes: ``")
        );
    }

    #[test]
    fn the_default_adds_the_countrys_own_index() {
        let codes = |c: Option<&str>| {
            defaults(c.and_then(CountryCode::new))
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(codes(None), ["ci", "eaqi", "usa_epa"]);
        assert_eq!(codes(Some("FR")), ["ci", "eaqi", "usa_epa"]);
        assert_eq!(codes(Some("GB")), ["ci", "eaqi", "usa_epa", "gbr_defra"]);
        assert_eq!(codes(Some("in")), ["ci", "eaqi", "usa_epa", "ind_cpcb"]);
        assert_eq!(codes(Some("CN")), ["ci", "eaqi", "usa_epa", "chn_mep"]);
        assert_eq!(codes(Some("CA")), ["ci", "eaqi", "usa_epa", "can_ec"]);
    }
}
