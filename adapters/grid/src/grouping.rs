//! The positions of one sampling, grouped by the chunk their four nodes lie in, and the chunks
//! the sampling holds while it runs.
//!
//! Both the store's sampling and a model grid's computed blocks work through these groups, so
//! they live below either.

use std::collections::HashMap;
use std::sync::Arc;

use foldhash::fast::RandomState;

use crate::cache::ChunkId;
use crate::chunk::Chunk;
use crate::lattice::Blend;
use crate::tiling::Tiling;

/// The chunks one sampling has used (`None`: not in the object store), which answer even if
/// the cache has since let them go.
pub(crate) type Held = HashMap<ChunkId, Option<Arc<Chunk>>, RandomState>;

/// Positions of one chunk of a grid, each with the blend of its four nodes in the chunk.
pub(crate) struct Group {
    pub(crate) row_block: usize,
    pub(crate) column_block: usize,
    pub(crate) members: Vec<(usize, Blend)>,
}

/// The positions grouped by chunk, per grid, worked out on first use.
pub(crate) struct Places<'a> {
    pub(crate) positions: &'a [(f64, f64)],
    pub(crate) grids: Vec<(Tiling, Vec<Group>)>,
}

impl Places<'_> {
    pub(crate) fn groups(&mut self, tiling: &Tiling) -> &[Group] {
        let found = self.grids.iter().position(|(t, _)| t == tiling);
        let at = match found {
            Some(at) => at,
            None => {
                self.grids.push((*tiling, group(self.positions, tiling)));
                self.grids.len() - 1
            }
        };
        &self.grids[at].1
    }
}

/// `positions` on `tiling`, by chunk, and within a chunk by node (the order of its memory);
/// the positions outside the grid are left out.
fn group(positions: &[(f64, f64)], tiling: &Tiling) -> Vec<Group> {
    let mut placed: Vec<(usize, usize, usize, Blend)> = positions
        .iter()
        .enumerate()
        .filter_map(|(p, &(lat, lon))| {
            let blend = tiling.lattice().blend(lat, lon)?;
            let place = tiling.locate(&blend);
            // The same weights on the chunk's own copy of the nodes.
            let local = Blend {
                nodes: place.nodes,
                weights: blend.weights,
            };
            Some((place.row_block, place.column_block, p, local))
        })
        .collect();
    placed.sort_by_key(|&(rb, cb, p, b)| (rb, cb, b.nodes[0], p));
    let mut groups: Vec<Group> = Vec::new();
    for (rb, cb, p, blend) in placed {
        match groups.last_mut() {
            Some(g) if g.row_block == rb && g.column_block == cb => g.members.push((p, blend)),
            _ => groups.push(Group {
                row_block: rb,
                column_block: cb,
                members: vec![(p, blend)],
            }),
        }
    }
    groups
}
