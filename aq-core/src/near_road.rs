//! Air next to roads: the traffic increment that a background source cannot resolve.
//!
//! A model grid (CAMS's 0.1°, about 7 × 11 km at 50° N) or an interpolation between stations
//! gives the urban background: what a place far from any busy street breathes. Next to a road
//! with traffic, nitrogen dioxide, carbon monoxide and particles are well above it and fall back
//! to it within one to a few hundred metres (Karner, Eisinger and Niemeier, *Near-roadway air
//! quality: synthesizing the findings from real-world data*, Environ. Sci. Technol. 44 (2010)
//! 5334–5344; the traffic predictors of the ESCAPE land-use regression models, Beelen et al.,
//! Atmos. Environ. 72 (2013) 10–23). [`NearRoadModel`] adds that increment to any background's
//! concentrations, by the class of the nearest roads ([`RoadClass`]) and the distance to them,
//! read through the port [`RoadMap`].
//!
//! The model knows the class of a road, not its traffic: the increments are typical of each
//! class, with an [uncertainty](NearRoadModel::uncertainty_factor) to match. It knows nothing of
//! street canyons or wind, which can double a kerbside value or blow it away.

use serde::{Deserialize, Serialize};

use crate::pollutant::{Concentration, Concentrations, Pollutant};
use crate::position::Position;

/// A road by the traffic it typically carries, from the heaviest to the lightest. Ways without
/// motor traffic (footways, cycleways, paths, pedestrian streets) have no class: they add
/// nothing to the air.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoadClass {
    /// Motorways and trunk roads: tens of thousands of vehicles a day.
    Motorway,
    /// Primary roads: a city's main arteries.
    Primary,
    /// Secondary roads.
    Secondary,
    /// Tertiary roads.
    Tertiary,
    /// Residential, unclassified and service roads, living streets: local traffic only.
    Minor,
}

impl RoadClass {
    /// Every class, heaviest first (the order of [`NearbyRoads`]).
    pub const ALL: [RoadClass; 5] = [
        RoadClass::Motorway,
        RoadClass::Primary,
        RoadClass::Secondary,
        RoadClass::Tertiary,
        RoadClass::Minor,
    ];

    /// The class's name in answers and documentation.
    ///
    /// ```
    /// assert_eq!(aq_core::RoadClass::Primary.name(), "primary");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            RoadClass::Motorway => "motorway",
            RoadClass::Primary => "primary",
            RoadClass::Secondary => "secondary",
            RoadClass::Tertiary => "tertiary",
            RoadClass::Minor => "minor",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The distance in metres from a place to the nearest road of each class, where one lies within
/// the distance asked of the [`RoadMap`].
///
/// ```
/// use aq_core::{NearbyRoads, RoadClass};
///
/// let roads = NearbyRoads::default().with(RoadClass::Primary, 12.0);
/// assert_eq!(roads.get(RoadClass::Primary), Some(12.0));
/// assert_eq!(roads.get(RoadClass::Minor), None);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct NearbyRoads {
    distances_m: [Option<f64>; 5],
}

impl NearbyRoads {
    /// The same roads with the nearest of `class` at `distance_m` (negative or NaN distances
    /// are taken as on the road, 0 m).
    #[must_use]
    pub fn with(mut self, class: RoadClass, distance_m: f64) -> Self {
        self.distances_m[class.index()] = Some(if distance_m > 0.0 { distance_m } else { 0.0 });
        self
    }

    /// The distance to the nearest road of `class`, if one is near.
    #[must_use]
    pub fn get(&self, class: RoadClass) -> Option<f64> {
        self.distances_m[class.index()]
    }

    /// True when no road of any class is near.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.distances_m.iter().all(Option::is_none)
    }
}

/// What a [`RoadMap`] is, for the labels of the answers that use it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoadMapInfo {
    /// A short name, such as `openstreetmap`.
    pub name: String,
    /// The attribution the map's licence asks for, if any.
    pub attribution: Option<String>,
}

/// The port through which the near-road model finds roads: an adapter holding a street network
/// (read from OpenStreetMap, say) answers it from memory, so it is a plain call.
pub trait RoadMap: Send + Sync {
    /// What the map is.
    fn info(&self) -> RoadMapInfo;

    /// The nearest road of each class within `within_m` metres of `position`.
    fn nearby(&self, position: Position, within_m: f64) -> NearbyRoads;

