//! A regular latitude/longitude grid and the bilinear blend of its four nodes around a point.

use std::fmt;

/// Index tolerance: a point this close (in grid steps) to a node or an edge is on it, so that
/// node coordinates computed in floating point land exactly on their node.
const EPS: f64 = 1e-9;

/// A regular latitude/longitude grid: row `j` lies at `lat0 + j × dlat` (rows may run north to
/// south, `dlat < 0`, or south to north), column `i` at `lon0 + i × dlon` east. Values are
/// stored row after row, `i` varying fastest: node `(j, i)` is value `j × nlon + i`.
///
/// A grid whose columns go round the globe (`nlon × dlon` = 360°) wraps: a point between the
/// last column and the first blends those two.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lattice {
    lat0: f64,
    dlat: f64,
    nlat: usize,
    lon0: f64,
    dlon: f64,
    nlon: usize,
    wraps: bool,
}

/// Why a grid's geometry was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("grid geometry refused: {0}")]
pub struct LatticeError(String);

/// The four nodes around a point and their weights, which sum to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blend {
    /// Value indices of the nodes.
    pub nodes: [usize; 4],
    /// The weight of each node.
    pub weights: [f64; 4],
}

impl Lattice {
    /// A grid of `nlat` rows from `lat0` by `dlat` degrees and `nlon` columns from `lon0` east by
    /// `dlon` degrees.
    ///
    /// ```
    /// use aq_grid::Lattice;
    ///
    /// // 10° global grid, north to south, 0°E eastwards: it wraps round the globe.
    /// let global = Lattice::new(90.0, -10.0, 19, 0.0, 10.0, 36).unwrap();
    /// assert!(global.wraps());
    /// // Halfway between 350°E and 0°E, on the equator: the two nodes share the weight.
    /// let blend = global.blend(0.0, 355.0).unwrap();
    /// assert_eq!(blend.weights, [0.5, 0.5, 0.0, 0.0]);
    /// assert_eq!(blend.nodes[..2], [9 * 36 + 35, 9 * 36]);
    /// ```
    ///
    /// # Errors
    /// [`LatticeError`] when there are fewer than two rows or columns or too many nodes to
    /// count, a step is zero or not finite, the rows leave [-90°, 90°] or the columns span
    /// more than the globe.
    pub fn new(
        lat0: f64,
        dlat: f64,
        nlat: usize,
        lon0: f64,
        dlon: f64,
        nlon: usize,
    ) -> Result<Self, LatticeError> {
        let refuse = |why: String| Err(LatticeError(why));
        if nlat < 2 || nlon < 2 {
            return refuse(format!(
                "{nlat} rows and {nlon} columns: at least 2 of each"
            ));
        }
        // Node indices (`j × nlon + i`) must be counted: a manifest read back from a store
        // may name any sides.
        if nlat.checked_mul(nlon).is_none() {
            return refuse(format!("{nlat} rows of {nlon} columns: too many nodes"));
        }
        if !(dlat.is_finite() && dlat != 0.0 && dlon.is_finite() && dlon > 0.0) {
            return refuse(format!("steps {dlat}° and {dlon}°"));
        }
        let last = lat0 + dlat * (nlat - 1) as f64;
        if !(-90.0 - EPS..=90.0 + EPS).contains(&lat0)
            || !(-90.0 - EPS..=90.0 + EPS).contains(&last)
        {
            return refuse(format!("rows from {lat0}° to {last}° leave the globe"));
        }
        let span = dlon * nlon as f64;
        if span > 360.0 + 1e-6 {
            return refuse(format!("{nlon} columns of {dlon}° span more than 360°"));
        }
        Ok(Self {
            lat0,
            dlat,
            nlat,
            lon0: lon0.rem_euclid(360.0),
            dlon,
            nlon,
            wraps: (span - 360.0).abs() <= 1e-6,
        })
    }

    /// Number of nodes (`nlat × nlon`).
    #[must_use]
    pub fn len(&self) -> usize {
        self.nlat * self.nlon
    }

    /// Never true: a lattice has at least four nodes.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Rows and columns.
    #[must_use]
    pub fn shape(&self) -> (usize, usize) {
        (self.nlat, self.nlon)
    }

    /// Whether the columns go round the globe.
    #[must_use]
    pub fn wraps(&self) -> bool {
        self.wraps
    }

