//! The request bodies the scenarios send: route-scoring requests of a few shapes, and alert
//! requests of any size, all deterministic.

use serde_json::{Value, json};

/// The API's one path for both operations.
pub const API_PATH: &str = "/insights/v1/cleanest-route";

/// The API path with `key`.
#[must_use]
pub fn api_path(key: &str) -> String {
    format!("{API_PATH}?key={key}")
}

/// A walk across central Berlin in seven vertices, as `[lon, lat]` pairs: the first route of
/// the API's sample request.
fn avenue() -> Value {
    json!({
        "id": "avenue",
        "polyline": [[13.3350, 52.5070], [13.3400, 52.5120], [13.3450, 52.5150],
                     [13.3500, 52.5163], [13.3600, 52.5163], [13.3700, 52.5163],
                     [13.3777, 52.5163]],
        "routeDuration": 35
    })
}

fn scoring(routes: Vec<Value>) -> Vec<u8> {
    json!({"routes": routes, "durationUnits": "m", "lengthUnits": "km", "routesSort": "desc"})
        .to_string()
        .into_bytes()
}

/// A route-scoring request with one route: the request the HTTP ratio is about.
#[must_use]
pub fn one_route() -> Vec<u8> {
    scoring(vec![avenue()])
}

/// The sample request's three forms of polyline in one request: an array of pairs, a string
/// holding such an array, and Google's encoded format.
#[must_use]
pub fn three_routes() -> Vec<u8> {
    scoring(vec![
        avenue(),
        json!({
            "id": "park",
            "polyline": "[[13.3350, 52.5070], [13.3420, 52.5110], [13.3500, 52.5125], [13.3600, 52.5130], [13.3700, 52.5135], [13.3740, 52.5150], [13.3777, 52.5163]]",
            "routeDuration": 36
        }),
        json!({"id": "canal", "polyline": "wgn_IwnkpAfEo}@f@o}@sIo}@{Twj@c`@sb@", "routeDuration": 52}),
    ])
}

/// One longer route: `vertices` vertices zigzagging east across Berlin for about 14 km.
#[must_use]
pub fn long_route(vertices: usize) -> Vec<u8> {
    let n = vertices.max(2);
    let polyline: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let t = i as f64 / (n - 1) as f64;
            let wiggle = if i % 2 == 0 { 0.0 } else { 0.002 };
            [13.30 + 0.20 * t, 52.50 + 0.01 * t + wiggle]
        })
        .collect();
    scoring(vec![
        json!({"id": "long", "polyline": polyline, "routeDuration": 45}),
    ])
}

/// Large cities, where the demo field moves most: (longitude, latitude).
const CITIES: [(f64, f64); 8] = [
    (77.21, 28.61),
    (116.41, 39.90),
    (31.24, 30.04),
    (-99.13, 19.43),
    (3.38, 6.52),
    (2.35, 48.86),
    (-74.01, 40.71),
    (72.88, 19.08),
];

/// Cities where the CAMS-like grids of [`crate::cams`] have data: six under the European grid
/// (pollen included) and two under the global grid only: (longitude, latitude).
pub const GRID_CITIES: [(f64, f64); 8] = [
    (2.35, 48.86),
    (13.40, 52.52),
    (-3.70, 40.42),
    (12.50, 41.90),
    (21.01, 52.23),
    (-0.13, 51.51),
    (77.21, 28.61),
    (-74.01, 40.71),
];

/// An alert request of `n` points around large cities, each with an id unique within the
/// request and, for every other point, some `custom_data`.
#[must_use]
pub fn points(n: usize) -> Vec<u8> {
    points_around(n, &CITIES)
}

/// [`points`] around `cities` (longitude, latitude), in turn.
#[must_use]
pub fn points_around(n: usize, cities: &[(f64, f64)]) -> Vec<u8> {
    let points: Vec<Value> = (0..n)
        .map(|i| {
            let (lon, lat) = cities[i % cities.len().max(1)];
            // Up to about half a degree around the city, spread by a small prime stride.
            let dx = ((i * 37) % 101) as f64 / 100.0 - 0.5;
            let dy = ((i * 53) % 97) as f64 / 96.0 - 0.5;
            let mut point = json!({"lon": lon + dx, "lat": lat + dy, "id": format!("user-{i}")});
            if i % 2 == 0 {
                point["custom_data"] = json!({"user": i, "tier": "gold"});
            }
            point
        })
        .collect();
    json!({ "points": points }).to_string().into_bytes()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn requests_are_json_of_the_expected_shape() {
        let one: Value = serde_json::from_slice(&one_route()).unwrap();
        assert_eq!(one["routes"].as_array().unwrap().len(), 1);
        let three: Value = serde_json::from_slice(&three_routes()).unwrap();
        assert_eq!(three["routes"].as_array().unwrap().len(), 3);
        let long: Value = serde_json::from_slice(&long_route(200)).unwrap();
        assert_eq!(long["routes"][0]["polyline"].as_array().unwrap().len(), 200);
        let points: Value = serde_json::from_slice(&points(1000)).unwrap();
        let points = points["points"].as_array().unwrap();
        assert_eq!(points.len(), 1000);
        let ids: std::collections::HashSet<&str> =
            points.iter().map(|p| p["id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), 1000, "ids are unique");
        assert!(points.iter().all(|p| {
            let (lon, lat) = (p["lon"].as_f64().unwrap(), p["lat"].as_f64().unwrap());
            (-180.0..=180.0).contains(&lon) && (-90.0..=90.0).contains(&lat)
        }));
    }
}
