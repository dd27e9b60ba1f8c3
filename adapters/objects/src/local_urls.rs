//! The server's own signed URLs for files kept on the local filesystem.
//!
//! A URL looks like
//!
//! ```text
//! {public_base_url}/insights/v1/files/<token>.ndjson?expires=<unix>&kid=<key id>&signature=<hex>
//! ```
//!
//! where `signature` is the lowercase hex HMAC-SHA256, under the key named by `kid`, of
//!
//! ```text
//! "insights-file-url-v1" NUL <path> NUL <expires> NUL <kid>
//! ```
//!
//! with `<path>` the path from `/insights/v1/files/` on and `<expires>` in canonical decimal.
//! None of the fields can contain NUL, so no two URLs sign the same message. The public base
//! URL is left out of the signature so that a URL survives a change of host name or proxy.
//!
//! A URL is valid at instants strictly before `expires` (exclusive): at `expires` itself it
//! is expired. Signing rounds `now + valid_for` down to the second, so a URL is never valid
//! past the time asked for.
//!
//! Keys are named so that they can be rotated: URLs are signed with the current key and
//! verified with any key the server still knows. To rotate, put a new key first and keep the
//! old one for at least the URL validity (900 s) so that URLs already handed out keep working.

use std::fmt;
use std::path::Path as FsPath;
use std::str::FromStr;
use std::time::Duration;

use alerts_core::ids::Token;
use alerts_core::ports::{FileError, FileKey, UrlSigner};
use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use thiserror::Error;

/// Where the server serves files: the path of a file URL is this followed by
/// `<token>.ndjson`.
pub const FILES_PATH: &str = "/insights/v1/files/";

/// How long a file URL stays valid after it is issued: 900 s.
pub const DEFAULT_URL_VALIDITY: Duration = Duration::from_secs(900);

/// The shortest secret accepted for a URL key, in bytes.
pub const MIN_SECRET_LEN: usize = 32;

const MAX_KEY_ID_LEN: usize = 32;
const SIGNATURE_HEX_LEN: usize = 64;
const DOMAIN: &[u8] = b"insights-file-url-v1";
const FILE_KEY_PREFIX: &str = "alerts/";
const FILE_SUFFIX: &str = ".ndjson";
// Longer than any URL this module makes; refusing more bounds the work done on hostile input.
const MAX_QUERY_LEN: usize = 256;
const MAX_PATH_LEN: usize = 128;

/// Why a URL key, key file or signer configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UrlSetupError {
    /// A key id is empty, too long or has characters other than ASCII letters, digits, `-`
    /// and `_`.
    #[error("the URL key id {0:?} is invalid: use 1 to 32 ASCII letters, digits, '-' or '_'")]
    KeyId(String),
    /// A secret is shorter than [`MIN_SECRET_LEN`] bytes.
    #[error("the URL key {id:?} has a {len}-byte secret; use at least 32 random bytes")]
    ShortSecret {
        /// The key's id.
        id: String,
        /// The secret's length in bytes.
        len: usize,
    },
    /// Two keys have the same id.
    #[error("the URL key id {0:?} is used twice; give every key its own id")]
    DuplicateKey(String),
    /// A key file names no key.
    #[error(
        "the URL key file {0} holds no key; add a line `<id> <hex secret>` or delete the file to have one generated"
    )]
    NoKeys(String),
    /// A line of a key file could not be read.
    #[error("line {line} of the URL key file {path}: {reason}")]
    KeyFile {
        /// The file.
        path: String,
        /// The line number, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The key file could not be read or written.
    #[error("the URL key file {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The public base URL is not an absolute http(s) URL without query or fragment.
    #[error(
        "the public URL {url:?} is invalid: {reason}; use something like https://insights.example.com"
    )]
    BaseUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// Why a file URL was refused. The HTTP layer answers 403 for all of them, with
