//! The query string of an operation, read strictly: every operation names the parameters it
//! takes, and anything else is a 400 naming it, with the parameter probably meant when the name
//! is a near miss (`hour` for `hours`, `Lat` for `lat`, `latitude` for `lat`). A misspelt
//! parameter that is quietly ignored answers a question the client did not ask.

use axum::http::Uri;

use crate::error::ApiError;

/// The parameters of a query string an operation knows, each given at most once.
#[derive(Debug, Clone, Default)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// `uri`'s query string, whose every name must be one of `known`.
    ///
    /// ```
    /// use axum::http::Uri;
    /// use insights_http::params::Params;
    ///
    /// let uri: Uri = "/x?lat=1&lon=2&hour=3".parse().unwrap();
    /// let e = Params::parse(&uri, &["key", "lat", "lon", "hours"]).unwrap_err();
    /// assert!(e.detail.starts_with("hour: not a parameter of this operation; did you mean `hours`?"));
    /// ```
    ///
    /// # Errors
    /// 400 `invalid_request` for an unknown name or a name given twice, the detail starting
    /// with the name.
    pub fn parse(uri: &Uri, known: &[&str]) -> Result<Self, ApiError> {
        let query = uri.query().unwrap_or_default();
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            if !known.contains(&name.as_ref()) {
                return Err(ApiError::invalid(unknown(&name, known)));
            }
            if pairs.iter().any(|(n, _)| *n == name) {
                return Err(ApiError::invalid(format!(
                    "{name}: given more than once; pass it once"
                )));
            }
            pairs.push((name.into_owned(), value.into_owned()));
        }
        Ok(Self { pairs })
    }

    /// The value of `name`, when given.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether `name` was given (with any value).
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

/// The refusal of `name`, with the nearest known name when one is near.
fn unknown(name: &str, known: &[&str]) -> String {
    let list = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match nearest(name, known) {
        Some(meant) => format!(
            "{name}: not a parameter of this operation; did you mean `{meant}`? It takes {list}"
        ),
        None => format!("{name}: not a parameter of this operation; it takes {list}"),
    }
}

/// The known name `name` most probably meant: the same letters in another case, a name it
/// starts with (`latitude`), or one or two edits away (a third of the name's length at most,
/// so that short names are not all near each other).
fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let lower = name.to_lowercase();
    if let Some(same) = known.iter().find(|k| k.to_lowercase() == lower) {
        return Some(same);
    }
    if let Some(prefix) = known
        .iter()
        .filter(|k| k.len() >= 3 && lower.starts_with(&k.to_lowercase()))
        .max_by_key(|k| k.len())
    {
        return Some(prefix);
    }
    let allowed = (name.chars().count() / 3).clamp(1, 2);
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&lower, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= allowed)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &["key", "lat", "lon", "hours", "pageSize", "languageCode"];

    fn refusal(query: &str) -> String {
        let uri: Uri = format!("/x?{query}").parse().unwrap();
        Params::parse(&uri, KNOWN).unwrap_err().detail
    }

    #[test]
    fn known_parameters_are_read_once_each() {
        let uri: Uri = "/x?lat=1&lon=2&key=k".parse().unwrap();
        let p = Params::parse(&uri, KNOWN).unwrap();
        assert_eq!(
            (p.get("lat"), p.get("lon"), p.get("hours")),
            (Some("1"), Some("2"), None)
        );
        assert!(refusal("lat=1&lat=2").starts_with("lat: given more than once"));
    }

    #[test]
    fn a_near_miss_is_named_with_what_was_meant() {
        for (given, meant) in [
            ("hour", "hours"),
            ("Lat", "lat"),
            ("latitude", "lat"),
            ("longitude", "lon"),
            ("pagesize", "pageSize"),
            ("languagecode", "languageCode"),
            ("huors", "hours"),
        ] {
            let e = refusal(&format!("{given}=1"));
            assert!(
                e.starts_with(&format!(
                    "{given}: not a parameter of this operation; did you mean `{meant}`?"
                )),
                "{given}: {e}"
            );
        }
    }

    #[test]
    fn a_far_name_is_refused_with_the_list() {
        let e = refusal("universalAqi=true");
        assert_eq!(
            e,
            "universalAqi: not a parameter of this operation; it takes `key`, `lat`, `lon`, \
             `hours`, `pageSize`, `languageCode`"
        );
    }
}
