//! Outages of what the server depends on, and its recovery without help: a webhook receiver
//! that is down and then failing before it comes back, a database that goes away and comes
//! back, and an object store that does the same.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alerts_core::ids::Token;
use alerts_core::pipeline::RetrySchedule;
use axum::http::StatusCode;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::alerts::{add_sensitive_rules, post_points};
use crate::harness::{Deployment, PATIENCE, Reply, Server, client, post_json};
use test_support::receiver::{Delivery, Receiver};
use test_support::s3::S3Server;

use crate::scale_out::{TestDb, scale_out_deployment};

/// The file URL a delivery carried.
fn url_of(delivery: &Delivery) -> &str {
    delivery.json["URL"].as_str().unwrap_or_default()
}

/// The `expires` parameter of a signed file URL.
fn expires_of(url: &str) -> u64 {
    url.split(['?', '&'])
        .find_map(|part| part.strip_prefix("expires="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no expiry in {url}"))
}

/// The attempts `list-deliveries` shows for `token`.
fn attempts(deployment: &Deployment, key: &crate::harness::Key, token: &str) -> Vec<Value> {
    deployment.delivery_record(key, token)["attempts"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_down_then_failing_then_back_gets_every_delivery_on_schedule_with_fresh_urls() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_sensitive_rules(&deployment, &key);
    let server = deployment.serve(&[]);

    // First attempts: nobody listens.
    receiver.down().await;
    let tokens = [
        post_points(&server, &key).await,
        post_points(&server, &key).await,
    ];
    let schedule = RetrySchedule::default();
    for token in &tokens {
        let deadline = Instant::now() + PATIENCE;
        while attempts(&deployment, &key, token).is_empty() {
            assert!(Instant::now() < deadline, "no first attempt for {token}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let first = attempts(&deployment, &key, &tokens[0]);
    assert_eq!(first[0]["error"], "connect", "{first:?}");

    // Second attempts: the receiver is back but failing; each sees its attempt's URL.
    receiver.answer(StatusCode::SERVICE_UNAVAILABLE);
    receiver.up().await;
    wait_until(
        "a failed second attempt of each request",
        Duration::from_secs(60),
        || {
            tokens
                .iter()
                .all(|t| receiver.deliveries().iter().any(|d| d.token() == Some(t)))
        },
    )
    .await;

    // Then it recovers, and the third attempts succeed.
    receiver.answer(StatusCode::NO_CONTENT);
    wait_until(
        "a successful delivery of each request",
        Duration::from_secs(90),
        || {
            tokens.iter().all(|t| {
                receiver
                    .deliveries()
                    .iter()
                    .any(|d| d.token() == Some(t) && d.answered.is_success())
            })
        },
    )
    .await;

    let client = client();
    for token in &tokens {
        let seen: Vec<Delivery> = receiver
            .deliveries()
            .into_iter()
            .filter(|d| d.token() == Some(token))
            .collect();
        assert_eq!(
            seen.len(),
            2,
            "attempts 2 and 3 reached the receiver: {seen:?}"
        );
        assert!(
            seen.iter().all(|d| d.verified == Some(Ok(()))),
            "every attempt is signed"
        );
        let (failed, delivered) = (&seen[0], &seen[1]);
        assert_eq!(failed.answered, StatusCode::SERVICE_UNAVAILABLE);
        assert_ne!(
            url_of(failed),
            url_of(delivered),
            "each attempt carries a fresh URL"
        );
        let gap = delivered.arrived - failed.arrived;
        assert!(
            expires_of(url_of(delivered))
                >= expires_of(url_of(failed)) + gap.as_secs().saturating_sub(1),
            "the URL of the later attempt expires later by the time between them: {} then {}",
            url_of(failed),
            url_of(delivered)
        );
        // The schedule: each delay is the schedule's (with its jitter), plus at most the
        // workers' polling and this test's.
        let parsed: Token = token.parse().unwrap();
        let expected = schedule.delay(parsed, 2);
        assert!(
            gap >= expected.saturating_sub(Duration::from_millis(200))
                && gap <= expected + Duration::from_secs(3),
            "attempt 3 came {gap:?} after attempt 2; the schedule says {expected:?}"
        );
        let recorded = attempts(&deployment, &key, token);
        assert_eq!(recorded.len(), 3, "three attempts recorded: {recorded:?}");
        let file = client.get(url_of(delivered)).send().await.unwrap();
        assert_eq!(file.status(), 200, "the delivered URL serves the file");
    }
    // The first delay, from the recorded attempt times.
    let recorded = attempts(&deployment, &key, &tokens[0]);
    let at = |i: usize| {
        chrono::DateTime::parse_from_rfc3339(recorded[i]["at"].as_str().unwrap()).unwrap()
    };
    let gap = (at(1) - at(0)).to_std().unwrap();
    let expected = schedule.delay(tokens[0].parse().unwrap(), 1);
    assert!(
        gap >= expected.saturating_sub(Duration::from_millis(200))
            && gap <= expected + Duration::from_secs(3),
        "attempt 2 came {gap:?} after attempt 1; the schedule says {expected:?}"
    );
    drop(server);
}

async fn wait_until(what: &str, patience: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + patience;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

// ---------------------------------------------------------------------------------------------
// A TCP proxy that can cut a dependency off and let it back.
// ---------------------------------------------------------------------------------------------

/// Forwards a loopback port to `target`. While cut, it resets every open connection and every
/// new one, as a dependency that went away does; restored, it forwards again.
pub(crate) struct Cable {
    pub(crate) addr: SocketAddr,
    cut: Arc<Mutex<bool>>,
    connections: Arc<Mutex<Vec<JoinHandle<()>>>>,
    _accepting: JoinHandle<()>,
}

impl Cable {
    pub(crate) async fn to(target: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let cut = Arc::new(Mutex::new(false));
        let connections: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let (flag, open) = (cut.clone(), connections.clone());
        let accepting = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if *flag.lock().unwrap() {
                    drop(inbound);
                    continue;
                }
                let forwarding = tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                open.lock().unwrap().push(forwarding);
            }
        });
        Self {
            addr,
            cut,
            connections,
            _accepting: accepting,
        }
    }

    pub(crate) fn cut(&self) {
        *self.cut.lock().unwrap() = true;
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }

    pub(crate) fn restore(&self) {
        *self.cut.lock().unwrap() = false;
    }
}

/// `url` (a PostgreSQL URL) with its host and port replaced by `addr`.
fn through(url: &str, addr: SocketAddr) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let (authority, path) = rest.split_once('/').unwrap();
    let user = authority.rsplit_once('@').map(|(u, _)| format!("{u}@"));
    format!("{scheme}://{}{addr}/{path}", user.unwrap_or_default())
}

/// The host and port of a PostgreSQL URL.
fn postgres_addr(url: &str) -> SocketAddr {
    let rest = url.split_once("://").unwrap().1;
    let authority = rest.split_once('/').unwrap().0;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host_port = if host_port.contains(':') {
        host_port.to_owned()
    } else {
        format!("{host_port}:5432")
    };
    let host_port = host_port.replace("localhost", "127.0.0.1");
    host_port.parse().unwrap()
}

async fn get(server: &Server, path: &str) -> Reply {
    Reply::read(client().get(server.url(path)).send().await.unwrap()).await
}

/// Polls `probe` until it gives `status`; that reply.
async fn until_status(what: &str, status: u16, mut probe: impl AsyncFnMut() -> Reply) -> Reply {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let reply = probe().await;
        if reply.status == status {
            return reply;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: still {} after {PATIENCE:?}: {}",
            reply.status,
            String::from_utf8_lossy(&reply.body)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn route_body() -> Value {
    json!({"routesSort": "desc", "routes": [{"id": "a", "routeDuration": 5,
        "polyline": [[13.3350, 52.5070], [13.3400, 52.5120]]}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_outage_is_503_with_retry_after_and_the_server_recovers_by_itself() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let cable = Cable::to(postgres_addr(&db.url)).await;
    let deployment = Deployment::new().flag("--database-url", &through(&db.url, cable.addr));
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let client = client();
    assert_eq!(get(&server, "/readyz").await.status, 200);

    cable.cut();
    let not_ready = until_status("readyz during the outage", 503, async || {
        get(&server, "/readyz").await
    })
    .await;
    assert!(not_ready.header("retry-after").is_some(), "{not_ready:?}");
    let refused = until_status("a request during the outage", 503, async || {
        post_json(&client, &server, &key.key, &route_body()).await
    })
    .await;
    refused.assert_error(503, "unavailable", &["database"]);
    let retry_after: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!(retry_after >= 1);

    // Back: the server reconnects on its own, no restart.
    cable.restore();
    until_status("readyz after the outage", 200, async || {
        get(&server, "/readyz").await
    })
    .await;
    let reply = until_status("a request after the outage", 200, async || {
        post_json(&client, &server, &key.key, &route_body()).await
    })
    .await;
    assert_eq!(reply.json()["completionStatus"], "Completed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_store_outage_is_503_for_files_and_delays_deliveries_until_it_is_back() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let Some(s3) = S3Server::start() else {
        return;
    };
    let s3_addr: SocketAddr = s3.endpoint.trim_start_matches("http://").parse().unwrap();
    let cable = Cable::to(s3_addr).await;
    // A short lease: a job whose file could not be stored is taken up again when its lease
    // ends.
    let deployment = scale_out_deployment(&db, &s3)
        .env("AWS_ENDPOINT_URL", &format!("http://{}", cable.addr))
        .config("lease_seconds = 15\n");
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_sensitive_rules(&deployment, &key);
    let server = deployment.serve(&[]);

    // A file made before the outage, to fetch during it.
    let before = post_points(&server, &key).await;
    let delivered = receiver.delivery_for(&before).await;
    let url = url_of(&delivered).to_owned();

    cable.cut();
    let not_ready = until_status("readyz during the outage", 503, async || {
        get(&server, "/readyz").await
    })
    .await;
    assert!(not_ready.header("retry-after").is_some(), "{not_ready:?}");
    // Alert requests only need the database: they are still accepted.
    let during = post_points(&server, &key).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        receiver
            .deliveries()
            .iter()
            .all(|d| d.json["TOKEN"] != during.as_str()),
        "nothing is delivered while its file cannot be stored"
    );

    cable.restore();
    until_status("readyz after the outage", 200, async || {
        get(&server, "/readyz").await
    })
    .await;
    wait_until(
        "the delivery of the request made during the outage",
        Duration::from_secs(60),
        || {
            receiver
                .deliveries()
                .iter()
                .any(|d| d.json["TOKEN"] == during.as_str())
        },
    )
    .await;
    let late = receiver.delivery_for(&during).await;
    assert_eq!(late.verified, Some(Ok(())));
    let file = client().get(&url).send().await.unwrap();
    assert_eq!(file.status(), 200, "the earlier file is served again");
}
