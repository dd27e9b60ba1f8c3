//! The dashboard's alert rules: the form and its selectors, previews, adding, editing,
//! disabling and deleting, on one's own key only.

use axum::http::StatusCode;

use crate::dashboard::*;

fn custom_alert<'a>(id: &'a str, csrf: &'a str, action: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("key", id),
        ("type", "aq"),
        ("forecast", "6h"),
        ("sensitivity", "high"),
        ("message", "custom"),
        ("deterioration", "Worse in {hours} hours: {aqi}."),
        ("improvement", "Better in {hours} hours."),
        ("action", action),
        ("csrf", csrf),
    ]
}

#[tokio::test]
async fn the_alert_form_has_the_four_selectors_and_lists_the_placeholders() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_key(&mut browser).await;
    let page = browser
        .get(&format!("/dashboard/rules?key={}", key.0))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    for selector in [
        "name=\"type\"",
        "name=\"forecast\"",
        "name=\"sensitivity\"",
        "name=\"message\"",
    ] {
        assert!(page.body.contains(selector), "{selector}");
    }
    assert!(page.body.contains("Add new alert"));
    for horizon in ["value=\"96h\"", "value=\"today\"", "value=\"4d\""] {
        assert!(page.body.contains(horizon), "{horizon}");
    }
    assert!(page.body.contains("{hours}") && page.body.contains("{kind}"));
}

#[tokio::test]
async fn a_custom_alert_is_previewed_then_added() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let preview = browser
        .post("/dashboard/rules", &custom_alert(&id, &csrf, "preview"))
        .await;
    assert_eq!(preview.status, StatusCode::OK);
    assert!(
        preview.body.contains("Worse in 6 hours: "),
        "{}",
        preview.body
    );
    assert!(preview.body.contains("Recommendation (predefined)"));
    assert!(ada_rules(&dash, key).await.is_empty());
    let saved = browser
        .post("/dashboard/rules", &custom_alert(&id, &csrf, "save"))
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let rules = ada_rules(&dash, key).await;
    assert_eq!(rules.len(), 1);
    assert!(matches!(
        rules[0].spec.message(),
        alerts_core::rule::MessageSpec::Custom { deterioration, .. } if deterioration == "Worse in {hours} hours: {aqi}."
    ));
    let list = browser.get(&format!("/dashboard/rules?key={id}")).await;
    assert!(
        list.body
            .contains("Air Quality · 6 hours · high sensitivity · custom message")
    );
}

#[tokio::test]
async fn the_index_selector_previews_and_stores_the_us_epa_aqi() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let page = browser.get(&format!("/dashboard/rules?key={id}")).await;
    assert!(page.body.contains("name=\"aq_index\""), "{}", page.body);
    assert!(page.body.contains("value=\"us_epa\""), "{}", page.body);
    let alert = |index: &'static str, action: &'static str| {
        vec![
            ("key", id.as_str()),
            ("type", "aq"),
            ("forecast", "6h"),
            ("sensitivity", "high"),
            ("message", "default"),
            ("aq_index", index),
            ("action", action),
            ("csrf", csrf.as_str()),
        ]
    };
    let us = browser
        .post("/dashboard/rules", &alert("us_epa", "preview"))
        .await;
    assert_eq!(us.status, StatusCode::OK);
    assert!(
        us.body
            .contains("In 6 hours the air quality is expected to be worse (US AQI "),
        "{}",
        us.body
    );
    let ci = browser
        .post("/dashboard/rules", &alert("cleanliness", "preview"))
        .await;
    assert!(
        ci.body
            .contains("In 6 hours the air quality is expected to be worse (47 AQI)."),
        "{}",
        ci.body
    );
    let refused = browser
        .post("/dashboard/rules", &alert("eaqi", "save"))
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.body.contains("Choose an Index"), "{}", refused.body);

    let saved = browser
        .post("/dashboard/rules", &alert("us_epa", "save"))
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let rules = ada_rules(&dash, key).await;
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].spec.aq_index(), alerts_core::rule::AqIndex::UsEpa);
    let list = browser.get(&format!("/dashboard/rules?key={id}")).await;
    assert!(
        list.body
            .contains("Air Quality · 6 hours · high sensitivity · default message · US EPA AQI"),
        "{}",
        list.body
    );
    let edit = browser
        .get(&format!("/dashboard/rules?key={id}&edit={}", rules[0].id.0))
        .await;
    assert!(
        edit.body.contains("value=\"us_epa\" selected"),
        "the edit form keeps the choice: {}",
        edit.body
    );
}

