//! The local filesystem: the conformance suites, the server's signed URLs, retention.

use std::sync::Arc;
use std::time::Duration;

use alerts_core::conformance::files::{Fetcher, run_file_store_suite, run_url_signer_suite};
use alerts_core::ids::Token;
use alerts_core::ports::{FileKey, FileStore, UrlSigner};
use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use insights_objects::{
    LOCAL_PART_SIZE, LocalUrlSigner, MIN_PART_SIZE, ObjectFileStore, UrlKey, UrlKeys, VerifyError,
    open_local,
};

use crate::support::TempDir;

const BASE: &str = "http://127.0.0.1:8080";

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap()
}

fn keys(ids: &[&str]) -> UrlKeys {
    let mut keys = ids
        .iter()
        .enumerate()
        .map(|(i, id)| UrlKey::new(*id, vec![i as u8 + 1; 32]).unwrap());
    let current = keys.next().unwrap();
    UrlKeys::new(current, keys).unwrap()
}

/// What the HTTP layer does: verify the URL's path and query, then serve the file.
struct LocalFetcher {
    signer: Arc<LocalUrlSigner>,
    store: Arc<ObjectFileStore>,
}

#[async_trait]
impl Fetcher for LocalFetcher {
    async fn get(&self, url: &str, now: DateTime<Utc>) -> Result<Bytes, String> {
        let rest = url.strip_prefix(BASE).ok_or("another host")?;
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let key = self
            .signer
            .verify(path, query, now)
            .map_err(|e| e.to_string())?;
        self.store.read(&key).await.map_err(|e| e.to_string())
    }

    async fn wait(&self, now: DateTime<Utc>, duration: Duration) -> DateTime<Utc> {
        now + TimeDelta::from_std(duration).unwrap()
    }
}

/// Files left in `dir`, staging files of unfinished uploads included.
fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[tokio::test]
async fn local_files_pass_the_file_store_suite_and_leave_no_staging_files() {
    let dir = TempDir::new();
    let store = open_local(dir.path()).unwrap();
    run_file_store_suite(&store).await;
    // Dropped uploads are cleaned up in the background; give that a moment.
    for _ in 0..40 {
        if files_in(dir.path()).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        files_in(dir.path()),
        Vec::<String>::new(),
        "every file was deleted or abandoned"
    );
}

#[tokio::test]
async fn local_files_are_staged_on_disk_and_appear_only_when_finished() {
    let dir = TempDir::new();
    let store = open_local(dir.path()).unwrap();
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    let mut writer = store.create(&key).await.unwrap();
    writer.write(Bytes::from(vec![b'x'; 1024])).await.unwrap();
    writer
        .write(Bytes::from(vec![b'y'; 6 * 1024 * 1024]))
        .await
        .unwrap();
    // Written to a private staging file from the first byte, never held whole in memory.
    let staged = files_in(dir.path());
    assert_eq!(
        staged.len(),
        1,
        "one staging file while the file is written"
    );
    assert_ne!(
        staged[0],
        dir.path().join(&key.0).display().to_string(),
        "the staging file is not the file"
    );
    assert!(
        !store.exists(&key).await.unwrap(),
        "an unfinished file does not exist"
    );
    writer.finish().await.unwrap();
    assert_eq!(
        files_in(dir.path()),
        vec![dir.path().join(&key.0).display().to_string()]
    );
}

#[tokio::test]
async fn local_files_go_to_disk_past_one_local_part_and_read_back_whole() {
    let dir = TempDir::new();
    let store = open_local(dir.path()).unwrap();
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    let mut writer = store.create(&key).await.unwrap();
    // Chunks as the alert worker writes them, numbered so that a lost or reordered one shows.
    let chunk = |i: usize| Bytes::from(format!("{i:08}\n").repeat(8 * 1024));
    let chunks = 3 * LOCAL_PART_SIZE / chunk(0).len() + 1;
    let mut expected = Vec::new();
    for i in 0..chunks {
        writer.write(chunk(i)).await.unwrap();
        expected.extend_from_slice(&chunk(i));
        if expected.len() > LOCAL_PART_SIZE {
            assert_eq!(
                files_in(dir.path()).len(),
                1,
                "past one local part ({LOCAL_PART_SIZE} bytes) the file is on disk"
            );
        }
    }
    assert!(expected.len() < MIN_PART_SIZE, "smaller than one S3 part");
    writer.finish().await.unwrap();
    assert_eq!(store.read(&key).await.unwrap(), expected);
}