/// `expired_url` for [`VerifyError::Expired`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum VerifyError {
    /// The path or query string is not one that this server makes: a missing, repeated or
    /// unknown parameter, a non-canonical number, token or signature, or a path outside the
    /// files.
    #[error("malformed file URL: {0}")]
    Malformed(&'static str),
    /// The URL was signed with a key this server does not know (any more).
    #[error("the file URL was signed with an unknown key")]
    UnknownKey,
    /// The signature does not match: the URL was altered.
    #[error("the file URL's signature does not match")]
    BadSignature,
    /// The URL is genuine but its validity has ended.
    #[error("the file URL has expired")]
    Expired,
}

/// One named HMAC key for file URLs. Its `Debug` output hides the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct UrlKey {
    id: String,
    secret: Vec<u8>,
}

impl fmt::Debug for UrlKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UrlKey")
            .field("id", &self.id)
            .field("secret", &"<hidden>")
            .finish()
    }
}

fn valid_key_id(id: &str) -> bool {
    (1..=MAX_KEY_ID_LEN).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl UrlKey {
    /// A key named `id` with `secret`.
    ///
    /// # Errors
    ///
    /// [`UrlSetupError::KeyId`] for an id that cannot appear in a URL as it is;
    /// [`UrlSetupError::ShortSecret`] for a secret shorter than [`MIN_SECRET_LEN`] bytes.
    pub fn new(id: impl Into<String>, secret: impl Into<Vec<u8>>) -> Result<Self, UrlSetupError> {
        let id = id.into();
        let secret = secret.into();
        if !valid_key_id(&id) {
            return Err(UrlSetupError::KeyId(id));
        }
        if secret.len() < MIN_SECRET_LEN {
            return Err(UrlSetupError::ShortSecret {
                id,
                len: secret.len(),
            });
        }
        Ok(Self { id, secret })
    }

    /// A new key with a random 8-hex-digit id and a random 32-byte secret.
    #[must_use]
    pub fn generate() -> Self {
        let id: [u8; 4] = rand::random();
        let mut secret = vec![0u8; MIN_SECRET_LEN];
        rand::fill(&mut secret[..]);
        Self {
            id: hex::encode(id),
            secret,
        }
    }

    /// The key's id, as it appears in URLs (`kid`).
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    fn mac(&self, path: &str, expires: u64) -> Hmac<Sha256> {
        // HMAC takes keys of any length, so this cannot fail; the fallback keeps it panic-free.
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.secret)
            .unwrap_or_else(|_| <Hmac<Sha256> as KeyInit>::new(&Default::default()));
        for part in [
            DOMAIN,
            b"\0",
            path.as_bytes(),
            b"\0",
            expires.to_string().as_bytes(),
            b"\0",
            self.id.as_bytes(),
        ] {
            mac.update(part);
        }
        mac
    }
}

/// The keys a server knows: the current one, which signs, then older ones that still verify.
///
/// A key file holds one key per line, `<id> <secret in hex>`, the current key first; blank
/// lines and lines starting with `#` are ignored.
///
/// ```
/// use insights_objects::UrlKeys;
///
/// let keys = UrlKeys::parse_key_file(
///     "# current first\n\
///      k2 0202020202020202020202020202020202020202020202020202020202020202\n\
///      k1 0101010101010101010101010101010101010101010101010101010101010101\n",
///     "example",
/// )?;
/// assert_eq!(keys.current().id(), "k2");
/// assert!(keys.find("k1").is_some());
/// # Ok::<(), insights_objects::UrlSetupError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlKeys {
    // Never empty; the first is the current key.
    keys: Vec<UrlKey>,
}

impl UrlKeys {
    /// `current` signs; it and every key of `previous` verify.
    ///
    /// # Errors
    ///
    /// [`UrlSetupError::DuplicateKey`] when two keys share an id.
    pub fn new(
        current: UrlKey,
        previous: impl IntoIterator<Item = UrlKey>,
    ) -> Result<Self, UrlSetupError> {
        let mut keys = vec![current];
        for key in previous {
            if keys.iter().any(|k| k.id == key.id) {
                return Err(UrlSetupError::DuplicateKey(key.id));
            }
            keys.push(key);
        }
        Ok(Self { keys })
    }

