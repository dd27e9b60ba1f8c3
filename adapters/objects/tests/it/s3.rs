//! S3, against a real S3 server (`s3s-fs`) on loopback: the conformance suites, presigned URLs
//! over plain HTTP, retention.

use std::time::Duration;

use alerts_core::conformance::files::{Fetcher, run_file_store_suite, run_url_signer_suite};
use alerts_core::ids::Token;
use alerts_core::ports::{FileError, FileKey, FileStore, UrlSigner};
use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, TimeDelta, Utc};
use insights_objects::{ObjectFileStore, S3Settings, S3UrlSigner};

use crate::support::{ACCESS_KEY, BUCKET, S3Server, SECRET_KEY};

fn settings(server: &S3Server, prefix: &str) -> S3Settings {
    S3Settings::new(&format!("s3://{BUCKET}/{prefix}"))
        .unwrap()
        .with_endpoint(&server.endpoint)
        .with_credentials(ACCESS_KEY, SECRET_KEY)
}

fn open(server: &S3Server, prefix: &str) -> (ObjectFileStore, S3UrlSigner) {
    settings(server, prefix).open(Some("open-meteo")).unwrap()
}

/// A customer's HTTP client, on the real clock.
struct HttpFetcher(reqwest::Client);

impl HttpFetcher {
    fn new() -> Self {
        Self(reqwest::Client::builder().no_proxy().build().unwrap())
    }
}

