//! API keys and webhook signing secrets: their formats, generation and hashing.
//!
//! An API key is shown to its owner once, at creation; the stores keep only its SHA-256
//! ([`KeyHash`]) and its public [`ApiKey::prefix`], which identifies the key in the dashboard,
//! in logs and in webhook deliveries without revealing it. Randomness comes from the
//! [`SecretRng`] port (the operating system's generator in production), so this crate draws
//! none itself.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::randomness::SecretRng;

/// The text every API key starts with.
pub const API_KEY_PREFIX: &str = "ik_";
/// Hex digits of secret material after [`API_KEY_PREFIX`].
const API_KEY_HEX_LEN: usize = 64;
/// Characters of a key shown as its public prefix: `ik_` and eight hex digits.
const DISPLAY_PREFIX_LEN: usize = API_KEY_PREFIX.len() + 8;

/// An API key in full, as its owner sends it in `?key=`. Never stored, never logged: its
/// `Debug` output shows only the public prefix.
///
/// ```
/// use identity_core::randomness::SeededRandomness;
/// use identity_core::keys::ApiKey;
///
/// let key = ApiKey::generate(&SeededRandomness::default());
/// assert!(key.expose().starts_with("ik_"));
/// assert_eq!(key.prefix().len(), 11);
/// assert!(!format!("{key:?}").contains(key.expose()));
/// assert_eq!(ApiKey::parse(key.expose()).unwrap(), key);
/// assert!(ApiKey::parse("not-a-key").is_err());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

/// A string that is not an API key of this service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not an API key: expected `ik_` followed by 64 hexadecimal digits")]
pub struct ApiKeyFormatError;

impl ApiKey {
    /// A new random key of 32 bytes from `rng`.
    #[must_use]
    pub fn generate(rng: &dyn SecretRng) -> Self {
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        Self(format!("{API_KEY_PREFIX}{}", hex::encode(bytes)))
    }

    /// Checks the format of a key a client sent.
    ///
    /// # Errors
    /// [`ApiKeyFormatError`] when `s` is not `ik_` and 64 lower-case hex digits.
    pub fn parse(s: &str) -> Result<Self, ApiKeyFormatError> {
        let rest = s.strip_prefix(API_KEY_PREFIX).ok_or(ApiKeyFormatError)?;
        let hex_ok = rest.len() == API_KEY_HEX_LEN
            && rest
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if hex_ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(ApiKeyFormatError)
        }
    }

    /// The whole key. Show it to its owner once; never log it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The public prefix (`ik_` and eight hex digits) that identifies the key in lists, logs
    /// and webhook deliveries.
    #[must_use]
    pub fn prefix(&self) -> &str {
        &self.0[..DISPLAY_PREFIX_LEN]
    }

    /// The SHA-256 of the key, which is what the stores keep and look keys up by.
    #[must_use]
    pub fn hash(&self) -> KeyHash {
        KeyHash(Sha256::digest(self.0.as_bytes()).into())
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({}…)", self.prefix())
    }
}

/// The SHA-256 of an API key.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct KeyHash(pub [u8; 32]);

impl KeyHash {
    /// Lower-case hex, the form the stores keep.
    #[must_use]
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// Parses the hex form.
    ///
    /// # Errors
    /// [`hex::FromHexError`] when `s` is not 64 hex digits.
    pub fn from_hex(s: &str) -> Result<Self, hex::FromHexError> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(s, &mut out)?;
        Ok(Self(out))
    }
}

impl fmt::Debug for KeyHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyHash({})", self.to_hex())
    }
}

impl From<KeyHash> for String {
    fn from(h: KeyHash) -> Self {
        h.to_hex()
    }
}

impl TryFrom<String> for KeyHash {
    type Error = hex::FromHexError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::from_hex(&s)
    }
}

/// The text every webhook signing secret starts with (the Standard Webhooks convention).
pub const WEBHOOK_SECRET_PREFIX: &str = "whsec_";

