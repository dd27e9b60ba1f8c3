//! The NDJSON output file: one alert object per `\n`-terminated line, UTF-8, with the fields of
//! the spec in its order: `description`, `recommendation`, `lat`, `lon`, `id`, `data_type`,
//! `custom_data`; then, for programs, the members of [`AlertDetails`] (which rule, when, and
//! the episode with its index values), which a reader of the spec's members alone can ignore.
//!
//! [`NdjsonEncoder`] writes alerts as they are produced into one reusable buffer and hands it
//! out in chunks of about [`DEFAULT_CHUNK_BYTES`], so memory stays flat however many alerts a
//! request yields. [`NdjsonDecoder`] reads the same format line by line (the webhook receiver
//! example and the tests use it); its errors name the line.
//!
//! ```
//! use alerts_core::ndjson::{decode_all, AlertLine, NdjsonEncoder};
//! use alerts_core::rule::DataType;
//!
//! let line = AlertLine {
//!     description: "Today grass pollen levels will slightly rise.".into(),
//!     recommendation: "Pollen stays low; most allergy sufferers will not be affected.".into(),
//!     lat: 48.85,
//!     lon: 2.35,
//!     id: "user-17".into(),
//!     data_type: DataType::Pollen,
//!     custom_data: "{}".into(),
//!     details: None,
//! };
//! let mut encoder = NdjsonEncoder::new();
//! encoder.encode(&line.as_ref()).unwrap();
//! let file = encoder.finish();
//! assert_eq!(
//!     std::str::from_utf8(&file).unwrap(),
//!     "{\"description\":\"Today grass pollen levels will slightly rise.\",\
//!       \"recommendation\":\"Pollen stays low; most allergy sufferers will not be affected.\",\
//!       \"lat\":48.85,\"lon\":2.35,\"id\":\"user-17\",\"data_type\":\"pollen\",\"custom_data\":\"{}\"}\n"
//! );
//! assert_eq!(decode_all(&file).unwrap(), vec![line]);
//! ```

use std::io::BufRead;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::rule::DataType;

mod details;

pub use details::{AlertDetails, IndexReading};

/// The chunk size the encoder aims for: 64 KiB.
pub const DEFAULT_CHUNK_BYTES: usize = 64 * 1024;

/// One line of the output file, owned: what the decoder returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlertLine {
    /// The alert's description.
    pub description: String,
    /// The predefined recommendation.
    pub recommendation: String,
    /// The point's latitude.
    pub lat: f64,
    /// The point's longitude.
    pub lon: f64,
    /// The point's `id` from the request.
    pub id: String,
    /// `aq` or `pollen`.
    pub data_type: DataType,
    /// The point's `custom_data` as JSON text (`{}` when none was sent).
    pub custom_data: String,
    /// The members for programs, after the spec's; `None` in a file written without them, or
    /// whose members for programs do not parse (a reader of the spec's seven is never refused
    /// for what follows them).
    #[serde(flatten)]
    pub details: Option<AlertDetails>,
}

impl AlertLine {
    /// A borrowed view, for the encoder.
    #[must_use]
    pub fn as_ref(&self) -> AlertLineRef<'_> {
        AlertLineRef {
            description: &self.description,
            recommendation: &self.recommendation,
            lat: self.lat,
            lon: self.lon,
            id: &self.id,
            data_type: self.data_type,
            custom_data: &self.custom_data,
            details: self.details.as_ref(),
        }
    }
}

/// One line of the output file, borrowed from the point and the rendered message, so that
/// encoding an alert copies nothing but the bytes it writes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AlertLineRef<'a> {
    /// The alert's description.
    pub description: &'a str,
    /// The predefined recommendation.
    pub recommendation: &'a str,
    /// The point's latitude.
    pub lat: f64,
    /// The point's longitude.
    pub lon: f64,
    /// The point's `id` from the request.
    pub id: &'a str,
    /// `aq` or `pollen`.
    pub data_type: DataType,
    /// The point's `custom_data` as JSON text.
    pub custom_data: &'a str,
    /// The members for programs, after the spec's.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub details: Option<&'a AlertDetails>,
}

