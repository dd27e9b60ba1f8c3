//! Every size a GRIB2 header declares, checked against the bytes that are there and against
//! fixed limits before the `grib` crate reads a section or decodes a value: the crate allocates
//! what a header declares (a section's payload, a message's points), so a few hundred bytes that
//! declare 65,535 × 65,535 points would otherwise take the machine's memory.
//!
//! Per message: its length within the file, each section's within the message; section 3's
//! point count at most [`MAX_POINTS`] and, on a latitude/longitude grid, equal to `Ni × Nj`;
//! section 5's encoded values at most the grid's points, at most 32 bits each; a bitmap long
//! enough for the points; and for simple packing a section 7 long enough for its bits.

use std::io::{Read, Seek, SeekFrom};

use super::Refusal;

/// The most points a grid may have: 16 Mi, two and a half times the 0.1° global grid
/// (3600 × 1801 ≈ 6.5 M), far past the 0.4° global (≈ 0.4 M) and 0.1° European (≈ 0.3 M)
/// CAMS grids. At 4 bytes a value one decoded field stays under 64 MiB.
pub const MAX_POINTS: u64 = 1 << 24;

/// The widest value the decoders are given, in bits.
const MAX_BITS: u8 = 32;

/// Why a file was refused by its header: the message (from 1), what kind of refusal, and why.
pub(crate) type Refused = (Option<usize>, Refusal, String);

fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

/// Reads up to `n` bytes of the section at `offset` (its start), fewer when the section is
/// shorter: the fixed octets a check needs, never the whole of a large section.
fn head<R: Read + Seek>(r: &mut R, offset: u64, n: u64) -> std::io::Result<Vec<u8>> {
    r.seek(SeekFrom::Start(offset))?;
    let mut buf = Vec::new();
    r.by_ref().take(n).read_to_end(&mut buf)?;
    Ok(buf)
}

/// What the sections of one message declared so far: a repeated section 3 or 5 replaces the
/// one before it, as in the message's sub-messages.
#[derive(Default)]
struct Declared {
    points: Option<u64>,
    encoded: Option<u64>,
    simple_bits: Option<u8>,
}

/// Checks every message of the `size` bytes `r` holds; leaves the reader anywhere.
pub(crate) fn check<R: Read + Seek>(r: &mut R, size: u64) -> Result<(), Refused> {
    let io = |n: usize| {
        move |e: std::io::Error| (Some(n), Refusal::Unreadable, format!("cannot read: {e}"))
    };
    let mut at = 0u64;
    let mut n = 0usize;
    while at < size {
        n += 1;
        let refuse = |kind, why: String| Err((Some(n), kind, why));
        let indicator = head(r, at, 16).map_err(io(n))?;
        if indicator.len() < 16 || &indicator[..4] != b"GRIB" {
            return refuse(
                if n == 1 {
                    Refusal::Unreadable
                } else {
                    Refusal::Truncated
                },
                format!("no GRIB2 message at byte {at}"),
            );
        }
        if indicator[7] != 2 {
            return refuse(
                Refusal::Unreadable,
                format!("GRIB edition {}", indicator[7]),
            );
        }
        let length = be(&indicator[8..16]);
        let end = at
            .checked_add(length)
            .filter(|&e| e <= size && length >= 20);
        let Some(end) = end else {
            return refuse(
                Refusal::Truncated,
                format!(
                    "declares {length} bytes where the file has {} left",
                    size - at
                ),
            );
        };
        let mut declared = Declared::default();
        let mut s = at + 16;
        loop {
            if s + 4 == end {
                let tail = head(r, s, 4).map_err(io(n))?;
                if tail != b"7777" {
                    return refuse(Refusal::Truncated, "no end section".to_owned());
                }
                break;
            }
            let h = head(r, s, 5).map_err(io(n))?;
            if h.len() < 5 || s + 5 > end {
                return refuse(Refusal::Truncated, "a section cut short".to_owned());
            }
            let (len, number) = (be(&h[..4]), h[4]);
            if len < 5 || s + len > end - 4 {
                return refuse(
                    Refusal::Truncated,
                    format!("section {number} of {len} bytes does not fit its message"),
                );
            }
            check_section(r, s, len, number, &mut declared)
                .map_err(|(kind, why)| (Some(n), kind, why))?;
            s += len;
        }
        at = end;
    }
    Ok(())
}

