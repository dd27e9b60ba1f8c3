//! The dashboard's deliveries and playground: requests with their attempts, redelivery, and
//! the route playground.

use axum::http::StatusCode;

use crate::dashboard::*;

#[tokio::test]
async fn deliveries_list_requests_with_their_attempts() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_a_delivery(&mut browser).await;
    assert_eq!(dash.sender.requests().len(), 1);
    let page = browser
        .get(&format!("/dashboard/deliveries?key={}", key.0))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    let token = serde_json::from_slice::<serde_json::Value>(&dash.sender.requests()[0].body)
        .unwrap()["TOKEN"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(page.body.contains(&token), "{}", page.body);
    assert!(page.body.contains("delivered"));
    assert!(page.body.contains("HTTP 200"));
    assert!(
        page.body.contains("data-label=\"Points\">2<"),
        "{}",
        page.body
    );
    assert!(page.body.contains("Redeliver"));
}

#[tokio::test]
async fn a_delivered_request_is_redelivered() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_a_delivery(&mut browser).await;
    let token = serde_json::from_slice::<serde_json::Value>(&dash.sender.requests()[0].body)
        .unwrap()["TOKEN"]
        .as_str()
        .unwrap()
        .to_owned();
    let id = key.0.to_string();
    let page = browser
        .post(
            "/dashboard/deliveries/redeliver",
            &[("key", &id), ("token", &token), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    dash.pipeline.run_once(8).await.unwrap();
    assert_eq!(dash.sender.requests().len(), 2, "the webhook is sent again");
    let unknown = browser
        .post(
            "/dashboard/deliveries/redeliver",
            &[("key", &id), ("token", &uuid_text()), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(
        unknown
            .body
            .contains("Pick a request from the deliveries list")
    );
}

pub(crate) fn uuid_text() -> String {
    "6f1c2d9e-0000-4000-8000-000000000001".to_owned()
}

#[tokio::test]
async fn redelivering_needs_the_csrf_token_and_ones_own_key() {
    let dash = dashboard(false);
    let mut eve_browser = Browser::new(&dash);
    let (_, key) = ada_with_a_delivery(&mut eve_browser).await;
    let token = serde_json::from_slice::<serde_json::Value>(&dash.sender.requests()[0].body)
        .unwrap()["TOKEN"]
        .as_str()
        .unwrap()
        .to_owned();
    let id = key.0.to_string();
    let refused = eve_browser
        .post(
            "/dashboard/deliveries/redeliver",
            &[("key", &id), ("token", &token)],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let mut other = Browser::new(&dash);
    let csrf = other.sign_up("mallory@example.org").await;
    let page = other.get(&format!("/dashboard/deliveries?key={id}")).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(!page.body.contains(&token));
    let foreign = other
        .post(
            "/dashboard/deliveries/redeliver",
            &[("key", &id), ("token", &token), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(foreign.status, StatusCode::NOT_FOUND);
    dash.pipeline.run_once(8).await.unwrap();
    assert_eq!(dash.sender.requests().len(), 1, "nothing was sent again");
}

#[tokio::test]
async fn the_playground_scores_the_sample_and_draws_each_route_in_category_colours() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let page = browser.get("/dashboard/playground").await;
    assert_eq!(page.status, StatusCode::OK);
    let at = page.body.find("name=\"request\"").unwrap();
    let start = page.body[at..].find('>').unwrap() + at + 1;
    let end = page.body[start..].find("</textarea>").unwrap() + start;
    let sample = page.body[start..end].replace("&quot;", "\"");
    assert!(
        sample.contains("routeDuration"),
        "the sample is loaded: {sample}"
    );
    let scored = browser
        .post(
            "/dashboard/playground",
            &[("request", &sample), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(scored.status, StatusCode::OK, "{}", scored.body);
    assert!(scored.body.contains("racss"), "the response is shown");
    // The test field is a flat CI of 50 everywhere: every stretch of every route is drawn in
    // Moderate's colour, and the table shows each route's RACS in it.
    let colour = aq_core::CiCategory::of(50.0).colour();
    let at = scored.body.find("data-routes=\"").unwrap() + "data-routes=\"".len();
    let end = scored.body[at..].find('"').unwrap() + at;
    let data: serde_json::Value =
        serde_json::from_str(&scored.body[at..end].replace("&quot;", "\"")).unwrap();
    let routes = data["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 3, "every sample route is on the map");
    for route in routes {
        let colours = route["colours"].as_array().unwrap();
        assert!(!colours.is_empty());
        assert!(colours.iter().all(|c| c == colour), "{route}");
        assert_eq!(
            route["samples"].as_array().unwrap().len(),
            colours.len() + 1
        );
    }
    assert_eq!(scored.body.matches("<tr class=\"result\">").count(), 3);
    assert!(scored.body.contains(&format!("<rect width=\"14\" height=\"14\" fill=\"{colour}\"></rect></svg> <strong>50</strong> Moderate")), "{}", scored.body);
    assert!(scored.body.contains("id=\"recommendations\""));
    assert!(scored.body.contains("src=\"/dashboard/assets/leaflet.js\""));
    for category in aq_core::CiCategory::ALL {
        assert!(
            scored.body.contains(category.name()),
            "legend: {}",
            category.name()
        );
    }
}

#[tokio::test]
async fn the_playground_keeps_a_bad_request_and_says_what_is_wrong() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let broken = browser
        .post(
            "/dashboard/playground",
            &[("request", "{\"routes\": ["), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(broken.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        broken
            .body
            .contains("The API would refuse this request: routes: EOF while parsing")
    );
    assert!(
        broken.body.contains("{&quot;routes&quot;: [") || broken.body.contains("{\"routes\": [")
    );
    let refused = browser
        .post(
            "/dashboard/playground",
            &[("request", "{\"routes\": []}"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.body.contains("The API would refuse this request"));
    let forged = browser
        .post("/dashboard/playground", &[("request", "{}")])
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
}
