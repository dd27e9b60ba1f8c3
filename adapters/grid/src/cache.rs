//! The chunks a process holds in memory: a bounded cache weighted by each chunk's bytes, which
//! evicts the chunks least likely to be asked again (`quick_cache`'s CLOCK-Pro) once full.

use std::sync::Arc;

use quick_cache::Weighter;
use quick_cache::sync::Cache;

use crate::chunk::Chunk;

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

    pub(crate) fn insert(&self, id: ChunkId, chunk: Arc<Chunk>) {
        self.cache.insert(id, chunk);
    }

    /// Bytes held.
    pub(crate) fn weight(&self) -> u64 {
        self.cache.weight()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_never_holds_more_bytes_than_its_bound() {
        let cache = ChunkCache::new(1 << 20);
        let chunk = Arc::new(Chunk::new(65, 65, 8, vec![1.0; 65 * 65 * 8].into()).unwrap());
        for k in 0..100 {
            let id = ChunkId {
                batch: 1,
                quantity: 0,
                hours: 0,
                row_block: k,
                column_block: 0,
            };
            cache.insert(id, chunk.clone());
            assert!(cache.weight() <= 1 << 20, "{} bytes", cache.weight());
        }
        assert!(cache.weight() > 0);
    }
}
