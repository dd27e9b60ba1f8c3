//! Positions sampled from the store over whole hours: every value a batch of positions needs,
//! read from the chunks in the cache, and the chunks missing fetched from the object store, all
//! of one round at once, until every value is answered.
//!
//! The work is ordered by what the memory holds rather than by position. The positions are
//! grouped by the chunk their four nodes lie in (per grid), and each chunk (a quantity over a
//! block of hours) is read for a whole group at once: looked up once, then blended at every
//! position of the group, all the chunk's hours of one position before the next. A chunk
//! holds each node's hours together ([`Chunk`]), so a position's four nodes are found once and
//! their hours read from the same few lines of the processor's cache; the values are written
//! side by side too, a position's hours together. Asked hour by hour, the group's nodes would
//! be read again for every hour, from further away once the quantities of a batch of
//! positions outgrow the nearest cache; asked position by position, each would look its
//! chunks up in the shared cache again and again.
//!
//! An instant between two whole hours is blended linearly between them ([`Hourly::at`]): the
//! whole hours are read once for a series of instants, so the hourly series of a forecast and
//! the civil days of pollen read each hour once.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use aq_core::SourceError;
use chrono::{DateTime, Utc};
use foldhash::fast::RandomState;
use futures::StreamExt;
use object_store::ObjectStoreExt;
use object_store::path::Path;

use crate::cache::{ChunkCache, ChunkId};
use crate::catalog::{Catalog, HOUR, whole_hour};
use crate::chunk::Chunk;
use crate::field::Product;
use crate::grouping::{Held, Places};
use crate::manifest::chunk_path;
use crate::quantity::{N_QUANTITIES, PointValues, Wanted};
use crate::store::GridStore;

/// Chunk reads in flight at once.
const FETCHES: usize = 16;

/// The longest time between the first and last of the points read together: points further
/// apart are read in windows of this much time.
const WINDOW: chrono::TimeDelta = chrono::TimeDelta::hours(24);

/// The most positions times hours read together for points at their own instants: a window
/// holds at most this many values of each quantity (2 MiB of them).
const WINDOW_VALUES: usize = 1 << 18;

/// A chunk as read from the object store.
type Read = Result<Option<Arc<Chunk>>, SourceError>;

/// The chunks a round wanted and did not find, with where they lie.
type Misses = HashMap<ChunkId, Path, RandomState>;

/// Where one value of a point came from: the product, the run's reference time (seconds since
/// the epoch) and the quantity's index.
pub(crate) type Origin = (Product, i64, usize);

/// The whole hours (seconds since the epoch) that instants from `first` to `last` are blended
/// from: the hour at or before `first` up to the hour at or after `last`.
pub(crate) fn hours_for(first: DateTime<Utc>, last: DateTime<Utc>) -> Range<i64> {
    let (end, next) = around(last.timestamp(), last.timestamp_subsec_nanos());
    let end = if next.is_some() { end + HOUR } else { end };
    around(first.timestamp(), 0).0..end + HOUR
}

/// The whole hour at or before the instant `seconds` and `nanos` after the epoch, and the
/// weight of the hour after it (`None` on a whole hour).
fn around(seconds: i64, nanos: u32) -> (i64, Option<f64>) {
    let h0 = whole_hour(seconds);
    let offset = seconds - h0;
    if offset == 0 && nanos == 0 {
        (h0, None)
    } else {
        // An offset within an hour and its nanoseconds are exact in an f64.
        #[allow(clippy::cast_precision_loss)]
        let w = (offset as f64 + f64::from(nanos) * 1e-9) / HOUR as f64;
        (h0, Some(w))
    }
}

/// The values a fraction `w` of the way from `before` to `after`; a quantity missing on
/// either side is missing.
fn between(before: &PointValues, after: &PointValues, w: f64) -> PointValues {
    let mut out = PointValues::MISSING;
    for (o, (a, b)) in out.0.iter_mut().zip(before.0.iter().zip(&after.0)) {
        // NaN on either side stays NaN.
        *o = a * (1.0 - w) + b * w;
    }
    out
}

/// Which product answered each quantity of one value: two bits per quantity, 0 for none, else
/// one more than the product's index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Answered(u32);

