//! The query string of a lookup: `lat`, `lon`, the operation's count (`hours` or `days`), a
//! window of hours (`from`, `to`), a page of history (`pageSize`, `pageToken`) and
//! `languageCode`, each refused with a message naming it; any other parameter is refused too
//! ([`Params`]).

use aq_core::Position;
use aq_core::air_hour::hour_of;
use axum::http::Uri;
use chrono::{DateTime, Duration, Utc};

use super::indexes::{self, IndexCode};
use crate::error::ApiError;
use crate::params::Params;

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

/// Where an hourly lookup's window lies from the current hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// From the current hour on (a forecast).
    Ahead,
    /// Before the current hour (a history).
    Before,
}

/// What an operation takes besides `key`, `lat` and `lon`.
#[derive(Debug, Clone, Copy)]
pub struct Operation {
    /// Its count, if it takes one.
    pub count: Option<Count>,
    /// Whether it takes `from` and `to`, and where they may lie.
    pub span: Option<Span>,
    /// Whether it answers by pages (`pageSize`, `pageToken`).
    pub paged: bool,
    /// Its own parameters (`indexes`, `languageCode`, a backtest's `rule`), which its handler
    /// reads.
    pub extra: &'static [&'static str],
}

/// The hours of a page of history: `pageSize`'s default.
pub const PAGE_SIZE_DEFAULT: u32 = 168;
/// `pageSize`'s most: the whole of what a history may ask.
pub const PAGE_SIZE_MAX: u32 = 720;

/// Hours in a row: `count` of them from `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HourWindow {
    /// The first hour.
    pub first: DateTime<Utc>,
    /// How many.
    pub count: u32,
}

/// How the window was asked: a count from the current hour, or a fixed `from`/`to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Count(u32),
    Between(DateTime<Utc>, DateTime<Utc>),
}

/// A page of a history: where the page starts among the window's hours, newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageAsk {
    /// The window a token carried, if one was given.
    from_token: Option<(HourWindow, u32)>,
    /// The most hours on the page.
    pub size: u32,
}

/// What a lookup asks.
#[derive(Debug, Clone)]
pub struct LookupQuery {
    /// Where.
    pub position: Position,
    /// How many hours or days, for the operations that take a count; for a window asked by
    /// `from` and `to`, the hours between them.
    pub count: u32,
    /// The window asked.
    asked: Asked,
    /// The page asked, for an operation that pages.
    pub page: Option<PageAsk>,
    /// The `languageCode` asked, as given.
    pub language: Option<String>,
    /// The indexes asked for, for an operation that answers hours; `None` for the place's
    /// defaults ([`indexes::defaults`]).
    pub indexes: Option<Vec<IndexCode>>,
}

impl LookupQuery {
    /// Reads `uri`'s query string for `operation`: every parameter it does not take is refused,
    /// and each it takes given twice.
    ///
    /// # Errors
    /// 400 `invalid_request` whose detail starts with the parameter at fault (`lat: ...`).
    pub fn from_uri(uri: &Uri, operation: Operation) -> Result<Self, ApiError> {
        let mut known = vec!["key", "lat", "lon"];
        known.extend(operation.count.map(|c| c.name));
        known.extend(operation.extra);
        if operation.span.is_some() {
            known.extend(["from", "to"]);
        }
        if operation.paged {
            known.extend(["pageSize", "pageToken"]);
        }
        let params = Params::parse(uri, &known)?;
        let lat = degrees("lat", params.get("lat"), 90.0, "52.52")?;
        let lon = degrees("lon", params.get("lon"), 180.0, "13.40")?;
        let position = Position::new(lon, lat).map_err(|e| ApiError::invalid(e.to_string()))?;
        let language = params.get("languageCode").map(language).transpose()?;
        let between = match (params.get("from"), params.get("to")) {
            (None, None) => None,
            (Some(_), None) => {
                return Err(ApiError::invalid(
                    "to: missing; `from` needs `to` (RFC 3339, such as 2026-05-01T12:00:00Z)",
                ));
            }
            (None, Some(_)) => {
                return Err(ApiError::invalid(
                    "from: missing; `to` needs `from` (RFC 3339, such as 2026-05-01T00:00:00Z)",
                ));
            }
            (Some(from), Some(to)) => Some((instant("from", from)?, instant("to", to)?)),
        };
        let (count, asked) = match (operation.count, between) {
            (Some(c), Some(_)) if params.has(c.name) && params.get("pageToken").is_none() => {
                return Err(ApiError::invalid(format!(
                    "{}: pass either `{}` or `from` and `to`, not both",
                    c.name, c.name
                )));
            }
            (_, Some((from, to))) => {
                let count = hours_between(from, to)?;
                (count, Asked::Between(from, to))
            }
            (Some(c), None) => {
                let n = whole(c, params.get(c.name))?;
                (n, Asked::Count(n))
            }
            (None, None) => (0, Asked::Count(0)),
        };
        let page = if operation.paged {
            let size = match params.get("pageSize") {
                None => PAGE_SIZE_DEFAULT,
                Some(text) => whole(
                    Count {
                        name: "pageSize",
                        max: PAGE_SIZE_MAX,
                        default: PAGE_SIZE_DEFAULT,
                    },
                    Some(text),
                )?,
            };
            let from_token = params.get("pageToken").map(token).transpose()?;
            Some(PageAsk { from_token, size })
        } else {
            None
        };
        let indexes = indexes::parse(params.get("indexes"))?;
        Ok(Self {
            position,
            count,
            asked,
            page,
            language,
            indexes,
        })
    }

