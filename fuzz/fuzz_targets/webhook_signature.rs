//! Webhook signature headers as a receiver checks them: a delivery verifies exactly when its
//! timestamp is a unix time within the tolerance and its `webhook-signature` carries the
//! project's own signature of the id, timestamp and body under a secret the receiver holds.
//!
//! An input is three lines, `webhook-id`, `webhook-timestamp` and `webhook-signature`, then the
//! body (any bytes). In the signature line `$0`, `$1` and `$2` stand for the genuine signature
//! of the input under secret 0, 1 or 2 (the receiver holds 0 and 1), so that mutations around
//! a valid signature are explored too. The receiver's clock reads 2026-05-01T12:00:00Z.

#![no_main]

use std::sync::LazyLock;

use alerts_core::webhook::{Verifier, VerifyError, sign};
use chrono::DateTime;
use identity_core::keys::WebhookSecret;
use libfuzzer_sys::fuzz_target;

const NOW: i64 = 1_777_636_800;

static SECRETS: LazyLock<[WebhookSecret; 3]> = LazyLock::new(|| {
    [
        "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
        "whsec_BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=",
        "whsec_CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk=",
    ]
    .map(|s| WebhookSecret::parse(s).unwrap_or_else(|e| panic!("fuzz secret {s}: {e}")))
});

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(4, |&b| b == b'\n');
    let (Some(msg_id), Some(timestamp), Some(signature)) =
        (parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    let body = parts.next().unwrap_or_default();
    let (Ok(msg_id), Ok(timestamp), Ok(signature)) = (
        std::str::from_utf8(msg_id),
        std::str::from_utf8(timestamp),
        std::str::from_utf8(signature),
    ) else {
        return;
    };
    let now = DateTime::from_timestamp(NOW, 0).unwrap_or_default();
    let verifier = Verifier::default();
    let held = &SECRETS[..2];

    let parsed = timestamp.trim().parse::<i64>();
    let signed_ts = parsed.clone().unwrap_or(NOW);
    let mut signature = signature.to_owned();
    for (i, secret) in SECRETS.iter().enumerate() {
        let placeholder = format!("${i}");
        if signature.contains(&placeholder) {
            signature = signature.replace(&placeholder, &sign(secret, msg_id, signed_ts, body));
        }
    }

    let result = verifier.verify(held, msg_id, timestamp, &signature, body, now);
    let expected = match parsed {
        Err(_) => Err(VerifyError::BadTimestamp(timestamp.to_owned())),
        Ok(ts) if NOW.saturating_sub(ts).unsigned_abs() > verifier.tolerance.as_secs() => {
            Err(VerifyError::OutsideTolerance {
                skew_s: NOW.saturating_sub(ts),
                tolerance_s: verifier.tolerance.as_secs(),
            })
        }
        Ok(ts) => {
            let genuine: Vec<String> = held.iter().map(|s| sign(s, msg_id, ts, body)).collect();
            if signature
                .split_ascii_whitespace()
                .any(|entry| genuine.iter().any(|g| g == entry))
            {
                Ok(())
            } else {
                Err(VerifyError::NoMatchingSignature)
            }
        }
    };
    assert_eq!(
        result, expected,
        "id {msg_id:?}, timestamp {timestamp:?}, signature {signature:?}, body {body:?}"
    );
});
