//! One chunk: a block of grid nodes of one quantity over a block of hours, and how it is stored.
//!
//! # Encoding (format 1)
//!
//! A 16-byte header, the ASCII magic `AQG1` then the rows, columns and hours as little-endian
//! `u32`, followed by `hours × rows × columns` values as IEEE 754 binary32 (`f32`)
//! little-endian: hour after hour, row after row, the column varying fastest. A node without a
//! value (a GRIB2 bitmap's missing point) is NaN.
//!
//! # Worst-case error
//!
//! Ingest turns each decoded GRIB2 value into µg/m³ (or grains/m³) in `f64` and rounds it once
//! to `f32`; the chunk then holds those `f32` bits exactly, so storing and reading a chunk adds
//! nothing. The one rounding is at most half a unit in the last place: a relative error of
//! [`MAX_RELATIVE_ERROR`] (2⁻²⁴, about 6 × 10⁻⁸) for every value above 10⁻³⁸, and an absolute
//! error of at most 2⁻¹⁵⁰ below. CAMS's own packing (16 bits over each field's range) is
//! thousands of times coarser, so the grid serves ecCodes's values to the packing precision.
//! Summed pollen species add one more `f32` rounding per species.

use thiserror::Error;

use crate::lattice::Blend;

/// The magic that opens every chunk of format 1.
const MAGIC: &[u8; 4] = b"AQG1";

/// Bytes before the values.
const HEADER: usize = 16;

/// The worst relative error of a value stored in a chunk against the exact value ingest
/// computed (normal `f32` range): half a unit in the last place of an `f32`.
pub const MAX_RELATIVE_ERROR: f64 = 1.0 / 16_777_216.0;

/// Why bytes are not a chunk.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("not a grid chunk: {0}")]
pub struct ChunkError(String);

/// A block of nodes of one quantity over a block of hours, values in µg/m³ or grains/m³.
///
/// In memory a node's hours lie together (node after node, the hour varying fastest), the
/// transpose of the stored order: a batch is read hour after hour, and its positions' nodes
/// are then read from the lines the first hour brought into the processor's cache, not from
/// main memory again for every hour.
///
/// ```
/// use aq_grid::chunk::Chunk;
///
/// let chunk = Chunk::new(2, 2, 1, &[1.0, 2.0, f32::NAN, 4.0]).unwrap();
/// let back = Chunk::decode(&chunk.encode()).unwrap();
/// assert_eq!(back.shape(), (2, 2, 1));
/// assert_eq!(back.value(0, 1), 2.0);
/// assert!(back.value(0, 2).is_nan());
/// assert_eq!(chunk.encode().len(), 16 + 4 * 4);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    rows: usize,
    cols: usize,
    hours: usize,
    /// Node-major: node `n`'s value at hour `h` is at `n × hours + h`.
    values: Box<[f32]>,
}

fn u32_le(bytes: &[u8], at: usize) -> Option<usize> {
    let b = bytes.get(at..at + 4)?;
    usize::try_from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()
}

/// Refuses a shape with a side of zero or above `u32`, or `values` not one per node and hour.
fn check_shape(rows: usize, cols: usize, hours: usize, values: usize) -> Result<(), ChunkError> {
    let fits = |n: usize| n > 0 && u32::try_from(n).is_ok();
    if !(fits(rows) && fits(cols) && fits(hours)) {
        return Err(ChunkError(format!("{rows} × {cols} × {hours}")));
    }
    // Three sides that each fit in a `u32` may multiply past a `usize`.
    let count = rows.checked_mul(cols).and_then(|n| n.checked_mul(hours));
    if count != Some(values) {
        return Err(ChunkError(format!(
            "{values} values for {rows} rows, {cols} columns and {hours} hours"
        )));
    }
    Ok(())
}