    /// The hours asked, read against the current hour `now_hour` on `span`'s side of it, with
    /// at most `max` of them.
    ///
    /// # Errors
    /// 400 naming `from` or `to` when the window lies outside what the operation answers.
    pub fn window(
        &self,
        span: Span,
        now_hour: DateTime<Utc>,
        max: u32,
    ) -> Result<HourWindow, ApiError> {
        if let Some((window, _)) = self.page.and_then(|p| p.from_token) {
            // The token's window was checked when it was given; since then the current hour
            // may have moved on (its oldest hours may have left the 720), never back. A window
            // that was never before the current hour is no token of this server's.
            let end = window.first + Duration::hours(i64::from(window.count));
            return match span {
                Span::Before if end > now_hour => Err(ApiError::invalid(
                    "pageToken: not a token this server gave; pass the `nextPageToken` of the previous page as it was",
                )),
                _ => Ok(window),
            };
        }
        let (from, to) = match self.asked {
            Asked::Count(n) => {
                let n = i64::from(n);
                return Ok(HourWindow {
                    first: match span {
                        Span::Ahead => now_hour,
                        Span::Before => now_hour - Duration::hours(n),
                    },
                    count: self.count,
                });
            }
            Asked::Between(from, to) => (from, to),
        };
        let first = hour_of(from);
        let end = first + Duration::hours(i64::from(self.count));
        let limit = Duration::hours(i64::from(max));
        let stamp = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        match span {
            Span::Ahead if first < now_hour => Err(ApiError::invalid(format!(
                "from: {} is before the current hour {}; the forecast starts there (earlier hours are in the history)",
                stamp(from),
                stamp(now_hour)
            ))),
            Span::Ahead if end > now_hour + limit => Err(ApiError::invalid(format!(
                "to: {} is past the forecast's {max} hours, which end at {}",
                stamp(to),
                stamp(now_hour + limit)
            ))),
            Span::Before if end > now_hour => Err(ApiError::invalid(format!(
                "to: {} is after the current hour {}; the history ends there (the current hour is the conditions, later ones the forecast)",
                stamp(to),
                stamp(now_hour)
            ))),
            Span::Before if first < now_hour - limit => Err(ApiError::invalid(format!(
                "from: {} is before the history's {max} hours, which start at {}",
                stamp(from),
                stamp(now_hour - limit)
            ))),
            _ => Ok(HourWindow {
                first,
                count: self.count,
            }),
        }
    }
}

impl PageAsk {
    /// The hours of this page of `window` (newest first, as a history answers), and the token
    /// of the next page when hours are left.
    #[must_use]
    pub fn of(&self, window: HourWindow) -> (HourWindow, Option<String>) {
        let offset = self
            .from_token
            .map_or(0, |(_, offset)| offset)
            .min(window.count);
        let left = window.count - offset;
        let count = left.min(self.size);
        let first = window.first + Duration::hours(i64::from(left - count));
        let next = (count < left).then(|| {
            format!(
                "h1.{}.{}.{}",
                window.first.timestamp() / 3600,
                window.count,
                offset + count
            )
        });
        (HourWindow { first, count }, next)
    }
}

