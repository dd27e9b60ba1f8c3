//! A directory of CAMS GRIB2 files that an operator's job fills, followed by a server: new and
//! changed files are ingested into the grid store on each poll (a batch another process wrote
//! already is not written again), runs past retention are purged, and a file that is refused
//! is logged and tried again only once it changes (or at the next poll, when the grid store
//! failed rather than the file).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use chrono::{DateTime, Duration, Utc};

use crate::error::StoreError;
use crate::ingest::{IngestError, IngestReport, ingest_file, list_files};
use crate::store::GridStore;

/// What a file looked like when it was last read: a changed file is read again.
type Stamp = (Option<SystemTime>, u64);

/// A directory followed into a [`GridStore`].
#[derive(Debug)]
pub struct DirectoryFeed {
    dir: PathBuf,
    store: Arc<GridStore>,
    retention: Duration,
    seen: HashMap<PathBuf, Stamp>,
}

/// What one poll did.
#[derive(Debug, Default)]
pub struct PollSummary {
    /// The files ingested.
    pub ingested: Vec<IngestReport>,
    /// The files refused, each with why.
    pub refused: Vec<IngestError>,
    /// Batches purged as past retention.
    pub purged: usize,
    /// Batches the store holds after the poll.
    pub batches: usize,
}

/// Why a poll could not be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FeedError {
    /// The directory could not be read.
    #[error(transparent)]
    Directory(#[from] IngestError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok(), meta.len()))
}

impl DirectoryFeed {
    /// Follows `dir` into `store`, purging runs older than `retention` before now.
    #[must_use]
    pub fn new(dir: PathBuf, store: Arc<GridStore>, retention: Duration) -> Self {
        Self {
            dir,
            store,
            retention,
            seen: HashMap::new(),
        }
    }

    /// The directory followed.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Ingests the files that are new or changed since the last poll (in name order), purges
    /// what is past `now − retention` and refreshes the store's catalog.
    ///
    /// # Errors
    /// [`FeedError`] when the directory itself cannot be read or the store fails; refused
    /// files are in the summary, not errors.
    pub async fn poll(&mut self, now: DateTime<Utc>) -> Result<PollSummary, FeedError> {
        let mut summary = PollSummary::default();
        for file in list_files(std::slice::from_ref(&self.dir))? {
            let Some(now_stamp) = stamp(&file) else {
                continue;
            };
            if self.seen.get(&file) == Some(&now_stamp) {
                continue;
            }
            self.seen.insert(file.clone(), now_stamp);
            match ingest_file(&self.store, &file).await {
                Ok(report) => summary.ingested.push(report),
                Err(e) => {
                    tracing::warn!(error = %e, "file refused; the data already held keeps serving");
                    if e.store_failed {
                        // Not the file's fault: the next poll tries it again.
                        self.seen.remove(&file);
                    }
                    summary.refused.push(e);
                }
            }
        }
        summary.purged = self.store.purge(now - self.retention).await?;
        summary.batches = self.store.refresh().await?;
        Ok(summary)
    }
}
