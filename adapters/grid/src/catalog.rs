//! What the store's manifests hold, indexed for sampling: per product, valid hour and quantity,
//! the batch of the newest run. A catalog is built whole from the manifests and never changed,
//! so a sample reads one consistent view while the next one is built.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::field::Product;
use crate::manifest::Manifest;
use crate::quantity::{N_QUANTITIES, Quantity};
use crate::tiling::Tiling;

/// Seconds in an hour: the fields' time step.
pub(crate) const HOUR: i64 = 3600;

/// The start of the hour that holds `t`, in seconds since the epoch.
pub(crate) fn hour_of(t: DateTime<Utc>) -> i64 {
    whole_hour(t.timestamp())
}

/// The start of the hour that holds the instant `seconds` after the epoch.
pub(crate) fn whole_hour(seconds: i64) -> i64 {
    seconds - seconds.rem_euclid(HOUR)
}

/// One quantity of a batch, ready to sample.
#[derive(Debug)]
pub(crate) struct BatchLayer {
    pub(crate) quantity: Quantity,
    pub(crate) tiling: Tiling,
    pub(crate) hours: Vec<i64>,
    /// The prefix of its chunks.
    pub(crate) chunks: String,
}

/// A batch, from its manifest.
#[derive(Debug)]
pub(crate) struct Batch {
    /// The batch id, as a number: it keys the cache.
    pub(crate) id: u64,
    pub(crate) manifest: Manifest,
    pub(crate) run: i64,
    pub(crate) chunk_hours: usize,
    pub(crate) layers: Vec<BatchLayer>,
}

impl Batch {
    /// The batch `manifest` describes.
    ///
    /// # Errors
    /// Why the manifest cannot be read (see [`Manifest::decode`]).
    pub(crate) fn new(manifest: Manifest) -> Result<Self, String> {
        let readable = manifest.readable().map_err(|e| e.to_string())?;
        let layers = manifest
            .layers
            .iter()
            .zip(readable.layers)
            .map(|(l, (quantity, lattice))| BatchLayer {
                quantity,
                tiling: manifest.tiling(lattice),
                hours: l.hours.iter().map(|&t| hour_of(t)).collect(),
                chunks: l.chunks.clone(),
            })
            .collect();
        Ok(Self {
            id: readable.id,
            run: manifest.run.timestamp(),
            chunk_hours: manifest.chunk_hours.max(1),
            manifest,
            layers,
        })
    }
}

/// Where one quantity of one hour is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) run: i64,
    pub(crate) batch: usize,
    pub(crate) layer: usize,
    /// The hour's position in the layer's hours.
    pub(crate) position: usize,
}

type Hours = BTreeMap<i64, [Option<Slot>; N_QUANTITIES]>;

/// The batches held and, per product, valid hour and quantity, the one answered from.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    pub(crate) batches: Vec<Arc<Batch>>,
    products: [Hours; 2],
}

impl Catalog {
    /// The catalog of `batches`: per product, valid hour and quantity the newest run wins; of
    /// two batches of one run, the one with the larger id (they hold the same values when
    /// they come from the same data).
    pub(crate) fn new(batches: Vec<Arc<Batch>>) -> Self {
        let mut products: [Hours; 2] = Default::default();
        for (b, batch) in batches.iter().enumerate() {
            let hours = &mut products[batch.manifest.product.index()];
            for (l, layer) in batch.layers.iter().enumerate() {
                for (position, &hour) in layer.hours.iter().enumerate() {
                    let slot = &mut hours.entry(hour).or_default()[layer.quantity.index()];
                    let wins = slot.is_none_or(|held| {
                        (batch.run, batch.id) > (held.run, batches[held.batch].id)
                    });
                    if wins {
                        *slot = Some(Slot {
                            run: batch.run,
                            batch: b,
                            layer: l,
                            position,
                        });
                    }
                }
            }
        }
        Self { batches, products }
    }

    /// The slots of `product` at `hour`.
    pub(crate) fn slots(
        &self,
        product: Product,
        hour: i64,
    ) -> Option<&[Option<Slot>; N_QUANTITIES]> {
        self.products[product.index()].get(&hour)
    }

