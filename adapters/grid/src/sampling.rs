//! A batch of points sampled from the store: each point from the chunks in the cache, and the
//! chunks missing fetched from the object store, all of one round at once, until every point
//! is answered.
//!
//! The work per point is kept to what differs from the point before: the points of one
//! position come together (a series, hour after hour), so a position's place in each grid is
//! found once for all its quantities and hours, a whole hour's values read for one instant are
//! kept for the next instant that blends it, and the chunks used last are kept at hand in a
//! small table, so that the shared cache is asked once per chunk, not once per value. Positions
//! are visited cell by cell of the finest grid, so that neighbours share those chunks, and the
//! same lines of them in the processor's cache.

use std::collections::HashMap;
use std::sync::Arc;

use aq_core::SourceError;
use chrono::{DateTime, Utc};
use futures::StreamExt;
use object_store::ObjectStoreExt;
use object_store::path::Path;

use crate::cache::{ChunkCache, ChunkId};
use crate::catalog::{Catalog, HOUR, hour_of};
use crate::chunk::Chunk;
use crate::field::Product;
use crate::lattice::Blend;
use crate::manifest::chunk_path;
use crate::quantity::{N_QUANTITIES, PointValues, Wanted};
use crate::store::GridStore;
use crate::tiling::{Place, Tiling};

/// Chunk reads in flight at once.
const FETCHES: usize = 16;

/// Degrees a side of the cells positions are grouped by: the finest grid's step (the European
/// grid's 0.1°). Each value read brings its neighbours into the processor's cache with it, so
/// positions visited cell by cell, row after row, mostly read memory already at hand; visited
/// in the order asked, each would read its own from main memory.
const CELL_DEGREES: f64 = 0.1;

/// Chunks read for this batch of points (`None`: not in the object store), which answer even
/// if the cache has already let them go.
type Fetched = HashMap<ChunkId, Option<Arc<Chunk>>>;

/// A chunk as read from the object store.
type Read = Result<Option<Arc<Chunk>>, SourceError>;

/// The chunks a round wanted and did not find, with where they lie.
type Misses = HashMap<ChunkId, Path>;

/// Where one value of a point came from: the product, the run's reference time (seconds since
/// the epoch) and the quantity's index.
pub(crate) type Origin = (Product, i64, usize);

/// The chunks used last, at hand without the shared cache's hashing and locking: a
/// direct-mapped table, each chunk in one place picked by its id (a newer chunk takes the place
/// of an older one).
struct Recent {
    places: Vec<Option<(ChunkId, Option<Arc<Chunk>>)>>,
}

impl Recent {
    /// Bits of the table's index: 1,024 places, more than the chunks of a page of points.
    const BITS: u32 = 10;

    fn new() -> Self {
        Self {
            places: vec![None; 1 << Self::BITS],
        }
    }

    fn index(id: &ChunkId) -> usize {
        let mixed = id.batch
            ^ (u64::from(id.quantity) << 56)
            ^ (u64::from(id.hours) << 36)
            ^ (u64::from(id.row_block) << 18)
            ^ u64::from(id.column_block);
        // The top bits of a Fibonacci hash: every bit of the id moves them.
        usize::try_from(mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS))
            .unwrap_or_default()
    }

    /// `Some(chunk)` when `id` is at hand (`chunk` is `None` for a chunk not in the store).
    fn get(&self, id: &ChunkId) -> Option<Option<&Chunk>> {
        match &self.places[Self::index(id)] {
            Some((held, chunk)) if held == id => Some(chunk.as_deref()),
            _ => None,
        }
    }

    fn put(&mut self, id: ChunkId, chunk: Option<Arc<Chunk>>) {
        self.places[Self::index(&id)] = Some((id, chunk));
    }
}

/// One position's place in each grid it was looked up on: the blend's weights and where its
/// nodes lie in the chunks, or `None` outside the grid.
#[derive(Default)]
struct Geometry {
    /// The position, as bits (NaN never matches: looked up afresh).
    at: Option<(u64, u64)>,
    places: Vec<(Tiling, Option<(Blend, Place)>)>,
}

