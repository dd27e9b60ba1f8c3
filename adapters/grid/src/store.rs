//! The grid store: batches of chunks in an object store (a local directory or S3) that every
//! replica reads, the catalog of their manifests, and a bounded cache of hot chunks.

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock};

use aq_core::{AirModel, SourceInfo};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use futures::{StreamExt, TryStreamExt};
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use sha2::{Digest, Sha256};

use crate::cache::{ChunkCache, DEFAULT_CACHE_BYTES};
use crate::catalog::{Batch, Catalog, hour_of};
use crate::error::StoreError;
use crate::field::{Field, Layer, Product};
use crate::manifest::{CHUNKS, MANIFESTS, Manifest, parse_run};
use crate::model::{ModelGrid, Modelled};
use crate::quantity::Quantity;
use crate::writer::{block_chunks, put, put_manifest};

/// How long chunks without a manifest are left alone before a purge takes them for the
/// remains of a failed ingest: far longer than an ingest of a whole run takes.
pub const ORPHAN_GRACE: chrono::TimeDelta = chrono::TimeDelta::hours(1);

/// Cells a side of a chunk by default (65 × 65 nodes).
pub const DEFAULT_CHUNK_NODES: usize = 64;

/// Hours of a chunk by default: ingest holds this many whole fields of one quantity at a time.
pub const DEFAULT_CHUNK_HOURS: usize = 8;

/// Puts in flight at once while a batch is written.
pub(crate) const PUTS: usize = 16;

/// How the store cuts fields into chunks and how much of them it keeps in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreConfig {
    /// The most bytes of chunks the cache holds.
    pub cache_bytes: u64,
    /// Cells a side of the chunks written.
    pub chunk_nodes: usize,
    /// Hours of the chunks written.
    pub chunk_hours: usize,
    /// The model of the European ensemble ingest takes as the European product; the others'
    /// messages are skipped. The ensemble median by default.
    pub europe_model: crate::ingest::params::EuropeModel,
}

impl Default for StoreConfig {
    fn default() -> Self {
        Self {
            cache_bytes: DEFAULT_CACHE_BYTES,
            chunk_nodes: DEFAULT_CHUNK_NODES,
            chunk_hours: DEFAULT_CHUNK_HOURS,
            europe_model: crate::ingest::params::EuropeModel::Ensemble,
        }
    }
}

/// What a commit did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommitSummary {
    /// Fields now held (written, or held already from the same data).
    pub taken: usize,
    /// Of those, the fields a newer run answers instead.
    pub superseded: usize,
}

/// The grid store shared by the sources that answer from it and the ingest that fills it.
///
/// Fields are stored as chunks (see [`crate::chunk`] and [`crate::manifest`]) in an object
/// store that every replica reads; each process keeps the catalog of the batches' manifests,
/// refreshed by [`GridStore::refresh`], and a cache of the chunks it read, bounded by
/// [`StoreConfig::cache_bytes`]. Per product, valid hour and quantity the newest run wins.
#[derive(Debug)]
pub struct GridStore {
    pub(crate) objects: Arc<dyn ObjectStore>,
    config: StoreConfig,
    catalog: RwLock<Arc<Catalog>>,
    /// The manifests read, by path; `None` for one that could not be read (not tried again).
    known: tokio::sync::Mutex<BTreeMap<Path, Option<Arc<Batch>>>>,
    pub(crate) cache: ChunkCache,
    /// The model whose values the store computes, for a store that holds no batches.
    pub(crate) model: Option<Modelled>,
}

impl GridStore {
    /// A store over `objects`.
    #[must_use]
    pub fn new(objects: Arc<dyn ObjectStore>, config: StoreConfig) -> Self {
        Self {
            objects,
            cache: ChunkCache::new(config.cache_bytes),
            config,
            catalog: RwLock::default(),
            known: tokio::sync::Mutex::default(),
            model: None,
        }
    }

