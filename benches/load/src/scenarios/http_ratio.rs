//! The HTTP ratio: how many route-scoring requests (one route) the API serves per second,
//! against how many requests an empty handler behind the same middleware serves, on the same
//! server, with the same load generator, in the same run.
//!
//! The two are measured in interleaved rounds (empty, scoring, scoring, empty, ...), so that
//! whatever else the machine does during the run weighs on both alike. Targets: a ratio of at
//! least [`RATIO_TARGET`], and a scoring p99 under [`P99_TARGET_MS`].
//!
//! The p99 target is judged on the rounds themselves: 64 connections, each always waiting for
//! its answer. Such latencies mostly restate the rate (at saturation the mean latency is the
//! connections divided by the rate, whatever the handler does), so two open-loop runs follow,
//! with requests spread evenly over the same connections and latency counted from each
//! request's scheduled start: one at the rate the ratio target asks for ([`RATIO_TARGET`]
//! times the empty handler's rate), which shows whether the endpoint keeps up with it, and one
//! at half the rate the endpoint served, its latency when it is not the bottleneck.

use std::path::Path;
use std::time::Duration;

use anyhow::{Result, bail};

use crate::bench_server::{BenchServer, BenchSource, EMPTY_PATH};
use crate::generator::{LoadConfig, Report, Template};
use crate::memory::{MemoryReading, mib};
use crate::{figure, requests};

/// The least share of the empty handler's rate the scoring endpoint must reach.
pub const RATIO_TARGET: f64 = 0.40;
/// The scoring p99 must stay under this, in milliseconds.
pub const P99_TARGET_MS: f64 = 10.0;

const EMPTY: &str = "empty";
const SCORING: &str = "scoring";

/// How to run it.
#[derive(Debug, Clone)]
pub struct RatioOptions {
    /// Connections of the load generator.
    pub connections: usize,
    /// Rounds of each of the two.
    pub rounds: usize,
    /// The length of one round.
    pub round: Duration,
    /// Unmeasured load on each before the rounds, to warm connections, caches and pools.
    pub warmup: Duration,
    /// The air-quality source the scoring endpoint samples.
    pub source: BenchSource,
}

impl Default for RatioOptions {
    fn default() -> Self {
        Self {
            connections: 64,
            rounds: 3,
            round: Duration::from_secs(5),
            warmup: Duration::from_secs(2),
            source: BenchSource::Stations,
        }
    }
}

/// What was measured.
#[derive(Debug, Clone)]
pub struct RatioResult {
    /// The empty handler, all rounds together.
    pub empty: Report,
    /// The scoring endpoint, all rounds together.
    pub scoring: Report,
    /// The scoring endpoint, open loop at [`RatioResult::paced_rate`].
    pub paced: Report,
    /// The rate of the open-loop run, requests per second.
    pub paced_rate: f64,
    /// The scoring endpoint, open loop at half the rate it served in the rounds: its latency
    /// when it is not the bottleneck.
    pub half_load: Report,
    /// The server's peak resident memory, in KiB.
    pub server_peak_kib: u64,
}

impl RatioResult {
    /// Scoring requests per second over empty-handler requests per second.
    #[must_use]
    pub fn ratio(&self) -> f64 {
        let empty = self.empty.rate();
        if empty > 0.0 {
            self.scoring.rate() / empty
        } else {
            0.0
        }
    }

    /// The scoring p99 over the rounds, at 64 connections (or as many as were asked for), in
    /// milliseconds.
    #[must_use]
    pub fn scoring_p99_ms(&self) -> f64 {
        self.scoring
            .operation(SCORING)
            .map_or(f64::INFINITY, |o| o.quantile_ms(0.99))
    }

    /// True when both targets are met.
    #[must_use]
    pub fn meets_targets(&self) -> bool {
        self.ratio() >= RATIO_TARGET && self.scoring_p99_ms() < P99_TARGET_MS
    }