impl Answered {
    fn set(&mut self, k: usize, product: Product) {
        let bits = u32::try_from(product.index() + 1).unwrap_or_default();
        self.0 |= bits << (2 * k);
    }

    fn get(self, k: usize) -> Option<Product> {
        match (self.0 >> (2 * k)) & 3 {
            0 => None,
            n => Product::ALL.get(usize::try_from(n).ok()? - 1).copied(),
        }
    }
}

/// The runs each product answers each quantity from at one hour.
type Runs = [[Option<i64>; N_QUANTITIES]; 2];

/// The values at a batch of positions over a span of whole hours, and where each value came
/// from. The values are held quantity by quantity and position by position, each position's
/// hours together, since a round writes a position's hours of one chunk at once and a series
/// reads them in turn; only the quantities asked for are held.
#[derive(Debug)]
pub(crate) struct Hourly {
    /// The catalog the values were read through.
    catalog: Arc<Catalog>,
    /// The span's first hour.
    start: i64,
    /// The positions asked about.
    positions: usize,
    /// Per hour of the span, the runs behind its values.
    runs: Vec<Runs>,
    /// Per hour of the span, the first hour of the stretch of hours before it (itself
    /// included) that have the same runs behind them.
    same_runs_from: Vec<usize>,
    /// The held quantities, each as its [`crate::Quantity::index`] and where its plane starts
    /// in `values`: a round and a read visit these alone, not every quantity.
    planes: Vec<(usize, usize)>,
    /// The held quantities' values, NaN where not (yet) answered.
    values: Vec<f64>,
    answered: Vec<Answered>,
}

impl Hourly {
    /// The whole hours of the span.
    fn span(&self) -> Range<i64> {
        let hours = i64::try_from(self.runs.len()).unwrap_or(0);
        self.start..self.start + hours * HOUR
    }

    /// The span's hour `hour` falls on (hours after its first), when within it.
    fn hour_index(&self, hour: i64) -> Option<usize> {
        usize::try_from((hour - self.start).div_euclid(HOUR)).ok()
    }

    /// Where the value of position `p` at the span's hour `h` lies, when within the span: a
    /// position's hours side by side.
    fn index(&self, p: usize, h: usize) -> Option<usize> {
        let hours = self.runs.len();
        (p < self.positions && h < hours).then_some(p * hours + h)
    }

    fn value(&self, p: usize, hour: i64) -> PointValues {
        self.hour_index(hour)
            .and_then(|h| self.index(p, h))
            .map_or(PointValues::MISSING, |i| {
                let mut out = PointValues::MISSING;
                for &(k, start) in &self.planes {
                    out.0[k] = self.values[start + i];
                }
                out
            })
    }

    /// The values at position `p` at `t`: linear in time between the whole hours before and
    /// after it; a quantity missing at either of them is missing, and so is every quantity
    /// at an hour outside the span.
    pub(crate) fn at(&self, p: usize, t: DateTime<Utc>) -> PointValues {
        self.at_parts(p, t.timestamp(), t.timestamp_subsec_nanos())
    }

    /// Whether quantity `k` was asked for, and so is held.
    pub(crate) fn holds(&self, k: usize) -> bool {
        self.planes.iter().any(|&(held, _)| held == k)
    }

    /// The values of quantity `k` at position `p`, one per whole hour of the span from its
    /// first (NaN where not answered); `None` when `k` is not held or `p` was not asked about.
    pub(crate) fn hours_of(&self, p: usize, k: usize) -> Option<&[f64]> {
        let &(_, plane) = self.planes.iter().find(|&&(held, _)| held == k)?;
        let start = plane + self.index(p, 0)?;
        self.values.get(start..start + self.runs.len())
    }

    /// Where the whole hour `seconds` after the epoch lies in [`Hourly::hours_of`]; `None` for
    /// an instant between two whole hours or outside the span.
    pub(crate) fn whole_hour_index(&self, seconds: i64) -> Option<usize> {
        let whole = seconds.rem_euclid(HOUR) == 0 && self.span().contains(&seconds);
        whole.then(|| self.hour_index(seconds)).flatten()
    }

    /// [`Hourly::at`] the instant `seconds` after the epoch.
    pub(crate) fn at_seconds(&self, p: usize, seconds: i64) -> PointValues {
        self.at_parts(p, seconds, 0)
    }

