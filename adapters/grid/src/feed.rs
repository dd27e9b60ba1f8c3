//! A directory of CAMS GRIB2 files that an operator's job fills, followed by a server: new and
//! changed files are ingested on each poll, hours past retention are dropped, and a file that
//! is refused is logged and tried again only once it changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use chrono::{DateTime, Duration, Utc};

use crate::ingest::{IngestError, IngestReport, ingest_file, list_files, read_file};
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
    /// Hours dropped as past retention.
    pub purged: usize,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok(), meta.len()))
}

impl DirectoryFeed {
    /// Follows `dir` into `store`, keeping hours no older than `retention` before now.
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

    /// Ingests the files that are new or changed since the last poll (in name order), then drops
    /// the hours before `now − retention`. Blocking: file reads and decoding.
    ///
    /// # Errors
    /// [`IngestError`] when the directory itself cannot be read; refused files are in the
    /// summary, not errors.
    pub fn poll(&mut self, now: DateTime<Utc>) -> Result<PollSummary, IngestError> {
        let mut summary = PollSummary::default();
        for file in list_files(std::slice::from_ref(&self.dir))? {
            let Some(now_stamp) = stamp(&file) else {
                continue;
            };
            if self.seen.get(&file) == Some(&now_stamp) {
                continue;
            }
            self.seen.insert(file.clone(), now_stamp);
            match ingest_file(&self.store, &file) {
                Ok(report) => summary.ingested.push(report),
                Err(e) => {
                    tracing::warn!(error = %e, "file refused; the data already held keeps serving");
                    summary.refused.push(e);
                }
            }
        }
        summary.purged = self.store.purge_before(now - self.retention);
        Ok(summary)
    }
}

/// Checks `file` the way a feed would read it, then places it in `dir` under its own name so
/// that every server following `dir` takes it on its next poll. The copy is written beside the
/// destination under a name no feed reads, then renamed, so a feed never sees half a file.
///
/// # Errors
/// [`IngestError`] when the file is refused (nothing is written) or cannot be copied.
pub fn publish(file: &Path, dir: &Path) -> Result<IngestReport, IngestError> {
    let (fields, messages, skipped) = read_file(file)?;
    let refuse = |e: std::io::Error| IngestError {
        file: file.to_owned(),
        message: None,
        reason: format!("cannot copy into {}: {e}", dir.display()),
    };
    let name = file.file_name().ok_or_else(|| IngestError {
        file: file.to_owned(),
        message: None,
        reason: "no file name".to_owned(),
    })?;
    std::fs::create_dir_all(dir).map_err(refuse)?;
    let target = dir.join(name);
    let partial = dir.join(format!(".{}.part", name.to_string_lossy()));
    std::fs::copy(file, &partial).map_err(refuse)?;
    std::fs::rename(&partial, &target).map_err(refuse)?;
    Ok(IngestReport {
        file: target,
        messages,
        skipped,
        commit: crate::store::CommitSummary {
            taken: fields.len(),
            superseded: 0,
        },
    })
}
