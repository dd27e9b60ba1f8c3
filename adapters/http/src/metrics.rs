//! Prometheus metrics: requests by route and status, request latency, alert jobs, webhook
//! deliveries and the station readings a fused source's quality control leaves out. Served as
//! OpenMetrics text on `GET /metrics`.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// Labels of a served request. `route` is the matched route template, never the raw path, and
/// `method` one of [`METHOD_LABELS`], so that hostile requests cannot add series.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: &'static str,
    status: u16,
}

/// The methods counted by name: those of RFC 9110 and `PATCH`. Any other is counted as
/// `other`, since a client may invent as many methods as it likes.
pub const METHOD_LABELS: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
];

/// The `method` label of a request with `method`.
///
/// ```
/// use insights_http::metrics::method_label;
///
/// assert_eq!(method_label("POST"), "POST");
/// assert_eq!(method_label("BREW"), "other");
/// assert_eq!(method_label("post"), "other");
/// ```
#[must_use]
pub fn method_label(method: &str) -> &'static str {
    METHOD_LABELS
        .iter()
        .find(|&&known| known == method)
        .copied()
        .unwrap_or("other")
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ExclusionLabels {
    pollutant: &'static str,
    reason: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LimitFailureLabels {
    bucket: String,
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct GridReasonLabels {
    reason: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ProductLabels {
    product: &'static str,
}

fn latency_histogram() -> Histogram {
    // 0.5 ms to about 16 s.
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

/// The server's metrics. Cheap to clone: every clone updates the same series.
#[derive(Clone)]
pub struct Metrics {
    registry: Arc<Registry>,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram, fn() -> Histogram>,
    jobs_queued: Gauge,
    jobs_running: Gauge,
    queue_age: Gauge<f64, AtomicU64>,
    breakers_open: Gauge,
    deliveries: Family<OutcomeLabels, Counter>,
    exclusions: Family<ExclusionLabels, Counter>,
    limit_failures: Family<LimitFailureLabels, Counter>,
    grid_skipped: Family<GridReasonLabels, Counter>,
    grid_refused: Family<GridReasonLabels, Counter>,
    fetch_success: Family<ProductLabels, Gauge>,
    fetch_age: Family<ProductLabels, Gauge>,
    fetch_failures: Family<ProductLabels, Counter>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// A fresh set of metrics in its own registry.
    #[must_use]
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("insights");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests served, by route template, method and status",
            requests.clone(),
        );
        let latency = Family::<RouteLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram,
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to serve a request, by route template",
            latency.clone(),
        );
        let jobs_queued = Gauge::default();
        registry.register(
            "jobs_queued",
            "Alert jobs waiting for a worker (due now or later)",
            jobs_queued.clone(),
        );
        let jobs_running = Gauge::default();
        registry.register(
            "jobs_running",
            "Alert jobs held by a worker, in any replica",
            jobs_running.clone(),
        );
        let queue_age = Gauge::<f64, AtomicU64>::default();
        registry.register(
            "jobs_queue_age_seconds",
            "How long the alert job that has waited longest for a worker has waited (0 when none waits); new alert requests are refused once it passes max_queue_delay_seconds",
            queue_age.clone(),
        );
        let breakers_open = Gauge::default();
        registry.register(
            "webhook_breakers_open",
            "Webhook URLs whose circuit breaker holds deliveries, in this process",
            breakers_open.clone(),
        );
        let deliveries = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "webhook_deliveries",
            "Webhook delivery attempts, by outcome (delivered, failed, gone, gave_up)",
            deliveries.clone(),
        );
        let exclusions = Family::<ExclusionLabels, Counter>::default();
        registry.register(
            "fusion_station_exclusions",
            "Station readings a fused source's quality control left out, by pollutant and reason (stale, negative, stuck, gross_error, outlier); each reading once per hour analysed",
            exclusions.clone(),
        );
        let limit_failures = Family::<LimitFailureLabels, Counter>::default();
        registry.register(
            "limit_store_failures",
            "Rate-limit checks the shared limit store could not answer, by limit and by what happened to the request (decided_locally: by this process's own limits; refused: answered 503)",
            limit_failures.clone(),
        );
        let grid_skipped = Family::<GridReasonLabels, Counter>::default();
        registry.register(
            "cams_messages_skipped",
            "GRIB2 messages of ingested CAMS files not served, by reason (unknown_producer, other_model, not_a_constituent, not_served, other_level, other_grid)",
            grid_skipped.clone(),
        );
        let grid_refused = Family::<GridReasonLabels, Counter>::default();
        registry.register(
            "cams_files_refused",
            "CAMS GRIB2 files refused whole by this process's ingest, by reason (unreadable, truncated, oversized, bad_time, undecodable, inconsistent, store)",
            grid_refused.clone(),
        );
        let fetch_success = Family::<ProductLabels, Gauge>::default();
        registry.register(
            "cams_fetch_last_success_timestamp_seconds",
            "When this process last found a CAMS product's newest published run in the grid store (fetched from the ADS or there already), Unix seconds; only with --fetch-cams",
            fetch_success.clone(),
        );
        let fetch_age = Family::<ProductLabels, Gauge>::default();
        registry.register(
            "cams_fetch_last_success_age_seconds",
            "Seconds since this process last found a CAMS product's newest published run in the grid store; only with --fetch-cams",
            fetch_age.clone(),
        );
        let fetch_failures = Family::<ProductLabels, Counter>::default();
        registry.register(
            "cams_fetch_failures",
            "Fetches of a CAMS product's newest run from the ADS that failed (each is tried again 10 minutes later)",
            fetch_failures.clone(),
        );
        Self {
            fetch_success,
            fetch_age,
            fetch_failures,
            registry: Arc::new(registry),
            limit_failures,
            grid_skipped,
            grid_refused,
            requests,
            latency,
            jobs_queued,
            jobs_running,
            queue_age,
            breakers_open,
            deliveries,
            exclusions,
        }
    }

    /// Counts a served request and its latency. `route` must be a route template (or a fixed
    /// name such as `unmatched`); `method` is reduced by [`method_label`].
    pub fn observe_request(&self, route: &str, method: &str, status: u16, elapsed: Duration) {
        self.requests
            .get_or_create(&RequestLabels {
                route: route.to_owned(),
                method: method_label(method),
                status,
            })
            .inc();
        self.latency
            .get_or_create(&RouteLabels {
                route: route.to_owned(),
            })
            .observe(elapsed.as_secs_f64());
    }

    /// Sets the number of queued alert jobs.
    pub fn set_jobs_queued(&self, n: i64) {
        self.jobs_queued.set(n);
    }

    /// Sets the number of jobs held by workers.
    pub fn set_jobs_running(&self, n: i64) {
        self.jobs_running.set(n);
    }

    /// Sets the queue's age: how long the longest-waiting job has waited.
    pub fn set_queue_age(&self, age: Duration) {
        self.queue_age.set(age.as_secs_f64());
    }

    /// Sets the number of webhook URLs whose circuit breaker is open.
    pub fn set_breakers_open(&self, n: i64) {
        self.breakers_open.set(n);
    }

    /// Counts a delivery attempt's outcome.
    pub fn count_delivery(&self, outcome: &str) {
        self.deliveries
            .get_or_create(&OutcomeLabels {
                outcome: outcome.to_owned(),
            })
            .inc();
    }

    /// Counts `count` station readings of `pollutant` (`pm25`, `no2`, ...) left out by a fused
    /// source's quality control for `reason` (`stale`, `negative`, `stuck`, `gross_error`, `outlier`). Both
    /// labels come from the fusion's fixed names, never from a client.
    pub fn count_station_exclusions(
        &self,
        pollutant: &'static str,
        reason: &'static str,
        count: u64,
    ) {
        self.exclusions
            .get_or_create(&ExclusionLabels { pollutant, reason })
            .inc_by(count);
    }

    /// Counts a rate-limit check of `bucket` (a limit's fixed name, never a client's input)
    /// that the shared limit store could not answer; `refused` when the request was refused.
    /// Returns how many such checks of `bucket` and outcome there were before.
    pub fn count_limit_store_failure(&self, bucket: &str, refused: bool) -> u64 {
        self.limit_failures
            .get_or_create(&LimitFailureLabels {
                bucket: bucket.to_owned(),
                outcome: if refused {
                    "refused"
                } else {
                    "decided_locally"
                },
            })
            .inc()
    }

    /// Records that `product` (`global` or `europe`, a fixed name) had its newest run in the
    /// grid store at `unix_seconds`, and resets its age.
    pub fn set_cams_fetch_success(&self, product: &'static str, unix_seconds: i64) {
        let labels = ProductLabels { product };
        self.fetch_success.get_or_create(&labels).set(unix_seconds);
        self.fetch_age.get_or_create(&labels).set(0);
    }

    /// Sets the seconds since `product`'s last success.
    pub fn set_cams_fetch_age(&self, product: &'static str, seconds: i64) {
        self.fetch_age
            .get_or_create(&ProductLabels { product })
            .set(seconds);
    }

    /// Counts a failed fetch of `product`.
    pub fn count_cams_fetch_failure(&self, product: &'static str) {
        self.fetch_failures
            .get_or_create(&ProductLabels { product })
            .inc();
    }

    /// Brings the CAMS ingest counters up to the process's totals: `skipped` messages and
    /// `refused` files, each by its reason's fixed name.
    pub fn set_cams_ingest_totals(
        &self,
        skipped: &[(&'static str, u64)],
        refused: &[(&'static str, u64)],
    ) {
        for (family, totals) in [(&self.grid_skipped, skipped), (&self.grid_refused, refused)] {
            for &(reason, total) in totals {
                let counter = family.get_or_create(&GridReasonLabels { reason });
                counter.inc_by(total.saturating_sub(counter.get()));
            }
        }
    }

    /// The metrics in the OpenMetrics text format.
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

impl identity_core::limiter::LimitObserver for Metrics {
    fn store_failed(&self, bucket: &str, error: &identity_core::ports::LimitError, refused: bool) {
        let before = self.count_limit_store_failure(bucket, refused);
        // The 1st, 2nd, 4th, 8th... failure of each kind: an outage is logged at once without
        // a line per request.
        if before.wrapping_add(1).is_power_of_two() {
            tracing::warn!(bucket, refused, failures = before + 1, error = %error,
                "the limit store did not answer");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_text_holds_every_series() {
        let m = Metrics::new();
        m.observe_request("/healthz", "GET", 200, Duration::from_millis(3));
        m.count_delivery("delivered");
        m.set_jobs_queued(4);
        let text = m.render();
        assert!(
            text.contains(
                r#"insights_http_requests_total{route="/healthz",method="GET",status="200"} 1"#
            ),
            "{text}"
        );
        assert!(
            text.contains("insights_http_request_duration_seconds_count{route=\"/healthz\"} 1")
        );
        assert!(text.contains("insights_webhook_deliveries_total{outcome=\"delivered\"} 1"));
        assert!(text.contains("insights_jobs_queued 4"));
        m.count_station_exclusions("pm25", "outlier", 2);
        m.count_station_exclusions("pm25", "outlier", 1);
        assert!(
            m.render().contains(
                r#"insights_fusion_station_exclusions_total{pollutant="pm25",reason="outlier"} 3"#
            ),
            "{}",
            m.render()
        );
    }

    #[test]
    fn invented_methods_share_one_series() {
        let m = Metrics::new();
        for method in ["BREW", "PROPFIND", "X-1", "GET"] {
            m.observe_request("unmatched", method, 405, Duration::from_millis(1));
        }
        let text = m.render();
        assert!(
            text.contains(
                r#"insights_http_requests_total{route="unmatched",method="other",status="405"} 3"#
            ),
            "{text}"
        );
        assert!(
            !text.contains("BREW") && !text.contains("PROPFIND"),
            "{text}"
        );
    }
}
