//! The CSRF token of the forms shown before signing in. There is no session yet to hold a
//! secret, so the token travels twice, in a cookie and in the form, and the two must match.
//! That alone would let anyone who can plant a cookie (a sibling subdomain, a plain-http
//! hop) choose the token; so each token is a random nonce followed by its HMAC under a key of
//! the server's, and a cookie the server did not make is refused.

use hmac::{Hmac, KeyInit, Mac};
use identity_core::randomness::SecretRng;
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// Separates these MACs from any other use of the key.
const DOMAIN: &[u8] = b"insights-login-csrf-v1\0";
const NONCE_BYTES: usize = 16;
const MAC_BYTES: usize = 16;
/// The length of a token in hex digits.
pub(crate) const TOKEN_LEN: usize = 2 * (NONCE_BYTES + MAC_BYTES);

/// The server's key for the sign-in forms' CSRF tokens. Every replica behind one address
/// needs the same key, or a form shown by one is refused by another. Its `Debug` output
/// hides the key.
#[derive(Clone)]
pub struct CsrfKey(Vec<u8>);

impl std::fmt::Debug for CsrfKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CsrfKey(<hidden>)")
    }
}

/// A key shorter than [`CsrfKey::MIN_LEN`] bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the dashboard's CSRF key has {0} bytes; use at least 32 random bytes")]
pub struct ShortKey(pub usize);

impl CsrfKey {
    /// The shortest key accepted, in bytes.
    pub const MIN_LEN: usize = 32;

    /// A key from `secret`, which must be at least [`CsrfKey::MIN_LEN`] random bytes.
    ///
    /// ```
    /// use insights_dashboard::CsrfKey;
    ///
    /// assert!(CsrfKey::new([7u8; 32]).is_ok());
    /// assert!(CsrfKey::new(*b"short").is_err());
    /// ```
    ///
    /// # Errors
    /// [`ShortKey`] for a shorter secret.
    pub fn new(secret: impl Into<Vec<u8>>) -> Result<Self, ShortKey> {
        let secret = secret.into();
        if secret.len() < Self::MIN_LEN {
            return Err(ShortKey(secret.len()));
        }
        Ok(Self(secret))
    }

    fn mac(&self, nonce: &[u8]) -> [u8; MAC_BYTES] {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(DOMAIN);
        mac.update(nonce);
        let full = mac.finalize().into_bytes();
        let mut out = [0u8; MAC_BYTES];
        out.copy_from_slice(&full[..MAC_BYTES]);
        out
    }

    /// A new token: a random nonce and its MAC, in hex.
    pub(crate) fn issue(&self, rng: &dyn SecretRng) -> String {
        let mut nonce = [0u8; NONCE_BYTES];
        rng.fill_bytes(&mut nonce);
        let mut token = hex::encode(nonce);
        token.push_str(&hex::encode(self.mac(&nonce)));
        token
    }

    /// Whether `token` was issued under this key.
    pub(crate) fn genuine(&self, token: &str) -> bool {
        if token.len() != TOKEN_LEN {
            return false;
        }
        let Ok(bytes) = hex::decode(token) else {
            return false;
        };
        let (nonce, mac) = bytes.split_at(NONCE_BYTES);
        bool::from(self.mac(nonce).ct_eq(mac))
    }
}

#[cfg(test)]
mod tests {
    use identity_core::randomness::SeededRandomness;

    use super::*;

    #[test]
    fn a_token_is_genuine_only_under_its_key() {
        let key = CsrfKey::new([1u8; 32]).unwrap();
        let other = CsrfKey::new([2u8; 32]).unwrap();
        let token = key.issue(&SeededRandomness::new(7));
        assert_eq!(token.len(), TOKEN_LEN);
        assert!(key.genuine(&token));
        assert!(!other.genuine(&token));
        let mut altered = token.clone().into_bytes();
        altered[0] = if altered[0] == b'0' { b'1' } else { b'0' };
        assert!(!key.genuine(&String::from_utf8(altered).unwrap()));
        assert!(!key.genuine(&"0".repeat(TOKEN_LEN)));
        assert!(!key.genuine(&token[..TOKEN_LEN - 2]));
        assert!(!key.genuine(&format!("{}zz", &token[..TOKEN_LEN - 2])));
    }

    #[test]
    fn the_key_is_hidden_from_debug_output() {
        let key = CsrfKey::new(*b"0123456789abcdef0123456789abcdef").unwrap();
        assert!(!format!("{key:?}").contains("0123"));
    }
}
