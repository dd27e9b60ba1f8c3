//! The HTTP edge against hostile clients: connection timeouts and the connection cap, the
//! request timeout, metric labels, request ids, download headers, times and CORS.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::alerts::post_points;
use crate::harness::{Deployment, Key, Reply, Server, client, eventually};
use test_support::receiver::Receiver;

/// The server's `host:port`.
fn addr(server: &Server) -> String {
    server.base.trim_start_matches("http://").to_owned()
}

/// Sends `request` as is on a connection of its own and reads until the server closes it,
/// waiting at most `patience`; the answer's text, or `None` when none came in time.
async fn exchange(server: &Server, request: &str, patience: Duration) -> Option<String> {
    let mut stream = TcpStream::connect(addr(server)).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(patience, stream.read_to_end(&mut answer))
        .await
        .ok()?
        .ok()?;
    Some(String::from_utf8_lossy(&answer).into_owned())
}

async fn healthz_answers(server: &Server, patience: Duration) -> bool {
    let request = "GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";
    exchange(server, request, patience)
        .await
        .is_some_and(|answer| answer.starts_with("HTTP/1.1 200"))
}

/// Reads from `stream` until the server closes it (end of stream or reset); false when it
/// stays open for `patience`.
async fn closed_within(stream: &mut TcpStream, patience: Duration) -> bool {
    let mut sink = Vec::new();
    // Whatever the server says before closing is allowed; what counts is the close.
    tokio::time::timeout(patience, stream.read_to_end(&mut sink))
        .await
        .is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_open_connections_do_not_stop_healthz_and_are_closed_after_the_header_timeout() {
    const HALF_OPEN: usize = 400;
    let header_timeout = Duration::from_secs(2);
    let deployment = Deployment::new();
    let server = deployment.serve(&["--header-timeout-seconds", "2"]);

    let mut slow = Vec::with_capacity(HALF_OPEN);
    for _ in 0..HALF_OPEN {
        let mut stream = TcpStream::connect(addr(&server)).await.unwrap();
        // Half a request line, never finished.
        stream.write_all(b"GET /healthz HT").await.unwrap();
        slow.push(stream);
    }
    let started = Instant::now();
    assert!(
        healthz_answers(&server, Duration::from_secs(5)).await,
        "/healthz did not answer beside {HALF_OPEN} half-open connections"
    );

    // Every one is closed soon after the header timeout, none long before it.
    let margin = Duration::from_secs(5);
    for (i, stream) in slow.iter_mut().enumerate() {
        let left = (header_timeout + margin).saturating_sub(started.elapsed());
        assert!(
            closed_within(stream, left).await,
            "half-open connection {i} was still open {:?} after it began",
            started.elapsed()
        );
    }
    assert!(
        started.elapsed() >= header_timeout - Duration::from_millis(500),
        "closed after {:?}, before the header timeout",
        started.elapsed()
    );
    assert!(healthz_answers(&server, Duration::from_secs(5)).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_trickling_its_headers_is_closed_after_the_header_timeout() {
    let deployment = Deployment::new();
    let server = deployment.serve(&["--header-timeout-seconds", "2"]);
    let mut stream = TcpStream::connect(addr(&server)).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    // A header line every 300 ms: always sending, never done.
    let mut closed_after = None;
    while started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut probe = [0u8; 64];
        let readable =
            tokio::time::timeout(Duration::from_millis(1), stream.read(&mut probe)).await;
        let sent = stream.write_all(b"X-Slow: a\r\n").await;
        if matches!(readable, Ok(Ok(0) | Err(_))) || sent.is_err() {
            closed_after = Some(started.elapsed());
            break;
        }
    }
    let closed_after = closed_after.expect("a trickling client kept its connection for 10 s");
    assert!(
        closed_after >= Duration::from_millis(1500),
        "closed after {closed_after:?}, before the header timeout"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_connection_is_kept_past_the_header_timeout_and_closed_after_the_idle_timeout() {
    let deployment = Deployment::new();
    let server = deployment.serve(&[
        "--header-timeout-seconds",
        "1",
        "--idle-timeout-seconds",
        "3",
    ]);
    let mut stream = TcpStream::connect(addr(&server)).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0u8; 1024];
    let n = stream.read(&mut answer).await.unwrap();
    assert!(answer[..n].starts_with(b"HTTP/1.1 200"));
    let answered = Instant::now();

    // Kept alive past the header timeout: idle is not a slow head.
    tokio::time::sleep(Duration::from_millis(1800)).await;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .unwrap();
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer))
        .await
        .unwrap()
        .unwrap();
    assert!(
        answer[..n].starts_with(b"HTTP/1.1 200"),
        "the kept-alive connection was closed"
    );

    let idle_from = Instant::now();
    assert!(
        closed_within(&mut stream, Duration::from_secs(8)).await,
        "an idle connection stayed open"
    );
    let idle = idle_from.elapsed();
    assert!(
        idle >= Duration::from_millis(2500),
        "closed after {idle:?} idle, before the idle timeout ({:?} after the first answer)",
        answered.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_wait_until_one_ends() {
    const CAP: usize = 4;
    let deployment = Deployment::new();
    let server = deployment.serve(&["--max-connections", &CAP.to_string()]);

    let mut held = Vec::new();
    for _ in 0..CAP {
        held.push(TcpStream::connect(addr(&server)).await.unwrap());
    }
    // Give the server time to accept the connections it holds.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let waiting = tokio::spawn({
        let request = "GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";
        let mut stream = TcpStream::connect(addr(&server)).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        async move {
            let mut answer = Vec::new();
            let _ = stream.read_to_end(&mut answer).await;
            (
                Instant::now(),
                String::from_utf8_lossy(&answer).into_owned(),
            )
        }
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !waiting.is_finished(),
        "a connection beyond the cap of {CAP} was served while {CAP} were open"
    );

    let released = Instant::now();
    drop(held.pop());
    let (answered, answer) = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("the waiting connection was not served once another ended")
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answered >= released);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_over_the_request_timeout_is_answered_503_and_its_work_ends() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&["--request-timeout-seconds", "1"]);

    // A body announced but never sent: the handler waits for it until the timeout.
    let mut stream = TcpStream::connect(addr(&server)).await.unwrap();
    let head = format!(
        "POST /insights/v1/cleanest-route?key={} HTTP/1.1\r\nHost: test\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"routes\":",
        key.key
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let sent = Instant::now();
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    // Read the head and the error body; the server ends the request there.
    while !String::from_utf8_lossy(&answer).contains("\"error\":{") || !answer.ends_with(b"}") {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("no answer within 10 s of a 1 s request timeout")
            .unwrap();
        assert!(n > 0, "closed without an answer");
        answer.extend_from_slice(&chunk[..n]);
    }
    let elapsed = sent.elapsed();
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 503"), "{text}");
    assert!(text.contains("\"code\":\"unavailable\""), "{text}");
    assert!(text.to_ascii_lowercase().contains("retry-after:"), "{text}");
    assert!(
        elapsed >= Duration::from_millis(900) && elapsed < Duration::from_secs(5),
        "answered after {elapsed:?}"
    );
    // Its work ended: the server reads no more of the body and closes the connection.
    assert!(
        closed_within(&mut stream, Duration::from_secs(5)).await,
        "the connection stayed open after the timed-out request"
    );
    let metrics = client()
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains(
            r#"insights_http_requests_total{route="/insights/v1/cleanest-route",method="POST",status="503"} 1"#
        ),
        "the timed-out request is counted:\n{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invented_methods_add_no_metric_series() {
    let deployment = Deployment::new();
    let server = deployment.serve(&[]);
    let client = client();
    for i in 0..20 {
        let method = reqwest::Method::from_bytes(format!("INVENTED{i}").as_bytes()).unwrap();
        for path in [
            "/healthz",
            "/insights/v1/cleanest-route",
            &format!("/nowhere/{i}"),
        ] {
            let reply = client
                .request(method.clone(), server.url(path))
                .send()
                .await;
            assert!(reply.unwrap().status().is_client_error());
        }
    }
    let metrics = client
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        !metrics.contains("INVENTED") && !metrics.contains("/nowhere"),
        "{metrics}"
    );
    let other: Vec<&str> = metrics
        .lines()
        .filter(|l| {
            l.starts_with("insights_http_requests_total{") && l.contains("method=\"other\"")
        })
        .collect();
    // One series per route template and status, whatever the number of methods.
    assert!(!other.is_empty() && other.len() <= 3, "{other:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_id_sent_by_the_client_is_not_used() {
    const CHOSEN: &str = "client-chosen-id-4f1d";
    let deployment = Deployment::new();
    let server = deployment.serve(&[]);
    let reply = Reply::read(
        client()
            .post(server.url("/insights/v1/cleanest-route?key=ik_unknown"))
            .header("x-request-id", CHOSEN)
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await
            .unwrap(),
    )
    .await;
    reply.assert_error(401, "invalid_api_key", &[]);
    let id = reply.header("x-request-id").unwrap();
    assert_ne!(id, CHOSEN);
    assert!(uuid::Uuid::parse_str(id).is_ok(), "{id}");
    assert!(
        !server.log().contains(CHOSEN),
        "the client's id reached the log:\n{}",
        server.log()
    );
}

/// A key whose alert request was delivered to a receiver of its own.
struct Delivered {
    key: Key,
    /// The file URL of the delivery.
    url: String,
    _receiver: Receiver,
}

async fn deliver_one(deployment: &Deployment, server: &Server) -> Delivered {
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");
    let token = post_points(server, &key).await;
    let delivery = receiver.delivery_for(&token).await;
    let url = delivery.json["URL"].as_str().unwrap().to_owned();
    Delivered {
        key,
        url,
        _receiver: receiver,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_are_attachments_never_sniffed_and_sandboxed() {
    let deployment = Deployment::new();
    let server = deployment.serve(&[]);
    let url = deliver_one(&deployment, &server).await.url;
    let name = url
        .split('?')
        .next()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    assert!(name.ends_with(".ndjson"), "{url}");
    for method in [reqwest::Method::GET, reqwest::Method::HEAD] {
        let reply = Reply::read(client().request(method.clone(), &url).send().await.unwrap()).await;
        assert_eq!(reply.status, 200, "{method}");
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(
            reply.header("content-disposition"),
            Some(format!("attachment; filename=\"{name}\"").as_str()),
            "{method}"
        );
        assert_eq!(reply.header("content-security-policy"), Some("sandbox"));
    }
}

/// Whether `text` is an RFC 3339 UTC time with exactly three fractional digits.
fn is_millisecond_time(text: &str) -> bool {
    let b = text.as_bytes();
    chrono::DateTime::parse_from_rfc3339(text).is_ok()
        && b.len() == 24
        && b[19] == b'.'
        && b[20..23].iter().all(u8::is_ascii_digit)
        && b[23] == b'Z'
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_json_writes_times_to_the_millisecond() {
    let deployment = Deployment::new();
    let server = deployment.serve(&[]);
    let delivered = deliver_one(&deployment, &server).await;
    // The attempt is recorded once the receiver has answered.
    let deliveries = eventually("the delivery attempt in list-deliveries", || {
        let list = deployment.admin(&["list-deliveries", "--key", &delivered.key.id]);
        let attempted = list[0]["attempts"]
            .as_array()
            .is_some_and(|a| !a.is_empty());
        attempted.then_some(list)
    })
    .await;
    let record = &deliveries[0];
    for time in [&record["received_at"], &record["attempts"][0]["at"]] {
        assert!(
            time.as_str().is_some_and(is_millisecond_time),
            "{time} in {deliveries}"
        );
    }

    let email = format!("{}@example.org", uuid::Uuid::new_v4().simple());
    deployment.create_account(&email, "correct horse battery");
    deployment.admin(&["create-key", "--email", &email, "--label", "times"]);
    let keys = deployment.admin(&["list-keys", "--email", &email]);
    assert!(
        keys[0]["created_at"]
            .as_str()
            .is_some_and(is_millisecond_time),
        "{keys}"
    );
}

/// A CORS preflight for `path` from `origin`, asking for `method`.
async fn preflight(server: &Server, path: &str, origin: &str, method: &str) -> Reply {
    Reply::read(
        client()
            .request(reqwest::Method::OPTIONS, server.url(path))
            .header("origin", origin)
            .header("access-control-request-method", method)
            .header("access-control-request-headers", "content-type")
            .send()
            .await
            .unwrap(),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_preflights_are_answered_only_when_configured_for_allowed_origins_never_on_the_dashboard()
 {
    const ALLOWED: &str = "https://app.example.org";
    let api_paths = [
        ("/insights/v1/cleanest-route", "POST"),
        ("/insights/v1/files/x.ndjson", "GET"),
        ("/insights/v1/openapi.json", "GET"),
    ];

    let deployment = Deployment::new();
    let off = deployment.serve(&[]);
    for (path, method) in api_paths {
        let reply = preflight(&off, path, ALLOWED, method).await;
        assert_eq!(reply.header("access-control-allow-origin"), None, "{path}");
    }
    drop(off);

    let on = deployment.serve(&[
        "--cors-origins",
        &format!("{ALLOWED},https://other.example"),
    ]);
    for (path, method) in api_paths {
        let reply = preflight(&on, path, ALLOWED, method).await;
        assert!(reply.status.is_success(), "{path}: {}", reply.status);
        assert_eq!(
            reply.header("access-control-allow-origin"),
            Some(ALLOWED),
            "{path}"
        );
        let methods = reply.header("access-control-allow-methods").unwrap_or("");
        assert!(methods.contains(method), "{path}: {methods}");

        let stranger = preflight(&on, path, "https://evil.example", method).await;
        assert_eq!(
            stranger.header("access-control-allow-origin"),
            None,
            "{path}"
        );
    }
    // The API's answers name the allowed origin too.
    let reply = Reply::read(
        client()
            .get(on.url("/insights/v1/openapi.json"))
            .header("origin", ALLOWED)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.header("access-control-allow-origin"), Some(ALLOWED));
    for path in ["/dashboard", "/dashboard/signin", "/dashboard/keys"] {
        let reply = preflight(&on, path, ALLOWED, "POST").await;
        assert_eq!(reply.header("access-control-allow-origin"), None, "{path}");
        assert!(!reply.status.is_success(), "{path}: {}", reply.status);
    }
}
