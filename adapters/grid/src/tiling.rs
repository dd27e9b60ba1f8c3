//! A lattice cut into chunks: blocks of cells, each chunk carrying the nodes of its cells, so one
//! node more than its cells in each direction. A node on a block's edge is stored in both
//! chunks that share it; in exchange the four nodes of any blend lie in one chunk, and a sample
//! reads one chunk per quantity and hour block, never four.

use crate::lattice::{Blend, Lattice};

/// Where a blend's four nodes are: the chunk's block row and column, and the nodes' positions
/// within one hour of the chunk (row by row, column fastest), in the blend's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) row_block: usize,
    pub(crate) column_block: usize,
    pub(crate) nodes: [usize; 4],
}

/// A lattice cut into blocks of `size` × `size` cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Tiling {
    lattice: Lattice,
    size: usize,
}

impl Tiling {
    /// `lattice` in blocks of `size` cells a side (at least 1).
    pub(crate) fn new(lattice: Lattice, size: usize) -> Self {
        Self {
            lattice,
            size: size.max(1),
        }
    }

    /// Cells a side of a block.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// The lattice.
    pub(crate) fn lattice(&self) -> &Lattice {
        &self.lattice
    }

    /// Cells down and across: a grid round the globe has a cell from its last column back to
    /// its first.
    fn cells(&self) -> (usize, usize) {
        let (nlat, nlon) = self.lattice.shape();
        let across = if self.lattice.wraps() { nlon } else { nlon - 1 };
        (nlat - 1, across)
    }

    /// Block rows and block columns.
    pub(crate) fn blocks(&self) -> (usize, usize) {
        let (down, across) = self.cells();
        (down.div_ceil(self.size), across.div_ceil(self.size))
    }

    /// Rows and columns of nodes in the chunk of block (`rb`, `cb`).
    pub(crate) fn shape(&self, rb: usize, cb: usize) -> (usize, usize) {
        let (down, across) = self.cells();
        let rows = (down - rb * self.size).min(self.size) + 1;
        let cols = (across - cb * self.size).min(self.size) + 1;
        (rows, cols)
    }

    /// The lattice's value index of node (`lr`, `lc`) of the chunk of block (`rb`, `cb`).
    pub(crate) fn node(&self, rb: usize, cb: usize, lr: usize, lc: usize) -> usize {
        let (_, nlon) = self.lattice.shape();
        let j = rb * self.size + lr;
        let i = (cb * self.size + lc) % nlon;
        j * nlon + i
    }

    /// Where the nodes of `blend` (a blend on this lattice) lie.
    pub(crate) fn locate(&self, blend: &Blend) -> Place {
        let (_, nlon) = self.lattice.shape();
        // The blend's first node is the cell's corner: its row and column name the cell.
        let (j, i) = (blend.nodes[0] / nlon, blend.nodes[0] % nlon);
        let (rb, cb) = (j / self.size, i / self.size);
        let (_, cols) = self.shape(rb, cb);
        let at = (j - rb * self.size) * cols + (i - cb * self.size);
        Place {
            row_block: rb,
            column_block: cb,
            nodes: [at, at + 1, at + cols, at + cols + 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn tilings() -> [Tiling; 2] {
        [
            Tiling::new(Lattice::new(90.0, -10.0, 19, 0.0, 10.0, 36).unwrap(), 4),
            Tiling::new(Lattice::new(72.5, -2.5, 18, -25.0, 2.5, 29).unwrap(), 5),
        ]
    }

    proptest! {
        /// Wherever a point is, the chunk it falls in holds the very nodes its blend names,
        /// including across the seam of a grid that wraps.
        #[test]
        fn a_blends_nodes_lie_in_one_chunk(lat in -90.0..=90.0f64, lon in -180.0..=180.0f64) {
            for tiling in tilings() {
                let Some(blend) = tiling.lattice().blend(lat, lon) else { continue };
                let place = tiling.locate(&blend);
                let (rows, cols) = tiling.shape(place.row_block, place.column_block);
                for (k, &at) in place.nodes.iter().enumerate() {
                    prop_assert!(at < rows * cols);
                    let node =
                        tiling.node(place.row_block, place.column_block, at / cols, at % cols);
                    prop_assert_eq!(node, blend.nodes[k]);
                }
            }
        }
    }

    #[test]
    fn the_chunks_cover_every_node() {
        for tiling in tilings() {
            let mut seen = vec![false; tiling.lattice().len()];
            let (nr, nc) = tiling.blocks();
            for rb in 0..nr {
                for cb in 0..nc {
                    let (rows, cols) = tiling.shape(rb, cb);
                    for lr in 0..rows {
                        for lc in 0..cols {
                            seen[tiling.node(rb, cb, lr, lc)] = true;
                        }
                    }
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }
}
