//! The query strings of the lookups and the tiles, and the tiles' paths, as a client sends
//! them. Any request target is either refused with a 400 whose detail starts with the parameter
//! or coordinate at fault (which is indeed at fault: unknown to the operation, repeated, or
//! wrong in itself), or read: only parameters the operation takes, each once, `lat` and `lon`
//! the very numbers written and in range, the count within its bounds (its default when absent)
//! unless a `from`/`to` window replaces it, `time` the instant written with its hour at or
//! before it, and the tile the path's numbers name.
//!
//! An input is a request target (`/insights/v1/tiles/3/4/2.png?time=...`, `/x?lat=..&lon=..`);
//! the last three segments of its path are the tile's `z`, `x` and `y.png`.

#![no_main]

use aq_core::air_hour::hour_of;
use aq_core::tile::TileId;
use chrono::{DateTime, Timelike, Utc};
use http::Uri;
use insights_http::ErrorCode;
use insights_http::lookups::query::{Count, LookupQuery, Operation, PAGE_SIZE_MAX};
use insights_http::lookups::{CONDITIONS, FORECAST, HISTORY, POLLEN};
use insights_http::tiles::{TileQuery, tile_of};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(uri) = Uri::try_from(data) else {
        return;
    };
    let pairs: Vec<(String, String)> =
        form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .map(|(n, v)| (n.into_owned(), v.into_owned()))
            .collect();
    for operation in [CONDITIONS, FORECAST, HISTORY, POLLEN] {
        check_lookup(&uri, operation, &pairs);
    }
    check_time(&uri, &pairs);
    let segments: Vec<&str> = uri.path().rsplit('/').take(3).collect();
    if let [y, x, z] = segments[..] {
        check_tile(z, x, y);
    }
    assert!(tile_of(None).is_err());
});

/// A coordinate as the lookups take it: given once, a finite number within `limit`.
fn degrees(values: &[&str], limit: f64) -> Option<f64> {
    let [text] = values else {
        return None;
    };
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && v.abs() <= limit)
}

/// A count as the lookups take it: absent (its default), or given once as digits from 1 to
/// its most.
fn whole(values: &[&str], count: Count) -> Option<u32> {
    match values {
        [] => Some(count.default),
        [text] if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => text
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=count.max).contains(n)),
        _ => None,
    }
}

/// The values of the parameter `name`, in order.
fn given<'a>(pairs: &'a [(String, String)], name: &str) -> Vec<&'a str> {
    pairs
        .iter()
        .filter(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .collect()
}

/// Whether `detail` starts with a parameter given that is `unknown` or repeated (a name may hold
/// `: ` itself, so the whole name is matched).
fn named_and_misplaced(
    pairs: &[(String, String)],
    detail: &str,
    unknown: impl Fn(&str) -> bool,
) -> bool {
    pairs.iter().any(|(n, _)| {
        detail.starts_with(&format!("{n}: ")) && (unknown(n) || given(pairs, n).len() > 1)
    })
}

/// The names `operation` takes.
fn known(operation: Operation) -> Vec<&'static str> {
    let mut names = vec!["key", "lat", "lon"];
    names.extend(operation.count.map(|c| c.name));
    names.extend(operation.extra);
    if operation.span.is_some() {
        names.extend(["from", "to"]);
    }
    if operation.paged {
        names.extend(["pageSize", "pageToken"]);
    }
    names
}

