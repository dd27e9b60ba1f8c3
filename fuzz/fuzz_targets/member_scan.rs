//! The API body's early scan of its top-level member names, which refuses a body while it is
//! still arriving. Any body gets the same verdict however it is cut into frames; a body it
//! refuses is one every body's reader (alerts, route scores, planned routes) refuses too, and
//! the name it gives is the body's first top-level name that none of them has (shortened when
//! long); and it misses no such name that it can show: one without escapes, and without
//! control characters in what it shows.
//!
//! An input is a body; its last byte, when it is below 32, also says where the body is cut
//! into frames (the frame sizes cycle through the bits of that byte).

#![no_main]

use alerts_core::request::{AlertRequest, RequestLimits};
use insights_fuzz::top_level_names;
use insights_http::members::{MemberScan, body_members};
use libfuzzer_sys::fuzz_target;
use racs_core::{Limits, ScoreRequest};

/// Names longer than this are shown shortened.
const MAX_NAME_BYTES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let allowed = body_members();
    let verdict = MemberScan::new(allowed).feed(data);
    check_frames(data, &verdict);
    let Err(refused) = verdict else {
        check_missed_nothing(data);
        return;
    };
    assert!(
        ScoreRequest::from_json_slice(data, &Limits::default()).is_err(),
        "{refused:?} refused, but a route-scoring request reads the body"
    );
    assert!(
        AlertRequest::from_json_slice(data, &RequestLimits::default()).is_err(),
        "{refused:?} refused, but an alert request reads the body"
    );
    assert!(
        racs_core::journey_request::JourneyRequest::from_json_slice(data).is_err(),
        "{refused:?} refused, but a planned-route request reads the body"
    );
    if let Some(names) = top_level_names(data) {
        // Names with escapes are left to the readers; without a backslash there are none.
        let unknown = |n: &&String| !allowed.contains(&n.as_str()) && refusable(n);
        if data.contains(&b'\\') {
            assert!(
                names.iter().filter(unknown).any(|n| shown(n) == refused),
                "{refused:?} refused, but it is no unknown name of {names:?}"
            );
        } else {
            let first = names.iter().find(unknown);
            assert_eq!(
                Some(&refused),
                first.map(|n| shown(n)).as_ref(),
                "not the first unknown name of {names:?}"
            );
        }
    }
});

/// The part of a name a refusal shows: all of it, or as much of it as fits.
fn head(name: &str) -> &str {
    let mut cut = name.len().min(MAX_NAME_BYTES);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    &name[..cut]
}

/// A name as a refusal shows it.
fn shown(name: &str) -> String {
    if name.len() <= MAX_NAME_BYTES {
        name.to_owned()
    } else {
        format!("{}... ({} bytes)", head(name), name.len())
    }
}

/// Whether the scan can refuse `name`: it shows it, so a control character in what it would
/// show leaves the name to the readers.
fn refusable(name: &str) -> bool {
    !head(name).chars().any(char::is_control)
}

/// Cut into frames, the body gets the verdict it gets whole.
fn check_frames(data: &[u8], whole: &Result<(), String>) {
    let plan = match data.last() {
        Some(&b) if b < 32 => b,
        _ => 0b10110,
    };
    let mut scan = MemberScan::new(body_members());
    let mut verdict = Ok(());
    let mut rest = data;
    let mut k = 0u32;
    while !rest.is_empty() && verdict.is_ok() {
        let size = 1 + usize::from((plan >> (k % 5)) & 1) * 6 + (k % 3) as usize;
        let (frame, after) = rest.split_at(size.min(rest.len()));
        verdict = scan.feed(frame);
        rest = after;
        k += 1;
    }
    assert_eq!(&verdict, whole, "framed with plan {plan:#07b}");
}

/// A JSON object the scan lets through has no top-level name it could have refused: each is
/// allowed, or written with an escape, or shows a control character (left to the readers).
fn check_missed_nothing(data: &[u8]) {
    if data.contains(&b'\\') {
        return;
    }
    let Some(names) = top_level_names(data) else {
        return;
    };
    let allowed = body_members();
    for name in &names {
        assert!(
            allowed.contains(&name.as_str()) || !refusable(name),
            "{name:?} of {names:?} was let through"
        );
    }
}