    fn at_parts(&self, p: usize, seconds: i64, nanos: u32) -> PointValues {
        let (h0, next) = around(seconds, nanos);
        let before = self.value(p, h0);
        match next {
            None => before,
            Some(w) => between(&before, &self.value(p, h0 + HOUR), w),
        }
    }

    /// [`Hourly::at`]`(p, t)` for `t` at `start` and each of the `hours` whole hours after
    /// it, in order: each whole hour is read once, although an instant between two blends
    /// both and the next instant blends the later one again.
    pub(crate) fn series(
        &self,
        p: usize,
        start: DateTime<Utc>,
        hours: u32,
    ) -> impl Iterator<Item = PointValues> + '_ {
        let (h0, next) = around(start.timestamp(), start.timestamp_subsec_nanos());
        let mut before = self.value(p, h0);
        (0..=i64::from(hours)).map(move |k| match next {
            None if k == 0 => before,
            None => self.value(p, h0 + k * HOUR),
            Some(w) => {
                let after = self.value(p, h0 + (k + 1) * HOUR);
                let blended = between(&before, &after, w);
                before = after;
                blended
            }
        })
    }

    /// Tells `used` where the values blended into [`Hourly::at`] at position `p` at each of
    /// `instants` (seconds and nanoseconds since the epoch) came from: both hours' values when
    /// an instant falls between two. Each origin is told at least once, not once per hour: an
    /// hour whose values were answered as those of the hour before it, from the same runs,
    /// has nothing new to tell and is passed over.
    pub(crate) fn origins(
        &self,
        p: usize,
        instants: impl IntoIterator<Item = (i64, u32)>,
        used: &mut impl FnMut(Origin),
    ) {
        let mut last: Option<(usize, Answered)> = None;
        for (seconds, nanos) in instants {
            let (h0, next) = around(seconds, nanos);
            let hours = if next.is_some() { 2 } else { 1 };
            for hour in (0..hours).map(|n| h0 + n * HOUR) {
                let Some(h) = self.hour_index(hour) else {
                    continue;
                };
                let Some(i) = self.index(p, h) else {
                    continue;
                };
                let answered = self.answered[i];
                let same_runs = |l: usize| self.same_runs_from[l] == self.same_runs_from[h];
                if last.is_some_and(|(l, a)| a == answered && same_runs(l)) {
                    continue;
                }
                last = Some((h, answered));
                for &(k, _) in &self.planes {
                    let Some(product) = answered.get(k) else {
                        continue;
                    };
                    if let Some(run) = self.runs[h][product.index()][k] {
                        used((product, run, k));
                    }
                }
            }
        }
    }
}

/// What a lookup of a chunk found.
enum Found {
    /// The chunk.
    Held(Arc<Chunk>),
    /// Not in the store: its nodes are not covered.
    Absent,
    /// Still to be read.
    Miss,
}

/// The chunks of one round: those held by the sampling, else the cache's (then held too), else
/// noted as misses.
struct Chunks<'a> {
    cache: &'a ChunkCache,
    held: &'a mut Held,
    misses: Misses,
}

impl Chunks<'_> {
    fn find(&mut self, id: ChunkId, path: impl FnOnce() -> Path) -> Found {
        if let Some(held) = self.held.get(&id) {
            return held.clone().map_or(Found::Absent, Found::Held);
        }
        if let Some(chunk) = self.cache.get(&id) {
            self.held.insert(id, Some(chunk.clone()));
            return Found::Held(chunk);
        }
        self.misses.entry(id).or_insert_with(path);
        Found::Miss
    }
}

/// Hours of one quantity of a product that lie in the same block of hours of one batch's layer,
/// and so in one chunk of each block of nodes.
struct Stretch {
    batch: usize,
    layer: usize,
    /// The block of hours.
    block: usize,
    /// Each hour's place in the span, and in the block.
    hours: Vec<(usize, usize)>,
}