/// A webhook signing secret in the Standard Webhooks form `whsec_<base64 bytes>`. Its `Debug`
/// output hides the secret.
///
/// ```
/// use identity_core::keys::WebhookSecret;
///
/// let s = WebhookSecret::parse("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD").unwrap();
/// assert_eq!(s.key_bytes().len(), 24);
/// assert!(WebhookSecret::parse("whsec_!!").is_err());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret {
    text: String,
    bytes: Vec<u8>,
}

/// A string that is not a usable webhook secret.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("not a webhook secret: expected `whsec_` followed by base64 of 24 to 64 bytes")]
pub struct WebhookSecretError;

impl WebhookSecret {
    /// A new random secret of 32 bytes from `rng`.
    #[must_use]
    pub fn generate(rng: &dyn SecretRng) -> Self {
        let mut bytes = vec![0u8; 32];
        rng.fill_bytes(&mut bytes);
        let text = format!("{WEBHOOK_SECRET_PREFIX}{}", BASE64.encode(&bytes));
        Self { text, bytes }
    }

    /// Parses the `whsec_...` form.
    ///
    /// # Errors
    /// [`WebhookSecretError`] when the prefix is missing, the rest is not base64, or the key is
    /// shorter than 24 or longer than 64 bytes.
    pub fn parse(s: &str) -> Result<Self, WebhookSecretError> {
        let rest = s
            .strip_prefix(WEBHOOK_SECRET_PREFIX)
            .ok_or(WebhookSecretError)?;
        let bytes = BASE64.decode(rest).map_err(|_| WebhookSecretError)?;
        if !(24..=64).contains(&bytes.len()) {
            return Err(WebhookSecretError);
        }
        Ok(Self {
            text: s.to_owned(),
            bytes,
        })
    }

    /// The `whsec_...` text, to show the key's owner in the dashboard.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.text
    }

    /// The HMAC key: the base64-decoded part.
    #[must_use]
    pub fn key_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(whsec_…)")
    }
}

#[cfg(test)]
mod tests {
    use crate::randomness::SeededRandomness;

    use super::*;

    #[test]
    fn keys_hash_to_their_sha256() {
        let key = ApiKey::generate(&SeededRandomness::default());
        let expected: [u8; 32] = Sha256::digest(key.expose().as_bytes()).into();
        assert_eq!(key.hash().0, expected);
        assert_eq!(KeyHash::from_hex(&key.hash().to_hex()).unwrap(), key.hash());
    }

    #[test]
    fn parse_refuses_near_misses() {
        let key = ApiKey::generate(&SeededRandomness::default());
        assert!(ApiKey::parse(&format!("ik_{}", "ab".repeat(32))).is_ok());
        assert!(ApiKey::parse(&format!("ik_{}", "AB".repeat(32))).is_err());
        assert!(ApiKey::parse(&format!("ik_{}", "gh".repeat(32))).is_err());
        assert!(ApiKey::parse(&key.expose()[..key.expose().len() - 1]).is_err());
        assert!(ApiKey::parse(&format!("{}0", key.expose())).is_err());
        assert!(ApiKey::parse("").is_err());
    }

    #[test]
    fn generated_secrets_parse_back() {
        let s = WebhookSecret::generate(&SeededRandomness::default());
        let back = WebhookSecret::parse(s.expose()).unwrap();
        assert_eq!(back.key_bytes(), s.key_bytes());
        assert_eq!(format!("{s:?}"), "WebhookSecret(whsec_…)");
    }

    #[test]
    fn secrets_of_wrong_length_are_refused() {
        assert!(WebhookSecret::parse(&format!("whsec_{}", BASE64.encode([1u8; 16]))).is_err());
        assert!(WebhookSecret::parse(&format!("whsec_{}", BASE64.encode([1u8; 65]))).is_err());
        assert!(WebhookSecret::parse(&BASE64.encode([1u8; 32])).is_err());
    }
}
