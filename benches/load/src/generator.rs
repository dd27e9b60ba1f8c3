//! The load generator: `connections` keep-alive HTTP/1.1 connections to one server, one task
//! per connection sending requests back to back until the duration is over (closed loop), or
//! at a fixed total rate ([`LoadConfig::rate`], open loop).
//!
//! A closed loop finds the most a server can serve, but its latencies only restate that rate:
//! with every connection always waiting, the mean latency is the connections divided by the
//! rate (Little's law), whatever the handler does. An open-loop run sends at a set rate
//! instead and times each request from its *scheduled* start, so that a server that falls
//! behind is charged for the wait it causes rather than sent fewer requests.
//!
//! Each connection walks the weighted list of [`Template`]s round-robin, from its own starting
//! point, so that the mix of requests in flight matches the weights at every moment without a
//! random generator. Latency runs from just before a request is written to the last byte of its
//! response, in microseconds, into one HDR histogram per template and connection, merged at the
//! end so that the hot loop shares nothing.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::{Method, Request, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// The highest latency the histograms hold, in microseconds (one minute); longer ones are
/// recorded as this.
const MAX_LATENCY_US: u64 = 60_000_000;
/// How many error descriptions a run keeps, to say what went wrong without flooding.
const ERROR_SAMPLES: usize = 5;
/// How long a connection waits after a failed connect before it tries again.
const RECONNECT_PAUSE: Duration = Duration::from_millis(20);

/// One kind of request the generator sends.
#[derive(Debug, Clone)]
pub struct Template {
    /// The operation it belongs to, which names its line in the report.
    pub name: String,
    /// The method.
    pub method: Method,
    /// The path and query, such as `/insights/v1/cleanest-route?key=ik_...`.
    pub path: String,
    /// The body (empty for none).
    pub body: Bytes,
    /// The `Content-Type` of the body, if any.
    pub content_type: Option<&'static str>,
    /// Its share of the requests, relative to the other templates' weights.
    pub weight: u32,
    /// A JSON pointer (such as `/data/token`) whose string value is kept from every 2xx
    /// response, for the caller to follow up on.
    pub capture: Option<String>,
}

impl Template {
    /// A `GET` of `path` in operation `name`, with weight 1.
    #[must_use]
    pub fn get(name: &str, path: &str) -> Self {
        Self {
            name: name.to_owned(),
            method: Method::GET,
            path: path.to_owned(),
            body: Bytes::new(),
            content_type: None,
            weight: 1,
            capture: None,
        }
    }

    /// A JSON `POST` of `body` to `path` in operation `name`, with weight 1.
    #[must_use]
    pub fn post_json(name: &str, path: &str, body: impl Into<Bytes>) -> Self {
        Self {
            name: name.to_owned(),
            method: Method::POST,
            path: path.to_owned(),
            body: body.into(),
            content_type: Some("application/json"),
            weight: 1,
            capture: None,
        }
    }

    /// The same template with `weight`.
    #[must_use]
    pub fn weight(mut self, weight: u32) -> Self {
        self.weight = weight;
        self
    }

    /// The same template, keeping the string at `pointer` of every 2xx response.
    #[must_use]
    pub fn capture(mut self, pointer: &str) -> Self {
        self.capture = Some(pointer.to_owned());
        self
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The server, as `http://HOST:PORT`.
    pub base_url: String,
    /// Concurrent connections, each with one request in flight at a time.
    pub connections: usize,
    /// How long connections keep starting new requests; requests in flight at the end are
    /// waited for and counted.
    pub duration: Duration,
    /// What to send.
    pub templates: Vec<Template>,
    /// The longest a request may take before it counts as a transport error.
    pub request_timeout: Duration,
    /// Requests per second over all connections together, evenly spaced, instead of back to
    /// back; latency then counts from each request's scheduled start.
    pub rate: Option<f64>,
}

impl LoadConfig {
    /// A run of `templates` against `base_url` with `connections` for `duration`, each request
    /// allowed 30 s.
    #[must_use]
    pub fn new(
        base_url: &str,
        connections: usize,
        duration: Duration,
        templates: Vec<Template>,
    ) -> Self {
        Self {
            base_url: base_url.to_owned(),
            connections,
            duration,
            templates,
            request_timeout: Duration::from_secs(30),
            rate: None,
        }
    }

