//! The dashboard's API keys and alert settings: creating, renaming and revoking keys, the
//! webhook URL, the signing secret and test deliveries.

use alerts_core::memory::RecordingSender;
use axum::http::StatusCode;

use crate::dashboard::*;

#[tokio::test]
async fn creating_a_key_shows_it_once_and_lists_it() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let page = browser
        .post(
            "/dashboard/keys",
            &[("label", "production"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(page.status, StatusCode::CREATED);
    let at = page.body.find("id=\"new-key-text\">").unwrap() + 18;
    let key = &page.body[at..page.body[at..].find('<').unwrap() + at];
    assert!(key.starts_with("ik_"), "{key}");
    assert!(page.body.contains("data-copy=\"new-key-text\""));
    let list = browser.get("/dashboard/keys").await;
    assert!(!list.body.contains(key), "the key is shown only once");
    assert!(list.body.contains(&key[..11]), "the list shows the prefix");
    assert!(list.body.contains("never"), "the list shows the last use");
}

#[tokio::test]
async fn an_invalid_label_is_refused_and_kept() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let long = "x".repeat(101);
    let page = browser
        .post("/dashboard/keys", &[("label", &long), ("csrf", &csrf)])
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.body.contains(&format!("value=\"{long}\"")));
    assert!(page.body.contains("up to 100 characters"));
    assert_eq!(keys_of(&dash, "ada@example.org").await, 0);
}

#[tokio::test]
async fn key_forms_without_the_csrf_token_change_nothing() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    browser.sign_up("ada@example.org").await;
    let page = browser
        .post("/dashboard/keys", &[("label", "production")])
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert_eq!(keys_of(&dash, "ada@example.org").await, 0);
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let key = dash
        .manager
        .identity()
        .create_key(account.id, "production")
        .await
        .unwrap();
    let id = key.info.id.0.to_string();
    for path in ["/dashboard/keys/revoke", "/dashboard/keys/label"] {
        let page = browser
            .post(path, &[("key", &id), ("label", "renamed")])
            .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}");
    }
    let info = dash
        .manager
        .identity()
        .key(account.id, key.info.id)
        .await
        .unwrap();
    assert_eq!(info.label, "production");
    assert!(info.revoked_at.is_none());
}

