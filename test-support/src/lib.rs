//! What the workspace's tests share, so that each rule lives in one place: the rule for absent
//! outside services (below), test databases on PostgreSQL ([`postgres`]), an S3 server on
//! loopback ([`s3`]), a Redis with a key prefix of each test's own ([`redis`]), a customer's webhook receiver ([`receiver`]), the accessibility checks of the
//! browser tests ([`accessibility`]), real OpenStreetMap extracts and their
//! independent reader ([`osm`]) and a count of the SQL
//! statements the stores issue ([`statements`]).
//!
//! Some tests need a service or a tool from outside the workspace: PostgreSQL, Redis, the `s3s-fs`
//! S3 server, schemathesis, Chromium and its driver. A plain `cargo test --workspace` on a
//! machine without them skips those tests, each printing what is missing and how to get it;
//! with [`REQUIRE_SERVICES`] set (as `scripts/test` and CI set it) a missing service fails the
//! test instead, so that nothing is skipped unnoticed where everything should run.
//!
//! A test asks for what it needs and returns early when told to skip:
//!
//! ```no_run
//! use test_support::find_tool;
//!
//! let Some(st) = find_tool("SCHEMATHESIS_BIN", "schemathesis-venv/bin/st", "st", "run scripts/test")
//! else {
//!     return; // skipped, with a message on stderr
//! };
//! # let _ = st;
//! ```

pub mod accessibility;
pub mod ads;
pub mod osm;
pub mod postgres;
pub mod receiver;
pub mod redis;
pub mod s3;
pub mod statements;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The environment variable that turns a missing service from a skip into a failure. Any
/// non-empty value counts.
pub const REQUIRE_SERVICES: &str = "INSIGHTS_REQUIRE_SERVICES";

/// Every environment variable `insights-server` reads. Whatever starts the binary for a test
/// or a measurement clears them, so that the caller's shell cannot change what runs; the
/// server's own tests check that the list names every variable its code reads.
pub const SERVER_ENVIRONMENT: [&str; 32] = [
    "INSIGHTS_CONFIG",
    "INSIGHTS_DATA_DIR",
    "INSIGHTS_DATABASE_URL",
    "INSIGHTS_OBJECT_STORE",
    "INSIGHTS_LISTEN",
    "INSIGHTS_PUBLIC_URL",
    "INSIGHTS_AQ_SOURCE",
    "INSIGHTS_FUSE_STATIONS",
    "INSIGHTS_ROADS",
    "INSIGHTS_ALLOW_PRIVATE_WEBHOOKS",
    "INSIGHTS_WORKERS",
    "INSIGHTS_LOG_JSON",
    "INSIGHTS_HEADER_TIMEOUT_SECONDS",
    "INSIGHTS_IDLE_TIMEOUT_SECONDS",
    "INSIGHTS_REQUEST_TIMEOUT_SECONDS",
    "INSIGHTS_MAX_CONNECTIONS",
    "INSIGHTS_CORS_ORIGINS",
    "INSIGHTS_LIMITS_URL",
    "INSIGHTS_LIMITS_PREFIX",
    "INSIGHTS_LIMITS_UNAVAILABLE",
    "INSIGHTS_API_KEY",
    "INSIGHTS_PASSWORD",
    "INSIGHTS_FETCH_CAMS",
    "INSIGHTS_ADS_URL",
    "INSIGHTS_ADS_KEY",
    "INSIGHTS_ADS_KEY_FILE",
    "INSIGHTS_ADS_AREA",
    "INSIGHTS_ADS_PRODUCTS",
    "INSIGHTS_ADS_EUROPE_MODEL",
    "INSIGHTS_ADS_EUROPE_HOURS",
    "INSIGHTS_ADS_GLOBAL_HOURS",
    "INSIGHTS_ADS_STAGING",
];

/// Where `scripts/test` installs the tools the tests need, under the home directory.
const TOOLS: &str = ".cache/insights/tools";

/// What a test does when something it needs is absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenAbsent {
    /// Print why and pass without testing: the quick local run.
    Skip,
    /// Fail: the run was asked to test everything.
    Fail,
}

/// The decision for a run whose [`REQUIRE_SERVICES`] variable has the value `require`.
///
/// ```
/// use std::ffi::OsStr;
/// use test_support::{WhenAbsent, when_absent};
///
/// assert_eq!(when_absent(None), WhenAbsent::Skip);
/// assert_eq!(when_absent(Some(OsStr::new("1"))), WhenAbsent::Fail);
/// ```
#[must_use]
pub fn when_absent(require: Option<&OsStr>) -> WhenAbsent {
    match require {
        Some(value) if !value.is_empty() => WhenAbsent::Fail,
        _ => WhenAbsent::Skip,
    }
}

/// Reports that `what` is missing, with `how` to get it: panics when the run requires every
/// service, else prints the reason on stderr and returns `None`, for the test to return early.
///
/// # Panics
/// When [`REQUIRE_SERVICES`] is set.
pub fn absent<T>(what: &str, how: &str) -> Option<T> {
    match when_absent(std::env::var_os(REQUIRE_SERVICES).as_deref()) {
        WhenAbsent::Fail => panic!("{what} is missing and {REQUIRE_SERVICES} is set; {how}"),
        WhenAbsent::Skip => {
            eprintln!(
                "skipped: {what} is missing; {how}. `scripts/test` sets up everything the \
                 tests need and runs them all."
            );
            None
        }
    }
}

/// A tool a test needs: `$env_var` when set, else `~/.cache/insights/tools/<cached>` (where
/// `scripts/test` installs it), else `name` on the `PATH`. When none exists the test is told
/// to skip (or fails, see [`absent`]), with `install` saying how to get the tool.
///
/// # Panics
/// When `$env_var` names a file that does not exist, or when the tool is absent and
/// [`REQUIRE_SERVICES`] is set.
#[must_use]
pub fn find_tool(env_var: &str, cached: &str, name: &str, install: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(env_var).filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "{env_var}={} is not a file; {install}",
            path.display()
        );
        return Some(path);
    }
    let in_cache = std::env::var_os("HOME")
        .map(|home| Path::new(&home).join(TOOLS).join(cached))
        .filter(|p| p.is_file());
    let on_path = || {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        })
    };
    in_cache
        .or_else(on_path)
        .or_else(|| absent(name, &format!("{install}, or set {env_var}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_service_is_skipped_when_the_run_does_not_require_it() {
        assert_eq!(when_absent(None), WhenAbsent::Skip);
        assert_eq!(when_absent(Some(OsStr::new(""))), WhenAbsent::Skip);
    }

    #[test]
    fn a_missing_service_fails_when_the_run_requires_every_service() {
        assert_eq!(when_absent(Some(OsStr::new("1"))), WhenAbsent::Fail);
        assert_eq!(when_absent(Some(OsStr::new("yes"))), WhenAbsent::Fail);
    }
}
