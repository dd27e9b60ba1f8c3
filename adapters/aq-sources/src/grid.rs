//! The grid the remote sources cache their answers by: points in one cell share one upstream
//! query and one cached answer.

use aq_core::Position;

use crate::http::ConfigError;

/// A cell of a [`Grid`]: latitude and longitude over the cell size, rounded.
pub(crate) type Cell = (i32, i32);

/// Square cells of a few thousandths of a degree up to a few degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Grid {
    deg: f64,
}

impl Grid {
    /// Cells of `deg` degrees for `source`, which allows up to `max` degrees (`example` is a
    /// size the message suggests).
    pub(crate) fn new(
        source: &'static str,
        deg: f64,
        max: f64,
        example: f64,
    ) -> Result<Self, ConfigError> {
        if deg.is_finite() && deg > 0.0 && deg <= max {
            Ok(Self { deg })
        } else {
            Err(ConfigError::new(
                source,
                format!("cell_deg {deg} must be in (0, {max}], such as {example}"),
            ))
        }
    }

    /// The cell holding `p`.
    pub(crate) fn cell(self, p: Position) -> Cell {
        // Degrees over a cell of at least a few thousandths of a degree stay far inside i32.
        #[allow(clippy::cast_possible_truncation)]
        let index = |deg: f64| (deg / self.deg).round() as i32;
        (index(p.lat()), index(p.lon()))
    }

    /// The latitude and longitude of `cell`'s centre, kept on the globe.
    pub(crate) fn centre(self, (row, col): Cell) -> (f64, f64) {
        let lat = (f64::from(row) * self.deg).clamp(-90.0, 90.0);
        let lon = (f64::from(col) * self.deg).clamp(-180.0, 180.0);
        (lat, lon)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_in_one_cell_share_it_and_its_centre_is_near_them() {
        let grid = Grid::new("test", 0.1, 5.0, 0.1).unwrap();
        let berlin = Position::new(13.405, 52.52).unwrap();
        let nearby = Position::new(13.43, 52.53).unwrap();
        assert_eq!(grid.cell(berlin), (525, 134));
        assert_eq!(grid.cell(berlin), grid.cell(nearby));
        let (lat, lon) = grid.centre(grid.cell(berlin));
        assert!((lat - 52.5).abs() < 1e-9 && (lon - 13.4).abs() < 1e-9);
        assert_eq!(grid.centre((10_000, -10_000)), (90.0, -180.0));
    }

    #[test]
    fn sizes_outside_the_range_are_refused_with_an_example() {
        for deg in [0.0, -1.0, 5.5, f64::NAN] {
            let e = Grid::new("open-meteo", deg, 5.0, 0.1).unwrap_err();
            assert!(
                e.to_string().ends_with("must be in (0, 5], such as 0.1"),
                "{e}"
            );
        }
    }
}