/// The header, then `values` (in the encoding's order) little-endian, of a shape checked
/// already.
fn stored_form(
    rows: usize,
    cols: usize,
    hours: usize,
    values: impl Iterator<Item = f32>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + 4 * rows * cols * hours);
    out.extend_from_slice(MAGIC);
    for n in [rows, cols, hours] {
        // The shape was checked: each side fits.
        out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
    }
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// The values of `nodes` nodes over `hours` hours, given in the encoding's order (`stored(k)`
/// is the `k`-th: hour after hour, node after node), rearranged node by node as a chunk holds
/// them in memory.
fn node_major(nodes: usize, hours: usize, stored: impl Fn(usize) -> f32) -> Box<[f32]> {
    let mut out = Vec::with_capacity(nodes * hours);
    for node in 0..nodes {
        for hour in 0..hours {
            out.push(stored(hour * nodes + node));
        }
    }
    out.into_boxed_slice()
}

impl Chunk {
    /// A chunk of `hours` × `rows` × `cols` `values` in the encoding's order.
    ///
    /// # Errors
    /// [`ChunkError`] when the count of values differs, or a side is zero or above `u32`.
    pub fn new(rows: usize, cols: usize, hours: usize, values: &[f32]) -> Result<Self, ChunkError> {
        check_shape(rows, cols, hours, values.len())?;
        let values = node_major(rows * cols, hours, |k| values[k]);
        Ok(Self {
            rows,
            cols,
            hours,
            values,
        })
    }

    /// Rows, columns and hours.
    #[must_use]
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.rows, self.cols, self.hours)
    }

    /// The value of `hour` at node `at` (row × columns + column); NaN for a missing value or a
    /// position outside the chunk.
    #[must_use]
    pub fn value(&self, hour: usize, at: usize) -> f32 {
        self.at(hour, at).unwrap_or(f32::NAN)
    }

    /// The value of `hour` at node `at`; `None` outside the chunk.
    fn at(&self, hour: usize, at: usize) -> Option<f32> {
        if hour >= self.hours || at >= self.rows * self.cols {
            return None;
        }
        self.values.get(at * self.hours + hour).copied()
    }

    /// The bytes the chunk takes in memory, for the cache's weight.
    #[must_use]
    pub fn weight(&self) -> u64 {
        (HEADER + 4 * self.values.len()) as u64
    }

    /// The stored form (see the module's documentation).
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let nodes = self.rows * self.cols;
        let stored = (0..self.hours)
            .flat_map(|hour| (0..nodes).map(move |node| self.values[node * self.hours + hour]));
        stored_form(self.rows, self.cols, self.hours, stored)
    }

    /// The stored form of `hours` × `rows` × `cols` `values` in the encoding's order, as
    /// [`Chunk::new`] then [`Chunk::encode`] would make it, without holding them as a chunk.
    ///
    /// # Errors
    /// As [`Chunk::new`].
    pub fn encode_values(
        rows: usize,
        cols: usize,
        hours: usize,
        values: &[f32],
    ) -> Result<Vec<u8>, ChunkError> {
        check_shape(rows, cols, hours, values.len())?;
        Ok(stored_form(rows, cols, hours, values.iter().copied()))
    }

    /// A chunk from its stored form.
    ///
    /// # Errors
    /// [`ChunkError`] when the magic, the header or the length is wrong.
    pub fn decode(bytes: &[u8]) -> Result<Self, ChunkError> {
        if bytes.get(..4) != Some(MAGIC.as_slice()) {
            return Err(ChunkError("no AQG1 magic".to_owned()));
        }
        let (Some(rows), Some(cols), Some(hours)) =
            (u32_le(bytes, 4), u32_le(bytes, 8), u32_le(bytes, 12))
        else {
            return Err(ChunkError("header cut short".to_owned()));
        };
        let n = rows
            .checked_mul(cols)
            .and_then(|n| n.checked_mul(hours))
            .ok_or_else(|| ChunkError("sides too large".to_owned()))?;
        // A damaged header must not overflow the length it implies.
        if n.checked_mul(4).and_then(|b| b.checked_add(HEADER)) != Some(bytes.len()) {
            return Err(ChunkError(format!(
                "{} bytes for {rows} × {cols} × {hours} values",
                bytes.len()
            )));
        }
        check_shape(rows, cols, hours, n)?;
        // Read straight into the order a chunk holds: one pass, no copy in the stored order.
        let stored = &bytes[HEADER..];
        let values = node_major(rows * cols, hours, |k| {
            let b = &stored[4 * k..4 * k + 4];
            f32::from_le_bytes([b[0], b[1], b[2], b[3]])
        });
        Ok(Self {
            rows,
            cols,
            hours,
            values,
        })
    }

    /// The hours of `blend`'s four nodes, to blend one position hour after hour: a node's
    /// hours lie together, so they are found once and read from the same few lines after.
    pub(crate) fn corners<'a>(&'a self, blend: &'a Blend) -> Corners<'a> {
        let hours = blend.nodes.map(|node| {
            let start = node.checked_mul(self.hours)?;
            self.values.get(start..start + self.hours)
        });
        Corners { blend, hours }
    }
}

