//! Writing a batch: its chunks, one hour block of one quantity at a time, then its manifest.

use bytes::Bytes;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

use crate::chunk::Chunk;
use crate::error::StoreError;
use crate::manifest::{Manifest, chunk_path};
use crate::tiling::Tiling;

/// The chunks of hour block `t` of a layer whose chunks start with `prefix`: `hours[k]` holds
/// the values of the block's hour `k` on the tiling's lattice. Each is handed to `put` as it
/// is made; `put` returns `false` to stop.
pub(crate) fn block_chunks(
    tiling: &Tiling,
    prefix: &str,
    t: usize,
    hours: &[&[f32]],
    mut put: impl FnMut(Path, Bytes) -> bool,
) {
    let (nr, nc) = tiling.blocks();
    for rb in 0..nr {
        for cb in 0..nc {
            let (rows, cols) = tiling.shape(rb, cb);
            let mut values = Vec::with_capacity(rows * cols * hours.len());
            for hour in hours {
                for lr in 0..rows {
                    for lc in 0..cols {
                        values.push(
                            hour.get(tiling.node(rb, cb, lr, lc))
                                .copied()
                                .unwrap_or(f32::NAN),
                        );
                    }
                }
            }
            // The shape is the tiling's and the hours are at least one: always a chunk.
            let Ok(bytes) = Chunk::encode_values(rows, cols, hours.len(), &values) else {
                continue;
            };
            if !put(chunk_path(prefix, t, rb, cb), Bytes::from(bytes)) {
                return;
            }
        }
    }
}

/// Puts `bytes` at `path`. A put is atomic in every object store (a local one writes a
/// temporary file and renames it), so a reader sees the whole object or none, and two writers
/// of the same bytes leave the same object.
pub(crate) async fn put(
    objects: &dyn ObjectStore,
    path: &Path,
    bytes: Bytes,
) -> Result<(), StoreError> {
    objects
        .put(path, PutPayload::from(bytes))
        .await
        .map(|_| ())
        .map_err(|e| StoreError::new(format!("cannot write {path}: {e}")))
}

/// Writes `manifest`, last of its batch's objects.
pub(crate) async fn put_manifest(
    objects: &dyn ObjectStore,
    manifest: &Manifest,
) -> Result<(), StoreError> {
    let text = serde_json::to_vec_pretty(manifest)
        .map_err(|e| StoreError::new(format!("manifest: {e}")))?;
    put(objects, &manifest.path(), Bytes::from(text)).await
}

/// Whether `manifest`'s batch is already in the store: then its chunks are too.
pub(crate) async fn exists(
    objects: &dyn ObjectStore,
    manifest: &Manifest,
) -> Result<bool, StoreError> {
    match objects.head(&manifest.path()).await {
        Ok(_) => Ok(true),
        Err(object_store::Error::NotFound { .. }) => Ok(false),
        Err(e) => Err(StoreError::new(format!(
            "cannot read {}: {e}",
            manifest.path()
        ))),
    }
}
