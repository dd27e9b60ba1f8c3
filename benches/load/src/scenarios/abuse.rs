//! Well-behaved clients with and without an abusive one: route scoring's throughput and p99
//! for the same load on the same server, first alone, then while another client (with a key
//! of its own and no rate limit to stop it) keeps sending 32 MiB bodies that end in a huge
//! unknown member, holds hundreds of connections half-open, and sends invented methods.
//!
//! The figures show what an abusive client costs everyone else: the bounds of SECURITY.md
//! (the byte budgets per key and per network, unknown members refused as their names arrive,
//! parse permits, header timeouts, the connection cap) are what keep the difference small.
//! Targets: beside the abuse, the well-behaved clients keep at least [`THROUGHPUT_TARGET`] of
//! their throughput alone, and their p99 stays within [`P99_TARGET`] times its value alone.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinSet;

use crate::generator::{LoadConfig, Report, Template};
use crate::memory::{MemoryReading, mib};
use crate::scenarios::mixed::UNLIMITED_CONFIG;
use crate::server::Installation;
use crate::{figure, requests};

/// The least share of their throughput alone that the well-behaved clients keep beside the
/// abuse.
pub const THROUGHPUT_TARGET: f64 = 0.8;
/// The most their p99 may grow beside the abuse, as a multiple of its value alone.
pub const P99_TARGET: f64 = 1.5;

/// How to run it.
#[derive(Debug, Clone)]
pub struct AbuseOptions {
    /// Connections of the well-behaved clients.
    pub connections: usize,
    /// How long each of the two runs lasts.
    pub duration: Duration,
    /// Connections sending amplifying bodies at once.
    pub body_senders: usize,
    /// Connections held half-open.
    pub half_open: usize,
}

impl Default for AbuseOptions {
    fn default() -> Self {
        Self {
            connections: 32,
            duration: Duration::from_secs(20),
            body_senders: 4,
            half_open: 400,
        }
    }
}

/// What the two runs saw.
#[derive(Debug)]
pub struct AbuseResult {
    /// The well-behaved load alone.
    pub alone: Report,
    /// The same load while the abusive client ran.
    pub attacked: Report,
    /// Amplifying bodies the abusive client got an answer to.
    pub bodies_answered: u64,
    /// The server's peak memory (VmHWM) at the end.
    pub server_peak_kib: u64,
}

impl AbuseResult {
    /// Well-behaved throughput beside the abuse over throughput alone.
    #[must_use]
    pub fn throughput_ratio(&self) -> f64 {
        let alone = self.alone.rate();
        if alone > 0.0 {
            self.attacked.rate() / alone
        } else {
            0.0
        }
    }

    /// Well-behaved p99 beside the abuse over p99 alone.
    #[must_use]
    pub fn p99_ratio(&self) -> f64 {
        let alone = p99_ms(&self.alone);
        if alone > 0.0 {
            p99_ms(&self.attacked) / alone
        } else {
            f64::INFINITY
        }
    }

    /// What missed its target, for people; empty when every target was met.
    #[must_use]
    pub fn failures(&self) -> Vec<String> {
        let mut failures = Vec::new();
        for (name, report) in [("alone", &self.alone), ("beside the abuse", &self.attacked)] {
            if report.errors() > 0 {
                failures.push(format!(
                    "{} well-behaved requests failed {name}:\n{}",
                    report.errors(),
                    report.summary()
                ));
            }
        }
        if self.throughput_ratio() < THROUGHPUT_TARGET {
            failures.push(format!(
                "well-behaved throughput beside the abuse is {:.2}x alone (target at least \
                 {THROUGHPUT_TARGET}x)",
                self.throughput_ratio()
            ));
        }
        if self.p99_ratio() > P99_TARGET {
            failures.push(format!(
                "well-behaved p99 beside the abuse is {:.2}x alone (target at most {P99_TARGET}x)",
                self.p99_ratio()
            ));
        }
        failures
    }
}

/// A report's p99 latency in milliseconds.
fn p99_ms(report: &Report) -> f64 {
    report
        .overall_latency()
        .map_or(0.0, |h| h.value_at_quantile(0.99) as f64 / 1000.0)
}

/// A route-scoring request followed by an unknown member holding an array, `bytes` bytes at
/// most in all: valid up to the member the reader must refuse, and within the body limit when
/// `bytes` is that limit, so that the server has to look into the body to refuse it.
fn amplifying_body(bytes: usize) -> Vec<u8> {
    let mut body = requests::one_route();
    body.pop();
    body.extend_from_slice(b",\"x\":[0");
    // Two bytes a step, and two for the closing `]}`.
    while body.len() + 4 <= bytes {
        body.extend_from_slice(b",0");
    }
    body.extend_from_slice(b"]}");
    body
}

/// Sends `body` to `path` on its own connection and reads the answer; false when the
/// connection failed.
async fn send_body(addr: &str, path: &str, body: &[u8]) -> bool {
    let Ok(mut stream) = TcpStream::connect(addr).await else {
        return false;
    };
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if stream.write_all(head.as_bytes()).await.is_err() {
        return false;
    }
    // The server may answer and close before the whole body is sent: that is a refusal too,
    // and the reset that follows its answer (it closes with the body unread) ends the answer.
    let _ = stream.write_all(body).await;
    let mut answer = [0u8; 512];
    let mut got = 0;
    while let Ok(n @ 1..) = stream.read(&mut answer).await {
        got += n;
    }
    got > 0
}

