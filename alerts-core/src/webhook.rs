//! The INSIGHT_OUTPUT webhook: its payload and its Standard Webhooks signature.
//!
//! Each delivery carries three headers: `webhook-id` (one id per delivery, the same on every
//! retry, derived from the token by [`message_id`]), `webhook-timestamp` (unix seconds of the
//! attempt) and `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`
//! under the key's secret, one such entry per signing secret, separated by spaces, so that a
//! receiver still holding the previous secret during a rotation keeps verifying.
//!
//! ```
//! use identity_core::keys::WebhookSecret;
//! use alerts_core::webhook::{sign, Verifier};
//!
//! let secret = WebhookSecret::parse("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD").unwrap();
//! let body = br#"{"email":"test@example.com","username":"test_user"}"#;
//! let signature = sign(&secret, "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk", 1_649_367_553, body);
//! assert_eq!(signature, "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=");
//!
//! let now = chrono::DateTime::from_timestamp(1_649_367_600, 0).unwrap();
//! Verifier::default()
//!     .verify(&[secret], "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk", "1649367553", &signature, body, now)
//!     .unwrap();
//! ```

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use identity_core::keys::WebhookSecret;
use serde::Serialize;
use sha2::Sha256;
use thiserror::Error;

use crate::ids::Token;
use crate::ports::WebhookRequest;

/// The header carrying the delivery's id.
pub const HEADER_ID: &str = "webhook-id";
/// The header carrying the attempt's unix time in seconds.
pub const HEADER_TIMESTAMP: &str = "webhook-timestamp";
/// The header carrying the signatures.
pub const HEADER_SIGNATURE: &str = "webhook-signature";
/// The header naming the forecast source the delivered alerts were evaluated from, as
/// [`aq_core::SourceInfo::label`] writes it (`open-meteo`, `demo; synthetic`). Not signed: it
/// says where the data came from, the signature says who sent it.
pub const HEADER_DATA_SOURCE: &str = "insights-data-source";
/// The header a test delivery (sent from the dashboard, carrying no file) has, set to `true`;
/// real deliveries never have it. Beside the body's `"TEST": true`, so a receiver can route a
/// test before it parses the body.
pub const HEADER_TEST: &str = "insights-test";

type HmacSha256 = Hmac<Sha256>;

/// The `webhook-id` of a token's delivery: `msg_` and the token's 32 hex digits. Derived from
/// the token alone, so every retry and every re-processing of the job sends the same id and
/// receivers can deduplicate on it.
///
/// ```
/// use alerts_core::ids::Token;
/// use alerts_core::webhook::message_id;
///
/// let token: Token = "6f1c2b0e-8a4d-4e0f-9c3b-2d7e5a1f0b9c".parse().unwrap();
/// assert_eq!(message_id(token), "msg_6f1c2b0e8a4d4e0f9c3b2d7e5a1f0b9c");
/// ```
#[must_use]
pub fn message_id(token: Token) -> String {
    format!("msg_{}", token.uuid().simple())
}

/// The JSON body of an INSIGHT_OUTPUT delivery.
///
/// `KEY` carries the key's public prefix (`ik_` and eight hex digits), not the key itself:
/// the stores keep only the key's SHA-256, and a webhook must not carry a credential.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeliveryPayload<'a> {
    /// The API key's public prefix.
    #[serde(rename = "KEY")]
    pub key: &'a str,
    /// The request's token.
    #[serde(rename = "TOKEN")]
    pub token: Token,
    /// The signed, time-limited URL of the NDJSON file.
    #[serde(rename = "URL")]
    pub url: &'a str,
}

impl DeliveryPayload<'_> {
    /// The body bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Bytes {
        // Two strings and a UUID always serialise; the fallback keeps this panic-free.
        serde_json::to_vec(self)
            .map(Bytes::from)
            .unwrap_or_default()
    }
}

/// The `v1,<base64>` signature of one message under one secret.
#[must_use]
pub fn sign(secret: &WebhookSecret, msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    let mac = mac(secret, msg_id, timestamp, body);
    format!("v1,{}", BASE64.encode(mac.finalize().into_bytes()))
}

