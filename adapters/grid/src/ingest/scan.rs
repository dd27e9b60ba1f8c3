//! The first pass over a file: its content digest, its index checked against its length, and
//! the plan of what it holds (products, runs, quantities, hours and the messages behind each),
//! with no value decoded yet.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;

use aq_core::Plant;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use grib::def::grib2::GridDefinitionTemplate;
use sha2::{Digest, Sha256};

use crate::catalog::{HOUR, hour_of};
use crate::field::Product;
use crate::lattice::Lattice;
use crate::quantity::Quantity;

use super::params::{self, EuropeModel, SkipReason, Target, Unit};
use super::{IngestError, Refusal, bounds};

/// An open GRIB2 file, indexed.
pub(crate) type Grib2File<R = BufReader<File>> = grib::Grib2<grib::SeekableGrib2Reader<R>>;

/// A message whose values go into a field: its index in the file (from 0), its unit, and the
/// weight of its values in the field (1, or less for an hour between two steps).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Source {
    pub(crate) index: usize,
    pub(crate) unit: Unit,
    pub(crate) weight: f64,
}

/// The widest gap between two steps whose hours between are filled: the global product's
/// fields come every 3 hours (some every 6), and the store answers whole hours alone.
pub(crate) const MAX_FILLED_GAP_HOURS: i64 = 6;

/// Fills each whole hour between two steps of a layer at most [`MAX_FILLED_GAP_HOURS`] apart
/// with the linear blend of the two, so that a 3-hourly field is answered at every hour on
/// the line between its steps, as an hourly one is between its hours.
fn fill_gaps(hours: &mut BTreeMap<i64, Vec<Source>>) {
    let steps: Vec<(i64, Vec<Source>)> = hours.iter().map(|(&t, s)| (t, s.clone())).collect();
    for pair in steps.windows(2) {
        let [(a, before), (b, after)] = pair else {
            continue;
        };
        let gap = (b - a) / HOUR;
        if !(2..=MAX_FILLED_GAP_HOURS).contains(&gap) {
            continue;
        }
        for k in 1..gap {
            let w = k as f64 / gap as f64;
            let blend = before
                .iter()
                .map(|s| Source {
                    weight: s.weight * (1.0 - w),
                    ..*s
                })
                .chain(after.iter().map(|s| Source {
                    weight: s.weight * w,
                    ..*s
                }))
                .collect();
            hours.insert(a + k * HOUR, blend);
        }
    }
}

/// One quantity of one product and run: its grid and, per valid hour, the messages summed
/// into it (the species of a pollen type; one message otherwise).
#[derive(Debug, Clone)]
pub(crate) struct PlannedLayer {
    pub(crate) lattice: Lattice,
    pub(crate) hours: BTreeMap<i64, Vec<Source>>,
}

/// What a file holds of one product and run.
#[derive(Debug, Clone)]
pub(crate) struct PlannedBatch {
    pub(crate) product: Product,
    pub(crate) run: DateTime<Utc>,
    pub(crate) id: u64,
    pub(crate) layers: BTreeMap<Quantity, PlannedLayer>,
}

/// What a file holds.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) messages: usize,
    pub(crate) skipped: BTreeMap<SkipReason, usize>,
    pub(crate) batches: Vec<PlannedBatch>,
}

/// Why a file is refused: the message (from 1) at fault when one is, the kind, and why.
pub(crate) type Refused = (Option<usize>, Refusal, String);

