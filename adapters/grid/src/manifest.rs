//! A batch's manifest and where a batch's objects lie in the store.
//!
//! A **batch** is what one ingest of one file adds for one product and run: one or more
//! quantities, each over the hours the file holds. Its objects are
//!
//! - chunks at `chunks/{product}/{run}/{batch}/{quantity}/{t}/{rb}-{cb}`: hour block `t` (the
//!   layer's hours `t × chunk_hours` onwards, at most `chunk_hours` of them) of the nodes of
//!   block row `rb` and block column `cb` (see the chunk geometry in `tiling.rs`);
//! - then, written last, the manifest at `manifests/{product}/{run}/{batch}.json`.
//!
//! `{run}` is the reference time as `YYYYMMDDTHHMMSSZ`; `{batch}` is 16 hexadecimal digits
//! derived from the file's content, the product and the run, so ingesting the same file twice
//! (or from two processes at once) writes the same objects with the same bytes. A reader only
//! ever looks at batches whose manifest exists, and a manifest is written after every one of
//! its chunks: a reader never sees half a batch.

use chrono::{DateTime, Utc};
use object_store::path::Path;
use serde::{Deserialize, Serialize};

use crate::field::Product;
use crate::lattice::Lattice;
use crate::quantity::Quantity;
use crate::tiling::Tiling;

/// The manifest format this crate writes and reads.
pub const FORMAT: u32 = 1;

/// Where manifests lie.
pub(crate) const MANIFESTS: &str = "manifests";

/// Where chunks lie.
pub(crate) const CHUNKS: &str = "chunks";

/// Why stored bytes are not a manifest this crate can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a grid manifest: {0}")]
pub struct ManifestError(String);

/// What a reader takes from a manifest: the batch id as a number, and each layer's quantity
/// and grid, in the manifest's order.
pub(crate) struct Readable {
    pub(crate) id: u64,
    pub(crate) layers: Vec<(Quantity, Lattice)>,
}

/// A batch's manifest: what it holds and where its chunks are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT`].
    pub format: u32,
    /// The product.
    pub product: Product,
    /// The run's reference time.
    pub run: DateTime<Utc>,
    /// The batch's id: 16 hexadecimal digits.
    pub batch: String,
    /// Cells a side of a chunk's block (its nodes: one more).
    pub chunk_nodes: usize,
    /// Hours of a chunk, at most.
    pub chunk_hours: usize,
    /// The quantities held.
    pub layers: Vec<ManifestLayer>,
}

/// One quantity of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestLayer {
    /// The quantity's name ([`Quantity::name`]).
    pub quantity: String,
    /// The grid.
    pub lattice: LatticeSpec,
    /// The valid hours held, oldest first.
    pub hours: Vec<DateTime<Utc>>,
    /// The key prefix of the layer's chunks; a chunk is at `{chunks}/{t}/{rb}-{cb}`.
    pub chunks: String,
}

/// A lattice as a manifest spells it (see [`Lattice::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatticeSpec {
    /// Latitude of the first row.
    pub lat0: f64,
    /// Degrees from one row to the next.
    pub dlat: f64,
    /// Rows.
    pub nlat: usize,
    /// Longitude of the first column, east.
    pub lon0: f64,
    /// Degrees from one column to the next, east.
    pub dlon: f64,
    /// Columns.
    pub nlon: usize,
}

impl From<&Lattice> for LatticeSpec {
    fn from(l: &Lattice) -> Self {
        let ((lat0, lon0), (dlat, dlon), (nlat, nlon)) = (l.origin(), l.steps(), l.shape());
        Self {
            lat0,
            dlat,
            nlat,
            lon0,
            dlon,
            nlon,
        }
    }
}

impl LatticeSpec {
    /// The lattice.
    ///
    /// # Errors
    /// Why the geometry is refused.
    pub fn lattice(&self) -> Result<Lattice, String> {
        Lattice::new(
            self.lat0, self.dlat, self.nlat, self.lon0, self.dlon, self.nlon,
        )
        .map_err(|e| e.to_string())
    }
}

/// A run's reference time as keys spell it.
pub(crate) fn run_name(run: DateTime<Utc>) -> String {
    run.format("%Y%m%dT%H%M%SZ").to_string()
}

/// The reference time a key's `{run}` part names.
pub(crate) fn parse_run(name: &str) -> Option<DateTime<Utc>> {
    chrono::NaiveDateTime::parse_from_str(name, "%Y%m%dT%H%M%SZ")
        .ok()
        .map(|t| t.and_utc())
}

/// A batch id as keys spell it.
pub(crate) fn batch_name(id: u64) -> String {
    format!("{id:016x}")
}

/// The prefix of a batch's chunks.
pub(crate) fn batch_prefix(product: Product, run: DateTime<Utc>, batch: &str) -> Path {
    Path::from_iter([CHUNKS, product.name(), &run_name(run), batch])
}

/// Where a batch's manifest lies.
pub(crate) fn manifest_path(product: Product, run: DateTime<Utc>, batch: &str) -> Path {
    Path::from_iter([
        MANIFESTS,
        product.name(),
        &run_name(run),
        &format!("{batch}.json"),
    ])
}

/// Where chunk (`t`, `rb`, `cb`) of a layer whose chunks start with `chunks` lies.
pub(crate) fn chunk_path(chunks: &str, t: usize, rb: usize, cb: usize) -> Path {
    Path::from(format!("{chunks}/{t}/{rb}-{cb}"))
}

