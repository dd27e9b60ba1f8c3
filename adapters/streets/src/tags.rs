//! What a way's OpenStreetMap tags say: the traffic it carries and who may use it.
//!
//! The rules follow the OpenStreetMap wiki's `highway=*`, `access=*`, `foot=*`, `bicycle=*` and
//! `oneway=*` pages, with the defaults most countries share: motorways are neither walked nor
//! ridden (whatever their other tags say), trunk roads only where `foot` or `bicycle` allows it,
//! steps are not ridden, footways are ridden only where `bicycle` allows it, and a way closed by
//! `access` (or to vehicles by `vehicle`) opens again for those its `foot` or `bicycle` tag lets
//! through. Roads in tunnels and roads closed to motor vehicles carry no traffic above ground.

use aq_core::RoadClass;

/// What the network keeps of one way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WayKind {
    /// The traffic class, for ways with motor traffic.
    pub class: Option<RoadClass>,
    /// Whether people may walk it (both ways).
    pub walk: bool,
    /// Whether bicycles may ride it along the way's direction.
    pub cycle_forward: bool,
    /// Whether bicycles may ride it against the way's direction.
    pub cycle_backward: bool,
}

impl WayKind {
    /// True when the way matters to the network: it carries traffic or can be travelled.
    #[must_use]
    pub fn kept(&self) -> bool {
        self.class.is_some() || self.walk || self.cycle_forward || self.cycle_backward
    }
}

/// Reads a way's tags, given as a lookup from key to value; `None` for anything that is not a
/// street, path or road (buildings, areas, rails, ways being built).
///
/// ```
/// use aq_streets::tags::way_kind;
/// use aq_core::RoadClass;
///
/// let tags = [("highway", "primary"), ("oneway", "yes")];
/// let kind = way_kind(|k| tags.iter().find(|(key, _)| *key == k).map(|(_, v)| *v)).unwrap();
/// assert_eq!(kind.class, Some(RoadClass::Primary));
/// assert!(kind.walk && kind.cycle_forward && !kind.cycle_backward);
/// ```
pub fn way_kind<'a>(tag: impl Fn(&str) -> Option<&'a str>) -> Option<WayKind> {
    let highway = tag("highway")?;
    if tag("area") == Some("yes") {
        return None;
    }
    let (class, walk, cycle) = match highway {
        "motorway" | "motorway_link" => {
            return Some(WayKind {
                class: traffic(&tag, RoadClass::Motorway),
                walk: false,
                cycle_forward: false,
                cycle_backward: false,
            });
        }
        // Trunk roads are closed to walkers and riders unless a mode's own tag opens them: the
        // rule of the countries where most trunks are expressways.
        "trunk" | "trunk_link" => (traffic(&tag, RoadClass::Motorway), false, false),
        "primary" | "primary_link" => (traffic(&tag, RoadClass::Primary), true, true),
        "secondary" | "secondary_link" => (traffic(&tag, RoadClass::Secondary), true, true),
        "tertiary" | "tertiary_link" => (traffic(&tag, RoadClass::Tertiary), true, true),
        "residential" | "unclassified" | "living_street" | "service" | "road" => {
            (traffic(&tag, RoadClass::Minor), true, true)
        }
        "cycleway" | "path" | "track" => (None, true, true),
        "footway" | "pedestrian" | "steps" | "corridor" | "bridleway" => (None, true, false),
        _ => return None,
    };
    let closed = matches!(tag("access"), Some("no" | "private"));
    let walk = permitted(tag("foot"), walk && !closed);
    let vehicles_closed = closed || matches!(tag("vehicle"), Some("no" | "private"));
    let cycle = highway != "steps" && permitted(tag("bicycle"), cycle && !vehicles_closed);
    let (forward, backward) = directions(&tag, highway);
    Some(WayKind {
        class,
        walk,
        cycle_forward: cycle && forward,
        cycle_backward: cycle && backward,
    })
}

/// The way's traffic class: `class`, unless motor vehicles are kept out (`motor_vehicle=no`)
/// or the traffic runs in a tunnel or under a cover, whose air does not reach the street above.
fn traffic<'a>(tag: &impl Fn(&str) -> Option<&'a str>, class: RoadClass) -> Option<RoadClass> {
    let underground = matches!(tag("tunnel"), Some(v) if v != "no" && v != "building_passage")
        || tag("covered") == Some("yes");
    let no_motors = tag("motor_vehicle") == Some("no");
    (!underground && !no_motors).then_some(class)
}

/// A mode's own tag decides over the default: `yes`, `designated`, `permissive` or
/// `destination` lets it through, `no`, `private`, `use_sidepath` or `dismount` keeps it out.
fn permitted(mode: Option<&str>, default: bool) -> bool {
    match mode {
        Some("yes" | "designated" | "permissive" | "destination") => true,
        Some("no" | "private" | "use_sidepath" | "dismount") => false,
        _ => default,
    }
}

