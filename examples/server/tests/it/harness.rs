//! The real `insights-server` binary as the tests run it: a deployment (data directory,
//! database, object store, environment), servers started on it on port 0, and the admin
//! commands run as processes against the same store.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::Value;
use test_support::SERVER_ENVIRONMENT;

/// How long anything a test waits for may take before the test fails.
pub(crate) const PATIENCE: Duration = Duration::from_secs(30);

const BINARY: &str = env!("CARGO_BIN_EXE_insights-server");

/// One installation: a data directory of its own, plus the global flags and environment every
/// process of it (servers and admin commands) gets.
pub(crate) struct Deployment {
    dir: Dir,
    flags: Vec<String>,
    env: Vec<(String, String)>,
}

/// Where a deployment keeps its data: removed on drop, or at the end of the test process.
enum Dir {
    Temp(tempfile::TempDir),
    /// The directory, and the process that removes it once the tests have exited.
    Kept {
        path: PathBuf,
        _remover: Child,
    },
}

/// An API key as `admin create-key --json` prints it.
#[derive(Debug, Clone)]
pub(crate) struct Key {
    /// The full key, `ik_...`.
    pub(crate) key: String,
    /// The webhook signing secret, `whsec_...`.
    pub(crate) secret: String,
    /// The key's public prefix, which deliveries carry as `KEY`.
    pub(crate) prefix: String,
    /// The key's id.
    pub(crate) id: String,
}

