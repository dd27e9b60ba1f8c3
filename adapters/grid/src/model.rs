//! A model's values laid on a grid ([`crate::GridStore::from_model`]): the demo field, or any
//! [`AirModel`], sampled through the same chunks, blends and hours as the CAMS grids, its nodes
//! computed per block on first use instead of read from an object store.
//!
//! The catalog of a model is made for each span asked: one batch per UTC day, whose run is the
//! day's midnight, holding every quantity at each of its 24 hours. A **block** is one chunk's
//! nodes over one hour block, every quantity at once, since a model works out all of them
//! together.
//!
//! A block is computed whole, and cached for every later call, once it costs at most
//! [`WHOLE_BLOCK_FACTOR`] times what the calls that asked for it needed of it together (the
//! nodes around their positions at the hours they asked); until then each call computes only
//! those nodes and hours, for itself. A large batch around a city pays for its blocks at once;
//! small requests around it, after a few of them. Either way a position's value is the blend
//! of the same node values, so an answer never depends on which other positions came with it;
//! and scattered positions cost at most four model evaluations each per hour, wherever they
//! are, until their places have been asked for often enough to pay for whole blocks.

use std::collections::BTreeSet;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use aq_core::{AirModel, ModelHour, Position, SourceError, SourceInfo};
use chrono::{DateTime, Utc};
use futures::StreamExt;
use quick_cache::Weighter;
use quick_cache::sync::Cache;

use crate::cache::{ChunkId, DEFAULT_CACHE_BYTES};
use crate::catalog::{Batch, BatchLayer, Catalog, HOUR};
use crate::chunk::{Chunk, ChunkError};
use crate::field::Product;
use crate::grouping::{Group, Held};
use crate::lattice::Lattice;
use crate::manifest::Manifest;
use crate::quantity::{N_QUANTITIES, Quantity, Wanted};
use crate::tiling::Tiling;

/// Cells a side of a model's chunks by default: 16 cells of 0.02°, about 35 km, so that the
/// points around one city share a few blocks and a block is a few milliseconds of work.
pub const MODEL_CHUNK_NODES: usize = 16;

/// Hours of a model's chunks by default.
pub const MODEL_CHUNK_HOURS: usize = 8;

/// How much more than the calls that asked for a block needed of it, together, a whole block
/// may cost for it to be computed (and cached) whole: past this, a call computes only what it
/// needs.
pub const WHOLE_BLOCK_FACTOR: usize = 8;

/// Blocks whose demand so far is remembered: a bound on what scattered calls leave behind.
const DEMANDS: usize = 1 << 16;

/// Catalogs of spans of days kept: a server asks for a handful (the days of a day's forecasts
/// and of the civil days of pollen around the world).
const CATALOGS: usize = 64;

/// Blocks computed at once.
const COMPUTING: usize = 16;

/// Seconds in a day: a model's batches are UTC days.
const DAY: i64 = 24 * HOUR;

/// How a model is laid on a grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelGrid {
    /// The nodes the model is evaluated at.
    pub lattice: Lattice,
    /// Cells a side of a chunk.
    pub chunk_nodes: usize,
    /// Hours of a chunk.
    pub chunk_hours: usize,
    /// The most bytes of computed blocks held.
    pub cache_bytes: u64,
}

impl Default for ModelGrid {
    /// 0.02° round the globe (about 2.2 km: the demo field's city plumes in detail, its road
    /// plumes of 1.5 km softened), chunks of [`MODEL_CHUNK_NODES`] cells and [`MODEL_CHUNK_HOURS`] hours,
    /// [`DEFAULT_CACHE_BYTES`] of blocks.
    fn default() -> Self {
        Self {
            lattice: Lattice::new(90.0, -0.02, 9_001, -180.0, 0.02, 18_000)
                .expect("0.02° from the North Pole to the South Pole, round the globe, is a grid"),
            chunk_nodes: MODEL_CHUNK_NODES,
            chunk_hours: MODEL_CHUNK_HOURS,
            cache_bytes: DEFAULT_CACHE_BYTES,
        }
    }
}