    /// A store that holds no batches but computes `model`'s values on `grid`'s nodes, per
    /// chunk on first use (see [`ModelGrid`]): the demo field served the way the CAMS grids
    /// are. Its hours are every hour; it has no manifests, runs or object store to refresh.
    ///
    /// ```
    /// use std::sync::Arc;
    ///
    /// use aq_core::{AirModel, Concentration, Concentrations, ForecastSource, ModelHour};
    /// use aq_core::{Pollutant, Position, SourceInfo};
    /// use aq_grid::{GridSource, GridStore, ModelGrid};
    /// use chrono::{DateTime, TimeZone, Utc};
    ///
    /// /// PM2.5 rising by 1 µg/m³ an hour from midnight UTC.
    /// struct Rising;
    ///
    /// impl AirModel for Rising {
    ///     fn info(&self) -> SourceInfo {
    ///         SourceInfo::demo("rising")
    ///     }
    ///     fn hours(&self, _: Position, times: &[DateTime<Utc>]) -> Vec<ModelHour> {
    ///         times
    ///             .iter()
    ///             .map(|t| {
    ///                 let pm25 = Concentration::new(f64::from(t.time().hour())).unwrap();
    ///                 ModelHour {
    ///                     concentrations: Concentrations::default().with(Pollutant::Pm25, pm25),
    ///                     pollen: [None; 3],
    ///                     plants: [None; 6],
    ///                 }
    ///             })
    ///             .collect()
    ///     }
    /// }
    /// # use chrono::Timelike;
    ///
    /// # tokio::runtime::Builder::new_multi_thread().build().unwrap().block_on(async {
    /// let store = GridStore::from_model(Arc::new(Rising), ModelGrid::default());
    /// let source = GridSource::new(Arc::new(store));
    /// let berlin = Position::new(13.405, 52.52).unwrap();
    /// let six = Utc.with_ymd_and_hms(2026, 6, 10, 6, 0, 0).unwrap();
    /// let series = source.hourly_concentrations(&[berlin], six, 2).await.unwrap();
    /// let pm25: Vec<f64> = series[0].as_ref().unwrap().values.iter()
    ///     .map(|c| c.unwrap().get(Pollutant::Pm25).unwrap().ug_m3())
    ///     .collect();
    /// assert_eq!(pm25, [6.0, 7.0, 8.0]);
    /// assert_eq!(ForecastSource::info(&source).name, "rising");
    /// # });
    /// ```
    #[must_use]
    pub fn from_model(model: Arc<dyn AirModel>, grid: ModelGrid) -> Self {
        let config = StoreConfig {
            cache_bytes: 0,
            chunk_nodes: grid.chunk_nodes,
            chunk_hours: grid.chunk_hours,
            ..StoreConfig::default()
        };
        Self {
            model: Some(Modelled::new(model, grid)),
            ..Self::new(Arc::new(InMemory::new()), config)
        }
    }

    /// What the model of a store made by [`GridStore::from_model`] is; `None` for a store of
    /// stored batches.
    #[must_use]
    pub fn model_info(&self) -> Option<SourceInfo> {
        self.model.as_ref().map(Modelled::info)
    }

    /// The catalog a sampling of `span` reads: the model's days, or the batches held.
    pub(crate) fn catalog_for(&self, span: &std::ops::Range<i64>) -> Arc<Catalog> {
        match &self.model {
            Some(model) => model.catalog(span),
            None => self.catalog(),
        }
    }

    /// An empty store in memory, for tests and examples.
    #[must_use]
    pub fn in_memory() -> Self {
        Self::new(Arc::new(InMemory::new()), StoreConfig::default())
    }

    /// How the store cuts and caches chunks.
    #[must_use]
    pub fn config(&self) -> StoreConfig {
        self.config
    }

