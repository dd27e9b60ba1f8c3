//! The dashboard in a real browser (see [`crate::browser`]). A newcomer's whole path: sign up,
//! create a key, set the webhook URL, add a custom alert, post points with the key, and see the
//! delivery in the log and its charts; then a place's forecast picked on the map, and the
//! playground's sample on the map over the heatmap. Each page is kept as a screenshot among the
//! run's artefacts and checked for accessibility (axe-core's WCAG 2.1 A and AA rules, and Tab
//! through its controls).

use std::time::{Duration, Instant};

use serde_json::json;
use thirtyfour::prelude::*;

use crate::browser::{
    Chromedriver, click, count, fill, js, look, text_of, wait_for_count, wait_for_text,
};
use crate::harness::{Deployment, PATIENCE, client, post_json};
use test_support::receiver::Receiver;

#[tokio::test]
async fn a_newcomer_configures_alerts_in_the_browser_and_sees_the_delivery() {
    let Some(chromedriver) = Chromedriver::start().await else {
        return;
    };
    let deployment = Deployment::new();
    let server = deployment.serve(&[]);
    let driver = chromedriver.browser().await;

    driver.goto(server.url("/dashboard/signup")).await.unwrap();
    look(&driver, "1-signup").await;
    fill(&driver, "#email", "newcomer@example.org").await;
    fill(&driver, "#password", "a long enough password").await;
    click(
        &driver,
        "form[action='/dashboard/signup'] button[type=submit]",
    )
    .await;

    // Signing up lands on the welcome page, whose first step leads to the keys.
    let welcome = wait_for_text(&driver, "ol.steps", "Create an API key").await;
    assert!(
        welcome.contains("Set the key's webhook") && welcome.contains("Add an alert rule"),
        "{welcome}"
    );
    look(&driver, "2-welcome").await;
    click(&driver, "ol.steps a[href='/dashboard/keys']").await;
    fill(&driver, "#label", "browser").await;
    js(&driver, "window.notReloaded = true; return true;").await;
    click(
        &driver,
        "form[action='/dashboard/keys'] button[type=submit]",
    )
    .await;
    let key = text_of(&driver, "#new-key-text").await;
    // Created in place, the new key taking the focus.
    assert_eq!(
        js(
            &driver,
            "return [window.notReloaded === true, document.activeElement.id];"
        )
        .await,
        json!([true, "new-key"])
    );
    assert!(key.starts_with("ik_"), "the new key is shown: {key}");
    // The sample command calls this server, with the key in its header.
    let curl = text_of(&driver, "#new-key-curl").await;
    assert!(
        curl.contains(&format!("{}/insights/v1/conditions", server.base))
            && curl.contains(&format!("X-Api-Key: {key}")),
        "{curl}"
    );
    look(&driver, "3-keys").await;

    driver.goto(server.url("/dashboard/alerts")).await.unwrap();
    let secret = text_of(&driver, "#secret-text").await;
    let receiver = Receiver::verifying(&secret).await;
    fill(&driver, "#url", &receiver.url("/hook")).await;
    js(&driver, "window.notReloaded = true; return true;").await;
    click(
        &driver,
        "form[action='/dashboard/alerts/webhook'] button[type=submit]",
    )
    .await;
    // Saving redirects to the key's own settings page: wait for it, so that the save has
    // happened before the test reads the field or leaves the page.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !driver
        .current_url()
        .await
        .unwrap()
        .as_str()
        .contains("?key=")
    {
        assert!(
            Instant::now() < deadline,
            "saving the webhook URL never redirected"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let saved = driver
        .query(By::Css("#url"))
        .first()
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap();
    assert_eq!(saved.as_deref(), Some(receiver.url("/hook").as_str()));
    // Saved in place: the message at the form, the page never left.
    let said = wait_for_text(&driver, "#webhook p.notice", "Webhook URL saved.").await;
    assert!(said.contains("saved"), "{said}");
    assert_eq!(
        js(&driver, "return window.notReloaded === true;").await,
        json!(true)
    );
    look(&driver, "3b-webhook").await;
    // A test delivery reaches the receiver, and says so in place.
    click(
        &driver,
        "form[action='/dashboard/alerts/test'] button[type=submit]",
    )
    .await;
    let tested = wait_for_text(&driver, "#test-result", "succeeded").await;
    assert!(tested.contains("HTTP 204"), "{tested}");

    driver.goto(server.url("/dashboard/rules")).await.unwrap();
    click(&driver, "#message option[value=custom]").await;
    fill(
        &driver,
        "#deterioration",
        "Air worse in {hours} hours ({aqi}).",
    )
    .await;
    fill(&driver, "#improvement", "Air better in {hours} hours.").await;
    js(&driver, "window.notReloaded = true; return true;").await;
    click(&driver, "button[name=action][value=preview]").await;
    // The preview shows the custom description, in the page, and takes the focus.
    wait_for_text(&driver, "#preview", "Air worse in 6 hours").await;
    assert_eq!(
        js(
            &driver,
            "return [window.notReloaded === true, document.activeElement.id];"
        )
        .await,
        json!([true, "preview"]),
        "the preview answered in place"
    );
    look(&driver, "4-alert-preview").await;
    click(&driver, "button[name=action][value=save]").await;
    // The custom alert is listed, and the page says so at the form without a reload.
    wait_for_text(&driver, "#rules", "custom message").await;
    let said = wait_for_text(&driver, "p.notice[data-said]", "Alert added").await;
    assert!(said.contains("listed above"), "{said}");
    assert_eq!(
        js(&driver, "return window.notReloaded === true;").await,
        json!(true),
        "the alert was added in place"
    );
    look(&driver, "5-alerts").await;

    let reply = post_json(
        &client(),
        &server,
        &key,
        &json!({"points": [{"lon": 2.35, "lat": 48.86, "id": "paris"}]}),
    )
    .await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let token = reply.json()["data"]["token"].as_str().unwrap().to_owned();
    let delivery = receiver.delivery_for(&token).await;
    assert_eq!(
        delivery.verified,
        Some(Ok(())),
        "signed with the secret shown"
    );

    let deadline = Instant::now() + PATIENCE;
    loop {
        driver
            .goto(server.url("/dashboard/deliveries"))
            .await
            .unwrap();
        let log = text_of(&driver, "#deliveries").await;
        if log.contains(&token) && log.contains("delivered") {
            assert!(
                log.contains("HTTP 204"),
                "the attempt's status shows: {log}"
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the delivery did not appear in the log: {log}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Above the table, the key's activity: this request and its delivery on both windows.
    for chart in [
        "#chart-24h-requests",
        "#chart-24h-deliveries",
        "#chart-24h-latency",
        "#chart-7d-requests",
        "#chart-7d-deliveries",
    ] {
        let bars = js(&driver, &count(&format!("{chart} rect.bar"))).await;
        assert!(bars.as_u64().unwrap() >= 1, "{chart} draws a bar: {bars}");
    }
    let delivered = js(
        &driver,
        &count("#chart-24h-deliveries rect.bar[data-series='delivered (2xx)']"),
    )
    .await;
    assert_eq!(delivered, json!(1), "the delivery is drawn as delivered");
    driver
        .query(By::Css("#activity"))
        .first()
        .await
        .unwrap()
        .scroll_into_view()
        .await
        .unwrap();
    look(&driver, "6-deliveries").await;
    // The test delivery is listed too, marked as a test, without a redeliver button.
    let test_row = text_of(&driver, "#deliveries tr.delivery.test").await;
    assert!(
        test_row.contains("Test") && test_row.contains("HTTP 204"),
        "{test_row}"
    );
    assert_eq!(
        js(&driver, &count("#deliveries tr.delivery.test button")).await,
        json!(0)
    );
    // The delivery's alerts, a click away.
    click(
        &driver,
        "#deliveries a[href*='/dashboard/deliveries/alerts']",
    )
    .await;
    wait_for_text(&driver, "main", "Back to the deliveries").await;
    look(&driver, "6b-delivery-alerts").await;

    // A place's forecast: an alert that looks four days ahead at high sensitivity, chosen, and
    // a point picked by clicking the map.
    driver.goto(server.url("/dashboard/rules")).await.unwrap();
    wait_for_count(&driver, &count("#forecast-map img.leaflet-tile-loaded"), 1).await;
    // Marks on this page and on its map: a reload, or a map made again, would lose them.
    js(
        &driver,
        "window.notReloaded = true; document.getElementById('forecast-map').dataset.mark = 'kept'; return true;",
    )
    .await;
    click(&driver, "#forecast option[value='96h']").await;
    click(&driver, "#sensitivity option[value=high]").await;
    click(&driver, "button[name=action][value=save]").await;
    wait_for_text(&driver, "#rules", "96 hours").await;
    // Added in place: the map kept as it was, and the place's list of alerts offering the new
    // one.
    wait_for_text(&driver, "#forecast-rule", "96 hours").await;
    assert_eq!(
        js(
            &driver,
            "return [window.notReloaded === true, document.getElementById('forecast-map').dataset.mark];"
        )
        .await,
        json!([true, "kept"])
    );
    // Disabled and enabled again, each said at the list, the page kept.
    let row = "[...document.querySelectorAll('#rules tbody tr')].find(r => r.textContent.includes('96 hours'))";
    let toggle =
        format!("{row}.querySelector(\"form[action$='/toggle'] button\").click(); return true;");
    js(&driver, &toggle).await;
    wait_for_text(&driver, "#rules p.notice[data-said]", "Alert disabled").await;
    assert_eq!(
        js(
            &driver,
            &format!("return {row}.textContent.includes('Enable');")
        )
        .await,
        json!(true),
        "the row offers to enable it again"
    );
    js(&driver, &toggle).await;
    wait_for_text(&driver, "#rules p.notice[data-said]", "Alert enabled").await;
    assert_eq!(
        js(&driver, "return window.notReloaded === true;").await,
        json!(true)
    );
    let options = driver
        .query(By::Css("#forecast-rule option"))
        .all_from_selector()
        .await
        .unwrap();
    for option in options {
        if option.text().await.unwrap().contains("96 hours") {
            option.click().await.unwrap();
        }
    }
    wait_for_count(&driver, &count("#forecast-map img.leaflet-tile-loaded"), 1).await;
    // A mark on this page: a reload would lose it.
    js(&driver, "window.notReloaded = true; return true;").await;
    click(&driver, "#forecast-map").await;
    let chart = driver
        .query(By::Css("#forecast-chart"))
        .first()
        .await
        .unwrap();
    assert_eq!(
        js(
            &driver,
            "return [window.notReloaded === true, location.search.includes('lat=')];"
        )
        .await,
        json!([true, true]),
        "the click showed the place in the page, and the address names it"
    );
    assert_eq!(
        js(&driver, &count("#forecast-chart line.floor")).await,
        json!(1),
        "the floor, Extremely poor, is drawn"
    );
    assert_eq!(
        js(&driver, &count("#forecast-chart rect.band")).await,
        json!(5)
    );
    assert_eq!(
        js(&driver, &count("#forecast-chart path.ci-line")).await,
        json!(1)
    );
    assert_eq!(
        js(&driver, &count("#forecast-chart rect.threshold")).await,
        json!(1)
    );
    assert!(
        js(&driver, &count("#forecast-chart circle.fires"))
            .await
            .as_u64()
            .unwrap()
            >= 1,
        "the alert fires within four days of the demo field's daily rhythm"
    );
    assert!(
        js(&driver, &count("#pollen-chart rect.pollen-bar"))
            .await
            .as_u64()
            .unwrap()
            >= 1
    );
    let message = text_of(&driver, "#forecast-message").await;
    assert!(
        message.contains("In "),
        "the message it would send: {message}"
    );
    let picked = driver
        .query(By::Css("#forecast-lat"))
        .first()
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(
        picked.parse::<f64>().is_ok(),
        "the click filled in the point: {picked}"
    );
    // The picked place's map, at zoom 10 round it, labels the cities in view (GeoNames,
    // vendored): Berlin's dot and name, with the data's attribution.
    let cities = js(
        &driver,
        "const m = document.getElementById('forecast-map');\
         return [[...m.querySelectorAll('.leaflet-cities-pane .city')].map(c => c.textContent),\
                 m.querySelectorAll('.leaflet-cities-pane .city .city-dot').length,\
                 m.querySelector('.leaflet-control-attribution').textContent.includes('GeoNames, CC BY 4.0')];",
    )
    .await;
    let names: Vec<&str> = cities[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(names.contains(&"Berlin"), "{cities}");
    assert_eq!(cities[1], json!(names.len()), "a dot per city: {cities}");
    assert_eq!(cities[2], json!(true), "{cities}");
    chart.scroll_into_view().await.unwrap();
    look(&driver, "8-forecast").await;
    // With a place chosen, an alert changed in place redraws the place's forecast with the
    // alerts as they now are, at the same place.
    js(
        &driver,
        "document.getElementById('forecast-chart').dataset.mark = 'before'; return true;",
    )
    .await;
    js(&driver, &toggle).await;
    wait_for_text(&driver, "#rules p.notice[data-said]", "Alert disabled").await;
    wait_for_count(
        &driver,
        "return document.querySelector('#forecast-chart:not([data-mark])') ? 1 : 0;",
        1,
    )
    .await;
    assert_eq!(
        js(
            &driver,
            "return [window.notReloaded === true, location.search.includes('lat='), \
             document.getElementById('forecast-lat').value !== ''];"
        )
        .await,
        json!([true, true, true])
    );
    js(&driver, &toggle).await;
    wait_for_text(&driver, "#rules p.notice[data-said]", "Alert enabled").await;

    driver
        .goto(server.url("/dashboard/playground"))
        .await
        .unwrap();
    click(
        &driver,
        "form[action='/dashboard/playground'] button[type=submit]",
    )
    .await;
    wait_for_text(&driver, "#results", "Route").await;
    assert_eq!(
        js(&driver, &count("#playground-map path.route")).await,
        json!(3),
        "one outline per route"
    );
    assert!(
        js(&driver, &count("#playground-map path.route-sample"))
            .await
            .as_u64()
            .unwrap()
            > 3,
        "each route is coloured sample by sample"
    );
    let tiles = wait_for_count(
        &driver,
        &count("#playground-map img.leaflet-tile-loaded"),
        1,
    )
    .await;
    assert!(tiles >= 1);
    let sizes = js(
        &driver,
        "return [...document.querySelectorAll('#playground-map img.leaflet-tile-loaded')]\
           .map(i => i.naturalWidth + 'x' + i.naturalHeight)",
    )
    .await;
    assert!(
        sizes.as_array().unwrap().iter().all(|s| s == "256x256"),
        "heatmap tiles are 256 pixels: {sizes}"
    );
    // Natural Earth's land is drawn, offline, in a pane under the heatmap's tiles, and the
    // borders over them: the map can be placed without any basemap.
    let world = js(
        &driver,
        "const m = document.getElementById('playground-map');\
         const z = (name) => Number(getComputedStyle(m.querySelector('.leaflet-' + name + '-pane')).zIndex);\
         return [m.querySelectorAll('.leaflet-land-pane path.land').length,\
                 m.querySelectorAll('.leaflet-borders-pane path.border').length,\
                 z('land') < z('tile'), z('borders') > z('tile'),\
                 m.querySelector('.leaflet-control-attribution').textContent.includes('Natural Earth'),\
                 z('cities') > z('borders'), z('cities') < z('overlay'),\
                 m.querySelector('.leaflet-control-attribution').textContent.includes('GeoNames')];",
    )
    .await;
    let world = world.as_array().unwrap();
    assert!(world[0].as_u64().unwrap() >= 1, "land drawn: {world:?}");
    assert!(world[1].as_u64().unwrap() >= 1, "borders drawn: {world:?}");
    assert_eq!(
        world[2..],
        vec![json!(true); 6],
        "the cities' pane over the borders and under the routes: {world:?}"
    );
    // The three sample routes share both ends; their labels still never overlap.
    let overlaps = js(
        &driver,
        "const r = [...document.querySelectorAll('#playground-map .route-label')]\
           .map(e => e.getBoundingClientRect());\
         let n = 0;\
         for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++)\
           if (r[i].left < r[j].right && r[j].left < r[i].right &&\
               r[i].top < r[j].bottom && r[j].top < r[i].bottom) n++;\
         return [r.length, n];",
    )
    .await;
    assert_eq!(overlaps, json!([3, 0]), "three labels, none overlapping");
    assert_eq!(
        js(&driver, &count("#results-table tr.result")).await,
        json!(3)
    );
    assert!(text_of(&driver, "#recommendations").await.contains("route"));
    // The slider moves the heatmap to another hour.
    let before = text_of(&driver, "#hour-shown").await;
    js(
        &driver,
        "const s = document.getElementById('hour'); s.value = 6;\
         s.dispatchEvent(new Event('input')); return null;",
    )
    .await;
    let after = text_of(&driver, "#hour-shown").await;
    assert_ne!(before, after, "the hour shown follows the slider");
    js(
        &driver,
        "const s = document.getElementById('hour'); s.value = 0;\
         s.dispatchEvent(new Event('input')); return null;",
    )
    .await;
    wait_for_count(
        &driver,
        &count("#playground-map img.leaflet-tile-loaded"),
        1,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    look(&driver, "7-route-playground").await;
    driver
        .query(By::Css("#results"))
        .first()
        .await
        .unwrap()
        .scroll_into_view()
        .await
        .unwrap();
    look(&driver, "7b-route-playground-results").await;

    // The account: other sessions ended in place, the page's notice taking the focus.
    driver.goto(server.url("/dashboard/account")).await.unwrap();
    look(&driver, "12-account").await;
    js(&driver, "window.notReloaded = true; return true;").await;
    click(
        &driver,
        "form[action='/dashboard/account/sessions'] button[type=submit]",
    )
    .await;
    wait_for_text(&driver, "#account-notice", "signed out").await;
    assert_eq!(
        js(
            &driver,
            "return [window.notReloaded === true, document.activeElement.id];"
        )
        .await,
        json!([true, "account-notice"])
    );
    // A new password in place starts a new session; signing out still works from the page.
    fill(&driver, "#current_password", "a long enough password").await;
    fill(&driver, "#new_password", "another long enough password").await;
    click(
        &driver,
        "form[action='/dashboard/account/password'] button[type=submit]",
    )
    .await;
    wait_for_text(&driver, "#account-notice", "password").await;
    click(&driver, "form.signout button[type=submit]").await;
    wait_for_text(&driver, "main", "Sign in").await;
    assert!(
        driver
            .current_url()
            .await
            .unwrap()
            .path()
            .ends_with("/signin"),
        "signed out"
    );
    // Closing the browser is tidying, not what this test promises: on a loaded machine the
    // driver can answer it late or with an error, and the driver is killed when dropped anyway.
    if let Err(error) = driver.quit().await {
        eprintln!("the browser did not close cleanly: {error}");
    }
}
