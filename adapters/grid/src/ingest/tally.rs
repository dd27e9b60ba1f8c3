//! What this process's ingests refused and skipped, by reason, for `/metrics`; and the scan
//! and decode of bytes in memory that the fuzz target drives.

use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use super::params::{EuropeModel, SkipReason};
use super::{IngestError, IngestReport, scan};

/// Why a file was refused whole: a small, fixed set, so that each is a label of `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Refusal {
    /// Not readable, or not GRIB2.
    Unreadable,
    /// Cut short, or a section does not fit its message.
    Truncated,
    /// A declared size past the limits: grid points, encoded values, bits a value.
    Oversized,
    /// A reference time that is no date, or a step past the horizon or the calendar.
    BadTime,
    /// A served message does not decode to its grid.
    Undecodable,
    /// One quantity of one run on two grids.
    Inconsistent,
    /// Not the file's fault: the grid store failed.
    Store,
}

impl Refusal {
    /// Every kind.
    pub const ALL: [Refusal; 7] = [
        Refusal::Unreadable,
        Refusal::Truncated,
        Refusal::Oversized,
        Refusal::BadTime,
        Refusal::Undecodable,
        Refusal::Inconsistent,
        Refusal::Store,
    ];

    /// The kind's name in logs and `/metrics`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Refusal::Unreadable => "unreadable",
            Refusal::Truncated => "truncated",
            Refusal::Oversized => "oversized",
            Refusal::BadTime => "bad_time",
            Refusal::Undecodable => "undecodable",
            Refusal::Inconsistent => "inconsistent",
            Refusal::Store => "store",
        }
    }

    fn index(self) -> usize {
        Self::ALL
            .iter()
            .position(|&r| r == self)
            .unwrap_or_default()
    }
}

fn skip_index(reason: SkipReason) -> usize {
    SkipReason::ALL
        .iter()
        .position(|&r| r == reason)
        .unwrap_or_default()
}

// Process-wide, like the metrics they feed: every ingest of the process counts, whichever
// store or feed ran it, with no handle to thread through.
static SKIPPED: [AtomicU64; SkipReason::ALL.len()] = [const { AtomicU64::new(0) }; 6];
static REFUSED: [AtomicU64; Refusal::ALL.len()] = [const { AtomicU64::new(0) }; 7];

/// Counts an ingest's outcome.
pub(crate) fn count(result: &Result<IngestReport, IngestError>) {
    match result {
        Ok(report) => {
            for (&reason, &n) in &report.skips {
                SKIPPED[skip_index(reason)].fetch_add(n as u64, Ordering::Relaxed);
            }
        }
        Err(e) => {
            REFUSED[e.kind.index()].fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// What this process's ingests skipped and refused since it started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    /// Messages skipped, per reason (every reason, zero or not).
    pub skipped: Vec<(SkipReason, u64)>,
    /// Files refused, per kind (every kind, zero or not).
    pub refused: Vec<(Refusal, u64)>,
}

/// The counts so far.
#[must_use]
pub fn tally() -> Tally {
    Tally {
        skipped: SkipReason::ALL
            .into_iter()
            .map(|r| (r, SKIPPED[skip_index(r)].load(Ordering::Relaxed)))
            .collect(),
        refused: Refusal::ALL
            .into_iter()
            .map(|r| (r, REFUSED[r.index()].load(Ordering::Relaxed)))
            .collect(),
    }
}

/// Scans `bytes` as a GRIB2 file and decodes every message the ingest would serve, as
/// [`super::ingest_file`] does a file but writing nothing: the values decoded, or why the
/// bytes are refused. The entry point of the `grib_scan` fuzz target, which holds that no
/// input panics or takes more memory than its limits allow.
///
/// ```
/// assert!(aq_grid::ingest::scan_bytes(b"GRIB\0\0\0\x02\0\0\0\0\0\0\0\x40").is_err());
/// ```
///
/// # Errors
/// Why the bytes are refused.
pub fn scan_bytes(bytes: &[u8]) -> Result<usize, String> {
    let refused = |(message, kind, why): scan::Refused| {
        format!(
            "{}{}: {why}",
            Refusal::name(kind),
            message
                .map(|m| format!(" at message {m}"))
                .unwrap_or_default()
        )
    };
    let grib2 =
        scan::open_reader(std::io::Cursor::new(bytes), bytes.len() as u64).map_err(refused)?;
    let digest: [u8; 32] = Sha256::digest(bytes).into();
    let plan = scan::plan(&grib2, &digest, EuropeModel::default()).map_err(refused)?;
    let mut decoded = 0;
    for batch in &plan.batches {
        for layer in batch.layers.values() {
            for source in layer.hours.values().flatten() {
                let (values, _) = scan::decode(&grib2, source.index, source.unit)?;
                decoded += values.len();
            }
        }
    }
    Ok(decoded)
}