/// Checks one section (`number`, at `s`, `len` bytes) against what the message declared.
fn check_section<R: Read + Seek>(
    r: &mut R,
    s: u64,
    len: u64,
    number: u8,
    declared: &mut Declared,
) -> Result<(), (Refusal, String)> {
    let read = |r: &mut R, n| {
        head(r, s, n).map_err(|e| (Refusal::Unreadable, format!("cannot read: {e}")))
    };
    let too_large = |why: String| Err((Refusal::Oversized, why));
    match number {
        3 => {
            let h = read(r, 38)?;
            let Some(points) = h.get(6..10).map(be) else {
                return Err((Refusal::Truncated, "section 3 too short".to_owned()));
            };
            if points > MAX_POINTS {
                return too_large(format!("{points} grid points (at most {MAX_POINTS})"));
            }
            let template = h.get(12..14).map(be);
            if template == Some(0) {
                let (Some(ni), Some(nj)) = (h.get(30..34).map(be), h.get(34..38).map(be)) else {
                    return Err((Refusal::Truncated, "section 3 too short".to_owned()));
                };
                if ni.checked_mul(nj) != Some(points) {
                    return too_large(format!(
                        "{ni} × {nj} grid nodes where section 3 declares {points} points"
                    ));
                }
            }
            declared.points = Some(points);
        }
        5 => {
            let h = read(r, 20)?;
            let (Some(encoded), Some(template)) = (h.get(5..9).map(be), h.get(9..11).map(be))
            else {
                return Err((Refusal::Truncated, "section 5 too short".to_owned()));
            };
            let points = declared.points.unwrap_or(0);
            if encoded > points {
                return too_large(format!(
                    "{encoded} encoded values for a grid of {points} points"
                ));
            }
            let bits = h.get(19).copied().unwrap_or(0);
            if bits > MAX_BITS {
                return too_large(format!("{bits} bits a value (at most {MAX_BITS})"));
            }
            if template == 200 {
                // Run-length packing: no CAMS product uses it, and the decoder's shifts
                // overflow on a header that lies about it.
                return Err((
                    Refusal::Undecodable,
                    "run-length packing (template 5.200), which no CAMS product uses".to_owned(),
                ));
            }
            if template == 2 || template == 3 {
                // Complex packing: a group count past the values is a header that lies, and
                // the decoder allocates per group.
                let h = read(r, 35)?;
                let groups = h.get(31..35).map_or(0, be);
                if groups > encoded {
                    return too_large(format!("{groups} groups for {encoded} values"));
                }
            }
            declared.encoded = Some(encoded);
            declared.simple_bits = (template == 0).then_some(bits);
        }
        6 => {
            let h = read(r, 6)?;
            if h.get(5) == Some(&0) {
                let points = declared.points.unwrap_or(0);
                // A section of 5 bytes that says a bitmap follows has none at all.
                let bitmap = len.saturating_sub(6);
                if bitmap < points.div_ceil(8) {
                    return Err((
                        Refusal::Truncated,
                        format!("a bitmap of {bitmap} bytes for {points} points"),
                    ));
                }
            }
        }
        7 => {
            if let (Some(bits), Some(encoded)) = (declared.simple_bits, declared.encoded) {
                let needed = (u64::from(bits) * encoded).div_ceil(8);
                if len - 5 < needed {
                    return Err((
                        Refusal::Truncated,
                        format!(
                            "section 7 holds {} bytes where {encoded} values of {bits} bits need {needed}",
                            len - 5
                        ),
                    ));
                }
            }
        }
        _ => {}
    }
    Ok(())
}
