//! The fields held: per product, valid hour and quantity, the layer of the newest run.

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock};

use chrono::{DateTime, Utc};

use crate::lattice::Lattice;
use crate::quantity::{N_QUANTITIES, PointValues, Quantity};

/// Seconds in an hour: the fields' time step.
const HOUR: i64 = 3600;

/// The products a grid holds, in the order a point is answered from: the European forecast
/// where its grid covers the point and has the quantity, the global forecast elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Product {
    /// A regional grid (the CAMS European forecast, 0.1°).
    Europe,
    /// A grid round the globe (the CAMS global forecast, 0.4°).
    Global,
}

impl Product {
    /// Both products, in the order a point is answered from.
    pub const ALL: [Product; 2] = [Product::Europe, Product::Global];

    fn index(self) -> usize {
        match self {
            Product::Europe => 0,
            Product::Global => 1,
        }
    }

    /// The name answers give the product's model: `cams-europe` or `cams-global`.
    #[must_use]
    pub fn model_name(self) -> &'static str {
        match self {
            Product::Europe => "cams-europe",
            Product::Global => "cams-global",
        }
    }
}

/// One quantity at one valid hour on one grid, in µg/m³ or grains/m³; NaN where the grid has no
/// value (a bitmap's missing points).
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    lattice: Lattice,
    values: Box<[f32]>,
}

/// Why a layer was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{values} values for a grid of {nodes} nodes")]
pub struct LayerSizeError {
    values: usize,
    nodes: usize,
}

impl Layer {
    /// A layer of `values`, one per node of `lattice` in its order.
    ///
    /// # Errors
    /// [`LayerSizeError`] when the count differs from the lattice's nodes.
    pub fn new(lattice: Lattice, values: Box<[f32]>) -> Result<Self, LayerSizeError> {
        if values.len() == lattice.len() {
            Ok(Self { lattice, values })
        } else {
            Err(LayerSizeError {
                values: values.len(),
                nodes: lattice.len(),
            })
        }
    }

    /// The grid.
    #[must_use]
    pub fn lattice(&self) -> &Lattice {
        &self.lattice
    }

    /// The values, node by node.
    #[must_use]
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// The bilinear blend at (`lat`, `lon`), or `None` outside the grid or beside a missing node.
    #[must_use]
    pub fn at(&self, lat: f64, lon: f64) -> Option<f64> {
        self.lattice.blend(lat, lon)?.apply(&self.values)
    }
}

/// A field as ingest delivers it: one quantity of one product at one valid hour, from one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Which product.
    pub product: Product,
    /// Which quantity.
    pub quantity: Quantity,
    /// The run's reference time.
    pub run: DateTime<Utc>,
    /// The instant the values hold for (reference time plus forecast step).
    pub valid: DateTime<Utc>,
    /// The values.
    pub layer: Layer,
}

#[derive(Debug, Clone)]
struct Held {
    run: i64,
    layer: Arc<Layer>,
}

type Hours = BTreeMap<i64, [Option<Held>; N_QUANTITIES]>;

/// What a commit changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommitSummary {
    /// Fields now held.
    pub taken: usize,
    /// Fields left out because a newer run already holds their hour and quantity.
    pub superseded: usize,
}

/// The fields held, shared by the sources that answer from them and the ingest that fills
/// them. Per product, valid hour and quantity the newest run wins: a field from an older run
/// than the one held is left out, one from a newer run replaces it. A commit replaces fields
/// all at once under one lock, so a reader sees either the whole of an ingested file or none.
#[derive(Debug, Default)]
pub struct GridStore {
    products: RwLock<[Hours; 2]>,
}

fn hour_of(t: DateTime<Utc>) -> i64 {
    t.timestamp().div_euclid(HOUR) * HOUR
}

