//! Attacks on the server's memory and time through request bodies, each with the bound it must
//! hold. The server is the real binary; its peak memory is the kernel's record (`VmHWM`).

use std::time::Duration;

use insights_load::memory::{MemoryReading, mib};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::harness::{Deployment, PATIENCE, Reply, client};

/// The default limits, with a rate limit the attacks never meet: the bounds below are the
/// server's own, not the rate limiter's.
const CONFIG: &str = "rate_per_second = 100000\nrate_burst = 100000\n";

/// Just under the default body limit of 32 MiB.
const BODY_BYTES: usize = 32 * 1024 * 1024 - 4096;

/// A valid route request followed by an unknown member holding an array as long as the body
/// allows: before the reader refused unknown members by itself, each such body was read into a
/// JSON tree many times its size.
fn amplifying_body() -> Vec<u8> {
    let mut body = br#"{"routesSort": "desc", "routes": [{"id": "a", "polyline": [[13.40, 52.52], [13.41, 52.52]], "routeDuration": 10}], "x": ["#.to_vec();
    while body.len() < BODY_BYTES - 16 {
        body.extend_from_slice(b"0,");
    }
    body.extend_from_slice(b"0]}");
    body
}

#[tokio::test(flavor = "multi_thread")]
async fn four_concurrent_32_mib_amplifying_bodies_are_refused_early_and_stay_under_256_mib() {
    let deployment = Deployment::new().config(CONFIG);
    let key = deployment.new_key();
    let server = deployment.serve(&["--workers", "0"]);
    let before = MemoryReading::of(server.pid()).unwrap();

    let body = amplifying_body();
    let sends: Vec<_> = (0..4)
        .map(|_| {
            let (server, key, body) = (server.base.clone(), key.key.clone(), body.clone());
            tokio::spawn(async move { exchange(&server, &key, body.len(), &body).await })
        })
        .collect();
    // The four are already under way: awaiting them in turn waits for the slowest.
    let mut refused = 0;
    for send in sends {
        let answer = send.await.unwrap();
        // A 429 is the key's byte budget at work (the four declare 128 MiB at once, twice the
        // key's burst); every other answer is the refusal of the unknown member, named.
        if answer.status == 429 {
            assert!(answer.text.contains("this API key"), "{}", answer.text);
        } else {
            assert_eq!(answer.status, 400, "{}", answer.text);
            assert!(
                answer.text.contains("x: unknown field `x`"),
                "{}",
                answer.text
            );
            refused += 1;
        }
    }
    assert!(refused > 0, "every body was turned away by the budget");
    let after = MemoryReading::of(server.pid()).unwrap();
    let grown = after.hwm_kib.saturating_sub(before.hwm_kib);
    assert!(
        grown < 256 * 1024,
        "peak memory grew by {:.0} MiB (from {:.0} MiB)",
        mib(grown),
        mib(before.hwm_kib)
    );
}

/// An answer read off the wire.
struct Answer {
    status: u16,
    head: String,
    text: String,
}

impl Answer {
    fn retry_after(&self) -> Option<u64> {
        self.head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("retry-after")
                .then(|| value.trim().parse().ok())
                .flatten()
        })
    }
}

/// Posts `sent` (the first bytes of a body of `length` bytes) to the API with `key` on a
/// connection of its own, and reads the answer while still sending: the server may answer
/// before the body is complete, which is what some tests look for. When `sent` is shorter than
/// `length`, the rest is never sent, and only an early answer comes back.
async fn exchange(base: &str, key: &str, length: usize, sent: &[u8]) -> Answer {
    let addr = base.trim_start_matches("http://").to_owned();
    let head = format!(
        "POST /insights/v1/cleanest-route?key={key} HTTP/1.1\r\nHost: {addr}\r\n\
         Content-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
    );
    let stream = TcpStream::connect(&addr).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let sent = sent.to_vec();
    // The write half is handed back rather than dropped: dropping it would half-close the
    // connection, which the server takes as the client going away.
    let writing = tokio::spawn(async move {
        let _ = writer.write_all(head.as_bytes()).await;
        for piece in sent.chunks(256 * 1024) {
            if writer.write_all(piece).await.is_err() {
                break;
            }
        }
        writer
    });
    let mut response = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    // Until the server closes; a reset after the answer (it closes with body bytes unread)
    // ends the answer too.
    let read = tokio::time::timeout(PATIENCE, async {
        while let Ok(n @ 1..) = reader.read(&mut buffer).await {
            response.extend_from_slice(&buffer[..n]);
        }
    })
    .await;
    assert!(read.is_ok(), "no answer within {PATIENCE:?}");
    let _writer = writing.await;
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {text:.200}"));
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Answer {
        status,
        head: head.to_owned(),
        text: body.to_owned(),
    }
}