impl Deployment {
    /// The embedded default: SQLite and files in a fresh temporary directory.
    pub(crate) fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("insights-server-it-")
            .tempdir()
            .unwrap();
        let flags = vec![
            "--data-dir".to_owned(),
            dir.path().display().to_string(),
            // Admin commands take it too: it decides which webhook hosts are allowed.
            "--listen".to_owned(),
            "127.0.0.1:0".to_owned(),
        ];
        Self {
            dir: Dir::Temp(dir),
            flags,
            env: Vec::new(),
        }
    }

    /// Adds a global flag and its value for every process of the deployment.
    pub(crate) fn flag(mut self, name: &str, value: &str) -> Self {
        self.flags.push(name.to_owned());
        self.flags.push(value.to_owned());
        self
    }

    /// Adds an environment variable for every process of the deployment.
    pub(crate) fn env(mut self, name: &str, value: &str) -> Self {
        self.env.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Writes `toml` as the deployment's config file and passes it with `--config`.
    pub(crate) fn config(self, toml: &str) -> Self {
        let path = self.path().join("insights.toml");
        std::fs::write(&path, toml).unwrap();
        let path = path.display().to_string();
        self.flag("--config", &path)
    }

    /// The data directory.
    pub(crate) fn path(&self) -> &Path {
        match &self.dir {
            Dir::Temp(dir) => dir.path(),
            Dir::Kept { path, .. } => path,
        }
    }

    /// The SQLite database of the embedded default.
    pub(crate) fn sqlite_url(&self) -> String {
        format!("sqlite://{}", self.path().join("insights.db").display())
    }

    /// Keeps the data directory until the test process exits, for a deployment shared by
    /// the tests of a module (statics are never dropped).
    pub(crate) fn keep_until_exit(self) -> Self {
        let Self { dir, flags, env } = self;
        let dir = match dir {
            Dir::Temp(dir) => {
                let path = dir.keep();
                let remover = spawn_watchdog(&format!("rm -rf -- '{}'", path.display()), None);
                Dir::Kept {
                    path,
                    _remover: remover,
                }
            }
            kept @ Dir::Kept { .. } => kept,
        };
        Self { dir, flags, env }
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(BINARY);
        for name in SERVER_ENVIRONMENT {
            cmd.env_remove(name);
        }
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd.args(&self.flags);
        cmd.stdin(Stdio::null());
        cmd
    }

    /// Runs `insights-server ARGS` with the deployment's flags and environment; its output and
    /// exit status.
    pub(crate) fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    /// Runs `insights-server admin --json ARGS`; its output and exit status.
    pub(crate) fn admin_output(&self, args: &[&str]) -> Output {
        let mut cmd = self.command();
        cmd.arg("admin").arg("--json").args(args);
        cmd.output().unwrap()
    }

    /// Runs `insights-server admin --json ARGS` with `input` on its standard input; its output
    /// and exit status.
    pub(crate) fn admin_with_stdin(&self, args: &[&str], input: &str) -> Output {
        let mut cmd = self.admin_command(args);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{input}\n").as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// `insights-server admin --json ARGS` with the deployment's flags and environment, to
    /// run with more of its own.
    pub(crate) fn admin_command(&self, args: &[&str]) -> Command {
        let mut cmd = self.command();
        cmd.arg("admin").arg("--json").args(args);
        cmd
    }

    /// Like [`Deployment::admin_output`], with the global flags after the subcommand's own
    /// arguments instead of before `admin`.
    pub(crate) fn admin_output_flags_last(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(BINARY);
        for name in SERVER_ENVIRONMENT {
            cmd.env_remove(name);
        }
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .arg("admin")
            .arg("--json")
            .args(args)
            .args(&self.flags);
        cmd.output().unwrap()
    }

    /// Runs `insights-server admin --json ARGS`, which must succeed; its JSON.
    pub(crate) fn admin(&self, args: &[&str]) -> Value {
        let out = self.admin_output(args);
        assert!(
            out.status.success(),
            "admin {args:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "admin {args:?} printed no JSON ({e}):\n{}",
                String::from_utf8_lossy(&out.stdout)
            )
        })
    }

    /// Creates an account with `email` and `password` (given to the admin command in its
    /// environment, as an operator would); its JSON.
    pub(crate) fn create_account(&self, email: &str, password: &str) -> Value {
        let args = ["create-account", "--email", email];
        let out = self
            .admin_command(&args)
            .env("INSIGHTS_PASSWORD", password)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "admin {args:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// A new account with one key.
    pub(crate) fn new_key(&self) -> Key {
        let email = format!("{}@example.org", uuid::Uuid::new_v4().simple());
        self.create_account(&email, "correct horse battery");
        let created = self.admin(&["create-key", "--email", &email, "--label", "tests"]);
        let text = |name: &str| {
            created[name]
                .as_str()
                .unwrap_or_else(|| panic!("create-key printed no `{name}`: {created}"))
                .to_owned()
        };
        Key {
            key: text("key"),
            secret: text("webhook_secret"),
            prefix: text("prefix"),
            id: text("id"),
        }
    }

    /// Points `key`'s deliveries at `url`.
    pub(crate) fn set_webhook(&self, key: &Key, url: &str) {
        self.admin(&["set-webhook", "--key", &key.id, "--url", url]);
    }

    /// Adds a rule with the default messages.
    pub(crate) fn add_rule(&self, key: &Key, data_type: &str, forecast: &str, sensitivity: &str) {
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
        ]);
    }

    /// `list-deliveries`' entry for `token`, which must be listed.
    pub(crate) fn delivery_record(&self, key: &Key, token: &str) -> Value {
        let list = self.admin(&["list-deliveries", "--key", &key.id, "--limit", "100"]);
        list.as_array()
            .unwrap()
            .iter()
            .find(|r| r["token"] == token)
            .cloned()
            .unwrap_or_else(|| panic!("list-deliveries does not show {token}: {list}"))
    }

    /// Starts `serve` with `extra` flags and waits until it answers `/healthz`.
    pub(crate) fn serve(&self, extra: &[&str]) -> Server {
        let stderr_path = self
            .path()
            .join(format!("server-{}.log", uuid::Uuid::new_v4().simple()));
        let mut cmd = self.command();
        cmd.arg("serve")
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr_path).unwrap());
        let mut child = cmd.spawn().unwrap();
        let watchdog = spawn_watchdog(&format!("kill -9 {}", child.id()), Some(child.id()));
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let printed = Arc::new(Mutex::new(String::new()));
        let keep = printed.clone();
        // Reads the announcement, then keeps draining (and keeping) what the server prints,
        // so that it never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                if let Some(addr) = line.trim().strip_prefix("insights-server listening on ") {
                    let _ = tx.send(addr.to_owned());
                }
                keep.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        let mut server = Server {
            child,
            watchdog: Some(watchdog),
            base: String::new(),
            stderr_path,
            printed,
        };
        let deadline = Instant::now() + PATIENCE;
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(base) => {
                    server.base = base;
                    break;
                }
                Err(_) if Instant::now() > deadline => {
                    panic!("the server did not announce its address:\n{}", server.log())
                }
                Err(_) => {
                    if let Some(status) = server.child.try_wait().unwrap() {
                        panic!("the server exited ({status}) at start:\n{}", server.log());
                    }
                }
            }
        }
        server.wait_healthy(deadline);
        server
    }
}