fn mac(secret: &WebhookSecret, msg_id: &str, timestamp: i64, body: &[u8]) -> HmacSha256 {
    // HMAC takes keys of any length, so this cannot fail; the fallback is never taken.
    let mut mac = HmacSha256::new_from_slice(secret.key_bytes())
        .unwrap_or_else(|_| HmacSha256::new(&Default::default()));
    mac.update(msg_id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The `webhook-signature` value: one `v1,` entry per secret, space-separated, in order.
#[must_use]
pub fn signature_header<'a>(
    secrets: impl IntoIterator<Item = &'a WebhookSecret>,
    msg_id: &str,
    timestamp: i64,
    body: &[u8],
) -> String {
    secrets
        .into_iter()
        .map(|s| sign(s, msg_id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A signed request ready for the [`crate::ports::WebhookSender`].
#[must_use]
pub fn signed_request<'a>(
    url: &str,
    secrets: impl IntoIterator<Item = &'a WebhookSecret>,
    msg_id: &str,
    timestamp: i64,
    body: Bytes,
) -> WebhookRequest {
    let signature = signature_header(secrets, msg_id, timestamp, &body);
    WebhookRequest {
        url: url.to_owned(),
        headers: vec![
            (HEADER_ID.to_owned(), msg_id.to_owned()),
            (HEADER_TIMESTAMP.to_owned(), timestamp.to_string()),
            (HEADER_SIGNATURE.to_owned(), signature),
        ],
        body,
    }
}

/// Why a delivery did not verify.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VerifyError {
    /// `webhook-timestamp` is not a unix time in seconds.
    #[error("webhook-timestamp `{0}` is not a unix time in seconds")]
    BadTimestamp(String),
    /// The timestamp is further from now than the tolerance: a replay, or a badly set clock.
    #[error(
        "webhook-timestamp is {skew_s} s away from now, more than the {tolerance_s} s tolerance"
    )]
    OutsideTolerance {
        /// Seconds between the timestamp and now.
        skew_s: i64,
        /// The tolerance in seconds.
        tolerance_s: u64,
    },
    /// No `v1` signature matched any of the secrets.
    #[error("no webhook-signature entry matches the signing secret")]
    NoMatchingSignature,
}

/// Verifies deliveries as a receiver would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verifier {
    /// How far the timestamp may be from the receiver's clock (default 5 minutes).
    pub tolerance: Duration,
}

impl Default for Verifier {
    fn default() -> Self {
        Self {
            tolerance: Duration::from_secs(300),
        }
    }
}

impl Verifier {
    /// Checks the headers of a delivery against `secrets`: the timestamp must lie within the
    /// tolerance of `now`, and some `v1` entry of `signature` must match some secret. The
    /// comparison is constant-time.
    ///
    /// # Errors
    /// [`VerifyError`] saying what did not match.
    pub fn verify(
        &self,
        secrets: &[WebhookSecret],
        msg_id: &str,
        timestamp: &str,
        signature: &str,
        body: &[u8],
        now: DateTime<Utc>,
    ) -> Result<(), VerifyError> {
        let ts: i64 = timestamp
            .trim()
            .parse()
            .map_err(|_| VerifyError::BadTimestamp(timestamp.to_owned()))?;
        let skew_s = now.timestamp().saturating_sub(ts);
        let tolerance_s = self.tolerance.as_secs();
        if skew_s.unsigned_abs() > tolerance_s {
            return Err(VerifyError::OutsideTolerance {
                skew_s,
                tolerance_s,
            });
        }
        let candidates: Vec<Vec<u8>> = signature
            .split_ascii_whitespace()
            .filter_map(|entry| entry.strip_prefix("v1,"))
            .filter_map(|b64| BASE64.decode(b64).ok())
            .collect();
        for secret in secrets {
            for candidate in &candidates {
                if mac(secret, msg_id, ts, body)
                    .verify_slice(candidate)
                    .is_ok()
                {
                    return Ok(());
                }
            }
        }
        Err(VerifyError::NoMatchingSignature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    const ID: &str = "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk";
    const TS: i64 = 1_649_367_553;
    const BODY: &[u8] = br#"{"email":"test@example.com","username":"test_user"}"#;
    const EXPECTED: &str = "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=";

    fn secret() -> WebhookSecret {
        WebhookSecret::parse(SECRET).unwrap()
    }

    fn other() -> WebhookSecret {
        WebhookSecret::parse(&format!("whsec_{}", BASE64.encode([7u8; 32]))).unwrap()
    }

    fn at(ts: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(ts, 0).unwrap()
    }

    #[test]
    fn standard_webhooks_reference_vector() {
        assert_eq!(sign(&secret(), ID, TS, BODY), EXPECTED);
    }

    #[test]
    fn every_secret_signs_and_any_one_verifies() {
        let header = signature_header([&other(), &secret()], ID, TS, BODY);
        let entries: Vec<&str> = header.split(' ').collect();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1], EXPECTED);
        let v = Verifier::default();
        assert!(
            v.verify(&[secret()], ID, "1649367553", &header, BODY, at(TS))
                .is_ok()
        );
        assert!(
            v.verify(&[other()], ID, "1649367553", &header, BODY, at(TS))
                .is_ok()
        );
    }

