//! Stopping the server: cleanly on SIGTERM, and safely on SIGKILL. An alert request answered
//! 200 before a crash is delivered after it; with 200 requests in flight at a random moment
//! of the kill, each request retried with its `Idempotency-Key` ends as exactly one stored
//! request, one file and at least one delivery, and nothing else is left behind.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::task::JoinSet;

use crate::alerts::{add_sensitive_rules, check_delivery, post_points};
use crate::harness::{Deployment, Key, PATIENCE, Reply, Server, client, eventually, post_json};
use test_support::receiver::Receiver;
use test_support::s3::S3Server;

use crate::scale_out::{TestDb, scale_out_deployment};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_accepted_before_a_sigkill_is_delivered_after_a_restart() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_sensitive_rules(&deployment, &key);

    // No workers: the request is accepted and stored, and nothing works on it.
    let api_only = deployment.serve(&["--workers", "0"]);
    let token = post_points(&api_only, &key).await;
    let record = deployment.delivery_record(&key, &token);
    assert_eq!(record["attempts"], serde_json::json!([]), "{record}");
    assert!(receiver.deliveries().is_empty());
    api_only.kill_hard();

    let restarted = deployment.serve(&[]);
    let delivery = receiver.delivery_for(&token).await;
    check_delivery(&delivery, &key, &token);
    // The URL names the server that made the file, and it serves it.
    let url = delivery.json["URL"].as_str().unwrap();
    assert!(url.starts_with(&restarted.base), "{url}");
    let file = Reply::read(client().get(url).send().await.unwrap()).await;
    assert_eq!(file.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_the_server_with_success_and_a_restart_serves_the_same_store() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let status = server.terminate();
    assert!(status.success(), "exit status {status}");

    let restarted = deployment.serve(&[]);
    let body = serde_json::json!({"routesSort": "original", "routes": [{"id": 1,
        "routeDuration": 5, "polyline": [[2.35, 48.86], [2.36, 48.865]]}]});
    let reply = post_json(&client(), &restarted, &key.key, &body).await;
    assert_eq!(
        reply.status, 200,
        "the key made before the restart still works"
    );
}

/// Alert requests in flight when a server is killed.
const IN_FLIGHT: usize = 200;

/// A rate far above the storm's, and a short lease, so that the jobs a killed server held are
/// taken over within the test's patience rather than after the default five minutes.
const CRASH_CONFIG: &str = "rate_per_second = 100000\nrate_burst = 100000\nlease_seconds = 15\n";

/// How long the survivors may take to deliver everything: a lease, then the work.
const SETTLE: Duration = Duration::from_secs(120);

