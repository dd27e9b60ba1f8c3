//! The file-store and URL-signer suite.
//!
//! Every [`FileStore`] runs [`run_file_store_suite`]; every [`UrlSigner`] runs
//! [`run_url_signer_suite`] with a [`Fetcher`] that plays the customer's HTTP client. Each
//! check uses files of its own (fresh tokens), so the suite can share a store with other tests.
//! A failed check panics with a message that starts with the promise that was broken.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::ids::Token;
use crate::ports::{FileError, FileKey, FileStore, FileWriter, UrlSigner};

/// The size of the large file: 12 MiB, more than two parts of an S3 multipart upload.
pub const LARGE_FILE_BYTES: usize = 12 * 1024 * 1024;

/// Fetches signed URLs the way a customer's HTTP client does.
#[async_trait]
pub trait Fetcher: Send + Sync {
    /// GETs `url` at the instant `now` and returns the body of a success; `Err` with a
    /// description (such as the status) when the URL is refused.
    async fn get(&self, url: &str, now: DateTime<Utc>) -> Result<Bytes, String>;

    /// Lets `duration` pass after `now` and returns the new now: a test clock may jump, a real
    /// server needs a real wait.
    async fn wait(&self, now: DateTime<Utc>, duration: Duration) -> DateTime<Utc>;
}

/// Runs every file-store check.
pub async fn run_file_store_suite(store: &dyn FileStore) {
    small_file_reads_back(store).await;
    large_file_in_uneven_chunks_reads_back(store).await;
    empty_file_exists_and_is_empty(store).await;
    a_file_is_created_unless_it_exists(store).await;
    nothing_is_visible_before_finish(store).await;
    abort_leaves_nothing(store).await;
    dropped_writer_leaves_nothing(store).await;
    rewriting_replaces_the_file(store).await;
    abandoned_rewrite_keeps_the_previous_file(store).await;
    files_written_together_stay_apart(store).await;
    delete_removes_the_file(store).await;
    deleting_a_missing_file_succeeds(store).await;
    reading_a_missing_file_is_not_found(store).await;
}

/// Runs every URL-signer check, with files written to `store` and URLs signed at `now`.
pub async fn run_url_signer_suite(
    store: &dyn FileStore,
    signer: &dyn UrlSigner,
    fetcher: &dyn Fetcher,
    now: DateTime<Utc>,
) {
    signed_url_fetches_the_file(store, signer, fetcher, now).await;
    tampered_url_is_refused(store, signer, fetcher, now).await;
    expired_url_is_refused(store, signer, fetcher, now).await;
    url_of_a_deleted_file_is_refused(store, signer, fetcher, now).await;
}

fn fresh_key() -> FileKey {
    FileKey::for_token(Token(Uuid::new_v4()))
}

/// Bytes that differ from one position to the next, so that a lost, repeated or reordered
/// chunk shows.
fn content(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect()
}

/// Writes `chunks` to a new writer for `key`, without finishing.
async fn write_chunks(
    store: &dyn FileStore,
    key: &FileKey,
    chunks: &[&[u8]],
) -> Box<dyn FileWriter> {
    let mut writer = store
        .create(key)
        .await
        .unwrap_or_else(|e| panic!("a file can be created: {e}"));
    for chunk in chunks {
        writer
            .write(Bytes::copy_from_slice(chunk))
            .await
            .unwrap_or_else(|e| panic!("a chunk can be written: {e}"));
    }
    writer
}

async fn write_file(store: &dyn FileStore, key: &FileKey, chunks: &[&[u8]]) -> u64 {
    let writer = write_chunks(store, key, chunks).await;
    writer
        .finish()
        .await
        .unwrap_or_else(|e| panic!("a written file can be finished: {e}"))
}

async fn assert_absent(store: &dyn FileStore, key: &FileKey, promise: &str) {
    assert!(
        !store.exists(key).await.expect("exists answers"),
        "{promise}: exists() is true for {}",
        key.0
    );
    assert_eq!(
        store.read(key).await,
        Err(FileError::NotFound),
        "{promise}: read() of {} is not NotFound",
        key.0
    );
}

fn assert_same(read: &Bytes, written: &[u8], promise: &str) {
    if read.as_ref() != written {
        let at = read
            .iter()
            .zip(written)
            .position(|(a, b)| a != b)
            .unwrap_or(read.len().min(written.len()));
        panic!(
            "{promise}: read back {} bytes, wrote {}, first difference at byte {at}",
            read.len(),
            written.len()
        );
    }
}

