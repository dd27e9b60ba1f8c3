//! Ingest of CAMS GRIB2 files as the Atmosphere Data Store delivers them: the global forecast
//! and the European forecast (see [`params`] for what is read and how units are converted).
//!
//! A file is read in two passes with the pure-Rust `grib` crate. The first reads its index
//! (every section but the packed data, so a truncated or malformed file is refused before
//! anything is decoded) and plans what it holds: per product and run a batch, per quantity the
//! valid hours and the messages behind each. The second decodes, quantity by quantity, one
//! hour block at a time (the [`StoreConfig::chunk_hours`] fields of one quantity are all that
//! is held in memory, whatever the file's size or message order), cuts the block into chunks
//! and writes them to the store while the next block is decoded. Each batch's manifest is
//! written after all of the file's chunks: a file refused part-way (a message that does not
//! decode) leaves no manifest, so readers keep serving exactly what they served, and its
//! chunks are purged later. A batch whose manifest is already in the store (the same file,
//! ingested before or by another process) is not written again.
//!
//! [`StoreConfig::chunk_hours`]: crate::StoreConfig

mod bounds;
pub mod params;
mod scan;
mod tally;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use bytes::Bytes;
use chrono::DateTime;
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;

use crate::manifest::Manifest;
use crate::store::{CommitSummary, GridStore, PUTS};
use crate::writer::{block_chunks, exists, put, put_manifest};

use self::params::SkipReason;
use self::scan::{Plan, PlannedBatch};

pub use self::bounds::MAX_POINTS;
pub use self::tally::{Refusal, Tally, scan_bytes, tally};

/// Why a file was refused: the file, the message (counted from 1) when one is at fault, and
/// what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{}: {reason}", file.display(), message.map(|m| format!(": message {m}")).unwrap_or_default())]
pub struct IngestError {
    /// The file.
    pub file: PathBuf,
    /// The message at fault, from 1, when one is.
    pub message: Option<usize>,
    /// What is wrong.
    pub reason: String,
    /// True when the file was not at fault but writing to the grid store failed: the same
    /// file is worth trying again.
    pub store_failed: bool,
    /// What kind of refusal, for `/metrics`.
    pub kind: Refusal,
}

impl IngestError {
    /// A refusal of `file` (at `message`, from 1) of `kind`, for `reason`.
    pub(crate) fn new(file: &Path, message: Option<usize>, kind: Refusal, reason: String) -> Self {
        Self {
            file: file.to_owned(),
            message,
            reason,
            store_failed: kind == Refusal::Store,
            kind,
        }
    }
}

/// What ingesting one file did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestReport {
    /// The file.
    pub file: PathBuf,
    /// Messages read.
    pub messages: usize,
    /// Messages skipped (parameters, models or grids the store does not serve).
    pub skipped: usize,
    /// The skipped messages by why, the reasons with none left out.
    pub skips: std::collections::BTreeMap<SkipReason, usize>,
    /// Batches written; the others were in the store already.
    pub written: usize,
    /// Messages decoded: each served message of the batches written once per layer it feeds,
    /// however many hours between two steps read it (a pollen species twice: its type's layer
    /// and its own, each streamed on its own).
    pub decoded: usize,
    /// What the store holds of the file.
    pub commit: CommitSummary,
}

/// File names taken from a directory: GRIB2 files by their usual extensions.
const EXTENSIONS: [&str; 3] = ["grib2", "grib", "grb2"];

/// The manifest of a planned batch.
fn manifest_of(batch: &PlannedBatch, store: &GridStore) -> Manifest {
    let config = store.config();
    let mut m = Manifest::new(
        batch.product,
        batch.run,
        batch.id,
        config.chunk_nodes,
        config.chunk_hours,
    );
    for (&quantity, layer) in &batch.layers {
        let hours = layer
            .hours
            .keys()
            .filter_map(|&t| DateTime::from_timestamp(t, 0))
            .collect();
        m.add_layer(quantity, &layer.lattice, hours);
    }
    m
}

