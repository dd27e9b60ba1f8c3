//! The chunks a process holds in memory: a bounded cache weighted by each chunk's bytes, which
//! evicts the chunks least likely to be asked again (`quick_cache`'s CLOCK-Pro) once full.

use std::sync::Arc;

use quick_cache::Weighter;
use quick_cache::sync::Cache;

use crate::chunk::Chunk;

/// The cache's default size: 512 MiB of chunks, about 3,800 chunks of 65 × 65 nodes and
/// 8 hours, or 40 hours of six quantities on the whole 0.4° global grid.
pub const DEFAULT_CACHE_BYTES: u64 = 512 << 20;

/// A chunk's identity: its batch (the id, unique per file, product and run), quantity, hour
/// block and spatial block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ChunkId {
    pub(crate) batch: u64,
    pub(crate) quantity: u8,
    pub(crate) hours: u32,
    pub(crate) row_block: u32,
    pub(crate) column_block: u32,
}

impl ChunkId {
    /// Chunk (`hours`, `row_block`, `column_block`) of quantity `quantity` (its index) of
    /// batch `batch`; indices past what the id holds (never met: a grid has far fewer blocks)
    /// saturate.
    pub(crate) fn new(
        batch: u64,
        quantity: usize,
        hours: usize,
        row_block: usize,
        column_block: usize,
    ) -> Self {
        Self {
            batch,
            quantity: u8::try_from(quantity).unwrap_or(u8::MAX),
            hours: u32::try_from(hours).unwrap_or(u32::MAX),
            row_block: u32::try_from(row_block).unwrap_or(u32::MAX),
            column_block: u32::try_from(column_block).unwrap_or(u32::MAX),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct ByBytes;

impl Weighter<ChunkId, Arc<Chunk>> for ByBytes {
    fn weight(&self, _: &ChunkId, chunk: &Arc<Chunk>) -> u64 {
        chunk.weight()
    }
}

/// Hot chunks, at most a configured number of bytes of them.
pub(crate) struct ChunkCache {
    cache: Cache<ChunkId, Arc<Chunk>, ByBytes>,
}

impl std::fmt::Debug for ChunkCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkCache")
            .field("bytes", &self.cache.weight())
            .field("capacity", &self.cache.capacity())
            .finish()
    }
}

/// A typical chunk's bytes (65 × 65 nodes, 8 hours), to size the cache's table.
const TYPICAL_CHUNK: u64 = 65 * 65 * 8 * 4;

impl ChunkCache {
    /// A cache of at most `bytes` bytes of chunks.
    pub(crate) fn new(bytes: u64) -> Self {
        let items = usize::try_from(bytes / TYPICAL_CHUNK + 16).unwrap_or(usize::MAX);
        Self {
            cache: Cache::with_weighter(items, bytes.max(1), ByBytes),
        }
    }

    pub(crate) fn get(&self, id: &ChunkId) -> Option<Arc<Chunk>> {
        self.cache.get(id)
    }

    /// The chunk `id`, from the cache or else from `read`, which is then cached: however many
    /// callers want a chunk that is not held, one of them reads it and the others wait for
    /// that read (if it fails or finds nothing, the next one tries). A chunk not in the store
    /// (`None`) is not cached.
    pub(crate) async fn get_or_load<E>(
        &self,
        id: ChunkId,
        read: impl Future<Output = Result<Option<Arc<Chunk>>, E>>,
    ) -> Result<Option<Arc<Chunk>>, E> {
        let loaded = self
            .cache
            .get_or_insert_async(&id, async {
                match read.await {
                    Ok(Some(chunk)) => Ok(chunk),
                    Ok(None) => Err(None),
                    Err(e) => Err(Some(e)),
                }
            })
            .await;
        match loaded {
            Ok(chunk) => Ok(Some(chunk)),
            Err(None) => Ok(None),
            Err(Some(e)) => Err(e),
        }
    }

    /// Bytes held.
    pub(crate) fn weight(&self) -> u64 {
        self.cache.weight()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_cache_never_holds_more_bytes_than_its_bound() {
        let cache = ChunkCache::new(1 << 20);
        let chunk = Arc::new(Chunk::new(65, 65, 8, &[1.0; 65 * 65 * 8]).unwrap());
        for k in 0..100 {
            let id = ChunkId {
                batch: 1,
                quantity: 0,
                hours: 0,
                row_block: k,
                column_block: 0,
            };
            let read = async { Ok::<_, ()>(Some(chunk.clone())) };
            cache.get_or_load(id, read).await.unwrap();
            assert!(cache.weight() <= 1 << 20, "{} bytes", cache.weight());
        }
        assert!(cache.weight() > 0);
    }

    #[tokio::test]
    async fn a_chunk_wanted_by_many_at_once_is_read_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};

        let cache = ChunkCache::new(1 << 20);
        let reads = AtomicUsize::new(0);
        let id = ChunkId {
            batch: 7,
            quantity: 1,
            hours: 0,
            row_block: 2,
            column_block: 3,
        };
        let read = || async {
            reads.fetch_add(1, Ordering::SeqCst);
            // Long enough for every other caller to arrive while this read is under way.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            Ok::<_, ()>(Some(Arc::new(Chunk::new(2, 2, 1, &[1.0; 4]).unwrap())))
        };
        let got = futures::future::join_all((0..8).map(|_| cache.get_or_load(id, read()))).await;
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        assert!(got.iter().all(|c| matches!(c, Ok(Some(_)))));
        // Held now: no read at all.
        cache.get_or_load(id, read()).await.unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_chunk_not_in_the_store_is_asked_for_again() {
        let cache = ChunkCache::new(1 << 20);
        let id = ChunkId {
            batch: 7,
            quantity: 1,
            hours: 0,
            row_block: 0,
            column_block: 0,
        };
        let missing = || async { Ok::<Option<Arc<Chunk>>, ()>(None) };
        assert_eq!(cache.get_or_load(id, missing()).await, Ok(None));
        let found =
            || async { Ok::<_, ()>(Some(Arc::new(Chunk::new(2, 2, 1, &[2.0; 4]).unwrap()))) };
        assert!(matches!(cache.get_or_load(id, found()).await, Ok(Some(_))));
    }
}
