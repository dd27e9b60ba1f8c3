//! Operation 1 end to end on the embedded default (SQLite and local files): rules set with
//! the admin commands, points posted, a signed delivery, the file downloaded and checked.

use std::collections::HashMap;

use alerts_core::ndjson::{count_lines, decode_all};
use alerts_core::webhook::message_id;
use serde_json::{Value, json};

use crate::harness::{Deployment, Key, Reply, Server, client, eventually, post_json};
use test_support::receiver::Receiver;

/// The members of an output line, in the order the spec lists them.
const LINE_MEMBERS: [&str; 7] = [
    "description",
    "recommendation",
    "lat",
    "lon",
    "id",
    "data_type",
    "custom_data",
];

/// The members for programs after the spec's, in their order (`probability` only from a source
/// with an uncertainty, which the demo field is not).
const PROGRAM_MEMBERS: [&str; 11] = [
    "rule_id",
    "evaluated_at",
    "direction",
    "subject",
    "starts_at",
    "index",
    "peak_at",
    "peak",
    "ends_at",
    "duration",
    "language",
];

/// Points near large cities, where the demo field's traffic cycle moves the indices most;
/// string and numeric ids, with and without `custom_data`.
pub(crate) fn points() -> Value {
    json!({"points": [
        {"lon": 77.21, "lat": 28.61, "id": "delhi", "custom_data": {"user": 17, "tier": "gold"}},
        {"lon": 116.41, "lat": 39.90, "id": 42, "custom_data": {"tags": ["a", "b"], "ok": true}},
        {"lon": 31.24, "lat": 30.04, "id": "cairo"},
        {"lon": -99.13, "lat": 19.43, "id": 7, "custom_data": {"note": "ünïcode \"quoted\""}},
        {"lon": 3.38, "lat": 6.52, "id": "lagos", "custom_data": {}},
        {"lon": 2.35, "lat": 48.86, "id": "paris", "custom_data": {"nested": {"deep": [1, 2.5]}}},
        {"lon": -74.01, "lat": 40.71, "id": "new-york"},
        {"lon": 72.88, "lat": 19.08, "id": "mumbai", "custom_data": {"n": null}}
    ]})
}

/// Rules that fire on small changes over long horizons, so that alerts are likely.
pub(crate) fn add_sensitive_rules(deployment: &Deployment, key: &Key) {
    deployment.add_rule(key, "aq", "24h", "high");
    deployment.add_rule(key, "aq", "96h", "high");
    deployment.add_rule(key, "pollen", "2d", "high");
}

/// How the output file is fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Files {
    /// The server's own signed URLs, with the API's error envelope.
    Local,
    /// Presigned URLs of an S3 bucket.
    S3,
}

/// Posts the points, returns the token of the 200.
pub(crate) async fn post_points(server: &Server, key: &Key) -> String {
    let reply = post_json(&client(), server, &key.key, &points()).await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let body = reply.json();
    assert_eq!(body["metadata"], Value::Null, "{body}");
    assert_eq!(body["error"], Value::Null, "{body}");
    let token = body["data"]["token"].as_str().unwrap().to_owned();
    let uuid = uuid::Uuid::parse_str(&token).unwrap();
    assert_eq!(
        uuid.get_version_num(),
        7,
        "the token is a time-ordered (v7) UUID: {token}"
    );
    token
}

/// From a key with sensitive rules and a webhook on `receiver` to a checked file: posts the
/// points, waits for the delivery, and checks the delivery, the file and a tampered URL.
/// Returns the token and the file URL.
pub(crate) async fn run_end_to_end(
    deployment: &Deployment,
    server: &Server,
    key: &Key,
    receiver: &Receiver,
    files: Files,
) -> (String, String) {
    let token = post_points(server, key).await;
    let delivery = receiver.delivery_for(&token).await;
    check_delivery(&delivery, key, &token);
    let url = delivery.json["URL"].as_str().unwrap().to_owned();

    let record = eventually("the alert count in list-deliveries", || {
        let record = deployment.delivery_record(key, &token);
        record["alerts"].is_u64().then_some(record)
    })
    .await;
    let alerts = record["alerts"].as_u64().unwrap();
    assert_eq!(record["points"], 8, "{record}");

    let file = fetch_file(&url, files).await;
    check_file(&file, alerts);
    check_tampered_url(&url, files).await;
    (token, url)
}