/// Checks every size the `size` bytes of `reader` declare ([`bounds::check`]), then indexes
/// them, refusing bytes whose messages do not account for every one.
pub(crate) fn open_reader<R: Read + Seek>(
    mut reader: R,
    size: u64,
) -> Result<Grib2File<R>, Refused> {
    if size == 0 {
        return Err((None, Refusal::Unreadable, "no GRIB2 message".to_owned()));
    }
    bounds::check(&mut reader, size)?;
    reader
        .seek(std::io::SeekFrom::Start(0))
        .map_err(|e| (None, Refusal::Unreadable, e.to_string()))?;
    let grib2 = grib::from_reader(reader).map_err(|e| {
        (
            None,
            Refusal::Unreadable,
            format!("not a readable GRIB2 file: {e}"),
        )
    })?;
    if grib2.is_empty() {
        return Err((None, Refusal::Unreadable, "no GRIB2 message".to_owned()));
    }
    // The reader stops quietly at a message cut short, so the messages it found must account
    // for every byte: a download cut off mid-message is refused, not half-read.
    let mut lengths: BTreeMap<usize, u64> = BTreeMap::new();
    for ((message, _), sub) in grib2.iter() {
        lengths.insert(message, sub.indicator().total_length);
    }
    let read: u64 = lengths.values().sum();
    if read != size {
        return Err((
            Some(lengths.len() + 1),
            Refusal::Truncated,
            format!(
                "truncated or corrupt: {} complete messages hold {read} of the file's {size} bytes",
                lengths.len()
            ),
        ));
    }
    Ok(grib2)
}

/// Opens and indexes `path` (see [`open_reader`]).
pub(crate) fn open(path: &Path) -> Result<Grib2File, IngestError> {
    let refuse = |(message, kind, reason): Refused| IngestError::new(path, message, kind, reason);
    let file = File::open(path).map_err(|e| refuse((None, Refusal::Unreadable, e.to_string())))?;
    let size = file
        .metadata()
        .map_err(|e| refuse((None, Refusal::Unreadable, e.to_string())))?
        .len();
    open_reader(BufReader::new(file), size).map_err(refuse)
}

/// The SHA-256 of the file's bytes, read in pieces.
fn digest(path: &Path) -> Result<[u8; 32], IngestError> {
    let refuse =
        |e: std::io::Error| IngestError::new(path, None, Refusal::Unreadable, e.to_string());
    let mut file = File::open(path).map_err(refuse)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(refuse)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().into())
}

