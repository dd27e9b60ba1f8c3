//! The cities: urban plumes around large cities, and road corridors leaving each of them.

use std::f64::consts::TAU;

use rand::RngExt;
use rand_pcg::Pcg64;

use aq_core::position::{
    EARTH_RADIUS_M, chord, chord_to_m, cross, dot, normalize, unit_vector_deg,
};

/// Large cities (longitude, latitude): public coordinates, the anchors of the urban plumes.
pub(super) const CITIES: [(f64, f64); 32] = [
    (139.69, 35.69),  // Tokyo
    (77.21, 28.61),   // Delhi
    (121.47, 31.23),  // Shanghai
    (-46.63, -23.55), // São Paulo
    (-99.13, 19.43),  // Mexico City
    (31.24, 30.04),   // Cairo
    (72.88, 19.08),   // Mumbai
    (116.41, 39.90),  // Beijing
    (90.41, 23.81),   // Dhaka
    (135.50, 34.69),  // Osaka
    (-74.01, 40.71),  // New York
    (67.01, 24.86),   // Karachi
    (-58.38, -34.60), // Buenos Aires
    (106.55, 29.56),  // Chongqing
    (28.98, 41.01),   // Istanbul
    (88.36, 22.57),   // Kolkata
    (120.98, 14.60),  // Manila
    (3.38, 6.52),     // Lagos
    (-43.17, -22.91), // Rio de Janeiro
    (117.20, 39.08),  // Tianjin
    (15.27, -4.44),   // Kinshasa
    (113.26, 23.13),  // Guangzhou
    (-118.24, 34.05), // Los Angeles
    (37.62, 55.76),   // Moscow
    (2.35, 48.86),    // Paris
    (-0.13, 51.51),   // London
    (13.40, 52.52),   // Berlin
    (151.21, -33.87), // Sydney
    (-87.63, 41.88),  // Chicago
    (100.50, 13.76),  // Bangkok
    (106.85, -6.21),  // Jakarta
    (18.42, -33.92),  // Cape Town
];

/// Beyond this arc (3°, about 330 km) a city's plume and roads are nothing.
const CITY_REACH_RAD: f64 = 3.0 * std::f64::consts::PI / 180.0;
/// The distance over which a city's plume falls to 1/e.
const CITY_SIGMA_M: f64 = 30_000.0;
/// The distance across a road over which its plume falls to 1/e.
const ROAD_HALF_WIDTH_M: f64 = 1_500.0;
/// Road corridors per city.
const ROADS: usize = 3;

/// How much the cities weigh on one point.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Urban {
    /// The city cores' plumes: particulates, NO₂ and CO with traffic and heating.
    pub(super) core: f64,
    /// The road corridors' plumes: narrow NO₂ and particulates.
    pub(super) road: f64,
    /// The cores' plumes weighted by each city's industry: SO₂.
    pub(super) industry: f64,
}

/// A straight road: a great-circle segment leaving its city.
#[derive(Debug, Clone, Copy)]
struct Road {
    /// The city's centre, where the road starts.
    start: [f64; 3],
    /// The unit normal of the road's great circle.
    normal: [f64; 3],
    /// The road's direction at its start, `normal × start`.
    heading: [f64; 3],
    length_rad: f64,
    strength: f64,
}

impl Road {
    /// A road from `start` towards `bearing` (radians clockwise from north).
    fn new(start: [f64; 3], bearing: f64, length_rad: f64, strength: f64) -> Self {
        let east = normalize([-start[1], start[0], 0.0]);
        let north = cross(start, east);
        let (sin_b, cos_b) = bearing.sin_cos();
        let heading: [f64; 3] = std::array::from_fn(|i| north[i] * cos_b + east[i] * sin_b);
        let normal = normalize(cross(start, heading));
        Self {
            start,
            normal,
            heading: cross(normal, start),
            length_rad,
            strength,
        }
    }

