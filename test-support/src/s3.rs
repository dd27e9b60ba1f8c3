//! An `s3s-fs` S3 server on loopback, for the object-store and scale-out tests.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::find_tool;

/// The access key the server accepts.
pub const ACCESS_KEY: &str = "insights-test";
/// The secret key the server accepts.
pub const SECRET_KEY: &str = "insights-test-secret";
/// The one bucket the server holds.
pub const BUCKET: &str = "insights-files";

const INSTALL: &str = "install it with `cargo install s3s-fs@0.14.1 --locked --features binary \
     --root $HOME/.cache/insights/tools`";

/// An `s3s-fs` process serving a fresh directory with one bucket, [`BUCKET`]; killed when
/// dropped.
#[derive(Debug)]
pub struct S3Server {
    child: Child,
    /// The server's URL, `http://127.0.0.1:<port>`.
    pub endpoint: String,
    root: PathBuf,
    _dir: TempDir,
}

impl S3Server {
    /// A running server, or `None` when s3s-fs is absent and the test is to skip (see
    /// [`crate::absent`]).
    ///
    /// # Panics
    /// When the server cannot be started or does not listen within 15 seconds.
    #[must_use]
    pub fn start() -> Option<Self> {
        let binary = find_tool("S3S_FS_BIN", "bin/s3s-fs", "s3s-fs", INSTALL)?;
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().join("root");
        // s3s-fs keeps each bucket as a directory of its root.
        std::fs::create_dir_all(root.join(BUCKET)).expect("the bucket's directory");
        let errors = dir.path().join("s3s-fs.err");
        // Another process may take the port between its release here and the server's bind;
        // then the server exits and a new port is tried.
        for _ in 0..5 {
            let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
                .and_then(|l| l.local_addr())
                .expect("a free loopback port")
                .port();
            let mut child = Command::new(&binary)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
                .arg(&root)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&errors).expect("the server's error log"))
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}; {INSTALL}", binary.display()));
            let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
            let deadline = Instant::now() + Duration::from_secs(15);
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                    return Some(Self {
                        child,
                        endpoint: format!("http://{addr}"),
                        root,
                        _dir: dir,
                    });
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        let errors = std::fs::read_to_string(&errors).unwrap_or_default();
        panic!("s3s-fs did not start listening on loopback:\n{errors}");
    }

    /// Where the bucket's objects lie on disk.
    #[must_use]
    pub fn bucket_dir(&self) -> PathBuf {
        self.root.join(BUCKET)
    }

    /// The server's files of multipart uploads in progress: their records and their parts.
    ///
    /// # Panics
    /// When the server's directory cannot be read.
    #[must_use]
    pub fn upload_files(&self) -> Vec<String> {
        std::fs::read_dir(&self.root)
            .expect("the server's directory")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(".upload"))
            .collect()
    }

    /// Waits up to 5 s for every multipart upload to be completed or abandoned; returns the
    /// upload files left.
    pub async fn wait_for_no_uploads(&self) -> Vec<String> {
        for _ in 0..100 {
            if self.upload_files().is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.upload_files()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