/// A block's identity: its day, hour block and spatial block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct BlockId {
    day: i64,
    hours: usize,
    row_block: usize,
    column_block: usize,
}

/// Every quantity of one chunk over one hour block, in [`Quantity::ALL`] order.
type Block = Vec<Arc<Chunk>>;

#[derive(Debug, Clone, Copy)]
struct BlockBytes;

impl Weighter<BlockId, Arc<Block>> for BlockBytes {
    fn weight(&self, _: &BlockId, block: &Arc<Block>) -> u64 {
        block.iter().map(|c| c.weight()).sum()
    }
}

/// A model on a grid, with the blocks computed whole so far.
pub(crate) struct Modelled {
    model: Arc<dyn AirModel>,
    tiling: Tiling,
    chunk_hours: usize,
    blocks: Cache<BlockId, Arc<Block>, BlockBytes>,
    /// Per block not held, the node-hours the calls that asked for it needed so far.
    demand: Cache<BlockId, usize>,
    /// The catalogs of the spans of days asked lately (first day, days): every call of an
    /// hour asks for the same few, and building one for every call showed in the profile of
    /// small alert jobs.
    catalogs: Cache<(i64, i64), Arc<Catalog>>,
}

impl fmt::Debug for Modelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Modelled")
            .field("model", &self.model.info().name)
            .field("tiling", &self.tiling)
            .field("chunk_hours", &self.chunk_hours)
            .field("bytes", &self.blocks.weight())
            .finish_non_exhaustive()
    }
}

/// What a call computes of one block: all of it, or the nodes (chunk positions) it needs at
/// the hours (positions in the block) it asks.
enum Part {
    Whole,
    Some {
        nodes: Vec<usize>,
        hours: Vec<usize>,
    },
}

/// One block a call wants and the cache does not hold.
struct Job {
    id: BlockId,
    batch: u64,
    /// The block's hours, seconds since the epoch.
    hours: Vec<i64>,
    part: Part,
}

impl Modelled {
    pub(crate) fn new(model: Arc<dyn AirModel>, grid: ModelGrid) -> Self {
        // A typical block: 17 × 17 nodes, 8 hours, every quantity, as f32.
        let typical = 17 * 17 * 8 * 4 * N_QUANTITIES as u64;
        let items = usize::try_from(grid.cache_bytes / typical + 16).unwrap_or(usize::MAX);
        Self {
            model,
            tiling: Tiling::new(grid.lattice, grid.chunk_nodes),
            chunk_hours: grid.chunk_hours.max(1),
            blocks: Cache::with_weighter(items, grid.cache_bytes.max(1), BlockBytes),
            demand: Cache::new(DEMANDS),
            catalogs: Cache::new(CATALOGS),
        }
    }

    /// The chunks the model's values are laid in.
    pub(crate) fn tiling(&self) -> &Tiling {
        &self.tiling
    }

    pub(crate) fn info(&self) -> SourceInfo {
        self.model.info()
    }

    /// Bytes of blocks held.
    pub(crate) fn weight(&self) -> u64 {
        self.blocks.weight()
    }

    /// The catalog of the UTC days `span` (whole hours) touches.
    pub(crate) fn catalog(&self, span: &Range<i64>) -> Arc<Catalog> {
        if span.start >= span.end {
            return Arc::new(Catalog::default());
        }
        let first = span.start.div_euclid(DAY) * DAY;
        // The days from `first` that begin before the span ends.
        let days = (span.end - first - 1).div_euclid(DAY) + 1;
        if let Some(held) = self.catalogs.get(&(first, days)) {
            return held;
        }
        let catalog = Arc::new(self.catalog_of_days(first, days));
        self.catalogs.insert((first, days), catalog.clone());
        catalog
    }