    #[test]
    fn tampering_is_detected() {
        let v = Verifier::default();
        let ok = |id: &str, ts: &str, sig: &str, body: &[u8]| {
            v.verify(&[secret()], id, ts, sig, body, at(TS))
        };
        assert!(ok(ID, "1649367553", EXPECTED, BODY).is_ok());
        assert_eq!(
            ok(ID, "1649367553", EXPECTED, b"{}"),
            Err(VerifyError::NoMatchingSignature)
        );
        assert_eq!(
            ok("msg_other", "1649367553", EXPECTED, BODY),
            Err(VerifyError::NoMatchingSignature)
        );
        assert_eq!(
            ok(ID, "1649367554", EXPECTED, BODY),
            Err(VerifyError::NoMatchingSignature)
        );
        assert_eq!(
            ok(
                ID,
                "1649367553",
                "v2,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=",
                BODY
            ),
            Err(VerifyError::NoMatchingSignature)
        );
        assert_eq!(
            ok(ID, "1649367553", "v1,not base64!", BODY),
            Err(VerifyError::NoMatchingSignature)
        );
        assert_eq!(
            ok(ID, "soon", EXPECTED, BODY),
            Err(VerifyError::BadTimestamp("soon".into()))
        );
    }

    #[test]
    fn the_tolerance_window_is_inclusive() {
        let v = Verifier::default();
        let check = |now| v.verify(&[secret()], ID, "1649367553", EXPECTED, BODY, at(now));
        assert!(check(TS + 300).is_ok());
        assert!(check(TS - 300).is_ok());
        assert_eq!(
            check(TS + 301),
            Err(VerifyError::OutsideTolerance {
                skew_s: 301,
                tolerance_s: 300
            })
        );
        assert!(check(TS - 301).is_err());
    }

    #[test]
    fn payload_and_request_shape() {
        let token: Token = "6f1c2b0e-8a4d-4e0f-9c3b-2d7e5a1f0b9c".parse().unwrap();
        let body = DeliveryPayload {
            key: "ik_0123abcd",
            token,
            url: "https://files.example/x.ndjson?sig=1",
        }
        .to_bytes();
        assert_eq!(
            std::str::from_utf8(&body).unwrap(),
            r#"{"KEY":"ik_0123abcd","TOKEN":"6f1c2b0e-8a4d-4e0f-9c3b-2d7e5a1f0b9c","URL":"https://files.example/x.ndjson?sig=1"}"#
        );
        let req = signed_request(
            "https://hook.example/in",
            [&secret()],
            &message_id(token),
            TS,
            body.clone(),
        );
        assert_eq!(
            req.headers[0],
            (
                HEADER_ID.into(),
                "msg_6f1c2b0e8a4d4e0f9c3b2d7e5a1f0b9c".into()
            )
        );
        assert_eq!(
            req.headers[1],
            (HEADER_TIMESTAMP.into(), "1649367553".into())
        );
        assert_eq!(
            req.headers[2].1,
            sign(&secret(), &message_id(token), TS, &body)
        );
    }
}