impl GridStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes `fields` in, the newest run winning per product, valid hour and quantity.
    pub fn commit(&self, fields: Vec<Field>) -> CommitSummary {
        let mut summary = CommitSummary::default();
        let mut products = self
            .products
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        for f in fields {
            let slot = &mut products[f.product.index()]
                .entry(hour_of(f.valid))
                .or_default()[f.quantity.index()];
            let run = f.run.timestamp();
            if slot.as_ref().is_some_and(|held| held.run > run) {
                summary.superseded += 1;
            } else {
                *slot = Some(Held {
                    run,
                    layer: Arc::new(f.layer),
                });
                summary.taken += 1;
            }
        }
        summary
    }

    /// Drops every hour before `cutoff`; returns how many hours were dropped.
    pub fn purge_before(&self, cutoff: DateTime<Utc>) -> usize {
        let cutoff = hour_of(cutoff);
        let mut products = self
            .products
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let mut dropped = 0;
        for hours in products.iter_mut() {
            let kept = hours.split_off(&cutoff);
            dropped += hours.len();
            *hours = kept;
        }
        dropped
    }

    /// The valid hours held by `product`, oldest first.
    #[must_use]
    pub fn hours(&self, product: Product) -> Vec<DateTime<Utc>> {
        let products = self.products.read().unwrap_or_else(PoisonError::into_inner);
        products[product.index()]
            .keys()
            .filter_map(|&t| DateTime::from_timestamp(t, 0))
            .collect()
    }

    /// The run whose field of `quantity` is held for `product` at the hour of `valid`.
    #[must_use]
    pub fn run_of(
        &self,
        product: Product,
        quantity: Quantity,
        valid: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        let products = self.products.read().unwrap_or_else(PoisonError::into_inner);
        let held = products[product.index()].get(&hour_of(valid))?[quantity.index()].as_ref()?;
        DateTime::from_timestamp(held.run, 0)
    }

    /// A reader for a batch of queries: one lock for the whole batch.
    pub(crate) fn read<R>(&self, f: impl FnOnce(&Reader<'_>) -> R) -> R {
        let products = self.products.read().unwrap_or_else(PoisonError::into_inner);
        f(&Reader {
            products: &products,
        })
    }
}

/// The store's fields under a read lock.
pub(crate) struct Reader<'a> {
    products: &'a [Hours; 2],
}

/// Where one value of a point came from: the product, the run's reference time (seconds since
/// the epoch) and the quantity's index.
pub(crate) type Origin = (Product, i64, usize);

impl Reader<'_> {
    /// The values at (`lat`, `lon`) at the whole hour `hour` (seconds since the epoch): each
    /// quantity from the first product that covers the point and holds it. `used` hears where
    /// each value came from.
    fn at_hour(&self, lat: f64, lon: f64, hour: i64, used: &mut impl FnMut(Origin)) -> PointValues {
        let mut out = PointValues::MISSING;
        for (hours, product) in self.products.iter().zip(Product::ALL) {
            let Some(layers) = hours.get(&hour) else {
                continue;
            };
            for (k, held) in layers.iter().enumerate() {
                if !out.0[k].is_nan() {
                    continue;
                }
                if let Some(held) = held
                    && let Some(v) = held.layer.at(lat, lon)
                {
                    out.0[k] = v;
                    used((product, held.run, k));
                }
            }
        }
        out
    }

    /// The values at (`lat`, `lon`) at `t`: linear in time between the whole hours before and
    /// after it; a quantity missing at either of them is missing.
    pub(crate) fn at(&self, lat: f64, lon: f64, t: DateTime<Utc>) -> PointValues {
        self.at_tracing(lat, lon, t, &mut |_| {})
    }

    /// [`Reader::at`], telling `used` where each value blended came from (both hours' values
    /// when `t` falls between two).
    pub(crate) fn at_tracing(
        &self,
        lat: f64,
        lon: f64,
        t: DateTime<Utc>,
        used: &mut impl FnMut(Origin),
    ) -> PointValues {
        let h0 = hour_of(t);
        let offset = t.timestamp() - h0;
        let before = self.at_hour(lat, lon, h0, used);
        if offset == 0 && t.timestamp_subsec_nanos() == 0 {
            return before;
        }
        let w = (offset as f64 + f64::from(t.timestamp_subsec_nanos()) * 1e-9) / HOUR as f64;
        let after = self.at_hour(lat, lon, h0 + HOUR, used);
        let mut out = PointValues::MISSING;
        for (o, (a, b)) in out.0.iter_mut().zip(before.0.iter().zip(&after.0)) {
            // NaN on either side stays NaN.
            *o = a * (1.0 - w) + b * w;
        }
        out
    }
}