    /// Latitude of the first row and longitude (east, in [0, 360)) of the first column: with
    /// [`Lattice::steps`] and [`Lattice::shape`], what [`Lattice::new`] takes back.
    #[must_use]
    pub fn origin(&self) -> (f64, f64) {
        (self.lat0, self.lon0)
    }

    /// Degrees from one row to the next and from one column to the next.
    #[must_use]
    pub fn steps(&self) -> (f64, f64) {
        (self.dlat, self.dlon)
    }

    /// Latitude and longitude (east, in [0, 360)) of node `(j, i)`.
    #[must_use]
    pub fn node(&self, j: usize, i: usize) -> (f64, f64) {
        (
            self.lat0 + self.dlat * j as f64,
            (self.lon0 + self.dlon * i as f64).rem_euclid(360.0),
        )
    }

    /// Fractional row of `lat`, or `None` outside the rows.
    fn row(&self, lat: f64) -> Option<(usize, f64)> {
        let f = (lat - self.lat0) / self.dlat;
        let top = (self.nlat - 1) as f64;
        if !(-EPS..=top + EPS).contains(&f) {
            return None;
        }
        split(f.clamp(0.0, top), self.nlat - 1)
    }

    /// Fractional column of `lon` and the column after it, or `None` outside the columns.
    fn column(&self, lon: f64) -> Option<(usize, usize, f64)> {
        let mut f = (lon - self.lon0).rem_euclid(360.0) / self.dlon;
        if self.wraps {
            // Just below 360° of the first column is the first column itself.
            if f >= self.nlon as f64 - EPS {
                f = 0.0;
            }
            let (i, t) = split(f, self.nlon)?;
            let i = i % self.nlon;
            return Some((i, (i + 1) % self.nlon, t));
        }
        let right = (self.nlon - 1) as f64;
        if f > right + EPS {
            // West of the first column by less than a step shows up just below 360°.
            if f >= 360.0 / self.dlon - EPS {
                f = 0.0;
            } else {
                return None;
            }
        }
        let (i, t) = split(f.min(right), self.nlon - 1)?;
        Some((i, i + 1, t))
    }

    /// The four nodes around (`lat`, `lon`) and their bilinear weights, or `None` when the
    /// point lies outside the grid. A point on a node gives that node weight 1.
    #[must_use]
    pub fn blend(&self, lat: f64, lon: f64) -> Option<Blend> {
        let (j, u) = self.row(lat)?;
        let (i0, i1, t) = self.column(lon)?;
        let j1 = (j + 1).min(self.nlat - 1);
        let at = |j: usize, i: usize| j * self.nlon + i;
        Some(Blend {
            nodes: [at(j, i0), at(j, i1), at(j1, i0), at(j1, i1)],
            weights: [(1.0 - u) * (1.0 - t), (1.0 - u) * t, u * (1.0 - t), u * t],
        })
    }
}

/// Splits a fractional index in [0, `last`] into its cell (at most `last - 1`, so that the cell
/// has a node after it) and the fraction within; a point on a node has fraction exactly 0 or 1.
fn split(f: f64, last: usize) -> Option<(usize, f64)> {
    let near = f.round();
    let f = if (f - near).abs() <= EPS { near } else { f };
    // `f` is finite and within [0, last] here, so the cast is exact for the floor.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let cell = (f.floor() as usize).min(last.saturating_sub(1));
    Some((cell, f - cell as f64))
}

impl Blend {
    /// The blend of `values` at the nodes: `None` when a node with weight is missing (NaN).
    #[must_use]
    pub fn apply(&self, values: &[f32]) -> Option<f64> {
        self.apply_by(|corner| values.get(self.nodes[corner]).copied())
    }

    /// The blend of the nodes' values as `value` gives them by corner (0 to 3, the order of
    /// [`Blend::nodes`]), `None` for a node not held.
    pub(crate) fn apply_by(&self, value: impl Fn(usize) -> Option<f32>) -> Option<f64> {
        let mut sum = 0.0;
        for (corner, &w) in self.weights.iter().enumerate() {
            // A node without weight takes no part, even without a value.
            if w != 0.0 {
                // A node missing, or without a value, makes the sum NaN: no branch per node
                // in the loop that blends every value a batch reads.
                sum += w * value(corner).map_or(f64::NAN, f64::from);
            }
        }
        (!sum.is_nan()).then_some(sum)
    }
}