    /// The key that signs new URLs.
    #[must_use]
    pub fn current(&self) -> &UrlKey {
        &self.keys[0]
    }

    /// The key named `id`, current or previous.
    #[must_use]
    pub fn find(&self, id: &str) -> Option<&UrlKey> {
        self.keys.iter().find(|k| k.id == id)
    }

    /// Makes `new` the current key and keeps at most `keep_previous` of the keys before it,
    /// newest first.
    ///
    /// # Errors
    ///
    /// [`UrlSetupError::DuplicateKey`] when `new` has the id of a key kept.
    pub fn rotated(&self, new: UrlKey, keep_previous: usize) -> Result<Self, UrlSetupError> {
        Self::new(new, self.keys.iter().take(keep_previous).cloned())
    }

    /// Reads keys in the key-file format; `source` names the file in errors.
    ///
    /// # Errors
    ///
    /// [`UrlSetupError::KeyFile`] for a line that is not `<id> <hex secret>` or whose key is
    /// invalid, [`UrlSetupError::NoKeys`] when there is no key, and
    /// [`UrlSetupError::DuplicateKey`].
    pub fn parse_key_file(text: &str, source: &str) -> Result<Self, UrlSetupError> {
        let mut keys = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |reason: String| UrlSetupError::KeyFile {
                path: source.to_owned(),
                line: index + 1,
                reason,
            };
            let mut fields = line.split_whitespace();
            let (Some(id), Some(secret), None) = (fields.next(), fields.next(), fields.next())
            else {
                return Err(bad("expected `<id> <secret in hex>`".to_owned()));
            };
            let secret =
                hex::decode(secret).map_err(|e| bad(format!("the secret is not hex: {e}")))?;
            keys.push(UrlKey::new(id, secret).map_err(|e| bad(e.to_string()))?);
        }
        let mut keys = keys.into_iter();
        let current = keys
            .next()
            .ok_or_else(|| UrlSetupError::NoKeys(source.to_owned()))?;
        Self::new(current, keys)
    }

    /// The keys in the key-file format, current first.
    #[must_use]
    pub fn to_key_file(&self) -> String {
        let mut text = String::from(
            "# Keys of the file download URLs: `<id> <secret in hex>`, the current key first.\n\
             # To rotate, add a new first line and keep the old key for at least 15 minutes.\n",
        );
        for key in &self.keys {
            text.push_str(&key.id);
            text.push(' ');
            text.push_str(&hex::encode(&key.secret));
            text.push('\n');
        }
        text
    }

    /// Reads the key file at `path`, or creates it with one generated key when it does not
    /// exist, readable by the owner only. This is how the embedded server keeps its URLs valid
    /// across restarts without any setup.
    ///
    /// # Errors
    ///
    /// [`UrlSetupError::Io`] when the file cannot be read or created, and the errors of
    /// [`UrlKeys::parse_key_file`].
    pub fn load_or_create(path: &FsPath) -> Result<Self, UrlSetupError> {
        let io = |e: std::io::Error| UrlSetupError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse_key_file(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let keys = Self::new(UrlKey::generate(), [])?;
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(io)?;
                }
                write_private(path, keys.to_key_file().as_bytes()).map_err(io)?;
                // Another process may have created the file first: whatever is on disk wins,
                // so that both sign with the same key.
                let text = std::fs::read_to_string(path).map_err(io)?;
                Self::parse_key_file(&text, &path.display().to_string())
            }
            Err(e) => Err(io(e)),
        }
    }
}

