//! What the `insights-load` subcommands run. Each scenario starts what it measures, drives it
//! on loopback for a bounded time, and prints its figures as `FIGURE:` lines.

pub mod abuse;
pub mod alert_jobs;
pub mod alerts_scale;
pub mod http_ratio;
pub mod mixed;

use std::time::Duration;

/// A duration in milliseconds with two decimals, for figures.
#[must_use]
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}