/// Runs the abusive client until `stop`: body senders, half-open connections (reopened as the
/// server closes them) and invented methods. Returns how many bodies got an answer.
async fn abuse(addr: String, path: String, options: AbuseOptions, stop: Arc<AtomicBool>) -> u64 {
    let body: Arc<[u8]> = amplifying_body(32 * 1024 * 1024).into();
    let answered = Arc::new(AtomicU64::new(0));
    let mut tasks = JoinSet::new();
    for _ in 0..options.body_senders {
        let (addr, path, body, stop, answered) = (
            addr.clone(),
            path.clone(),
            body.clone(),
            stop.clone(),
            answered.clone(),
        );
        tasks.spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                if send_body(&addr, &path, &body).await {
                    answered.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    for _ in 0..options.half_open {
        let (addr, stop) = (addr.clone(), stop.clone());
        tasks.spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let Ok(mut stream) = TcpStream::connect(&addr).await else {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                };
                let _ = stream
                    .write_all(b"POST /insights/v1/cleanest-route HTTP/1.1\r\nHo")
                    .await;
                let mut sink = [0u8; 256];
                // Waits until the server gives up on the head and closes the connection.
                let _ = stream.read(&mut sink).await;
            }
        });
    }
    {
        let (addr, stop) = (addr.clone(), stop.clone());
        tasks.spawn(async move {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                if let Ok(mut stream) = TcpStream::connect(&addr).await {
                    let request = format!(
                        "BREW{n} /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    );
                    let _ = stream.write_all(request.as_bytes()).await;
                    let mut sink = Vec::new();
                    let _ = stream.read_to_end(&mut sink).await;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        });
    }
    // Half-open connections wait for the server's header timeout; the stop ends them by
    // dropping the tasks.
    let until_stopped = async {
        while !stop.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    until_stopped.await;
    tasks.abort_all();
    answered.load(Ordering::Relaxed)
}

/// Starts a fresh installation with the rate limiter out of the way, runs the well-behaved load
/// alone, then again beside the abusive client.
///
/// # Errors
/// When the server cannot be set up or a load cannot be run.
pub async fn run(server_bin: &Path, options: &AbuseOptions) -> Result<AbuseResult> {
    let installation = Installation::new(server_bin, UNLIMITED_CONFIG)?;
    let good = installation.new_key()?;
    let bad = installation.new_key()?;
    let server = installation.serve()?;
    let config = || {
        LoadConfig::new(
            &server.base,
            options.connections,
            options.duration,
            vec![Template::post_json(
                "score-1-route",
                &requests::api_path(&good.key),
                requests::one_route(),
            )],
        )
    };
    // A short warm-up, so that both runs meet a server in the same state.
    let mut warm = config();
    warm.duration = Duration::from_secs(2);
    crate::generator::run(&warm).await?;
    let alone = crate::generator::run(&config()).await?;

    let addr = server
        .base
        .strip_prefix("http://")
        .context("the server's base URL is not http://")?
        .to_owned();
    let stop = Arc::new(AtomicBool::new(false));
    let attacker = tokio::spawn(abuse(
        addr,
        requests::api_path(&bad.key),
        options.clone(),
        stop.clone(),
    ));
    // Let the abuse take hold before measuring.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let attacked = crate::generator::run(&config()).await?;
    stop.store(true, Ordering::Relaxed);
    let bodies_answered = attacker.await.unwrap_or(0);
    let server_peak_kib = MemoryReading::of(server.pid).map_or(0, |r| r.hwm_kib);
    Ok(AbuseResult {
        alone,
        attacked,
        bodies_answered,
        server_peak_kib,
    })
}

/// Prints the figures of a run.
pub fn print(result: &AbuseResult, options: &AbuseOptions) {
    const S: &str = "abuse";
    figure(
        S,
        "setup",
        format!(
            "{} well-behaved connections scoring one route for {:?}; the abusive client: {} \
             connections sending 32 MiB amplifying bodies, {} half-open connections, invented \
             methods",
            options.connections, options.duration, options.body_senders, options.half_open
        ),
    );
    for (name, report) in [
        ("alone", &result.alone),
        ("beside the abuse", &result.attacked),
    ] {
        let p99 = p99_ms(report);
        figure(
            S,
            &format!("well-behaved clients {name}"),
            format!(
                "{:.0} req/s, p99 {p99:.2} ms, {} errors",
                report.rate(),
                report.errors()
            ),
        );
    }
    figure(
        S,
        "beside the abuse / alone",
        format!(
            "throughput {:.2}x (target >= {THROUGHPUT_TARGET}x), p99 {:.2}x (target <= \
             {P99_TARGET}x)",
            result.throughput_ratio(),
            result.p99_ratio()
        ),
    );
    figure(S, "amplifying bodies answered", result.bodies_answered);
    figure(
        S,
        "server peak memory (VmHWM)",
        format!("{:.1} MiB", mib(result.server_peak_kib)),
    );
}
