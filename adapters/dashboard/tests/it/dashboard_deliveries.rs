//! The dashboard's deliveries and playground: requests with their attempts, test deliveries
//! among them, redelivery, and the route playground.

use alerts_core::memory::RecordingSender;
use alerts_core::ports::{DeliveryLog, TestDelivery};
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

/// The `TOKEN` of the `n`th webhook the dashboard's sender was asked to send.
fn sent_token(dash: &Dash, n: usize) -> String {
    serde_json::from_slice::<serde_json::Value>(&dash.sender.requests()[n].body).unwrap()["TOKEN"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The table row of the list that holds `token`.
#[track_caller]
fn row_of<'a>(page: &'a str, token: &str) -> &'a str {
    let at = page
        .find(&format!("<code>{token}</code>"))
        .unwrap_or_else(|| panic!("{token} is not listed: {page}"));
    let start = page[..at].rfind("<tr").unwrap();
    let end = at + page[at..].find("</tr>").unwrap();
    &page[start..end]
}

#[tokio::test]
async fn test_deliveries_are_listed_marked_with_where_they_went_and_their_result() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_a_delivery(&mut browser).await;
    let id = key.0.to_string();
    let request = sent_token(&dash, 0);
    let sent = browser
        .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(sent.status, StatusCode::OK);
    assert!(sent.body.contains("succeeded: HTTP 200"), "{}", sent.body);
    assert!(
        sent.body.contains(&format!(
            "Tests are listed on the <a href=\"/dashboard/deliveries?key={id}\">Deliveries</a> page"
        )),
        "{}",
        sent.body
    );
    dash.sender.push_response(RecordingSender::status(500));
    let failed = browser
        .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert!(failed.body.contains("HTTP 500"), "{}", failed.body);
    let (delivered, refused) = (sent_token(&dash, 1), sent_token(&dash, 2));

    let page = browser
        .get(&format!("/dashboard/deliveries?key={id}"))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    let body = &page.body;
    for (token, status, result) in [
        (&delivered, "delivered", "HTTP 200, "),
        (&refused, "failed", "HTTP 500 (status), "),
    ] {
        let row = row_of(body, token);
        assert!(row.starts_with("<tr class=\"delivery test\">"), "{row}");
        assert!(
            row.contains(&format!("<span class=\"badge\">Test</span> {status}</td>")),
            "marked as a test, with its outcome: {row}"
        );
        assert!(
            row.contains(&format!(
                "#1 to <code>https://hooks.example.org/in</code>: {result}"
            )),
            "where it went and its one attempt: {row}"
        );
        assert!(!row.contains("Redeliver"), "{row}");
        assert!(!row.contains("/dashboard/deliveries/alerts"), "{row}");
    }
    let real = row_of(body, &request);
    assert!(real.starts_with("<tr class=\"delivery\">"), "{real}");
    assert!(!real.contains("badge"), "{real}");
    assert!(real.contains("Redeliver"), "{real}");
    // Sent in the same instant by the test's fixed clock: the list keeps each kind's order,
    // requests first.
    let (at_request, at_refused, at_delivered) = (
        body.find(&request).unwrap(),
        body.find(&refused).unwrap(),
        body.find(&delivered).unwrap(),
    );
    assert!(
        at_request < at_refused && at_refused < at_delivered,
        "{body}"
    );
    // The charts count the key's traffic, not its tests.
    assert!(body.contains("By status: HTTP 200 × 1<"), "{body}");
    assert!(
        !body.contains("HTTP 500 ×"),
        "no chart counts the refused test: {body}"
    );
}

#[tokio::test]
async fn tests_and_requests_are_listed_newest_first_and_only_the_keys_own() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_a_delivery(&mut browser).await;
    let request = sent_token(&dash, 0);
    let received = dash
        .store
        .list_requests(key, 1)
        .await
        .unwrap()
        .remove(0)
        .received_at;
    let test = |seconds: i64, url: &str| TestDelivery {
        token: alerts_core::ids::Token(uuid::Uuid::new_v4()),
        key,
        at: received + chrono::Duration::seconds(seconds),
        url: url.to_owned(),
        status: None,
        latency_ms: 3,
        error: Some(alerts_core::ports::DeliveryErrorKind::Connect),
    };
    let (later, earlier) = (
        test(5, "https://later.example.org/in"),
        test(-5, "https://earlier.example.org/in"),
    );
    for t in [&earlier, &later] {
        dash.store.record_test(t).await.unwrap();
    }
    let mut other = Browser::new(&dash);
    other.sign_up("grace@example.org").await;
    let page = browser
        .get(&format!("/dashboard/deliveries?key={}", key.0))
        .await;
    let body = &page.body;
    let order = [later.token.to_string(), request, earlier.token.to_string()].map(|t| {
        body.find(&t)
            .unwrap_or_else(|| panic!("{t} is not listed: {body}"))
    });
    assert!(order[0] < order[1] && order[1] < order[2], "{body}");
    assert!(
        row_of(body, &later.token.to_string()).contains("no answer (could not connect), 3 ms"),
        "{body}"
    );
    let account = dash
        .manager
        .identity()
        .account_by_email("grace@example.org")
        .await
        .unwrap();
    let grace = dash
        .manager
        .identity()
        .create_key(account.id, "staging")
        .await
        .unwrap();
    let theirs = other
        .get(&format!("/dashboard/deliveries?key={}", grace.info.id.0))
        .await;
    assert_eq!(theirs.status, StatusCode::OK);
    assert!(!theirs.body.contains("delivery test"), "{}", theirs.body);
    assert!(theirs.body.contains("No requests yet with this key"));
    let foreign = other
        .get(&format!("/dashboard/deliveries?key={}", key.0))
        .await;
    assert_eq!(foreign.status, StatusCode::NOT_FOUND);
    assert!(!foreign.body.contains(&later.token.to_string()));
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
