//! Ingest of CAMS GRIB2 files as the Atmosphere Data Store delivers them: the global forecast
//! and the European forecast (see [`params`] for what is read and how units are converted).
//!
//! A file is read message by message with the pure-Rust `grib` crate: its index first (every
//! section but the packed data, so a truncated or malformed file is refused before anything is
//! decoded), then each message's values, decoded only when the message is one the grid
//! serves. The fields of a whole file are committed to the [`GridStore`] at once, so a file
//! refused part-way (a message that does not decode) leaves the store exactly as it was:
//! the data already held keeps serving.

pub mod params;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use grib::Grib2SubmessageDecoder;
use grib::def::grib2::GridDefinitionTemplate;

use crate::lattice::Lattice;
use crate::quantity::Quantity;
use crate::store::{CommitSummary, Field, GridStore, Layer, Product};

use self::params::Target;

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
}

/// What ingesting one file did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestReport {
    /// The file.
    pub file: PathBuf,
    /// Messages read.
    pub messages: usize,
    /// Messages skipped (parameters the grid does not serve), each with a log line.
    pub skipped: usize,
    /// What the store took.
    pub commit: CommitSummary,
}

/// File names taken from a directory: GRIB2 files by their usual extensions.
const EXTENSIONS: [&str; 3] = ["grib2", "grib", "grb2"];

/// Reads every GRIB2 field the grid serves from `path`, pollen species summed per type.
///
/// # Errors
/// [`IngestError`] naming the file (and the message) when it cannot be opened, is not GRIB2,
/// is truncated or corrupt, or a served message does not decode.
pub fn read_file(path: &Path) -> Result<(Vec<Field>, usize, usize), IngestError> {
    let refuse = |message: Option<usize>, reason: String| IngestError {
        file: path.to_owned(),
        message,
        reason,
    };
    let file = File::open(path).map_err(|e| refuse(None, e.to_string()))?;
    let size = file
        .metadata()
        .map_err(|e| refuse(None, e.to_string()))?
        .len();
    let grib2 = grib::from_reader(BufReader::new(file))
        .map_err(|e| refuse(None, format!("not a readable GRIB2 file: {e}")))?;
    if grib2.is_empty() {
        return Err(refuse(None, "no GRIB2 message".to_owned()));
    }
    // The reader stops quietly at a message cut short, so the messages it found must account
    // for every byte of the file: a download cut off mid-message is refused, not half-read.
    let mut lengths: BTreeMap<usize, u64> = BTreeMap::new();
    for ((message, _), sub) in grib2.iter() {
        lengths.insert(message, sub.indicator().total_length);
    }
    let read: u64 = lengths.values().sum();
    if read != size {
        return Err(refuse(
            Some(lengths.len() + 1),
            format!(
                "truncated or corrupt: {} complete messages hold {read} of the file's {size} bytes",
                lengths.len()
            ),
        ));
    }
    let mut fields: Vec<Field> = Vec::new();
    // Pollen species of one type, run and hour add up into one field.
    let mut pollen: BTreeMap<(Product, Quantity, i64, i64), usize> = BTreeMap::new();
    let (mut messages, mut skipped) = (0, 0);
    for (k, (_, message)) in grib2.iter().enumerate() {
        messages += 1;
        let n = k + 1;
        let s4: Vec<u8> = message.prod_def().iter().copied().collect();
        let discipline = message.indicator().discipline;
        let lattice = match lattice_of(&message) {
            Ok(l) => l,
            Err(why) => {
                tracing::info!(file = %path.display(), message = n, "skipped: {why}");
                skipped += 1;
                continue;
            }
        };
        let regional = !lattice.wraps();
        let recognised = match params::recognise(discipline, &s4, regional) {
            Ok(r) => r,
            Err(why) => {
                tracing::info!(file = %path.display(), message = n, "skipped: {why}");
                skipped += 1;
                continue;
            }
        };
        let run = reference_time(&message).map_err(|why| refuse(Some(n), why))?;
        let step = params::step_seconds(&s4).map_err(|why| refuse(Some(n), why))?;
        let valid = run + Duration::seconds(step);
        let decoder = Grib2SubmessageDecoder::from(message)
            .map_err(|e| refuse(Some(n), format!("cannot decode: {e}")))?;
        let decoded = decoder
            .dispatch()
            .map_err(|e| refuse(Some(n), format!("cannot decode: {e}")))?;
        let factor = recognised.factor;
        // Scale in f64, store in f32: the factor is exact in f64 and the result rounds once.
        #[allow(clippy::cast_possible_truncation)]
        let values: Box<[f32]> = decoded.map(|v| (f64::from(v) * factor) as f32).collect();
        let layer = Layer::new(lattice, values).map_err(|e| refuse(Some(n), e.to_string()))?;
        let product = if regional {
            Product::Europe
        } else {
            Product::Global
        };
        match recognised.target {
            Target::Quantity(quantity) => fields.push(Field {
                product,
                quantity,
                run,
                valid,
                layer,
            }),
            Target::PollenSpecies(kind) => {
                let quantity = Quantity::Pollen(kind);
                let key = (product, quantity, run.timestamp(), valid.timestamp());
                match pollen.get(&key) {
                    Some(&i) => {
                        fields[i].layer =
                            sum(&fields[i].layer, &layer).map_err(|why| refuse(Some(n), why))?;
                    }
                    None => {
                        pollen.insert(key, fields.len());
                        fields.push(Field {
                            product,
                            quantity,
                            run,
                            valid,
                            layer,
                        });
                    }
                }
            }
        }
    }
    Ok((fields, messages, skipped))
}