/// Runs `action` in the background once this test process has exited (or, with `while_alive`,
/// once that process has exited, whichever is first), so that nothing a test started outlives
/// the test run, even when a static is never dropped or the process aborts.
fn spawn_watchdog(action: &str, while_alive: Option<u32>) -> Child {
    let me = std::process::id();
    let script = match while_alive {
        Some(pid) => format!(
            "while kill -0 {me} 2>/dev/null; do kill -0 {pid} 2>/dev/null || exit 0; sleep 1; done; {action}"
        ),
        None => format!("while kill -0 {me} 2>/dev/null; do sleep 1; done; {action}"),
    };
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// A running `insights-server serve`, killed when dropped.
pub(crate) struct Server {
    child: Child,
    watchdog: Option<Child>,
    /// `http://127.0.0.1:PORT`.
    pub(crate) base: String,
    stderr_path: PathBuf,
    printed: Arc<Mutex<String>>,
}

impl Server {
    /// The URL of `path` on this server.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The URL of the shared API path with `key`.
    pub(crate) fn api(&self, key: &str) -> String {
        self.url(&format!("/insights/v1/cleanest-route?key={key}"))
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server printed on stdout so far.
    pub(crate) fn printed(&self) -> String {
        self.printed.lock().unwrap().clone()
    }

    /// What the server logged so far.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    fn wait_healthy(&mut self, deadline: Instant) {
        let addr = self.base.trim_start_matches("http://").to_owned();
        loop {
            let answered = TcpStream::connect(&addr).ok().and_then(|mut s| {
                s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
                s.write_all(b"GET /healthz HTTP/1.0\r\nHost: test\r\n\r\n")
                    .ok()?;
                let mut text = String::new();
                s.read_to_string(&mut text).ok()?;
                Some(text)
            });
            if answered
                .is_some_and(|t| t.starts_with("HTTP/1.0 200") || t.starts_with("HTTP/1.1 200"))
            {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("the server exited ({status}):\n{}", self.log());
            }
            assert!(
                Instant::now() < deadline,
                "the server never answered /healthz:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Asks the server to stop with SIGTERM, as a service manager does, and waits for it to
    /// exit; its exit status.
    pub(crate) fn terminate(mut self) -> std::process::ExitStatus {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not stop on SIGTERM:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Ends the server with SIGKILL, as a crash or an OOM killer would: no shutdown code runs.
    pub(crate) fn kill_hard(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The log goes with the data directory: show it while it can explain a failure.
        if std::thread::panicking() {
            eprintln!("--- log of the server at {} ---\n{}", self.base, self.log());
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(mut watchdog) = self.watchdog.take() {
            let _ = watchdog.kill();
            let _ = watchdog.wait();
        }
    }
}

/// An HTTP client that talks to loopback directly, whatever proxy the environment names.
pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(PATIENCE)
        .build()
        .unwrap()
}

/// A response, read whole.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: bytes::Bytes,
}

impl Reply {
    pub(crate) async fn read(response: reqwest::Response) -> Self {
        Self {
            status: response.status(),
            headers: response.headers().clone(),
            body: response.bytes().await.unwrap(),
        }
    }

    /// The body as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "{} answered a body that is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// A header's value as text.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts that this is the error envelope with `status` and `code`, and that its detail
    /// mentions every one of `mentions`; returns the detail.
    #[track_caller]
    pub(crate) fn assert_error(&self, status: u16, code: &str, mentions: &[&str]) -> String {
        let body = self.json();
        assert_eq!(self.status.as_u16(), status, "status of {body}");
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "errors are JSON: {body}"
        );
        let object = body.as_object().unwrap();
        let mut members: Vec<&str> = object.keys().map(String::as_str).collect();
        members.sort_unstable();
        assert_eq!(members, ["data", "error", "metadata"], "envelope of {body}");
        assert_eq!(body["metadata"], Value::Null, "{body}");
        assert_eq!(body["data"], Value::Null, "{body}");
        // The id a 500's detail would quote, and that the logs carry.
        assert!(
            self.header("x-request-id")
                .is_some_and(|id| uuid::Uuid::parse_str(id).is_ok()),
            "a request id: {:?}",
            self.headers
        );
        assert_eq!(body["error"]["code"], code, "{body}");
        assert!(
            body["error"]["title"]
                .as_str()
                .is_some_and(|t| !t.is_empty()),
            "a title: {body}"
        );
        let detail = body["error"]["detail"].as_str().unwrap().to_owned();
        for fragment in mentions {
            assert!(
                detail.contains(fragment),
                "the detail should mention `{fragment}`: {detail}"
            );
        }
        detail
    }
}

/// POSTs `body` as JSON to the API with `key`.
pub(crate) async fn post_json(
    client: &reqwest::Client,
    server: &Server,
    key: &str,
    body: &Value,
) -> Reply {
    post_raw(
        client,
        &server.api(key),
        Some("application/json"),
        serde_json::to_vec(body).unwrap(),
    )
    .await
}

/// POSTs `body` as is to `url`, with `content_type` when given.
pub(crate) async fn post_raw(
    client: &reqwest::Client,
    url: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> Reply {
    let mut request = client.post(url).body(body);
    if let Some(ct) = content_type {
        request = request.header("content-type", ct);
    }
    Reply::read(request.send().await.unwrap()).await
}

/// Polls `probe` every 50 ms until it returns a value, failing the test after [`PATIENCE`].
pub(crate) async fn eventually<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

impl Deployment {
    /// Makes every process of the deployment take `addr` as its listen address from now on.
    /// It also decides which webhook hosts are allowed: loopback only while the server
    /// listens on loopback.
    pub(crate) fn set_listen(&mut self, addr: &str) {
        self.set_flag("--listen", addr);
    }

    /// Makes every process of the deployment keep its data in `dir` from now on (inside the
    /// deployment's own directory, which is removed with it).
    pub(crate) fn set_data_dir(&mut self, dir: &Path) {
        self.set_flag("--data-dir", &dir.display().to_string());
    }

    fn set_flag(&mut self, name: &str, value: &str) {
        let at = self.flags.iter().position(|flag| flag == name).unwrap();
        self.flags[at + 1] = value.to_owned();
    }
}

/// The list of variables every harness clears names each one the server's code reads, so that
/// a new setting cannot leak from the caller's shell into a test or a measurement.
#[test]
fn the_cleared_environment_names_every_variable_the_server_reads() {
    let mut sources = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    // Modules with tests of their own are directories: read every file below `src`.
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                sources.push(path);
            }
        }
    }
    let mut named = Vec::new();
    for path in sources {
        let text = std::fs::read_to_string(path).unwrap();
        for (at, _) in text.match_indices("\"INSIGHTS_") {
            let rest = &text[at + 1..];
            let end = rest.find('"').unwrap();
            named.push(rest[..end].to_owned());
        }
    }
    assert!(named.len() >= SERVER_ENVIRONMENT.len(), "{named:?}");
    for name in named {
        assert!(
            SERVER_ENVIRONMENT.contains(&name.as_str()),
            "{name} is read by the server but not in test_support::SERVER_ENVIRONMENT"
        );
    }
}
