//! Small alert jobs alone: several keys post alert requests of a few points at a fixed total
//! rate (open loop) on the real server, and every accepted request is waited for at its
//! key's receiver, signature verified. It reports how many were accepted and refused, how
//! many jobs a second were delivered, and accept-to-webhook latency.
//!
//! Given two server binaries it runs them side by side in one run: rounds alternate which
//! goes first, each on a fresh installation under the same load, so that a figure and its
//! comparison share whatever else the machine was doing.
//!
//! The installations' data directories are removed only after the last round. A round
//! leaves tens of thousands of files behind, and on ext4 without a journal every file
//! created in the minute or more after they are deleted pays for a scan past their freed
//! inodes (the filesystem will not reuse an inode freed that recently): removed between
//! rounds, they made each round slower than the one before, whichever server ran it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use hdrhistogram::Histogram;

use crate::generator::{LoadConfig, Template};
use crate::scenarios::alerts_scale::RULES;
use crate::scenarios::mixed::UNLIMITED_CONFIG;
use crate::server::Installation;
use crate::{figure, requests};
use test_support::postgres::TestDb;
use test_support::receiver::Receiver;

/// Which store the server runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// The embedded default: SQLite in the data directory.
    Sqlite,
    /// A fresh PostgreSQL database per run (the test server, see `test_support::postgres`).
    Postgres,
}

/// How to run it.
#[derive(Debug, Clone)]
pub struct JobsOptions {
    /// Keys posting, each with its own receiver.
    pub keys: usize,
    /// Requests offered per second, all keys together.
    pub rate: f64,
    /// How long the load lasts.
    pub duration: Duration,
    /// Points per request.
    pub points: usize,
    /// Connections of the load generator.
    pub connections: usize,
    /// How long the deliveries may take after the load.
    pub patience: Duration,
    /// The store.
    pub store: Store,
    /// Rounds; each runs every binary once.
    pub rounds: usize,
}

impl Default for JobsOptions {
    fn default() -> Self {
        Self {
            keys: 8,
            rate: 800.0,
            duration: Duration::from_secs(30),
            points: 10,
            connections: 64,
            patience: Duration::from_secs(120),
            store: Store::Sqlite,
            rounds: 1,
        }
    }
}

/// What one run saw.
#[derive(Debug)]
pub struct JobsReport {
    /// The binary.
    pub server: PathBuf,
    /// Requests answered 200.
    pub accepted: u64,
    /// Requests refused up front (503).
    pub refused: u64,
    /// Other failures: non-2xx answers but 503, and transport errors.
    pub errors: u64,
    /// Accepted requests delivered within the patience.
    pub delivered: u64,
    /// From the load's start to the last delivery.
    pub span: Duration,
    /// From each accepted request's 200 to its first webhook, in milliseconds.
    pub latency: Option<Histogram<u64>>,
    /// Deliveries whose signature did not verify.
    pub unverified: u64,
}

impl JobsReport {
    /// Jobs delivered per second, from the load's start to the last delivery.
    #[must_use]
    pub fn delivered_rate(&self) -> f64 {
        self.delivered as f64 / self.span.as_secs_f64().max(1e-3)
    }

    /// True when every accepted request was delivered, verified, and nothing failed.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.errors == 0 && self.delivered == self.accepted && self.unverified == 0
    }
}

/// Runs the load on every binary of `servers`, `options.rounds` times, alternating which goes
/// first; the reports in the order they ran.
///
/// # Errors
/// When a server cannot be set up or the load cannot be run.
pub async fn run(servers: &[PathBuf], options: &JobsOptions) -> Result<Vec<JobsReport>> {
    if servers.is_empty() {
        bail!("no server binary to run");
    }
    let mut reports = Vec::new();
    // Removed when the last round is over (see the module's documentation).
    let mut finished = Vec::new();
    for round in 0..options.rounds.max(1) {
        let mut order: Vec<&PathBuf> = servers.iter().collect();
        order.rotate_left(round % servers.len());
        for server in order {
            let (report, installation) = run_one(server, options).await?;
            reports.push(report);
            finished.push(installation);
        }
    }
    drop(finished);
    Ok(reports)
}