    /// The stretches of road with traffic within `radius_m` metres of `centre`, for a map to
    /// draw; `None` when there are more than `limit` (too many to draw at that scale). A map
    /// that is only asked for nearby roads may keep the default, which lists none.
    fn stretches_near(
        &self,
        centre: Position,
        radius_m: f64,
        limit: usize,
    ) -> Option<Vec<RoadStretch>> {
        let _ = (centre, radius_m, limit);
        Some(Vec::new())
    }
}

/// A stretch of road with traffic between two consecutive points of its way, as a map draws it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoadStretch {
    /// The road's class.
    pub class: RoadClass,
    /// One end.
    pub from: Position,
    /// The other end.
    pub to: Position,
}

/// The traffic increment over the background next to roads: `at_road × exp(−d / decay_m)` for
/// the nearest road of each class at distance `d` (up to `reach_m`), summed over the classes and
/// bounded by the largest at-road value.
///
/// The defaults are this project's round values per class, within the ranges of measured
/// kerbside-minus-background differences in European cities and of the near-road gradients
/// Karner et al. (2010) summarise (most pollutants back at the background within 100 to 500 m
/// of an open road).
/// They are not fitted to any one city; [`uncertainty_factor`](Self::uncertainty_factor) says
/// how far off they may be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NearRoadModel {
    /// Distance in metres over which an increment falls by a factor e.
    pub decay_m: f64,
    /// Beyond this many metres from a road, its increment is taken as none.
    pub reach_m: f64,
    /// Increment at the road in µg/m³, by class ([`RoadClass::ALL`] order) and pollutant
    /// ([`Pollutant::ALL`] order).
    pub at_road_ug_m3: [[f64; 6]; 5],
    /// The increment may be this many times smaller or larger: it knows the class of a road,
    /// not its traffic, its street canyon or the wind.
    pub uncertainty_factor: f64,
}

impl Default for NearRoadModel {
    /// The increments in µg/m³ at the road, in the order PM2.5, PM10, NO₂, O₃, SO₂, CO:
    ///
    /// | class     | PM2.5 | PM10 | NO₂ | O₃ | SO₂ | CO  |
    /// |-----------|-------|------|-----|----|-----|-----|
    /// | motorway  | 4     | 8    | 30  | 0  | 0   | 400 |
    /// | primary   | 2.5   | 5    | 20  | 0  | 0   | 250 |
    /// | secondary | 1.5   | 3    | 12  | 0  | 0   | 150 |
    /// | tertiary  | 0.8   | 1.5  | 6   | 0  | 0   | 75  |
    /// | minor     | 0.3   | 0.5  | 2   | 0  | 0   | 25  |
    ///
    /// Ozone gets none: near roads nitric oxide lowers it, and leaving it at the background errs
    /// on the side of the air being worse. Traffic emits next to no sulphur dioxide. Decay over
    /// 50 m, reach 300 m (the increment is down to under 0.3 % there), uncertainty a factor 2:
    /// open-road gradients fall by half within 100 to 200 m, but in a built-up street the
    /// buildings hold the traffic's air in and shield the next street, whose air is close to the
    /// background.
    fn default() -> Self {
        Self {
            decay_m: 50.0,
            reach_m: 300.0,
            at_road_ug_m3: [
                [4.0, 8.0, 30.0, 0.0, 0.0, 400.0],
                [2.5, 5.0, 20.0, 0.0, 0.0, 250.0],
                [1.5, 3.0, 12.0, 0.0, 0.0, 150.0],
                [0.8, 1.5, 6.0, 0.0, 0.0, 75.0],
                [0.3, 0.5, 2.0, 0.0, 0.0, 25.0],
            ],
            uncertainty_factor: 2.0,
        }
    }
}

impl NearRoadModel {
    /// The increment of `pollutant` in µg/m³ at a place with `roads` near it.
    ///
    /// ```
    /// use aq_core::{NearRoadModel, NearbyRoads, Pollutant, RoadClass};
    ///
    /// let model = NearRoadModel::default();
    /// let kerb = NearbyRoads::default().with(RoadClass::Primary, 0.0);
    /// assert_eq!(model.increment(Pollutant::No2, &kerb), 20.0);
    /// // 50 m away, behind the first row of buildings: down by a factor e.
    /// let block = NearbyRoads::default().with(RoadClass::Primary, 50.0);
    /// assert!((model.increment(Pollutant::No2, &block) - 7.36).abs() < 0.01);
    /// // A main road and a side street together never exceed the heaviest class's value.
    /// let both = kerb.with(RoadClass::Minor, 0.0).with(RoadClass::Motorway, 0.0);
    /// assert_eq!(model.increment(Pollutant::No2, &both), 30.0);
    /// ```
    #[must_use]
    pub fn increment(&self, pollutant: Pollutant, roads: &NearbyRoads) -> f64 {
        let p = Pollutant::ALL
            .iter()
            .position(|&q| q == pollutant)
            .unwrap_or(0);
        let mut sum = 0.0;
        for class in RoadClass::ALL {
            let Some(d) = roads.get(class) else { continue };
            if d > self.reach_m {
                continue;
            }
            sum += self.at_road_ug_m3[class.index()][p] * (-d / self.decay_m).exp();
        }
        let bound = self
            .at_road_ug_m3
            .iter()
            .map(|row| row[p])
            .fold(0.0, f64::max);
        sum.clamp(0.0, bound)
    }

