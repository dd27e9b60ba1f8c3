//! `insights-load`: load scenarios for the insights server, each printing `FIGURE:` lines.
//!
//! ```text
//! insights-load http-ratio                       # scoring vs an empty handler, 64 connections
//! insights-load alerts-scale --points 10000      # one large alert request, time and memory
//! insights-load alerts-scale --points 100000 --aq-source demo --aq-source cams   # both sources
//! insights-load alerts-scale --points 100000 --requests 3   # and again, on what is in memory
//! insights-load alerts-scale --points 100000 --aq-source cams --aq-source cams-fused   # fused
//! insights-load mixed --duration 60 --connections 64
//! insights-load alert-jobs --rate 800 --before-bin old/insights-server   # small jobs, side by side
//! insights-load abuse --duration 20              # good clients alone, then beside an abusive one
//! ```
//!
//! `benches/run-all` runs them all with every other benchmark.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use insights_load::bench_server::BenchSource;
use insights_load::scenarios::alerts_scale::ScaleSource;
use insights_load::scenarios::{abuse, alert_jobs, alerts_scale, http_ratio, mixed};
use insights_load::server::default_server_bin;

/// Load scenarios for the insights server, on loopback, bounded in time.
#[derive(Debug, Parser)]
#[command(name = "insights-load", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Requests per second of route scoring (one route) against an empty handler behind the
    /// same middleware, in interleaved rounds; targets: ratio >= 0.40, scoring p99 < 10 ms.
    HttpRatio {
        /// Concurrent keep-alive connections.
        #[arg(long, default_value_t = 64)]
        connections: usize,
        /// Rounds of each.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Seconds per round.
        #[arg(long, default_value_t = 5)]
        round_secs: u64,
        /// The air-quality source the scoring endpoint samples.
        #[arg(long, value_enum, default_value_t = BenchSource::Stations)]
        source: BenchSource,
        /// Exit non-zero when a target is missed (errors always do).
        #[arg(long)]
        require_targets: bool,
    },
    /// One alert request of N points with two rules on the real server: time from the POST
    /// to the verified webhook, the file downloaded as a stream, and the server's peak memory.
    AlertsScale {
        /// Points in the request.
        #[arg(long, default_value_t = 10_000)]
        points: usize,
        /// The release build of insights-server [default: $CARGO_TARGET_DIR/release or
        /// target/release].
        #[arg(long, value_name = "PATH")]
        server_bin: Option<PathBuf>,
        /// Seconds the delivery may take.
        #[arg(long, default_value_t = 300)]
        patience: u64,
        /// What the server answers from: `demo`, `cams` (CAMS-like grids written first) or
        /// `cams-fused` (the grids corrected by 320 stations, `--fuse-stations`);
        /// repeat it to run each in turn, side by side in one run.
        #[arg(long = "aq-source", value_enum, default_values_t = [ScaleSource::Demo])]
        sources: Vec<ScaleSource>,
        /// The same request posted this many times to the same server, each once the last is
        /// delivered: the later ones find what the first left in memory.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10))]
        requests: u32,
    },
    /// Route scoring and alert requests together on the real server; fails on any error or
    /// any accepted alert request not delivered.
    Mixed {
        /// Seconds of load.
        #[arg(long, default_value_t = 60)]
        duration: u64,
        /// Concurrent keep-alive connections.
        #[arg(long, default_value_t = 64)]
        connections: usize,
        /// Alert requests among every ten requests.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=10))]
        alerts_in_ten: u32,
        /// Points per alert request.
        #[arg(long, default_value_t = 10)]
        alert_points: usize,
        /// Seconds the deliveries may take after the load.
        #[arg(long, default_value_t = 300)]
        delivery_patience: u64,
        /// The release build of insights-server [default: $CARGO_TARGET_DIR/release or
        /// target/release].
        #[arg(long, value_name = "PATH")]
        server_bin: Option<PathBuf>,
    },
    /// Small alert requests alone on the real server, several keys at a fixed offered rate:
    /// accepted, refused, delivered jobs/s and accept-to-webhook latency; with --before-bin,
    /// that server and this one side by side in alternating rounds.
    AlertJobs {
        /// Keys posting, each to a receiver of its own.
        #[arg(long, default_value_t = 8)]
        keys: usize,
        /// Requests offered per second, all keys together.
        #[arg(long, default_value_t = 800.0)]
        rate: f64,
        /// Seconds of load.
        #[arg(long, default_value_t = 30)]
        duration: u64,
        /// Points per request.
        #[arg(long, default_value_t = 10)]
        points: usize,
        /// Concurrent connections of the load generator.
        #[arg(long, default_value_t = 64)]
        connections: usize,
        /// Seconds the deliveries may take after the load.
        #[arg(long, default_value_t = 120)]
        patience: u64,
        /// Run on PostgreSQL (a fresh database per run on the test server) instead of the
        /// embedded store.
        #[arg(long)]
        postgres: bool,
        /// Rounds; each runs every server once, the first going first in turn.
        #[arg(long, default_value_t = 1)]
        rounds: usize,
        /// The release build of insights-server [default: $CARGO_TARGET_DIR/release or
        /// target/release].
        #[arg(long, value_name = "PATH")]
        server_bin: Option<PathBuf>,
        /// Another build to run side by side, such as the previous commit's.
        #[arg(long, value_name = "PATH")]
        before_bin: Option<PathBuf>,
    },
    /// Route scoring by well-behaved clients alone, then beside an abusive client: their
    /// throughput and p99 both times.
    Abuse {
        /// Seconds of each of the two runs.
        #[arg(long, default_value_t = 20)]
        duration: u64,
        /// Connections of the well-behaved clients.
        #[arg(long, default_value_t = 32)]
        connections: usize,
        /// The release build of insights-server [default: $CARGO_TARGET_DIR/release or
        /// target/release].
        #[arg(long, value_name = "PATH")]
        server_bin: Option<PathBuf>,
    },
    /// The server of http-ratio (started by it).
    #[command(hide = true)]
    BenchServer {
        /// The air-quality source the scoring endpoint samples.
        #[arg(long, value_enum, default_value_t = BenchSource::Stations)]
        source: BenchSource,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli.command)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `command`; whether it passed.