/// One server's run; its installation, stopped, for the caller to remove.
async fn run_one(server_bin: &Path, options: &JobsOptions) -> Result<(JobsReport, Installation)> {
    let database = match options.store {
        Store::Sqlite => None,
        Store::Postgres => match TestDb::create().await {
            Some(db) => Some(db),
            None => bail!("PostgreSQL is not reachable"),
        },
    };
    let mut config = UNLIMITED_CONFIG.to_owned();
    if let Some(db) = &database {
        config.push_str(&format!("database_url = \"{}\"\n", db.url));
    }
    let installation = Installation::new(server_bin, &config)?;
    let mut receivers = Vec::new();
    let mut templates = Vec::new();
    for i in 0..options.keys.max(1) {
        let key = installation.new_key()?;
        let receiver = Receiver::verifying(&key.secret).await;
        installation.set_webhook(&key, &receiver.url("/hook"))?;
        for (data_type, forecast, sensitivity) in RULES {
            installation.add_rule(&key, data_type, forecast, sensitivity)?;
        }
        templates.push(
            Template::post_json(
                &format!("key-{i}"),
                &requests::api_path(&key.key),
                requests::points(options.points),
            )
            .capture("/data/token"),
        );
        receivers.push(receiver);
    }
    let server = installation.serve()?;
    let load_config = LoadConfig::new(
        &server.base,
        options.connections,
        options.duration,
        templates,
    )
    .at_rate(options.rate);
    let started = Instant::now();
    let load = crate::generator::run(&load_config).await?;
    let mut accepted = 0;
    let mut refused = 0;
    let mut errors = 0;
    let mut delivered = 0;
    let mut unverified = 0;
    let mut last = started;
    let mut latency = Histogram::<u64>::new_with_bounds(1, 3_600_000, 3).ok();
    for (i, receiver) in receivers.iter().enumerate() {
        let Some(op) = load.operation(&format!("key-{i}")) else {
            continue;
        };
        let tokens: Vec<String> = op.captured.iter().map(|(t, _)| t.clone()).collect();
        accepted += tokens.len() as u64;
        let op_refused = op.statuses.get(&503).copied().unwrap_or(0);
        refused += op_refused;
        errors += op.errors() - op_refused;
        let _ = receiver.wait_for_all(&tokens, options.patience).await;
        unverified += receiver.refused().0 as u64;
        for (token, at) in &op.captured {
            if let Some(first) = receiver.first_delivery(token) {
                delivered += 1;
                last = last.max(first.arrived);
                if let Some(h) = latency.as_mut() {
                    let ms = first.arrived.saturating_duration_since(*at).as_millis();
                    h.saturating_record(u64::try_from(ms).unwrap_or(u64::MAX).max(1));
                }
            }
        }
    }
    let report = JobsReport {
        server: server_bin.to_owned(),
        accepted,
        refused,
        errors,
        delivered,
        span: last.saturating_duration_since(started),
        latency: latency.filter(|h| !h.is_empty()),
        unverified,
    };
    if !report.passed() {
        eprintln!("server log (last lines):\n{}", server.log_tail(30));
    }
    drop(server);
    if let Some(db) = database {
        db.drop_now().await;
    }
    Ok((report, installation))
}

/// Prints the figures of every run.
pub fn print(reports: &[JobsReport], options: &JobsOptions) {
    const S: &str = "alert-jobs";
    figure(
        S,
        "setup",
        format!(
            "{} keys, {:.0} requests/s offered for {:?} on {} connections, {} points each, {:?} store",
            options.keys,
            options.rate,
            options.duration,
            options.connections,
            options.points,
            options.store
        ),
    );
    for report in reports {
        let latency = report.latency.as_ref().map_or_else(
            || "no deliveries".to_owned(),
            |h| {
                format!(
                    "accept to webhook p50 {} ms, p99 {} ms",
                    h.value_at_quantile(0.5),
                    h.value_at_quantile(0.99)
                )
            },
        );
        figure(
            S,
            &report.server.display().to_string(),
            format!(
                "{} accepted ({:.0}/s), {} refused, {} errors; {} delivered, {:.0} jobs/s to the last delivery; {latency}",
                report.accepted,
                report.accepted as f64 / options.duration.as_secs_f64(),
                report.refused,
                report.errors,
                report.delivered,
                report.delivered_rate(),
            ),
        );
    }
}