/// The window and offset of a `pageToken` this server gave.
fn token(text: &str) -> Result<(HourWindow, u32), ApiError> {
    let refused = || {
        ApiError::invalid(
            "pageToken: not a token this server gave; pass the `nextPageToken` of the previous page as it was",
        )
    };
    let mut parts = text.split('.');
    if parts.next() != Some("h1") {
        return Err(refused());
    }
    let mut number = || -> Result<i64, ApiError> {
        parts
            .next()
            .and_then(|p| p.parse::<i64>().ok())
            .ok_or_else(refused)
    };
    let (hour, count, offset) = (number()?, number()?, number()?);
    if parts.next().is_some() {
        return Err(refused());
    }
    let count = u32::try_from(count)
        .ok()
        .filter(|c| (1..=PAGE_SIZE_MAX).contains(c))
        .ok_or_else(refused)?;
    let offset = u32::try_from(offset)
        .ok()
        .filter(|o| *o < count)
        .ok_or_else(refused)?;
    // Hours since 1970 up to about the year 2200: a token this server gave, and a range in
    // which the window's arithmetic cannot overflow.
    if !(0..=2_000_000).contains(&hour) {
        return Err(refused());
    }
    let first = DateTime::from_timestamp(hour * 3600, 0).ok_or_else(refused)?;
    Ok((HourWindow { first, count }, offset))
}

/// An RFC 3339 instant.
fn instant(name: &str, text: &str) -> Result<DateTime<Utc>, ApiError> {
    DateTime::parse_from_rfc3339(text.trim())
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| {
            ApiError::invalid(format!(
                "{name}: `{text}` is not an RFC 3339 instant such as 2026-05-01T12:00:00Z"
            ))
        })
}

/// The whole hours from `from`'s hour up to `to`'s, `to`'s own hour not included: both are
/// read down to their hour, as the answer's hours start on the hour.
fn hours_between(from: DateTime<Utc>, to: DateTime<Utc>) -> Result<u32, ApiError> {
    let hours = (hour_of(to) - hour_of(from)).num_hours();
    if hours < 1 {
        return Err(ApiError::invalid(
            "to: must be at least an hour after `from` (both are read down to the hour, `to` not included)",
        ));
    }
    u32::try_from(hours)
        .map_err(|_| ApiError::invalid("to: too far after `from`"))
        .and_then(|h| {
            if h > PAGE_SIZE_MAX {
                Err(ApiError::invalid(format!(
                    "to: {h} hours after `from`; a window holds at most {PAGE_SIZE_MAX}"
                )))
            } else {
                Ok(h)
            }
        })
}

