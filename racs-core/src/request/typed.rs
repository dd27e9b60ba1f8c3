//! The typed reading of a score-routes body: straight from the bytes into a [`ScoreRequest`],
//! with no JSON tree in between, for bodies that are valid.
//!
//! It answers only "here is the request" or "not sure": any doubt (a syntax error, a member of
//! the wrong type, a duplicate member, a value a rule refuses, a form it does not handle) gives
//! `None`, and the caller then reads the body through the JSON tree, whose answer, and above
//! all whose error message, is the reference. So this reader never has to explain a problem,
//! only to accept nothing that the tree reading would refuse or read differently.
//!
//! Where the two could disagree it declines: a struct given as an array (serde accepts that
//! form, the API does not), an enum given as `{"m": null}` (likewise), a number id that is not
//! an integer (its decimal text is the tree's to write), a repeated member (the tree keeps the
//! last).

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use aq_core::Position;
use chrono::{DateTime, Utc};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{RouteId, RouteInput, SCANNED_IDS, ScoreRequest, check_departure, duration_ok, id_ok};
use crate::config::Limits;
use crate::polylines::parse_string;
use crate::units::{DurationUnit, LengthUnit, RoutesSort, TravelMode, lookup};

/// The request in `body` when the typed reading is sure of it; `None` to ask the JSON tree.
pub(super) fn read(body: &[u8], limits: &Limits) -> Option<ScoreRequest> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let raw = de.deserialize_map(BodyVisitor { limits }).ok()?;
    de.end().ok()?;
    raw.finish(limits)
}

/// A visitor's way of declining: serde wants an error of the deserializer's type, and its text
/// is never shown (the JSON tree's is).
fn decline<E: de::Error>() -> E {
    E::custom("declined")
}

/// The top-level members as read, before the rules that involve several of them.
struct RawBody<'de> {
    routes: Option<Vec<RawRoute>>,
    duration_units: Option<Text<'de>>,
    length_units: Option<Text<'de>>,
    routes_sort: Option<Text<'de>>,
    departure_time: Option<Text<'de>>,
    travel_mode: Option<Text<'de>>,
}

struct RawRoute {
    id: String,
    polyline: Vec<Position>,
    route_duration: f64,
}

impl RawBody<'_> {
    fn finish(self, limits: &Limits) -> Option<ScoreRequest> {
        let raw_routes = self.routes?;
        if raw_routes.is_empty() || raw_routes.len() > limits.max_routes {
            return None;
        }
        let duration_units = match name(self.duration_units.as_ref()) {
            None => DurationUnit::default(),
            Some(s) => lookup(&DurationUnit::ALL, s, DurationUnit::as_str)?,
        };
        let length_units = match name(self.length_units.as_ref()) {
            None => LengthUnit::default(),
            Some(s) => lookup(&LengthUnit::ALL, s, LengthUnit::as_str)?,
        };
        let routes_sort = lookup(
            &RoutesSort::ALL,
            name(self.routes_sort.as_ref())?,
            RoutesSort::as_str,
        )?;
        let travel_mode = match name(self.travel_mode.as_ref()) {
            None => None,
            Some(s) => Some(lookup(&TravelMode::ALL, s, TravelMode::as_str)?),
        };
        let departure_time = match name(self.departure_time.as_ref()) {
            None => None,
            Some(s) => {
                let time = DateTime::parse_from_rfc3339(s).ok()?.with_timezone(&Utc);
                check_departure(time, s).ok()?;
                Some(time)
            }
        };

        for route in &raw_routes {
            if !id_ok(&route.id, limits)
                || route.polyline.len() > limits.max_vertices_per_route
                || !duration_ok(route.route_duration, duration_units, limits)
            {
                return None;
            }
        }
        if !ids_unique(&raw_routes) {
            return None;
        }
        let routes = raw_routes
            .into_iter()
            .map(|route| RouteInput {
                id: RouteId(route.id),
                polyline: route.polyline,
                route_duration: route.route_duration,
            })
            .collect();
        Some(ScoreRequest {
            routes,
            duration_units,
            length_units,
            routes_sort,
            departure_time,
            travel_mode,
        })
    }
}