/// One position's four nodes in a chunk, with their hours ([`Chunk::corners`]).
pub(crate) struct Corners<'a> {
    blend: &'a Blend,
    /// Each node's hours; `None` for a node outside the chunk.
    hours: [Option<&'a [f32]>; 4],
}

impl Corners<'_> {
    /// The blend of `hour`'s values: `None` when a node with weight has no value or lies
    /// outside the chunk, or the hour is not the chunk's.
    pub(crate) fn at(&self, hour: usize) -> Option<f64> {
        self.blend
            .apply_by(|corner| self.hours[corner]?.get(hour).copied())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn damaged_bytes_are_refused() {
        let chunk = Chunk::new(2, 3, 2, &[1.5; 12]).unwrap();
        let bytes = chunk.encode();
        assert!(Chunk::decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(Chunk::decode(&bytes[..10]).is_err());
        let mut wrong = bytes.clone();
        wrong[0] = b'X';
        assert!(Chunk::decode(&wrong).is_err());
        assert!(Chunk::new(2, 3, 2, &[1.5; 11]).is_err());
    }

    /// Found by fuzzing: sides whose product passes `usize` overflowed instead of being
    /// refused.
    #[test]
    fn sides_whose_product_overflows_are_refused() {
        let side = u32::MAX as usize;
        assert!(Chunk::new(side, side, side, &[]).is_err());
        assert!(Chunk::encode_values(side, side, 2, &[1.0]).is_err());
    }

    proptest! {
        /// What ingest stores (an `f32` per node, NaN for none) comes back bit for bit.
        #[test]
        fn a_chunk_round_trips_bit_for_bit(
            (rows, cols, hours, values) in (1..5usize, 1..5usize, 1..4usize).prop_flat_map(
                |(r, c, h)| (Just(r), Just(c), Just(h), prop::collection::vec(any::<f32>(), r * c * h)),
            ),
        ) {
            let chunk = Chunk::new(rows, cols, hours, &values).unwrap();
            let bytes = chunk.encode();
            // Stored hour after hour, row after row, as given.
            for (k, v) in values.iter().enumerate() {
                let at = HEADER + 4 * k;
                prop_assert_eq!(&bytes[at..at + 4], &v.to_le_bytes()[..]);
            }
            // Written straight from the values, the same bytes.
            prop_assert_eq!(&Chunk::encode_values(rows, cols, hours, &values).unwrap(), &bytes);
            let back = Chunk::decode(&bytes).unwrap();
            let nodes = rows * cols;
            for (k, v) in values.iter().enumerate() {
                prop_assert_eq!(back.value(k / nodes, k % nodes).to_bits(), v.to_bits());
            }
            prop_assert!(back.value(hours, 0).is_nan());
            prop_assert!(back.value(0, nodes).is_nan());
        }

        /// Against the exact value ingest computed in `f64`, a stored value is off by at most
        /// the documented worst case: [`MAX_RELATIVE_ERROR`] of it (2⁻¹⁵⁰ absolute below the
        /// normal range), for any concentration a grid may hold.
        #[test]
        fn the_error_of_a_stored_value_is_within_the_documented_bound(
            exact in prop_oneof![0.0..1e-30f64, 0.0..1.0f64, 0.0..1e6f64, 1e-45..1e30f64],
        ) {
            #[allow(clippy::cast_possible_truncation)]
            let chunk = Chunk::new(1, 1, 1, &[exact as f32]).unwrap();
            let got = f64::from(Chunk::decode(&chunk.encode()).unwrap().value(0, 0));
            let bound = (exact.abs() * MAX_RELATIVE_ERROR).max(2f64.powi(-150));
            prop_assert!((got - exact).abs() <= bound, "{exact} stored as {got}");
        }
    }
}