    /// `background` with the increment added to each pollutant it has. A pollutant the
    /// background lacks stays absent: an increment is a difference, not a value.
    ///
    /// ```
    /// use aq_core::{Concentration, Concentrations, NearRoadModel, NearbyRoads, Pollutant, RoadClass};
    ///
    /// let background = Concentrations::default()
    ///     .with(Pollutant::No2, Concentration::new(18.0).unwrap());
    /// let kerb = NearbyRoads::default().with(RoadClass::Secondary, 0.0);
    /// let street = NearRoadModel::default().apply(&background, &kerb);
    /// assert_eq!(street.get(Pollutant::No2).unwrap().ug_m3(), 30.0);
    /// assert!(street.get(Pollutant::Pm25).is_none());
    /// ```
    #[must_use]
    pub fn apply(&self, background: &Concentrations, roads: &NearbyRoads) -> Concentrations {
        if roads.is_empty() {
            return *background;
        }
        let mut street = *background;
        for (pollutant, value) in background.iter() {
            let added = value.ug_m3() + self.increment(pollutant, roads);
            if let Ok(c) = Concentration::new(added) {
                street.set(pollutant, c);
            }
        }
        street
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn distance() -> impl Strategy<Value = Option<f64>> {
        prop_oneof![Just(None), (0.0f64..1000.0).prop_map(Some)]
    }

    fn roads() -> impl Strategy<Value = NearbyRoads> {
        proptest::array::uniform5(distance()).prop_map(|ds| {
            RoadClass::ALL
                .iter()
                .zip(ds)
                .fold(NearbyRoads::default(), |r, (&c, d)| match d {
                    Some(d) => r.with(c, d),
                    None => r,
                })
        })
    }

    proptest! {
        #[test]
        fn the_increment_is_never_negative_and_never_above_the_heaviest_class(
            roads in roads(),
            p in 0usize..6,
        ) {
            let model = NearRoadModel::default();
            let pollutant = Pollutant::ALL[p];
            let inc = model.increment(pollutant, &roads);
            prop_assert!(inc >= 0.0);
            prop_assert!(inc <= model.at_road_ug_m3[0][p]);
        }

        #[test]
        fn moving_away_from_a_road_never_raises_the_increment(
            class in 0usize..5,
            near in 0.0f64..600.0,
            farther in 0.0f64..600.0,
            p in 0usize..6,
        ) {
            let model = NearRoadModel::default();
            let class = RoadClass::ALL[class];
            let at = |d| model.increment(Pollutant::ALL[p], &NearbyRoads::default().with(class, d));
            prop_assert!(at(near + farther) <= at(near));
        }
    }

    #[test]
    fn beyond_the_reach_a_road_adds_nothing() {
        let model = NearRoadModel::default();
        let far = NearbyRoads::default().with(RoadClass::Motorway, 301.0);
        assert_eq!(model.increment(Pollutant::No2, &far), 0.0);
    }

    #[test]
    fn heavier_classes_add_more_at_the_same_distance() {
        let model = NearRoadModel::default();
        for p in [
            Pollutant::Pm25,
            Pollutant::Pm10,
            Pollutant::No2,
            Pollutant::Co,
        ] {
            let at = |c| model.increment(p, &NearbyRoads::default().with(c, 20.0));
            for pair in RoadClass::ALL.windows(2) {
                assert!(at(pair[0]) > at(pair[1]), "{p:?} {pair:?}");
            }
        }
    }

    #[test]
    fn ozone_and_sulphur_dioxide_get_no_increment() {
        let model = NearRoadModel::default();
        let kerb = NearbyRoads::default().with(RoadClass::Motorway, 0.0);
        assert_eq!(model.increment(Pollutant::O3, &kerb), 0.0);
        assert_eq!(model.increment(Pollutant::So2, &kerb), 0.0);
    }
}
