//! Every error path of the API contract: the status, `error.code`, and a `detail` that names
//! the problem, always in the error envelope.

use std::sync::OnceLock;

use identity_core::ids::KeyId;
use identity_core::ports::AccountStore;
use serde_json::{Value, json};
use store_sqlite::{SqliteOptions, SqliteStore};

use crate::harness::{Deployment, Key, Reply, Server, client, post_json, post_raw};

/// Small limits, so that the limit paths are reached with small requests.
const CONFIG: &str = "max_routes = 3\nmax_points = 5\nmax_body_bytes = 65536\nrate_per_second = 1\n\
                      max_departure_scorings = 4\n";

struct Shared {
    deployment: Deployment,
    server: Server,
    /// A key with a webhook and a rule. At one request per second with the default burst, it
    /// has far more requests in hand than this module sends; the rate test uses its own key.
    key: Key,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let deployment = Deployment::new().config(CONFIG).keep_until_exit();
        let key = deployment.new_key();
        // Never called: these tests only need a key that could take alert requests.
        deployment.set_webhook(&key, "http://127.0.0.1:9/hook");
        deployment.add_rule(&key, "aq", "24h", "high");
        let server = deployment.serve(&[]);
        Shared {
            deployment,
            server,
            key,
        }
    })
}

fn route(id: Value) -> Value {
    json!({"id": id, "routeDuration": 10,
           "polyline": [[13.3350, 52.5070], [13.3400, 52.5120], [13.3450, 52.5150]]})
}

fn routes_body(routes: Vec<Value>) -> Value {
    json!({"routes": routes, "routesSort": "desc"})
}

/// POSTs `body` with the module's key.
async fn post(body: &Value) -> Reply {
    let s = shared();
    post_json(&client(), &s.server, &s.key.key, body).await
}

/// POSTs raw bytes with the module's key.
async fn post_bytes(content_type: Option<&str>, body: &[u8]) -> Reply {
    let s = shared();
    post_raw(
        &client(),
        &s.server.api(&s.key.key),
        content_type,
        body.to_vec(),
    )
    .await
}

#[tokio::test]
async fn a_request_without_a_key_is_401_missing_api_key() {
    let s = shared();
    let url = s.server.url("/insights/v1/cleanest-route");
    let body = serde_json::to_vec(&routes_body(vec![route(json!("a"))])).unwrap();
    let reply = post_raw(&client(), &url, Some("application/json"), body.clone()).await;
    reply.assert_error(401, "missing_api_key", &["key"]);
    let reply = post_raw(
        &client(),
        &format!("{url}?key="),
        Some("application/json"),
        body,
    )
    .await;
    reply.assert_error(401, "missing_api_key", &["key"]);
}

#[tokio::test]
async fn a_query_string_that_cannot_be_read_is_400_in_the_envelope() {
    let s = shared();
    let key = &s.key.key;
    let url = s
        .server
        .url(&format!("/insights/v1/cleanest-route?key={key}&key={key}"));
    let body = serde_json::to_vec(&routes_body(vec![route(json!("a"))])).unwrap();
    let reply = post_raw(&client(), &url, Some("application/json"), body).await;
    reply.assert_error(400, "invalid_request", &["query", "key"]);
}

#[tokio::test]
async fn an_unknown_or_malformed_key_is_401_invalid_api_key() {
    let s = shared();
    let body = routes_body(vec![route(json!("a"))]);
    let unknown = format!("ik_{}", "0".repeat(64));
    for key in [unknown.as_str(), "not-a-key"] {
        let reply = post_json(&client(), &s.server, key, &body).await;
        reply.assert_error(401, "invalid_api_key", &["API key"]);
    }
}

#[tokio::test]
async fn a_revoked_key_is_401_invalid_api_key() {
    let s = shared();
    let key = s.deployment.new_key();
    let body = routes_body(vec![route(json!("a"))]);
    assert_eq!(
        post_json(&client(), &s.server, &key.key, &body)
            .await
            .status,
        200
    );

    // The admin command has no revocation: revoke as the dashboard does, in the store the
    // server runs on.
    let store = SqliteStore::open(SqliteOptions::parse(&s.deployment.sqlite_url()))
        .await
        .unwrap();
    let id = KeyId(key.id.parse().unwrap());
    store.revoke_key(id, chrono::Utc::now()).await.unwrap();

    let reply = post_json(&client(), &s.server, &key.key, &body).await;
    reply.assert_error(401, "invalid_api_key", &["API key"]);
}