/// A file written in a few chunks reads back byte for byte, and `finish` reports its size.
pub async fn small_file_reads_back(store: &dyn FileStore) {
    let key = fresh_key();
    let lines: [&[u8]; 3] = [
        b"{\"n\":1}\n",
        b"{\"n\":2,\"text\":\"\xc3\xa9t\xc3\xa9\"}\n",
        b"{}\n",
    ];
    let size = write_file(store, &key, &lines).await;
    let whole = lines.concat();
    assert_eq!(
        size,
        whole.len() as u64,
        "finish reports the file's size in bytes"
    );
    assert!(store.exists(&key).await.unwrap(), "a finished file exists");
    let read = store.read(&key).await.unwrap();
    assert_same(&read, &whole, "a written file reads back byte for byte");
    store.delete(&key).await.unwrap();
}

/// A 12 MiB file written in uneven chunks (more than one multipart part) reads back byte for
/// byte.
pub async fn large_file_in_uneven_chunks_reads_back(store: &dyn FileStore) {
    let key = fresh_key();
    let whole = content(LARGE_FILE_BYTES, 12);
    let mut chunks: Vec<&[u8]> = Vec::new();
    let mut rest = &whole[..];
    for size in [
        1,
        4095,
        3 * 1024 * 1024 + 7,
        64 * 1024,
        5 * 1024 * 1024 + 1,
        1,
    ]
    .into_iter()
    .cycle()
    {
        if rest.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        chunks.push(chunk);
        rest = tail;
    }
    let size = write_file(store, &key, &chunks).await;
    assert_eq!(
        size,
        whole.len() as u64,
        "finish reports a large file's size in bytes"
    );
    let read = store.read(&key).await.unwrap();
    assert_same(
        &read,
        &whole,
        "a large multi-chunk file reads back byte for byte",
    );
    store.delete(&key).await.unwrap();
}

/// A file finished without any write exists and is empty (a request with no alerts).
pub async fn empty_file_exists_and_is_empty(store: &dyn FileStore) {
    let key = fresh_key();
    assert_eq!(
        write_file(store, &key, &[]).await,
        0,
        "an empty file's size is 0"
    );
    assert!(
        store.exists(&key).await.unwrap(),
        "a finished empty file exists"
    );
    assert!(
        store.read(&key).await.unwrap().is_empty(),
        "an empty file reads back empty"
    );
    store.delete(&key).await.unwrap();
}

/// [`FileStore::create_unless_exists`] writes a file where none is, leaves a complete one
/// alone, and does not take a file still being written for one that exists.
pub async fn a_file_is_created_unless_it_exists(store: &dyn FileStore) {
    let key = fresh_key();
    let unfinished = store
        .create_unless_exists(&key)
        .await
        .unwrap()
        .expect("no file exists under a fresh key");
    let mut writer = store
        .create_unless_exists(&key)
        .await
        .unwrap()
        .expect("a file still being written does not exist yet");
    writer.write(Bytes::from_static(b"kept")).await.unwrap();
    writer.finish().await.unwrap();
    unfinished.abort().await.unwrap();
    assert!(
        store.create_unless_exists(&key).await.unwrap().is_none(),
        "a complete file is left alone"
    );
    assert_eq!(
        store.read(&key).await.unwrap().as_ref(),
        b"kept",
        "the complete file is unchanged"
    );
    store.delete(&key).await.unwrap();
}

/// Nothing is visible under a key while its file is being written, small or large.
pub async fn nothing_is_visible_before_finish(store: &dyn FileStore) {
    for len in [10, LARGE_FILE_BYTES] {
        let key = fresh_key();
        let data = content(len, 3);
        let writer = write_chunks(store, &key, &[&data]).await;
        assert_absent(store, &key, "nothing is visible before finish").await;
        writer.finish().await.unwrap();
        assert!(store.exists(&key).await.unwrap(), "a finished file exists");
        store.delete(&key).await.unwrap();
    }
}

/// An aborted writer leaves nothing behind, small or large.
pub async fn abort_leaves_nothing(store: &dyn FileStore) {
    for len in [10, LARGE_FILE_BYTES] {
        let key = fresh_key();
        let writer = write_chunks(store, &key, &[&content(len, 4)]).await;
        writer
            .abort()
            .await
            .unwrap_or_else(|e| panic!("a writer can be aborted: {e}"));
        assert_absent(store, &key, "an aborted writer leaves nothing").await;
    }
}

