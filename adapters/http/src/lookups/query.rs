//! The query string of a lookup: `lat`, `lon` and the operation's count (`hours` or `days`),
//! each refused with a message naming it.

use aq_core::Position;
use axum::http::Uri;

use crate::error::ApiError;

/// A count parameter and its range.
#[derive(Debug, Clone, Copy)]
pub struct Count {
    /// `hours` or `days`.
    pub name: &'static str,
    /// The most allowed.
    pub max: u32,
    /// The value when absent.
    pub default: u32,
}

/// What a lookup asks.
#[derive(Debug, Clone, Copy)]
pub struct LookupQuery {
    /// Where.
    pub position: Position,
    /// How many hours or days, for the operations that take a count.
    pub count: u32,
}

impl LookupQuery {
    /// `lat`, `lon` and, when `count` is given, that count from `uri`'s query. Other parameters
    /// (the key among them) are ignored here; each of these given twice is refused.
    ///
    /// # Errors
    /// 400 `invalid_request` whose detail starts with the parameter at fault (`lat: ...`).
    pub fn from_uri(uri: &Uri, count: Option<Count>) -> Result<Self, ApiError> {
        let query = uri.query().unwrap_or_default();
        let (mut lat, mut lon, mut n) = (None, None, None);
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            let slot = match name.as_ref() {
                "lat" => &mut lat,
                "lon" => &mut lon,
                other if count.is_some_and(|c| c.name == other) => &mut n,
                _ => continue,
            };
            if slot.is_some() {
                return Err(ApiError::invalid(format!(
                    "{name}: given more than once; pass it once"
                )));
            }
            *slot = Some(value.into_owned());
        }
        let lat = degrees("lat", lat.as_deref(), 90.0, "52.52")?;
        let lon = degrees("lon", lon.as_deref(), 180.0, "13.40")?;
        let position = Position::new(lon, lat).map_err(|e| ApiError::invalid(e.to_string()))?;
        let count = match count {
            Some(c) => whole(c, n.as_deref())?,
            None => 0,
        };
        Ok(Self { position, count })
    }
}

/// A coordinate in [-limit, limit].
fn degrees(name: &str, text: Option<&str>, limit: f64, example: &str) -> Result<f64, ApiError> {
    let Some(text) = text else {
        return Err(ApiError::invalid(format!(
            "{name}: missing; pass decimal degrees, such as {name}={example}"
        )));
    };
    let value: f64 = text.trim().parse().map_err(|_| {
        ApiError::invalid(format!(
            "{name}: `{text}` is not a number; pass decimal degrees, such as {name}={example}"
        ))
    })?;
    if !value.is_finite() {
        return Err(ApiError::invalid(format!(
            "{name}: `{text}` is not a finite number"
        )));
    }
    if !(-limit..=limit).contains(&value) {
        return Err(ApiError::invalid(format!(
            "{name}: {text} is outside [-{limit}, {limit}]"
        )));
    }
    Ok(value)
}

/// The count, its default when absent.
fn whole(count: Count, text: Option<&str>) -> Result<u32, ApiError> {
    let Some(text) = text else {
        return Ok(count.default);
    };
    let name = count.name;
    // Digits only: `+5`, `5.0` and `0x5` are refused rather than guessed at.
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::invalid(format!(
            "{name}: `{text}` is not a whole number from 1 to {}",
            count.max
        )));
    }
    let value: u64 = text.parse().unwrap_or(u64::MAX);
    if value < 1 {
        return Err(ApiError::invalid(format!("{name}: {value} is less than 1")));
    }
    if value > u64::from(count.max) {
        return Err(ApiError::invalid(format!(
            "{name}: {text} is more than {}",
            count.max
        )));
    }
    u32::try_from(value).map_err(|_| ApiError::invalid(format!("{name}: {text} is too large")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOURS: Count = Count {
        name: "hours",
        max: 96,
        default: 24,
    };

    fn parse(query: &str) -> Result<LookupQuery, String> {
        let uri: Uri = format!("/x?{query}").parse().unwrap();
        LookupQuery::from_uri(&uri, Some(HOURS)).map_err(|e| e.detail)
    }

    #[test]
    fn a_good_query_reads_every_parameter() {
        let q = parse("key=ik_x&lat=52.5&lon=13.4&hours=3").unwrap();
        assert_eq!(
            (q.position.lat(), q.position.lon(), q.count),
            (52.5, 13.4, 3)
        );
        assert_eq!(parse("lat=0&lon=0").unwrap().count, 24);
    }

    #[test]
    fn each_refusal_names_its_parameter() {
        assert_eq!(
            parse("lat=91&lon=0").unwrap_err(),
            "lat: 91 is outside [-90, 90]"
        );
        assert_eq!(
            parse("lat=0&lon=-180.5").unwrap_err(),
            "lon: -180.5 is outside [-180, 180]"
        );
        assert_eq!(
            parse("lat=0&lon=0&hours=97").unwrap_err(),
            "hours: 97 is more than 96"
        );
        assert_eq!(
            parse("lat=0&lon=0&hours=0").unwrap_err(),
            "hours: 0 is less than 1"
        );
        for bad in ["-1", "1.5", "", "x", "+3"] {
            let e = parse(&format!("lat=0&lon=0&hours={bad}")).unwrap_err();
            assert!(e.starts_with("hours: "), "{bad}: {e}");
        }
        assert!(parse("lon=0").unwrap_err().starts_with("lat: missing"));
        assert!(parse("lat=0").unwrap_err().starts_with("lon: missing"));
        assert!(parse("lat=NaN&lon=0").unwrap_err().starts_with("lat: "));
        assert!(
            parse("lat=1&lat=2&lon=0")
                .unwrap_err()
                .starts_with("lat: given more")
        );
        assert!(
            parse("lat=0&lon=0&hours=99999999999999999999")
                .unwrap_err()
                .contains("more than 96")
        );
    }
}