    /// The same run, open loop at `per_second` requests per second in all.
    #[must_use]
    pub fn at_rate(mut self, per_second: f64) -> Self {
        self.rate = Some(per_second);
        self
    }
}

/// What one operation saw.
#[derive(Debug, Clone)]
pub struct OperationReport {
    /// The operation.
    pub name: String,
    /// Responses by status code.
    pub statuses: BTreeMap<u16, u64>,
    /// Requests that got no response: connection refused or reset, malformed response,
    /// timeout.
    pub transport_errors: u64,
    /// Latency of every response, in microseconds.
    pub latency: Histogram<u64>,
    /// The captured strings of 2xx responses (see [`Template::capture`]), each with when its
    /// response arrived.
    pub captured: Vec<(String, Instant)>,
}

impl OperationReport {
    fn new(name: &str, blank: &Histogram<u64>) -> Self {
        Self {
            name: name.to_owned(),
            statuses: BTreeMap::new(),
            transport_errors: 0,
            latency: blank.clone(),
            captured: Vec::new(),
        }
    }

    /// Responses received, whatever their status.
    #[must_use]
    pub fn responses(&self) -> u64 {
        self.statuses.values().sum()
    }

    /// Responses whose status is not 2xx.
    #[must_use]
    pub fn non_2xx(&self) -> u64 {
        self.statuses
            .iter()
            .filter(|(status, _)| !(200..300).contains(*status))
            .map(|(_, n)| n)
            .sum()
    }

    /// Non-2xx responses plus transport errors.
    #[must_use]
    pub fn errors(&self) -> u64 {
        self.non_2xx() + self.transport_errors
    }

    /// Responses per second over `elapsed`.
    #[must_use]
    pub fn rate(&self, elapsed: Duration) -> f64 {
        per_second(self.responses(), elapsed)
    }

    /// The latency at quantile `q` (0 to 1), in milliseconds.
    #[must_use]
    pub fn quantile_ms(&self, q: f64) -> f64 {
        us_to_ms(self.latency.value_at_quantile(q))
    }

    /// The highest latency, in milliseconds.
    #[must_use]
    pub fn max_ms(&self) -> f64 {
        us_to_ms(self.latency.max())
    }

    fn merge(&mut self, other: &OperationReport) {
        for (status, n) in &other.statuses {
            *self.statuses.entry(*status).or_default() += n;
        }
        self.transport_errors += other.transport_errors;
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = self.latency.add(&other.latency);
        self.captured.extend(other.captured.iter().cloned());
    }

    /// One line: rate, quantiles, max, statuses and errors.
    #[must_use]
    pub fn summary(&self, elapsed: Duration) -> String {
        let statuses: Vec<String> = self
            .statuses
            .iter()
            .map(|(status, n)| format!("{status}x{n}"))
            .collect();
        format!(
            "{:<16} {:>9.0} req/s  p50 {:>7.2} ms  p90 {:>7.2} ms  p99 {:>7.2} ms  max {:>8.2} ms  \
             responses {} [{}]  transport errors {}",
            self.name,
            self.rate(elapsed),
            self.quantile_ms(0.50),
            self.quantile_ms(0.90),
            self.quantile_ms(0.99),
            self.max_ms(),
            self.responses(),
            statuses.join(" "),
            self.transport_errors,
        )
    }
}

/// What a run saw.
#[derive(Debug, Clone)]
pub struct Report {
    /// From the first request to the last response.
    pub elapsed: Duration,
    /// One entry per operation, in the order the templates first name them.
    pub operations: Vec<OperationReport>,
    /// Connections that could not be opened (each also delays its connection's requests).
    pub connect_errors: u64,
    /// The first few errors, described.
    pub error_samples: Vec<String>,
}

impl Report {
    fn empty(names: &[String], blank: &Histogram<u64>) -> Self {
        Self {
            elapsed: Duration::ZERO,
            operations: names
                .iter()
                .map(|n| OperationReport::new(n, blank))
                .collect(),
            connect_errors: 0,
            error_samples: Vec::new(),
        }
    }

    /// The operation called `name`.
    #[must_use]
    pub fn operation(&self, name: &str) -> Option<&OperationReport> {
        self.operations.iter().find(|o| o.name == name)
    }

    /// Responses received over all operations.
    #[must_use]
    pub fn responses(&self) -> u64 {
        self.operations.iter().map(OperationReport::responses).sum()
    }