    /// The catalog of `days` UTC days from `first` (seconds since the epoch).
    fn catalog_of_days(&self, first: i64, days: i64) -> Catalog {
        let batches = (first..first + days * DAY)
            .step_by(usize::try_from(DAY).unwrap_or(usize::MAX))
            .filter_map(|day| {
                let run = DateTime::from_timestamp(day, 0)?;
                let layers = Quantity::ALL
                    .iter()
                    .map(|&quantity| BatchLayer {
                        quantity,
                        tiling: self.tiling,
                        hours: (0..24).map(|h| day + h * HOUR).collect(),
                        chunks: String::new(),
                    })
                    .collect();
                Some(Arc::new(Batch {
                    id: day.cast_unsigned(),
                    manifest: Manifest::new(
                        Product::Global,
                        run,
                        day.cast_unsigned(),
                        self.tiling.size(),
                        self.chunk_hours,
                    ),
                    run: day,
                    chunk_hours: self.chunk_hours,
                    layers,
                }))
            })
            .collect();
        Catalog::new(batches)
    }

    /// Puts into `held` the chunks of the `wanted` quantities that `groups` (positions grouped
    /// on this model's tiling) need at the hours of `span`: from the blocks computed whole
    /// before, else computed now.
    ///
    /// # Errors
    /// [`SourceError::Unavailable`] when the model fails (panics) while computing a block.
    pub(crate) async fn fill(
        &self,
        catalog: &Catalog,
        span: &Range<i64>,
        wanted: Wanted,
        groups: &[Group],
        held: &mut Held,
    ) -> Result<(), SourceError> {
        let mut jobs = Vec::new();
        for batch in &catalog.batches {
            let Some(layer) = batch.layers.first() else {
                continue;
            };
            for (t, hours) in layer.hours.chunks(self.chunk_hours).enumerate() {
                let asked: Vec<usize> = (0..hours.len())
                    .filter(|&h| span.contains(&hours[h]))
                    .collect();
                if asked.is_empty() {
                    continue;
                }
                for group in groups {
                    let id = BlockId {
                        day: batch.run,
                        hours: t,
                        row_block: group.row_block,
                        column_block: group.column_block,
                    };
                    if let Some(block) = self.blocks.get(&id) {
                        hold(held, batch.id, id, &block, wanted);
                        continue;
                    }
                    let part = self.part(id, group, hours.len(), asked.clone());
                    jobs.push(Job {
                        id,
                        batch: batch.id,
                        hours: hours.to_vec(),
                        part,
                    });
                }
            }
        }
        let computed: Vec<Result<(Job, Arc<Block>), SourceError>> = futures::stream::iter(jobs)
            .map(|job| async move {
                let block = self.compute(&job).await?;
                Ok((job, block))
            })
            .buffer_unordered(COMPUTING)
            .collect()
            .await;
        for done in computed {
            let (job, block) = done?;
            hold(held, job.batch, job.id, &block, wanted);
        }
        Ok(())
    }

    /// What to compute of block `id` (of `block_hours`) for `group`, which asks for its hours
    /// `asked`: the whole block once the calls that asked for it have needed, together, at
    /// least a [`WHOLE_BLOCK_FACTOR`]th of it; else what this call needs.
    fn part(&self, id: BlockId, group: &Group, block_hours: usize, asked: Vec<usize>) -> Part {
        let nodes: BTreeSet<usize> = group
            .members
            .iter()
            .flat_map(|(_, blend)| {
                blend
                    .nodes
                    .iter()
                    .zip(blend.weights)
                    .filter(|(_, w)| *w != 0.0)
                    .map(|(&n, _)| n)
            })
            .collect();
        let (rows, cols) = self.tiling.shape(group.row_block, group.column_block);
        let whole = rows * cols * block_hours;
        let needed = nodes.len() * asked.len() + self.demand.get(&id).unwrap_or(0);
        if whole <= WHOLE_BLOCK_FACTOR.saturating_mul(needed) {
            self.demand.remove(&id);
            Part::Whole
        } else {
            self.demand.insert(id, needed);
            Part::Some {
                nodes: nodes.into_iter().collect(),
                hours: asked,
            }
        }
    }

