//! The route playground in a real browser (see [`crate::browser`]): routes drawn on its map by
//! clicks and scored, points written latitude first named, and walks planned on a server's
//! streets by two clicks.

use serde_json::json;

use crate::browser::{
    Chromedriver, accessibility_violations, click, count, fill, js, keyboard, look, sign_up,
    text_of, wait_for_count, wait_for_text,
};
use crate::harness::Deployment;

/// Drawing: the mode chosen, three clicks draw a route, "Start another route" and two more draw
/// a second; the request's text posts both, `[longitude, latitude]`, and they come back scored.
/// Then a route written latitude first is scored where it says, and named as probably swapped.
#[tokio::test]
async fn routes_drawn_by_clicks_are_scored_and_points_written_latitude_first_are_named() {
    let Some(chromedriver) = Chromedriver::start().await else {
        return;
    };
    let deployment = Deployment::new();
    let server = deployment.serve(&[]);
    let driver = chromedriver.browser().await;
    sign_up(&driver, &server, "drawer@example.org").await;
    driver
        .goto(server.url("/dashboard/playground"))
        .await
        .unwrap();
    wait_for_count(&driver, &count("#playground-map .leaflet-pane"), 1).await;
    assert_eq!(
        js(
            &driver,
            "return document.getElementById('draw-next').hidden;"
        )
        .await,
        json!(true),
        "the drawing's buttons wait for drawing to be chosen"
    );
    click(&driver, "#plan-mode option[value=draw]").await;
    assert_eq!(
        js(
            &driver,
            "return document.getElementById('draw-next').hidden;"
        )
        .await,
        json!(false)
    );
    js(
        &driver,
        "const m = document.getElementById('playground-map').leafletMap;\
         m.setView([52.512, 13.356], 14);\
         for (const p of [[52.5070, 13.3350], [52.5120, 13.3450], [52.5163, 13.3777]])\
           m.fire('click', {latlng: L.latLng(p[0], p[1])});\
         document.getElementById('draw-next').click();\
         for (const p of [[52.5070, 13.3350], [52.5163, 13.3777]])\
           m.fire('click', {latlng: L.latLng(p[0], p[1])});\
         return true;",
    )
    .await;
    let request = js(
        &driver,
        "return JSON.parse(document.getElementById('request').value);",
    )
    .await;
    assert_eq!(request["durationUnits"], json!("s"), "{request}");
    let routes = request["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 2, "{request}");
    assert_eq!(
        routes[0]["polyline"],
        json!([[13.335, 52.507], [13.345, 52.512], [13.3777, 52.5163]]),
        "longitude first, as the API reads points"
    );
    assert_eq!(routes[1]["polyline"].as_array().unwrap().len(), 2);
    // Walking pace: the second route, about 3 km, takes about 40 minutes.
    let seconds = routes[1]["routeDuration"].as_f64().unwrap();
    assert!((1_800.0..3_000.0).contains(&seconds), "{request}");
    assert_eq!(
        js(&driver, &count("#playground-map path.drawn-route")).await,
        json!(2),
        "each route drawn as it is clicked"
    );
    look(&driver, "10-playground-drawing").await;
    click(
        &driver,
        "form[action='/dashboard/playground'] button[type=submit]",
    )
    .await;
    wait_for_text(&driver, "#results", "Route").await;
    assert_eq!(
        js(&driver, &count("#results-table tr.result")).await,
        json!(2),
        "both drawn routes scored"
    );
    assert_eq!(
        js(&driver, &count(".order-hint")).await,
        json!(0),
        "points in the right order get no hint"
    );

    // Berlin, latitude first: valid either way, but as written it is off the coast of Yemen.
    fill(
        &driver,
        "#request",
        r#"{"routesSort": "desc", "routes": [{"id": "swapped", "routeDuration": 30, "polyline": [[52.5070, 13.3350], [52.5163, 13.3777]]}]}"#,
    )
    .await;
    click(
        &driver,
        "form[action='/dashboard/playground'] button[type=submit]",
    )
    .await;
    let hint = wait_for_text(&driver, "#map-section .order-hint", "Route swapped").await;
    assert!(hint.contains("[latitude, longitude]"), "{hint}");
    look(&driver, "11-playground-swapped").await;

    // The checks every page passes can fail: a button Tab skips, a field without a label and
    // grey text on white are found.
    js(
        &driver,
        "const main = document.querySelector('main');\
         const b = document.createElement('button'); b.id = 'skipped'; b.tabIndex = -1; b.textContent = 'Skipped';\
         const i = document.createElement('input'); i.id = 'unlabelled';\
         const p = document.createElement('p'); p.id = 'faint'; p.style.color = '#c8c8c8'; p.textContent = 'Hard to read';\
         main.prepend(b, i, p); window.scrollTo(0, 0); return true;",
    )
    .await;
    let violations = accessibility_violations(&driver).await.to_string();
    assert!(
        violations.contains("color-contrast") && violations.contains("#faint"),
        "{violations}"
    );
    assert!(violations.contains("#unlabelled"), "{violations}");
    let keys = keyboard(&driver).await;
    assert_eq!(keys.missed, vec!["button#skipped".to_owned()]);
}

/// Two clicks on the playground's map, on a server with central Helsinki's streets, plan walks
/// between them: the routes come back drawn, scored and recommended, the fastest named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clicks_on_the_playground_map_plan_walks_on_the_streets() {
    let Some(python) = test_support::osm::python() else {
        return;
    };
    let extract = test_support::osm::extract(&python, "Helsinki.osm.pbf");
    let Some(chromedriver) = Chromedriver::start().await else {
        return;
    };
    let deployment = Deployment::new();
    let server = deployment.serve(&["--roads", extract.to_str().unwrap()]);
    let driver = chromedriver.browser().await;
    sign_up(&driver, &server, "planner@example.org").await;

    driver
        .goto(server.url("/dashboard/playground"))
        .await
        .unwrap();
    wait_for_count(&driver, &count("#playground-map .leaflet-pane"), 1).await;
    js(
        &driver,
        "const m = document.getElementById('playground-map').leafletMap;\
         m.setView([60.171, 24.946], 15);\
         m.fire('click', {latlng: L.latLng(60.1650, 24.9400)});\
         m.fire('click', {latlng: L.latLng(60.1780, 24.9520)});\
         return true;",
    )
    .await;
    let recommendations = wait_for_text(&driver, "#recommendations", "quickest").await;
    assert!(recommendations.contains("Route 1"), "{recommendations}");
    let dose = text_of(&driver, "#results-table td[data-label='Dose']").await;
    assert!(dose.ends_with("µg"), "the dose in its column: {dose}");
    wait_for_count(&driver, &count("#playground-map path.route"), 1).await;
    let request = js(&driver, "return document.getElementById('request').value;").await;
    let request = request.as_str().unwrap();
    assert!(
        request.contains("\"origin\"") && request.contains("\"walk\""),
        "{request}"
    );
    // The server's streets drawn under the routes at city zoom, credited to OpenStreetMap.
    js(
        &driver,
        "document.getElementById('playground-map').leafletMap.setView([60.1700, 24.9450], 16); return true;",
    )
    .await;
    wait_for_count(
        &driver,
        &count("#playground-map .leaflet-streets-pane path.street"),
        3,
    )
    .await;
    assert_eq!(
        js(
            &driver,
            "const p = [...document.querySelectorAll('#playground-map .leaflet-streets-pane path.street')];\
             const kinds = new Set(p.map((e) => [...e.classList].find((c) => c.startsWith('street-'))));\
             return [p.length === kinds.size, kinds.has(undefined)];"
        )
        .await,
        json!([true, false]),
        "one path per class of road"
    );
    assert_eq!(
        js(
            &driver,
            "return document.querySelector('#playground-map .leaflet-control-attribution').textContent.includes('OpenStreetMap');"
        )
        .await,
        json!(true)
    );
    look(&driver, "9-playground-planned").await;
    // The streets' own answers: a wide circle and a bad place are refused, naming the parameter.
    let refusals = driver
        .execute_async(
            "const done = arguments[arguments.length - 1];\
             Promise.all(['lat=60.17&lon=24.94&radius=50000', 'lat=160&lon=24.94&radius=10', 'lat=60.17&lon=24.94&radius=300']\
               .map((q) => fetch('/dashboard/streets?' + q).then(async (r) => [r.status, await r.json()])))\
               .then(done);",
            Vec::new(),
        )
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(refusals[0][0], json!(400), "{refusals}");
    assert!(
        refusals[0][1]["detail"]
            .as_str()
            .unwrap()
            .starts_with("radius:"),
        "{refusals}"
    );
    assert_eq!(refusals[1][0], json!(400), "{refusals}");
    assert!(
        refusals[1][1]["detail"]
            .as_str()
            .unwrap()
            .starts_with("lat, lon:"),
        "{refusals}"
    );
    assert_eq!(refusals[2][0], json!(200), "{refusals}");
    assert!(
        !refusals[2][1]["stretches"].as_array().unwrap().is_empty(),
        "{refusals}"
    );

    // A trip the server cannot plan is refused at the form, in words.
    fill(
        &driver,
        "#request",
        r#"{"origin": [13.40, 52.52], "destination": [13.41, 52.52], "travelMode": "walk", "routesSort": "desc"}"#,
    )
    .await;
    click(
        &driver,
        "form[action='/dashboard/playground'] button[type=submit]",
    )
    .await;
    let refusal = wait_for_text(&driver, "main", "could not plan this trip").await;
    assert!(refusal.contains("origin"), "{refusal}");
}