/// The seed of a run's random choices: `INSIGHTS_CRASH_SEED` to repeat a run, else the clock.
/// Printed, so that a failure can be replayed.
fn seed() -> u64 {
    let seed = std::env::var("INSIGHTS_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("crash test seed: {seed} (set INSIGHTS_CRASH_SEED={seed} to repeat)");
    seed
}

/// xorshift64*: enough randomness to place a kill, and repeatable from its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// Request `i`: one point of its own, somewhere the demo field moves.
fn storm_body(i: usize) -> Value {
    let lon = -120.0 + (i % 60) as f64 * 4.0;
    let lat = -40.0 + (i / 60) as f64 * 20.0;
    json!({"points": [{"lon": lon, "lat": lat, "id": format!("req-{i}")}]})
}

/// Posts request `i` with its idempotency key: its token, or why there is none.
async fn post_storm(client: &reqwest::Client, url: &str, i: usize) -> Result<Reply, String> {
    let sent = client
        .post(url)
        .header("content-type", "application/json")
        .header("idempotency-key", format!("storm-{i}"))
        .body(serde_json::to_vec(&storm_body(i)).unwrap())
        .send()
        .await
        .map_err(|e| format!("request {i}: {e}"))?;
    Ok(Reply::read(sent).await)
}

/// The token of a 200, or `None` for any other answer.
fn token_from(reply: &Reply) -> Option<String> {
    (reply.status == 200).then(|| reply.json()["data"]["token"].as_str().unwrap().to_owned())
}

/// The token of a 200, or `None` for anything else (a crash cuts requests off).
fn token_of(reply: &Result<Reply, String>) -> Option<String> {
    reply.as_ref().ok().and_then(token_from)
}

/// Sends the storm, request `i` to `urls[i % urls.len()]`, and SIGKILLs `victim` once `kill_after`
/// answers are in; each request's token when it was acknowledged.
async fn storm_and_kill(urls: &[String], victim: Server, kill_after: usize) -> Vec<Option<String>> {
    let client = client();
    let answered = Arc::new(AtomicUsize::new(0));
    let mut tasks = JoinSet::new();
    for i in 0..IN_FLIGHT {
        let (client, url, answered) = (
            client.clone(),
            urls[i % urls.len()].clone(),
            answered.clone(),
        );
        tasks.spawn(async move {
            let reply = post_storm(&client, &url, i).await;
            answered.fetch_add(1, Ordering::SeqCst);
            (i, token_of(&reply))
        });
    }
    let deadline = Instant::now() + PATIENCE;
    while answered.load(Ordering::SeqCst) < kill_after && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_micros(200)).await;
    }
    victim.kill_hard();
    let mut tokens = vec![None; IN_FLIGHT];
    while let Some(done) = tasks.join_next().await {
        let (i, token) = done.unwrap();
        tokens[i] = token;
    }
    tokens
}

/// Sends request `i` of the storm to `url` until it is not refused as busy, waiting what each
/// refusal's `Retry-After` says, as a client that retries does: after a restart the requests
/// stored before the crash have waited for a worker all the while, and the key's new requests
/// are refused until the workers are back under the target. Its last answer.
async fn post_storm_as_told(client: &reqwest::Client, url: &str, i: usize) -> Reply {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let reply = post_storm(client, url, i).await.unwrap();
        if reply.status != 503 || Instant::now() > deadline {
            return reply;
        }
        let after: u64 = reply
            .header("retry-after")
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("a 503 without Retry-After for request {i}: {reply:?}"));
        tokio::time::sleep(Duration::from_secs(after)).await;
    }
}

/// Sends every request of the storm again, with its idempotency key, to `url`: an acknowledged
/// one must come back as a replay of its token; the others get theirs now. Every request's
/// token.
async fn retry_storm(url: &str, acknowledged: &[Option<String>]) -> Vec<String> {
    let client = client();
    let mut tokens = Vec::with_capacity(IN_FLIGHT);
    for (i, before) in acknowledged.iter().enumerate() {
        let reply = post_storm_as_told(&client, url, i).await;
        let token = token_from(&reply)
            .unwrap_or_else(|| panic!("the retry of request {i} failed: {reply:?}"));
        if let Some(before) = before {
            assert_eq!(
                &token, before,
                "request {i} was acknowledged before the crash: its retry names the same request"
            );
            assert_eq!(
                reply.header("idempotent-replayed"),
                Some("true"),
                "the retry of acknowledged request {i} is a replay"
            );
        }
        tokens.push(token);
    }
    tokens
}

/// Waits until every token has a delivery at the receiver.
async fn await_deliveries(receiver: &Receiver, tokens: &[String]) {
    let deadline = Instant::now() + SETTLE;
    loop {
        let delivered: HashSet<String> = receiver
            .deliveries()
            .iter()
            .filter_map(|d| d.json["TOKEN"].as_str().map(str::to_owned))
            .collect();
        let missing = tokens.iter().filter(|t| !delivered.contains(*t)).count();
        if missing == 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{missing} of {} requests were never delivered",
            tokens.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Counts the files under `dir` by name; staging files of cut-off uploads (`name#n`) are not
/// files anyone can fetch, and are swept later.
fn files_by_name(dir: &Path) -> HashMap<String, usize> {
    let mut found = HashMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(path);
            } else if !name.contains('#') && name.ends_with(".ndjson") {
                *found.entry(name).or_default() += 1;
            }
        }
    }
    found
}