pub(crate) fn check_delivery(delivery: &test_support::receiver::Delivery, key: &Key, token: &str) {
    assert_eq!(
        delivery.verified,
        Some(Ok(())),
        "the signature verifies with the key's secret"
    );
    assert_eq!(delivery.path, "/hook");
    assert!(
        delivery.headers.contains_key("insights-data-source"),
        "a delivery names the source of its alerts: {:?}",
        delivery.headers
    );
    let uuid: alerts_core::ids::Token = token.parse().unwrap();
    assert_eq!(
        delivery.id,
        message_id(uuid),
        "webhook-id derives from the token"
    );
    let mut members: Vec<&str> = delivery
        .json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    members.sort_unstable();
    assert_eq!(members, ["KEY", "TOKEN", "URL"], "{}", delivery.json);
    assert_eq!(delivery.json["TOKEN"], token);
    assert_eq!(delivery.json["KEY"], key.prefix.as_str());
    assert!(
        !String::from_utf8_lossy(&delivery.body).contains(&key.key),
        "a delivery never carries the full key"
    );
}

pub(crate) async fn fetch_file(url: &str, files: Files) -> bytes::Bytes {
    let client = client();
    let reply = Reply::read(client.get(url).send().await.unwrap()).await;
    assert_eq!(
        reply.status,
        200,
        "GET {url}: {}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.header("content-type"), Some("application/x-ndjson"));
    // Every download names the source of its alerts: the server's header, or S3's metadata.
    let label = match files {
        Files::Local => reply.header("insights-data-source"),
        Files::S3 => reply.header("x-amz-meta-insights-data-source"),
    };
    assert!(label.is_some(), "GET {url}: no data source");
    if files == Files::Local {
        // A presigned S3 URL is signed for GET only; HEAD is the server's own promise.
        let head = Reply::read(client.head(url).send().await.unwrap()).await;
        assert_eq!(head.status, 200);
        assert_eq!(head.header("content-type"), Some("application/x-ndjson"));
        assert_eq!(
            head.header("content-length"),
            Some(reply.body.len().to_string().as_str())
        );
        assert!(head.body.is_empty());
    }
    reply.body
}

/// One valid line per alert, each with exactly the spec's members, about a posted point, its
/// `custom_data` echoed as JSON text.
fn check_file(file: &[u8], alerts: u64) {
    assert_eq!(count_lines(file), alerts, "one line per alert");
    assert!(
        file.is_empty() || file.ends_with(b"\n"),
        "lines end with \\n"
    );
    let text = std::str::from_utf8(file).unwrap();
    let posted: HashMap<String, Value> = points()["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let id = match &p["id"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (id, p.clone())
        })
        .collect();
    for line in text.lines() {
        let object: Value = serde_json::from_str(line).unwrap();
        let mut members: Vec<&str> = object
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected: Vec<&str> = LINE_MEMBERS
            .iter()
            .chain(&PROGRAM_MEMBERS)
            .copied()
            .collect();
        members.sort_unstable();
        expected.sort_unstable();
        assert_eq!(members, expected, "{line}");
        // The spec's members come first and in its order, the members for programs after.
        let positions: Vec<usize> = LINE_MEMBERS
            .iter()
            .chain(&PROGRAM_MEMBERS)
            .map(|m| line.find(&format!("\"{m}\":")).unwrap())
            .collect();
        assert!(positions.is_sorted(), "{line}");
    }
    let lines = decode_all(file).unwrap();
    assert_eq!(lines.len() as u64, alerts);
    for line in &lines {
        let point = posted
            .get(&line.id)
            .unwrap_or_else(|| panic!("{} is not a posted id", line.id));
        assert_eq!(line.lat, point["lat"].as_f64().unwrap());
        assert_eq!(line.lon, point["lon"].as_f64().unwrap());
        assert!(!line.description.is_empty() && !line.recommendation.is_empty());
        let echoed: Value = serde_json::from_str(&line.custom_data).unwrap();
        let sent = point.get("custom_data").cloned().unwrap_or(json!({}));
        assert_eq!(echoed, sent, "custom_data of {}", line.id);
    }
}