/// A writer dropped before finishing leaves nothing behind, small or large.
pub async fn dropped_writer_leaves_nothing(store: &dyn FileStore) {
    for len in [10, LARGE_FILE_BYTES] {
        let key = fresh_key();
        drop(write_chunks(store, &key, &[&content(len, 5)]).await);
        assert_absent(store, &key, "a dropped writer leaves nothing").await;
    }
}

/// Writing a key again replaces its file: one file, the new content, even when shorter.
pub async fn rewriting_replaces_the_file(store: &dyn FileStore) {
    let key = fresh_key();
    write_file(store, &key, &[b"first version, longer\n"]).await;
    write_file(store, &key, &[b"second\n"]).await;
    let read = store.read(&key).await.unwrap();
    assert_same(&read, b"second\n", "rewriting a key replaces its file");
    store.delete(&key).await.unwrap();
    assert_absent(
        store,
        &key,
        "a rewritten key holds one file, gone after one delete",
    )
    .await;
}

/// A rewrite that is aborted or dropped leaves the previous file as it was.
pub async fn abandoned_rewrite_keeps_the_previous_file(store: &dyn FileStore) {
    let key = fresh_key();
    write_file(store, &key, &[b"kept\n"]).await;
    let writer = write_chunks(store, &key, &[b"abandoned\n"]).await;
    writer.abort().await.unwrap();
    drop(write_chunks(store, &key, &[&content(LARGE_FILE_BYTES, 6)]).await);
    let read = store.read(&key).await.unwrap();
    assert_same(
        &read,
        b"kept\n",
        "an abandoned rewrite keeps the previous file",
    );
    store.delete(&key).await.unwrap();
}

/// Two files written at the same time, chunks interleaved, each get their own content.
pub async fn files_written_together_stay_apart(store: &dyn FileStore) {
    let (a, b) = (fresh_key(), fresh_key());
    let mut wa = store.create(&a).await.unwrap();
    let mut wb = store.create(&b).await.unwrap();
    for i in 0..3 {
        wa.write(Bytes::from(format!("a{i}\n"))).await.unwrap();
        wb.write(Bytes::from(format!("b{i}\n"))).await.unwrap();
    }
    wb.finish().await.unwrap();
    wa.finish().await.unwrap();
    let promise = "files written at the same time stay apart";
    assert_same(&store.read(&a).await.unwrap(), b"a0\na1\na2\n", promise);
    assert_same(&store.read(&b).await.unwrap(), b"b0\nb1\nb2\n", promise);
    store.delete(&a).await.unwrap();
    store.delete(&b).await.unwrap();
}

/// A deleted file no longer exists or reads, and other files are untouched.
pub async fn delete_removes_the_file(store: &dyn FileStore) {
    let (key, other) = (fresh_key(), fresh_key());
    write_file(store, &key, &[b"x\n"]).await;
    write_file(store, &other, &[b"y\n"]).await;
    store
        .delete(&key)
        .await
        .unwrap_or_else(|e| panic!("an existing file can be deleted: {e}"));
    assert_absent(store, &key, "a deleted file is gone").await;
    assert_same(
        &store.read(&other).await.unwrap(),
        b"y\n",
        "deleting a file leaves the others",
    );
    store.delete(&other).await.unwrap();
}

/// Deleting a file that does not exist (or was deleted already) succeeds.
pub async fn deleting_a_missing_file_succeeds(store: &dyn FileStore) {
    let key = fresh_key();
    assert_eq!(
        store.delete(&key).await,
        Ok(()),
        "deleting a missing file succeeds"
    );
    write_file(store, &key, &[b"x\n"]).await;
    store.delete(&key).await.unwrap();
    assert_eq!(
        store.delete(&key).await,
        Ok(()),
        "deleting a file twice succeeds"
    );
}

/// Reading a file that was never written is [`FileError::NotFound`], and it does not exist.
pub async fn reading_a_missing_file_is_not_found(store: &dyn FileStore) {
    assert_absent(
        store,
        &fresh_key(),
        "a missing file is NotFound and does not exist",
    )
    .await;
}

async fn sign(
    signer: &dyn UrlSigner,
    key: &FileKey,
    now: DateTime<Utc>,
    valid: Duration,
) -> String {
    signer
        .signed_url(key, now, valid)
        .await
        .unwrap_or_else(|e| panic!("a URL can be signed for {}: {e}", key.0))
}

const VALIDITY: Duration = Duration::from_secs(900);