/// Which ways a bicycle may ride: `oneway` (and roundabouts, one-way by definition) limit it,
/// `oneway:bicycle=no` or a contraflow cycle lane lift the limit.
fn directions<'a>(tag: &impl Fn(&str) -> Option<&'a str>, highway: &str) -> (bool, bool) {
    let oneway = match tag("oneway") {
        Some("yes" | "1" | "true") => Some(true),
        Some("-1" | "reverse") => Some(false),
        Some(_) => None,
        None if matches!(tag("junction"), Some("roundabout" | "circular")) => Some(true),
        None => None,
    };
    let contraflow = tag("oneway:bicycle") == Some("no")
        || tag("cycleway").is_some_and(|v| v.starts_with("opposite"))
        || highway == "footway"
        || highway == "pedestrian";
    match oneway {
        _ if contraflow => (true, true),
        Some(true) => (true, false),
        Some(false) => (false, true),
        None => (true, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(tags: &[(&str, &str)]) -> Option<WayKind> {
        way_kind(|k| tags.iter().find(|(key, _)| *key == k).map(|(_, v)| *v))
    }

    #[test]
    fn motorways_and_trunks_carry_traffic_but_no_walkers_or_riders() {
        for highway in ["motorway", "motorway_link"] {
            let k = kind(&[("highway", highway), ("foot", "yes"), ("bicycle", "yes")]).unwrap();
            assert_eq!(k.class, Some(RoadClass::Motorway), "{highway}");
            assert!(
                !k.walk && !k.cycle_forward && !k.cycle_backward,
                "{highway}"
            );
        }
        for highway in ["trunk", "trunk_link"] {
            let k = kind(&[("highway", highway)]).unwrap();
            assert_eq!(k.class, Some(RoadClass::Motorway), "{highway}");
            assert!(!k.walk && !k.cycle_forward, "{highway}");
            let k = kind(&[("highway", highway), ("foot", "yes")]).unwrap();
            assert!(
                k.walk && !k.cycle_forward,
                "a trunk's own foot tag opens it: {highway}"
            );
        }
    }

    #[test]
    fn roads_in_tunnels_or_closed_to_motor_vehicles_add_no_traffic_above_ground() {
        let k = kind(&[("highway", "motorway"), ("tunnel", "yes")]).unwrap();
        assert_eq!(k.class, None);
        let k = kind(&[("highway", "primary"), ("covered", "yes")]).unwrap();
        assert_eq!(k.class, None);
        let k = kind(&[("highway", "primary"), ("tunnel", "building_passage")]).unwrap();
        assert_eq!(k.class, Some(RoadClass::Primary));
        let k = kind(&[("highway", "residential"), ("motor_vehicle", "no")]).unwrap();
        assert!(k.class.is_none() && k.walk && k.cycle_forward);
        let k = kind(&[("highway", "residential"), ("vehicle", "no")]).unwrap();
        assert!(!k.cycle_forward && k.walk);
    }

    #[test]
    fn steps_are_walked_not_ridden() {
        let k = kind(&[("highway", "steps"), ("bicycle", "yes")]).unwrap();
        assert!(k.walk && !k.cycle_forward && !k.cycle_backward);
        assert_eq!(k.class, None);
    }

    #[test]
    fn footways_are_ridden_only_where_bicycles_are_allowed() {
        let k = kind(&[("highway", "footway")]).unwrap();
        assert!(k.walk && !k.cycle_forward);
        let k = kind(&[("highway", "footway"), ("bicycle", "designated")]).unwrap();
        assert!(k.cycle_forward && k.cycle_backward);
    }

    #[test]
    fn access_closes_a_way_that_a_mode_tag_opens_again() {
        let k = kind(&[("highway", "service"), ("access", "private")]).unwrap();
        assert!(!k.walk && !k.cycle_forward);
        assert_eq!(
            k.class,
            Some(RoadClass::Minor),
            "a private road still has traffic"
        );
        let k = kind(&[("highway", "service"), ("access", "no"), ("foot", "yes")]).unwrap();
        assert!(k.walk && !k.cycle_forward);
        let k = kind(&[("highway", "primary"), ("foot", "no"), ("bicycle", "no")]).unwrap();
        assert!(!k.walk && !k.cycle_forward && k.kept());
    }

    #[test]
    fn one_way_streets_limit_bicycles_unless_contraflow_is_allowed() {
        let k = kind(&[("highway", "residential"), ("oneway", "yes")]).unwrap();
        assert!(k.walk && k.cycle_forward && !k.cycle_backward);
        let k = kind(&[("highway", "residential"), ("oneway", "-1")]).unwrap();
        assert!(!k.cycle_forward && k.cycle_backward);
        let k = kind(&[
            ("highway", "residential"),
            ("oneway", "yes"),
            ("oneway:bicycle", "no"),
        ])
        .unwrap();
        assert!(k.cycle_forward && k.cycle_backward);
        let k = kind(&[
            ("highway", "tertiary"),
            ("oneway", "yes"),
            ("cycleway", "opposite_lane"),
        ])
        .unwrap();
        assert!(k.cycle_backward);
        let k = kind(&[("highway", "primary"), ("junction", "roundabout")]).unwrap();
        assert!(k.cycle_forward && !k.cycle_backward);
        let k = kind(&[("highway", "tertiary"), ("junction", "circular")]).unwrap();
        assert!(k.cycle_forward && !k.cycle_backward);
    }

    #[test]
    fn things_that_are_not_streets_are_left_out() {
        assert!(kind(&[("building", "yes")]).is_none());
        assert!(kind(&[("highway", "construction")]).is_none());
        assert!(kind(&[("highway", "pedestrian"), ("area", "yes")]).is_none());
        assert!(kind(&[("highway", "elevator")]).is_none());
    }
}