    /// Non-2xx responses, transport errors and failed connects over all operations.
    #[must_use]
    pub fn errors(&self) -> u64 {
        self.operations
            .iter()
            .map(OperationReport::errors)
            .sum::<u64>()
            + self.connect_errors
    }

    /// Responses per second over all operations.
    #[must_use]
    pub fn rate(&self) -> f64 {
        per_second(self.responses(), self.elapsed)
    }

    /// The latency histogram of all operations together; `None` without operations.
    #[must_use]
    pub fn overall_latency(&self) -> Option<Histogram<u64>> {
        let (first, rest) = self.operations.split_first()?;
        let mut all = first.latency.clone();
        for op in rest {
            let _ = all.add(&op.latency);
        }
        Some(all)
    }

    /// Adds `other`'s counts to this report's, operation by operation, and its elapsed time
    /// to this one's: for a measurement made of several rounds.
    pub fn merge(&mut self, other: &Report) {
        self.elapsed += other.elapsed;
        for op in &other.operations {
            match self.operations.iter_mut().find(|o| o.name == op.name) {
                Some(mine) => mine.merge(op),
                None => self.operations.push(op.clone()),
            }
        }
        self.connect_errors += other.connect_errors;
        for sample in &other.error_samples {
            if self.error_samples.len() < ERROR_SAMPLES {
                self.error_samples.push(sample.clone());
            }
        }
    }

