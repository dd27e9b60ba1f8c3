//! The alert queue under pressure: one customer's hanging receiver does not hold up another's
//! deliveries, a flood beyond the workers' pace is refused up front (503 with `Retry-After`)
//! while everything accepted is delivered, and the per-account limits answer their 4xx.

use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;

use crate::alerts::{points, post_points};
use crate::harness::{Deployment, client, post_json};
use test_support::receiver::Receiver;

/// A webhook receiver that accepts connections, reads what it is sent and never answers, as a
/// hung customer server does: every delivery to it costs the sender its whole timeout.
async fn hanging_receiver() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut sink = vec![0u8; 64 * 1024];
                while matches!(socket.read(&mut sink).await, Ok(n) if n > 0) {}
            });
        }
    });
    format!("http://{addr}/hook")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_receiver_does_not_delay_another_customers_delivery() {
    let deployment = Deployment::new().config("rate_per_second = 1000\nrate_burst = 1000\n");
    let slow = deployment.new_key();
    deployment.set_webhook(&slow, &hanging_receiver().await);
    deployment.add_rule(&slow, "aq", "24h", "high");
    let quick = deployment.new_key();
    let receiver = Receiver::verifying(&quick.secret).await;
    deployment.set_webhook(&quick, &receiver.url("/hook"));
    deployment.add_rule(&quick, "aq", "24h", "high");
    let server = deployment.serve(&[]);

    for _ in 0..16 {
        post_points(&server, &slow).await;
    }
    // The hung receiver's deliveries are under way when the other customer posts.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let posted = Instant::now();
    let token = post_points(&server, &quick).await;
    let delivery = receiver.delivery_for(&token).await;
    let waited = posted.elapsed();
    assert_eq!(delivery.verified, Some(Ok(())));
    assert!(
        waited < Duration::from_secs(4),
        "another key's 16 requests to a hanging receiver delayed this delivery by {waited:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_past_the_workers_pace_is_refused_up_front_and_every_accepted_request_is_delivered()
{
    // One job at a time and a receiver that takes 400 ms: about two deliveries a second,
    // against ten requests a second.
    let deployment = Deployment::new().config(
        "rate_per_second = 1000\nrate_burst = 1000\nmax_queue_delay_seconds = 2\nper_key_jobs = 1\n",
    );
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    receiver.delay(Duration::from_millis(400));
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = deployment.serve(&["--workers", "1"]);

    let client = client();
    let mut accepted = Vec::new();
    let mut refused = 0;
    let flood_until = Instant::now() + Duration::from_secs(8);
    while Instant::now() < flood_until {
        let reply = post_json(&client, &server, &key.key, &points()).await;
        match reply.status.as_u16() {
            200 => accepted.push(reply.json()["data"]["token"].as_str().unwrap().to_owned()),
            503 => {
                reply.assert_error(
                    503,
                    "queue_full",
                    &["waiting longer than the service allows", "retry in"],
                );
                let after: u64 = reply
                    .header("retry-after")
                    .expect("a refusal says when to come back")
                    .parse()
                    .unwrap();
                assert!((1..=2).contains(&after), "Retry-After {after}");
                refused += 1;
            }
            other => panic!(
                "unexpected {other}: {}",
                String::from_utf8_lossy(&reply.body)
            ),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(refused > 0, "a flood past the workers' pace is refused");
    assert!(!accepted.is_empty());
    for token in &accepted {
        let delivery = receiver.delivery_for(token).await;
        assert_eq!(delivery.verified, Some(Ok(())));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_with_too_many_unfinished_requests_gets_429_naming_the_limit() {
    let deployment = Deployment::new().config("max_pending_per_key = 2\n");
    let key = deployment.new_key();
    deployment.set_webhook(&key, &hanging_receiver().await);
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = deployment.serve(&["--workers", "0"]);
    post_points(&server, &key).await;
    post_points(&server, &key).await;
    let reply = post_json(&client(), &server, &key.key, &points()).await;
    reply.assert_error(429, "too_many_pending", &["max_pending_per_key", "2"]);
    assert_eq!(reply.header("retry-after"), Some("60"));
}

#[test]
fn account_limits_answer_with_the_limit_they_reached() {
    let deployment = Deployment::new().config("max_keys_per_account = 2\nmax_rules_per_key = 2\n");
    let email = "limits@example.org";
    deployment.create_account(email, "correct horse battery");
    let first = deployment.admin(&["create-key", "--email", email, "--label", "one"]);
    deployment.admin(&["create-key", "--email", email, "--label", "two"]);
    let third = deployment.admin_output(&["create-key", "--email", email, "--label", "three"]);
    assert!(!third.status.success());
    let said = String::from_utf8_lossy(&third.stderr);
    assert!(said.contains("max_keys_per_account"), "{said}");

    let key = first["id"].as_str().unwrap();
    let rule = |forecast: &str| {
        deployment.admin_output(&[
            "add-rule",
            "--key",
            key,
            "--type",
            "aq",
            "--forecast",
            forecast,
            "--sensitivity",
            "high",
        ])
    };
    assert!(rule("24h").status.success());
    let twin = rule("24h");
    assert!(!twin.status.success(), "an identical rule is refused");
    let said = String::from_utf8_lossy(&twin.stderr);
    assert!(said.contains("same settings"), "{said}");
    assert!(rule("48h").status.success());
    let third = rule("96h");
    assert!(!third.status.success());
    let said = String::from_utf8_lossy(&third.stderr);
    assert!(said.contains("max_rules_per_key"), "{said}");

    // Revoking a key frees its place.
    deployment.admin(&["revoke-key", "--key", key]);
    deployment.admin(&["create-key", "--email", email, "--label", "three"]);
}
