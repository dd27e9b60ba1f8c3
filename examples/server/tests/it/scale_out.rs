//! The end-to-end alert test on the scale-out backends: PostgreSQL (a database of the test's
//! own on 127.0.0.1:5432) and S3 (an `s3s-fs` server on loopback).

use std::time::{Duration, Instant};

pub(crate) use test_support::postgres::TestDb;
use test_support::s3::{ACCESS_KEY, BUCKET, S3Server, SECRET_KEY};

use crate::alerts::{Files, add_sensitive_rules, run_end_to_end};
use crate::harness::{Deployment, PATIENCE, Reply, client, post_json};
use test_support::receiver::Receiver;

/// A deployment on the scale-out backends: `db` for the store, `s3`'s bucket for the files.
pub(crate) fn scale_out_deployment(db: &TestDb, s3: &S3Server) -> Deployment {
    Deployment::new()
        .flag("--database-url", &db.url)
        .flag("--object-store", &format!("s3://{BUCKET}"))
        .env("AWS_ENDPOINT_URL", &s3.endpoint)
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .env("AWS_REGION", "us-east-1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn points_posted_lead_to_a_delivery_and_a_presigned_file_on_postgres_and_s3() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let Some(s3) = S3Server::start() else {
        return;
    };
    let deployment = Deployment::new()
        .flag("--database-url", &db.url)
        .flag("--object-store", &format!("s3://{BUCKET}"))
        .env("AWS_ENDPOINT_URL", &s3.endpoint)
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .env("AWS_REGION", "us-east-1");
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_sensitive_rules(&deployment, &key);
    let server = deployment.serve(&[]);
    assert!(
        !deployment.path().join("insights.db").exists(),
        "nothing goes to SQLite"
    );
    run_end_to_end(&deployment, &server, &key, &receiver, Files::S3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_goes_away_is_503_unavailable_with_retry_after() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let deployment = Deployment::new().flag("--database-url", &db.url);
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    let client = client();
    let readyz =
        || async { Reply::read(client.get(server.url("/readyz")).send().await.unwrap()).await };
    assert_eq!(readyz().await.status, 200);

    db.drop_now().await;
    let deadline = Instant::now() + PATIENCE;
    let not_ready = loop {
        let reply = readyz().await;
        if reply.status != 200 {
            break reply;
        }
        assert!(
            Instant::now() < deadline,
            "/readyz never noticed the outage"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(not_ready.status, 503);
    assert!(not_ready.header("retry-after").is_some());
    let text = String::from_utf8_lossy(&not_ready.body).into_owned();
    assert!(text.contains("database: unavailable"), "{text}");

    let body = serde_json::json!({"routesSort": "desc", "routes": [{"id": "a", "routeDuration": 5,
        "polyline": [[13.3350, 52.5070], [13.3400, 52.5120]]}]});
    let reply = post_json(&client, &server, &key.key, &body).await;
    reply.assert_error(503, "unavailable", &["database"]);
    let retry_after: u64 = reply.header("retry-after").unwrap().parse().unwrap();
    assert!(retry_after >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_one_database_and_bucket_share_the_work() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let Some(s3) = S3Server::start() else {
        return;
    };
    let deployment = Deployment::new()
        .flag("--database-url", &db.url)
        .flag("--object-store", &format!("s3://{BUCKET}"))
        .env("AWS_ENDPOINT_URL", &s3.endpoint)
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .env("AWS_REGION", "us-east-1");
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_sensitive_rules(&deployment, &key);
    // Replica A only answers the API; replica B only has workers to spare. Every request A
    // accepts must therefore be delivered by B, through the shared database and bucket.
    let api_only = deployment.serve(&["--workers", "0"]);
    let worker = deployment.serve(&[]);
    let client = client();
    let mut tokens = Vec::new();
    for (i, server) in [&api_only, &worker, &api_only, &api_only]
        .into_iter()
        .enumerate()
    {
        let body =
            serde_json::json!({"points": [{"lon": 13.405, "lat": 52.52, "id": format!("p{i}")}]});
        let reply = post_json(&client, server, &key.key, &body).await;
        assert_eq!(reply.status, 200, "{:?}", reply.body);
        tokens.push(reply.json()["data"]["token"].as_str().unwrap().to_owned());
    }
    for token in &tokens {
        let delivery = receiver.delivery_for(token).await;
        assert_eq!(
            delivery.verified,
            Some(Ok(())),
            "the delivery of {token} is signed"
        );
        let url = delivery.json["URL"].as_str().unwrap();
        let file = client.get(url).send().await.unwrap();
        assert_eq!(
            file.status(),
            200,
            "the presigned file of {token} downloads"
        );
    }
}