impl AlertLineRef<'_> {
    /// An owned copy.
    #[must_use]
    pub fn to_owned_line(&self) -> AlertLine {
        AlertLine {
            description: self.description.to_owned(),
            recommendation: self.recommendation.to_owned(),
            lat: self.lat,
            lon: self.lon,
            id: self.id.to_owned(),
            data_type: self.data_type,
            custom_data: self.custom_data.to_owned(),
            details: self.details.cloned(),
        }
    }
}

/// An alert that could not be encoded. With the types of this module it does not happen in
/// practice (strings and finite numbers always serialise); it exists so that a surprise is a
/// value, never a panic.
#[derive(Debug, Error)]
#[error("could not encode an alert line: {0}")]
pub struct EncodeError(#[from] serde_json::Error);

/// Streams alert lines into chunks of about `chunk_bytes`.
///
/// Memory stays at about one chunk however many lines pass through: each chunk handed out by
/// [`NdjsonEncoder::take_chunk`] is the filled buffer itself (no copy), and its memory returns
/// to the allocator for the next chunk once it has been written and dropped.
#[derive(Debug)]
pub struct NdjsonEncoder {
    buf: Vec<u8>,
    chunk_bytes: usize,
    lines: u64,
    bytes: u64,
}

impl Default for NdjsonEncoder {
    fn default() -> Self {
        Self::new()
    }
}

impl NdjsonEncoder {
    /// An encoder handing out chunks of about [`DEFAULT_CHUNK_BYTES`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_chunk_bytes(DEFAULT_CHUNK_BYTES)
    }

    /// An encoder handing out chunks once `chunk_bytes` (at least 1) are buffered.
    #[must_use]
    pub fn with_chunk_bytes(chunk_bytes: usize) -> Self {
        let chunk_bytes = chunk_bytes.max(1);
        Self {
            buf: Vec::with_capacity(capacity(chunk_bytes)),
            chunk_bytes,
            lines: 0,
            bytes: 0,
        }
    }

    /// Appends one line.
    ///
    /// # Errors
    /// [`EncodeError`] if the line cannot be serialised; the buffer is left as it was.
    pub fn encode(&mut self, line: &AlertLineRef<'_>) -> Result<(), EncodeError> {
        let start = self.buf.len();
        if let Err(e) = serde_json::to_writer(&mut self.buf, line) {
            self.buf.truncate(start);
            return Err(e.into());
        }
        self.buf.push(b'\n');
        self.lines += 1;
        self.bytes += (self.buf.len() - start) as u64;
        Ok(())
    }

    /// Appends one line and returns a chunk if the buffer has reached the chunk size.
    ///
    /// # Errors
    /// As [`NdjsonEncoder::encode`].
    pub fn push(&mut self, line: &AlertLineRef<'_>) -> Result<Option<Bytes>, EncodeError> {
        self.encode(line)?;
        Ok(self.take_chunk())
    }

    /// The buffered lines, if they have reached the chunk size. Chunks always end at a line
    /// boundary.
    pub fn take_chunk(&mut self) -> Option<Bytes> {
        if self.buf.len() >= self.chunk_bytes {
            // The filled buffer becomes the chunk without a copy; the next one comes from the
            // allocator, which hands back the memory of chunks already written and dropped.
            let next = Vec::with_capacity(capacity(self.chunk_bytes));
            Some(Bytes::from(std::mem::replace(&mut self.buf, next)))
        } else {
            None
        }
    }

    /// Lines encoded so far.
    #[must_use]
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Bytes encoded so far, handed out or not.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whatever is still buffered (possibly empty).
    #[must_use]
    pub fn finish(self) -> Bytes {
        Bytes::from(self.buf)
    }
}

/// A chunk's allocation: one line past the threshold fits without growing in the common case.
fn capacity(chunk_bytes: usize) -> usize {
    chunk_bytes.saturating_add(1024)
}

/// A line of the file that could not be read.
#[derive(Debug, Error)]
pub enum DecodeError {
    /// The input could not be read.
    #[error("line {line}: could not read: {source}")]
    Io {
        /// The 1-based line number.
        line: u64,
        /// The reader's error.
        source: std::io::Error,
    },
    /// The line is not an alert object of this format.
    #[error("line {line}: not an alert line: {source}")]
    Json {
        /// The 1-based line number.
        line: u64,
        /// What the JSON parser said.
        source: serde_json::Error,
    },
}

