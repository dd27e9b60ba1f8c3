//! The charts of the deliveries page: a key's requests, alerts, deliveries by result and
//! attempt latency over the last 24 hours (hourly) and 7 days (daily), drawn on the server as
//! SVG from [`DeliveryLog::activity`](alerts_core::ports::DeliveryLog::activity).

use alerts_core::ports::{
    Activity, ActivityWindow, AttemptTally, DeliveryErrorKind, DeliveryLog, StoreError,
};
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use maud::{Markup, html};

const WIDTH: f64 = 360.0;
const HEIGHT: f64 = 170.0;
const LEFT: f64 = 44.0;
const RIGHT: f64 = 8.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 24.0;

/// What an attempt's result counts as on the charts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Delivered,
    Refused,
    ServerError,
    NoAnswer,
}

impl Outcome {
    const ALL: [Outcome; 4] = [
        Outcome::Delivered,
        Outcome::Refused,
        Outcome::ServerError,
        Outcome::NoAnswer,
    ];

    fn of(tally: &AttemptTally) -> Self {
        match (tally.status, tally.error) {
            (Some(s), None) if (200..300).contains(&s) => Outcome::Delivered,
            (Some(s), _) if (400..500).contains(&s) => Outcome::Refused,
            (Some(_), _) => Outcome::ServerError,
            (None, _) => Outcome::NoAnswer,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Outcome::Delivered => "delivered (2xx)",
            Outcome::Refused => "refused (4xx)",
            Outcome::ServerError => "failed (other status)",
            Outcome::NoAnswer => "no answer",
        }
    }

    fn colour(self) -> &'static str {
        match self {
            Outcome::Delivered => "#00a32a",
            Outcome::Refused => "#ff8c00",
            Outcome::ServerError => "#b32d2e",
            Outcome::NoAnswer => "#8c8f94",
        }
    }
}

/// One stacked series of a bar chart.
struct Series {
    name: &'static str,
    colour: &'static str,
    values: Vec<f64>,
}

/// Both windows' charts for `key` at `now`.
pub(crate) async fn section(
    log: &dyn DeliveryLog,
    key: KeyId,
    now: DateTime<Utc>,
) -> Result<Markup, StoreError> {
    let day = ActivityWindow::hourly_until(now, 24);
    let week = ActivityWindow::daily_until(now, 7);
    let (hourly, daily) = (
        log.activity(key, &day).await?,
        log.activity(key, &week).await?,
    );
    Ok(html! {
        section #activity {
            h2 { "Activity" }
            (window_charts("24h", "Last 24 hours (per hour, UTC)", &day, &hourly, "%H"))
            (window_charts("7d", "Last 7 days (per day, UTC)", &week, &daily, "%a %d"))
        }
    })
}