impl Hourly {
    /// The hours of the span that `product` holds quantity `k` at, in stretches that share
    /// chunks.
    fn stretches(&self, catalog: &Catalog, product: Product, k: usize) -> Vec<Stretch> {
        let mut out: Vec<Stretch> = Vec::new();
        for (hour, slots) in catalog.range(product, self.span()) {
            let (Some(h), Some(slot)) = (self.hour_index(hour), &slots[k]) else {
                continue;
            };
            let chunk_hours = catalog.batches[slot.batch].chunk_hours;
            let (block, within) = (slot.position / chunk_hours, slot.position % chunk_hours);
            match out.last_mut() {
                Some(s) if (s.batch, s.layer, s.block) == (slot.batch, slot.layer, block) => {
                    s.hours.push((h, within));
                }
                _ => out.push(Stretch {
                    batch: slot.batch,
                    layer: slot.layer,
                    block,
                    hours: vec![(h, within)],
                }),
            }
        }
        out
    }

    /// Where the value of position `p` at the span's hour `h` of the plane starting at
    /// `plane` lies, when it is still to be answered and not waiting for a chunk of
    /// quantity bit `bit`.
    fn open(&self, p: usize, h: usize, plane: usize, bit: u16, waiting: &[u16]) -> Option<usize> {
        let i = self.index(p, h)?;
        (self.values[plane + i].is_nan() && waiting[i] & bit == 0).then_some(i)
    }

