//! The real `insights-server` binary as an operator runs it: an installation in a temporary
//! data directory (SQLite and local files, the demo air-quality field), accounts, keys, webhooks
//! and rules made with `admin --json`, and `serve` started on a port the system picks.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;
use test_support::SERVER_ENVIRONMENT;

/// How long the server may take to start and answer `/healthz`.
const STARTUP: Duration = Duration::from_secs(30);

/// Where the release build of `insights-server` is, when not told: under `$CARGO_TARGET_DIR`
/// if set, else under `target/` of the current directory, else of this workspace.
#[must_use]
pub fn default_server_bin() -> PathBuf {
    let relative = Path::new("release").join("insights-server");
    let mut candidates = Vec::new();
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        candidates.push(PathBuf::from(dir).join(&relative));
    }
    candidates.push(Path::new("target").join(&relative));
    candidates.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../target")
            .join(&relative),
    );
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .unwrap_or_else(|| candidates.remove(0))
}

/// An API key as `admin create-key --json` prints it.
#[derive(Debug, Clone)]
pub struct Key {
    /// The full key, `ik_...`.
    pub key: String,
    /// The webhook signing secret, `whsec_...`.
    pub secret: String,
    /// The key's id, which the admin commands take.
    pub id: String,
}

/// One installation of the server: a data directory of its own, removed on drop.
#[derive(Debug)]
pub struct Installation {
    dir: tempfile::TempDir,
    bin: PathBuf,
    flags: Vec<String>,
}

impl Installation {
    /// A fresh installation of the binary at `bin` with `config` (TOML, may be empty) as its
    /// config file.
    ///
    /// # Errors
    /// When the binary is missing or the directory cannot be made.
    pub fn new(bin: &Path, config: &str) -> Result<Self> {
        if !bin.is_file() {
            bail!(
                "no insights-server binary at {} (build it with `cargo build --release -p insights-server`, or pass --server-bin)",
                bin.display()
            );
        }
        let dir = tempfile::Builder::new()
            .prefix("insights-load-")
            .tempdir()
            .context("cannot make a data directory")?;
        let config_path = dir.path().join("insights.toml");
        std::fs::write(&config_path, config).context("cannot write the config file")?;
        let flags = vec![
            "--data-dir".to_owned(),
            dir.path().display().to_string(),
            // Admin commands take it too: a loopback server accepts loopback webhooks.
            "--listen".to_owned(),
            "127.0.0.1:0".to_owned(),
            "--config".to_owned(),
            config_path.display().to_string(),
        ];
        Ok(Self {
            dir,
            bin: bin.to_owned(),
            flags,
        })
    }