impl Manifest {
    /// A manifest from its stored form (the JSON the store writes), as a reader takes it: of
    /// [`FORMAT`], with a batch id spelt as ingest spells it (16 lower-case hexadecimal
    /// digits), and quantities and grids this crate knows.
    /// The bytes come back from an object store, which whoever can write to it may have
    /// changed.
    ///
    /// ```
    /// use aq_grid::manifest::Manifest;
    ///
    /// assert!(Manifest::decode(br#"{"format": 2}"#).is_err());
    /// ```
    ///
    /// # Errors
    /// [`ManifestError`] saying what is wrong.
    pub fn decode(bytes: &[u8]) -> Result<Self, ManifestError> {
        let manifest: Self =
            serde_json::from_slice(bytes).map_err(|e| ManifestError(e.to_string()))?;
        manifest.readable()?;
        Ok(manifest)
    }

    /// The batch id and each layer's quantity and grid, or why the manifest cannot be read.
    pub(crate) fn readable(&self) -> Result<Readable, ManifestError> {
        let refuse = |why: String| Err(ManifestError(why));
        if self.format != FORMAT {
            return refuse(format!("format {}", self.format));
        }
        // Only the spelling ingest writes: the id keys the chunk cache, and `abc`, `+abc` or
        // `0000000000000ABC` would name the chunks of batch `0000000000000abc`.
        let id = match u64::from_str_radix(&self.batch, 16) {
            Ok(id) if batch_name(id) == self.batch => id,
            _ => return refuse(format!("batch id {:?}", self.batch)),
        };
        let mut layers = Vec::with_capacity(self.layers.len());
        for l in &self.layers {
            let Some(quantity) = Quantity::from_name(&l.quantity) else {
                return refuse(format!("quantity {:?}", l.quantity));
            };
            let lattice = l.lattice.lattice().map_err(ManifestError)?;
            layers.push((quantity, lattice));
        }
        Ok(Readable { id, layers })
    }

    /// An empty manifest of batch `batch` of `product`'s `run`.
    pub(crate) fn new(
        product: Product,
        run: DateTime<Utc>,
        batch: u64,
        chunk_nodes: usize,
        chunk_hours: usize,
    ) -> Self {
        Self {
            format: FORMAT,
            product,
            run,
            batch: batch_name(batch),
            chunk_nodes: chunk_nodes.max(1),
            chunk_hours: chunk_hours.max(1),
            layers: Vec::new(),
        }
    }

    /// Adds `quantity` on `lattice` at `hours` (oldest first).
    pub(crate) fn add_layer(
        &mut self,
        quantity: Quantity,
        lattice: &Lattice,
        hours: Vec<DateTime<Utc>>,
    ) {
        let chunks = format!(
            "{}/{}",
            batch_prefix(self.product, self.run, &self.batch),
            quantity.name()
        );
        self.layers.push(ManifestLayer {
            quantity: quantity.name().to_owned(),
            lattice: lattice.into(),
            hours,
            chunks,
        });
    }

    /// Where this manifest lies.
    pub(crate) fn path(&self) -> Path {
        manifest_path(self.product, self.run, &self.batch)
    }

    /// The tiling of `lattice` in this batch's chunks.
    pub(crate) fn tiling(&self, lattice: Lattice) -> Tiling {
        Tiling::new(lattice, self.chunk_nodes)
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_manifest_reads_back_as_written_and_names_its_keys() {
        let run = Utc.with_ymd_and_hms(2026, 6, 10, 0, 0, 0).unwrap();
        let lattice = Lattice::new(90.0, -0.4, 451, -180.0, 0.4, 900).unwrap();
        let mut m = Manifest::new(Product::Global, run, 0xabc, 64, 8);
        m.add_layer(
            Quantity::Pollen(aq_core::PollenType::Grass),
            &lattice,
            vec![run],
        );
        let text = serde_json::to_string(&m).unwrap();
        let back: Manifest = serde_json::from_str(&text).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.layers[0].lattice.lattice().unwrap(), lattice);
        assert_eq!(
            m.path().as_ref(),
            "manifests/global/20260610T000000Z/0000000000000abc.json"
        );
        assert_eq!(
            chunk_path(&m.layers[0].chunks, 2, 3, 4).as_ref(),
            "chunks/global/20260610T000000Z/0000000000000abc/grass/2/3-4"
        );
        assert_eq!(parse_run("20260610T000000Z"), Some(run));
        assert_eq!(
            Manifest::decode(&serde_json::to_vec_pretty(&m).unwrap()),
            Ok(m)
        );
    }

    /// Found by fuzzing: a batch id in another spelling of the same number was read, and its
    /// chunks would have been cached as another batch's.
    #[test]
    fn only_the_batch_ids_ingest_writes_are_read() {
        let run = Utc.with_ymd_and_hms(2026, 6, 10, 0, 0, 0).unwrap();
        let m = Manifest::new(Product::Global, run, 0xabc, 64, 8);
        for batch in ["abc", "000000", "+000000000000abc", "0000000000000ABC", ""] {
            let other = Manifest {
                batch: batch.to_owned(),
                ..m.clone()
            };
            let bytes = serde_json::to_vec(&other).unwrap();
            assert!(Manifest::decode(&bytes).is_err(), "{batch:?}");
        }
        assert!(Manifest::decode(&serde_json::to_vec(&m).unwrap()).is_ok());
    }
}