impl Geometry {
    /// The place of (`lat`, `lon`) on `tiling`, found once per position and tiling.
    fn place(&mut self, lat: f64, lon: f64, tiling: &Tiling) -> Option<(Blend, Place)> {
        let at = Some((lat.to_bits(), lon.to_bits()));
        if self.at != at {
            self.at = at;
            self.places.clear();
        }
        if let Some((_, place)) = self.places.iter().find(|(t, _)| t == tiling) {
            return *place;
        }
        let place = tiling.lattice().blend(lat, lon).map(|blend| {
            let place = tiling.locate(&blend);
            // The same weights on the chunk's own copy of the nodes.
            let local = Blend {
                nodes: place.nodes,
                weights: blend.weights,
            };
            (local, place)
        });
        self.places.push((*tiling, place));
        place
    }
}

/// A whole hour's values at one position, kept for the next instant that blends that hour.
struct LastHour {
    at: (u64, u64, i64),
    values: PointValues,
    /// Where each quantity's value came from.
    origins: [Option<Origin>; N_QUANTITIES],
}

struct Lookup<'a> {
    catalog: &'a Catalog,
    cache: &'a ChunkCache,
    fetched: &'a Fetched,
    misses: &'a mut Misses,
    wanted: Wanted,
    recent: &'a mut Recent,
    geometry: Geometry,
    last: Option<LastHour>,
}

impl Lookup<'_> {
    /// The chunk `id`: at hand, read in this batch, or in the cache; `None` inside when it is
    /// not in the store. `None` when it is still to be read (then it is noted as a miss).
    fn chunk(&mut self, id: ChunkId, path: impl FnOnce() -> Path) -> Option<Option<&Chunk>> {
        if self.recent.get(&id).is_none() {
            let found = match self.fetched.get(&id) {
                Some(fetched) => fetched.clone(),
                None => match self.cache.get(&id) {
                    Some(chunk) => Some(chunk),
                    None => {
                        self.misses.entry(id).or_insert_with(path);
                        return None;
                    }
                },
            };
            self.recent.put(id, found);
        }
        self.recent.get(&id)
    }

    /// The values at (`lat`, `lon`) at the whole hour `hour`: each wanted quantity from the
    /// first product that covers the point and holds it. `None` when a chunk is still to be
    /// read. `used` hears where each value came from.
    fn at_hour(
        &mut self,
        lat: f64,
        lon: f64,
        hour: i64,
        used: &mut impl FnMut(Origin),
    ) -> Option<PointValues> {
        let key = (lat.to_bits(), lon.to_bits(), hour);
        if let Some(last) = self.last.as_ref().filter(|l| l.at == key) {
            last.origins.iter().flatten().for_each(|&o| used(o));
            return Some(last.values);
        }
        let catalog = self.catalog;
        let mut out = PointValues::MISSING;
        let mut origins = [None; N_QUANTITIES];
        // A quantity whose chunk is still to be read: no later product may answer it yet.
        let mut waiting = [false; N_QUANTITIES];
        for product in Product::ALL {
            let Some(slots) = catalog.slots(product, hour) else {
                continue;
            };
            for (k, slot) in slots.iter().enumerate() {
                let Some(slot) = slot else {
                    continue;
                };
                if !self.wanted[k] || waiting[k] || !out.0[k].is_nan() {
                    continue;
                }
                let batch = &catalog.batches[slot.batch];
                let layer = &batch.layers[slot.layer];
                let Some((blend, place)) = self.geometry.place(lat, lon, &layer.tiling) else {
                    continue;
                };
                let t = slot.position / batch.chunk_hours;
                let id = ChunkId {
                    batch: batch.id,
                    quantity: u8::try_from(k).unwrap_or(u8::MAX),
                    hours: u32::try_from(t).unwrap_or(u32::MAX),
                    row_block: u32::try_from(place.row_block).unwrap_or(u32::MAX),
                    column_block: u32::try_from(place.column_block).unwrap_or(u32::MAX),
                };
                let path = || chunk_path(&layer.chunks, t, place.row_block, place.column_block);
                let Some(chunk) = self.chunk(id, path) else {
                    waiting[k] = true;
                    continue;
                };
                if let Some(v) =
                    chunk.and_then(|c| c.blend(slot.position % batch.chunk_hours, &blend))
                {
                    out.0[k] = v;
                    origins[k] = Some((product, slot.run, k));
                }
            }
            let answered = |(v, &w): (&f64, &bool)| !w || !v.is_nan();
            if out.0.iter().zip(&self.wanted).all(answered) {
                // Nothing left for a later product to answer.
                break;
            }
        }
        if waiting.contains(&true) {
            return None;
        }
        origins.iter().flatten().for_each(|&o| used(o));
        self.last = Some(LastHour {
            at: key,
            values: out,
            origins,
        });
        Some(out)
    }

    /// The values at (`lat`, `lon`) at `t`: linear in time between the whole hours before and
    /// after it; a quantity missing at either of them is missing. `used` hears where each
    /// value blended came from (both hours' values when `t` falls between two).
    fn at(
        &mut self,
        lat: f64,
        lon: f64,
        t: DateTime<Utc>,
        used: &mut impl FnMut(Origin),
    ) -> Option<PointValues> {
        let h0 = hour_of(t);
        let offset = t.timestamp() - h0;
        if offset == 0 && t.timestamp_subsec_nanos() == 0 {
            return self.at_hour(lat, lon, h0, used);
        }
        let before = self.at_hour(lat, lon, h0, used);
        let after = self.at_hour(lat, lon, h0 + HOUR, used);
        let (before, after) = (before?, after?);
        let w = (offset as f64 + f64::from(t.timestamp_subsec_nanos()) * 1e-9) / HOUR as f64;
        let mut out = PointValues::MISSING;
        for (o, (a, b)) in out.0.iter_mut().zip(before.0.iter().zip(&after.0)) {
            // NaN on either side stays NaN.
            *o = a * (1.0 - w) + b * w;
        }
        Some(out)
    }
}