fn write_private(path: &FsPath, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(mut file) => {
            file.write_all(contents)?;
            file.sync_all()
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Signs and verifies the server's own file URLs.
///
/// ```
/// use std::time::Duration;
///
/// use alerts_core::ids::Token;
/// use alerts_core::ports::{FileKey, UrlSigner};
/// use chrono::{TimeZone, Utc};
/// use insights_objects::{LocalUrlSigner, UrlKey, UrlKeys, VerifyError};
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let keys = UrlKeys::new(UrlKey::new("k1", [7u8; 32])?, [])?;
/// let signer = LocalUrlSigner::new("https://insights.example.com/", keys)?;
/// let token: Token = "67e55044-10b1-426f-9247-bb680e5fe0c8".parse().unwrap();
/// let now = Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap();
///
/// let url = signer
///     .signed_url(&FileKey::for_token(token), now, Duration::from_secs(900))
///     .await
///     .unwrap();
/// assert!(url.starts_with(
///     "https://insights.example.com/insights/v1/files/67e55044-10b1-426f-9247-bb680e5fe0c8.ndjson\
///      ?expires=1777637700&kid=k1&signature="
/// ));
///
/// // What the HTTP layer does with the request's path and query string:
/// let (path, query) = url["https://insights.example.com".len()..].split_once('?').unwrap();
/// assert_eq!(signer.verify(path, query, now), Ok(FileKey::for_token(token)));
/// let later = now + chrono::Duration::seconds(900);
/// assert_eq!(signer.verify(path, query, later), Err(VerifyError::Expired));
/// # Ok::<(), insights_objects::UrlSetupError>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct LocalUrlSigner {
    base: String,
    keys: UrlKeys,
}

impl LocalUrlSigner {
    /// A signer whose URLs start with `public_base_url` (such as `https://insights.example.com`
    /// or `http://127.0.0.1:8080`; a trailing `/` is dropped).
    ///
    /// # Errors
    ///
    /// [`UrlSetupError::BaseUrl`] when the URL is not absolute http(s), or has a query or
    /// fragment.
    pub fn new(public_base_url: &str, keys: UrlKeys) -> Result<Self, UrlSetupError> {
        let bad = |reason: &str| UrlSetupError::BaseUrl {
            url: public_base_url.to_owned(),
            reason: reason.to_owned(),
        };
        let parsed = url::Url::parse(public_base_url).map_err(|e| bad(&e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(bad("the scheme must be http or https"));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(bad("it must not have a query or fragment"));
        }
        if parsed.cannot_be_a_base() || parsed.host().is_none() {
            return Err(bad("it must name a host"));
        }
        Ok(Self {
            base: parsed.as_str().trim_end_matches('/').to_owned(),
            keys,
        })
    }

    /// The keys in use.
    #[must_use]
    pub fn keys(&self) -> &UrlKeys {
        &self.keys
    }

    /// The path and query string (without the base URL) that serve `token` until `expires`
    /// (unix seconds, exclusive), signed with the current key.
    #[must_use]
    pub fn path_and_query(&self, token: Token, expires: u64) -> String {
        let key = self.keys.current();
        let path = format!("{FILES_PATH}{token}{FILE_SUFFIX}");
        let signature = hex::encode(key.mac(&path, expires).finalize().into_bytes());
        format!(
            "{path}?expires={expires}&kid={}&signature={signature}",
            key.id
        )
    }

    /// Checks a request for a file URL and returns the file to serve.
    ///
    /// `path` is the request path as the router sees it, from `/insights/v1/files/` on, still
    /// percent-encoded; `query` is the raw query string without the `?`. The signature is
    /// compared in constant time, and checked before the expiry so that only genuine URLs are
    /// reported as [`VerifyError::Expired`]. Never panics, whatever the input.
    ///
    /// # Errors
    ///
    /// A [`VerifyError`] saying why the URL is refused.
    pub fn verify(
        &self,
        path: &str,
        query: &str,
        now: DateTime<Utc>,
    ) -> Result<FileKey, VerifyError> {
        if path.len() > MAX_PATH_LEN || query.len() > MAX_QUERY_LEN {
            return Err(VerifyError::Malformed("too long"));
        }
        let token = path
            .strip_prefix(FILES_PATH)
            .and_then(|rest| rest.strip_suffix(FILE_SUFFIX))
            .ok_or(VerifyError::Malformed("not a file path"))?;
        let token = canonical_token(token).ok_or(VerifyError::Malformed("bad token"))?;
        let params = Params::parse(query)?;
        let key = self.keys.find(params.kid).ok_or(VerifyError::UnknownKey)?;
        key.mac(path, params.expires)
            .verify_slice(&params.signature)
            .map_err(|_| VerifyError::BadSignature)?;
        if i128::from(now.timestamp()) < i128::from(params.expires) {
            Ok(FileKey::for_token(token))
        } else {
            Err(VerifyError::Expired)
        }
    }
}

/// The token in its one canonical spelling (lowercase, hyphenated), so that no two paths
/// name the same file.
fn canonical_token(text: &str) -> Option<Token> {
    let token = Token::from_str(text).ok()?;
    (token.to_string() == text).then_some(token)
}

struct Params<'a> {
    expires: u64,
    kid: &'a str,
    signature: Vec<u8>,
}

impl<'a> Params<'a> {
    fn parse(query: &'a str) -> Result<Self, VerifyError> {
        let (mut expires, mut kid, mut signature) = (None, None, None);
        for pair in query.split('&') {
            let (name, value) = pair
                .split_once('=')
                .ok_or(VerifyError::Malformed("a parameter without a value"))?;
            let slot = match name {
                "expires" => &mut expires,
                "kid" => &mut kid,
                "signature" => &mut signature,
                _ => return Err(VerifyError::Malformed("unknown parameter")),
            };
            if slot.replace(value).is_some() {
                return Err(VerifyError::Malformed("repeated parameter"));
            }
        }
        let expires = expires.ok_or(VerifyError::Malformed("no expires"))?;
        let kid = kid.ok_or(VerifyError::Malformed("no kid"))?;
        let signature = signature.ok_or(VerifyError::Malformed("no signature"))?;
        Ok(Self {
            expires: parse_canonical_u64(expires).ok_or(VerifyError::Malformed("bad expires"))?,
            kid: Some(kid)
                .filter(|k| valid_key_id(k))
                .ok_or(VerifyError::Malformed("bad kid"))?,
            signature: Some(signature)
                .filter(|s| {
                    s.len() == SIGNATURE_HEX_LEN
                        && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                })
                .and_then(|s| hex::decode(s).ok())
                .ok_or(VerifyError::Malformed("bad signature"))?,
        })
    }
}

/// Digits only, no sign, no leading zero, in range: the one spelling that signing produces.
fn parse_canonical_u64(text: &str) -> Option<u64> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if canonical { text.parse().ok() } else { None }
}