#[tokio::test]
async fn malformed_json_is_400_invalid_request() {
    let reply = post_bytes(Some("application/json"), br#"{"routes": [}"#).await;
    reply.assert_error(400, "invalid_request", &["not valid JSON"]);
}

#[tokio::test]
async fn a_body_that_is_not_an_object_is_400_invalid_request() {
    let reply = post(&json!([{"routes": []}])).await;
    reply.assert_error(400, "invalid_request", &["JSON object", "points", "routes"]);
}

#[tokio::test]
async fn a_body_with_both_points_and_routes_is_400_invalid_request() {
    let body = json!({"points": [{"lon": 2.35, "lat": 48.86, "id": "p"}],
                      "routes": [route(json!("a"))], "routesSort": "desc"});
    let reply = post(&body).await;
    reply.assert_error(400, "invalid_request", &["both", "`points`", "`routes`"]);
}

#[tokio::test]
async fn a_body_with_neither_points_nor_routes_is_400_invalid_request() {
    let reply = post(&json!({"routesSort": "desc"})).await;
    reply.assert_error(400, "invalid_request", &["neither", "`points`", "`routes`"]);
}

#[tokio::test]
async fn a_wrong_type_is_400_naming_its_json_path() {
    let body = routes_body(vec![json!({"id": "a", "routeDuration": 10,
        "polyline": [[13.3350, 52.5070], [13.3400, "52.5120"]]})]);
    let reply = post(&body).await;
    reply.assert_error(400, "invalid_request", &["routes[0].polyline[1]", "string"]);

    let body = json!({"points": [{"lon": 2.35, "lat": 48.86, "id": "a"},
                                 {"lon": "2.35", "lat": 48.86, "id": "b"}]});
    let reply = post(&body).await;
    reply.assert_error(400, "invalid_request", &["points[1].lon", "number"]);

    let body = routes_body(vec![json!({"id": true, "routeDuration": 10,
        "polyline": [[13.3350, 52.5070], [13.3400, 52.5120]]})]);
    let reply = post(&body).await;
    reply.assert_error(400, "invalid_request", &["routes[0].id", "boolean"]);
}

#[tokio::test]
async fn a_latitude_out_of_range_is_400_naming_the_vertex() {
    let body = routes_body(vec![
        route(json!("a")),
        json!({"id": "b", "routeDuration": 10,
               "polyline": [[13.3350, 52.5070], [13.3400, 52.5120], [13.3450, 95.1]]}),
    ]);
    let reply = post(&body).await;
    reply.assert_error(
        400,
        "invalid_request",
        &["routes[1].polyline[2]", "latitude 95.1", "[-90, 90]"],
    );

    let body = json!({"points": [{"lon": 2.35, "lat": -90.5, "id": "a"}]});
    let reply = post(&body).await;
    reply.assert_error(400, "invalid_request", &["points[0].lat", "-90.5"]);
}

#[tokio::test]
async fn a_missing_routes_sort_is_400_invalid_request() {
    let reply = post(&json!({"routes": [route(json!("a"))]})).await;
    reply.assert_error(400, "invalid_request", &["routesSort", "missing"]);
}

#[tokio::test]
async fn an_unknown_enum_value_is_400_naming_the_member_and_the_value() {
    let reply = post(&json!({"routes": [route(json!("a"))], "routesSort": "up"})).await;
    reply.assert_error(400, "invalid_request", &["routesSort", "\"up\"", "desc"]);

    let body = json!({"routes": [route(json!("a"))], "routesSort": "asc",
                      "lengthUnits": "furlongs"});
    let reply = post(&body).await;
    reply.assert_error(400, "invalid_request", &["lengthUnits", "furlongs"]);
}

#[tokio::test]
async fn duplicate_route_ids_are_400_naming_both_routes() {
    // A number and a string of the same text are the same id.
    let body = routes_body(vec![route(json!(7)), route(json!("x")), route(json!("7"))]);
    let reply = post(&body).await;
    reply.assert_error(400, "invalid_request", &["routes[2].id", "routes[0]"]);
}

#[tokio::test]
async fn more_routes_than_the_configured_limit_is_413_naming_the_limit() {
    let routes = (0..4).map(|i| route(json!(i))).collect();
    let reply = post(&routes_body(routes)).await;
    reply.assert_error(413, "payload_too_large", &["routes", "limit of 3"]);
}

#[tokio::test]
async fn a_departure_window_over_the_configured_scorings_is_413_naming_the_limit_and_member() {
    // Three routes × two later departures (30 minutes in steps of 15): 6 scorings, over 4.
    let mut body = routes_body((0..3).map(|i| route(json!(i))).collect());
    body["departureWindowMinutes"] = json!(30);
    let reply = post(&body).await;
    reply.assert_error(
        413,
        "payload_too_large",
        &[
            "departureWindowMinutes",
            "limit of 4",
            "max_departure_scorings",
        ],
    );
    // Two routes × two later departures fit.
    let mut body = routes_body((0..2).map(|i| route(json!(i))).collect());
    body["departureWindowMinutes"] = json!(30);
    assert_eq!(post(&body).await.status, 200);
}

#[tokio::test]
async fn departure_members_out_of_range_are_400_naming_the_member() {
    for (members, named) in [
        (
            json!({"departureWindowMinutes": 721}),
            "departureWindowMinutes",
        ),
        (
            json!({"departureWindowMinutes": 60, "departureStepMinutes": 4}),
            "departureStepMinutes",
        ),
        (json!({"departureStepMinutes": 10}), "departureStepMinutes"),
        (
            json!({"departureWindowMinutes": 20.5}),
            "departureWindowMinutes",
        ),
    ] {
        let mut body = routes_body(vec![route(json!(1))]);
        for (k, v) in members.as_object().unwrap() {
            body[k] = v.clone();
        }
        post(&body)
            .await
            .assert_error(400, "invalid_request", &[named]);
    }
}

#[tokio::test]
async fn more_points_than_the_configured_limit_is_413_naming_the_limit() {
    let points: Vec<Value> = (0..6)
        .map(|i| json!({"lon": 2.35, "lat": 48.86, "id": format!("p{i}")}))
        .collect();
    let reply = post(&json!({ "points": points })).await;
    reply.assert_error(413, "payload_too_large", &["points", "limit of 5"]);
}

#[tokio::test]
async fn a_body_over_the_configured_size_is_413_naming_the_limit() {
    let padding = "x".repeat(70_000);
    let body = json!({"routes": [route(json!(padding))], "routesSort": "desc"});
    let reply = post(&body).await;
    reply.assert_error(413, "payload_too_large", &["65536 bytes"]);
}

#[tokio::test]
async fn a_chunked_body_over_the_configured_size_is_413_naming_the_limit() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    // Without a Content-Length the limit can only be found while reading.
    let s = shared();
    let addr = s.server.base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /insights/v1/cleanest-route?key={} HTTP/1.1\r\nHost: {addr}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\
         Connection: close\r\n\r\n",
        s.key.key
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let chunk = format!("{:x}\r\n{}\r\n", 10_000, "x".repeat(10_000));
    for _ in 0..8 {
        // The server may answer and close before every chunk is sent.
        if stream.write_all(chunk.as_bytes()).await.is_err() {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    let text = String::from_utf8_lossy(&response);
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    let body = &text[text.find("\r\n\r\n").unwrap() + 4..];
    let body: Value = serde_json::from_str(body).unwrap();
    assert_eq!(body["error"]["code"], "payload_too_large", "{body}");
    assert!(
        body["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("65536 bytes"),
        "{body}"
    );
}

#[tokio::test]
async fn a_body_that_is_not_json_is_415_unsupported_media_type() {
    let body = serde_json::to_vec(&routes_body(vec![route(json!("a"))])).unwrap();
    let reply = post_bytes(Some("text/plain"), &body).await;
    reply.assert_error(
        415,
        "unsupported_media_type",
        &["application/json", "text/plain"],
    );
    let reply = post_bytes(Some("application/x-www-form-urlencoded"), b"routes=1").await;
    reply.assert_error(415, "unsupported_media_type", &["application/json"]);
}

#[tokio::test]
async fn json_media_types_are_accepted_in_any_case_and_with_parameters() {
    let body = serde_json::to_vec(&routes_body(vec![route(json!("a"))])).unwrap();
    for media in [
        "Application/JSON",
        "application/json; charset=utf-8",
        "application/vnd.example+JSON",
    ] {
        let reply = post_bytes(Some(media), &body).await;
        assert_eq!(reply.status, 200, "{media}: {:?}", reply.body);
    }
}

#[tokio::test]
async fn an_alert_request_for_a_key_without_a_webhook_is_400_webhook_not_configured() {
    let s = shared();
    let key = s.deployment.new_key();
    s.deployment.add_rule(&key, "aq", "6h", "medium");
    let body = json!({"points": [{"lon": 2.35, "lat": 48.86, "id": "p"}]});
    let reply = post_json(&client(), &s.server, &key.key, &body).await;
    reply.assert_error(400, "webhook_not_configured", &["webhook URL"]);
}

#[tokio::test]
async fn an_alert_request_for_a_key_without_rules_is_400_no_alert_rules() {
    let s = shared();
    let key = s.deployment.new_key();
    s.deployment.set_webhook(&key, "http://127.0.0.1:9/hook");
    let body = json!({"points": [{"lon": 2.35, "lat": 48.86, "id": "p"}]});
    let reply = post_json(&client(), &s.server, &key.key, &body).await;
    reply.assert_error(400, "no_alert_rules", &["alert rule"]);
}

#[tokio::test]
async fn an_unknown_path_is_404_not_found_in_the_envelope() {
    let s = shared();
    for path in [
        "/",
        "/insights/v2/cleanest-route",
        "/insights/v1/nothing-here",
    ] {
        let reply = Reply::read(client().get(s.server.url(path)).send().await.unwrap()).await;
        reply.assert_error(404, "not_found", &["/insights/v1/"]);
    }
}

#[tokio::test]
async fn an_unknown_docs_asset_is_404_not_found_in_the_envelope() {
    let s = shared();
    // The second is not even UTF-8 once decoded.
    for path in ["/insights/v1/docs/other.js", "/insights/v1/docs/%FF"] {
        let reply = Reply::read(client().get(s.server.url(path)).send().await.unwrap()).await;
        reply.assert_error(404, "not_found", &["asset"]);
    }
}

#[tokio::test]
async fn a_wrong_method_is_405_method_not_allowed_in_the_envelope() {
    let s = shared();
    let api = s.server.api(&s.key.key);
    let reply = Reply::read(client().get(&api).send().await.unwrap()).await;
    reply.assert_error(405, "method_not_allowed", &["method"]);
    let reply = Reply::read(
        client()
            .delete(s.server.url("/healthz"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    reply.assert_error(405, "method_not_allowed", &["method"]);
}

#[tokio::test]
async fn a_key_over_its_rate_is_429_rate_limited_with_retry_after() {
    let s = shared();
    let key = s.deployment.new_key();
    let client = client();
    let url = s.server.api(&key.key);
    // One request a second with a burst allowance: send until the allowance is spent. Bodies
    // are rejected cheaply after the rate check, so this takes well under a second.
    let mut limited = None;
    for _ in 0..1_000 {
        let reply = post_raw(&client, &url, Some("application/json"), b"{}".to_vec()).await;
        if reply.status == 429 {
            limited = Some(reply);
            break;
        }
        reply.assert_error(400, "invalid_request", &[]);
    }
    let reply = limited.expect("the key was never limited");
    reply.assert_error(429, "rate_limited", &["1 requests per second"]);
    let retry_after: u64 = reply.header("retry-after").unwrap().parse().unwrap();
    assert!(retry_after >= 1, "Retry-After {retry_after}");
    // Other keys keep their own allowance.
    let other = post_json(&client, &s.server, &s.key.key, &json!({})).await;
    other.assert_error(400, "invalid_request", &["neither"]);
}

#[tokio::test]
async fn a_file_url_with_a_wrong_signature_is_403_forbidden() {
    let s = shared();
    let token = uuid::Uuid::new_v4();
    let far = chrono::Utc::now().timestamp() + 600;
    let path = format!(
        "/insights/v1/files/{token}.ndjson?expires={far}&signature={}",
        "0".repeat(64)
    );
    let reply = Reply::read(client().get(s.server.url(&path)).send().await.unwrap()).await;
    reply.assert_error(403, "forbidden", &[]);
    // No parameters at all is no better.
    let path = format!("/insights/v1/files/{token}.ndjson");
    let reply = Reply::read(client().get(s.server.url(&path)).send().await.unwrap()).await;
    reply.assert_error(403, "forbidden", &["file URL"]);
}