/// A batch's id: from the file's digest, the product and the run.
fn batch_id(digest: &[u8; 32], product: Product, run: DateTime<Utc>) -> u64 {
    let mut h = Sha256::new();
    h.update(digest);
    h.update(product.name().as_bytes());
    h.update(run.timestamp().to_be_bytes());
    let d: [u8; 32] = h.finalize().into();
    u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

/// The plan of `path` for a store that reads the European model `model`: every message read
/// from the index, served ones placed, the others counted by reason.
///
/// # Errors
/// [`IngestError`] naming the file (and the message) when it cannot be opened, is not GRIB2,
/// declares sizes past its bytes or the limits, a served message's time cannot be read, or one
/// quantity of one run comes on two grids.
pub(crate) fn scan(path: &Path, model: EuropeModel) -> Result<Plan, IngestError> {
    let grib2 = open(path)?;
    let digest = digest(path)?;
    plan(&grib2, &digest, model)
        .map_err(|(message, kind, reason)| IngestError::new(path, message, kind, reason))
}

/// The plan of an open file whose bytes have `digest`.
pub(crate) fn plan<R: Read + Seek>(
    grib2: &Grib2File<R>,
    digest: &[u8; 32],
    model: EuropeModel,
) -> Result<Plan, Refused> {
    let mut batches: BTreeMap<(Product, i64), PlannedBatch> = BTreeMap::new();
    let mut skipped: BTreeMap<SkipReason, usize> = BTreeMap::new();
    let mut messages = 0;
    for (index, (_, message)) in grib2.iter().enumerate() {
        messages += 1;
        let n = index + 1;
        let s4: Vec<u8> = message.prod_def().iter().copied().collect();
        let discipline = message.indicator().discipline;
        let id = message.identification();
        let recognised = params::product(id.centre_id(), id.subcentre_id(), model)
            .and_then(|product| params::recognise(product, discipline, &s4))
            .and_then(|r| {
                lattice_of(&message)
                    .map(|l| (l, r))
                    .map_err(|why| (SkipReason::OtherGrid, why))
            });
        let (lattice, recognised) = match recognised {
            Ok(r) => r,
            Err((reason, why)) => {
                tracing::debug!(message = n, reason = reason.name(), "skipped: {why}");
                *skipped.entry(reason).or_default() += 1;
                continue;
            }
        };
        let bad_time = |why| (Some(n), Refusal::BadTime, why);
        let run = reference_time(&message).map_err(bad_time)?;
        let step = params::step_seconds(&s4).map_err(bad_time)?;
        let valid = run
            .checked_add_signed(Duration::seconds(step))
            .ok_or_else(|| bad_time(format!("{run} + {step} s is past the calendar")))?;
        let valid = hour_of(valid);
        let product = recognised.product;
        // A species adds up into its type and is kept as its plant too; grass, the one plant of
        // its type, is the type's layer.
        let (quantity, summed, plant) = match recognised.target {
            Target::Quantity(q) => (q, false, None),
            Target::PollenSpecies(plant) => (
                Quantity::Pollen(plant.pollen_type()),
                true,
                (plant != Plant::Grass).then_some(Quantity::Plant(plant)),
            ),
        };
        let batch = batches
            .entry((product, run.timestamp()))
            .or_insert_with(|| PlannedBatch {
                product,
                run,
                id: batch_id(digest, product, run),
                layers: BTreeMap::new(),
            });
        let source = Source {
            index,
            unit: recognised.unit,
            weight: 1.0,
        };
        let layers = [(quantity, summed)]
            .into_iter()
            .chain(plant.map(|p| (p, false)));
        for (quantity, summed) in layers {
            let layer = batch.layers.entry(quantity).or_insert(PlannedLayer {
                lattice,
                hours: BTreeMap::new(),
            });
            if layer.lattice != lattice {
                return Err((
                    Some(n),
                    Refusal::Inconsistent,
                    format!(
                        "{} of one run on two grids ({} and {lattice})",
                        quantity.name(),
                        layer.lattice
                    ),
                ));
            }
            let sources = layer.hours.entry(valid).or_default();
            // Species of one pollen type add up; of anything else a later message replaces one
            // before it.
            if !summed {
                sources.clear();
            }
            sources.push(source);
        }
    }
    for layer in batches.values_mut().flat_map(|b| b.layers.values_mut()) {
        fill_gaps(&mut layer.hours);
    }
    Ok(Plan {
        messages,
        skipped,
        batches: batches.into_values().collect(),
    })
}

/// The values of message `index` of `grib2` in the grid's unit: scaled in `f64` and rounded
/// once to `f32` (the encoding's one rounding, see [`crate::chunk`]); and whether a field
/// declared in kg m⁻³ was read as µg/m³ by its magnitude. At most `points` values are decoded:
/// the bounds checked at opening keep that the grid's.
pub(crate) fn decode<R: Read + Seek>(
    grib2: &Grib2File<R>,
    index: usize,
    unit: Unit,
) -> Result<(Vec<f32>, bool), String> {
    let (_, message) = grib2
        .iter()
        .nth(index)
        .ok_or_else(|| "the message is gone from the file".to_owned())?;
    let decoder =
        grib::Grib2SubmessageDecoder::from(message).map_err(|e| format!("cannot decode: {e}"))?;
    let decoded = decoder
        .dispatch()
        .map_err(|e| format!("cannot decode: {e}"))?;
    let raw: Vec<f32> = decoded.take(bounds::MAX_POINTS as usize).collect();
    let (factor, reread) = unit.factor(&raw);
    #[allow(clippy::cast_possible_truncation)]
    let values = raw
        .iter()
        .map(|&v| (f64::from(v) * factor) as f32)
        .collect();
    Ok((values, reread))
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
