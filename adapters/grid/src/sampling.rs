//! A batch of points sampled from the store: each point from the chunks in the cache, and the
//! chunks missing fetched from the object store, all of one round at once, until every point
//! is answered.

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
use crate::quantity::{N_QUANTITIES, PointValues};
use crate::store::GridStore;

/// Chunk reads in flight at once.
const FETCHES: usize = 16;

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

struct Lookup<'a> {
    catalog: &'a Catalog,
    cache: &'a ChunkCache,
    fetched: &'a Fetched,
    misses: &'a mut Misses,
}

impl Lookup<'_> {
    /// The values at (`lat`, `lon`) at the whole hour `hour`: each quantity from the first
    /// product that covers the point and holds it. `None` when a chunk is still to be read.
    /// `used` hears where each value came from.
    fn at_hour(
        &mut self,
        lat: f64,
        lon: f64,
        hour: i64,
        used: &mut impl FnMut(Origin),
    ) -> Option<PointValues> {
        let mut out = PointValues::MISSING;
        // A quantity whose chunk is still to be read: no later product may answer it yet.
        let mut waiting = [false; N_QUANTITIES];
        for product in Product::ALL {
            let Some(slots) = self.catalog.slots(product, hour) else {
                continue;
            };
            for (k, slot) in slots.iter().enumerate() {
                let Some(slot) = slot else {
                    continue;
                };
                if waiting[k] || !out.0[k].is_nan() {
                    continue;
                }
                let batch = &self.catalog.batches[slot.batch];
                let layer = &batch.layers[slot.layer];
                let Some(blend) = layer.tiling.lattice().blend(lat, lon) else {
                    continue;
                };
                let place = layer.tiling.locate(&blend);
                let t = slot.position / batch.chunk_hours;
                let id = ChunkId {
                    batch: batch.id,
                    quantity: u8::try_from(k).unwrap_or(u8::MAX),
                    hours: u32::try_from(t).unwrap_or(u32::MAX),
                    row_block: u32::try_from(place.row_block).unwrap_or(u32::MAX),
                    column_block: u32::try_from(place.column_block).unwrap_or(u32::MAX),
                };
                let chunk = match self.fetched.get(&id) {
                    Some(fetched) => fetched.clone(),
                    None => match self.cache.get(&id) {
                        Some(chunk) => Some(chunk),
                        None => {
                            self.misses.entry(id).or_insert_with(|| {
                                chunk_path(&layer.chunks, t, place.row_block, place.column_block)
                            });
                            waiting[k] = true;
                            continue;
                        }
                    },
                };
                // The same weights on the chunk's own copy of the nodes.
                let local = Blend {
                    nodes: place.nodes,
                    weights: blend.weights,
                };
                if let Some(v) =
                    chunk.and_then(|c| c.blend(slot.position % batch.chunk_hours, &local))
                {
                    out.0[k] = v;
                    used((product, slot.run, k));
                }
            }
        }
        (!waiting.contains(&true)).then_some(out)
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

impl GridStore {
    /// The values at each of `points` (latitude, longitude, instant).
    ///
    /// # Errors
    /// [`SourceError::Unavailable`] when the object store fails to give a chunk. A chunk that
    /// is not there (purged since the catalog was read) or cannot be decoded leaves its nodes
    /// not covered, with a log line.
    pub(crate) async fn values(
        &self,
        points: &[(f64, f64, DateTime<Utc>)],
    ) -> Result<Vec<PointValues>, SourceError> {
        Ok(self
            .sample(points, false)
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
    ) -> Result<Vec<(PointValues, Vec<Origin>)>, SourceError> {
        self.sample(points, true).await
    }

    /// The values at each of `points`, and where they came from when `trace` is set (an empty
    /// list otherwise).
    async fn sample(
        &self,
        points: &[(f64, f64, DateTime<Utc>)],
        trace: bool,
    ) -> Result<Vec<(PointValues, Vec<Origin>)>, SourceError> {
        let catalog = self.catalog();
        let mut fetched = Fetched::new();
        let mut out = vec![(PointValues::MISSING, Vec::new()); points.len()];
        let mut pending: Vec<usize> = (0..points.len()).collect();
        // Each round reads every chunk the last one missed, so it ends: a later round misses
        // only chunks of a product a point falls back to.
        while !pending.is_empty() {
            let mut misses = Misses::new();
            let mut lookup = Lookup {
                catalog: &catalog,
                cache: &self.cache,
                fetched: &fetched,
                misses: &mut misses,
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
            .map(|(id, path)| async move { (id, self.read_chunk(&path).await) })
            .buffer_unordered(FETCHES)
            .collect()
            .await;
        for (id, chunk) in read {
            let chunk = chunk?;
            if let Some(c) = &chunk {
                self.cache.insert(id, c.clone());
            }
            into.insert(id, chunk);
        }
        Ok(())
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
