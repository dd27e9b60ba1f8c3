//! The mixed load test: route scoring of a few shapes and alert requests together on the real
//! server, for a fixed time at a fixed number of connections. It passes with zero errors (no
//! non-2xx answer but alert requests refused up front with 503, no transport error) and every
//! accepted alert request delivered to the receiver, signature verified, within the patience.
//! It reports how long accepted requests took from their 200 to their webhook, and the queue's
//! age as the server's metrics showed it during the load.
//!
//! [`drive`] runs against any server and receiver (the server's integration tests use it for a
//! short run); [`run`] starts a fresh installation and samples its memory as well.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use hdrhistogram::Histogram;

use crate::generator::{LoadConfig, Report, Template};
use crate::memory::{MemoryReport, MemorySampler, mib};
use crate::scenarios::alerts_scale::RULES;
use crate::server::Installation;
use crate::{figure, requests};
use test_support::receiver::Receiver;

/// The per-key limits the server is given, far above what two cores serve: the test measures
/// the service, not the limiter.
pub const UNLIMITED_CONFIG: &str = "rate_per_second = 1000000\nrate_burst = 1000000\n";

/// The operations, as the report names them.
pub const OPERATIONS: [&str; 4] = ["score-1-route", "score-3-routes", "score-long", "alerts"];

/// How to run it.
#[derive(Debug, Clone)]
pub struct MixedOptions {
    /// Connections of the load generator.
    pub connections: usize,
    /// How long the load lasts.
    pub duration: Duration,
    /// How long the deliveries may take after the load ends.
    pub delivery_patience: Duration,
    /// Points per alert request.
    pub alert_points: usize,
    /// Alert requests among every ten requests (the rest are route scoring).
    pub alerts_in_ten: u32,
}

impl Default for MixedOptions {
    fn default() -> Self {
        Self {
            connections: 64,
            duration: Duration::from_secs(60),
            delivery_patience: Duration::from_secs(300),
            alert_points: 10,
            alerts_in_ten: 1,
        }
    }
}

/// What the load saw.
#[derive(Debug, Clone)]
pub struct MixedReport {
    /// The load itself.
    pub load: Report,
    /// Tokens of the accepted alert requests.
    pub tokens: Vec<String>,
    /// Alert requests refused up front (503 with `Retry-After`) because the queue was behind.
    pub refused: u64,
    /// From each accepted request's 200 to its first webhook, in milliseconds.
    pub accept_to_webhook: Option<Histogram<u64>>,
    /// The queue's age (`insights_jobs_queue_age_seconds`), sampled every second of the load.
    pub queue_age_seconds: Vec<f64>,
    /// Tokens not delivered when the patience ran out.
    pub undelivered: Vec<String>,
    /// From the end of the load to the last delivery.
    pub delivery_wait: Duration,
    /// Deliveries received, repeats included.
    pub deliveries_received: u64,
    /// Deliveries refused by the receiver because their signature did not verify.
    pub deliveries_refused: u64,
    /// Why the first refused delivery was refused.
    pub first_refusal: Option<String>,
}

impl MixedReport {
    /// True with zero errors, every token delivered and every delivery verified.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.errors() == 0 && self.undelivered.is_empty() && self.deliveries_refused == 0
    }

    /// Failed requests: non-2xx answers and transport errors, less the alert requests refused
    /// up front.
    #[must_use]
    pub fn errors(&self) -> u64 {
        self.load.errors() - self.refused
    }

    /// What failed, for people; empty when it passed.
    #[must_use]
    pub fn failures(&self) -> Vec<String> {
        let mut failures = Vec::new();
        if self.errors() > 0 {
            failures.push(format!(
                "{} requests failed:\n{}",
                self.errors(),
                self.load.summary()
            ));
        }
        if !self.undelivered.is_empty() {
            failures.push(format!(
                "{} of {} accepted alert requests were not delivered (first: {})",
                self.undelivered.len(),
                self.tokens.len(),
                self.undelivered[0]
            ));
        }
        if self.deliveries_refused > 0 {
            failures.push(format!(
                "{} deliveries did not verify: {}",
                self.deliveries_refused,
                self.first_refusal.as_deref().unwrap_or("?")
            ));
        }
        failures
    }
}