/// The token of a file key made by [`FileKey::for_token`].
pub(crate) fn token_of(key: &FileKey) -> Option<Token> {
    key.0
        .strip_prefix(FILE_KEY_PREFIX)
        .and_then(|rest| rest.strip_suffix(FILE_SUFFIX))
        .and_then(canonical_token)
}

/// Unix seconds of `now + valid_for`, rounded down.
pub(crate) fn expiry(now: DateTime<Utc>, valid_for: Duration) -> Result<i64, FileError> {
    TimeDelta::from_std(valid_for)
        .ok()
        .and_then(|d| now.checked_add_signed(d))
        .map(|t| t.timestamp())
        .ok_or_else(|| FileError::Other(format!("a URL validity of {valid_for:?} is too long")))
}

#[async_trait]
impl UrlSigner for LocalUrlSigner {
    async fn signed_url(
        &self,
        key: &FileKey,
        now: DateTime<Utc>,
        valid_for: Duration,
    ) -> Result<String, FileError> {
        let token = token_of(key).ok_or_else(|| {
            FileError::Other(format!(
                "only alert files (FileKey::for_token) have download URLs, not {:?}",
                key.0
            ))
        })?;
        let expires = u64::try_from(expiry(now, valid_for)?).map_err(|_| {
            FileError::Other("cannot sign a URL that expires before 1970".to_owned())
        })?;
        Ok(format!(
            "{}{}",
            self.base,
            self.path_and_query(token, expires)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    fn signer() -> LocalUrlSigner {
        let keys = UrlKeys::new(UrlKey::new("k1", [1u8; 32]).unwrap(), []).unwrap();
        LocalUrlSigner::new("http://127.0.0.1:8080", keys).unwrap()
    }

    fn token() -> Token {
        "67e55044-10b1-426f-9247-bb680e5fe0c8".parse().unwrap()
    }

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap()
    }

    fn split(path_and_query: &str) -> (&str, &str) {
        path_and_query.split_once('?').unwrap()
    }

    #[test]
    fn a_signed_path_verifies_until_just_before_it_expires() {
        let s = signer();
        let expires = u64::try_from(now().timestamp()).unwrap() + 900;
        let url = s.path_and_query(token(), expires);
        let (path, query) = split(&url);
        let want = Ok(FileKey::for_token(token()));
        assert_eq!(s.verify(path, query, now()), want);
        let last_moment = now() + TimeDelta::seconds(900) - TimeDelta::milliseconds(1);
        assert_eq!(s.verify(path, query, last_moment), want);
        let at_expiry = now() + TimeDelta::seconds(900);
        assert_eq!(s.verify(path, query, at_expiry), Err(VerifyError::Expired));
    }

    #[test]
    fn hostile_queries_are_malformed() {
        let s = signer();
        let url = s.path_and_query(token(), 2_000_000_000);
        let (path, query) = split(&url);
        let sig = query.rsplit_once('=').unwrap().1;
        for q in [
            String::new(),
            "?".to_owned() + query,
            format!("{query}&"),
            format!("{query}&kid=k1"),
            "expires=2000000000&kid=k1".to_owned(),
            format!("expires=02000000000&kid=k1&signature={sig}"),
            format!("expires=+2000000000&kid=k1&signature={sig}"),
            format!("expires=-1&kid=k1&signature={sig}"),
            format!("expires=99999999999999999999999999&kid=k1&signature={sig}"),
            format!("expires=2000000000&kid=k%31&signature={sig}"),
            format!("expires=2000000000&kid=k1&signature={}", sig.to_uppercase()),
            format!("expires=2000000000&kid=k1&signature=zz{}", &sig[2..]),
            format!("expires=2000000000&kid=k1&signature={sig}0"),
            format!("expires=2000000000&kid=k1&signature={sig}&extra=1"),
            format!("expires=2000000000&kid=&signature={sig}"),
            format!("expires&kid=k1&signature={sig}"),
        ] {
            assert!(
                matches!(s.verify(path, &q, now()), Err(VerifyError::Malformed(_))),
                "accepted or misjudged query {q:?}"
            );
        }
        for p in [
            "/insights/v1/files/../67e55044-10b1-426f-9247-bb680e5fe0c8.ndjson",
            "/insights/v1/files/67e55044-10b1-426f-9247-bb680e5fe0c8.ndjson/..",
            "/insights/v1/files/67E55044-10B1-426F-9247-BB680E5FE0C8.ndjson",
            "/insights/v1/files/67e5504410b1426f9247bb680e5fe0c8.ndjson",
            "/insights/v1/files/%36%37e55044-10b1-426f-9247-bb680e5fe0c8.ndjson",
            "/insights/v1/files/67e55044-10b1-426f-9247-bb680e5fe0c8.json",
            "/insights/v1/other/67e55044-10b1-426f-9247-bb680e5fe0c8.ndjson",
        ] {
            assert!(
                matches!(s.verify(p, query, now()), Err(VerifyError::Malformed(_))),
                "accepted path {p:?}"
            );
        }
    }

    #[test]
    fn parameters_may_come_in_any_order() {
        let s = signer();
        let url = s.path_and_query(token(), 2_000_000_000);
        let (path, query) = split(&url);
        let mut params: Vec<&str> = query.split('&').collect();
        params.reverse();
        assert!(s.verify(path, &params.join("&"), now()).is_ok());
    }

    #[test]
    fn key_files_round_trip_and_refuse_bad_lines() {
        let keys =
            UrlKeys::new(UrlKey::generate(), [UrlKey::new("old", [3u8; 40]).unwrap()]).unwrap();
        assert_eq!(
            UrlKeys::parse_key_file(&keys.to_key_file(), "t").unwrap(),
            keys
        );
        for text in [
            "",
            "# only a comment\n",
            "k1\n",
            "k1 zz\n",
            "k1 0101\n",
            "k/1 0101010101010101010101010101010101010101010101010101010101010101\n",
            "k1 0101010101010101010101010101010101010101010101010101010101010101 extra\n",
            "k1 0101010101010101010101010101010101010101010101010101010101010101\n\
             k1 0202020202020202020202020202020202020202020202020202020202020202\n",
        ] {
            assert!(
                UrlKeys::parse_key_file(text, "t").is_err(),
                "accepted {text:?}"
            );
        }
    }

    #[test]
    fn debug_output_hides_secrets() {
        let key = UrlKey::new("k1", [0xabu8; 32]).unwrap();
        assert!(!format!("{key:?}").contains("abab"));
        assert!(!format!("{:?}", signer()).contains("0101"));
    }

    #[test]
    fn the_public_url_must_be_absolute_http() {
        let keys = UrlKeys::new(UrlKey::generate(), []).unwrap();
        for bad in [
            "",
            "127.0.0.1:8080",
            "ftp://x",
            "http://x/?a=1",
            "http://x/#f",
            "mailto:a@b",
        ] {
            assert!(
                LocalUrlSigner::new(bad, keys.clone()).is_err(),
                "accepted {bad:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn random_queries_never_verify(query in ".{0,300}", path in ".{0,140}") {
            let s = signer();
            let url = s.path_and_query(token(), 2_000_000_000);
            let (good_path, _) = split(&url);
            prop_assert!(s.verify(good_path, &query, now()).is_err());
            prop_assert!(s.verify(&path, &query, now()).is_err());
        }

        #[test]
        fn random_well_formed_queries_never_verify(
            expires in any::<u64>(),
            kid in "[A-Za-z0-9_-]{1,32}",
            signature in "[0-9a-f]{64}",
        ) {
            let s = signer();
            let url = s.path_and_query(token(), 2_000_000_000);
            let (path, _) = split(&url);
            let query = format!("expires={expires}&kid={kid}&signature={signature}");
            prop_assert!(s.verify(path, &query, now()).is_err());
        }

        #[test]
        fn any_single_character_change_is_refused(
            index in any::<prop::sample::Index>(),
            replacement in any::<char>(),
            kind in 0..3u8,
        ) {
            let s = signer();
            let url = s.path_and_query(token(), 2_000_000_000);
            let mut chars: Vec<char> = url.chars().collect();
            let i = index.index(chars.len());
            match kind {
                0 => {
                    prop_assume!(chars[i] != replacement);
                    chars[i] = replacement;
                }
                1 => chars.insert(i, replacement),
                _ => { chars.remove(i); }
            }
            let tampered: String = chars.into_iter().collect();
            // The HTTP layer splits at the first `?`; a tampered URL may have none.
            let (path, query) = tampered.split_once('?').unwrap_or((&tampered, ""));
            prop_assert!(
                s.verify(path, query, now()).is_err(),
                "accepted the tampered URL {tampered:?}"
            );
        }
    }
}
