//! The playground's check of the order of a route's coordinates. The API reads points as
//! `[longitude, latitude]`, GeoJSON's order; a route written `[latitude, longitude]` is either
//! refused (a latitude past 90°) or, worse, drawn and scored somewhere else. The playground
//! says so when the points read the other way round would make more sense: where they would be
//! valid only that way, or lie near one of the world's large cities (GeoNames' cities of a
//! million people or more, which the maps draw) while as written they lie far from any.

use std::sync::LazyLock;

use aq_core::Position;
use serde_json::Value;

/// Within this distance of a large city, a route's middle is "in a city".
const NEAR_CITY_M: f64 = 50_000.0;

/// As written, the route's middle must be at least this many times farther from every large
/// city for the other order to be suggested: a route in the countryside is far from both.
const FARTHER: f64 = 10.0;

/// The large cities' positions.
static CITIES: LazyLock<Vec<Position>> = LazyLock::new(|| {
    let cities: Vec<(String, f64, f64, u64)> =
        serde_json::from_str(super::map::CITIES_JSON).unwrap_or_default();
    cities
        .into_iter()
        .filter_map(|(_, lat, lon, _)| Position::new(lon, lat).ok())
        .collect()
});

/// A hint for each of the first `max_routes` routes of a route-scoring body whose points look
/// like `[latitude, longitude]`, naming the route; empty when every route reads well as written
/// or the body is not a route-scoring body. (The API refuses more routes than its limit, so the
/// routes past it need no hint.)
///
/// ```text
/// {"routes": [{"id": "a", "polyline": [[52.5070, 13.3350], [52.5163, 13.3777]]}]}
/// → Route a: its points look like [latitude, longitude] (read the other way round they are
///   in a city, as written they are far from any) ...
/// ```
pub(crate) fn swapped_routes(body: &str, max_routes: usize) -> Vec<String> {
    let Ok(body) = serde_json::from_str::<Value>(body) else {
        return Vec::new();
    };
    let Some(routes) = body.get("routes").and_then(Value::as_array) else {
        return Vec::new();
    };
    routes
        .iter()
        .take(max_routes)
        .enumerate()
        .filter_map(|(i, route)| {
            let points = route.get("polyline")?.as_array()?;
            let pairs: Vec<(f64, f64)> = points
                .iter()
                .filter_map(|p| Some((p.get(0)?.as_f64()?, p.get(1)?.as_f64()?)))
                .collect();
            let why = reason(&pairs)?;
            let name = route
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("{}", i + 1), str::to_owned);
            Some(format!(
                "Route {name}: its points look like [latitude, longitude] ({why}). The API reads \
                 [longitude, latitude]: swap each pair."
            ))
        })
        .collect()
}

/// Why the pairs read better swapped, if they do.
fn reason(pairs: &[(f64, f64)]) -> Option<&'static str> {
    let middle = *pairs.get(pairs.len() / 2)?;
    let as_written: Option<Vec<Position>> = pairs
        .iter()
        .map(|&(a, b)| Position::new(a, b).ok())
        .collect();
    let swapped: Option<Vec<Position>> = pairs
        .iter()
        .map(|&(a, b)| Position::new(b, a).ok())
        .collect();
    match (as_written, swapped) {
        (None, Some(_)) => Some("as written some latitudes are past 90°"),
        (Some(_), Some(_)) => {
            let written = nearest_city_m(Position::new(middle.0, middle.1).ok()?);
            let other = nearest_city_m(Position::new(middle.1, middle.0).ok()?);
            (other <= NEAR_CITY_M && written >= FARTHER * other.max(1_000.0)).then_some(
                "read the other way round they are in a large city, as written far from any",
            )
        }
        _ => None,
    }
}

/// The distance to the nearest large city, in metres.
fn nearest_city_m(at: Position) -> f64 {
    CITIES
        .iter()
        .map(|city| city.distance_m(at))
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn berlin_written_latitude_first_is_named() {
        let body =
            r#"{"routes": [{"id": "a", "polyline": [[52.5070, 13.3350], [52.5163, 13.3777]]}]}"#;
        let hints = swapped_routes(body, 25);
        assert_eq!(hints.len(), 1, "{hints:?}");
        assert!(hints[0].starts_with("Route a:"), "{hints:?}");
        assert!(hints[0].contains("large city"), "{hints:?}");
    }

    #[test]
    fn berlin_written_longitude_first_passes() {
        let body =
            r#"{"routes": [{"id": "a", "polyline": [[13.3350, 52.5070], [13.3777, 52.5163]]}]}"#;
        assert!(swapped_routes(body, 25).is_empty());
    }

    #[test]
    fn a_latitude_past_ninety_that_is_a_longitude_is_named() {
        // Sydney, latitude first: 151.21 is no latitude, so only the other order is valid.
        let body = r#"{"routes": [{"polyline": [[-33.87, 151.21], [-33.86, 151.20]]}]}"#;
        let hints = swapped_routes(body, 25);
        assert_eq!(hints.len(), 1, "{hints:?}");
        assert!(
            hints[0].starts_with("Route 1:") && hints[0].contains("past 90°"),
            "{hints:?}"
        );
    }

    #[test]
    fn the_countryside_either_way_is_left_alone() {
        // The Scottish Highlands: far from any city of a million both ways.
        let body = r#"{"routes": [{"polyline": [[-4.5, 57.1], [-4.4, 57.2]]}]}"#;
        assert!(swapped_routes(body, 25).is_empty());
    }

    #[test]
    fn routes_past_the_limit_are_not_looked_at() {
        let swapped = r#"{"polyline": [[52.5070, 13.3350], [52.5163, 13.3777]]}"#;
        let body = format!(r#"{{"routes": [{swapped}, {swapped}, {swapped}]}}"#);
        assert_eq!(swapped_routes(&body, 2).len(), 2);
    }

    #[test]
    fn bodies_that_are_not_route_lists_give_no_hint() {
        for body in [
            "",
            "[]",
            r#"{"origin": [13.4, 52.5]}"#,
            r#"{"routes": [{"polyline": "x"}]}"#,
        ] {
            assert!(swapped_routes(body, 25).is_empty(), "{body}");
        }
    }
}