/// The requests of the mix, on `key`: three route shapes with equal shares and alert requests
/// of `options.alert_points` points, `options.alerts_in_ten` in ten.
#[must_use]
pub fn templates(key: &str, options: &MixedOptions) -> Vec<Template> {
    let path = requests::api_path(key);
    let alerts = options.alerts_in_ten.min(10);
    // Route weights out of 30, alert weight out of 30: alerts/10 of the requests are alerts.
    let route_weight = 10 - alerts;
    [
        Template::post_json(OPERATIONS[0], &path, requests::one_route()).weight(route_weight),
        Template::post_json(OPERATIONS[1], &path, requests::three_routes()).weight(route_weight),
        Template::post_json(OPERATIONS[2], &path, requests::long_route(200)).weight(route_weight),
        Template::post_json(OPERATIONS[3], &path, requests::points(options.alert_points))
            .weight(alerts * 3)
            .capture("/data/token"),
    ]
    .into_iter()
    .filter(|t| t.weight > 0)
    .collect()
}

/// The longest accept-to-webhook latency the report tells apart, in milliseconds (an hour);
/// longer ones count as an hour.
const MAX_DELIVERY_MS: u64 = 3_600_000;

/// Runs the mix against the server at `base` with `key`, whose webhook goes to `receiver`,
/// then waits for every accepted alert request's delivery.
///
/// # Errors
/// When the load cannot be run at all; what the server answered is in the report.
pub async fn drive(
    base: &str,
    key: &str,
    receiver: &Receiver,
    options: &MixedOptions,
) -> Result<MixedReport> {
    let config = LoadConfig::new(
        base,
        options.connections,
        options.duration,
        templates(key, options),
    );
    let sampling = tokio::spawn(sample_queue_age(
        format!("{base}/metrics"),
        options.duration,
    ));
    let load = crate::generator::run(&config).await?;
    let ended = Instant::now();
    let queue_age_seconds = sampling.await.unwrap_or_default();
    let alerts = load.operation(OPERATIONS[3]);
    let accepted: Vec<(String, Instant)> = alerts.map(|o| o.captured.clone()).unwrap_or_default();
    let refused = alerts
        .and_then(|o| o.statuses.get(&503).copied())
        .unwrap_or(0);
    let tokens: Vec<String> = accepted.iter().map(|(t, _)| t.clone()).collect();
    let undelivered: Vec<String> = receiver
        .wait_for_all(&tokens, options.delivery_patience)
        .await
        .into_iter()
        .cloned()
        .collect();
    let delivery_wait = ended.elapsed();
    let (deliveries_refused, first_refusal) = receiver.refused();
    // Bounded, because a histogram that grows as it goes clamps a saturating record to the
    // range it has so far instead of growing.
    let mut latency = Histogram::<u64>::new_with_bounds(1, MAX_DELIVERY_MS, 3).ok();
    for (token, at) in &accepted {
        if let (Some(h), Some(arrived)) = (
            latency.as_mut(),
            receiver.first_delivery(token).map(|d| d.arrived),
        ) {
            let ms = arrived.saturating_duration_since(*at).as_millis();
            h.saturating_record(u64::try_from(ms).unwrap_or(u64::MAX).max(1));
        }
    }
    Ok(MixedReport {
        load,
        tokens,
        refused,
        accept_to_webhook: latency.filter(|h| !h.is_empty()),
        queue_age_seconds,
        undelivered,
        delivery_wait,
        deliveries_received: receiver.received() as u64,
        deliveries_refused: deliveries_refused as u64,
        first_refusal,
    })
}