/// The order to visit `points` in: the runs of points at one position kept whole and in
/// order, the runs grouped by cell, cells row after row.
fn visiting_order(points: &[(f64, f64, DateTime<Utc>)]) -> Vec<usize> {
    let mut runs: Vec<(i64, i64, std::ops::Range<usize>)> = Vec::new();
    for (i, &(lat, lon, _)) in points.iter().enumerate() {
        match runs.last_mut() {
            Some((_, _, run))
                if points[run.start].0.to_bits() == lat.to_bits()
                    && points[run.start].1.to_bits() == lon.to_bits() =>
            {
                run.end = i + 1;
            }
            _ => {
                // Cells only order the visit; any value, even of a NaN, will do.
                #[allow(clippy::cast_possible_truncation)]
                let cell = |deg: f64| (deg / CELL_DEGREES).floor() as i64;
                runs.push((cell(lat), cell(lon), i..i + 1));
            }
        }
    }
    // Stable: positions of one cell keep their order.
    runs.sort_by_key(|&(row, column, _)| (row, column));
    runs.into_iter().flat_map(|(_, _, run)| run).collect()
}

impl GridStore {
    /// The `wanted` values at each of `points` (latitude, longitude, instant); the others are
    /// missing.
    ///
    /// # Errors
    /// [`SourceError::Unavailable`] when the object store fails to give a chunk. A chunk that
    /// is not there (purged since the catalog was read) or cannot be decoded leaves its nodes
    /// not covered, with a log line.
    pub(crate) async fn values(
        &self,
        points: &[(f64, f64, DateTime<Utc>)],
        wanted: Wanted,
    ) -> Result<Vec<PointValues>, SourceError> {
        Ok(self
            .sample(points, wanted, false)
            .await?
            .into_iter()
            .map(|(v, _)| v)
            .collect())
    }