    /// The data directory.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.bin);
        for name in SERVER_ENVIRONMENT {
            cmd.env_remove(name);
        }
        cmd.args(&self.flags).stdin(Stdio::null());
        cmd
    }

    /// Runs `insights-server admin --json ARGS`; its JSON output.
    ///
    /// # Errors
    /// When the command fails or prints no JSON.
    pub fn admin(&self, args: &[&str]) -> Result<Value> {
        self.admin_with_env(args, &[])
    }

    /// [`Installation::admin`] with `env` added to the command's environment.
    fn admin_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Result<Value> {
        let out = self
            .command()
            .envs(env.iter().copied())
            .arg("admin")
            .arg("--json")
            .args(args)
            .output()
            .context("cannot run insights-server admin")?;
        if !out.status.success() {
            bail!(
                "admin {} failed ({}): {}",
                args.first().unwrap_or(&""),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        serde_json::from_slice(&out.stdout).with_context(|| {
            format!(
                "admin {} printed no JSON: {}",
                args.first().unwrap_or(&""),
                String::from_utf8_lossy(&out.stdout)
            )
        })
    }

    /// A new account with one key.
    ///
    /// # Errors
    /// When an admin command fails.
    pub fn new_key(&self) -> Result<Key> {
        static ACCOUNTS: AtomicUsize = AtomicUsize::new(0);
        let email = format!(
            "load-{}-{}@example.org",
            std::process::id(),
            ACCOUNTS.fetch_add(1, Ordering::Relaxed)
        );
        self.admin_with_env(
            &["create-account", "--email", &email],
            &[("INSIGHTS_PASSWORD", "correct horse battery")],
        )?;
        let created = self.admin(&["create-key", "--email", &email, "--label", "load"])?;
        let text = |name: &str| {
            created[name]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| anyhow!("create-key printed no `{name}`: {created}"))
        };
        Ok(Key {
            key: text("key")?,
            secret: text("webhook_secret")?,
            id: text("id")?,
        })
    }

    /// Points `key`'s deliveries at `url`.
    ///
    /// # Errors
    /// When the admin command fails.
    pub fn set_webhook(&self, key: &Key, url: &str) -> Result<()> {
        self.admin(&["set-webhook", "--key", &key.id, "--url", url])
            .map(drop)
    }

    /// Adds a rule with the default messages to `key`.
    ///
    /// # Errors
    /// When the admin command fails.
    pub fn add_rule(
        &self,
        key: &Key,
        data_type: &str,
        forecast: &str,
        sensitivity: &str,
    ) -> Result<()> {
        self.admin(&[
            "add-rule",
            "--key",
            &key.id,
            "--type",
            data_type,
            "--forecast",
            forecast,
            "--sensitivity",
            sensitivity,
        ])
        .map(drop)
    }

    /// Starts `serve` and waits until it answers `/healthz`.
    ///
    /// # Errors
    /// When it does not start, exits, or does not answer in time; its log is in the message.
    pub fn serve(&self) -> Result<ServerProcess> {
        let log_path = self.path().join("server.log");
        let log = std::fs::File::create(&log_path).context("cannot create the server log")?;
        let mut child = self
            .command()
            .arg("serve")
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .with_context(|| format!("cannot start {}", self.bin.display()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("the server's stdout is not piped"))?;
        let (tx, rx) = mpsc::channel();
        // Reads the announcement, then keeps draining what the server prints so that it never
        // blocks on a full pipe.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                if let Some(addr) = line.trim().strip_prefix("insights-server listening on ") {
                    let _ = tx.send(addr.to_owned());
                }
                line.clear();
            }
        });
        let mut server = ServerProcess {
            pid: child.id(),
            child,
            base: String::new(),
            log_path,
        };
        let deadline = Instant::now() + STARTUP;
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(base) => {
                    server.base = base;
                    break;
                }
                Err(_) => {
                    if let Some(status) = server.child.try_wait()? {
                        bail!("the server exited ({status}) at start:\n{}", server.log());
                    }
                    if Instant::now() > deadline {
                        bail!("the server did not announce its address:\n{}", server.log());
                    }
                }
            }
        }
        server.wait_healthy(deadline)?;
        Ok(server)
    }
}

/// A running `insights-server serve`, killed when dropped.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    /// Its process id, for memory sampling.
    pub pid: u32,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    log_path: PathBuf,
}

impl ServerProcess {
    /// What the server logged so far.
    #[must_use]
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log_path).unwrap_or_default()
    }

    /// The last `lines` lines of its log.
    #[must_use]
    pub fn log_tail(&self, lines: usize) -> String {
        let log = self.log();
        let all: Vec<&str> = log.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    fn wait_healthy(&mut self, deadline: Instant) -> Result<()> {
        let addr = self.base.trim_start_matches("http://").to_owned();
        loop {
            if healthz(&addr) {
                return Ok(());
            }
            if let Some(status) = self.child.try_wait()? {
                bail!("the server exited ({status}):\n{}", self.log());
            }
            if Instant::now() > deadline {
                bail!("the server never answered /healthz:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// True when `GET /healthz` on `addr` answers 200.
#[must_use]
pub fn healthz(addr: &str) -> bool {
    let answer = TcpStream::connect(addr).ok().and_then(|mut s| {
        s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        s.write_all(b"GET /healthz HTTP/1.0\r\nHost: load\r\n\r\n")
            .ok()?;
        let mut text = String::new();
        s.read_to_string(&mut text).ok()?;
        Some(text)
    });
    answer.is_some_and(|t| t.starts_with("HTTP/1.0 200") || t.starts_with("HTTP/1.1 200"))
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
