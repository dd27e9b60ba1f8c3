//! Hostile and malformed requests, as a table: each one with the status and error code it must
//! get. None may give a 5xx, and none may leave anything behind: after the whole table the
//! store holds no alert request, no delivery and no file.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::harness::{Deployment, Key, Server, client, post_json};

/// The default limits (10,000 points, 50 routes, 20,000 vertices, 32 MiB), with a rate limit
/// high enough that the table never meets it.
const CONFIG: &str = "rate_per_second = 100000\nrate_burst = 100000\n";

/// A body of the default size limit plus a margin: 50 MiB.
const HUGE_BODY: usize = 50 * 1024 * 1024;

/// One row of the table.
struct Case {
    name: &'static str,
    method: &'static str,
    /// The query string; `{key}` stands for the module's valid key.
    query: String,
    content_type: Option<&'static str>,
    headers: Vec<(&'static str, &'static str)>,
    body: Vec<u8>,
    status: u16,
    code: &'static str,
    /// Fragments the error's `detail` must contain: the field and the problem.
    mentions: &'static [&'static str],
    /// For a request that is valid but whose route cannot be scored: the route's error code
    /// in a 200 (the contract's per-route errors, not a 4xx).
    route_error: Option<u64>,
}

impl Case {
    /// A POST of `body` with the valid key and `Content-Type: application/json`, expected to be
    /// a 400 `invalid_request`.
    fn bytes(name: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            name,
            method: "POST",
            query: "key={key}".to_owned(),
            content_type: Some("application/json"),
            headers: Vec::new(),
            body: body.into(),
            status: 400,
            code: "invalid_request",
            mentions: &[],
            route_error: None,
        }
    }

    fn json(name: &'static str, body: &Value) -> Self {
        Self::bytes(name, serde_json::to_vec(body).unwrap())
    }

    fn expect(
        mut self,
        status: u16,
        code: &'static str,
        mentions: &'static [&'static str],
    ) -> Self {
        self.status = status;
        self.code = code;
        self.mentions = mentions;
        self
    }

    fn route_error(mut self, code: u64) -> Self {
        self.status = 200;
        self.code = "";
        self.route_error = Some(code);
        self
    }

    fn mentions(mut self, mentions: &'static [&'static str]) -> Self {
        self.mentions = mentions;
        self
    }

    fn content_type(mut self, content_type: Option<&'static str>) -> Self {
        self.content_type = content_type;
        self
    }

    fn header(mut self, name: &'static str, value: &'static str) -> Self {
        self.headers.push((name, value));
        self
    }

    fn query(mut self, query: &str) -> Self {
        query.clone_into(&mut self.query);
        self
    }

    fn method(mut self, method: &'static str) -> Self {
        self.method = method;
        self
    }
}

/// A route request around `route`, with everything else valid.
fn with_route(route: Value) -> Value {
    json!({"routesSort": "desc", "routes": [route]})
}

/// A valid route with `member` replaced by `value`.
fn route_with(member: &str, value: Value) -> Value {
    let mut route = json!({"id": "r1", "routeDuration": 12,
        "polyline": [[13.3350, 52.5070], [13.3400, 52.5120], [13.3450, 52.5150]]});
    route[member] = value;
    with_route(route)
}

/// An alert request around one point with `member` replaced by `value`.
fn point_with(member: &str, value: Value) -> Value {
    let mut point = json!({"lon": 13.405, "lat": 52.52, "id": "p1"});
    point[member] = value;
    json!({ "points": [point] })
}

/// `depth` nested arrays around `inner`, as raw JSON text.
fn nested(depth: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
}