    /// The road's plume at `v`: its strength, fading to half at the far end, times a bell
    /// across the road; nothing beyond either end.
    fn plume(&self, v: [f64; 3]) -> f64 {
        // The angle along the great circle from the start, measured in the circle's plane.
        let along = dot(v, self.heading).atan2(dot(v, self.start));
        if !(0.0..=self.length_rad).contains(&along) {
            return 0.0;
        }
        let across_m = dot(v, self.normal).clamp(-1.0, 1.0).asin() * EARTH_RADIUS_M;
        let fade = 1.0 - 0.5 * along / self.length_rad;
        self.strength * fade * (-(across_m / ROAD_HALF_WIDTH_M).powi(2)).exp()
    }
}

/// A city with its seeded strength, industry and roads.
#[derive(Debug, Clone, Copy)]
struct City {
    v: [f64; 3],
    strength: f64,
    industry: f64,
    roads: [Road; ROADS],
}

/// Every city of [`CITIES`], with its roads drawn from the seed.
#[derive(Debug, Clone)]
pub(super) struct Cities([City; CITIES.len()]);

impl Cities {
    /// Draws each city's roads, strength and industry from `rng`.
    pub(super) fn new(rng: &mut Pcg64) -> Self {
        Self(CITIES.map(|(lon, lat)| {
            let v = unit_vector_deg(lon, lat);
            let roads = std::array::from_fn(|_| {
                let bearing = rng.random_range(0.0..TAU);
                let length_rad = rng.random_range(40_000.0..120_000.0) / EARTH_RADIUS_M;
                Road::new(v, bearing, length_rad, rng.random_range(0.6..1.2))
            });
            City {
                v,
                strength: rng.random_range(0.6..1.4),
                industry: rng.random_range(0.1..1.0),
                roads,
            }
        }))
    }

    /// The cities' weight on `v`, a point on the unit sphere.
    pub(super) fn at(&self, v: [f64; 3]) -> Urban {
        let mut urban = Urban::default();
        for city in &self.0 {
            let distance_m = chord_to_m(chord(v, city.v));
            if distance_m > CITY_REACH_RAD * EARTH_RADIUS_M {
                continue;
            }
            let core = city.strength * (-(distance_m / CITY_SIGMA_M).powi(2)).exp();
            urban.core += core;
            urban.industry += core * city.industry;
            urban.road += city.roads.iter().map(|r| r.plume(v)).sum::<f64>();
        }
        urban
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    /// The point `along` radians down `road` and `across` radians to its side.
    fn beside(road: &Road, along: f64, across: f64) -> [f64; 3] {
        let (sa, ca) = along.sin_cos();
        let on: [f64; 3] = std::array::from_fn(|i| road.start[i] * ca + road.heading[i] * sa);
        let (sx, cx) = across.sin_cos();
        std::array::from_fn(|i| on[i] * cx + road.normal[i] * sx)
    }

    #[test]
    fn road_plumes_are_narrow_and_end_with_the_road() {
        let cities = Cities::new(&mut Pcg64::seed_from_u64(5));
        let m = |metres: f64| metres / EARTH_RADIUS_M;
        for road in cities.0.iter().flat_map(|c| &c.roads) {
            let middle = road.length_rad / 2.0;
            let on = road.plume(beside(road, middle, 0.0));
            assert!((on - 0.75 * road.strength).abs() < 1e-9, "{on}");
            assert!(road.plume(beside(road, middle, m(1_500.0))) < 0.4 * on);
            assert!(road.plume(beside(road, middle, m(-6_000.0))) < 1e-6);
            assert_eq!(
                road.plume(beside(road, road.length_rad + m(500.0), 0.0)),
                0.0
            );
            assert_eq!(road.plume(beside(road, -m(500.0), 0.0)), 0.0);
        }
    }

    #[test]
    fn plumes_fall_off_with_distance_from_the_city() {
        let cities = Cities::new(&mut Pcg64::seed_from_u64(5));
        let paris = unit_vector_deg(2.35, 48.86);
        let near = cities.at(unit_vector_deg(2.35, 48.96));
        let far = cities.at(unit_vector_deg(2.35, 49.86));
        assert!(cities.at(paris).core > near.core && near.core > far.core);
        assert_eq!(cities.at(unit_vector_deg(-140.0, -30.0)), Urban::default());
    }
}
