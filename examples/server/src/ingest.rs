//! `insights-server ingest FILE_OR_DIR...`: checks CAMS GRIB2 files and places the good ones in
//! the directory that servers with `--aq-source cams:DIR` follow, so that every replica takes
//! them on its next poll. A refused file is named with why, and nothing of it is placed.

use std::path::PathBuf;

use anyhow::{Result, bail};

use crate::config::Settings;
use crate::wiring::cams_dir;

/// Checks and places each GRIB2 file `paths` name (directories: their GRIB2 files).
pub(crate) fn run(settings: &Settings, paths: &[PathBuf]) -> Result<()> {
    let Some(dir) = cams_dir(&settings.aq_source)? else {
        bail!(
            "ingest places files where `--aq-source cams:DIR` reads them: set --aq-source cams:DIR"
        );
    };
    let files = aq_grid::list_files(paths)?;
    if files.is_empty() {
        bail!("no GRIB2 file in {paths:?}");
    }
    let mut refused = 0;
    for file in &files {
        match aq_grid::publish(file, &dir) {
            Ok(report) => println!(
                "{}: {} messages, {} fields, {} skipped -> {}",
                file.display(),
                report.messages,
                report.commit.taken,
                report.skipped,
                report.file.display()
            ),
            Err(e) => {
                eprintln!("refused: {e}");
                refused += 1;
            }
        }
    }
    if refused > 0 {
        bail!("{refused} of {} files refused", files.len());
    }
    Ok(())
}
