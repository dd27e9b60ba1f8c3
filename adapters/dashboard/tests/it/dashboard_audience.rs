//! The rule form's audience ("Advice for"): each audience previews its own recommendation, the
//! choice is stored, listed and kept when editing, forms without it read as the general
//! population, and a place's forecast recommends for the chosen rule's audience.

use alerts_core::change::Direction;
use alerts_core::message::{MessageConfig, preview};
use alerts_core::rule::{Audience, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use aq_core::{CleanlinessIndex, Position};
use axum::http::StatusCode;

use crate::dashboard::{Browser, ada_rules, ada_with_key, dashboard};

/// What the page shows for `text`: maud escapes these in text nodes.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn form<'a>(
    id: &'a str,
    csrf: &'a str,
    audience: Option<&'a str>,
    action: &'a str,
) -> Vec<(&'a str, &'a str)> {
    let mut fields = vec![
        ("key", id),
        ("type", "aq"),
        ("forecast", "6h"),
        ("sensitivity", "high"),
        ("message", "default"),
        ("action", action),
        ("csrf", csrf),
    ];
    if let Some(audience) = audience {
        fields.push(("audience", audience));
    }
    fields
}

#[tokio::test]
async fn each_audience_previews_its_own_recommendation_and_general_keeps_todays() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let page = browser.get(&format!("/dashboard/rules?key={id}")).await;
    assert!(page.body.contains("name=\"audience\""), "{}", page.body);
    assert!(
        page.body.contains("value=\"general\" selected"),
        "the general population is the default: {}",
        page.body
    );
    for audience in Audience::ALL {
        assert!(
            page.body
                .contains(&format!("value=\"{}\"", audience.as_str())),
            "{audience:?}"
        );
    }

    let spec = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(6),
        Sensitivity::High,
        MessageSpec::Default,
    )
    .unwrap();
    let mut seen = Vec::new();
    for audience in Audience::ALL {
        let shown = browser
            .post(
                "/dashboard/rules",
                &form(&id, &csrf, Some(audience.as_str()), "preview"),
            )
            .await;
        assert_eq!(shown.status, StatusCode::OK, "{audience:?}");
        for direction in [Direction::Deterioration, Direction::Improvement] {
            let expected = preview(
                &spec.clone().with_audience(audience),
                direction,
                &MessageConfig::default(),
            )
            .recommendation;
            assert!(
                shown.body.contains(&escaped(expected)),
                "{audience:?} {direction:?} should show `{expected}`: {}",
                shown.body
            );
            seen.push(expected);
        }
    }
    // Two texts (worse, better) per audience, none shared.
    let distinct: std::collections::HashSet<_> = seen.iter().collect();
    assert_eq!(distinct.len(), 2 * Audience::ALL.len(), "{seen:?}");

    // The general population's advice is the one every rule gave before audiences existed.
    let general = browser
        .post("/dashboard/rules", &form(&id, &csrf, None, "preview"))
        .await;
    assert!(
        general.body.contains(
            "People sensitive to air pollution should consider shorter or lighter outdoor activity."
        ),
        "{}",
        general.body
    );
}

#[tokio::test]
async fn the_audience_is_stored_listed_and_kept_when_editing_and_a_bad_one_is_refused() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let id = key.0.to_string();
    let refused = browser
        .post("/dashboard/rules", &form(&id, &csrf, Some("teens"), "save"))
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        refused.body.contains("Choose an Advice for"),
        "{}",
        refused.body
    );

    let saved = browser
        .post(
            "/dashboard/rules",
            &form(&id, &csrf, Some("heart_or_lung_disease"), "save"),
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let old_form = browser
        .post("/dashboard/rules", &form(&id, &csrf, None, "save"))
        .await;
    assert_eq!(old_form.status, StatusCode::SEE_OTHER);

    let rules = ada_rules(&dash, key).await;
    let audiences: Vec<_> = rules.iter().map(|r| r.spec.audience()).collect();
    assert_eq!(
        audiences,
        [Audience::HeartOrLungDisease, Audience::General],
        "a form without the field is the general population"
    );
    let list = browser.get(&format!("/dashboard/rules?key={id}")).await;
    assert!(
        list.body
            .contains("default message · Cleanliness index · advice for Heart or lung disease"),
        "{}",
        list.body
    );
    assert!(
        list.body.contains("advice for General population"),
        "{}",
        list.body
    );
    let edit = browser
        .get(&format!("/dashboard/rules?key={id}&edit={}", rules[0].id.0))
        .await;
    assert!(
        edit.body
            .contains("value=\"heart_or_lung_disease\" selected"),
        "the edit form keeps the choice: {}",
        edit.body
    );
}

#[tokio::test]
async fn a_places_forecast_recommends_for_the_chosen_rules_audience() {
    let dash = dashboard(false);
    let here = Position::new(13.4, 52.52).unwrap();
    // 72 now, 35 (Low) from hour 2 on: worse, reaching Low, at medium sensitivity.
    let values: Vec<_> = (0..=96)
        .map(|h| CleanlinessIndex::new(if h < 2 { 72.0 } else { 35.0 }).ok())
        .collect();
    dash.forecast.set_hourly(here, values);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_key(&mut browser).await;
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let spec = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(6),
        Sensitivity::Medium,
        MessageSpec::Default,
    )
    .unwrap();
    for (audience, expected) in [
        (
            Audience::General,
            "Limit prolonged or heavy outdoor exertion, especially if you are sensitive to air pollution.",
        ),
        (
            Audience::Pregnancy,
            "During pregnancy, limit prolonged outdoor exertion and time near heavy traffic.",
        ),
    ] {
        let rule = dash
            .manager
            .add_rule(account.id, key, spec.clone().with_audience(audience))
            .await
            .unwrap();
        let page = browser
            .get(&format!(
                "/dashboard/rules?key={}&lat=52.52&lon=13.4&rule={}",
                key.0, rule.id.0
            ))
            .await;
        assert_eq!(page.status, StatusCode::OK);
        assert!(
            page.body.contains("id=\"forecast-message\""),
            "{}",
            page.body
        );
        assert!(page.body.contains(expected), "{audience:?}: {}", page.body);
    }
}

#[tokio::test]
async fn a_places_forecast_says_in_1_hour_in_the_singular() {
    let dash = dashboard(false);
    let here = Position::new(13.4, 52.52).unwrap();
    // 72 now, 35 from the next hour on.
    let values: Vec<_> = (0..=96)
        .map(|h| CleanlinessIndex::new(if h < 1 { 72.0 } else { 35.0 }).ok())
        .collect();
    dash.forecast.set_hourly(here, values);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_key(&mut browser).await;
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let spec = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(6),
        Sensitivity::Medium,
        MessageSpec::Default,
    )
    .unwrap();
    let rule = dash.manager.add_rule(account.id, key, spec).await.unwrap();
    let page = browser
        .get(&format!(
            "/dashboard/rules?key={}&lat=52.52&lon=13.4&rule={}",
            key.0, rule.id.0
        ))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("In 1 hour: "), "{}", page.body);
    assert!(!page.body.contains("In 1 hours"), "{}", page.body);
}