    /// The block of `job`: a whole one through the cache (computed once however many calls
    /// want it at once), a part for the call alone. The model runs on the blocking pool: a
    /// block is milliseconds of arithmetic.
    async fn compute(&self, job: &Job) -> Result<Arc<Block>, SourceError> {
        let (model, tiling, id, hours) =
            (self.model.clone(), self.tiling, job.id, job.hours.clone());
        match &job.part {
            Part::Whole => {
                let all: Vec<usize> = (0..hours.len()).collect();
                self.blocks
                    .get_or_insert_async(&id, async move {
                        run(move || evaluate(model.as_ref(), &tiling, id, &hours, None, &all)).await
                    })
                    .await
            }
            Part::Some {
                nodes,
                hours: asked,
            } => {
                let (nodes, asked) = (nodes.clone(), asked.clone());
                run(move || evaluate(model.as_ref(), &tiling, id, &hours, Some(&nodes), &asked))
                    .await
            }
        }
    }
}

/// `work` on the blocking pool.
async fn run(
    work: impl FnOnce() -> Result<Block, ChunkError> + Send + 'static,
) -> Result<Arc<Block>, SourceError> {
    let failed =
        |e: String| SourceError::Unavailable(format!("the model failed on a grid block: {e}"));
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(block)) => Ok(Arc::new(block)),
        Ok(Err(e)) => Err(failed(e.to_string())),
        Err(e) => Err(failed(e.to_string())),
    }
}

/// Puts the `wanted` quantities of `block` into `held` under the chunk ids sampling looks up.
fn hold(held: &mut Held, batch: u64, id: BlockId, block: &Block, wanted: Wanted) {
    for (k, chunk) in block.iter().enumerate() {
        if !wanted[k] {
            continue;
        }
        let chunk_id = ChunkId::new(batch, k, id.hours, id.row_block, id.column_block);
        held.insert(chunk_id, Some(chunk.clone()));
    }
}

/// The model at the `nodes` of block `id` (every node when `None`) at its hours `asked` (of
/// `hours`); NaN wherever it was not evaluated or has no value.
fn evaluate(
    model: &dyn AirModel,
    tiling: &Tiling,
    id: BlockId,
    hours: &[i64],
    nodes: Option<&[usize]>,
    asked: &[usize],
) -> Result<Block, ChunkError> {
    let (rows, cols) = tiling.shape(id.row_block, id.column_block);
    let size = rows * cols;
    let mut values = vec![vec![f32::NAN; size * hours.len()]; N_QUANTITIES];
    let times: Vec<DateTime<Utc>> = asked
        .iter()
        .filter_map(|&h| DateTime::from_timestamp(hours[h], 0))
        .collect();
    let lattice = tiling.lattice();
    let (_, nlon) = lattice.shape();
    let every: Vec<usize>;
    let nodes = if let Some(nodes) = nodes {
        nodes
    } else {
        every = (0..size).collect();
        &every
    };
    for &at in nodes {
        let index = tiling.node(id.row_block, id.column_block, at / cols, at % cols);
        let (lat, lon) = lattice.node(index / nlon, index % nlon);
        let lon = if lon > 180.0 { lon - 360.0 } else { lon };
        let Ok(position) = Position::new(lon, lat.clamp(-90.0, 90.0)) else {
            continue;
        };
        for (&h, hour) in asked.iter().zip(model.hours(position, &times)) {
            for (k, quantity) in Quantity::ALL.iter().enumerate() {
                if let Some(v) = value(&hour, *quantity) {
                    // The one rounding of a value on its way into a chunk, as at ingest.
                    #[allow(clippy::cast_possible_truncation)]
                    let v = v as f32;
                    values[k][h * size + at] = v;
                }
            }
        }
    }
    values
        .into_iter()
        .map(|v| Chunk::new(rows, cols, hours.len(), &v).map(Arc::new))
        .collect()
}

/// `quantity` of `hour`.
fn value(hour: &ModelHour, quantity: Quantity) -> Option<f64> {
    match quantity {
        Quantity::Pollutant(p) => hour.concentrations.get(p).map(|c| c.ug_m3()),
        Quantity::Pollen(kind) => hour.pollen(kind),
        Quantity::Plant(p) => hour.plant(p),
    }
}
