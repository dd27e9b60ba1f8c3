//! What a grid holds, as ingest delivers it: a product, and fields of one quantity at one valid
//! hour on one grid.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::lattice::Lattice;
use crate::quantity::Quantity;

/// The products a grid holds, in the order a point is answered from: the European forecast
/// where its grid covers the point and has the quantity, the global forecast elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Product {
    /// A regional grid (the CAMS European forecast, 0.1°).
    Europe,
    /// A grid round the globe (the CAMS global forecast, 0.4°).
    Global,
}

impl Product {
    /// Both products, in the order a point is answered from.
    pub const ALL: [Product; 2] = [Product::Europe, Product::Global];

    pub(crate) fn index(self) -> usize {
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

    /// The product's name in the grid store's keys: `europe` or `global`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Product::Europe => "europe",
            Product::Global => "global",
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

/// A field: one quantity of one product at one valid hour, from one run.
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