/// Decodes the `batches` of `path` block by block and hands each chunk to `send`, in the
/// order of `manifests`; returns how many messages it decoded. Blocking. Logs once when fields
/// declared kg m⁻³ were read as µg/m³.
///
/// A message that several hours read (a step, read by the hours filled between it and its
/// neighbours) is decoded once and held until its last hour has read it: hours come in order,
/// so at most the two steps around the hour being filled are held per quantity.
fn decode_chunks(
    path: &Path,
    batches: &[(PlannedBatch, Manifest)],
    send: &tokio::sync::mpsc::Sender<(ObjectPath, Bytes)>,
) -> Result<usize, IngestError> {
    let grib2 = scan::open(path)?;
    let (mut reread, mut decoded) = (0usize, 0usize);
    for (batch, manifest) in batches {
        let per_chunk = manifest.chunk_hours;
        for ((_, layer), spec) in batch.layers.iter().zip(&manifest.layers) {
            let tiling = manifest.tiling(layer.lattice);
            let sources: Vec<_> = layer.hours.values().collect();
            let mut uses: HashMap<usize, usize> = HashMap::new();
            for source in sources.iter().copied().flatten() {
                *uses.entry(source.index).or_default() += 1;
            }
            let mut held: HashMap<usize, Rc<Vec<f32>>> = HashMap::new();
            for (t, block) in sources.chunks(per_chunk).enumerate() {
                let mut fields: Vec<Vec<f32>> = Vec::with_capacity(block.len());
                for hour in block {
                    let mut sum: Option<Vec<f32>> = None;
                    for source in hour.iter() {
                        let refuse = |reason: String| {
                            IngestError::new(
                                path,
                                Some(source.index + 1),
                                Refusal::Undecodable,
                                reason,
                            )
                        };
                        let values = if let Some(values) = held.get(&source.index) {
                            values.clone()
                        } else {
                            let (values, as_ug) =
                                scan::decode(&grib2, source.index, source.unit).map_err(refuse)?;
                            decoded += 1;
                            reread += usize::from(as_ug);
                            if values.len() != layer.lattice.len() {
                                return Err(refuse(format!(
                                    "{} values for a grid of {} nodes",
                                    values.len(),
                                    layer.lattice.len()
                                )));
                            }
                            let values = Rc::new(values);
                            if uses.get(&source.index).is_some_and(|&n| n > 1) {
                                held.insert(source.index, values.clone());
                            }
                            values
                        };
                        if let Some(left) = uses.get_mut(&source.index) {
                            *left = left.saturating_sub(1);
                            if *left == 0 {
                                held.remove(&source.index);
                            }
                        }
                        // A weight of 1 (every hour but those between two steps) leaves the
                        // values exactly as decoded.
                        #[allow(clippy::cast_possible_truncation)]
                        let w = source.weight as f32;
                        sum = Some(match sum {
                            // Moved out when no later hour holds it; copied when one does.
                            None if source.weight == 1.0 => {
                                Rc::try_unwrap(values).unwrap_or_else(|held| held.to_vec())
                            }
                            None => values.iter().map(|v| v * w).collect(),
                            Some(mut acc) => {
                                acc.iter_mut()
                                    .zip(values.iter())
                                    .for_each(|(a, v)| *a += v * w);
                                acc
                            }
                        });
                    }
                    fields.push(sum.unwrap_or_default());
                }
                let hours: Vec<&[f32]> = fields.iter().map(Vec::as_slice).collect();
                let mut open = true;
                block_chunks(&tiling, &spec.chunks, t, &hours, |key, bytes| {
                    open = send.blocking_send((key, bytes)).is_ok();
                    open
                });
                if !open {
                    // The writer stopped: its error is the one reported.
                    return Ok(decoded);
                }
            }
        }
    }
    if reread > 0 {
        tracing::info!(
            file = %path.display(),
            fields = reread,
            "European fields declared in kg m-3 hold µg/m³ by their magnitude: read as µg/m³"
        );
    }
    Ok(decoded)
}

/// Reads `path` and writes what it holds to `store` as chunks, then each batch's manifest,
/// then refreshes the store's catalog.
///
/// # Errors
/// [`IngestError`] naming the file (and the message) when it cannot be opened, is not GRIB2,
/// is truncated or corrupt, or a served message does not decode; or naming the store when
/// writing fails. No manifest is written then, and readers keep what they had.
pub async fn ingest_file(store: &GridStore, path: &Path) -> Result<IngestReport, IngestError> {
    let result = ingest(store, path).await;
    tally::count(&result);
    result
}