/// The text of a member that was given.
fn name<'a>(member: Option<&'a Text<'_>>) -> Option<&'a str> {
    member.map(|t| &*t.0)
}

/// Whether no two routes share an id. Requests usually carry a handful of routes, for which
/// comparing every pair is cheaper than hashing.
fn ids_unique(routes: &[RawRoute]) -> bool {
    if routes.len() <= SCANNED_IDS {
        return routes
            .iter()
            .enumerate()
            .all(|(i, r)| routes[..i].iter().all(|earlier| earlier.id != r.id));
    }
    let mut seen = HashSet::with_capacity(routes.len());
    routes.iter().all(|r| seen.insert(r.id.as_str()))
}

/// Reads a member's value once: a repeated member declines.
fn once<'de, A: MapAccess<'de>, T: de::Deserialize<'de>>(
    slot: &mut Option<Option<T>>,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(decline());
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// A string, borrowed from the body unless it has escapes: member names and enum values are
/// only compared, so most need no allocation.
struct Text<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Text(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Text(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Text(Cow::Owned(v)))
    }
}

struct BodyVisitor<'l> {
    limits: &'l Limits,
}

impl<'de> Visitor<'de> for BodyVisitor<'_> {
    type Value = RawBody<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a score-routes request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut routes = None;
        let mut duration_units = None;
        let mut length_units = None;
        let mut routes_sort = None;
        let mut departure_time = None;
        let mut travel_mode = None;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match &*key {
                "routes" => {
                    if routes.is_some() {
                        return Err(decline());
                    }
                    routes = Some(map.next_value_seed(OptionalSeed(RoutesSeed {
                        limits: self.limits,
                    }))?);
                }
                "durationUnits" => once(&mut duration_units, &mut map)?,
                "lengthUnits" => once(&mut length_units, &mut map)?,
                "routesSort" => once(&mut routes_sort, &mut map)?,
                "departureTime" => once(&mut departure_time, &mut map)?,
                "travelMode" => once(&mut travel_mode, &mut map)?,
                _ => return Err(decline()),
            }
        }
        Ok(RawBody {
            routes: routes.flatten(),
            duration_units: duration_units.flatten(),
            length_units: length_units.flatten(),
            routes_sort: routes_sort.flatten(),
            departure_time: departure_time.flatten(),
            travel_mode: travel_mode.flatten(),
        })
    }
}

/// `null` or what `T` reads, as `Option<T>` does for a plain `Deserialize`.
struct OptionalSeed<T>(T);

impl<'de, T: DeserializeSeed<'de>> DeserializeSeed<'de> for OptionalSeed<T> {
    type Value = Option<T::Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: DeserializeSeed<'de>> Visitor<'de> for OptionalSeed<T> {
    type Value = Option<T::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null or a value")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(deserializer).map(Some)
    }
}

/// The `routes` array, given up on as soon as it holds more routes than the limit.
struct RoutesSeed<'l> {
    limits: &'l Limits,
}

impl<'de> DeserializeSeed<'de> for RoutesSeed<'_> {
    type Value = Vec<RawRoute>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RoutesSeed<'_> {
    type Value = Vec<RawRoute>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of routes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut routes =
            Vec::with_capacity(seq.size_hint().unwrap_or(1).min(self.limits.max_routes));
        while let Some(route) = seq.next_element_seed(RouteSeed {
            max_vertices: self.limits.max_vertices_per_route,
        })? {
            if routes.len() == self.limits.max_routes {
                return Err(decline());
            }
            routes.push(route);
        }
        Ok(routes)
    }
}

struct RouteSeed {
    max_vertices: usize,
}

impl<'de> DeserializeSeed<'de> for RouteSeed {
    type Value = RawRoute;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        // A map only: serde would also take a struct as an array of its fields.
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RouteSeed {
    type Value = RawRoute;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a route")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut id: Option<Option<Id>> = None;
        let mut polyline: Option<Option<Vec<Position>>> = None;
        let mut route_duration: Option<Option<f64>> = None;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match &*key {
                "id" => once(&mut id, &mut map)?,
                "polyline" => {
                    if polyline.is_some() {
                        return Err(decline());
                    }
                    polyline = Some(map.next_value_seed(OptionalSeed(PolylineSeed {
                        max_vertices: self.max_vertices,
                    }))?);
                }
                "routeDuration" => once(&mut route_duration, &mut map)?,
                _ => return Err(decline()),
            }
        }
        match (id.flatten(), polyline.flatten(), route_duration.flatten()) {
            (Some(Id(id)), Some(polyline), Some(route_duration)) => Ok(RawRoute {
                id,
                polyline,
                route_duration,
            }),
            _ => Err(decline()),
        }
    }
}