/// A signed URL fetches its file byte for byte, and each file's URL fetches that file.
pub async fn signed_url_fetches_the_file(
    store: &dyn FileStore,
    signer: &dyn UrlSigner,
    fetcher: &dyn Fetcher,
    now: DateTime<Utc>,
) {
    let (a, b) = (fresh_key(), fresh_key());
    let body = content(100_000, 7);
    write_file(store, &a, &[&body]).await;
    write_file(store, &b, &[b"other\n"]).await;
    let url = sign(signer, &a, now, VALIDITY).await;
    let got = fetcher
        .get(&url, now)
        .await
        .unwrap_or_else(|e| panic!("a signed URL fetches its file, but {url} was refused: {e}"));
    assert_same(&got, &body, "a signed URL fetches its file byte for byte");
    let got = fetcher
        .get(&sign(signer, &b, now, VALIDITY).await, now)
        .await
        .unwrap();
    assert_same(&got, b"other\n", "each file's signed URL fetches that file");
    store.delete(&a).await.unwrap();
    store.delete(&b).await.unwrap();
}

fn change_char(url: &str, index: usize) -> String {
    let mut bytes = url.as_bytes().to_vec();
    bytes[index] = match bytes[index] {
        b'0' => b'1',
        b'a' => b'b',
        b'A' => b'B',
        c if c.is_ascii_digit() || c.is_ascii_lowercase() || c.is_ascii_uppercase() => c - 1,
        _ => b'0',
    };
    String::from_utf8(bytes).unwrap()
}

/// A signed URL with its signature changed, or pointed at another existing file, is refused.
pub async fn tampered_url_is_refused(
    store: &dyn FileStore,
    signer: &dyn UrlSigner,
    fetcher: &dyn Fetcher,
    now: DateTime<Utc>,
) {
    // Two tokens one character apart, so that a URL for one can be turned into the other.
    let first = Uuid::new_v4();
    let text = first.hyphenated().to_string();
    let neighbour_text = format!(
        "{}{}",
        if text.starts_with('0') { '1' } else { '0' },
        &text[1..]
    );
    let neighbour = Token(Uuid::parse_str(&neighbour_text).unwrap());
    let (key, other) = (
        FileKey::for_token(Token(first)),
        FileKey::for_token(neighbour),
    );
    write_file(store, &key, &[b"mine\n"]).await;
    write_file(store, &other, &[b"someone else's\n"]).await;
    let url = sign(signer, &key, now, VALIDITY).await;
    fetcher.get(&url, now).await.unwrap();

    // Both URL formats end with the signature.
    let signature_changed = change_char(&url, url.len() - 1);
    let refused = fetcher.get(&signature_changed, now).await;
    assert!(
        refused.is_err(),
        "a URL whose signature was changed is refused, but {signature_changed} was served"
    );
    let at = url.find(&text).expect("a file's URL names its token");
    let retargeted = format!(
        "{}{}{}",
        &url[..at],
        neighbour_text,
        &url[at + text.len()..]
    );
    let refused = fetcher.get(&retargeted, now).await;
    assert!(
        refused.is_err(),
        "a URL pointed at another file is refused, but {retargeted} served {:?}",
        refused.map(|b| String::from_utf8_lossy(&b).into_owned())
    );
    store.delete(&key).await.unwrap();
    store.delete(&other).await.unwrap();
}

/// A URL is refused once its validity has passed.
pub async fn expired_url_is_refused(
    store: &dyn FileStore,
    signer: &dyn UrlSigner,
    fetcher: &dyn Fetcher,
    now: DateTime<Utc>,
) {
    let key = fresh_key();
    write_file(store, &key, &[b"short-lived\n"]).await;
    // Long enough that a loaded machine still fetches in time, short enough to wait out.
    let valid = Duration::from_secs(5);
    let url = sign(signer, &key, now, valid).await;
    fetcher
        .get(&url, now)
        .await
        .unwrap_or_else(|e| panic!("a URL is served within its validity, but was refused: {e}"));
    let later = fetcher.wait(now, valid + Duration::from_millis(1500)).await;
    assert!(
        fetcher.get(&url, later).await.is_err(),
        "a URL is refused after its validity, but {url} was served at {later}"
    );
    store.delete(&key).await.unwrap();
}

/// A URL for a file that was deleted fetches nothing.
pub async fn url_of_a_deleted_file_is_refused(
    store: &dyn FileStore,
    signer: &dyn UrlSigner,
    fetcher: &dyn Fetcher,
    now: DateTime<Utc>,
) {
    let key = fresh_key();
    write_file(store, &key, &[b"gone soon\n"]).await;
    let url = sign(signer, &key, now, VALIDITY).await;
    store.delete(&key).await.unwrap();
    assert!(
        fetcher.get(&url, now).await.is_err(),
        "a deleted file cannot be fetched, but {url} was served"
    );
}