    /// [`GridStore::values`], each with where its values came from.
    ///
    /// # Errors
    /// As [`GridStore::values`].
    pub(crate) async fn values_traced(
        &self,
        points: &[(f64, f64, DateTime<Utc>)],
        wanted: Wanted,
    ) -> Result<Vec<(PointValues, Vec<Origin>)>, SourceError> {
        self.sample(points, wanted, true).await
    }

    /// The values at each of `points`, and where they came from when `trace` is set (an empty
    /// list otherwise).
    async fn sample(
        &self,
        points: &[(f64, f64, DateTime<Utc>)],
        wanted: Wanted,
        trace: bool,
    ) -> Result<Vec<(PointValues, Vec<Origin>)>, SourceError> {
        let catalog = self.catalog();
        let mut fetched = Fetched::new();
        let mut recent = Recent::new();
        let mut out = vec![(PointValues::MISSING, Vec::new()); points.len()];
        let mut pending = visiting_order(points);
        // Each round reads every chunk the last one missed, so it ends: a later round misses
        // only chunks of a product a point falls back to.
        while !pending.is_empty() {
            let mut misses = Misses::new();
            let mut lookup = Lookup {
                catalog: &catalog,
                cache: &self.cache,
                fetched: &fetched,
                misses: &mut misses,
                wanted,
                recent: &mut recent,
                geometry: Geometry::default(),
                last: None,
            };
            let mut still = Vec::new();
            for &i in &pending {
                let (lat, lon, t) = points[i];
                // A point still waiting for a chunk is looked up again whole, origins too.
                let mut origins = Vec::new();
                let mut used = |o: Origin| {
                    if trace {
                        origins.push(o);
                    }
                };
                match lookup.at(lat, lon, t, &mut used) {
                    Some(v) => out[i] = (v, origins),
                    None => still.push(i),
                }
            }
            self.fetch(misses, &mut fetched).await?;
            pending = still;
        }
        Ok(out)
    }

    async fn fetch(&self, misses: Misses, into: &mut Fetched) -> Result<(), SourceError> {
        let read: Vec<(ChunkId, Read)> = futures::stream::iter(misses)
            .map(|(id, path)| async move { (id, self.load(id, &path).await) })
            .buffer_unordered(FETCHES)
            .collect()
            .await;
        for (id, chunk) in read {
            into.insert(id, chunk?);
        }
        Ok(())
    }

    /// The chunk `id` at `path` through the cache: read once however many samples want it at
    /// once, the others waiting for that read.
    async fn load(&self, id: ChunkId, path: &Path) -> Read {
        self.cache.get_or_load(id, self.read_chunk(path)).await
    }

    async fn read_chunk(&self, path: &Path) -> Read {
        let unavailable = |e: object_store::Error| {
            SourceError::Unavailable(format!("grid store: cannot read {path}: {e}"))
        };
        let bytes = match self.objects.get(path).await {
            Ok(got) => got.bytes().await.map_err(unavailable)?,
            Err(object_store::Error::NotFound { .. }) => {
                tracing::warn!(chunk = %path, "chunk not in the store; its nodes are not covered");
                return Ok(None);
            }
            Err(e) => return Err(unavailable(e)),
        };
        match Chunk::decode(&bytes) {
            Ok(c) => Ok(Some(Arc::new(c))),
            Err(e) => {
                tracing::warn!(chunk = %path, error = %e, "chunk unreadable; its nodes are not covered");
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn positions_are_visited_by_area_each_in_its_order() {
        let t = |h| Utc.with_ymd_and_hms(2026, 6, 10, h, 0, 0).unwrap();
        let points = [
            (48.86, 2.35, t(0)),
            (48.86, 2.35, t(1)),
            (-33.9, 151.2, t(0)),
            (48.9, 2.4, t(0)),
            (48.9, 2.4, t(1)),
            (-33.9, 151.2, t(1)),
        ];
        let order = visiting_order(&points);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..points.len()).collect::<Vec<_>>());
        // Sydney's two runs first (further south), then Paris's two runs, together.
        assert_eq!(order, vec![2, 5, 0, 1, 3, 4]);
    }
}