    /// The valid hours of `product` within `span`, oldest first, with their slots.
    pub(crate) fn range(
        &self,
        product: Product,
        span: std::ops::Range<i64>,
    ) -> impl Iterator<Item = (i64, &[Option<Slot>; N_QUANTITIES])> {
        // A range that ends before it starts holds nothing (and would panic the map).
        let span = if span.start <= span.end { span } else { 0..0 };
        self.products[product.index()]
            .range(span)
            .map(|(&hour, slots)| (hour, slots))
    }

    /// The valid hours `product` holds, oldest first.
    pub(crate) fn hours(&self, product: Product) -> Vec<i64> {
        self.products[product.index()].keys().copied().collect()
    }

    /// The run `product` answers `quantity` at `hour` from.
    pub(crate) fn run_of(&self, product: Product, quantity: Quantity, hour: i64) -> Option<i64> {
        self.slots(product, hour)?[quantity.index()].map(|s| s.run)
    }

    /// The batches no longer needed at `cutoff`: of a run before it, each hour they hold is
    /// either before it too or answered from another batch.
    pub(crate) fn dead(&self, cutoff: i64) -> Vec<Arc<Batch>> {
        let cutoff = cutoff.div_euclid(HOUR) * HOUR;
        self.batches
            .iter()
            .enumerate()
            .filter(|(b, batch)| {
                batch.run < cutoff
                    && batch.layers.iter().all(|layer| {
                        layer.hours.iter().all(|&h| {
                            h < cutoff
                                || self
                                    .slots(batch.manifest.product, h)
                                    .and_then(|s| s[layer.quantity.index()])
                                    .is_none_or(|s| s.batch != *b)
                        })
                    })
            })
            .map(|(_, batch)| batch.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use aq_core::Pollutant;
    use chrono::{Duration, TimeZone};

    use super::*;
    use crate::lattice::Lattice;

    fn batch(run_hour: i64, id: u64, hours: std::ops::Range<i64>) -> Arc<Batch> {
        let t0 = Utc.with_ymd_and_hms(2026, 6, 10, 0, 0, 0).unwrap();
        let run = t0 + Duration::hours(run_hour);
        let lattice = Lattice::new(90.0, -10.0, 19, 0.0, 10.0, 36).unwrap();
        let mut m = Manifest::new(Product::Global, run, id, 4, 2);
        m.add_layer(
            Quantity::Pollutant(Pollutant::Pm25),
            &lattice,
            hours.map(|h| t0 + Duration::hours(h)).collect(),
        );
        Arc::new(Batch::new(m).unwrap())
    }

    fn t(h: i64) -> i64 {
        Utc.with_ymd_and_hms(2026, 6, 10, 0, 0, 0)
            .unwrap()
            .timestamp()
            + h * HOUR
    }

    #[test]
    fn per_valid_hour_the_newest_run_wins_whatever_the_order() {
        let pm = Quantity::Pollutant(Pollutant::Pm25);
        for batches in [
            vec![batch(0, 1, 0..6), batch(3, 2, 3..9)],
            vec![batch(3, 2, 3..9), batch(0, 1, 0..6)],
        ] {
            let c = Catalog::new(batches);
            assert_eq!(c.run_of(Product::Global, pm, t(2)), Some(t(0)));
            assert_eq!(c.run_of(Product::Global, pm, t(3)), Some(t(3)));
            assert_eq!(c.run_of(Product::Global, pm, t(5)), Some(t(3)));
            assert_eq!(c.run_of(Product::Global, pm, t(8)), Some(t(3)));
            assert_eq!(c.run_of(Product::Global, pm, t(9)), None);
            assert_eq!(c.run_of(Product::Europe, pm, t(3)), None);
            assert_eq!(c.hours(Product::Global), (0..9).map(t).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_run_is_purged_once_past_retention_and_every_hour_it_answers_is_past_too() {
        let c = Catalog::new(vec![
            batch(0, 1, 0..6),
            batch(3, 2, 3..9),
            batch(6, 3, 6..7),
        ]);
        let ids = |cutoff| -> Vec<u64> { c.dead(t(cutoff)).iter().map(|b| b.id).collect() };
        // The first run still answers hours 0 to 2 until they pass.
        assert_eq!(ids(2), Vec::<u64>::new());
        assert_eq!(ids(3), vec![1]);
        // The second run answers 7 and 8: kept while they are in retention; the third run,
        // whose one hour the second run does not take back, goes once that hour is past.
        assert_eq!(ids(7), vec![1, 3]);
        assert_eq!(ids(9), vec![1, 2, 3]);
    }
}