    /// One round over every product, wanted quantity and hour the catalog holds within the
    /// span: each value not answered yet, nor waiting for a chunk of an earlier product, is
    /// blended from the first product that covers its position and has a value there. A value
    /// whose chunk is still to be read waits, so that no later product answers it first.
    ///
    /// A position's hours of one chunk are blended together: its four nodes' hours lie side by
    /// side in the chunk, and its values side by side here.
    fn round(&mut self, places: &mut Places<'_>, chunks: &mut Chunks<'_>) {
        let catalog = self.catalog.clone();
        // Per value, the quantities waiting for a chunk in this round.
        let mut waiting = vec![0u16; self.answered.len()];
        for product in Product::ALL {
            for (k, plane) in self.planes.clone() {
                let bit = 1u16 << k;
                for stretch in self.stretches(&catalog, product, k) {
                    let batch = &catalog.batches[stretch.batch];
                    let layer = &batch.layers[stretch.layer];
                    for group in places.groups(&layer.tiling) {
                        // Looked up once per group, and only when a position needs it.
                        let mut found = None;
                        for &(p, ref blend) in &group.members {
                            let open = |hourly: &Self, waiting: &[u16], h| {
                                hourly.open(p, h, plane, bit, waiting)
                            };
                            if !stretch
                                .hours
                                .iter()
                                .any(|&(h, _)| open(self, &waiting, h).is_some())
                            {
                                continue;
                            }
                            let found = found.get_or_insert_with(|| {
                                let id = ChunkId::new(
                                    batch.id,
                                    k,
                                    stretch.block,
                                    group.row_block,
                                    group.column_block,
                                );
                                chunks.find(id, || {
                                    chunk_path(
                                        &layer.chunks,
                                        stretch.block,
                                        group.row_block,
                                        group.column_block,
                                    )
                                })
                            });
                            match found {
                                Found::Miss => {
                                    for &(h, _) in &stretch.hours {
                                        if let Some(i) = open(self, &waiting, h) {
                                            waiting[i] |= bit;
                                        }
                                    }
                                }
                                Found::Absent => {}
                                Found::Held(chunk) => {
                                    let corners = chunk.corners(blend);
                                    for &(h, within) in &stretch.hours {
                                        if let Some(i) = open(self, &waiting, h)
                                            && let Some(v) = corners.at(within)
                                        {
                                            self.values[plane + i] = v;
                                            self.answered[i].set(k, product);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

impl GridStore {
    /// The `wanted` values at each of `points` (latitude, longitude, instant); the others are
    /// missing.
    ///
    /// # Errors
    /// As [`GridStore::hourly`].
    pub(crate) async fn values(
        &self,
        points: &[(f64, f64, DateTime<Utc>)],
        wanted: Wanted,
    ) -> Result<Vec<PointValues>, SourceError> {
        let mut out = vec![PointValues::MISSING; points.len()];
        // Points far apart in time are read in windows, so that no span holds many hours that
        // few points need, and no window holds more values than a bound.
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by_key(|&i| points[i].2);
        let mut rest = order.as_slice();
        while let Some(&first) = rest.first() {
            let first = points[first].2;
            let fits = |n: usize, last: DateTime<Utc>| {
                let span = hours_for(first, last);
                let hours = usize::try_from((span.end - span.start) / HOUR).unwrap_or(usize::MAX);
                last - first <= WINDOW && hours.saturating_mul(n) <= WINDOW_VALUES
            };
            let mut n = 1;
            while n < rest.len() && fits(n + 1, points[rest[n]].2) {
                n += 1;
            }
            let (window, after) = rest.split_at(n);
            rest = after;
            let last = points[window[n - 1]].2;
            let positions: Vec<(f64, f64)> =
                window.iter().map(|&i| (points[i].0, points[i].1)).collect();
            let hourly = self
                .hourly(&positions, hours_for(first, last), wanted)
                .await?;
            for (p, &i) in window.iter().enumerate() {
                out[i] = hourly.at(p, points[i].2);
            }
        }
        Ok(out)
    }

    /// The `wanted` values at each of `positions` (latitude, longitude) at each whole hour of
    /// `span` (seconds since the epoch, whole hours), with where they came from.
    ///
    /// # Errors
    /// [`SourceError::Unavailable`] when the object store fails to give a chunk. A chunk that
    /// is not there (purged since the catalog was read) or cannot be decoded leaves its nodes
    /// not covered, with a log line.
    pub(crate) async fn hourly(
        &self,
        positions: &[(f64, f64)],
        span: Range<i64>,
        wanted: Wanted,
    ) -> Result<Hourly, SourceError> {
        let start = whole_hour(span.start);
        let hours = usize::try_from((span.end - start).div_euclid(HOUR)).unwrap_or(0);
        let catalog = self.catalog_for(&span);
        let mut runs = vec![Runs::default(); hours];
        for product in Product::ALL {
            for (hour, slots) in catalog.range(product, span.clone()) {
                let h = usize::try_from((hour - start).div_euclid(HOUR)).unwrap_or(usize::MAX);
                if let Some(at) = runs.get_mut(h) {
                    at[product.index()] = slots.map(|s| s.map(|s| s.run));
                }
            }
        }
        let plane_len = hours * positions.len();
        let planes: Vec<(usize, usize)> = (0..N_QUANTITIES)
            .filter(|&k| wanted[k])
            .enumerate()
            .map(|(plane, k)| (k, plane * plane_len))
            .collect();
        let mut same_runs_from: Vec<usize> = Vec::with_capacity(runs.len());
        for h in 0..runs.len() {
            let from = match h.checked_sub(1) {
                Some(before) if runs[before] == runs[h] => same_runs_from[before],
                _ => h,
            };
            same_runs_from.push(from);
        }
        let mut hourly = Hourly {
            catalog,
            start,
            positions: positions.len(),
            runs,
            same_runs_from,
            values: vec![f64::NAN; planes.len() * plane_len],
            planes,
            answered: vec![Answered::default(); plane_len],
        };
        let mut places = Places {
            positions,
            grids: Vec::new(),
        };
        let mut held = Held::default();
        if let Some(model) = &self.model {
            let catalog = hourly.catalog.clone();
            let groups = places.groups(model.tiling());
            model
                .fill(&catalog, &span, wanted, groups, &mut held)
                .await?;
        }
        // Each round reads every chunk the last one missed, so it ends: a later round misses
        // only chunks of a product a value falls back to.
        loop {
            let mut chunks = Chunks {
                cache: &self.cache,
                held: &mut held,
                misses: Misses::default(),
            };
            hourly.round(&mut places, &mut chunks);
            let misses = chunks.misses;
            if misses.is_empty() {
                return Ok(hourly);
            }
            self.fetch(misses, &mut held).await?;
        }
    }

    async fn fetch(&self, misses: Misses, into: &mut Held) -> Result<(), SourceError> {
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

    fn t(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 6, 10, h, m, 0).unwrap()
    }

    #[test]
    fn instants_are_read_from_the_whole_hours_around_them() {
        let hour = |h| t(h, 0).timestamp();
        assert_eq!(hours_for(t(8, 0), t(8, 0)), hour(8)..hour(9));
        assert_eq!(hours_for(t(8, 30), t(8, 30)), hour(8)..hour(10));
        assert_eq!(hours_for(t(8, 30), t(11, 30)), hour(8)..hour(13));
        assert_eq!(hours_for(t(8, 0), t(11, 0)), hour(8)..hour(12));
    }

    #[test]
    fn each_quantity_names_the_product_that_answered_it() {
        let mut a = Answered::default();
        a.set(0, Product::Europe);
        a.set(8, Product::Global);
        assert_eq!(a.get(0), Some(Product::Europe));
        assert_eq!(a.get(8), Some(Product::Global));
        assert_eq!(a.get(3), None);
    }

    /// A position's series, which reads each whole hour once, is what `at` gives at each of
    /// its instants: on whole hours, between them, and past the hours held.
    #[tokio::test]
    async fn a_series_is_the_values_at_each_of_its_instants() {
        use aq_core::Pollutant;

        use crate::{Field, Lattice, Layer, Quantity};

        let store = GridStore::in_memory();
        let lattice = Lattice::new(53.0, -1.0, 2, 13.0, 1.0, 2).unwrap();
        let later = |h: i64, m: i64| t(0, 0) + chrono::Duration::minutes(h * 60 + m);
        let fields = (0..6_i64).map(|h| {
            let base = f32::from(u8::try_from(h).unwrap()) * 10.0;
            Field {
                product: Product::Europe,
                quantity: Quantity::Pollutant(Pollutant::No2),
                run: t(0, 0),
                valid: later(h, 0),
                layer: Layer::new(
                    lattice,
                    vec![base, base + 1.0, base + 3.0, base + 7.0].into(),
                )
                .unwrap(),
            }
        });
        store.commit(fields.collect()).await.unwrap();
        let positions = [(52.5, 13.5), (52.2, 13.9)];
        let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        for start in [later(0, 0), later(0, 20), later(2, 45)] {
            let hours = 4;
            let span = hours_for(start, start + chrono::Duration::hours(i64::from(hours)));
            let hourly = store
                .hourly(&positions, span, crate::quantity::POLLUTANTS)
                .await
                .unwrap();
            for p in 0..positions.len() {
                let series: Vec<PointValues> = hourly.series(p, start, hours).collect();
                assert_eq!(series.len(), 5);
                for (k, values) in series.iter().enumerate() {
                    let at = hourly.at(
                        p,
                        start + chrono::Duration::hours(i64::try_from(k).unwrap()),
                    );
                    assert!(
                        values.0.iter().zip(&at.0).all(|(&a, &b)| same(a, b)),
                        "start {start}, position {p}, hour {k}: {values:?} against {at:?}"
                    );
                }
            }
            // The instants past 05:00, the last hour held, are missing in both.
            let last = hourly.series(0, start, hours).last().unwrap();
            assert_eq!(
                last.0[Quantity::Pollutant(Pollutant::No2).index()].is_nan(),
                start > later(1, 0)
            );
        }
    }

    /// Points days apart are read in windows of their own, and each is answered.
    #[tokio::test]
    async fn points_days_apart_are_each_answered() {
        use aq_core::Pollutant;

        use crate::{Field, Lattice, Layer, Quantity};

        let store = GridStore::in_memory();
        let lattice = Lattice::new(53.0, -1.0, 2, 13.0, 1.0, 2).unwrap();
        let field = |valid: DateTime<Utc>, v: f32| Field {
            product: Product::Europe,
            quantity: Quantity::Pollutant(Pollutant::Pm25),
            run: t(0, 0),
            valid,
            layer: Layer::new(lattice, vec![v; 4].into()).unwrap(),
        };
        let later = |h: i64, m: i64| t(0, 0) + chrono::Duration::minutes(h * 60 + m);
        store
            .commit(vec![
                field(later(0, 0), 10.0),
                field(later(1, 0), 20.0),
                field(later(72, 0), 30.0),
                field(later(73, 0), 40.0),
            ])
            .await
            .unwrap();
        let points = [
            (52.5, 13.5, later(72, 30)),
            (52.5, 13.5, later(0, 30)),
            (52.5, 13.5, later(36, 0)),
        ];
        let wanted = crate::quantity::POLLUTANTS;
        let got = store.values(&points, wanted).await.unwrap();
        assert_eq!(got[0].0[0], 35.0);
        assert_eq!(got[1].0[0], 15.0);
        assert!(got[2].0[0].is_nan(), "no field at that hour");
    }
}