/// Starts a fresh installation of the server at `server_bin` with the limiter out of the way,
/// two rules and a webhook on a receiver here, drives the mix, and samples the server's memory
/// throughout.
///
/// # Errors
/// When the server cannot be set up or the load cannot be run.
pub async fn run(server_bin: &Path, options: &MixedOptions) -> Result<(MixedReport, MemoryReport)> {
    let installation = Installation::new(server_bin, UNLIMITED_CONFIG)?;
    let key = installation.new_key()?;
    let receiver = Receiver::verifying(&key.secret).await;
    installation.set_webhook(&key, &receiver.url("/hook"))?;
    for (data_type, forecast, sensitivity) in RULES {
        installation.add_rule(&key, data_type, forecast, sensitivity)?;
    }
    let server = installation.serve()?;
    let sampler = MemorySampler::start(server.pid, Duration::from_millis(250));
    let report = drive(&server.base, &key.key, &receiver, options).await?;
    let memory = sampler.stop();
    if !report.passed() {
        eprintln!("server log (last lines):\n{}", server.log_tail(30));
    }
    Ok((report, memory))
}

/// Prints the figures of a run.
pub fn print(report: &MixedReport, memory: &MemoryReport, options: &MixedOptions) {
    const S: &str = "mixed";
    println!("{}", report.load.summary());
    figure(
        S,
        "setup",
        format!(
            "{} connections for {:?}; {} in 10 requests are alert requests of {} points",
            options.connections, options.duration, options.alerts_in_ten, options.alert_points
        ),
    );
    let elapsed = report.load.elapsed;
    figure(
        S,
        "all requests",
        format!("{:.0} req/s", report.load.rate()),
    );
    for op in &report.load.operations {
        figure(
            S,
            &op.name,
            format!(
                "{:.0} req/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                op.rate(elapsed),
                op.quantile_ms(0.5),
                op.quantile_ms(0.99),
                op.max_ms()
            ),
        );
    }
    if let Some(all) = report.load.overall_latency() {
        figure(
            S,
            "p99 of all requests",
            format!("{:.2} ms", all.value_at_quantile(0.99) as f64 / 1000.0),
        );
    }
    figure(S, "errors", report.errors());
    figure(
        S,
        "alert requests refused up front (503 queue_full)",
        report.refused,
    );
    if let Some(h) = &report.accept_to_webhook {
        figure(
            S,
            "accept to webhook",
            format!(
                "p50 {} ms, p99 {} ms, max {} ms over {} deliveries",
                h.value_at_quantile(0.5),
                h.value_at_quantile(0.99),
                h.max(),
                h.len()
            ),
        );
    }
    let max_age = report
        .queue_age_seconds
        .iter()
        .copied()
        .fold(0.0_f64, f64::max);
    figure(
        S,
        "queue age during the load",
        format!(
            "max {max_age:.1} s over {} samples",
            report.queue_age_seconds.len()
        ),
    );
    figure(
        S,
        "deliveries",
        format!(
            "{} of {} accepted alert requests delivered and verified ({} received with repeats), the last {:.1} s after the load",
            report.tokens.len() - report.undelivered.len(),
            report.tokens.len(),
            report.deliveries_received,
            report.delivery_wait.as_secs_f64()
        ),
    );
    figure(
        S,
        "server peak memory (VmHWM)",
        format!("{:.1} MiB", mib(memory.peak_kib)),
    );
    figure(
        S,
        "server resident memory (VmRSS, MiB) over time",
        memory.timeline(8),
    );
}

/// Reads the queue's age from the server's metrics once a second for `duration`; a failed read
/// is skipped.
async fn sample_queue_age(url: String, duration: Duration) -> Vec<f64> {
    let until = Instant::now() + duration;
    let mut ages = Vec::new();
    while Instant::now() < until {
        if let Ok(reply) = crate::client::get(&url).await
            && let Some(age) = String::from_utf8_lossy(&reply.body)
                .lines()
                .find_map(|l| l.strip_prefix("insights_jobs_queue_age_seconds "))
                .and_then(|v| v.trim().parse::<f64>().ok())
        {
            ages.push(age);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    ages
}
