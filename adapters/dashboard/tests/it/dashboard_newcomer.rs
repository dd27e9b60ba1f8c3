//! What a newcomer finds: a welcome with the next steps, ticked off as they are done; pages
//! named by what they hold, the API reference in the navigation and a way back in without a
//! password; one legend of the cleanliness index under every map, the floor among its
//! categories; the playground's units written out, its score explained and its routes told
//! apart.

use axum::http::StatusCode;

use crate::dashboard::{Browser, ada_with_a_delivery, ada_with_key, dashboard};

#[tokio::test]
async fn the_welcome_ticks_off_each_step_once_done() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    browser.sign_up("ada@example.org").await;
    let fresh = browser.get("/dashboard/welcome").await;
    assert_eq!(fresh.status, StatusCode::OK);
    for step in [
        "Create an API key",
        "Set the key's webhook",
        "Add an alert rule",
    ] {
        assert!(fresh.body.contains(step), "{step}: {}", fresh.body);
    }
    assert!(!fresh.body.contains("class=\"badge\""), "nothing done yet");

    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    ada_with_a_delivery(&mut browser).await;
    let done = browser.get("/dashboard/welcome").await;
    assert_eq!(
        done.body.matches("<li class=\"done\">").count(),
        3,
        "a key, its webhook and a rule: {}",
        done.body
    );
}

#[tokio::test]
async fn pages_are_named_by_what_they_hold_and_the_reference_is_one_click_away() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    ada_with_key(&mut browser).await;
    let page = browser.get("/dashboard/alerts").await;
    assert!(page.body.contains("<h1>Webhook</h1>"), "{}", page.body);
    for link in [
        "<a href=\"/dashboard/alerts\">Webhook</a>",
        "<a href=\"/dashboard/rules\">Alert rules</a>",
        "<a href=\"/insights/v1/docs\">API docs</a>",
        "<a href=\"/dashboard/welcome\">Start</a>",
    ] {
        assert!(page.body.contains(link), "{link}");
    }
    let rules = browser.get("/dashboard/rules").await;
    assert!(rules.body.contains("<h1>Alert rules</h1>"));

    let mut stranger = Browser::new(&dash);
    let sign_in = stranger.get("/dashboard/signin").await;
    assert!(
        sign_in
            .body
            .contains("insights-server admin reset-password"),
        "a forgotten password has a way back: {}",
        sign_in.body
    );
}

#[tokio::test]
async fn a_new_key_comes_with_a_command_that_calls_the_api_with_it() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let created = browser
        .post("/dashboard/keys", &[("label", "first"), ("csrf", &csrf)])
        .await;
    assert_eq!(created.status, StatusCode::CREATED);
    let at = created.body.find("id=\"new-key-text\">").unwrap() + "id=\"new-key-text\">".len();
    let key = &created.body[at..at + created.body[at..].find('<').unwrap()];
    assert!(key.starts_with("ik_"));
    assert!(
        created.body.contains(&format!("X-Api-Key: {key}")),
        "{}",
        created.body
    );
    assert!(
        created
            .body
            .contains("/insights/v1/conditions?lat=52.52&amp;lon=13.40")
    );
}

#[tokio::test]
async fn every_map_has_the_one_legend_with_the_floor() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_key(&mut browser).await;
    for path in [
        "/dashboard/playground".to_owned(),
        format!("/dashboard/rules?key={}&lat=52.52&lon=13.4", key.0),
    ] {
        let page = browser.get(&path).await;
        for item in [
            "Excellent (80 to 100)",
            "Poor (above 0, below 20)",
            "Extremely poor (0)",
        ] {
            assert!(page.body.contains(item), "{path}: {item}");
        }
        assert!(page.body.contains("100 is the cleanest air"), "{path}");
    }
}

#[tokio::test]
async fn the_playground_writes_units_out_explains_racs_and_tells_routes_apart() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let request = r#"{"routes": [
        {"id": "a", "routeDuration": 10, "polyline": [[13.40, 52.52], [13.41, 52.52]]},
        {"id": "b", "routeDuration": 12, "polyline": [[13.40, 52.52], [13.40, 52.53]]}],
        "routesSort": "original", "lengthUnits": "km"}"#;
    let scored = browser
        .post(
            "/dashboard/playground",
            &[("request", request), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(scored.status, StatusCode::OK, "{}", scored.body);
    let body = &scored.body;
    assert!(
        body.contains("Duration (minutes)") && body.contains("Length (kilometres)"),
        "{body}"
    );
    assert!(
        body.contains("RACS, the route air cleanliness score"),
        "{body}"
    );
    // Each route its own outline colour, on the map and beside its row.
    assert!(
        body.contains("&quot;outline&quot;:&quot;#1d2327&quot;"),
        "{body}"
    );
    assert!(
        body.contains("&quot;outline&quot;:&quot;#2271b1&quot;"),
        "{body}"
    );
    assert!(body.contains("fill=\"#2271b1\""), "{body}");
}

#[tokio::test]
async fn a_deliverys_alerts_are_viewable_by_its_account_only() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_a_delivery(&mut browser).await;
    let list = browser
        .get(&format!("/dashboard/deliveries?key={}", key.0))
        .await;
    let at = list
        .body
        .find("/dashboard/deliveries/alerts?key=")
        .expect("each delivered request links to its alerts");
    let end = at + list.body[at..].find('"').unwrap();
    let link = list.body[at..end].replace("&amp;", "&");
    let page = browser.get(&link).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("A delivery's alerts"), "{}", page.body);
    assert!(
        page.body.contains("id=\"delivery-alerts\"") || page.body.contains("No alert"),
        "{}",
        page.body
    );
    // The same link from another account is someone else's key.
    let mut eve = Browser::new(&dash);
    eve.sign_up("eve@example.org").await;
    assert_eq!(eve.get(&link).await.status, StatusCode::NOT_FOUND);
    // Nor with a key of her own and Ada's request.
    let account = dash
        .manager
        .identity()
        .account_by_email("eve@example.org")
        .await
        .unwrap();
    let hers = dash
        .manager
        .identity()
        .create_key(account.id, "eve's")
        .await
        .unwrap();
    let token = link.split("token=").nth(1).unwrap();
    let borrowed = format!(
        "/dashboard/deliveries/alerts?key={}&token={token}",
        hers.info.id.0
    );
    assert_eq!(eve.get(&borrowed).await.status, StatusCode::NOT_FOUND);
    // A token that is not among the key's requests.
    let stranger = format!(
        "/dashboard/deliveries/alerts?key={}&token=00000000-0000-7000-8000-000000000000",
        key.0
    );
    assert_eq!(browser.get(&stranger).await.status, StatusCode::NOT_FOUND);
}
