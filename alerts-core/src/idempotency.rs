//! Idempotent alert requests: a client that did not get an answer (a timeout, a dropped
//! connection, a server that crashed after storing the request) sends the same request again
//! with the same `Idempotency-Key` and gets the token of the first one, instead of a second
//! job and a second webhook.
//!
//! The key is the client's: any 1 to 255 visible ASCII characters (a UUID is usual), unique per
//! API key. The store keeps it with the request, together with a [`Fingerprint`] of the points,
//! for as long as it keeps the request; the same key with other points is refused, since
//! answering with the first token would silently drop the second request.
//!
//! ```
//! use alerts_core::idempotency::IdempotencyKey;
//!
//! let key = IdempotencyKey::parse("\"8e03978e-40d5-43e8-bc93-6894a57f9324\"").unwrap();
//! assert_eq!(key.as_str(), "8e03978e-40d5-43e8-bc93-6894a57f9324");
//! assert!(IdempotencyKey::parse("").is_err());
//! assert!(IdempotencyKey::parse("has space").is_err());
//! ```

use std::fmt;

use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::ids::Token;
use crate::request::AlertPoint;

/// The longest idempotency key, in bytes.
pub const MAX_KEY_BYTES: usize = 255;

/// A client's idempotency key, checked: 1 to [`MAX_KEY_BYTES`] visible ASCII characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

/// Why an `Idempotency-Key` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IdempotencyKeyError {
    /// Nothing between the quotes, or no value at all.
    #[error("Idempotency-Key: the key is empty")]
    Empty,
    /// Longer than [`MAX_KEY_BYTES`].
    #[error("Idempotency-Key: {0} bytes is more than the limit of {MAX_KEY_BYTES}")]
    TooLong(usize),
    /// A space, a control character or a non-ASCII character.
    #[error(
        "Idempotency-Key: only visible ASCII characters are allowed (a UUID is a good key), found {0:?}"
    )]
    BadCharacter(char),
}

impl IdempotencyKey {
    /// Checks a header value. The quotes of the structured-field form (`"abc"`) are optional.
    ///
    /// # Errors
    /// [`IdempotencyKeyError`] saying what is wrong with the value.
    pub fn parse(value: &str) -> Result<Self, IdempotencyKeyError> {
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        if value.is_empty() {
            return Err(IdempotencyKeyError::Empty);
        }
        if value.len() > MAX_KEY_BYTES {
            return Err(IdempotencyKeyError::TooLong(value.len()));
        }
        if let Some(bad) = value.chars().find(|c| !c.is_ascii_graphic()) {
            return Err(IdempotencyKeyError::BadCharacter(bad));
        }
        Ok(Self(value.to_owned()))
    }

    /// The key as the client sent it, without quotes.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A digest of a request's points, to tell a retry (the same points) from a different request
/// that reuses a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {
    /// The SHA-256 of the points in order: each point's coordinates, id and custom data, each
    /// field length-prefixed so that no two different lists share a digest by concatenation.
    #[must_use]
    pub fn of_points(points: &[AlertPoint]) -> Self {
        let mut fingerprinter = Fingerprinter::new(points.len() as u64);
        for point in points {
            fingerprinter.add(point);
        }
        fingerprinter.finish()
    }
}

/// A [`Fingerprint`] taken one point at a time, for a request whose points are never all in
/// memory: the same digest as [`Fingerprint::of_points`] on the same points.
///
/// ```
/// use alerts_core::idempotency::{Fingerprint, Fingerprinter};
/// use alerts_core::request::AlertPoint;
///
/// let point = AlertPoint {
///     position: aq_core::Position::new(2.35, 48.85).unwrap(),
///     id: "home".to_owned(),
///     custom_data: "{}".to_owned(),
/// };
/// let points = vec![point; 3];
/// let mut fingerprinter = Fingerprinter::new(3);
/// points.iter().for_each(|p| fingerprinter.add(p));
/// assert_eq!(fingerprinter.finish(), Fingerprint::of_points(&points));
/// ```
#[derive(Debug, Clone)]
pub struct Fingerprinter {
    hash: Sha256,
}

impl Fingerprinter {
    /// A fingerprint of `count` points, to be given to [`Fingerprinter::add`] in order. The
    /// count leads the digest, so it must be known first: a request's points are counted when
    /// they are validated.
    #[must_use]
    pub fn new(count: u64) -> Self {
        let mut hash = Sha256::new();
        hash.update(count.to_le_bytes());
        Self { hash }
    }

    /// Adds the next point.
    pub fn add(&mut self, point: &AlertPoint) {
        self.hash
            .update(point.position.lon().to_bits().to_le_bytes());
        self.hash
            .update(point.position.lat().to_bits().to_le_bytes());
        for text in [&point.id, &point.custom_data] {
            self.hash.update((text.len() as u64).to_le_bytes());
            self.hash.update(text.as_bytes());
        }
    }

