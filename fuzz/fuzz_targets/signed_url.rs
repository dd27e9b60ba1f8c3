//! The server's signed file URLs: no path and query string verify unless they are, up to the
//! order of the parameters, one that a signer holding the server's keys made, and only such a
//! genuine URL is ever reported as expired. A URL the server signs for the input's token and
//! time verifies until its expiry.
//!
//! An input is the request's path and query (split at the first `?`), optionally preceded by a
//! line `@<unix seconds>` giving the time of the request (default: 2026-05-01T12:00:00Z).

#![no_main]

use std::sync::LazyLock;

use alerts_core::ids::Token;
use alerts_core::ports::{FileKey, UrlSigner};
use chrono::{DateTime, TimeDelta, Utc};
use insights_objects::local_urls::{
    DEFAULT_URL_VALIDITY, FILES_PATH, LocalUrlSigner, UrlKey, UrlKeys, VerifyError,
};
use libfuzzer_sys::fuzz_target;

const NOW: i64 = 1_777_636_800;
const BASE: &str = "https://insights.example.com";

fn key(id: &str, byte: u8) -> UrlKey {
    UrlKey::new(id, [byte; 32]).unwrap_or_else(|e| panic!("fuzz key: {e}"))
}

fn signer(current: UrlKey, previous: Vec<UrlKey>) -> LocalUrlSigner {
    let keys = UrlKeys::new(current, previous).unwrap_or_else(|e| panic!("fuzz keys: {e}"));
    LocalUrlSigner::new(BASE, keys).unwrap_or_else(|e| panic!("fuzz signer: {e}"))
}

/// The server under test: signs with `k2`, still accepts `k1`.
static SERVER: LazyLock<LocalUrlSigner> =
    LazyLock::new(|| signer(key("k2", 2), vec![key("k1", 1)]));
/// Every signer whose URLs the server must accept: its own and the one it rotated away from.
static GENUINE: LazyLock<[LocalUrlSigner; 2]> =
    LazyLock::new(|| [signer(key("k2", 2), vec![]), signer(key("k1", 1), vec![])]);

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (now, url) = match text.strip_prefix('@').and_then(|t| t.split_once('\n')) {
        Some((seconds, url)) => match seconds
            .parse::<i64>()
            .ok()
            .and_then(|s| DateTime::from_timestamp(s, 0))
        {
            Some(now) => (now, url),
            None => return,
        },
        None => (DateTime::from_timestamp(NOW, 0).unwrap_or_default(), text),
    };
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let result = SERVER.verify(path, query, now);
    match &result {
        Ok(file) => {
            let expires = assert_genuine(path, query, Some(file));
            assert!(
                i128::from(now.timestamp()) < i128::from(expires),
                "{url} at {now}"
            );
        }
        Err(VerifyError::Expired) => {
            let expires = assert_genuine(path, query, None);
            assert!(
                i128::from(now.timestamp()) >= i128::from(expires),
                "{url} at {now}"
            );
        }
        Err(VerifyError::Malformed(why)) => assert!(!why.is_empty()),
        Err(VerifyError::UnknownKey | VerifyError::BadSignature) => {}
    }
    // Only the expiry depends on the time: any other verdict is the same at every instant.
    for other in [DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC] {
        let again = SERVER.verify(path, query, other);
        match (&result, &again) {
            (Ok(_) | Err(VerifyError::Expired), Ok(_) | Err(VerifyError::Expired)) => {}
            (first, again) => assert_eq!(first, again, "{url} at {now} and at {other}"),
        }
    }
    if let Some(token) = path
        .strip_prefix(FILES_PATH)
        .and_then(|rest| rest.strip_suffix(".ndjson"))
        .and_then(|t| t.parse::<Token>().ok())
    {
        check_signing(token, now);
    }
});

/// What the server signs at `now` verifies from then until its expiry, and not at it; a time
/// whose expiry falls before 1970 or past the calendar's end is refused, never signed.
fn check_signing(token: Token, now: DateTime<Utc>) {
    let file = FileKey::for_token(token);
    let signed = futures::executor::block_on(SERVER.signed_url(&file, now, DEFAULT_URL_VALIDITY));
    let validity = i64::try_from(DEFAULT_URL_VALIDITY.as_secs()).unwrap_or(i64::MAX);
    let expires = now
        .checked_add_signed(TimeDelta::seconds(validity))
        .filter(|t| t.timestamp() >= 0);
    let (signed, expires) = match (signed, expires) {
        (Ok(url), Some(expires)) => (url, expires),
        (Err(_), None) => return,
        (signed, expires) => panic!("signing at {now} (expiry {expires:?}) gave {signed:?}"),
    };
    let Some((path, query)) = signed
        .strip_prefix(BASE)
        .and_then(|rest| rest.split_once('?'))
    else {
        panic!("{signed} is not on {BASE} with a query");
    };
    let last_valid = expires - TimeDelta::seconds(1);
    for at in [now, last_valid] {
        assert_eq!(
            SERVER.verify(path, query, at),
            Ok(file.clone()),
            "{signed} at {at}"
        );
    }
    assert_eq!(
        SERVER.verify(path, query, expires),
        Err(VerifyError::Expired),
        "{signed} at {expires}"
    );
}

/// Asserts that `path` and `query` are a URL one of the genuine signers made (parameters in
/// any order) for the file `file`, and returns its expiry.
fn assert_genuine(path: &str, query: &str, file: Option<&FileKey>) -> u64 {
    let token: Token = path
        .strip_prefix(FILES_PATH)
        .and_then(|rest| rest.strip_suffix(".ndjson"))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{path} verified but names no token"));
    if let Some(file) = file {
        assert_eq!(file, &FileKey::for_token(token), "{path}");
    }
    let expires: u64 = query
        .split('&')
        .find_map(|p| p.strip_prefix("expires="))
        .and_then(|e| e.parse().ok())
        .unwrap_or_else(|| panic!("{path}?{query} verified without an expiry"));
    let mut params: Vec<&str> = query.split('&').collect();
    params.sort_unstable();
    let made = GENUINE.iter().any(|signer| {
        let genuine = signer.path_and_query(token, expires);
        let Some((genuine_path, genuine_query)) = genuine.split_once('?') else {
            return false;
        };
        let mut genuine_params: Vec<&str> = genuine_query.split('&').collect();
        genuine_params.sort_unstable();
        genuine_path == path && genuine_params == params
    });
    assert!(made, "{path}?{query} verified but no signer made it");
    expires
}