fn check_lookup(uri: &Uri, operation: Operation, pairs: &[(String, String)]) {
    let names = known(operation);
    let count = operation.count;
    let lat = degrees(&given(pairs, "lat"), 90.0);
    let lon = degrees(&given(pairs, "lon"), 180.0);
    let n = count.map(|c| whole(&given(pairs, c.name), c));
    let window = !given(pairs, "from").is_empty() || !given(pairs, "to").is_empty();
    match LookupQuery::from_uri(uri, operation) {
        Ok(query) => {
            for (name, _) in pairs {
                assert!(names.contains(&name.as_str()), "{uri}: {name} read");
                assert_eq!(given(pairs, name).len(), 1, "{uri}: {name} repeated");
            }
            assert_eq!(Some(query.position.lat()), lat, "{uri}");
            assert_eq!(Some(query.position.lon()), lon, "{uri}");
            match n {
                _ if window => assert!((1..=PAGE_SIZE_MAX).contains(&query.count), "{uri}"),
                Some(n) => assert_eq!(Some(query.count), n, "{uri}"),
                None => assert_eq!(query.count, 0),
            }
        }
        Err(e) => {
            assert_eq!(e.code, ErrorCode::InvalidRequest);
            let field = e.detail.split(": ").next().unwrap_or_default();
            let at_fault = named_and_misplaced(pairs, &e.detail, |n| !names.contains(&n))
                || match field {
                    "lat" => lat.is_none(),
                    "lon" => lon.is_none(),
                    name if count.is_some_and(|c| c.name == name) => {
                        n == Some(None) || (window && given(pairs, "pageToken").is_empty())
                    }
                    // Checked against each other and the current hour: given is enough here.
                    "from" | "to" => window,
                    "pageSize" => {
                        let size = Count {
                            name: "pageSize",
                            max: PAGE_SIZE_MAX,
                            default: 1,
                        };
                        whole(&given(pairs, "pageSize"), size).is_none()
                    }
                    "pageToken" | "languageCode" | "indexes" => !given(pairs, field).is_empty(),
                    _ => false,
                };
            assert!(at_fault, "{uri} refused: {}", e.detail);
        }
    }
}

fn check_tile(z: &str, x: &str, y: &str) {
    let expected = y
        .strip_suffix(".png")
        .and_then(|y| TileId::new(z.parse().ok()?, x.parse().ok()?, y.parse().ok()?).ok());
    match tile_of(Some((z.to_owned(), x.to_owned(), y.to_owned()))) {
        Ok(tile) => assert_eq!(Some(tile), expected, "{z}/{x}/{y}"),
        Err(e) => {
            assert_eq!(expected, None, "{z}/{x}/{y} refused: {}", e.detail);
            assert_eq!(e.code, ErrorCode::InvalidRequest);
            let field = e.detail.split(": ").next().unwrap_or_default();
            let at_fault = match field {
                "z" => z
                    .parse::<u64>()
                    .map_or(true, |z| TileId::new(z, 0, 0).is_err()),
                "x" => x.parse::<u64>().map_or(true, |x| {
                    z.parse().map_or(true, |z| TileId::new(z, x, 0).is_err())
                }),
                "y" => y
                    .strip_suffix(".png")
                    .and_then(|y| y.parse::<u64>().ok())
                    .map_or(true, |y| {
                        z.parse().map_or(true, |z| TileId::new(z, 0, y).is_err())
                    }),
                _ => false,
            };
            assert!(at_fault, "{z}/{x}/{y}: {}", e.detail);
        }
    }
}

fn check_time(uri: &Uri, pairs: &[(String, String)]) {
    let times = given(pairs, "time");
    let expected: Option<Option<DateTime<Utc>>> = match times[..] {
        [] => Some(None),
        [text] => DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|t| Some(t.with_timezone(&Utc))),
        _ => None,
    };
    let layers = ["ci", "pollen-tree", "pollen-grass", "pollen-weed"];
    let others_fine = pairs.iter().all(|(name, value)| {
        given(pairs, name).len() == 1
            && match name.as_str() {
                "key" | "time" => true,
                "layer" => layers.contains(&value.as_str()),
                _ => false,
            }
    });
    match TileQuery::from_uri(uri) {
        Ok(query) => {
            assert!(others_fine, "{uri} read");
            assert_eq!(Some(query.time), expected, "{uri}");
            if let Some(t) = query.time {
                let hour = hour_of(t);
                // A leap second (:59:60, which chrono keeps as :59:59 plus a second of
                // nanoseconds) is the last of its hour, 3,600 seconds after its start.
                let leap = t.nanosecond() >= 1_000_000_000;
                let into = (t - hour).num_seconds();
                assert!(
                    hour <= t && (into < 3600 || (leap && into == 3600)),
                    "{t} in hour {hour}"
                );
            }
        }
        Err(e) => {
            assert!(
                expected.is_none() || !others_fine,
                "{uri} refused: {}",
                e.detail
            );
            assert_eq!(e.code, ErrorCode::InvalidRequest);
            let field = e.detail.split(": ").next().unwrap_or_default();
            let at_fault =
                named_and_misplaced(pairs, &e.detail, |n| !["key", "time", "layer"].contains(&n))
                    || match field {
                        "time" => expected.is_none(),
                        "layer" => !others_fine,
                        _ => false,
                    };
            assert!(at_fault, "{uri}: {}", e.detail);
        }
    }
}