/// A valid one-route scoring request padded with trailing white space to `bytes` bytes.
fn padded_route(bytes: usize) -> Vec<u8> {
    let mut body = br#"{"routesSort": "desc", "routes": [{"id": "a", "polyline": [[13.40, 52.52], [13.41, 52.52]], "routeDuration": 10}]}"#.to_vec();
    body.resize(bytes, b' ');
    body
}

/// Small budgets, so that a body or two spends them: bodies up to 4 MiB, and the key's and the
/// network's budgets as `(MiB a second, burst in MiB)`.
fn budgets(key: (u64, u64), network: (u64, u64)) -> String {
    format!(
        "{CONFIG}max_body_bytes = 4194304\nkey_body_mib_per_second = {}\n\
         key_body_burst_mib = {}\nnetwork_body_mib_per_second = {}\n\
         network_body_burst_mib = {}\n",
        key.0, key.1, network.0, network.1
    )
}

/// Most of a budget of 4 MiB: a second such body needs over three seconds of refill.
const LARGE: usize = 3_900_000;

#[tokio::test(flavor = "multi_thread")]
async fn a_key_over_its_byte_budget_gets_429_with_retry_after_while_another_key_is_served() {
    let deployment = Deployment::new().config(&budgets((1, 4), (64, 64)));
    let (spender, other) = (deployment.new_key(), deployment.new_key());
    let server = deployment.serve(&["--workers", "0"]);
    let body = padded_route(LARGE);

    let first = exchange(&server.base, &spender.key, body.len(), &body).await;
    assert_eq!(first.status, 200, "{}", first.text);
    // 7.8 MB within a few seconds is more than the key's budget: refused before it is read,
    // while the other key, at the same moment, is served.
    let (again, beside) = tokio::join!(
        exchange(&server.base, &spender.key, body.len(), &body),
        exchange(&server.base, &other.key, body.len(), &body),
    );
    assert_eq!(again.status, 429, "{}", again.text);
    assert!(again.text.contains("rate_limited"), "{}", again.text);
    assert!(
        again.text.contains("this API key may send 1 MiB"),
        "{}",
        again.text
    );
    let retry_after = again.retry_after().expect("no Retry-After");
    assert!((1..=4).contains(&retry_after), "Retry-After {retry_after}");
    assert_eq!(beside.status, 200, "{}", beside.text);

    // Once the budget has refilled, as Retry-After said, the key is served again.
    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    let later = exchange(&server.base, &spender.key, body.len(), &body).await;
    assert_eq!(later.status, 200, "{}", later.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_network_over_its_byte_budget_gets_429_whichever_key_it_uses() {
    let deployment = Deployment::new().config(&budgets((64, 64), (1, 4)));
    let (first_key, second_key) = (deployment.new_key(), deployment.new_key());
    let server = deployment.serve(&["--workers", "0"]);
    let body = padded_route(LARGE);

    let first = exchange(&server.base, &first_key.key, body.len(), &body).await;
    assert_eq!(first.status, 200, "{}", first.text);
    // Another key from the same address draws on the same network budget.
    let second = exchange(&server.base, &second_key.key, body.len(), &body).await;
    assert_eq!(second.status, 429, "{}", second.text);
    assert!(second.text.contains("your network"), "{}", second.text);
    assert!(second.retry_after().is_some(), "no Retry-After");
    // Small bodies still fit in what is left.
    let small = padded_route(2_000);
    let third = exchange(&server.base, &second_key.key, small.len(), &small).await;
    assert_eq!(third.status, 200, "{}", third.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_top_level_member_is_refused_before_the_rest_of_the_body_is_sent() {
    let deployment = Deployment::new().config(CONFIG);
    let key = deployment.new_key();
    let server = deployment.serve(&["--workers", "0"]);
    // A body that declares 32 MiB, of which only its first kilobytes are ever sent: an answer
    // can only come from a server that judged the member by its name.
    let mut start = br#"{"routesSort": "desc", "routes": [{"id": "a", "polyline": [[13.40, 52.52], [13.41, 52.52]], "routeDuration": 10}], "x": [0"#.to_vec();
    while start.len() < 4096 {
        start.extend_from_slice(b",0");
    }
    let answer = exchange(&server.base, &key.key, BODY_BYTES, &start).await;
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert!(
        answer.text.contains("x: unknown field `x`"),
        "{}",
        answer.text
    );
    // Both operations' members are named, so that the client can tell which it meant.
    assert!(answer.text.contains("`routesSort`"), "{}", answer.text);
    assert!(answer.text.contains("`points`"), "{}", answer.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_refused_for_what_it_declared_pays_for_it_and_its_next_refusal_is_held() {
    // The key's budget is one body of the largest size (4 MiB); the network's is ample.
    let deployment = Deployment::new().config(&budgets((1, 4), (64, 64)));
    let (looping, other) = (deployment.new_key(), deployment.new_key());
    let server = deployment.serve(&["--workers", "0"]);
    // Half the budget: two seconds of refill once the budget is spent.
    let fits = padded_route(2 << 20);

    // Declaring more than the limit is refused before a byte is read, and costs the key the
    // limit: its next body, although within it, finds the budget spent.
    let over = exchange(&server.base, &looping.key, 5 << 20, b"{").await;
    assert_eq!(over.status, 413, "{}", over.text);
    let next = exchange(&server.base, &looping.key, fits.len(), &fits).await;
    assert_eq!(next.status, 429, "{}", next.text);
    assert!(next.text.contains("this API key"), "{}", next.text);

    // Asking again at once is answered only after a hold, so that a loop of refusals cannot
    // keep the server busy; the other key is served meanwhile.
    let started = std::time::Instant::now();
    let (again, beside) = tokio::join!(
        exchange(&server.base, &looping.key, fits.len(), &fits),
        exchange(&server.base, &other.key, fits.len(), &fits),
    );
    assert_eq!(again.status, 429, "{}", again.text);
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "the refusal came after {:?}",
        started.elapsed()
    );
    assert_eq!(beside.status, 200, "{}", beside.text);

    // A body refused for an unknown member is paid for by the key too, whole as declared.
    let fresh = deployment.new_key();
    let mut start = br#"{"routes": [], "x": [0"#.to_vec();
    start.resize(4096, b' ');
    let unknown = exchange(&server.base, &fresh.key, 4 << 20, &start).await;
    assert_eq!(unknown.status, 400, "{}", unknown.text);
    let after = exchange(&server.base, &fresh.key, fits.len(), &fits).await;
    assert_eq!(after.status, 429, "{}", after.text);
}

#[tokio::test]
async fn custom_data_over_its_limit_is_a_413_naming_the_point() {
    let deployment = Deployment::new().config(&format!("{CONFIG}max_custom_data_bytes = 64\n"));
    let key = deployment.new_key();
    deployment.set_webhook(&key, "http://127.0.0.1:9/hook");
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = deployment.serve(&["--workers", "0"]);
    let padding = "p".repeat(64);
    let body = format!(
        r#"{{"points": [{{"lon": 0, "lat": 0, "id": "a"}}, {{"lon": 0, "lat": 0, "id": "b", "custom_data": {{"k": "{padding}"}}}}]}}"#
    );
    let response = client()
        .post(server.api(&key.key))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 413);
    let text = response.text().await.unwrap();
    assert!(
        text.contains("points[1].custom_data: 73 bytes is more than the limit of 64"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_network_trying_too_many_unknown_keys_gets_429_before_the_store_is_asked() {
    let deployment = Deployment::new().config(&format!(
        "{CONFIG}unknown_keys_per_network_per_minute = 3\n"
    ));
    let known = deployment.new_key();
    let server = deployment.serve(&["--workers", "0"]);
    let http = client();
    let forecast = |key: &str| {
        server.url(&format!(
            "/insights/v1/conditions?key={key}&lat=52.52&lon=13.405"
        ))
    };
    // The known key is served; well-formed random keys are unknown: 401 while the network is
    // within its allowance of three a minute.
    let served = Reply::read(http.get(forecast(&known.key)).send().await.unwrap()).await;
    assert_eq!(
        served.status,
        200,
        "{}",
        String::from_utf8_lossy(&served.body)
    );
    let guess = |n: u8| format!("ik_{}", format!("{n:02x}").repeat(32));
    for n in 0..3 {
        let reply = Reply::read(http.get(forecast(&guess(n))).send().await.unwrap()).await;
        reply.assert_error(401, "invalid_api_key", &[]);
    }
    // The fourth is over it, and from then on the network is refused before its key is
    // looked up: the known key too, with the time to wait.
    let over = Reply::read(http.get(forecast(&guess(3))).send().await.unwrap()).await;
    over.assert_error(429, "rate_limited", &["your network", "unknown API keys"]);
    let refused = Reply::read(http.get(forecast(&known.key)).send().await.unwrap()).await;
    refused.assert_error(429, "rate_limited", &["your network", "3 unknown API keys"]);
    let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=20).contains(&wait), "Retry-After {wait}");
}
