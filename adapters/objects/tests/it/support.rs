//! Temporary directories and an `s3s-fs` server on loopback.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A directory removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> Self {
        let path = std::env::temp_dir().join(format!("insights-objects-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub const ACCESS_KEY: &str = "insights-test";
pub const SECRET_KEY: &str = "insights-test-secret";
pub const BUCKET: &str = "insights-files";

const INSTALL: &str = "install it with `cargo install s3s-fs@0.14.1 --locked --features binary \
     --root $HOME/.cache/insights/tools`";

/// An `s3s-fs` process serving a fresh directory with one bucket; killed when dropped.
pub struct S3Server {
    child: Child,
    pub endpoint: String,
    root: PathBuf,
    _dir: TempDir,
}

impl S3Server {
    /// A running server, or `None` when s3s-fs is absent and the test is to skip.
    pub fn start() -> Option<Self> {
        let binary = test_support::find_tool("S3S_FS_BIN", "bin/s3s-fs", "s3s-fs", INSTALL)?;
        let dir = TempDir::new();
        let root = dir.path().join("root");
        // s3s-fs keeps each bucket as a directory of its root.
        std::fs::create_dir_all(root.join(BUCKET)).unwrap();
        let log = dir.path().join("s3s-fs.log");
        // Another process may take the port between its release here and the server's bind;
        // then the server exits and a new port is tried.
        for _ in 0..5 {
            let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let mut child = Command::new(&binary)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
                .arg(&root)
                .stdin(Stdio::null())
                .stdout(std::fs::File::create(&log).unwrap())
                .stderr(std::fs::File::create(dir.path().join("s3s-fs.err")).unwrap())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}; {INSTALL}", binary.display()));
            let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
            let deadline = Instant::now() + Duration::from_secs(15);
            while Instant::now() < deadline {
                if child.try_wait().unwrap().is_some() {
                    break;
                }
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
        let errors = std::fs::read_to_string(dir.path().join("s3s-fs.err")).unwrap_or_default();
        panic!("s3s-fs did not start listening on loopback:\n{errors}");
    }
}

impl S3Server {
    /// The server's files of multipart uploads in progress: their records and their parts.
    pub fn upload_files(&self) -> Vec<String> {
        std::fs::read_dir(&self.root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(".upload"))
            .collect()
    }

    /// Waits up to 5 s for every multipart upload to be completed or abandoned.
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
