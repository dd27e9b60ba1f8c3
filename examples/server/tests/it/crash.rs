//! Stopping the server: cleanly on SIGTERM, and safely on SIGKILL, where an alert request
//! answered 200 before the crash is delivered after a restart.

use crate::alerts::{add_sensitive_rules, check_delivery, post_points};
use crate::harness::{Deployment, Reply, client, post_json};
use crate::receiver::Receiver;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_accepted_before_a_sigkill_is_delivered_after_a_restart() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Receiver::start(&key.secret).await;
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
    let url = delivery.body["URL"].as_str().unwrap();
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