    /// Prints the figures.
    pub fn print(&self, options: &RatioOptions) {
        let label = format!("http-ratio[{}]", options.source.name());
        let label = label.as_str();
        let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
        println!("{}", self.empty.summary());
        println!("{}", self.scoring.summary());
        figure(
            label,
            "setup",
            format!(
                "{} connections, {} rounds of {:?} each, interleaved, {} source",
                options.connections,
                options.rounds,
                options.round,
                options.source.name()
            ),
        );
        figure(
            label,
            "empty handler",
            format!("{:.0} req/s", self.empty.rate()),
        );
        figure(
            label,
            "scoring (one route)",
            format!("{:.0} req/s", self.scoring.rate()),
        );
        figure(
            label,
            "ratio",
            format!(
                "{:.3} (target >= {RATIO_TARGET:.2}: {})",
                self.ratio(),
                verdict(self.ratio() >= RATIO_TARGET)
            ),
        );
        if let Some(op) = self.scoring.operation(SCORING) {
            figure(
                label,
                "scoring latency at saturation (closed loop)",
                format!(
                    "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                    op.quantile_ms(0.5),
                    op.quantile_ms(0.9),
                    op.quantile_ms(0.99),
                    op.max_ms()
                ),
            );
        }
        if let Some(op) = self.paced.operation(SCORING) {
            figure(
                label,
                "scoring latency at the target rate (open loop)",
                format!(
                    "{:.0} req/s offered, {:.0} served; p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                    self.paced_rate,
                    self.paced.rate(),
                    op.quantile_ms(0.5),
                    op.quantile_ms(0.9),
                    op.quantile_ms(0.99),
                    op.max_ms()
                ),
            );
        }
        if let Some(op) = self.half_load.operation(SCORING) {
            figure(
                label,
                "scoring latency at half its capacity (open loop)",
                format!(
                    "{:.0} req/s; p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                    self.half_load.rate(),
                    op.quantile_ms(0.5),
                    op.quantile_ms(0.9),
                    op.quantile_ms(0.99),
                    op.max_ms()
                ),
            );
        }
        figure(
            label,
            "scoring p99 (closed loop)",
            format!(
                "{:.2} ms (target < {P99_TARGET_MS:.0} ms: {})",
                self.scoring_p99_ms(),
                verdict(self.scoring_p99_ms() < P99_TARGET_MS)
            ),
        );
        if let Some(op) = self.empty.operation(EMPTY) {
            figure(
                label,
                "empty handler p99",
                format!("{:.2} ms", op.quantile_ms(0.99)),
            );
        }
        figure(label, "errors", self.empty.errors() + self.scoring.errors());
        figure(
            label,
            "server peak memory (VmHWM)",
            format!("{:.1} MiB", mib(self.server_peak_kib)),
        );
    }
}

/// Starts the bench server (`exe bench-server`) and measures.
///
/// # Errors
/// When the server does not start, or any request fails (a non-2xx answer or a transport
/// error): a ratio of failures would mean nothing.
pub async fn run(exe: &Path, options: &RatioOptions) -> Result<RatioResult> {
    let log_dir = tempfile::Builder::new()
        .prefix("insights-load-ratio-")
        .tempdir()?;
    let log = std::fs::File::create(log_dir.path().join("bench-server.log"))?;
    let server = BenchServer::spawn(exe, options.source, log)?;
    let empty = vec![Template::get(EMPTY, EMPTY_PATH)];
    let scoring = vec![Template::post_json(
        SCORING,
        &requests::api_path(&server.key),
        requests::one_route(),
    )];
    let config = |templates: &Vec<Template>, duration| {
        LoadConfig::new(
            &server.base,
            options.connections,
            duration,
            templates.clone(),
        )
    };

    for templates in [&empty, &scoring] {
        let warm = crate::generator::run(&config(templates, options.warmup)).await?;
        check(&warm)?;
    }
    let mut empty_total: Option<Report> = None;
    let mut scoring_total: Option<Report> = None;
    for round in 0..options.rounds {
        // Alternate which goes first, so that neither always follows the other.
        let order = if round % 2 == 0 {
            [(&empty, &mut empty_total), (&scoring, &mut scoring_total)]
        } else {
            [(&scoring, &mut scoring_total), (&empty, &mut empty_total)]
        };
        for (templates, total) in order {
            let report = crate::generator::run(&config(templates, options.round)).await?;
            check(&report)?;
            match total {
                Some(sum) => sum.merge(&report),
                None => *total = Some(report),
            }
        }
    }
    let (Some(empty_report), Some(scoring_report)) = (empty_total, scoring_total) else {
        bail!("at least one round is needed");
    };
    let paced_rate = RATIO_TARGET * empty_report.rate();
    let paced_for = options.round * u32::try_from(options.rounds).unwrap_or(u32::MAX);
    let paced = crate::generator::run(&config(&scoring, paced_for).at_rate(paced_rate)).await?;
    check(&paced)?;
    let half_rate = scoring_report.rate() / 2.0;
    let half_load = crate::generator::run(&config(&scoring, paced_for).at_rate(half_rate)).await?;
    check(&half_load)?;
    let server_peak_kib = MemoryReading::of(server.pid).map_or(0, |r| r.hwm_kib);
    Ok(RatioResult {
        empty: empty_report,
        scoring: scoring_report,
        paced,
        paced_rate,
        half_load,
        server_peak_kib,
    })
}

fn check(report: &Report) -> Result<()> {
    if report.errors() > 0 {
        bail!(
            "{} requests failed; the ratio is only meaningful without errors:\n{}",
            report.errors(),
            report.summary()
        );
    }
    Ok(())
}