impl DecodeError {
    /// The 1-based number of the offending line.
    #[must_use]
    pub fn line(&self) -> u64 {
        match self {
            DecodeError::Io { line, .. } | DecodeError::Json { line, .. } => *line,
        }
    }
}

/// Reads alert lines one at a time from a buffered reader, reusing one line buffer. Empty
/// lines (and a final line without its `\n`) are accepted; `\r\n` endings too.
#[derive(Debug)]
pub struct NdjsonDecoder<R> {
    reader: R,
    buf: Vec<u8>,
    line: u64,
    failed: bool,
}

impl<R: BufRead> NdjsonDecoder<R> {
    /// A decoder over `reader`.
    pub fn new(reader: R) -> Self {
        Self {
            reader,
            buf: Vec::new(),
            line: 0,
            failed: false,
        }
    }
}

impl<R: BufRead> Iterator for NdjsonDecoder<R> {
    type Item = Result<AlertLine, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            self.buf.clear();
            self.line += 1;
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(source) => {
                    self.failed = true;
                    return Some(Err(DecodeError::Io {
                        line: self.line,
                        source,
                    }));
                }
            }
            let mut text: &[u8] = &self.buf;
            if let Some(rest) = text.strip_suffix(b"\n") {
                text = rest;
            }
            if let Some(rest) = text.strip_suffix(b"\r") {
                text = rest;
            }
            if text.is_empty() {
                continue;
            }
            return Some(serde_json::from_slice(text).map_err(|source| {
                self.failed = true;
                DecodeError::Json {
                    line: self.line,
                    source,
                }
            }));
        }
    }
}

/// Decodes a whole file.
///
/// # Errors
/// The first [`DecodeError`], naming its line.
pub fn decode_all(bytes: &[u8]) -> Result<Vec<AlertLine>, DecodeError> {
    NdjsonDecoder::new(bytes).collect()
}