#[tokio::test]
async fn local_urls_pass_the_url_signer_suite() {
    let dir = TempDir::new();
    let store = Arc::new(open_local(dir.path()).unwrap());
    let signer = Arc::new(LocalUrlSigner::new(BASE, keys(&["k1"])).unwrap());
    let fetcher = LocalFetcher {
        signer: signer.clone(),
        store: store.clone(),
    };
    run_url_signer_suite(store.as_ref(), signer.as_ref(), &fetcher, now()).await;
}

async fn signed(signer: &LocalUrlSigner, token: Token) -> (String, String) {
    let url = signer
        .signed_url(&FileKey::for_token(token), now(), Duration::from_secs(900))
        .await
        .unwrap();
    let (path, query) = url.strip_prefix(BASE).unwrap().split_once('?').unwrap();
    (path.to_owned(), query.to_owned())
}

fn param<'a>(query: &'a str, name: &str) -> &'a str {
    query
        .split('&')
        .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
        .unwrap()
}

fn replace_param(query: &str, name: &str, value: &str) -> String {
    let old = format!("{name}={}", param(query, name));
    query.replace(&old, &format!("{name}={value}"))
}

#[tokio::test]
async fn a_signed_url_round_trips_and_expires_after_900_seconds() {
    let signer = LocalUrlSigner::new(BASE, keys(&["k1"])).unwrap();
    let token = Token(uuid::Uuid::new_v4());
    let (path, query) = signed(&signer, token).await;
    assert_eq!(path, format!("/insights/v1/files/{token}.ndjson"));
    assert_eq!(
        param(&query, "expires"),
        (now().timestamp() + 900).to_string()
    );
    assert_eq!(param(&query, "kid"), "k1");
    assert_eq!(param(&query, "signature").len(), 64);
    let file = Ok(FileKey::for_token(token));
    assert_eq!(signer.verify(&path, &query, now()), file);
    let last = now() + TimeDelta::seconds(900) - TimeDelta::nanoseconds(1);
    assert_eq!(signer.verify(&path, &query, last), file);
    for later in [900, 901, 86_400] {
        assert_eq!(
            signer.verify(&path, &query, now() + TimeDelta::seconds(later)),
            Err(VerifyError::Expired),
            "{later} s after signing"
        );
    }
}

#[tokio::test]
async fn tampered_paths_expiries_signatures_and_key_ids_are_refused() {
    let signer = LocalUrlSigner::new(BASE, keys(&["k1", "k0"])).unwrap();
    let (path, query) = signed(&signer, Token(uuid::Uuid::new_v4())).await;

    let other = format!("/insights/v1/files/{}.ndjson", uuid::Uuid::new_v4());
    assert_eq!(
        signer.verify(&other, &query, now()),
        Err(VerifyError::BadSignature)
    );

    let expires: u64 = param(&query, "expires").parse().unwrap();
    for e in [expires + 1, expires - 1, expires + 86_400] {
        let q = replace_param(&query, "expires", &e.to_string());
        assert_eq!(
            signer.verify(&path, &q, now()),
            Err(VerifyError::BadSignature),
            "expires={e}"
        );
    }

    let sig = param(&query, "signature");
    let flipped = format!(
        "{}{}",
        if sig.starts_with('0') { '1' } else { '0' },
        &sig[1..]
    );
    let q = replace_param(&query, "signature", &flipped);
    assert_eq!(
        signer.verify(&path, &q, now()),
        Err(VerifyError::BadSignature)
    );

    // Another known key must not vouch for this key's signature.
    let q = replace_param(&query, "kid", "k0");
    assert_eq!(
        signer.verify(&path, &q, now()),
        Err(VerifyError::BadSignature)
    );
    let q = replace_param(&query, "kid", "k2");
    assert_eq!(
        signer.verify(&path, &q, now()),
        Err(VerifyError::UnknownKey)
    );

    // A refused URL stays refused after its expiry: it is not reported as merely expired.
    let later = now() + TimeDelta::seconds(1000);
    let q = replace_param(&query, "signature", &flipped);
    assert_eq!(
        signer.verify(&path, &q, later),
        Err(VerifyError::BadSignature)
    );
}

