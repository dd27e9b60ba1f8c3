//! The NDJSON output file: decoding any bytes never panics, reads the same however the input
//! is buffered, and what it reads encodes back to a file that decodes the same; encoding any
//! alert lines, in chunks of any size, gives a file of exactly those lines.

#![no_main]

use std::io::BufReader;

use alerts_core::ndjson::{AlertLine, NdjsonDecoder, NdjsonEncoder, count_lines, decode_all};
use alerts_core::rule::DataType;
use libfuzzer_sys::arbitrary::{self, Unstructured};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_decode(data);
    if let Ok((lines, chunk_bytes)) = lines_from(&mut Unstructured::new(data)) {
        check_encode(&lines, chunk_bytes);
    }
});

fn check_decode(data: &[u8]) {
    let decoded = decode_all(data);
    // The decoder reads the same through a small buffer, where lines straddle refills.
    for capacity in [1, 7] {
        let small: Vec<_> = NdjsonDecoder::new(BufReader::with_capacity(capacity, data)).collect();
        match (&decoded, small.into_iter().collect::<Result<Vec<_>, _>>()) {
            (Ok(all), Ok(small)) => assert_eq!(all, &small),
            (Err(all), Err(small)) => assert_eq!(all.line(), small.line()),
            (all, small) => panic!("whole: {all:?}; through {capacity} bytes: {small:?}"),
        }
    }
    match decoded {
        Ok(lines) => {
            assert!(lines.len() as u64 <= count_lines(data), "{data:?}");
            for line in &lines {
                assert!(line.lat.is_finite() && line.lon.is_finite(), "{line:?}");
            }
            check_encode(&lines, 64);
        }
        Err(e) => {
            let line = e.line();
            assert!(
                (1..=count_lines(data).max(1)).contains(&line),
                "{e} in {data:?}"
            );
        }
    }
}

/// Up to 16 lines of arbitrary text and finite coordinates, and a chunk size.
fn lines_from(u: &mut Unstructured<'_>) -> arbitrary::Result<(Vec<AlertLine>, usize)> {
    let chunk_bytes = usize::from(u.arbitrary::<u16>()?);
    let count = u.int_in_range(0..=16)?;
    let mut lines = Vec::with_capacity(count);
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    for _ in 0..count {
        lines.push(AlertLine {
            description: u.arbitrary()?,
            recommendation: u.arbitrary()?,
            lat: finite(u.arbitrary()?),
            lon: finite(u.arbitrary()?),
            id: u.arbitrary()?,
            data_type: if u.arbitrary()? {
                DataType::Aq
            } else {
                DataType::Pollen
            },
            custom_data: u.arbitrary()?,
            details: None,
        });
    }
    Ok((lines, chunk_bytes))
}

fn check_encode(lines: &[AlertLine], chunk_bytes: usize) {
    let mut encoder = NdjsonEncoder::with_chunk_bytes(chunk_bytes);
    let mut file = Vec::new();
    for line in lines {
        let chunk = encoder
            .push(&line.as_ref())
            .unwrap_or_else(|e| panic!("{line:?}: {e}"));
        if let Some(chunk) = chunk {
            assert!(chunk.len() >= chunk_bytes.max(1), "a chunk came early");
            assert_eq!(chunk.last(), Some(&b'\n'), "a chunk ends inside a line");
            file.extend_from_slice(&chunk);
        }
    }
    assert_eq!(encoder.lines(), lines.len() as u64);
    let total = encoder.bytes();
    file.extend_from_slice(&encoder.finish());
    assert_eq!(file.len() as u64, total);
    assert_eq!(count_lines(&file), lines.len() as u64, "one line per alert");
    assert!(std::str::from_utf8(&file).is_ok(), "the file is UTF-8");
    let back = decode_all(&file).unwrap_or_else(|e| panic!("{e} in {file:?}"));
    assert_eq!(back, lines);
}