#[tokio::test]
async fn renaming_and_revoking_a_key_work_and_a_bad_label_says_what_to_do() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let key = dash
        .manager
        .identity()
        .create_key(account.id, "production")
        .await
        .unwrap();
    let id = key.info.id.0.to_string();
    let bad = browser
        .post(
            "/dashboard/keys/label",
            &[("key", &id), ("label", &"y".repeat(101)), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("up to 100 characters"));
    let renamed = browser
        .post(
            "/dashboard/keys/label",
            &[("key", &id), ("label", "staging"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(renamed.status, StatusCode::SEE_OTHER);
    let revoked = browser
        .post("/dashboard/keys/revoke", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(revoked.status, StatusCode::SEE_OTHER);
    let info = dash
        .manager
        .identity()
        .key(account.id, key.info.id)
        .await
        .unwrap();
    assert_eq!(info.label, "staging");
    assert!(info.revoked_at.is_some());
    assert!(
        browser
            .get("/dashboard/keys")
            .await
            .body
            .contains("revoked")
    );
}

#[tokio::test]
async fn someone_elses_key_cannot_be_renamed_or_revoked() {
    let dash = dashboard(false);
    let owner = dash
        .manager
        .identity()
        .create_account("eve@example.org", PASSWORD)
        .await
        .unwrap();
    let key = dash
        .manager
        .identity()
        .create_key(owner.id, "eve's")
        .await
        .unwrap();
    let id = key.info.id.0.to_string();
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    for path in ["/dashboard/keys/revoke", "/dashboard/keys/label"] {
        let page = browser
            .post(path, &[("key", &id), ("label", "mine"), ("csrf", &csrf)])
            .await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
        assert!(page.body.contains("Pick a key from your list"), "{path}");
    }
    let garbage = browser
        .post(
            "/dashboard/keys/revoke",
            &[("key", "not-a-key"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(garbage.status, StatusCode::NOT_FOUND);
    let info = dash
        .manager
        .identity()
        .key(owner.id, key.info.id)
        .await
        .unwrap();
    assert_eq!(info.label, "eve's");
    assert!(info.revoked_at.is_none());
}

#[tokio::test]
async fn alerts_settings_offer_the_keys_in_a_drop_down_with_a_link_to_create_one() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    browser.sign_up("ada@example.org").await;
    let empty = browser.get("/dashboard/alerts").await;
    assert_eq!(empty.status, StatusCode::OK);
    assert!(empty.body.contains("href=\"/dashboard/keys\""));
    assert!(!empty.body.contains("<select"));
    let (_, key) = ada_with_key_existing(&dash, &mut browser).await;
    let page = browser.get("/dashboard/alerts").await;
    assert!(page.body.contains("API key for applying alerts"));
    assert!(
        page.body
            .contains(&format!("<option value=\"{}\" selected", key.0)),
        "{}",
        page.body
    );
    assert!(page.body.contains("Create a key"));
}

pub(crate) async fn ada_with_key_existing(
    dash: &Dash,
    browser: &mut Browser<'_>,
) -> (String, identity_core::ids::KeyId) {
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let key = dash
        .manager
        .identity()
        .create_key(account.id, "production")
        .await
        .unwrap();
    (browser.get("/dashboard/alerts").await.csrf(), key.info.id)
}

#[tokio::test]
async fn a_valid_webhook_url_is_saved() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let page = browser
        .post(
            "/dashboard/alerts/webhook",
            &[
                ("key", &id),
                ("url", "https://hooks.example.org/in"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.location(), format!("/dashboard/alerts?key={id}"));
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let info = dash.manager.identity().key(account.id, key).await.unwrap();
    assert_eq!(
        info.webhook_url.as_deref(),
        Some("https://hooks.example.org/in")
    );
    let shown = browser.get(&format!("/dashboard/alerts?key={id}")).await;
    assert!(
        shown
            .body
            .contains("value=\"https://hooks.example.org/in\"")
    );
}

#[tokio::test]
async fn an_invalid_webhook_url_is_refused_kept_and_explained() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let page = browser
        .post(
            "/dashboard/alerts/webhook",
            &[
                ("key", &id),
                ("url", "ftp://files.example.org"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.body.contains("value=\"ftp://files.example.org\""));
    assert!(
        page.body.contains("Enter the https:// address"),
        "{}",
        page.body
    );
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    assert!(
        dash.manager
            .identity()
            .key(account.id, key)
            .await
            .unwrap()
            .webhook_url
            .is_none()
    );
}

#[tokio::test]
async fn alerts_settings_forms_without_the_csrf_token_change_nothing() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let before = dash.manager.identity().key(account.id, key).await.unwrap();
    for path in [
        "/dashboard/alerts/webhook",
        "/dashboard/alerts/rotate",
        "/dashboard/alerts/test",
    ] {
        let page = browser
            .post(
                path,
                &[("key", &id), ("url", "https://hooks.example.org/in")],
            )
            .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(
        dash.manager.identity().key(account.id, key).await.unwrap(),
        before
    );
    assert!(dash.sender.requests().is_empty());
}

#[tokio::test]
async fn someone_elses_key_has_no_alerts_settings() {
    let dash = dashboard(false);
    let eve = dash
        .manager
        .identity()
        .create_account("eve@example.org", PASSWORD)
        .await
        .unwrap();
    let key = dash
        .manager
        .identity()
        .create_key(eve.id, "eve's")
        .await
        .unwrap();
    dash.manager
        .set_webhook_url(eve.id, key.info.id, Some("https://eve.example.org/hook"))
        .await
        .unwrap();
    let id = key.info.id.0.to_string();
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let page = browser.get(&format!("/dashboard/alerts?key={id}")).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(!page.body.contains(key.info.secret.expose()));
    for path in [
        "/dashboard/alerts/webhook",
        "/dashboard/alerts/rotate",
        "/dashboard/alerts/test",
    ] {
        let page = browser
            .post(
                path,
                &[
                    ("key", &id),
                    ("url", "https://ada.example.org/in"),
                    ("csrf", &csrf),
                ],
            )
            .await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
    }
    let after = dash
        .manager
        .identity()
        .key(eve.id, key.info.id)
        .await
        .unwrap();
    assert_eq!(
        after.webhook_url.as_deref(),
        Some("https://eve.example.org/hook")
    );
    assert_eq!(after.secret, key.info.secret);
    assert!(dash.sender.requests().is_empty());
}

#[tokio::test]
async fn the_signing_secret_is_shown_and_rotated() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let before = dash
        .manager
        .identity()
        .key(account.id, key)
        .await
        .unwrap()
        .secret;
    let page = browser.get(&format!("/dashboard/alerts?key={id}")).await;
    assert!(page.body.contains(before.expose()));
    let rotated = browser
        .post("/dashboard/alerts/rotate", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(rotated.status, StatusCode::SEE_OTHER);
    let after = dash
        .manager
        .identity()
        .key(account.id, key)
        .await
        .unwrap()
        .secret;
    assert_ne!(after, before);
    let page = browser.get(&format!("/dashboard/alerts?key={id}")).await;
    assert!(page.body.contains(after.expose()));
}

#[tokio::test]
async fn a_test_delivery_is_signed_sent_and_its_result_shown() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let none = browser
        .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(none.status, StatusCode::CONFLICT);
    assert!(none.body.contains("Save one above"));
    dash.manager
        .set_webhook_url(account.id, key, Some("https://hooks.example.org/in"))
        .await
        .unwrap();
    let page = browser
        .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("succeeded: HTTP 200"), "{}", page.body);
    let sent = dash.sender.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].url, "https://hooks.example.org/in");
    let header = |name: &str| {
        sent[0]
            .headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    let secret = dash
        .manager
        .identity()
        .key(account.id, key)
        .await
        .unwrap()
        .secret;
    alerts_core::webhook::Verifier::default()
        .verify(
            &[secret],
            &header("webhook-id"),
            &header("webhook-timestamp"),
            &header("webhook-signature"),
            &sent[0].body,
            chrono::Utc::now(),
        )
        .unwrap();
    let body: serde_json::Value = serde_json::from_slice(&sent[0].body).unwrap();
    assert_eq!(body["TEST"], true);
    assert_eq!(
        header("insights-test"),
        "true",
        "marked as a test in its header too"
    );

    dash.sender.push_response(RecordingSender::status(500));
    let failed = browser
        .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert!(failed.body.contains("HTTP 500"), "{}", failed.body);
    assert!(failed.body.contains("Check that your receiver is running"));
}

#[tokio::test]
async fn test_deliveries_and_playground_runs_are_limited_per_account() {
    use insights_dashboard::{
        PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE, TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE,
    };
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    dash.manager
        .set_webhook_url(account.id, key, Some("https://hooks.example.org/in"))
        .await
        .unwrap();
    for _ in 0..TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE {
        let sent = browser
            .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
            .await;
        assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    }
    let limited = browser
        .post("/dashboard/alerts/test", &[("key", &id), ("csrf", &csrf)])
        .await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.body.contains("Wait a minute"), "{}", limited.body);
    assert_eq!(
        dash.sender.requests().len(),
        TEST_DELIVERIES_PER_ACCOUNT_PER_MINUTE as usize,
        "the limited test was not sent"
    );

    let request = r#"{"routesSort": "desc", "routes": [{"id": 1, "polyline": [[13.40, 52.52], [13.41, 52.52]], "routeDuration": 5}]}"#;
    for _ in 0..PLAYGROUND_RUNS_PER_ACCOUNT_PER_MINUTE {
        let run = browser
            .post(
                "/dashboard/playground",
                &[("request", request), ("csrf", &csrf)],
            )
            .await;
        assert_eq!(run.status, StatusCode::OK, "{}", run.body);
    }
    let limited = browser
        .post(
            "/dashboard/playground",
            &[("request", request), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.body.contains("Wait a minute"), "{}", limited.body);
}