/// The number of lines in an NDJSON file: what a file written earlier holds, without decoding
/// it.
#[must_use]
pub fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    let unterminated = u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
    newlines + unterminated
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn details(i: usize) -> AlertDetails {
        use crate::change::{ChangeTime, Direction};
        use chrono::TimeZone;
        let at = chrono::Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
        let reading = |v: f64| IndexReading {
            code: "cleanliness".into(),
            value: Some(v),
            category: "Low".into(),
            at_least: false,
        };
        AlertDetails {
            rule_id: crate::ids::RuleId(uuid::Uuid::from_u128(i as u128)),
            evaluated_at: at,
            direction: Direction::Deterioration,
            subject: "aq".into(),
            starts_at: ChangeTime::hour_of(at + chrono::Duration::hours(2)),
            index: reading(38.0),
            peak_at: ChangeTime::Day(at.date_naive()),
            peak: reading(21.0),
            ends_at: None,
            duration: 3,
            probability: Some(0.84),
            language: i18n_core::Language::English,
        }
    }

    fn line(i: usize) -> AlertLine {
        AlertLine {
            description: format!(
                "In {i} hours the air quality is expected to be worse (3{i} AQI)."
            ),
            recommendation: "Limit \"prolonged\" outdoor exertion.\nReally.".into(),
            lat: -33.8688 + i as f64,
            lon: 151.2093,
            id: format!("pt-{i}"),
            data_type: if i.is_multiple_of(2) {
                DataType::Aq
            } else {
                DataType::Pollen
            },
            custom_data: r#"{"k":"v é"}"#.into(),
            details: i.is_multiple_of(3).then(|| details(i)),
        }
    }

    #[test]
    fn fields_appear_in_spec_order() {
        let mut enc = NdjsonEncoder::new();
        enc.encode(&line(1).as_ref()).unwrap();
        let text = String::from_utf8(enc.finish().to_vec()).unwrap();
        let order = [
            "description",
            "recommendation",
            "lat",
            "lon",
            "id",
            "data_type",
            "custom_data",
        ];
        let positions: Vec<usize> = order
            .iter()
            .map(|f| text.find(&format!("\"{f}\":")).unwrap())
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert!(text.ends_with("}\n"));
        assert_eq!(
            text.matches('\n').count(),
            1,
            "embedded newlines are escaped"
        );
        assert!(
            text.contains(r#""custom_data":"{\"k\":\"v é\"}""#),
            "{text}"
        );
    }

    #[test]
    fn chunks_end_on_line_boundaries_and_reuse_memory() {
        let mut enc = NdjsonEncoder::with_chunk_bytes(1000);
        let mut file = Vec::new();
        let mut chunks = 0;
        for i in 0..200 {
            if let Some(chunk) = enc.push(&line(i).as_ref()).unwrap() {
                assert!(chunk.len() >= 1000);
                assert!(
                    chunk.len() < 1000 + 400,
                    "one line past the threshold at most"
                );
                assert_eq!(chunk.last(), Some(&b'\n'));
                file.extend_from_slice(&chunk);
                chunks += 1;
            }
        }
        assert!(chunks > 10);
        assert_eq!(enc.lines(), 200);
        let total = enc.bytes();
        file.extend_from_slice(&enc.finish());
        assert_eq!(file.len() as u64, total);
        assert_eq!(count_lines(&file), 200);
        let back = decode_all(&file).unwrap();
        assert_eq!(back, (0..200).map(line).collect::<Vec<_>>());
    }

    #[test]
    fn decoder_names_the_bad_line() {
        let mut file = Vec::new();
        let mut enc = NdjsonEncoder::new();
        enc.encode(&line(1).as_ref()).unwrap();
        file.extend_from_slice(&enc.finish());
        file.extend_from_slice(b"\n{\"description\": 5}\n");
        let err = decode_all(&file).unwrap_err();
        assert_eq!(err.line(), 3);
        assert!(
            err.to_string().starts_with("line 3: not an alert line"),
            "{err}"
        );
    }

    #[test]
    fn decoder_accepts_crlf_and_a_missing_final_newline() {
        let mut enc = NdjsonEncoder::new();
        enc.encode(&line(1).as_ref()).unwrap();
        enc.encode(&line(2).as_ref()).unwrap();
        let text = String::from_utf8(enc.finish().to_vec()).unwrap();
        let crlf = text.trim_end().replace('\n', "\r\n");
        assert_eq!(decode_all(crlf.as_bytes()).unwrap(), vec![line(1), line(2)]);
        assert_eq!(count_lines(crlf.as_bytes()), 2);
        assert_eq!(count_lines(b""), 0);
        assert!(decode_all(b"").unwrap().is_empty());
    }

    fn arb_line() -> impl Strategy<Value = AlertLine> {
        (
            ".{0,40}",
            ".{0,20}",
            -90.0f64..=90.0,
            -180.0f64..=180.0,
            "[^\u{0}]{1,30}",
            any::<bool>(),
            prop::collection::btree_map("[a-z]{1,5}", any::<i32>(), 0..3),
            prop::option::of(0usize..1000),
        )
            .prop_map(
                |(description, recommendation, lat, lon, id, aq, cd, details_of)| AlertLine {
                    description,
                    recommendation,
                    lat,
                    lon,
                    id,
                    data_type: if aq { DataType::Aq } else { DataType::Pollen },
                    custom_data: serde_json::to_string(&cd).unwrap(),
                    details: details_of.map(details),
                },
            )
    }

    #[test]
    fn members_for_programs_that_do_not_parse_read_as_absent_and_the_specs_stay() {
        // A reader of the spec's seven members is never refused for what follows them.
        let line = br#"{"description":"d","recommendation":"r","lat":1.0,"lon":2.0,"id":"p","data_type":"aq","custom_data":"{}","rule_id":"not a uuid","duration":"x"}"#;
        let decoded = decode_all(line).unwrap();
        assert_eq!(decoded[0].details, None);
        assert_eq!(decoded[0].id, "p");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn encoded_alerts_decode_to_themselves(
            lines in prop::collection::vec(arb_line(), 0..40),
            chunk in 1usize..2000,
        ) {
            let mut enc = NdjsonEncoder::with_chunk_bytes(chunk);
            let mut file = Vec::new();
            for l in &lines {
                if let Some(c) = enc.push(&l.as_ref()).unwrap() {
                    file.extend_from_slice(&c);
                }
            }
            file.extend_from_slice(&enc.finish());
            prop_assert_eq!(count_lines(&file), lines.len() as u64);
            prop_assert_eq!(file.iter().filter(|&&b| b == b'\n').count(), lines.len());
            prop_assert!(std::str::from_utf8(&file).is_ok());
            prop_assert_eq!(decode_all(&file).unwrap(), lines);
        }
    }
}
