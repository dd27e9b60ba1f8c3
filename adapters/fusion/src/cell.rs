//! The analysis cells: a fused source analyses the stations cell by cell, and a cell's box,
//! widened by the correlation's reach, is where the stations that can correct its points stand.

use aq_core::position::M_PER_DEGREE;
use aq_core::{Area, Position};

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