    /// The fingerprint of the points added.
    #[must_use]
    pub fn finish(self) -> Fingerprint {
        Fingerprint(self.hash.finalize().into())
    }
}

/// What the store keeps with an idempotent request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Idempotency {
    /// The client's key.
    pub key: IdempotencyKey,
    /// The digest of the request's points.
    pub fingerprint: Fingerprint,
}

/// What [`crate::ports::JobQueue::enqueue_pages`] (or `enqueue_idempotent`) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enqueued {
    /// The request was new and is stored now.
    Stored,
    /// A request with this key was stored before; nothing was written.
    Existing {
        /// The token of the stored request.
        token: Token,
        /// The stored request's fingerprint.
        fingerprint: Fingerprint,
    },
}

#[cfg(test)]
mod tests {
    use aq_core::Position;
    use proptest::prelude::*;

    use super::*;

    fn point(lon: f64, lat: f64, id: &str, custom: &str) -> AlertPoint {
        AlertPoint {
            position: Position::new(lon, lat).unwrap(),
            id: id.to_owned(),
            custom_data: custom.to_owned(),
        }
    }

    #[test]
    fn keys_are_visible_ascii_of_at_most_255_bytes_with_optional_quotes() {
        assert_eq!(IdempotencyKey::parse("abc-1").unwrap().as_str(), "abc-1");
        assert_eq!(
            IdempotencyKey::parse("\"abc-1\"").unwrap().as_str(),
            "abc-1"
        );
        assert_eq!(
            IdempotencyKey::parse(&"k".repeat(255))
                .unwrap()
                .as_str()
                .len(),
            255
        );
        assert_eq!(
            IdempotencyKey::parse(&"k".repeat(256)),
            Err(IdempotencyKeyError::TooLong(256))
        );
        assert_eq!(
            IdempotencyKey::parse("\"\""),
            Err(IdempotencyKeyError::Empty)
        );
        assert_eq!(
            IdempotencyKey::parse("a b"),
            Err(IdempotencyKeyError::BadCharacter(' '))
        );
        assert_eq!(
            IdempotencyKey::parse("clé"),
            Err(IdempotencyKeyError::BadCharacter('é'))
        );
    }

    #[test]
    fn moving_text_between_id_and_custom_data_changes_the_fingerprint() {
        let a = Fingerprint::of_points(&[point(1.0, 2.0, "ab", "{}")]);
        let b = Fingerprint::of_points(&[point(1.0, 2.0, "a", "b{}")]);
        assert_ne!(a, b);
    }

    #[test]
    fn fingerprints_keep_the_digest_that_stored_requests_carry() {
        // Stores keep fingerprints for as long as their requests: a retry after an upgrade
        // must still match, so the digest may never change.
        let points = [
            point(13.4, 52.5, "home", "{}"),
            point(-74.0, 40.7, "user-17", r#"{"tier":"gold"}"#),
        ];
        assert_eq!(
            hex::encode(Fingerprint::of_points(&points).0),
            "9d88c7433e2f985034f20fcdf9ab8b9bd5e68658b952d3e9bd2b703277219dbd"
        );
    }

    proptest! {
        #[test]
        fn a_fingerprint_taken_point_by_point_is_the_fingerprint_of_the_list(
            coords in proptest::collection::vec((-180.0f64..180.0, -90.0f64..90.0), 0..20),
            announced_extra in 0u64..2,
        ) {
            let points: Vec<_> = coords
                .iter()
                .enumerate()
                .map(|(i, &(lon, lat))| point(lon, lat, &format!("p{i}"), "{}"))
                .collect();
            let mut fingerprinter = Fingerprinter::new(points.len() as u64 + announced_extra);
            points.iter().for_each(|p| fingerprinter.add(p));
            // The announced count is part of the digest: a wrong one never matches.
            prop_assert_eq!(
                fingerprinter.finish() == Fingerprint::of_points(&points),
                announced_extra == 0
            );
        }

        #[test]
        fn the_fingerprint_is_the_same_for_equal_points_and_differs_when_a_coordinate_does(
            lon in -180.0f64..180.0, lat in -90.0f64..90.0, id in "[a-z0-9]{1,12}",
            nudge in 1e-9f64..1.0,
        ) {
            let points = vec![point(lon, lat, &id, "{}"), point(lat / 2.0, lon / 2.0, "x", "{}")];
            prop_assert_eq!(Fingerprint::of_points(&points), Fingerprint::of_points(&points.clone()));
            let mut moved = points.clone();
            let nudged = (lat + nudge).min(90.0);
            moved[0].position = Position::new(lon, nudged).unwrap();
            if nudged != lat {
                prop_assert_ne!(Fingerprint::of_points(&points), Fingerprint::of_points(&moved));
            }
        }
    }
}