    /// The object store the chunks are in.
    #[must_use]
    pub fn objects(&self) -> &Arc<dyn ObjectStore> {
        &self.objects
    }

    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        self.catalog
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Reads the manifests that appeared since the last refresh and forgets those that went;
    /// returns how many batches are held. A manifest that cannot be read is logged and left
    /// out.
    ///
    /// # Errors
    /// [`StoreError`] when the object store cannot be listed or read; the catalog is then
    /// unchanged.
    pub async fn refresh(&self) -> Result<usize, StoreError> {
        let mut known = self.known.lock().await;
        let listed: Vec<Path> = match self
            .objects
            .list(Some(&Path::from(MANIFESTS)))
            .map_ok(|meta| meta.location)
            .try_collect()
            .await
        {
            Ok(listed) => listed,
            Err(object_store::Error::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(StoreError::new(format!("cannot list the manifests: {e}"))),
        };
        let listed: Vec<Path> = listed
            .into_iter()
            .filter(|p| p.as_ref().ends_with(".json"))
            .collect();
        let before = known.len();
        known.retain(|path, _| listed.contains(path));
        let mut changed = known.len() != before;
        for path in listed {
            if known.contains_key(&path) {
                continue;
            }
            let bytes = match self.objects.get(&path).await {
                Ok(got) => got.bytes().await,
                Err(e) => Err(e),
            };
            let bytes = match bytes {
                Ok(b) => b,
                // Purged since the listing.
                Err(object_store::Error::NotFound { .. }) => continue,
                Err(e) => return Err(StoreError::new(format!("cannot read {path}: {e}"))),
            };
            let batch = Manifest::decode(&bytes)
                .map_err(|e| e.to_string())
                .and_then(Batch::new);
            let batch = match batch {
                Ok(b) => Some(Arc::new(b)),
                Err(why) => {
                    tracing::warn!(manifest = %path, "manifest left out: {why}");
                    None
                }
            };
            known.insert(path, batch);
            changed = true;
        }
        let batches: Vec<Arc<Batch>> = known.values().flatten().cloned().collect();
        let held = batches.len();
        if changed {
            *self.catalog.write().unwrap_or_else(PoisonError::into_inner) =
                Arc::new(Catalog::new(batches));
        }
        Ok(held)
    }

    /// Deletes the batches no longer needed at `cutoff`: those of a run before it whose every
    /// hour is before it too or answered from a newer run; and the chunks, under runs before
    /// it, of batches that never got a manifest (an ingest that failed) and whose newest chunk
    /// is more than [`ORPHAN_GRACE`] old, so that an ingest still writing an old run (a
    /// backfill) keeps its chunks. Each batch's manifest goes first, so a reader never meets a
    /// manifest without its chunks. Returns how many batches with a manifest were deleted.
    ///
    /// # Errors
    /// [`StoreError`] when the object store fails.
    pub async fn purge(&self, cutoff: DateTime<Utc>) -> Result<usize, StoreError> {
        self.purge_orphans_before(cutoff, Utc::now() - ORPHAN_GRACE)
            .await
    }

    /// [`GridStore::purge`], deleting chunks without a manifest only when their newest object
    /// was written before `written_before` (by the object store's clock).
    ///
    /// # Errors
    /// [`StoreError`] when the object store fails.
    pub async fn purge_orphans_before(
        &self,
        cutoff: DateTime<Utc>,
        written_before: DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        self.refresh().await?;
        let catalog = self.catalog();
        let dead = catalog.dead(cutoff.timestamp());
        for batch in &dead {
            let m = &batch.manifest;
            self.delete(&m.path()).await?;
            self.delete_under(&crate::manifest::batch_prefix(m.product, m.run, &m.batch))
                .await?;
            tracing::info!(product = m.product.name(), run = %m.run, batch = %m.batch, "purged");
        }
        let live: Vec<String> = catalog
            .batches
            .iter()
            .filter(|b| !dead.iter().any(|d| Arc::ptr_eq(d, b)))
            .map(|b| {
                let m = &b.manifest;
                crate::manifest::batch_prefix(m.product, m.run, &m.batch).to_string()
            })
            .collect();
        for product in Product::ALL {
            for run in self
                .children(&Path::from_iter([CHUNKS, product.name()]))
                .await?
            {
                let old = run
                    .filename()
                    .and_then(parse_run)
                    .is_some_and(|t| t < cutoff);
                if !old {
                    continue;
                }
                for batch in self.children(&run).await? {
                    if !live.contains(&batch.to_string())
                        && self.last_written(&batch).await? < Some(written_before)
                    {
                        self.delete_under(&batch).await?;
                        tracing::info!(chunks = %batch, "purged chunks that have no manifest");
                    }
                }
            }
        }
        self.refresh().await?;
        Ok(dead.len())
    }

    async fn delete(&self, path: &Path) -> Result<(), StoreError> {
        match self.objects.delete(path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(StoreError::new(format!("cannot delete {path}: {e}"))),
        }
    }

    /// When the newest object under `prefix` was written; `None` when there is none.
    async fn last_written(&self, prefix: &Path) -> Result<Option<DateTime<Utc>>, StoreError> {
        match self
            .objects
            .list(Some(prefix))
            .try_fold(None, |newest: Option<DateTime<Utc>>, m| async move {
                Ok(newest.max(Some(m.last_modified)))
            })
            .await
        {
            Ok(t) => Ok(t),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(StoreError::new(format!("cannot list {prefix}: {e}"))),
        }
    }

    async fn delete_under(&self, prefix: &Path) -> Result<(), StoreError> {
        let paths: Vec<Path> = match self
            .objects
            .list(Some(prefix))
            .map_ok(|m| m.location)
            .try_collect()
            .await
        {
            Ok(p) => p,
            Err(object_store::Error::NotFound { .. }) => return Ok(()),
            Err(e) => return Err(StoreError::new(format!("cannot list {prefix}: {e}"))),
        };
        futures::stream::iter(paths)
            .map(|p| async move { self.delete(&p).await })
            .buffer_unordered(16)
            .try_collect::<Vec<()>>()
            .await
            .map(|_| ())
    }

    async fn children(&self, prefix: &Path) -> Result<Vec<Path>, StoreError> {
        match self.objects.list_with_delimiter(Some(prefix)).await {
            Ok(listed) => Ok(listed.common_prefixes),
            Err(object_store::Error::NotFound { .. }) => Ok(Vec::new()),
            Err(e) => Err(StoreError::new(format!("cannot list {prefix}: {e}"))),
        }
    }

    /// Writes `fields` as batches (one per product and run) and refreshes the catalog: the
    /// way fields made in memory join the store. Ingest writes files the same way, streaming
    /// ([`crate::ingest_file`]).
    ///
    /// # Errors
    /// [`StoreError`] when the object store fails, or one quantity of one run comes on two
    /// grids.
    pub async fn commit(&self, fields: Vec<Field>) -> Result<CommitSummary, StoreError> {
        type Layers = BTreeMap<Quantity, BTreeMap<i64, Layer>>;
        let mut runs: BTreeMap<(Product, DateTime<Utc>), Layers> = BTreeMap::new();
        let taken = fields.len();
        let mut held = Vec::new();
        for f in fields {
            // The grass plant is its type's layer: one quantity, whichever name it came under.
            let quantity = Quantity::ALL[f.quantity.index()];
            held.push((f.product, quantity, hour_of(f.valid), f.run.timestamp()));
            runs.entry((f.product, f.run))
                .or_default()
                .entry(quantity)
                .or_default()
                .insert(hour_of(f.valid), f.layer);
        }
        for ((product, run), layers) in runs {
            self.write_batch(product, run, &layers).await?;
        }
        self.refresh().await?;
        let catalog = self.catalog();
        let superseded = held
            .iter()
            .filter(|&&(p, q, hour, run)| catalog.run_of(p, q, hour).is_some_and(|r| r > run))
            .count();
        Ok(CommitSummary { taken, superseded })
    }

    async fn write_batch(
        &self,
        product: Product,
        run: DateTime<Utc>,
        layers: &BTreeMap<Quantity, BTreeMap<i64, Layer>>,
    ) -> Result<(), StoreError> {
        let mut digest = Sha256::new();
        digest.update(product.name().as_bytes());
        digest.update(run.timestamp().to_be_bytes());
        for (q, hours) in layers {
            digest.update(q.name().as_bytes());
            for (hour, layer) in hours {
                digest.update(hour.to_be_bytes());
                digest.update(layer.lattice().to_string().as_bytes());
                for v in layer.values() {
                    digest.update(v.to_le_bytes());
                }
            }
        }
        let d: [u8; 32] = digest.finalize().into();
        let id = u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]]);
        let (nodes, per_chunk) = (self.config.chunk_nodes, self.config.chunk_hours.max(1));
        let mut manifest = Manifest::new(product, run, id, nodes, per_chunk);
        for (&quantity, hours) in layers {
            let Some(first) = hours.values().next() else {
                continue;
            };
            let lattice = *first.lattice();
            if let Some(other) = hours.values().find(|l| *l.lattice() != lattice) {
                return Err(StoreError::new(format!(
                    "{} of one run on two grids ({lattice} and {})",
                    quantity.name(),
                    other.lattice()
                )));
            }
            let times = hours
                .keys()
                .filter_map(|&t| DateTime::from_timestamp(t, 0))
                .collect();
            manifest.add_layer(quantity, &lattice, times);
            let Some(layer) = manifest.layers.last() else {
                continue;
            };
            let tiling = manifest.tiling(lattice);
            let values: Vec<&[f32]> = hours.values().map(Layer::values).collect();
            for (t, block) in values.chunks(per_chunk).enumerate() {
                let mut made: Vec<(Path, Bytes)> = Vec::new();
                block_chunks(&tiling, &layer.chunks, t, block, |path, bytes| {
                    made.push((path, bytes));
                    true
                });
                futures::stream::iter(made)
                    .map(|(path, bytes)| async move {
                        put(self.objects.as_ref(), &path, bytes).await
                    })
                    .buffer_unordered(PUTS)
                    .try_collect::<Vec<()>>()
                    .await?;
            }
        }
        put_manifest(self.objects.as_ref(), &manifest).await
    }

    /// The valid hours `product` holds, oldest first.
    #[must_use]
    pub fn hours(&self, product: Product) -> Vec<DateTime<Utc>> {
        self.catalog()
            .hours(product)
            .into_iter()
            .filter_map(|t| DateTime::from_timestamp(t, 0))
            .collect()
    }

    /// The run `product` answers `quantity` from at the hour of `valid`.
    #[must_use]
    pub fn run_of(
        &self,
        product: Product,
        quantity: Quantity,
        valid: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        let run = self.catalog().run_of(product, quantity, hour_of(valid))?;
        DateTime::from_timestamp(run, 0)
    }

    /// The batches held: each one's manifest.
    #[must_use]
    pub fn manifests(&self) -> Vec<Manifest> {
        self.catalog()
            .batches
            .iter()
            .map(|b| b.manifest.clone())
            .collect()
    }

    /// Bytes of chunks the cache holds now.
    #[must_use]
    pub fn cached_bytes(&self) -> u64 {
        self.cache.weight() + self.model.as_ref().map_or(0, Modelled::weight)
    }
}