fn window_charts(
    id: &str,
    title: &str,
    window: &ActivityWindow,
    activity: &Activity,
    label: &str,
) -> Markup {
    let n = window.buckets as usize;
    let mut requests = vec![0.0; n];
    let mut alerts = vec![0.0; n];
    for r in &activity.requests {
        if let Some(i) = index(r.bucket, n) {
            requests[i] += r.requests as f64;
            alerts[i] += r.alerts as f64;
        }
    }
    let mut results: Vec<Vec<f64>> = vec![vec![0.0; n]; Outcome::ALL.len()];
    let mut attempts = vec![0.0; n];
    let mut latency_total = vec![0.0; n];
    let mut latency_max = vec![0.0f64; n];
    let mut by_status: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for a in &activity.attempts {
        let Some(i) = index(a.bucket, n) else {
            continue;
        };
        let kind = Outcome::of(a);
        let row = Outcome::ALL.iter().position(|r| *r == kind).unwrap_or(0);
        results[row][i] += a.attempts as f64;
        attempts[i] += a.attempts as f64;
        latency_total[i] += a.latency_ms_total as f64;
        latency_max[i] = latency_max[i].max(a.latency_ms_max as f64);
        let status = match (a.status, a.error) {
            (Some(s), _) => format!("HTTP {s}"),
            (None, Some(e)) => failure_name(e).to_owned(),
            (None, None) => "no answer".to_owned(),
        };
        *by_status.entry(status).or_default() += a.attempts;
    }
    let mean: Vec<f64> = latency_total
        .iter()
        .zip(&attempts)
        .map(|(t, n)| if *n > 0.0 { t / n } else { 0.0 })
        .collect();
    let labels: Vec<String> = (0..window.buckets)
        .map(|b| window.start_of(b).format(label).to_string())
        .collect();
    let every = if n > 12 { 3 } else { 1 };
    let deliveries: Vec<Series> = Outcome::ALL
        .iter()
        .zip(results)
        .map(|(r, values)| Series {
            name: r.name(),
            colour: r.colour(),
            values,
        })
        .collect();
    html! {
        h3 { (title) }
        div.charts {
            figure {
                figcaption id=(format!("chart-{id}-requests-caption")) { "Requests" }
                (bar_chart(&format!("chart-{id}-requests"), &labels, every, &[Series { name: "requests", colour: "#12372a", values: requests }], ""))
            }
            figure {
                figcaption id=(format!("chart-{id}-alerts-caption")) { "Alerts written" }
                (bar_chart(&format!("chart-{id}-alerts"), &labels, every, &[Series { name: "alerts", colour: "#1e5a44", values: alerts }], ""))
            }
            figure {
                figcaption id=(format!("chart-{id}-deliveries-caption")) { "Delivery attempts by result" }
                (bar_chart(&format!("chart-{id}-deliveries"), &labels, every, &deliveries, ""))
                ul.legend {
                    @for r in Outcome::ALL {
                        li {
                            svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" { rect width="14" height="14" fill=(r.colour()) {} }
                            " " (r.name())
                        }
                    }
                }
                @if !by_status.is_empty() {
                    p.hint.statuses {
                        "By status: "
                        @for (i, (status, count)) in by_status.iter().enumerate() {
                            @if i > 0 { ", " }
                            (status) " × " (count)
                        }
                    }
                }
            }
            figure {
                figcaption id=(format!("chart-{id}-latency-caption")) { "Attempt latency (ms): mean, with the slowest as a tick" }
                (latency_chart(&format!("chart-{id}-latency"), &labels, every, &attempts, &mean, &latency_max))
            }
        }
    }
}

fn index(bucket: u32, n: usize) -> Option<usize> {
    usize::try_from(bucket).ok().filter(|i| *i < n)
}

/// A round top for the value axis: 1, 2 or 5 times a power of ten, at least `max`, and at
/// least 2 so that the half-way line falls on a whole number.
fn nice_top(max: f64) -> f64 {
    if max <= 2.0 {
        return 2.0;
    }
    let magnitude = 10f64.powf(max.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|v| *v >= max)
        .unwrap_or(10.0 * magnitude)
}

fn frame(top: f64, labels: &[String], every: usize, unit: &str) -> Markup {
    let plot_w = WIDTH - LEFT - RIGHT;
    let slot = plot_w / labels.len().max(1) as f64;
    let y = |v: f64| TOP + (1.0 - v / top) * (HEIGHT - TOP - BOTTOM);
    html! {
        @for v in [0.0, top / 2.0, top] {
            line x1=(LEFT) x2=(WIDTH - RIGHT) y1=(format!("{:.1}", y(v))) y2=(format!("{:.1}", y(v))) stroke="#dcdcde" {}
            text x=(LEFT - 4.0) y=(format!("{:.1}", y(v) + 4.0)) text-anchor="end" font-size="10" { (format!("{v}")) (unit) }
        }
        @for (i, label) in labels.iter().enumerate() {
            @if i % every == 0 {
                text x=(format!("{:.1}", LEFT + slot * (i as f64 + 0.5))) y=(HEIGHT - 8.0) text-anchor="middle" font-size="10" { (label) }
            }
        }
    }
}