async fn ingest(store: &GridStore, path: &Path) -> Result<IngestReport, IngestError> {
    let file = path.to_owned();
    let refuse_store =
        |e: crate::StoreError| IngestError::new(&file, None, Refusal::Store, e.to_string());
    // A reader that stopped (panicked) on a file is the file's fault: it is not tried again
    // until it changes.
    let stopped = |e: tokio::task::JoinError| {
        IngestError::new(
            path,
            None,
            Refusal::Undecodable,
            format!("the reader stopped: {e}"),
        )
    };
    let scanned = file.clone();
    let model = store.config().europe_model;
    let plan: Plan = tokio::task::spawn_blocking(move || scan::scan(&scanned, model))
        .await
        .map_err(stopped)??;
    let mut todo = Vec::new();
    for batch in &plan.batches {
        let manifest = manifest_of(batch, store);
        if !exists(store.objects().as_ref(), &manifest)
            .await
            .map_err(refuse_store)?
        {
            todo.push((batch.clone(), manifest));
        }
    }
    let written = todo.len();
    let mut decoded_messages = 0;
    if !todo.is_empty() {
        let (send, receive) = tokio::sync::mpsc::channel::<(ObjectPath, Bytes)>(PUTS);
        let decoded = file.clone();
        let manifests: Vec<Manifest> = todo.iter().map(|(_, m)| m.clone()).collect();
        let reader = tokio::task::spawn_blocking(move || decode_chunks(&decoded, &todo, &send));
        let objects = store.objects().clone();
        let chunks = futures::stream::unfold(receive, |mut r| async move {
            r.recv().await.map(|item| (item, r))
        });
        // The first failed put ends the stream, which closes the channel and stops the reader.
        let wrote = chunks
            .map(Ok)
            .try_for_each_concurrent(PUTS, |(key, bytes)| {
                let objects = objects.clone();
                async move { put(objects.as_ref(), &key, bytes).await }
            })
            .await;
        let read = reader.await.map_err(stopped)?;
        decoded_messages = read?;
        wrote.map_err(refuse_store)?;
        for m in &manifests {
            put_manifest(store.objects().as_ref(), m)
                .await
                .map_err(refuse_store)?;
        }
    }
    store.refresh().await.map_err(refuse_store)?;
    let taken = plan
        .batches
        .iter()
        .flat_map(|b| b.layers.values())
        .map(|l| l.hours.len())
        .sum();
    let superseded = plan
        .batches
        .iter()
        .flat_map(|b| {
            b.layers.iter().flat_map(move |(&q, l)| {
                l.hours.keys().map(move |&h| {
                    let valid = DateTime::from_timestamp(h, 0).unwrap_or(b.run);
                    store.run_of(b.product, q, valid).is_some_and(|r| r > b.run)
                })
            })
        })
        .filter(|&s| s)
        .count();
    let commit = CommitSummary { taken, superseded };
    let skipped: usize = plan.skipped.values().sum();
    let skips = plan
        .skipped
        .iter()
        .map(|(r, n)| format!("{} {n}", r.name()))
        .collect::<Vec<_>>()
        .join(", ");
    tracing::info!(
        file = %path.display(),
        messages = plan.messages,
        skipped,
        skips,
        written,
        taken = commit.taken,
        superseded = commit.superseded,
        "ingested"
    );
    Ok(IngestReport {
        file: path.to_owned(),
        messages: plan.messages,
        skipped,
        skips: plan.skipped,
        written,
        decoded: decoded_messages,
        commit,
    })
}

/// The GRIB2 files `paths` name: files as they are, directories' files with a GRIB2 extension
/// (not recursively), sorted by name so that runs are taken in a stable order.
///
/// # Errors
/// [`IngestError`] naming a path that cannot be read.
pub fn list_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, IngestError> {
    let mut out = Vec::new();
    for path in paths {
        let refuse =
            |e: std::io::Error| IngestError::new(path, None, Refusal::Unreadable, e.to_string());
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(refuse)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.is_file()
                        && p.extension()
                            .and_then(|e| e.to_str())
                            .is_some_and(|e| EXTENSIONS.contains(&e))
                })
                .collect();
            found.sort();
            out.extend(found);
        } else {
            std::fs::metadata(path).map_err(refuse)?;
            out.push(path.clone());
        }
    }
    Ok(out)
}