fn table() -> Vec<Case> {
    let many_points: Vec<Value> = (0..10_001)
        .map(|i| json!({"lon": 2.35, "lat": 48.86, "id": format!("p{i}")}))
        .collect();
    let many_routes: Vec<Value> = (0..51)
        .map(|i| json!({"id": i, "routeDuration": 5, "polyline": [[2.35, 48.86], [2.36, 48.87]]}))
        .collect();
    let long_polyline: Vec<Value> = (0..20_001)
        .map(|i| json!([2.35 + f64::from(i) * 1e-5, 48.86]))
        .collect();
    let deep_object = format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
    // Bodies of about half a megabyte, which the server spools to a file and reads as a
    // stream: their problems come last, after everything it could have stored.
    let spooled_points: Vec<Value> = (0..9_999)
        .map(|i| json!({"lon": 2.35, "lat": 48.86, "id": format!("spooled-{i}")}))
        .collect();
    let mut bad_last = spooled_points.clone();
    bad_last.push(json!({"lon": 2.35, "lat": 95.0, "id": "last"}));
    let whole = json!({ "points": spooled_points }).to_string();
    let cut_off = whole[..whole.len() - 200].to_owned();
    let twice = format!(r#"{{"points": {0}, "points": {0}}}"#, json!(spooled_points));

    vec![
        // What is not a JSON object at all.
        Case::bytes("an empty body", "").mentions(&["JSON"]),
        Case::bytes("the JSON null", "null").mentions(&["JSON object"]),
        Case::bytes("a JSON array", "[]").mentions(&["JSON object"]),
        Case::bytes("a JSON string", "\"routes\"").mentions(&["JSON object"]),
        Case::bytes("a number", "1e999").mentions(&["JSON"]),
        Case::bytes("truncated JSON", r#"{"routes": [{"id": 1, "#).mentions(&["JSON"]),
        Case::bytes("a trailing comma", r#"{"routesSort": "desc", "routes": [],}"#)
            .mentions(&["JSON"]),
        Case::bytes("trailing garbage after the object", r#"{"points": []} {"x": 1}"#)
            .mentions(&["JSON"]),
        Case::bytes(
            "invalid UTF-8 inside a string",
            b"{\"points\": [{\"lon\": 1, \"lat\": 2, \"id\": \"\xff\xfe\"}]}".to_vec(),
        )
        .mentions(&["points[0].id", "unicode"]),
        Case::bytes(
            "a lone UTF-16 surrogate escape",
            r#"{"points": [{"lon": 1, "lat": 2, "id": "\ud800"}]}"#,
        )
        .mentions(&["points"]),
        Case::bytes("a NUL byte outside strings", b"{\"points\":\0[]}".to_vec())
            .mentions(&["JSON"]),
        Case::bytes("arrays nested 100,000 deep", nested(100_000, "1"))
            .mentions(&["JSON"]),
        Case::bytes(
            "custom_data nested 10,000 deep",
            format!(r#"{{"points": [{{"lon": 1, "lat": 2, "id": "a", "custom_data": {deep_object}}}]}}"#),
        )
        // Read without recursion into a text of its own, then refused for its size.
        .expect(413, "payload_too_large", &["points[0].custom_data", "16384"]),
        // Both operations, or neither.
        Case::json("both points and routes", &json!({"points": [], "routes": []}))
            .mentions(&["points", "routes"]),
        Case::json("neither points nor routes", &json!({"route": []}))
            .mentions(&["points", "routes"]),
        // Operation 2: routes.
        Case::json("routes that is an object", &json!({"routesSort": "desc", "routes": {}}))
            .mentions(&["routes", "invalid type: map"]),
        Case::json("an empty routes array", &json!({"routesSort": "desc", "routes": []}))
            .mentions(&["routes"]),
        Case::json("routesSort missing", &json!({"routes": [route_with("id", json!("a"))["routes"][0]]}))
            .mentions(&["routesSort"]),
        Case::json("routesSort of a wrong type", &json!({"routesSort": 1, "routes": [route_with("id", json!("a"))["routes"][0]]}))
            .mentions(&["routesSort", "integer `1`", "desc, asc, original"]),
        Case::json("an unknown routesSort", &json!({"routesSort": "cleanest", "routes": [route_with("id", json!("a"))["routes"][0]]}))
            .mentions(&["routesSort", "cleanest"]),
        Case::json("an unknown top-level member", &json!({"routesSort": "desc", "routez": 1,
            "routes": [route_with("id", json!("a"))["routes"][0]]}))
            .mentions(&["routez", "unknown field", "routesSort"]),
        Case::json("an unknown route member", &route_with("duration", json!(5)))
            .mentions(&["routes[0].duration", "unknown field", "routeDuration"]),
        Case::json("a route id that is an object", &route_with("id", json!({"id": 1})))
            .mentions(&["routes[0].id"]),
        Case::json("a route id that is missing", &route_with("id", Value::Null))
            .mentions(&["routes[0].id"]),
        Case::json("duplicate route ids", &json!({"routesSort": "desc", "routes": [
            route_with("id", json!("same"))["routes"][0], route_with("id", json!("same"))["routes"][0]]}))
            .mentions(&["routes[1].id", "same"]),
        Case::json("duplicate route ids as number and text", &json!({"routesSort": "desc", "routes": [
            route_with("id", json!(7))["routes"][0], route_with("id", json!("7"))["routes"][0]]}))
            .mentions(&["routes[1].id"]),
        Case::json("a negative routeDuration", &route_with("routeDuration", json!(-5)))
            .mentions(&["routes[0].routeDuration"]),
        Case::json("a zero routeDuration", &route_with("routeDuration", json!(0)))
            .mentions(&["routes[0].routeDuration"]),
        Case::json("a routeDuration as text", &route_with("routeDuration", json!("12")))
            .mentions(&["routes[0].routeDuration", "string \"12\"", "a number"]),
        Case::json("NaN in disguise as a routeDuration", &route_with("routeDuration", json!("NaN")))
            .mentions(&["routes[0].routeDuration"]),
        Case::bytes("a routeDuration beyond f64", r#"{"routesSort": "desc", "routes": [{"id": 1,
            "routeDuration": 1e400, "polyline": [[2.35, 48.86], [2.36, 48.87]]}]}"#)
            .mentions(&["routes[0].routeDuration", "number out of range"]),
        Case::json("a latitude of 91", &route_with("polyline", json!([[2.35, 91.0], [2.36, 48.87]])))
            .mentions(&["routes[0].polyline[0]", "latitude"]),
        Case::json("a longitude of -180.5", &route_with("polyline", json!([[2.35, 48.0], [-180.5, 48.87]])))
            .mentions(&["routes[0].polyline[1]", "longitude"]),
        Case::json("Infinity in disguise as a coordinate", &route_with("polyline", json!([["Infinity", 48.0], [2.36, 48.87]])))
            .mentions(&["routes[0].polyline[0]"]),
        Case::json("a vertex with three numbers", &route_with("polyline", json!([[2.35, 48.0, 7], [2.36, 48.87]])))
            .mentions(&["routes[0].polyline[0]"]),
        Case::json("a polyline of one vertex", &route_with("polyline", json!([[2.35, 48.0]])))
            .route_error(102),
        Case::json("a polyline that is a number", &route_with("polyline", json!(42)))
            .mentions(&["routes[0].polyline", "integer `42`"]),
        Case::json("an empty polyline string", &route_with("polyline", json!("")))
            .route_error(102),
        Case::json("a polyline string of characters outside the format", &route_with("polyline", json!("hello world!")))
            .mentions(&["routes[0].polyline"]),
        Case::json("a truncated encoded polyline", &route_with("polyline", json!("_p~iF~ps|U_ulLnnqC_mqNvxq`")))
            .mentions(&["routes[0].polyline"]),
        Case::json("an encoded polyline that decodes off the globe", &route_with("polyline", json!("~~~~~~~~~~~~")))
            .mentions(&["routes[0].polyline"]),
        Case::json("a polyline string holding JSON that is not pairs", &route_with("polyline", json!("[1, 2, 3]")))
            .mentions(&["routes[0].polyline"]),
        Case::json("a departureTime that is not RFC 3339", &json!({"routesSort": "desc",
            "departureTime": "tomorrow", "routes": [route_with("id", json!("a"))["routes"][0]]}))
            .mentions(&["departureTime"]),
        // Operation 1: points.
        Case::json("an empty points array", &json!({"points": []})).mentions(&["points"]),
        Case::json("points that is a string", &json!({"points": "13.4,52.5"}))
            .mentions(&["points", "string \"13.4,52.5\""]),
        Case::json("a point that is an array", &json!({"points": [[13.4, 52.5]]}))
            .mentions(&["points[0]"]),
        Case::json("a latitude as text", &point_with("lat", json!("52.5")))
            .mentions(&["points[0].lat", "string \"52.5\"", "a number"]),
        Case::json("NaN in disguise as a longitude", &point_with("lon", json!("NaN")))
            .mentions(&["points[0].lon"]),
        Case::json("a latitude of -90.000001", &point_with("lat", json!(-90.000_001)))
            .mentions(&["points[0].lat"]),
        Case::json("a huge longitude", &point_with("lon", json!(1.0e300)))
            .mentions(&["points[0].lon"]),
        Case::json("a missing point id", &point_with("id", Value::Null))
            .mentions(&["points[0].id"]),
        Case::json("an empty point id", &point_with("id", json!("")))
            .mentions(&["points[0].id"]),
        Case::json("a point id of 257 bytes", &point_with("id", json!("x".repeat(257))))
            .mentions(&["points[0].id", "256"]),
        Case::json("a point id that is a boolean", &point_with("id", json!(true)))
            .mentions(&["points[0].id", "a boolean"]),
        Case::json("custom_data that is an array", &point_with("custom_data", json!([1, 2])))
            .mentions(&["points[0].custom_data", "an array"]),
        Case::json("a spooled body whose last point is out of range", &json!({ "points": bad_last }))
            .mentions(&["points[9999].lat", "95"]),
        Case::bytes("a spooled body cut off", cut_off).mentions(&["JSON"]),
        Case::bytes("a spooled body with points twice", twice)
            .mentions(&["duplicate field `points`"]),
        // Limits.
        Case::json("10,001 points", &json!({ "points": many_points }))
            .expect(413, "payload_too_large", &["points", "10000"]),
        Case::json("51 routes", &json!({"routesSort": "desc", "routes": many_routes}))
            .expect(413, "payload_too_large", &["routes", "50"]),
        Case::json("a route of 20,001 vertices", &route_with("polyline", json!(long_polyline)))
            .expect(413, "payload_too_large", &["routes[0].polyline", "20000"]),
        Case::bytes("a 50 MiB body", vec![b' '; HUGE_BODY])
            .expect(413, "payload_too_large", &["bytes"]),
        // The envelope of the request.
        Case::json("a text/plain body", &with_route(json!({})))
            .content_type(Some("text/plain"))
            .expect(415, "unsupported_media_type", &["application/json", "text/plain"]),
        Case::bytes("a form body", "routes=1&routesSort=desc")
            .content_type(Some("application/x-www-form-urlencoded"))
            .expect(415, "unsupported_media_type", &["application/json"]),
        Case::bytes("a gzip-encoded body", vec![0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0])
            .header("content-encoding", "gzip")
            .expect(415, "unsupported_media_type", &["gzip"]),
        Case::json("no key", &point_with("id", json!("p")))
            .query("")
            .expect(401, "missing_api_key", &["key"]),
        Case::json("a key of the wrong shape", &point_with("id", json!("p")))
            .query("key=ik_not-hex")
            .expect(401, "invalid_api_key", &[]),
        Case::json("a well-formed key nobody holds", &point_with("id", json!("p")))
            .query(&format!("key=ik_{}", "0".repeat(64)))
            .expect(401, "invalid_api_key", &[]),
        Case::json("the key given twice", &point_with("id", json!("p")))
            .query("key={key}&key={key}")
            .mentions(&["query string"]),
        Case::json("a GET with a body", &point_with("id", json!("p")))
            .method("GET")
            .expect(405, "method_not_allowed", &["method"]),
    ]
}

struct Answer {
    status: u16,
    body: Vec<u8>,
}

/// Sends a case over a connection of its own, writing the body in pieces; the server may
/// answer and close before the body is all sent (a body over the limit), which is not an
/// error here.
async fn send(server: &Server, key: &Key, case: &Case) -> Answer {
    let addr = server.base.trim_start_matches("http://").to_owned();
    let query = case.query.replace("{key}", &key.key);
    let mut head = format!(
        "{} /insights/v1/cleanest-route?{query} HTTP/1.1\r\nHost: {addr}\r\n\
         Content-Length: {}\r\nConnection: close\r\n",
        case.method,
        case.body.len()
    );
    if let Some(ct) = case.content_type {
        head.push_str(&format!("Content-Type: {ct}\r\n"));
    }
    for (name, value) in &case.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let body = case.body.clone();
    // The write half is handed back rather than dropped: dropping it would half-close the
    // connection, which the server takes as the client going away.
    let writing = tokio::spawn(async move {
        let sent: std::io::Result<()> = async {
            writer.write_all(head.as_bytes()).await?;
            for piece in body.chunks(256 * 1024) {
                writer.write_all(piece).await?;
            }
            writer.flush().await
        }
        .await;
        (writer, sent)
    });
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), reader.read_to_end(&mut response))
        .await
        .unwrap_or_else(|_| panic!("{}: no answer within a minute", case.name))
        .unwrap_or_else(|e| panic!("{}: reading the answer failed: {e}", case.name));
    // A write cut short by the server's early answer is expected for oversized bodies.
    let _ = writing.await;
    let text = String::from_utf8_lossy(&response);
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("{}: not an HTTP answer: {text:.200}", case.name));
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("{}: an answer without a head end", case.name));
    Answer {
        status,
        body: response[split + 4..].to_vec(),
    }
}

