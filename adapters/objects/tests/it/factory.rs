//! `open_files`: from the server's configuration to a working file store and signer.

use std::time::Duration;

use alerts_core::ids::Token;
use alerts_core::ports::{FileKey, FileStore};
use bytes::Bytes;
use chrono::Utc;
use insights_objects::{FilesConfigError, open_files};

use crate::support::TempDir;

#[tokio::test]
async fn the_embedded_default_writes_under_the_data_dir_and_keeps_its_url_key() {
    let data = TempDir::new();
    let files = open_files("", data.path(), "http://127.0.0.1:8080/", None).unwrap();
    let key = FileKey::for_token(Token(uuid::Uuid::new_v4()));
    let mut writer = files.file_store().create(&key).await.unwrap();
    writer.write(Bytes::from_static(b"{}\n")).await.unwrap();
    writer.finish().await.unwrap();
    assert!(data.path().join("files").join(&key.0).is_file());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data.path().join("url-keys"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the URL key file is private to its owner");
    }

    let now = Utc::now();
    let url = files
        .signer
        .signed_url(&key, now, Duration::from_secs(900))
        .await
        .unwrap();
    let rest = url.strip_prefix("http://127.0.0.1:8080").unwrap();
    let (path, query) = rest.split_once('?').unwrap();

    // A restarted server reads the same key file, so URLs it handed out stay valid.
    let restarted = open_files("", data.path(), "http://127.0.0.1:8080", None).unwrap();
    let verifier = restarted.local_urls.unwrap();
    assert_eq!(verifier.verify(path, query, now), Ok(key.clone()));
    assert_eq!(restarted.store.read(&key).await.unwrap(), "{}\n");
}

#[test]
fn bad_values_say_what_to_write() {
    let data = TempDir::new();
    let err = open_files("gs://bucket", data.path(), "http://127.0.0.1:8080", None).unwrap_err();
    assert!(matches!(err, FilesConfigError::Scheme(_)));
    assert!(err.to_string().contains("s3://"), "{err}");
    let err = open_files(
        "file://relative/dir",
        data.path(),
        "http://127.0.0.1:8080",
        None,
    )
    .unwrap_err();
    assert!(matches!(err, FilesConfigError::FileUrl(_)), "{err}");
    let err = open_files("", data.path(), "not a url", None).unwrap_err();
    assert!(matches!(err, FilesConfigError::Urls(_)), "{err}");
    std::fs::write(data.path().join("url-keys"), "k1 tooshort\n").unwrap();
    let err = open_files("", data.path(), "http://127.0.0.1:8080", None).unwrap_err();
    assert!(err.to_string().contains("url-keys"), "{err}");
}
