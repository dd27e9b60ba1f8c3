//! The `indexes` of an hour: the same air on every index the API computes, each with its own
//! value, category, colour and dominant pollutant, so that an app shows its users the scale
//! they know in the colours its publisher uses, without a palette of its own.
//!
//! | code | index | value | dominant pollutant |
//! |---|---|---|---|
//! | `ci` | the cleanliness index route scores and alerts read | 0 (dirtiest) to 100 | the worst European sub-index |
//! | `eaqi` | the European Environment Agency's European Air Quality Index | band 1 (Good) to 6 (Extremely poor) | the same: the EAQI is the worst sub-index's band |
//! | `usa_epa` | the US EPA AQI (2024 table, NowCast where the source has the past hours) | 0 and up | the pollutant with the highest sub-AQI |
//!
//! The one rule for the dominant pollutant: each index names the pollutant that sets its own
//! value. The CI and the EAQI share their sub-indices; the US AQI has other breakpoints and
//! averaging, so that in one hour PM2.5 may set it while ozone sets the European ones.

use aq_core::{AirHour, CiCategory, Pollutant};
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
}

impl IndexCode {
    /// Every code, in the order answers list them.
    pub const ALL: [IndexCode; 3] = [IndexCode::Ci, IndexCode::Eaqi, IndexCode::UsaEpa];

    /// The code as written in `indexes=` and in the answer.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            IndexCode::Ci => "ci",
            IndexCode::Eaqi => "eaqi",
            IndexCode::UsaEpa => "usa_epa",
        }
    }

    /// The catalogue's id of the index's name for display (`index-` and the code, with
    /// hyphens).
    #[must_use]
    pub fn display_id(self) -> &'static str {
        match self {
            IndexCode::Ci => "index-ci",
            IndexCode::Eaqi => "index-eaqi",
            IndexCode::UsaEpa => "index-usa-epa",
        }
    }
}

/// The codes of an `indexes` parameter: comma-separated, each once, in the order given;
/// every index when absent.
///
/// # Errors
/// 400 naming `indexes` for an empty list or a code the API does not compute.
pub fn parse(text: Option<&str>) -> Result<Vec<IndexCode>, ApiError> {
    let Some(text) = text else {
        return Ok(IndexCode::ALL.to_vec());
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
    Ok(codes)
}

/// One index's reading of an hour.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IndexEntry {
    /// `ci`, `eaqi` or `usa_epa`.
    pub code: &'static str,
    /// The index's name, for display.
    pub display_name: &'static str,
    /// The index's value on its own scale (the EAQI's is its band, 1 to 6).
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
    /// "above 200". Absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub at_least: bool,
}

/// Every index of `hour` the API computes, in [`IndexCode::ALL`]'s order, named in `language`;
/// the US AQI only when the concentrations give one.
pub(crate) fn of(hour: &AirHour, language: Language) -> Vec<IndexEntry> {
    let category: CiCategory = hour.ci.category();
    let dominant = hour.dominant.map(Pollutant::code);
    let mut entries = vec![
        IndexEntry {
            code: IndexCode::Ci.as_str(),
            display_name: language.text(IndexCode::Ci.display_id()),
            value: u16::from(hour.ci.rounded()),
            category: language.label("ci", category.name()),
            color: category.colour(),
            dominant_pollutant: dominant,
            at_least: false,
        },
        IndexEntry {
            code: IndexCode::Eaqi.as_str(),
            display_name: language.text(IndexCode::Eaqi.display_id()),
            value: u16::from(category.eea().0),
            category: language.label("eaqi", category.eea().1),
            color: category.eea_colour(),
            dominant_pollutant: dominant,
            at_least: false,
        },
    ];
    if let Some(aqi) = &hour.us_aqi {
        entries.push(IndexEntry {
            code: IndexCode::UsaEpa.as_str(),
            display_name: language.text(IndexCode::UsaEpa.display_id()),
            value: aqi.value,
            category: language.label("usa-epa", aqi.category.name()),
            color: aqi.category.colour(),
            dominant_pollutant: Some(aqi.dominant.code()),
            at_least: aqi.at_least,
        });
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_read_in_order_once_each_and_unknown_ones_refused() {
        assert_eq!(parse(None).unwrap(), IndexCode::ALL.to_vec());
        assert_eq!(
            parse(Some("usa_epa, CI,usa_epa")).unwrap(),
            vec![IndexCode::UsaEpa, IndexCode::Ci]
        );
        let e = parse(Some("ci,uaqi")).unwrap_err().detail;
        assert!(e.starts_with("indexes: `uaqi` is not an index"), "{e}");
        assert!(
            parse(Some(""))
                .unwrap_err()
                .detail
                .starts_with("indexes: ``")
        );
    }
}
