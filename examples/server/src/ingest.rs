//! `insights-server ingest FILE_OR_DIR...`: reads CAMS GRIB2 files and writes them into the grid
//! store that servers with `--aq-source cams:DIR` (or `cams:s3://BUCKET/PREFIX`) read, as chunks
//! and then a manifest per run, so every replica serves the one ingest on its next poll. A
//! refused file is named with why, and nothing of it is served. Runs past retention are
//! purged afterwards.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::config::Settings;
use crate::wiring::{CAMS_RETENTION_HOURS, cams_store, open_grid};

/// Ingests each GRIB2 file `paths` name (directories: their GRIB2 files).
pub(crate) async fn run(settings: &Settings, paths: &[PathBuf]) -> Result<()> {
    let Some(location) = cams_store(&settings.aq_source)? else {
        bail!(
            "ingest writes the grids that `--aq-source cams:DIR` (or cams:s3://BUCKET/PREFIX) \
             serves: set --aq-source cams:DIR"
        );
    };
    let files = aq_grid::list_files(paths)?;
    if files.is_empty() {
        bail!("no GRIB2 file in {paths:?}");
    }
    let store = open_grid(&location, settings)?;
    let mut refused = 0;
    for file in &files {
        match aq_grid::ingest_file(&store, file).await {
            Ok(report) => println!(
                "{}: {} messages, {} fields, {} skipped -> {location}{}",
                file.display(),
                report.messages,
                report.commit.taken,
                report.skipped,
                if report.written == 0 {
                    " (stored already)"
                } else {
                    ""
                }
            ),
            Err(e) => {
                eprintln!("refused: {e}");
                refused += 1;
            }
        }
    }
    let cutoff = chrono::Utc::now() - chrono::Duration::hours(CAMS_RETENTION_HOURS);
    let purged = store
        .purge(cutoff)
        .await
        .with_context(|| format!("cannot purge the runs past retention from {location}"))?;
    if purged > 0 {
        println!("{purged} batches past retention purged from {location}");
    }
    if refused > 0 {
        bail!("{refused} of {} files refused", files.len());
    }
    Ok(())
}