async fn check_tampered_url(url: &str, files: Files) {
    // The last hex digit of the signature, changed.
    let mut tampered = url.to_owned();
    let at = match files {
        Files::Local => {
            let start = tampered.find("signature=").unwrap() + "signature=".len();
            start
                + tampered[start..]
                    .find('&')
                    .unwrap_or(tampered.len() - start)
                - 1
        }
        Files::S3 => {
            let start = tampered.find("X-Amz-Signature=").unwrap() + "X-Amz-Signature=".len();
            start
                + tampered[start..]
                    .find('&')
                    .unwrap_or(tampered.len() - start)
                - 1
        }
    };
    let flipped = if &tampered[at..=at] == "0" { "1" } else { "0" };
    tampered.replace_range(at..=at, flipped);
    let reply = Reply::read(client().get(&tampered).send().await.unwrap()).await;
    assert_eq!(reply.status, 403, "{tampered}");
    if files == Files::Local {
        reply.assert_error(403, "forbidden", &["signature"]);
        // An expiry moved is a changed URL: refused for its signature before its time is
        // looked at. (Expiry itself is covered by the signer's own tests: nobody waits 15
        // minutes here.)
        let start = url.find("expires=").unwrap() + "expires=".len();
        let end = start + url[start..].find('&').unwrap();
        let moved = format!("{}1000{}", &url[..start], &url[end..]);
        let reply = Reply::read(client().get(&moved).send().await.unwrap()).await;
        reply.assert_error(403, "forbidden", &["signature"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn points_posted_lead_to_a_signed_delivery_and_a_valid_file() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_sensitive_rules(&deployment, &key);
    let server = deployment.serve(&[]);
    let (token, url) = run_end_to_end(&deployment, &server, &key, &receiver, Files::Local).await;

    let metrics = Reply::read(client().get(server.url("/metrics")).send().await.unwrap()).await;
    let metrics = String::from_utf8_lossy(&metrics.body).into_owned();
    assert!(
        metrics.contains("insights_webhook_deliveries_total{outcome=\"delivered\"} 1"),
        "{metrics}"
    );

    // Once the file is gone (retention), its URL, still validly signed, answers 404.
    let name = format!("{token}.ndjson");
    let path = find_file(deployment.path(), &name).unwrap_or_else(|| panic!("no {name}"));
    std::fs::remove_file(path).unwrap();
    let reply = Reply::read(client().get(&url).send().await.unwrap()).await;
    reply.assert_error(404, "not_found", &["gone"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_us_epa_rule_delivers_the_us_aqi_of_the_demo_fields_concentrations() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.admin(&[
        "add-rule",
        "--key",
        &key.id,
        "--type",
        "aq",
        "--forecast",
        "96h",
        "--sensitivity",
        "high",
        "--aq-index",
        "us-epa",
    ]);
    let server = deployment.serve(&[]);
    let token = post_points(&server, &key).await;
    let delivery = receiver.delivery_for(&token).await;
    let file = fetch_file(delivery.json["URL"].as_str().unwrap(), Files::Local).await;
    let lines = decode_all(&file).unwrap();
    assert!(
        !lines.is_empty(),
        "the city cycles trip a high-sensitivity rule"
    );
    for line in &lines {
        // The demo field gives every hour's concentrations, so a number is always computable.
        let number = line
            .description
            .strip_prefix("In ")
            .and_then(|d| d.split_once("(US AQI "))
            .and_then(|(_, rest)| rest.strip_suffix(")."))
            .and_then(|n| n.parse::<u32>().ok());
        assert!(number.is_some_and(|n| n <= 500), "{}", line.description);
    }
}

/// Adds an `aq 96h high` and a `pollen 2d high` rule for `audience`, whose custom descriptions
/// start with the audience and name the category reached, so that each line tells which rule
/// it came from and what its recommendation must be.
fn add_rules_for(deployment: &Deployment, key: &Key, audience: &str) {
    for (data_type, forecast, worse, better) in [
        // The advice is for the worst of the change: its peak's category.
        (
            "aq",
            "96h",
            "worse to {peak_category}",
            "better to {peak_category}",
        ),
        (
            "pollen",
            "2d",
            "{kind} up to {peak_category}",
            "{kind} down to {peak_category}",
        ),
    ] {
        deployment.admin(&[
            "add-rule",
            "--key",
            &key.id,
            "--type",
            data_type,
            "--forecast",
            forecast,
            "--sensitivity",
            "high",
            "--deterioration",
            &format!("{audience}: {worse}"),
            "--improvement",
            &format!("{audience}: {better}"),
            "--audience",
            audience,
        ]);
    }
}

/// The recommendation the general population got before audiences existed, for a line whose
/// description (after the audience) is `rest`.
fn todays_general_advice(rest: &str) -> &'static str {
    match rest
        .rsplit_once(" to ")
        .map(|(how, to)| (how.rsplit(' ').next(), to))
    {
        Some((Some("worse"), "Excellent" | "Good")) => {
            "Air quality stays good for most people; no change to outdoor plans is needed."
        }
        Some((Some("worse"), "Moderate")) => {
            "People sensitive to air pollution should consider shorter or lighter outdoor activity."
        }
        Some((Some("worse"), "Low")) => {
            "Limit prolonged or heavy outdoor exertion, especially if you are sensitive to air pollution."
        }
        Some((Some("worse"), "Poor")) => {
            "Avoid strenuous outdoor activity; move exercise indoors and keep windows closed."
        }
        // The band above "Very poor" came after audiences; its general advice is its own.
        Some((Some("worse"), "Extremely poor")) => {
            "Air pollution is extreme: everyone should avoid outdoor physical activity, stay indoors with windows closed and use an air purifier if you have one."
        }
        Some((Some("better"), "Excellent" | "Good")) => {
            "A good time for outdoor activity and for airing your home."
        }
        Some((Some("better"), "Moderate")) => {
            "Air quality is improving; most people can resume normal outdoor activity."
        }
        Some((Some("better"), "Low" | "Poor" | "Extremely poor")) => {
            "Air quality is improving but still unhealthy; keep limiting prolonged outdoor exertion."
        }
        Some((Some("up"), "None" | "Very low" | "Low")) => {
            "Pollen stays low; most allergy sufferers will not be affected."
        }
        Some((Some("up"), "Moderate")) => "Allergy sufferers should keep their medication at hand.",
        Some((Some("up"), "High" | "Very high")) => {
            "Allergy sufferers should take their medication early, limit time outdoors and keep windows closed."
        }
        Some((Some("down"), "None" | "Very low" | "Low")) => {
            "A good time for outdoor activity, even with a pollen allergy."
        }
        Some((Some("down"), "Moderate")) => {
            "Pollen is easing but still moderate; allergy sufferers should stay prepared."
        }
        Some((Some("down"), "High" | "Very high")) => {
            "Pollen is easing but remains high; allergy sufferers should keep taking precautions."
        }
        _ => panic!("unexpected description {rest}"),
    }
}

/// The athletes' recommendation for a line whose description (after the audience) is `rest`.
fn athletes_advice(rest: &str) -> &'static str {
    use alerts_core::advice::{aq_advice, pollen_advice};
    use alerts_core::change::Direction;
    use alerts_core::rule::Audience;
    let (how, to) = rest.rsplit_once(" to ").unwrap();
    let direction = match how.rsplit(' ').next() {
        Some("worse" | "up") => Direction::Deterioration,
        _ => Direction::Improvement,
    };
    if how.starts_with("worse") || how.starts_with("better") {
        let category = aq_core::CiCategory::ALL
            .into_iter()
            .find(|c| c.name() == to)
            .unwrap_or_else(|| panic!("no category {to}"));
        aq_advice(
            i18n_core::Language::English,
            Audience::Athletes,
            direction,
            category,
        )
    } else {
        let level = (0..=5)
            .map(|v| aq_core::PollenLevel::new(v).unwrap())
            .find(|l| l.name() == to)
            .unwrap_or_else(|| panic!("no level {to}"));
        pollen_advice(
            i18n_core::Language::English,
            Audience::Athletes,
            direction,
            level,
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_audience_gets_its_own_recommendation_and_the_general_one_todays() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_rules_for(&deployment, &key, "general");
    add_rules_for(&deployment, &key, "athletes");
    let server = deployment.serve(&[]);
    let token = post_points(&server, &key).await;
    let delivery = receiver.delivery_for(&token).await;
    let file = fetch_file(delivery.json["URL"].as_str().unwrap(), Files::Local).await;
    let lines = decode_all(&file).unwrap();

    let mut general = Vec::new();
    let mut athletes = Vec::new();
    for line in &lines {
        let (audience, rest) = line.description.split_once(": ").unwrap();
        let (expected, seen) = match audience {
            "general" => (todays_general_advice(rest), &mut general),
            "athletes" => (athletes_advice(rest), &mut athletes),
            other => panic!("no rule for {other}"),
        };
        assert_eq!(line.recommendation, expected, "{}", line.description);
        if audience == "athletes" {
            assert_ne!(
                line.recommendation,
                todays_general_advice(rest),
                "{}",
                line.description
            );
        }
        seen.push((line.id.clone(), line.data_type, rest.to_owned()));
    }
    assert!(
        general
            .iter()
            .any(|(_, t, _)| *t == alerts_core::rule::DataType::Aq),
        "the city cycles trip a high-sensitivity rule: {lines:?}"
    );
    // The same changes fired for both audiences; only the advice differs.
    assert_eq!(general, athletes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_in_german_writes_its_alerts_in_german_and_programs_read_the_same_members() {
    use alerts_core::advice::aq_advice;
    use alerts_core::rule::Audience;
    use i18n_core::Language;

    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    for language in ["en", "de"] {
        deployment.admin(&[
            "add-rule",
            "--key",
            &key.id,
            "--type",
            "aq",
            "--forecast",
            "96h",
            "--sensitivity",
            "high",
            "--language",
            language,
        ]);
    }
    let server = deployment.serve(&[]);
    let token = post_points(&server, &key).await;
    let delivery = receiver.delivery_for(&token).await;
    let file = fetch_file(delivery.json["URL"].as_str().unwrap(), Files::Local).await;
    let lines = decode_all(&file).unwrap();
    let (german, english): (Vec<_>, Vec<_>) = lines
        .iter()
        .partition(|l| l.details.as_ref().unwrap().language == Language::German);
    assert!(
        !german.is_empty(),
        "the city cycles trip a high-sensitivity rule: {lines:?}"
    );
    assert_eq!(
        german.len(),
        english.len(),
        "the same changes in both languages"
    );
    for line in &german {
        let details = line.details.as_ref().unwrap();
        let twin = english
            .iter()
            .find(|e| {
                let d = e.details.as_ref().unwrap();
                e.id == line.id && d.starts_at == details.starts_at && d.peak == details.peak
            })
            .unwrap_or_else(|| panic!("no English line for {line:?}"));
        assert_eq!(twin.details.as_ref().unwrap().language, Language::English);
        assert_ne!(line.description, twin.description);
        assert!(
            line.description.contains("Luftqualität"),
            "{}",
            line.description
        );
        let category = aq_core::CiCategory::ALL
            .into_iter()
            .find(|c| c.name() == details.peak.category)
            .unwrap_or_else(|| panic!("members for programs keep English names: {details:?}"));
        let direction = details.direction;
        assert_eq!(
            line.recommendation,
            aq_advice(Language::German, Audience::General, direction, category)
        );
        assert_ne!(
            line.recommendation,
            aq_advice(Language::English, Audience::General, direction, category)
        );
    }
    assert!(
        file.windows(br#""language":"de""#.len())
            .any(|w| w == br#""language":"de""#),
        "the file says each line's language"
    );
}

fn find_file(dir: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.is_dir() {
            if let Some(found) = find_file(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

/// `n` points around the cities of [`points`], each with an id and `custom_data` of its own.
fn many_points(n: usize) -> Value {
    let cities = points();
    let cities = cities["points"].as_array().unwrap();
    let points: Vec<Value> = (0..n)
        .map(|i| {
            let city = &cities[i % cities.len()];
            let nudge = (i / cities.len()) as f64 * 1e-4;
            json!({
                "lon": city["lon"].as_f64().unwrap() + nudge,
                "lat": city["lat"].as_f64().unwrap() - nudge,
                "id": format!("large-{i}"),
                "custom_data": {"i": i, "note": "spooled \"large\" request"},
            })
        })
        .collect();
    json!({ "points": points })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_request_is_stored_whole_and_its_retry_is_recognised() {
    const N: usize = 6_000;
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_sensitive_rules(&deployment, &key);
    let server = deployment.serve(&[]);

    let body = many_points(N);
    let bytes = serde_json::to_vec(&body).unwrap();
    assert!(
        bytes.len() > 512 * 1024,
        "the body ({} bytes) is well over what the server keeps in memory",
        bytes.len()
    );
    let post = |bytes: Vec<u8>| {
        let url = server.api(&key.key);
        async move {
            let sent = client()
                .post(url)
                .header("content-type", "application/json")
                .header("idempotency-key", "large-1")
                .body(bytes)
                .send()
                .await
                .unwrap();
            Reply::read(sent).await
        }
    };

    let first = post(bytes.clone()).await;
    assert_eq!(
        first.status,
        200,
        "{}",
        String::from_utf8_lossy(&first.body)
    );
    let token = first.json()["data"]["token"].as_str().unwrap().to_owned();
    let delivery = receiver.delivery_for(&token).await;
    check_delivery(&delivery, &key, &token);
    let record = eventually("the alert count in list-deliveries", || {
        let record = deployment.delivery_record(&key, &token);
        record["alerts"].is_u64().then_some(record)
    })
    .await;
    assert_eq!(record["points"], N, "every point is stored: {record}");

    // Every line is about a posted point, with that point's own custom_data, in posting order.
    let url = delivery.json["URL"].as_str().unwrap();
    let file = fetch_file(url, Files::Local).await;
    let lines = decode_all(&file).unwrap();
    assert!(
        !lines.is_empty(),
        "sensitive rules on {N} city points raise alerts"
    );
    let mut last = 0;
    for line in &lines {
        let i: usize = line.id.strip_prefix("large-").unwrap().parse().unwrap();
        let sent = &body["points"][i];
        assert_eq!(
            (line.lon, line.lat),
            (sent["lon"].as_f64().unwrap(), sent["lat"].as_f64().unwrap())
        );
        let echoed: Value = serde_json::from_str(&line.custom_data).unwrap();
        assert_eq!(echoed, sent["custom_data"], "custom_data of {}", line.id);
        assert!(
            i >= last,
            "lines follow the posting order ({i} after {last})"
        );
        last = i;
    }

    let retry = post(bytes).await;
    assert_eq!(
        retry.status,
        200,
        "{}",
        String::from_utf8_lossy(&retry.body)
    );
    assert_eq!(
        retry.json()["data"]["token"],
        token.as_str(),
        "a retry names the first request"
    );
    assert_eq!(retry.header("idempotent-replayed"), Some("true"));

    let mut changed = body.clone();
    changed["points"][N - 1]["custom_data"]["i"] = json!(-1);
    let reused = post(serde_json::to_vec(&changed).unwrap()).await;
    reused.assert_error(422, "idempotency_key_reused", &["Idempotency-Key"]);
}