#[tokio::test]
async fn rotated_keys_keep_old_urls_valid_while_the_old_key_is_known() {
    let before = LocalUrlSigner::new(BASE, keys(&["k1"])).unwrap();
    let token = Token(uuid::Uuid::new_v4());
    let (path, old_query) = signed(&before, token).await;

    let rotated_keys = before
        .keys()
        .rotated(UrlKey::new("k2", [9u8; 32]).unwrap(), 1)
        .unwrap();
    let after = LocalUrlSigner::new(BASE, rotated_keys.clone()).unwrap();
    assert_eq!(
        after.verify(&path, &old_query, now()),
        Ok(FileKey::for_token(token))
    );
    let (_, new_query) = signed(&after, token).await;
    assert_eq!(
        param(&new_query, "kid"),
        "k2",
        "new URLs are signed with the new key"
    );
    assert_eq!(
        after.verify(&path, &new_query, now()),
        Ok(FileKey::for_token(token))
    );
    assert_eq!(
        before.verify(&path, &new_query, now()),
        Err(VerifyError::UnknownKey),
        "a server that does not know the new key refuses its URLs"
    );

    let retired = LocalUrlSigner::new(
        BASE,
        rotated_keys
            .rotated(UrlKey::new("k3", [8u8; 32]).unwrap(), 1)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        retired.verify(&path, &old_query, now()),
        Err(VerifyError::UnknownKey)
    );
    assert_eq!(
        retired.verify(&path, &new_query, now()),
        Ok(FileKey::for_token(token))
    );
}

#[tokio::test]
async fn only_alert_files_get_urls() {
    let signer = LocalUrlSigner::new(BASE, keys(&["k1"])).unwrap();
    for key in [
        "other/x.ndjson",
        "alerts/../x.ndjson",
        "alerts/not-a-token.ndjson",
    ] {
        let result = signer
            .signed_url(&FileKey(key.to_owned()), now(), Duration::from_secs(900))
            .await;
        assert!(result.is_err(), "signed {key}");
    }
}

#[tokio::test]
async fn retention_deletes_only_files_older_than_the_cutoff() {
    let dir = TempDir::new();
    let store = open_local(dir.path()).unwrap();
    let (old, new) = (
        FileKey::for_token(Token(uuid::Uuid::new_v4())),
        FileKey::for_token(Token(uuid::Uuid::new_v4())),
    );
    for key in [&old, &new] {
        let mut w = store.create(key).await.unwrap();
        w.write(Bytes::from_static(b"x\n")).await.unwrap();
        w.finish().await.unwrap();
        // Modification times have a resolution of their own; keep the two files apart.
        tokio::time::sleep(Duration::from_millis(1100)).await;
    }
    let new_written = std::fs::metadata(dir.path().join(&new.0))
        .unwrap()
        .modified()
        .unwrap();
    let cutoff = DateTime::<Utc>::from(new_written) - TimeDelta::milliseconds(500);
    assert_eq!(
        store.delete_older_than(cutoff - TimeDelta::hours(1)).await,
        Ok(0)
    );
    assert_eq!(store.delete_older_than(cutoff).await, Ok(1));
    assert!(!store.exists(&old).await.unwrap());
    assert!(store.exists(&new).await.unwrap());
    assert_eq!(
        store
            .delete_older_than(Utc::now() + TimeDelta::minutes(1))
            .await,
        Ok(1)
    );
    assert!(!store.exists(&new).await.unwrap());
}

#[tokio::test]
async fn retention_sweeps_staging_files_left_by_a_crashed_writer() {
    let dir = TempDir::new();
    let store = open_local(dir.path()).unwrap();
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    let mut writer = store.create(&key).await.unwrap();
    writer
        .write(Bytes::from(vec![b'x'; 6 * 1024 * 1024]))
        .await
        .unwrap();
    // A crash: no destructor runs.
    std::mem::forget(writer);
    assert_eq!(files_in(dir.path()).len(), 1);
    assert_eq!(
        store
            .delete_older_than(Utc::now() - TimeDelta::hours(1))
            .await,
        Ok(0)
    );
    assert_eq!(
        files_in(dir.path()).len(),
        1,
        "a recent upload may still be going on"
    );
    assert_eq!(
        store
            .delete_older_than(Utc::now() + TimeDelta::minutes(1))
            .await,
        Ok(0)
    );
    assert_eq!(files_in(dir.path()), Vec::<String>::new());
}

#[tokio::test]
async fn invalid_keys_are_errors_not_panics() {
    let dir = TempDir::new();
    let store = open_local(dir.path()).unwrap();
    for key in ["", "/abs", "a//b", "../escape", "alerts/./x"] {
        let key = FileKey(key.to_owned());
        assert!(store.create(&key).await.is_err(), "created {:?}", key.0);
        assert!(store.read(&key).await.is_err());
        assert!(store.exists(&key).await.is_err());
        assert!(store.delete(&key).await.is_err());
    }
}