/// A route id: a string, or an integer kept as its decimal text.
struct Id(String);

impl<'de> de::Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IdVisitor)
    }
}

struct IdVisitor;

impl Visitor<'_> for IdVisitor {
    type Value = Id;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or an integer")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Id, E> {
        Ok(Id(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Id, E> {
        Ok(Id(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Id, E> {
        Ok(Id(v.to_string()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Id, E> {
        Ok(Id(v.to_string()))
    }
    // Anything else, fractional numbers included, is left to the JSON tree.
}

/// A `polyline` member: an array of `[lon, lat]` pairs read straight into positions, or a
/// string of either form.
struct PolylineSeed {
    max_vertices: usize,
}

impl<'de> DeserializeSeed<'de> for PolylineSeed {
    type Value = Vec<Position>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PolylineSeed {
    type Value = Vec<Position>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a polyline")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut line = Vec::with_capacity(seq.size_hint().unwrap_or(16).min(self.max_vertices));
        while let Some(Pair(lon, lat)) = seq.next_element::<Pair>()? {
            if line.len() == self.max_vertices {
                return Err(decline());
            }
            line.push(Position::new(lon, lat).map_err(|_| decline())?);
        }
        Ok(line)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        parse_string(v, "", self.max_vertices).map_err(|_| decline())
    }
}

/// Exactly two numbers.
struct Pair(f64, f64);

impl<'de> de::Deserialize<'de> for Pair {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(PairVisitor)
    }
}

struct PairVisitor;

impl<'de> Visitor<'de> for PairVisitor {
    type Value = Pair;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a [lon, lat] pair")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Pair, A::Error> {
        let lon = seq.next_element::<f64>()?.ok_or_else(decline)?;
        let lat = seq.next_element::<f64>()?.ok_or_else(decline)?;
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(decline());
        }
        Ok(Pair(lon, lat))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;
    use crate::request::RequestError;

    /// The reference: the body read as a JSON tree and checked by `from_json`.
    fn through_tree(body: &str, limits: &Limits) -> Result<ScoreRequest, RequestError> {
        let tree: Value = serde_json::from_str(body)
            .map_err(|e| RequestError::invalid("", format!("the body is not valid JSON: {e}")))?;
        ScoreRequest::from_json(&tree, limits)
    }

    #[test]
    fn valid_bodies_are_read_without_the_tree() {
        let limits = Limits::default();
        for body in [
            r#"{"durationUnits":"m","lengthUnits":"km","routes":[{"id":"avenue","polyline":[[13.335,52.507],[13.34,52.512],[13.3777,52.5163]],"routeDuration":35}],"routesSort":"desc"}"#,
            r#"{"routes": [{"id": 7, "polyline": "_p~iF~ps|U_ulLnnqC_mqNvxq`@", "routeDuration": 1.5},
                           {"id": "a", "polyline": "[[0, 0], [0.001, 0]]", "routeDuration": 2}],
                "routesSort": "asc", "departureTime": "2026-05-01T10:00:00+02:00",
                "travelMode": "cycle", "durationUnits": null, "lengthUnits": "mi"}"#,
            r#"{"routesSort": "original", "routes": [{"routeDuration": 1, "polyline": [], "id": "\u00e9"}]}"#,
        ] {
            let typed = read(body.as_bytes(), &limits);
            assert!(typed.is_some(), "{body}");
            assert_eq!(typed.map(Ok), Some(through_tree(body, &limits)), "{body}");
        }
    }

    #[test]
    fn forms_the_api_refuses_are_left_to_the_tree() {
        let limits = Limits::default();
        let route = r#"{"id": "a", "polyline": [[0, 0], [0, 0.001]], "routeDuration": 2}"#;
        for body in [
            // Structs as arrays of their fields, an enum as a one-member object.
            format!(r#"[[{route}], "m", "m", "desc"]"#),
            r#"{"routes": [["a", [[0, 0], [0, 0.001]], 2]], "routesSort": "desc"}"#.to_owned(),
            format!(r#"{{"routes": [{route}], "routesSort": {{"desc": null}}}}"#),
            // The tree keeps the last of a repeated member.
            format!(r#"{{"routes": [{route}], "routesSort": "up", "routesSort": "desc"}}"#),
            // A fractional id is written by the tree.
            r#"{"routes": [{"id": 7.50, "polyline": [], "routeDuration": 2}], "routesSort": "desc"}"#
                .to_owned(),
            format!(r#"{{"routes": [{route}], "routesSort": "desc"}} x"#),
        ] {
            assert_eq!(read(body.as_bytes(), &limits), None, "{body}");
            assert_eq!(
                ScoreRequest::from_json_slice(body.as_bytes(), &limits),
                through_tree(&body, &limits),
                "{body}"
            );
        }
    }

    /// JSON text for a member's value: mostly valid, so that valid requests of every shape
    /// come up, otherwise in the forms either reader could get wrong.
    fn id() -> impl Strategy<Value = String> {
        prop_oneof![
            12 => (0u32..40).prop_map(|n| format!("\"r{n}\"")),
            4 => (-5i64..40).prop_map(|n| n.to_string()),
            2 => prop::sample::select(vec![
                "7.0", "1e2", "18446744073709551616", r#""""#, "true", "null", r#""\u0061""#,
                r#""r\"1""#, r#"{"a": 1}"#,
            ])
            .prop_map(str::to_owned),
            1 => Just(format!("\"{}\"", "x".repeat(257))),
        ]
    }

    fn coordinate(range: f64) -> impl Strategy<Value = String> {
        prop_oneof![
            40 => (-range..range).prop_map(|v| v.to_string()),
            12 => (-range as i32..range as i32).prop_map(|v| v.to_string()),
            8 => (-range..range).prop_map(|v| format!("{v:e}")),
            1 => (-200.0..200.0f64).prop_map(|v| v.to_string()),
            1 => prop::sample::select(vec!["-0", "0.0", "1E1", "90", "-180", r#""1""#, "null"])
                .prop_map(str::to_owned),
        ]
    }

    fn polyline() -> impl Strategy<Value = String> {
        let pair = prop_oneof![
            100 => (coordinate(180.0), coordinate(90.0)).prop_map(|(a, b)| format!("[{a}, {b}]")),
            1 => (coordinate(180.0), coordinate(90.0), coordinate(9.0))
                .prop_map(|(a, b, c)| format!("[{a},{b},{c}]")),
            1 => coordinate(180.0).prop_map(|a| format!("[{a}]")),
            1 => Just("{}".to_owned()),
        ];
        prop_oneof![
            8 => prop::collection::vec(pair, 0..7).prop_map(|p| format!("[{}]", p.join(","))),
            1 => prop::collection::vec((-10.0..10.0f64, -10.0..10.0f64), 0..4).prop_map(|p| {
                let pairs: Vec<String> = p.iter().map(|(a, b)| format!("[{a}, {b}]")).collect();
                format!("\"[{}]\"", pairs.join(", "))
            }),
            1 => prop::sample::select(vec![
                r#""_p~iF~ps|U_ulLnnqC_mqNvxq`@""#, r#""_p~iF ~ps|U""#, r#""[?""#, r#""[1""#,
                "null", "{}", "5", r#""""#,
            ])
            .prop_map(str::to_owned),
        ]
    }

    fn duration() -> impl Strategy<Value = String> {
        prop_oneof![
            12 => (0.0..200.0f64).prop_map(|v| v.to_string()),
            6 => (-5i32..20_000).prop_map(|v| v.to_string()),
            1 => prop::sample::select(vec!["0", "-0", "1e-300", "1e400", r#""12""#, "null", "[]"])
                .prop_map(str::to_owned),
        ]
    }

    /// Members in any order, some missing, some repeated, some unknown.
    fn object(members: Vec<(&'static str, String)>, keep: Vec<bool>, extra: u8) -> String {
        let mut parts: Vec<String> = members
            .iter()
            .zip(keep.iter().cycle())
            .filter(|(_, keep)| **keep)
            .map(|((k, v), _)| format!("\"{k}\": {v}"))
            .collect();
        match extra % 16 {
            0 => parts.push(r#""unknown": 1"#.to_owned()),
            1 if !members.is_empty() => {
                let (k, v) = &members[usize::from(extra / 16) % members.len()];
                parts.push(format!("\"{k}\": {v}"));
            }
            _ => {}
        }
        let rotate = usize::from(extra) % parts.len().max(1);
        parts.rotate_left(rotate);
        format!("{{{}}}", parts.join(", "))
    }

    fn route() -> impl Strategy<Value = String> {
        (
            id(),
            polyline(),
            duration(),
            prop::collection::vec(prop::bool::weighted(0.99), 3),
            any::<u8>(),
        )
            .prop_map(|(id, polyline, duration, keep, extra)| {
                if extra == 255 {
                    return format!("[{id}, {polyline}, {duration}]");
                }
                object(
                    vec![
                        ("id", id),
                        ("polyline", polyline),
                        ("routeDuration", duration),
                    ],
                    keep,
                    extra,
                )
            })
    }

    fn name(values: &'static [&'static str]) -> impl Strategy<Value = String> {
        prop_oneof![
            16 => prop::sample::select(values).prop_map(|v| format!("\"{v}\"")),
            1 => prop::sample::select(vec![
                "null", "5", r#""MIN""#, r#"{"m": null}"#, r#""\u0061sc""#, r#""km ""#,
            ])
            .prop_map(str::to_owned),
        ]
    }

    fn body() -> impl Strategy<Value = String> {
        let routes = prop_oneof![
            12 => prop::collection::vec(route(), 1..5).prop_map(|r| format!("[{}]", r.join(", "))),
            1 => prop::sample::select(vec!["[]", "null", "{}", r#""r""#]).prop_map(str::to_owned),
        ];
        let departure = prop_oneof![
            8 => prop::sample::select(vec![
                r#""2026-05-01T08:00:00Z""#,
                r#""2026-05-01T10:00:00+02:00""#,
                r#""2026-05-01T10:00:00.123456789-09:30""#,
            ]),
            1 => prop::sample::select(vec![
                r#""9999-12-31T23:59:59-23:59""#,
                r#""tomorrow""#,
                "null",
                "17",
            ]),
        ];
        (
            routes,
            name(&["s", "m", "h"]),
            name(&["m", "km", "ft", "yd", "mi"]),
            name(&["desc", "asc", "original"]),
            departure,
            name(&["walk", "cycle", "drive"]),
            prop::collection::vec(prop::bool::weighted(0.7), 6),
            any::<u8>(),
        )
            .prop_map(|(routes, du, lu, sort, departure, mode, keep, extra)| {
                let mut keep = keep;
                // The routes and their order are usually there, so that the routes themselves
                // get checked.
                keep[0] |= extra % 32 != 3;
                keep[3] |= extra % 32 != 5;
                object(
                    vec![
                        ("routes", routes),
                        ("durationUnits", du),
                        ("lengthUnits", lu),
                        ("routesSort", sort),
                        ("departureTime", departure.to_owned()),
                        ("travelMode", mode),
                    ],
                    keep,
                    extra,
                )
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

        /// Whatever the body, reading it from its bytes gives what the JSON tree gives: the
        /// same request, or the same error.
        #[test]
        fn the_typed_reading_agrees_with_the_tree(
            body in body(),
            max_routes in 1usize..6,
            max_vertices in 2usize..8,
        ) {
            for limits in [
                Limits::default(),
                Limits { max_routes, max_vertices_per_route: max_vertices, ..Limits::default() },
            ] {
                let expected = through_tree(&body, &limits);
                if let Some(typed) = read(body.as_bytes(), &limits) {
                    prop_assert_eq!(Ok(typed), expected.clone(), "{}", body);
                }
                prop_assert_eq!(
                    ScoreRequest::from_json_slice(body.as_bytes(), &limits), expected, "{}", body
                );
            }
        }
    }
}
