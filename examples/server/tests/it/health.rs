//! Health, readiness, metrics and the API description.

use std::sync::OnceLock;

use crate::harness::{Deployment, Reply, Server, client};

/// One server for the module: these tests only read.
fn server() -> &'static Server {
    static SHARED: OnceLock<(Deployment, Server)> = OnceLock::new();
    &SHARED
        .get_or_init(|| {
            let deployment = Deployment::new().keep_until_exit();
            let server = deployment.serve(&[]);
            (deployment, server)
        })
        .1
}

async fn get(path: &str) -> Reply {
    Reply::read(client().get(server().url(path)).send().await.unwrap()).await
}

#[tokio::test]
async fn healthz_answers_200_while_the_process_is_up() {
    let reply = get("/healthz").await;
    assert_eq!(reply.status, 200);
}

#[tokio::test]
async fn readyz_answers_200_when_the_database_and_files_are_reachable() {
    let reply = get("/readyz").await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
}

#[tokio::test]
async fn metrics_count_requests_in_prometheus_text() {
    // A request first, so that the counter has a sample whatever order the tests run in.
    assert_eq!(get("/healthz").await.status, 200);
    let reply = get("/metrics").await;
    assert_eq!(reply.status, 200);
    let text = String::from_utf8(reply.body.to_vec()).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("insights_http_requests_total{")),
        "{text}"
    );
}

#[tokio::test]
async fn openapi_json_is_an_openapi_3_1_document() {
    let reply = get("/insights/v1/openapi.json").await;
    assert_eq!(reply.status, 200);
    let doc = reply.json();
    assert!(doc.is_object(), "{doc}");
    let version = doc["openapi"].as_str().unwrap_or_default();
    assert!(version.starts_with("3.1"), "openapi is `{version}`");
}

#[tokio::test]
async fn a_fresh_store_is_told_how_to_get_started_and_a_used_one_is_not() {
    let deployment = Deployment::new();
    let fresh = deployment.serve(&[]);
    // The announcement is printed before the server answers, but read by another thread.
    let printed = crate::harness::eventually("the start-up announcement", || {
        let out = fresh.printed();
        out.contains("get started").then_some(out)
    })
    .await;
    assert!(
        printed.contains(&format!("{}/dashboard/signup", fresh.base)),
        "{printed}"
    );
    drop(fresh);

    deployment.new_key();
    let used = deployment.serve(&[]);
    let printed = crate::harness::eventually("the start-up announcement", || {
        let out = used.printed();
        out.contains("dashboard:").then_some(out)
    })
    .await;
    assert!(!printed.contains("get started"), "{printed}");
}