/// What must hold after a crash and the retries: one request per idempotency key, every one
/// delivered and signed, exactly one file each, and nothing else stored.
async fn check_after_crash(
    deployment: &Deployment,
    key: &Key,
    receiver: &Receiver,
    tokens: &[String],
    files_dir: &Path,
) {
    let distinct: HashSet<&String> = tokens.iter().collect();
    assert_eq!(distinct.len(), IN_FLIGHT, "one request per idempotency key");
    await_deliveries(receiver, tokens).await;

    for delivery in receiver.deliveries() {
        assert_eq!(delivery.verified, Some(Ok(())), "every delivery is signed");
        let token = delivery.json["TOKEN"].as_str().unwrap_or_default();
        assert!(
            distinct.contains(&token.to_owned()),
            "a delivery for a request the client never got a token for: {token}"
        );
    }
    let listed = deployment.admin(&["list-deliveries", "--key", &key.id, "--limit", "1000"]);
    let stored: HashSet<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["token"].as_str().unwrap().to_owned())
        .collect();
    let expected: HashSet<String> = tokens.iter().cloned().collect();
    assert_eq!(
        stored, expected,
        "the store holds exactly the requests the client holds tokens for"
    );

    let files = eventually("a file for every request", || {
        let files = files_by_name(files_dir);
        (files.len() >= IN_FLIGHT).then_some(files)
    })
    .await;
    for token in tokens {
        assert_eq!(
            files.get(&format!("{token}.ndjson")),
            Some(&1),
            "request {token} has exactly one file"
        );
    }
    assert_eq!(
        files.len(),
        IN_FLIGHT,
        "no file for anything else: {files:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigkill_with_200_alert_requests_in_flight_loses_and_duplicates_nothing() {
    let mut rng = Rng(seed() | 1);
    let deployment = Deployment::new().config(CRASH_CONFIG);
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_sensitive_rules(&deployment, &key);

    let server = deployment.serve(&[]);
    let kill_after = rng.below(IN_FLIGHT as u64 * 3 / 4) as usize;
    let url = server.api(&key.key);
    let acknowledged = storm_and_kill(&[url], server, kill_after).await;
    let before = acknowledged.iter().flatten().count();
    eprintln!("killed after {kill_after} answers; {before} requests were acknowledged");

    let restarted = deployment.serve(&[]);
    let tokens = retry_storm(&restarted.api(&key.key), &acknowledged).await;
    check_after_crash(
        &deployment,
        &key,
        &receiver,
        &tokens,
        &deployment.path().join("files"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_postgres_lose_nothing_when_one_is_killed_mid_storm() {
    let mut rng = Rng(seed() | 1);
    let Some(db) = TestDb::create().await else {
        return;
    };
    let Some(s3) = S3Server::start() else {
        return;
    };
    let deployment = scale_out_deployment(&db, &s3).config(CRASH_CONFIG);
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_sensitive_rules(&deployment, &key);

    let victim = deployment.serve(&[]);
    let survivor = deployment.serve(&[]);
    let kill_after = rng.below(IN_FLIGHT as u64 * 3 / 4) as usize;
    let urls = [victim.api(&key.key), survivor.api(&key.key)];
    let acknowledged = storm_and_kill(&urls, victim, kill_after).await;
    let before = acknowledged.iter().flatten().count();
    eprintln!("killed one replica after {kill_after} answers; {before} requests were acknowledged");

    // Only the survivor is left: it takes the retries and, once their leases end, the jobs
    // the killed replica held.
    let tokens = retry_storm(&survivor.api(&key.key), &acknowledged).await;
    check_after_crash(&deployment, &key, &receiver, &tokens, &s3.bucket_dir()).await;
}