impl fmt::Display for Lattice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}x{} from ({}, {}) by ({}, {})",
            self.nlat, self.nlon, self.lat0, self.lon0, self.dlat, self.dlon
        )
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn europe() -> Lattice {
        Lattice::new(72.5, -2.5, 18, -25.0, 2.5, 29).unwrap()
    }

    #[test]
    fn a_regional_grid_covers_its_box_only() {
        let e = europe();
        assert!(!e.wraps());
        assert!(e.blend(50.0, 10.0).is_some());
        assert!(e.blend(50.0, -25.0).is_some());
        assert!(e.blend(50.0, 45.0).is_some());
        assert!(e.blend(30.0, 0.0).is_some());
        assert!(e.blend(72.5, 0.0).is_some());
        assert!(e.blend(29.9, 0.0).is_none());
        assert!(e.blend(72.6, 0.0).is_none());
        assert!(e.blend(50.0, 45.1).is_none());
        assert!(e.blend(50.0, -25.1).is_none());
        assert!(e.blend(-33.9, 151.2).is_none());
    }

    #[test]
    fn a_node_has_all_the_weight_even_beside_a_missing_neighbour() {
        let e = europe();
        let (lat, lon) = e.node(3, 7);
        let b = e.blend(lat, lon).unwrap();
        assert_eq!(b.weights.iter().filter(|&&w| w == 1.0).count(), 1);
        let mut values = vec![f32::NAN; e.len()];
        values[3 * 29 + 7] = 12.5;
        assert_eq!(b.apply(&values), Some(12.5));
        // Off the node, the missing neighbours carry weight: no value.
        assert_eq!(e.blend(lat - 0.1, lon + 0.1).unwrap().apply(&values), None);
    }

    #[test]
    fn the_last_row_and_column_are_reachable() {
        let e = europe();
        let (lat, lon) = e.node(17, 28);
        let values: Vec<f32> = (0..e.len()).map(|k| k as f32).collect();
        assert_eq!(
            e.blend(lat, lon).unwrap().apply(&values),
            Some(17.0 * 29.0 + 28.0)
        );
    }

    #[test]
    fn geometry_that_cannot_be_a_grid_is_refused() {
        assert!(Lattice::new(90.0, -10.0, 1, 0.0, 10.0, 36).is_err());
        assert!(Lattice::new(90.0, 0.0, 19, 0.0, 10.0, 36).is_err());
        assert!(Lattice::new(90.0, -10.0, 20, 0.0, 10.0, 36).is_err());
        assert!(Lattice::new(90.0, -10.0, 19, 0.0, 10.0, 37).is_err());
        // Steps small enough for any count of rows and columns, whose nodes cannot be counted.
        assert!(Lattice::new(90.0, -1e-300, usize::MAX, 0.0, 1e-300, usize::MAX).is_err());
    }

    proptest! {
        /// A linear field in latitude and longitude is reproduced exactly by the blend inside
        /// a regional grid: bilinear interpolation is exact on bilinear functions.
        #[test]
        fn linear_fields_are_reproduced(lat in 30.0..72.5f64, lon in -25.0..45.0f64) {
            let e = europe();
            let values: Vec<f32> = (0..e.len())
                .map(|k| {
                    let (la, lo) = e.node(k / 29, k % 29);
                    let lo = if lo > 180.0 { lo - 360.0 } else { lo };
                    (2.0 * la + lo) as f32
                })
                .collect();
            let v = e.blend(lat, lon).unwrap().apply(&values).unwrap();
            prop_assert!((v - (2.0 * lat + lon)).abs() < 1e-3, "{v} at {lat}, {lon}");
        }

        /// Weights are never negative and always sum to 1, wherever the point is on the globe.
        #[test]
        fn weights_are_a_partition_of_unity(lat in -90.0..=90.0f64, lon in -180.0..=180.0f64) {
            let g = Lattice::new(90.0, -10.0, 19, 0.0, 10.0, 36).unwrap();
            let b = g.blend(lat, lon).unwrap();
            prop_assert!(b.weights.iter().all(|&w| (0.0..=1.0).contains(&w)));
            prop_assert!((b.weights.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            prop_assert!(b.nodes.iter().all(|&n| n < g.len()));
        }
    }
}