    /// One line per operation, then the errors seen, for people.
    #[must_use]
    pub fn summary(&self) -> String {
        let mut text: Vec<String> = self
            .operations
            .iter()
            .map(|o| o.summary(self.elapsed))
            .collect();
        if self.connect_errors > 0 {
            text.push(format!("connect errors: {}", self.connect_errors));
        }
        for sample in &self.error_samples {
            text.push(format!("error: {sample}"));
        }
        text.join("\n")
    }
}

/// The requests every connection walks through, shared read-only.
struct Plan {
    addr: SocketAddr,
    authority: String,
    templates: Vec<Template>,
    /// Indices of [`Plan::templates`], each repeated by its weight.
    schedule: Vec<usize>,
    /// For each template, the index of its operation in the report.
    operation_of: Vec<usize>,
    names: Vec<String>,
    timeout: Duration,
    /// An empty histogram with the bounds every report uses.
    blank: Histogram<u64>,
    /// For an open-loop run, the time between two requests of one connection.
    interval: Option<Duration>,
}

/// Runs `config` and reports what the server answered.
///
/// # Errors
/// When the configuration is unusable (no template, no weight, an unparsable URL or an
/// unresolvable host). What the server does, errors included, is in the report.
pub async fn run(config: &LoadConfig) -> Result<Report> {
    let plan = Arc::new(plan(config).await?);
    let started = Instant::now();
    let deadline = started + config.duration;
    let mut tasks = tokio::task::JoinSet::new();
    for index in 0..config.connections.max(1) {
        // Open loop: connection i starts i/rate seconds in, so the connections' schedules
        // interleave into one even stream.
        let first = match (config.rate, plan.interval) {
            (Some(rate), Some(_)) => started + Duration::from_secs_f64(index as f64 / rate),
            _ => started,
        };
        tasks.spawn(connection(plan.clone(), index, first, deadline));
    }
    let mut report = Report::empty(&plan.names, &plan.blank);
    while let Some(done) = tasks.join_next().await {
        let part = done.context("a connection task panicked")?;
        report.merge(&part);
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

async fn plan(config: &LoadConfig) -> Result<Plan> {
    if config.templates.is_empty() {
        bail!("no request template to send");
    }
    let uri: Uri = config
        .base_url
        .parse()
        .with_context(|| format!("`{}` is not a URL", config.base_url))?;
    if uri.scheme_str() != Some("http") {
        bail!(
            "only http:// servers can be loaded, not `{}`",
            config.base_url
        );
    }
    let authority = uri
        .authority()
        .ok_or_else(|| anyhow!("`{}` names no host", config.base_url))?
        .to_string();
    let host_port = if uri.port().is_some() {
        authority.clone()
    } else {
        format!("{authority}:80")
    };
    let addr = tokio::net::lookup_host(&host_port)
        .await
        .with_context(|| format!("cannot resolve {host_port}"))?
        .next()
        .ok_or_else(|| anyhow!("{host_port} resolves to no address"))?;
    let mut names: Vec<String> = Vec::new();
    let mut operation_of = Vec::new();
    let mut schedule = Vec::new();
    for (i, template) in config.templates.iter().enumerate() {
        let op = match names.iter().position(|n| *n == template.name) {
            Some(op) => op,
            None => {
                names.push(template.name.clone());
                names.len() - 1
            }
        };
        operation_of.push(op);
        schedule.extend(std::iter::repeat_n(i, template.weight as usize));
    }
    if schedule.is_empty() {
        bail!("every request template has weight 0");
    }
    let interval = match config.rate {
        Some(rate) if rate.is_finite() && rate > 0.0 => Some(Duration::from_secs_f64(
            config.connections.max(1) as f64 / rate,
        )),
        Some(rate) => bail!("a rate must be a positive number of requests per second, not {rate}"),
        None => None,
    };
    Ok(Plan {
        addr,
        authority,
        templates: config.templates.clone(),
        schedule,
        operation_of,
        names,
        timeout: config.request_timeout,
        blank: Histogram::new_with_bounds(1, MAX_LATENCY_US, 3)
            .context("cannot make a latency histogram")?,
        interval,
    })
}

async fn connect(plan: &Plan) -> Result<SendRequest<Full<Bytes>>> {
    let stream = TcpStream::connect(plan.addr).await?;
    stream.set_nodelay(true)?;
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    // The connection's I/O runs beside the requests; it ends when the sender is dropped.
    tokio::spawn(conn);
    Ok(sender)
}

/// One request and its whole response: the status and the body.
async fn exchange(
    sender: &mut SendRequest<Full<Bytes>>,
    plan: &Plan,
    template: &Template,
) -> Result<(u16, Bytes)> {
    let mut request = Request::builder()
        .method(template.method.clone())
        .uri(template.path.as_str())
        .header(HOST, plan.authority.as_str());
    if let Some(content_type) = template.content_type {
        request = request.header(CONTENT_TYPE, content_type);
    }
    let request = request.body(Full::new(template.body.clone()))?;
    sender.ready().await?;
    let response = sender.send_request(request).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, body))
}

async fn connection(plan: Arc<Plan>, index: usize, first: Instant, deadline: Instant) -> Report {
    let mut report = Report::empty(&plan.names, &plan.blank);
    let mut sender: Option<SendRequest<Full<Bytes>>> = None;
    // Spread the connections over the schedule so that they do not all send the same
    // template at once.
    let mut step = index.wrapping_mul(7);
    let mut scheduled = first;
    loop {
        // Open loop: every slot before the deadline is sent, however late, so that a slow
        // server shows as latency rather than as fewer requests.
        if plan.interval.is_some() {
            if scheduled >= deadline {
                break;
            }
            tokio::time::sleep_until(scheduled.into()).await;
        } else if Instant::now() >= deadline {
            break;
        }
        let mut live = match sender.take() {
            Some(live) => live,
            None => match connect(&plan).await {
                Ok(live) => live,
                Err(e) => {
                    report.connect_errors += 1;
                    note(&mut report, format!("connect to {}: {e:#}", plan.addr));
                    tokio::time::sleep(RECONNECT_PAUSE).await;
                    continue;
                }
            },
        };
        let template_index = plan.schedule[step % plan.schedule.len()];
        step = step.wrapping_add(1);
        let template = &plan.templates[template_index];
        let op = plan.operation_of[template_index];
        // Open loop: from the scheduled start, so that a late send counts as waiting.
        let started = if plan.interval.is_some() {
            scheduled
        } else {
            Instant::now()
        };
        if let Some(interval) = plan.interval {
            scheduled += interval;
        }
        let outcome =
            tokio::time::timeout(plan.timeout, exchange(&mut live, &plan, template)).await;
        let elapsed_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        match outcome {
            Ok(Ok((status, body))) => {
                let operation = &mut report.operations[op];
                operation.latency.saturating_record(elapsed_us.max(1));
                *operation.statuses.entry(status).or_default() += 1;
                if (200..300).contains(&status) {
                    if let Some(pointer) = &template.capture {
                        match captured(&body, pointer) {
                            Some(value) => {
                                report.operations[op].captured.push((value, Instant::now()))
                            }
                            None => note(
                                &mut report,
                                format!("{}: a {status} without {pointer}", template.name),
                            ),
                        }
                    }
                } else {
                    let text = String::from_utf8_lossy(&body);
                    let text: String = text.chars().take(300).collect();
                    note(&mut report, format!("{}: {status} {text}", template.name));
                }
                sender = Some(live);
            }
            Ok(Err(e)) => {
                report.operations[op].transport_errors += 1;
                note(&mut report, format!("{}: {e:#}", template.name));
            }
            Err(_) => {
                report.operations[op].transport_errors += 1;
                note(
                    &mut report,
                    format!("{}: no response within {:?}", template.name, plan.timeout),
                );
            }
        }
    }
    report
}

fn captured(body: &[u8], pointer: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    value.pointer(pointer)?.as_str().map(str::to_owned)
}

fn note(report: &mut Report, what: String) {
    if report.error_samples.len() < ERROR_SAMPLES {
        report.error_samples.push(what);
    }
}

fn per_second(count: u64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 { count as f64 / secs } else { 0.0 }
}

fn us_to_ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn merging_reports_adds_counts_latencies_and_time() {
        let names = vec!["a".to_owned()];
        let blank = Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).unwrap();
        let mut first = Report::empty(&names, &blank);
        first.elapsed = Duration::from_secs(1);
        first.operations[0].statuses.insert(200, 3);
        first.operations[0].latency.record(1000).unwrap();
        let mut second = Report::empty(&names, &blank);
        second.elapsed = Duration::from_secs(2);
        second.operations[0].statuses.insert(200, 2);
        second.operations[0].statuses.insert(503, 1);
        second.operations[0].transport_errors = 1;
        second.operations[0].latency.record(3000).unwrap();
        first.merge(&second);
        let op = first.operation("a").unwrap();
        assert_eq!(first.elapsed, Duration::from_secs(3));
        assert_eq!(op.responses(), 6);
        assert_eq!(op.non_2xx(), 1);
        assert_eq!(op.errors(), 2);
        assert_eq!(op.latency.len(), 2);
        assert!((op.rate(first.elapsed) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn captured_values_come_from_the_json_pointer() {
        let body = br#"{"data": {"token": "abc"}}"#;
        assert_eq!(captured(body, "/data/token").as_deref(), Some("abc"));
        assert_eq!(captured(body, "/data/missing"), None);
        assert_eq!(captured(b"not json", "/data/token"), None);
    }

    #[tokio::test]
    async fn an_open_loop_run_sends_exactly_its_scheduled_requests() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let app = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
        let server = tokio::spawn(async move { axum::serve(listener, app).await });
        // 4 connections at 200 requests/s: each sends every 20 ms, the i-th starting i × 5 ms
        // in, so 25 slots each fall within 500 ms, whatever the server's speed.
        let config = LoadConfig::new(
            &base,
            4,
            Duration::from_millis(500),
            vec![Template::get("a", "/")],
        )
        .at_rate(200.0);
        let report = run(&config).await.unwrap();
        server.abort();
        assert_eq!(report.errors(), 0, "{}", report.summary());
        assert_eq!(report.responses(), 100);
        assert!(
            report.elapsed >= Duration::from_millis(480),
            "{:?}",
            report.elapsed
        );
    }

    #[tokio::test]
    async fn a_rate_must_be_positive() {
        let config = |rate| {
            LoadConfig::new(
                "http://127.0.0.1:1",
                2,
                Duration::ZERO,
                vec![Template::get("a", "/")],
            )
            .at_rate(rate)
        };
        for rate in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(plan(&config(rate)).await.is_err(), "{rate}");
        }
        assert!(plan(&config(10.0)).await.unwrap().interval == Some(Duration::from_millis(200)));
    }

    #[tokio::test]
    async fn a_plan_needs_a_template_with_weight_and_an_http_url() {
        let base = |templates| LoadConfig::new("http://127.0.0.1:1", 1, Duration::ZERO, templates);
        assert!(plan(&base(vec![])).await.is_err());
        assert!(
            plan(&base(vec![Template::get("a", "/").weight(0)]))
                .await
                .is_err()
        );
        let mut https = base(vec![Template::get("a", "/")]);
        https.base_url = "https://127.0.0.1:1".to_owned();
        assert!(plan(&https).await.is_err());
        let two = plan(&base(vec![
            Template::get("a", "/").weight(2),
            Template::get("b", "/x"),
            Template::get("a", "/y"),
        ]))
        .await
        .unwrap();
        assert_eq!(two.names, ["a", "b"]);
        assert_eq!(two.schedule, [0, 0, 1, 2]);
        assert_eq!(two.operation_of, [0, 1, 0]);
    }
}