#[tokio::test]
async fn the_repeat_selector_previews_and_stores_once_per_change() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let page = browser.get(&format!("/dashboard/rules?key={id}")).await;
    assert!(page.body.contains("name=\"repeat\""), "{}", page.body);
    assert!(
        page.body.contains("value=\"every\" selected"),
        "every request is the default: {}",
        page.body
    );
    let alert = |repeat: &'static str, action: &'static str| {
        vec![
            ("key", id.as_str()),
            ("type", "pollen"),
            ("forecast", "1d"),
            ("sensitivity", "medium"),
            ("message", "default"),
            ("repeat", repeat),
            ("action", action),
            ("csrf", csrf.as_str()),
        ]
    };
    let preview = browser
        .post("/dashboard/rules", &alert("once", "preview"))
        .await;
    assert_eq!(preview.status, StatusCode::OK);
    assert!(
        preview
            .body
            .contains("Once per change: a point id is sent each change once"),
        "{}",
        preview.body
    );
    let refused = browser
        .post("/dashboard/rules", &alert("twice", "save"))
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.body.contains("Choose a Repeat"), "{}", refused.body);

    let saved = browser
        .post("/dashboard/rules", &alert("once", "save"))
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let rules = ada_rules(&dash, key).await;
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].spec.repeat(), alerts_core::rule::Repeat::Once);
    let list = browser.get(&format!("/dashboard/rules?key={id}")).await;
    assert!(
        list.body
            .contains("advice for General population · once per change"),
        "{}",
        list.body
    );
    let edit = browser
        .get(&format!("/dashboard/rules?key={id}&edit={}", rules[0].id.0))
        .await;
    assert!(
        edit.body.contains("value=\"once\" selected"),
        "the edit form keeps the choice: {}",
        edit.body
    );
}

#[tokio::test]
async fn an_invalid_alert_is_refused_with_what_was_typed() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let mut fields = custom_alert(&id, &csrf, "save");
    fields[5] = ("deterioration", "Worse in {days} days");
    fields[6] = ("improvement", "");
    let page = browser.post("/dashboard/rules", &fields).await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        page.body.contains("Worse in {days} days"),
        "kept what was typed"
    );
    assert!(
        page.body.contains("Correct it and try again"),
        "{}",
        page.body
    );
    let mut pollen_in_hours = custom_alert(&id, &csrf, "save");
    pollen_in_hours[1] = ("type", "pollen");
    let page = browser.post("/dashboard/rules", &pollen_in_hours).await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.body.contains("choose one of"), "{}", page.body);
    assert!(ada_rules(&dash, key).await.is_empty());
}

#[tokio::test]
async fn alerts_are_disabled_edited_and_deleted() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    browser
        .post("/dashboard/rules", &custom_alert(&id, &csrf, "save"))
        .await;
    let rule = ada_rules(&dash, key).await[0].clone();
    let rule_id = rule.id.0.to_string();
    let toggled = browser
        .post(
            "/dashboard/rules/toggle",
            &[("key", &id), ("rule", &rule_id), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(toggled.status, StatusCode::SEE_OTHER);
    assert!(!ada_rules(&dash, key).await[0].enabled);
    let edit = browser
        .get(&format!("/dashboard/rules?key={id}&edit={rule_id}"))
        .await;
    assert!(edit.body.contains("Edit alert"));
    assert!(edit.body.contains("Worse in {hours} hours: {aqi}."));
    let edited = browser
        .post(
            "/dashboard/rules",
            &[
                ("key", &id),
                ("rule", &rule_id),
                ("type", "pollen"),
                ("forecast", "2d"),
                ("sensitivity", "low"),
                ("message", "default"),
                ("enabled", "on"),
                ("action", "save"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(edited.status, StatusCode::SEE_OTHER);
    let after = ada_rules(&dash, key).await[0].clone();
    assert_eq!(after.spec.data_type(), alerts_core::rule::DataType::Pollen);
    assert!(after.enabled);
    let deleted = browser
        .post(
            "/dashboard/rules/delete",
            &[("key", &id), ("rule", &rule_id), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER);
    assert!(ada_rules(&dash, key).await.is_empty());
}

#[tokio::test]
async fn alert_forms_without_the_csrf_token_change_nothing() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    browser
        .post("/dashboard/rules", &custom_alert(&id, &csrf, "save"))
        .await;
    let before = ada_rules(&dash, key).await;
    let rule_id = before[0].id.0.to_string();
    let page = browser
        .post("/dashboard/rules", &custom_alert(&id, "", "save"))
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    for path in ["/dashboard/rules/toggle", "/dashboard/rules/delete"] {
        let page = browser
            .post(path, &[("key", &id), ("rule", &rule_id)])
            .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(ada_rules(&dash, key).await, before);
}

#[tokio::test]
async fn someone_elses_alerts_cannot_be_seen_or_changed() {
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
        .unwrap()
        .info
        .id;
    let spec = alerts_core::rule::RuleSpec::new(
        alerts_core::rule::DataType::Aq,
        alerts_core::rule::Forecast::Hours(6),
        alerts_core::rule::Sensitivity::High,
        alerts_core::rule::MessageSpec::Default,
    )
    .unwrap();
    let rule = dash.manager.add_rule(eve.id, key, spec).await.unwrap();
    let id = key.0.to_string();
    let rule_id = rule.id.0.to_string();
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    assert_eq!(
        browser
            .get(&format!("/dashboard/rules?key={id}"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    let added = browser
        .post("/dashboard/rules", &custom_alert(&id, &csrf, "save"))
        .await;
    assert_eq!(added.status, StatusCode::NOT_FOUND);
    for path in ["/dashboard/rules/toggle", "/dashboard/rules/delete"] {
        let page = browser
            .post(path, &[("key", &id), ("rule", &rule_id), ("csrf", &csrf)])
            .await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
    }
    assert_eq!(
        dash.manager.list_rules(eve.id, key).await.unwrap(),
        vec![rule]
    );
}