/// Checks one answer against its row; the mismatch, if any.
fn check(case: &Case, answer: &Answer) -> Option<String> {
    let shown = String::from_utf8_lossy(&answer.body);
    if answer.status >= 500 {
        return Some(format!("a {} server error: {shown}", answer.status));
    }
    let body: Value = match serde_json::from_slice(&answer.body) {
        Ok(body) => body,
        Err(e) => {
            return Some(format!(
                "{}, a body that is not JSON ({e}): {shown}",
                answer.status
            ));
        }
    };
    if let Some(expected) = case.route_error {
        let got = &body["racss"][0]["error"]["code"];
        return (answer.status != 200 || got != expected).then(|| {
            format!(
                "expected 200 with route error {expected}, got {}: {body}",
                answer.status
            )
        });
    }
    let code = body["error"]["code"].as_str().unwrap_or("");
    let detail = body["error"]["detail"].as_str().unwrap_or("");
    if answer.status != case.status || code != case.code {
        return Some(format!(
            "expected {} {}, got {} {code}: {detail}",
            case.status, case.code, answer.status
        ));
    }
    if body["data"] != Value::Null || body["metadata"] != Value::Null {
        return Some(format!("not the error envelope: {body}"));
    }
    let missing: Vec<&str> = case
        .mentions
        .iter()
        .copied()
        .filter(|m| !detail.contains(m))
        .collect();
    (!missing.is_empty()).then(|| format!("the detail does not mention {missing:?}: {detail}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_request_gets_its_4xx_and_leaves_nothing_behind() {
    let deployment = Deployment::new().config(CONFIG);
    let key = deployment.new_key();
    // A key that could take alert requests, so that bad ones are refused by validation and not
    // for want of a webhook; the port is closed, and nothing is delivered anyway.
    deployment.set_webhook(&key, "http://127.0.0.1:9/hook");
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = deployment.serve(&[]);

    let table = table();
    assert!(table.len() >= 40, "the table has {} rows", table.len());
    let mut failures = Vec::new();
    for case in &table {
        let answer = send(&server, &key, case).await;
        if let Some(problem) = check(case, &answer) {
            failures.push(format!("{}: {problem}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        table.len(),
        failures.join("\n")
    );

    // Nothing was stored: no alert request, so no job, delivery or file.
    let deliveries = deployment.admin(&["list-deliveries", "--key", &key.id, "--limit", "100"]);
    assert_eq!(
        deliveries,
        json!([]),
        "bad requests left alert requests behind"
    );
    let files = deployment.path().join("files");
    let stored: Vec<_> = std::fs::read_dir(&files)
        .map(|dir| dir.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(stored.is_empty(), "files were written: {stored:?}");

    // The server is as good as before: a valid request still works.
    let reply = post_json(&client(), &server, &key.key, &point_with("id", json!("ok"))).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
}
