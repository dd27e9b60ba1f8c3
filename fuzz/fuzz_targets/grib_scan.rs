//! CAMS GRIB2 files, as an operator's download job or a bad disk may leave them in the
//! directory a server follows. Any bytes are scanned and every message the ingest would serve
//! decoded (`aq_grid::ingest::scan_bytes`) without a panic, and within memory: every size a
//! header declares is bounded before anything is allocated, so no input takes more than the
//! run's `-rss_limit_mb`. What is decoded is at most the limit of grid points a message.

#![no_main]

use aq_grid::ingest::{MAX_POINTS, scan_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(values) = scan_bytes(data) {
        // Each message holds at most MAX_POINTS values, and a message takes more than 20 bytes.
        let messages = data.len() / 20 + 1;
        assert!(
            values as u64 <= MAX_POINTS * messages as u64,
            "{values} values"
        );
    }
});
