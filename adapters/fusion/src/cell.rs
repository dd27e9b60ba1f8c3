//! Points on the unit sphere: each analysis keeps its stations in an R-tree of 3-D unit
//! vectors, where straight-line (chord) distance grows with great-circle distance, so that a
//! point's nearest stations are found without seams at the antimeridian or the poles.

use aq_core::{Area, Position};

/// Mean Earth radius in metres, the one behind [`Position::distance_m`].
pub(crate) const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Metres in one degree of latitude.
pub(crate) const M_PER_DEGREE: f64 = EARTH_RADIUS_M * std::f64::consts::PI / 180.0;

/// The position as a point on the unit sphere.
pub(crate) fn unit_vector(p: Position) -> [f64; 3] {
    let (sin_lat, cos_lat) = p.lat().to_radians().sin_cos();
    let (sin_lon, cos_lon) = p.lon().to_radians().sin_cos();
    [cos_lat * cos_lon, cos_lat * sin_lon, sin_lat]
}

/// The squared straight-line distance between two points.
pub(crate) fn chord2(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (x, y, z) = (a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    x * x + y * y + z * z
}

/// Great-circle metres between two unit vectors.
pub(crate) fn distance_m(a: [f64; 3], b: [f64; 3]) -> f64 {
    chord_to_m(chord2(a, b).sqrt())
}

/// Great-circle distance in metres for a chord of length `chord` on the unit sphere.
pub(crate) fn chord_to_m(chord: f64) -> f64 {
    2.0 * EARTH_RADIUS_M * (chord / 2.0).clamp(0.0, 1.0).asin()
}

/// Chord length on the unit sphere for a great-circle distance of `m` metres.
pub(crate) fn m_to_chord(m: f64) -> f64 {
    let angle = (m / EARTH_RADIUS_M).clamp(0.0, std::f64::consts::PI);
    2.0 * (angle / 2.0).sin()
}

/// An analysis cell: the whole degrees (of `cell_deg`) of latitude and longitude a point lies
/// in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Cell {
    lat: i32,
    lon: i32,
}

impl Cell {
    /// The cell of `p` for cells of `cell_deg` degrees.
    pub(crate) fn of(p: Position, cell_deg: f64) -> Self {
        // A cell index fits an i32 for any cell of 1e-6° or more; the configuration allows
        // far coarser ones only.
        #[allow(clippy::cast_possible_truncation)]
        let index = |deg: f64| (deg / cell_deg).floor() as i32;
        Self {
            lat: index(p.lat()),
            lon: index(p.lon()),
        }
    }

    /// The cell's box widened by `margin_m` on every side: where the stations that can
    /// correct a point of the cell stand.
    pub(crate) fn area(self, cell_deg: f64, margin_m: f64) -> Area {
        let margin = margin_m / M_PER_DEGREE;
        let south = (f64::from(self.lat) * cell_deg - margin).max(-90.0);
        let north = (f64::from(self.lat + 1) * cell_deg + margin).min(90.0);
        // A degree of longitude shrinks with the cosine of the latitude; the box's edge
        // nearest a pole decides how many degrees the margin needs.
        let widest = south.abs().max(north.abs()).min(89.0);
        let lon_margin = margin / widest.to_radians().cos();
        let west = f64::from(self.lon) * cell_deg - lon_margin;
        let east = f64::from(self.lon + 1) * cell_deg + lon_margin;
        // A box reaching a pole holds every longitude near it.
        if east - west >= 360.0 || north >= 90.0 || south <= -90.0 {
            return Area::new(south, -180.0, north, 180.0).unwrap_or(Area::WORLD);
        }
        let wrap = |x: f64| {
            if x < -180.0 {
                x + 360.0
            } else if x > 180.0 {
                x - 360.0
            } else {
                x
            }
        };
        Area::new(south, wrap(west), north, wrap(east)).unwrap_or(Area::WORLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_measure_great_circles() {
        let a = Position::new(13.405, 52.52).unwrap();
        let b = Position::new(2.3522, 48.8566).unwrap();
        let d = distance_m(unit_vector(a), unit_vector(b));
        assert!((d - a.distance_m(b)).abs() < 1.0, "{d}");
        assert!((chord_to_m(m_to_chord(25_000.0)) - 25_000.0).abs() < 1e-6);
    }

    #[test]
    fn a_cells_area_holds_every_point_within_the_margin_of_the_cell() {
        let berlin = Position::new(13.4, 52.5).unwrap();
        let cell = Cell::of(berlin, 1.0);
        let area = cell.area(1.0, 150_000.0);
        for (lon, lat) in [(13.0, 52.0), (11.0, 51.0), (16.0, 54.3), (10.9, 53.9)] {
            assert!(
                area.contains(Position::new(lon, lat).unwrap()),
                "{lon} {lat}"
            );
        }
        assert!(!area.contains(Position::new(13.4, 55.0).unwrap()));
        // Beside the antimeridian the box wraps round.
        let fiji = Cell::of(Position::new(179.5, -17.0).unwrap(), 1.0);
        let area = fiji.area(1.0, 100_000.0);
        assert!(area.contains(Position::new(-179.6, -17.0).unwrap()));
        assert!(area.contains(Position::new(178.6, -17.0).unwrap()));
        // Near a pole, the whole circle of longitude.
        let pole = Cell::of(Position::new(0.0, 89.5).unwrap(), 1.0);
        let area = pole.area(1.0, 150_000.0);
        assert!(area.contains(Position::new(-170.0, 88.0).unwrap()));
        assert!(!area.contains(Position::new(0.0, 80.0).unwrap()));
    }
}