fn bar_chart(id: &str, labels: &[String], every: usize, series: &[Series], unit: &str) -> Markup {
    let n = labels.len().max(1);
    let totals: Vec<f64> = (0..n)
        .map(|i| {
            series
                .iter()
                .map(|s| s.values.get(i).copied().unwrap_or(0.0))
                .sum()
        })
        .collect();
    let top = nice_top(totals.iter().copied().fold(0.0, f64::max));
    let plot_w = WIDTH - LEFT - RIGHT;
    let slot = plot_w / n as f64;
    let scale = (HEIGHT - TOP - BOTTOM) / top;
    // Each value stacked on the ones below it: (index, y, height, series, value).
    let mut bars = Vec::new();
    for i in 0..n {
        let mut base = HEIGHT - BOTTOM;
        for s in series {
            let v = s.values.get(i).copied().unwrap_or(0.0);
            if v > 0.0 {
                let h = v * scale;
                base -= h;
                bars.push((i, base, h, s, v));
            }
        }
    }
    html! {
        svg.chart id=(id) xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img"
            // Named by its figure's caption, for those who cannot see it.
            aria-labelledby=(format!("{id}-caption")) {
            (frame(top, labels, every, unit))
            @for (i, y, h, s, v) in bars {
                rect.bar x=(format!("{:.1}", LEFT + slot * i as f64 + slot * 0.15)) y=(format!("{y:.1}"))
                    width=(format!("{:.1}", slot * 0.7)) height=(format!("{h:.1}")) fill=(s.colour) data-series=(s.name) {
                    title { (labels.get(i).map_or("", String::as_str)) ": " (v) " " (s.name) }
                }
            }
        }
    }
}

fn latency_chart(
    id: &str,
    labels: &[String],
    every: usize,
    attempts: &[f64],
    mean: &[f64],
    max: &[f64],
) -> Markup {
    let n = labels.len().max(1);
    let top = nice_top(max.iter().copied().fold(0.0, f64::max));
    let plot_w = WIDTH - LEFT - RIGHT;
    let slot = plot_w / n as f64;
    let y = |v: f64| TOP + (1.0 - v / top) * (HEIGHT - TOP - BOTTOM);
    html! {
        svg.chart id=(id) xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img"
            // Named by its figure's caption, for those who cannot see it.
            aria-labelledby=(format!("{id}-caption")) {
            (frame(top, labels, every, ""))
            @for i in 0..n {
                @let m = mean.get(i).copied().unwrap_or(0.0);
                @let x = LEFT + slot * i as f64 + slot * 0.15;
                // A bucket with attempts shows a bar even when they took under a millisecond.
                @if attempts.get(i).is_some_and(|n| *n > 0.0) {
                    @let h = (y(0.0) - y(m)).max(1.0);
                    rect.bar x=(format!("{x:.1}")) y=(format!("{:.1}", y(0.0) - h)) width=(format!("{:.1}", slot * 0.7))
                        height=(format!("{h:.1}")) fill="#2271b1" data-series="mean latency" {
                        title { (labels.get(i).map_or("", String::as_str)) ": mean " (format!("{m:.0}")) " ms, slowest " (max.get(i).copied().unwrap_or(0.0)) " ms" }
                    }
                    line.max x1=(format!("{x:.1}")) x2=(format!("{:.1}", x + slot * 0.7))
                        y1=(format!("{:.1}", y(max[i]))) y2=(format!("{:.1}", y(max[i]))) stroke="#1d2327" stroke-width="2" {}
                }
            }
        }
    }
}

/// What the dashboard calls a failed attempt. An address refused by the webhook policy reads
/// as a connection failure: told apart, they would let an account probe, through the host
/// names of its webhook URL, which internal names resolve. The delivery log and the admin
/// command, which only the operator reads, keep the difference.
pub(crate) fn failure_name(kind: DeliveryErrorKind) -> &'static str {
    match kind {
        DeliveryErrorKind::Connect | DeliveryErrorKind::Forbidden => "could not connect",
        DeliveryErrorKind::Timeout => "timeout",
        DeliveryErrorKind::Status => "status",
    }
}
