//! Chromium for the dashboard's browser tests: headless Chromium driven through the Debian
//! chromedriver (`apt-get install chromium chromium-driver`; `scripts/test` installs both), the
//! lookups and clicks the tests make, and [`look`], which keeps each page seen as a screenshot
//! among the run's artefacts and checks it for accessibility.

use std::collections::HashSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use thirtyfour::prelude::*;

use crate::harness::{PATIENCE, Server, client};
use test_support::accessibility;

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";

/// The Debian chromedriver on a free loopback port, killed when dropped.
pub(crate) struct Chromedriver {
    child: Child,
    url: String,
    profile: tempfile::TempDir,
}

impl Chromedriver {
    /// A running driver, or `None` when Chromium or its driver is absent and the test is to
    /// skip.
    pub(crate) async fn start() -> Option<Self> {
        if !(Path::new(CHROMEDRIVER).exists() && Path::new(CHROMIUM).exists()) {
            return test_support::absent(
                "Chromium or chromedriver",
                "install Debian's `chromium` and `chromium-driver` packages",
            );
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + PATIENCE;
        while client().get(format!("{url}/status")).send().await.is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Some(Self {
            child,
            url,
            profile: tempfile::tempdir().unwrap(),
        })
    }

    pub(crate) async fn browser(&self) -> WebDriver {
        let mut caps = DesiredCapabilities::chrome();
        caps.set_binary(CHROMIUM).unwrap();
        for arg in [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--window-size=1200,1000",
        ] {
            caps.add_arg(arg).unwrap();
        }
        caps.add_arg(&format!(
            "--user-data-dir={}",
            self.profile.path().display()
        ))
        .unwrap();
        WebDriver::new(&self.url, caps).await.unwrap()
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where the pages seen are kept: in `dashboard/` under `INSIGHTS_ARTIFACTS` (which
/// `scripts/test` sets, so that CI keeps them) or else under the target directory's
/// `artifacts/`.
fn artefacts() -> PathBuf {
    let root = std::env::var_os("INSIGHTS_ARTIFACTS")
        .filter(|dir| !dir.is_empty())
        .map_or_else(
            || {
                Path::new(env!("CARGO_TARGET_TMPDIR"))
                    .parent()
                    .unwrap()
                    .join("artifacts")
            },
            PathBuf::from,
        );
    let dir = root.join("dashboard");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Looks at the page as a newcomer and a checker would: keeps its screenshot as `name.png`
/// among the run's artefacts, and fails on any WCAG 2.1 A or AA violation axe-core finds (kept
/// beside it as `name.accessibility.json`) and on any control of the page's content that Tab
/// does not reach, or reaches without drawing the focus.
pub(crate) async fn look(driver: &WebDriver, name: &str) {
    let dir = artefacts();
    driver
        .screenshot(&dir.join(format!("{name}.png")))
        .await
        .unwrap();
    let violations = accessibility_violations(driver).await;
    std::fs::write(
        dir.join(format!("{name}.accessibility.json")),
        serde_json::to_vec_pretty(&violations).unwrap(),
    )
    .unwrap();
    assert_eq!(
        violations,
        serde_json::json!([]),
        "{name}: axe-core finds accessibility violations"
    );
    let keys = keyboard(driver).await;
    assert!(
        keys.missed.is_empty(),
        "{name}: Tab never reaches {:?}",
        keys.missed
    );
    assert!(
        keys.unmarked.is_empty(),
        "{name}: the focus is not drawn on {:?}",
        keys.unmarked
    );
}

/// The WCAG 2.1 A and AA violations axe-core finds on the page, as
/// [`accessibility::axe_script`] reports them.
pub(crate) async fn accessibility_violations(driver: &WebDriver) -> serde_json::Value {
    driver
        .execute_async(accessibility::axe_script(), Vec::new())
        .await
        .unwrap()
        .json()
        .clone()
}

/// What pressing Tab through a page found.
pub(crate) struct Keyboard {
    /// Controls of the page's content that never had the focus.
    pub(crate) missed: Vec<String>,
    /// Controls that had it without a visible mark.
    pub(crate) unmarked: Vec<String>,
}

/// Presses Tab through the page until every control of its content has had the focus (or the
/// presses run out), noting those that never had it or had it without a visible mark.
pub(crate) async fn keyboard(driver: &WebDriver) -> Keyboard {
    let wanted: Vec<String> =
        serde_json::from_value(js(driver, &accessibility::reachable_script()).await).unwrap();
    let mut reached = HashSet::new();
    let mut unmarked = Vec::new();
    // The navigation, the footer and the maps' own controls come round too.
    for _ in 0..wanted.len() + 60 {
        driver
            .action_chain()
            .send_keys(Key::Tab)
            .perform()
            .await
            .unwrap();
        let focused = js(driver, &accessibility::focused_script()).await;
        if let Some([place, control, drawn]) = focused
            .as_array()
            .and_then(|f| <&[_; 3]>::try_from(f.as_slice()).ok())
        {
            if drawn != &serde_json::json!(true) {
                unmarked.push(control.as_str().unwrap_or_default().to_owned());
            }
            if let Some(place) = place.as_u64() {
                reached.insert(place);
            }
        }
        if reached.len() == wanted.len() {
            break;
        }
    }
    Keyboard {
        missed: wanted
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !reached.contains(&(*i as u64)))
            .map(|(_, control)| control)
            .collect(),
        unmarked,
    }
}

/// Types into a field. Like every lookup here it polls (`query`), because right after a click
/// the next page may still be loading.
pub(crate) async fn fill(driver: &WebDriver, css: &str, text: &str) {
    let field = driver.query(By::Css(css)).first().await.unwrap();
    field.clear().await.unwrap();
    field.send_keys(text).await.unwrap();
}

pub(crate) async fn click(driver: &WebDriver, css: &str) {
    driver
        .query(By::Css(css))
        .first()
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

pub(crate) async fn text_of(driver: &WebDriver, css: &str) -> String {
    driver
        .query(By::Css(css))
        .first()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
        .trim()
        .to_owned()
}

/// Waits until the element `css` shows `needle`, and returns its text. After a click the old
/// page may still be there (with an element of the same id), or be going away under the
/// lookup: both are retried until the deadline.
pub(crate) async fn wait_for_text(driver: &WebDriver, css: &str, needle: &str) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let text = match driver.query(By::Css(css)).first().await {
            Ok(element) => element.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if text.contains(needle) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "`{css}` never showed `{needle}`; it shows: {text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Runs `script` in the page and returns what it returns.
pub(crate) async fn js(driver: &WebDriver, script: &str) -> serde_json::Value {
    driver
        .execute(script, Vec::new())
        .await
        .unwrap()
        .json()
        .clone()
}

/// Waits until `script` returns a number of at least `least`, and returns it.
pub(crate) async fn wait_for_count(driver: &WebDriver, script: &str, least: u64) -> u64 {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let n = js(driver, script).await.as_u64().unwrap_or(0);
        if n >= least {
            return n;
        }
        assert!(
            Instant::now() < deadline,
            "`{script}` stayed at {n}, below {least}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// How many of the elements `css` match.
pub(crate) fn count(css: &str) -> String {
    format!("return document.querySelectorAll({css:?}).length")
}

/// Signs a new account up and waits for the welcome page.
pub(crate) async fn sign_up(driver: &WebDriver, server: &Server, email: &str) {
    driver.goto(server.url("/dashboard/signup")).await.unwrap();
    fill(driver, "#email", email).await;
    fill(driver, "#password", "a long enough password").await;
    click(
        driver,
        "form[action='/dashboard/signup'] button[type=submit]",
    )
    .await;
    wait_for_text(driver, "ol.steps", "Create an API key").await;
}