/// Two species of one pollen type on the same grid, added node by node.
fn sum(a: &Layer, b: &Layer) -> Result<Layer, String> {
    if a.lattice() != b.lattice() {
        return Err(format!(
            "pollen species on different grids ({} and {})",
            a.lattice(),
            b.lattice()
        ));
    }
    let values: Box<[f32]> = a
        .values()
        .iter()
        .zip(b.values())
        .map(|(x, y)| x + y)
        .collect();
    Layer::new(*a.lattice(), values).map_err(|e| e.to_string())
}

fn reference_time<R>(message: &grib::SubMessage<'_, R>) -> Result<DateTime<Utc>, String> {
    let s1 = message
        .section1()
        .map_err(|e| format!("identification section: {e}"))?;
    let t = s1.payload.ref_time;
    NaiveDate::from_ymd_opt(i32::from(t.year), u32::from(t.month), u32::from(t.day))
        .and_then(|d| d.and_hms_opt(u32::from(t.hour), u32::from(t.minute), u32::from(t.second)))
        .map(|t| t.and_utc())
        .ok_or_else(|| format!("reference time {t:?} is not a date"))
}

/// The message's regular latitude/longitude grid (template 3.0), values scanned west to east
/// along each row.
fn lattice_of<R>(message: &grib::SubMessage<'_, R>) -> Result<Lattice, String> {
    let s3 = message
        .section3()
        .map_err(|e| format!("grid definition: {e}"))?;
    let GridDefinitionTemplate::_3_0(t) = &s3.payload.template else {
        return Err(format!(
            "grid template 3.{} (only regular latitude/longitude, 3.0, is read)",
            s3.payload.template_num
        ));
    };
    let ll = &t.lat_lon;
    let mode = ll.scanning_mode.0;
    // Bit 1: columns east to west; bit 3: columns vary slowest; bit 4: rows alternate.
    if mode & 0b1011_0000 != 0 {
        return Err(format!(
            "scanning mode {mode:08b} (only west to east, row by row)"
        ));
    }
    let g = &ll.grid;
    // The basic angle is 0 or missing for every CAMS grid: micro-degrees.
    let unit = 1e-6;
    let (ni, nj) = (g.ni as usize, g.nj as usize);
    let lat1 = f64::from(g.first_point_lat) * unit;
    let lat2 = f64::from(g.last_point_lat) * unit;
    let lon1 = f64::from(g.first_point_lon) * unit;
    let lon2 = f64::from(g.last_point_lon) * unit;
    let dlat = if nj > 1 {
        (lat2 - lat1) / (nj - 1) as f64
    } else {
        0.0
    };
    let span = (lon2 - lon1).rem_euclid(360.0);
    let dlon = if ni > 1 { span / (ni - 1) as f64 } else { 0.0 };
    Lattice::new(lat1, dlat, nj, lon1, dlon, ni).map_err(|e| e.to_string())
}

/// Reads `path` and commits its fields to `store` at once.
///
/// # Errors
/// As [`read_file`]; the store is then unchanged.
pub fn ingest_file(store: &GridStore, path: &Path) -> Result<IngestReport, IngestError> {
    let (fields, messages, skipped) = read_file(path)?;
    let commit = store.commit(fields);
    tracing::info!(
        file = %path.display(),
        messages,
        skipped,
        taken = commit.taken,
        superseded = commit.superseded,
        "ingested"
    );
    Ok(IngestReport {
        file: path.to_owned(),
        messages,
        skipped,
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
        let refuse = |e: std::io::Error| IngestError {
            file: path.clone(),
            message: None,
            reason: e.to_string(),
        };
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
