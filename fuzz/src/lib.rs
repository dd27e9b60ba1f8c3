//! Helpers shared by the fuzz targets: checking that an error's JSON path names a place in the
//! body, reading a body's member names, and ports for running the scorer without a runtime.

use std::time::Duration;

use runtime_core::Timer;
use serde_json::Value;

/// Whether `path` (as the request parsers spell it: `routes[1].polyline[7]`, empty for the whole
/// body) names a member or element that is in `body`, or a member listed in `missing` that the
/// body lacks where the path puts it.
///
/// With `strings_indexable`, a path may go on into a string with indices (`polyline[3][1]`):
/// the route request reports errors inside a polyline given as a string holding a JSON array
/// with the same path as in the array form.
#[must_use]
pub fn path_resolves(body: &Value, path: &str, missing: &[&str], strings_indexable: bool) -> bool {
    resolve(body, path, true, missing, strings_indexable)
}

fn resolve(node: &Value, rest: &str, top: bool, missing: &[&str], strings: bool) -> bool {
    if rest.is_empty() {
        return true;
    }
    match node {
        Value::Object(members) => {
            let Some(name_and_more) = (if top {
                Some(rest)
            } else {
                rest.strip_prefix('.')
            }) else {
                return false;
            };
            // Member names are arbitrary text, so every member that is a prefix is tried.
            let via_member = members.iter().any(|(name, value)| {
                name_and_more
                    .strip_prefix(name.as_str())
                    .is_some_and(|after| {
                        (after.is_empty() || after.starts_with('.') || after.starts_with('['))
                            && resolve(value, after, false, missing, strings)
                    })
            });
            via_member || missing.contains(&name_and_more)
        }
        Value::Array(items) => match index(rest) {
            Some((i, after)) => {
                i < items.len() && resolve(&items[i], after, false, missing, strings)
            }
            None => false,
        },
        Value::String(_) if strings => {
            let mut rest = rest;
            while let Some((_, after)) = index(rest) {
                rest = after;
            }
            rest.is_empty()
        }
        _ => false,
    }
}

/// Whether some object in the JSON `data` has a member name twice (false when `data` is not
/// JSON).
#[must_use]
pub fn has_repeated_members(data: &[u8]) -> bool {
    serde_json::from_slice::<Repeats>(data).is_ok_and(|Repeats(repeated)| repeated)
}

/// Whether a JSON value repeats a member name in any of its objects.
struct Repeats(bool);

impl<'de> serde::Deserialize<'de> for Repeats {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RepeatsVisitor)
    }
}

struct RepeatsVisitor;

impl<'de> serde::de::Visitor<'de> for RepeatsVisitor {
    type Value = Repeats;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_str<E>(self, _: &str) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_unit<E>(self) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Repeats, A::Error> {
        let mut repeated = false;
        while let Some(Repeats(inner)) = seq.next_element()? {
            repeated |= inner;
        }
        Ok(Repeats(repeated))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Repeats, A::Error> {
        let mut names = std::collections::HashSet::new();
        let mut repeated = false;
        while let Some((name, Repeats(inner))) = map.next_entry::<String, Repeats>()? {
            repeated |= inner | !names.insert(name);
        }
        Ok(Repeats(repeated))
    }
}

/// The member names of a JSON object, in the order they are written, repeats included; `None`
/// when `data` is not JSON or not an object.
#[must_use]
pub fn top_level_names(data: &[u8]) -> Option<Vec<String>> {
    serde_json::from_slice::<Names>(data)
        .ok()
        .and_then(|Names(names)| names)
}

/// The member names of a JSON value that is an object.
struct Names(Option<Vec<String>>);

impl<'de> serde::Deserialize<'de> for Names {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NamesVisitor)
    }
}

struct NamesVisitor;

impl<'de> serde::de::Visitor<'de> for NamesVisitor {
    type Value = Names;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Names, E> {
        Ok(Names(None))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Names, E> {
        Ok(Names(None))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Names, E> {
        Ok(Names(None))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Names, E> {
        Ok(Names(None))
    }

    fn visit_str<E>(self, _: &str) -> Result<Names, E> {
        Ok(Names(None))
    }

    fn visit_unit<E>(self) -> Result<Names, E> {
        Ok(Names(None))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Names, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Names(None))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Names, A::Error> {
        let mut names = Vec::new();
        while let Some((name, serde::de::IgnoredAny)) =
            map.next_entry::<String, serde::de::IgnoredAny>()?
        {
            names.push(name);
        }
        Ok(Names(Some(names)))
    }
}

/// `[digits]` at the start of `text`: the index and what follows.
fn index(text: &str) -> Option<(usize, &str)> {
    let inner = text.strip_prefix('[')?;
    let end = inner.find(']')?;
    let digits = &inner[..end];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, &inner[end + 1..]))
}

/// A timer whose sleep never ends, so that no route deadline passes while a fuzz input is
/// scored on an executor without timers.
#[derive(Debug, Clone, Copy, Default)]
pub struct NeverTimer;

#[async_trait::async_trait]
impl Timer for NeverTimer {
    async fn sleep(&self, _duration: Duration) {
        std::future::pending::<()>().await;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn paths_resolve_only_to_places_in_the_body() {
        let body = json!({"routes": [{"id": 1, "polyline": [[0, 0], [1, 2]]}, {"polyline": "x"}]});
        let missing = ["routesSort", "routeDuration"];
        for good in [
            "",
            "routes",
            "routes[0]",
            "routes[0].id",
            "routes[0].polyline[1][0]",
            "routes[1].polyline[4][1]",
            "routesSort",
            "routes[0].routeDuration",
        ] {
            assert!(path_resolves(&body, good, &missing, true), "{good}");
        }
        for bad in [
            "routes[2]",
            "routes[0].polyline[2]",
            "routes[0].ids",
            "routes.id",
            "points",
            "routes[0]polyline",
            "routes[1].polyline[1]x",
        ] {
            assert!(!path_resolves(&body, bad, &missing, true), "{bad}");
        }
        assert!(!path_resolves(
            &body,
            "routes[1].polyline[4]",
            &missing,
            false
        ));
    }
}