/// A BCP 47 language tag, by its form (letters, digits and hyphens; a language of 2 or 3
/// letters first).
fn language(text: &str) -> Result<String, ApiError> {
    let mut subtags = text.split(['-', '_']);
    let primary = subtags.next().unwrap_or_default();
    let primary_ok =
        (2..=3).contains(&primary.len()) && primary.bytes().all(|b| b.is_ascii_alphabetic());
    let rest_ok =
        subtags.all(|t| (1..=8).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_alphanumeric()));
    if primary_ok && rest_ok {
        Ok(text.to_owned())
    } else {
        Err(ApiError::invalid(format!(
            "languageCode: `{text}` is not a BCP 47 language tag such as en or pt-BR"
        )))
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

    const HISTORY: Operation = Operation {
        count: Some(Count {
            name: "hours",
            max: 720,
            default: 24,
        }),
        span: Some(Span::Before),
        paged: true,
        extra: &["languageCode", "indexes"],
    };

    fn parse(query: &str) -> Result<LookupQuery, String> {
        let uri: Uri = format!("/x?{query}").parse().unwrap();
        let forecast = Operation {
            count: Some(HOURS),
            span: Some(Span::Ahead),
            paged: false,
            extra: &["languageCode", "indexes"],
        };
        LookupQuery::from_uri(&uri, forecast).map_err(|e| e.detail)
    }

    fn history(query: &str) -> LookupQuery {
        let uri: Uri = format!("/x?lat=0&lon=0&{query}").parse().unwrap();
        LookupQuery::from_uri(&uri, HISTORY).unwrap()
    }

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn from_and_to_are_the_hours_between_their_hours() {
        let now = at("2026-05-01T12:00:00Z");
        let q =
            parse("lat=0&lon=0&from=2026-05-01T12:30:00Z&to=2026-05-02T00:10:00%2B00:00").unwrap();
        assert_eq!(
            q.window(Span::Ahead, now, 96).unwrap(),
            HourWindow {
                first: now,
                count: 12
            }
        );
        let refused = |query: &str| {
            let q = parse(&format!("lat=0&lon=0&{query}"));
            q.and_then(|q| q.window(Span::Ahead, now, 96).map_err(|e| e.detail))
                .unwrap_err()
        };
        assert!(
            refused("from=2026-05-01T11:00:00Z&to=2026-05-01T14:00:00Z")
                .starts_with("from: 2026-05-01T11:00:00Z is before the current hour")
        );
        assert!(
            refused("from=2026-05-01T12:00:00Z&to=2026-05-05T13:00:00Z")
                .starts_with("to: 2026-05-05T13:00:00Z is past the forecast's 96 hours")
        );
        assert!(
            refused("from=2026-05-01T12:00:00Z&to=2026-05-01T12:59:00Z")
                .starts_with("to: must be at least an hour")
        );
        assert!(refused("from=2026-05-01T12:00:00Z").starts_with("to: missing"));
        assert!(refused("to=2026-05-01T12:00:00Z").starts_with("from: missing"));
        assert!(
            refused("from=yesterday&to=2026-05-01T12:00:00Z")
                .starts_with("from: `yesterday` is not an RFC 3339")
        );
        assert!(
            refused("hours=3&from=2026-05-01T12:00:00Z&to=2026-05-01T14:00:00Z")
                .starts_with("hours: pass either")
        );
        let h = history("from=2026-04-30T00:00:00Z&to=2026-05-01T12:00:00Z");
        assert_eq!(h.window(Span::Before, now, 720).unwrap().count, 36);
        let late = history("from=2026-05-01T00:00:00Z&to=2026-05-01T13:00:00Z");
        assert!(
            late.window(Span::Before, now, 720)
                .unwrap_err()
                .detail
                .starts_with("to: 2026-05-01T13:00:00Z is after the current hour")
        );
    }

    #[test]
    fn pages_walk_a_history_newest_first_and_end() {
        let now = at("2026-05-01T12:00:00Z");
        let mut query = "hours=20&pageSize=8".to_owned();
        let mut seen = Vec::new();
        loop {
            let q = history(&query);
            let window = q.window(Span::Before, now, 720).unwrap();
            let (page, next) = q.page.unwrap().of(window);
            assert!(page.count <= 8);
            // Newest first within the page, as the answer lists them.
            seen.extend(
                (0..page.count)
                    .rev()
                    .map(|k| page.first + Duration::hours(i64::from(k))),
            );
            match next {
                Some(token) => query = format!("hours=20&pageSize=8&pageToken={token}"),
                None => break,
            }
        }
        let expected: Vec<_> = (1..=20).map(|k| now - Duration::hours(k)).collect();
        assert_eq!(
            seen, expected,
            "every hour once, newest first, across 3 pages"
        );
    }

    #[test]
    fn a_token_whose_window_reaches_past_the_current_hour_is_refused() {
        let now = at("2026-05-01T12:00:00Z");
        let hour = now.timestamp() / 3600;
        let window = |first: i64| history(&format!("pageToken=h1.{first}.5.1"));
        assert!(window(hour - 5).window(Span::Before, now, 720).is_ok());
        let e = window(hour - 4)
            .window(Span::Before, now, 720)
            .unwrap_err()
            .detail;
        assert!(e.starts_with("pageToken: not a token"), "{e}");
    }

    #[test]
    fn a_token_not_given_by_the_server_is_refused() {
        for bad in [
            "x",
            "h1.1.2",
            "h1.a.2.0",
            "h1.490000.721.0",
            "h1.490000.5.5",
            "h1.1.2.0.0",
            "h2.1.2.0",
            "h1.9223372036854775807.5.0",
            "h1.-5.5.0",
        ] {
            let uri: Uri = format!("/x?lat=0&lon=0&pageToken={bad}").parse().unwrap();
            let e = LookupQuery::from_uri(&uri, HISTORY).unwrap_err().detail;
            assert!(e.starts_with("pageToken: not a token"), "{bad}: {e}");
        }
    }

    #[test]
    fn unknown_parameters_and_bad_languages_are_refused() {
        assert!(
            parse("lat=0&lon=0&hour=3")
                .unwrap_err()
                .starts_with("hour: not a parameter of this operation; did you mean `hours`?")
        );
        assert!(
            parse("lat=0&lon=0&pageSize=3")
                .unwrap_err()
                .starts_with("pageSize: not a parameter")
        );
        assert_eq!(
            parse("lat=0&lon=0&languageCode=pt-BR")
                .unwrap()
                .language
                .as_deref(),
            Some("pt-BR")
        );
        assert!(
            parse("lat=0&lon=0&languageCode=english!")
                .unwrap_err()
                .starts_with("languageCode: `english!` is not a BCP 47")
        );
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