async fn run(command: Command) -> Result<bool> {
    match command {
        Command::HttpRatio {
            connections,
            rounds,
            round_secs,
            source,
            require_targets,
        } => {
            let options = http_ratio::RatioOptions {
                connections,
                rounds,
                round: Duration::from_secs(round_secs),
                source,
                ..http_ratio::RatioOptions::default()
            };
            let exe = std::env::current_exe().context("cannot find this executable")?;
            let result = http_ratio::run(&exe, &options).await?;
            result.print(&options);
            Ok(result.meets_targets() || !require_targets)
        }
        Command::AlertsScale {
            points,
            server_bin,
            patience,
            sources,
            requests,
        } => {
            let bin = server_bin.unwrap_or_else(default_server_bin);
            for source in sources {
                let options = alerts_scale::ScaleOptions {
                    points,
                    patience: Duration::from_secs(patience),
                    source,
                    requests: usize::try_from(requests).unwrap_or(1),
                };
                let result = alerts_scale::run(&bin, &options).await?;
                result.print();
            }
            Ok(true)
        }
        Command::Mixed {
            duration,
            connections,
            alerts_in_ten,
            alert_points,
            delivery_patience,
            server_bin,
        } => {
            let bin = server_bin.unwrap_or_else(default_server_bin);
            let options = mixed::MixedOptions {
                connections,
                duration: Duration::from_secs(duration),
                delivery_patience: Duration::from_secs(delivery_patience),
                alert_points,
                alerts_in_ten,
            };
            let (report, memory) = mixed::run(&bin, &options).await?;
            mixed::print(&report, &memory, &options);
            for failure in report.failures() {
                eprintln!("FAILED: {failure}");
            }
            Ok(report.passed())
        }
        Command::AlertJobs {
            keys,
            rate,
            duration,
            points,
            connections,
            patience,
            postgres,
            rounds,
            server_bin,
            before_bin,
        } => {
            let options = alert_jobs::JobsOptions {
                keys,
                rate,
                duration: Duration::from_secs(duration),
                points,
                connections,
                patience: Duration::from_secs(patience),
                store: if postgres {
                    alert_jobs::Store::Postgres
                } else {
                    alert_jobs::Store::Sqlite
                },
                rounds,
            };
            let servers: Vec<PathBuf> = before_bin
                .into_iter()
                .chain(Some(server_bin.unwrap_or_else(default_server_bin)))
                .collect();
            let reports = alert_jobs::run(&servers, &options).await?;
            alert_jobs::print(&reports, &options);
            Ok(reports.iter().all(alert_jobs::JobsReport::passed))
        }
        Command::Abuse {
            duration,
            connections,
            server_bin,
        } => {
            let bin = server_bin.unwrap_or_else(default_server_bin);
            let options = abuse::AbuseOptions {
                connections,
                duration: Duration::from_secs(duration),
                ..abuse::AbuseOptions::default()
            };
            let result = abuse::run(&bin, &options).await?;
            abuse::print(&result, &options);
            let failures = result.failures();
            for failure in &failures {
                eprintln!("FAILED: {failure}");
            }
            Ok(failures.is_empty())
        }
        Command::BenchServer { source } => {
            insights_load::bench_server::serve(source).await?;
            Ok(true)
        }
    }
}