#[async_trait]
impl Fetcher for HttpFetcher {
    async fn get(&self, url: &str, _now: DateTime<Utc>) -> Result<Bytes, String> {
        let response = self.0.get(url).send().await.map_err(|e| e.to_string())?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("HTTP {status}"));
        }
        response.bytes().await.map_err(|e| e.to_string())
    }

    async fn wait(&self, _now: DateTime<Utc>, duration: Duration) -> DateTime<Utc> {
        tokio::time::sleep(duration).await;
        Utc::now()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_passes_the_file_store_suite() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let (store, _) = open(&server, "suite");
    run_file_store_suite(&store).await;
    assert_eq!(
        server.wait_for_no_uploads().await,
        Vec::<String>::new(),
        "aborted and dropped writers leave no parts behind"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_files_are_streamed_in_parts_and_small_ones_put_whole() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let (store, _) = open(&server, "");
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    let mut writer = store.create(&key).await.unwrap();
    writer.write(Bytes::from(vec![b'x'; 1024])).await.unwrap();
    assert!(
        server.upload_files().is_empty(),
        "a small file is buffered, then put whole"
    );
    writer
        .write(Bytes::from(vec![b'y'; 6 * 1024 * 1024]))
        .await
        .unwrap();
    // Parts are uploaded in the background while the writer goes on.
    let mut parts = Vec::new();
    for _ in 0..100 {
        parts = server.upload_files();
        if parts.iter().any(|f| f.contains(".part-")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        parts.iter().any(|f| f.contains(".part-")),
        "past one part, a file is streamed as a multipart upload: {parts:?}"
    );
    assert!(!store.exists(&key).await.unwrap());
    assert_eq!(writer.finish().await.unwrap(), 1024 + 6 * 1024 * 1024);
    assert_eq!(server.upload_files(), Vec::<String>::new());
    assert_eq!(
        store.read(&key).await.unwrap().len(),
        1024 + 6 * 1024 * 1024
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_large_writer_abandons_its_upload_in_the_background() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let (store, _) = open(&server, "");
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    let mut writer = store.create(&key).await.unwrap();
    writer
        .write(Bytes::from(vec![b'z'; 6 * 1024 * 1024]))
        .await
        .unwrap();
    assert!(!server.upload_files().is_empty(), "the upload has started");
    drop(writer);
    assert_eq!(server.wait_for_no_uploads().await, Vec::<String>::new());
    assert!(!store.exists(&key).await.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_presigned_urls_pass_the_url_signer_suite() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let (store, signer) = open(&server, "");
    run_url_signer_suite(&store, &signer, &HttpFetcher::new(), Utc::now()).await;
}

async fn put(store: &ObjectFileStore, key: &FileKey, body: &'static [u8]) {
    let mut writer = store.create(key).await.unwrap();
    writer.write(Bytes::from_static(body)).await.unwrap();
    writer.finish().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_presigned_url_serves_ndjson_for_900_seconds_and_tampering_is_refused() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let (store, signer) = open(&server, "files");
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    put(&store, &key, b"{\"n\":1}\n").await;
    let url = signer
        .signed_url(&key, Utc::now(), Duration::from_secs(900))
        .await
        .unwrap();
    assert!(url.contains("X-Amz-Expires=900"), "{url}");
    assert!(url.contains(&format!("/{BUCKET}/files/{}", key.0)), "{url}");

    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let response = client.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers().get("content-type").unwrap(),
        "application/x-ndjson"
    );
    assert_eq!(response.bytes().await.unwrap(), "{\"n\":1}\n");

    let signature_at = url.find("X-Amz-Signature=").unwrap() + "X-Amz-Signature=".len();
    let mut tampered_signature = url.clone().into_bytes();
    tampered_signature[signature_at] = if url.as_bytes()[signature_at] == b'0' {
        b'1'
    } else {
        b'0'
    };
    let tampered_key = url.replace(".ndjson", ".json");
    let longer = url.replace("X-Amz-Expires=900", "X-Amz-Expires=9000");
    for tampered in [
        String::from_utf8(tampered_signature).unwrap(),
        tampered_key,
        longer,
    ] {
        let status = client.get(&tampered).send().await.unwrap().status();
        assert_eq!(status, 403, "{tampered}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_presigned_url_is_refused() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let (store, signer) = open(&server, "");
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    put(&store, &key, b"x\n").await;
    let url = signer
        .signed_url(&key, Utc::now(), Duration::from_secs(1))
        .await
        .unwrap();
    // Presigned URLs count whole seconds from the signing second.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    assert_eq!(client.get(&url).send().await.unwrap().status(), 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presigned_validity_must_be_between_a_second_and_a_week() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let (_, signer) = open(&server, "");
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    for bad in [
        Duration::ZERO,
        Duration::from_millis(999),
        Duration::from_secs(8 * 86_400),
    ] {
        assert!(matches!(
            signer.signed_url(&key, Utc::now(), bad).await,
            Err(FileError::Other(_))
        ));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retention_on_s3_deletes_old_files_under_its_prefix_only() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let (mine, _) = open(&server, "mine");
    let (theirs, _) = open(&server, "theirs");
    let (a, b) = (
        FileKey::for_token(Token(uuid::Uuid::new_v4())),
        FileKey::for_token(Token(uuid::Uuid::new_v4())),
    );
    put(&mine, &a, b"a\n").await;
    put(&mine, &b, b"b\n").await;
    put(&theirs, &a, b"a\n").await;
    assert_eq!(
        mine.delete_older_than(Utc::now() - TimeDelta::hours(1))
            .await,
        Ok(0)
    );
    assert_eq!(
        mine.delete_older_than(Utc::now() + TimeDelta::minutes(1))
            .await,
        Ok(2)
    );
    assert!(!mine.exists(&a).await.unwrap() && !mine.exists(&b).await.unwrap());
    assert!(
        theirs.exists(&a).await.unwrap(),
        "another prefix is left alone"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_credentials_are_reported_as_such() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let (store, _) = settings(&server, "")
        .with_credentials(ACCESS_KEY, "wrong-secret")
        .open(None)
        .unwrap();
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    let error = store.exists(&key).await.unwrap_err();
    assert!(
        error.to_string().contains("403") || error.to_string().contains("credentials"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_is_unavailable() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let settings = S3Settings::new(&format!("s3://{BUCKET}"))
        .unwrap()
        .with_endpoint(format!("http://127.0.0.1:{port}"))
        .with_credentials(ACCESS_KEY, SECRET_KEY);
    let (store, _) = settings.open(None).unwrap();
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    assert!(matches!(
        store.read(&key).await,
        Err(FileError::Unavailable(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_presigned_download_names_the_data_source() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let (store, signer) = open(&server, "labelled");
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    let mut writer = store.create(&key).await.unwrap();
    writer.write(Bytes::from_static(b"{}\n")).await.unwrap();
    writer.finish().await.unwrap();
    let url = signer
        .signed_url(&key, Utc::now(), Duration::from_secs(60))
        .await
        .unwrap();
    let response = HttpFetcher::new().0.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["x-amz-meta-insights-data-source"],
        "open-meteo",
        "{:?}",
        response.headers()
    );
}
