//! The dashboard's maps and charts over in-memory ports: the heatmap tiles through the session,
//! the policy that names a basemap only when one is configured, and a place's forecast on the
//! Alerts page with the chosen alert's threshold and where it fires; the playground's list of
//! recommendations.

use alerts_core::rule::{DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
use aq_core::{CleanlinessIndex, PollenLevel, PollenLevels, PollenOutlook, PollenType, Position};
use axum::http::{StatusCode, header};

use crate::dashboard::{Browser, ada_with_key, dashboard, dashboard_with};

#[tokio::test]
async fn heatmap_tiles_come_through_the_session() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let signed_out = browser.get("/dashboard/tiles/0/0/0.png").await;
    assert_eq!(signed_out.status, StatusCode::SEE_OTHER);
    assert_eq!(signed_out.location(), "/dashboard/signin");
    browser.sign_up("ada@example.org").await;
    let tile = browser
        .get("/dashboard/tiles/3/4/2.png?time=2026-05-01T08:00:00Z")
        .await;
    assert_eq!(tile.status, StatusCode::OK);
    assert_eq!(tile.headers[header::CONTENT_TYPE], "image/png");
    assert!(tile.headers.contains_key(header::ETAG));
    let bad = browser.get("/dashboard/tiles/17/0/0.png").await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.body.contains("z: 17 is outside 0..=16"), "{}", bad.body);
}

#[tokio::test]
async fn the_policy_names_the_basemap_only_when_configured_and_only_on_map_pages() {
    let plain = dashboard(false);
    let mut browser = Browser::new(&plain);
    browser.sign_up("ada@example.org").await;
    let page = browser.get("/dashboard/playground").await;
    let policy = page.headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(policy.contains("img-src 'self' data:;"), "{policy}");

    let basemap = insights_dashboard::Basemap::parse(
        "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
        "© OpenStreetMap contributors",
    )
    .unwrap();
    let dash = dashboard_with(false, Some(basemap));
    let mut browser = Browser::new(&dash);
    let (csrf, key) = ada_with_key(&mut browser).await;
    let _ = csrf;
    for path in [
        "/dashboard/playground".to_owned(),
        format!("/dashboard/rules?key={}", key.0),
    ] {
        let page = browser.get(&path).await;
        let policy = page.headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(
            policy.contains("img-src 'self' data: https://tile.openstreetmap.org;"),
            "{path}: {policy}"
        );
        assert!(policy.contains("script-src 'self';"), "{policy}");
        assert!(
            page.body
                .contains("data-basemap=\"https://tile.openstreetmap.org/{z}/{x}/{y}.png\""),
            "{path}"
        );
    }
    let keys = browser.get("/dashboard/keys").await;
    let policy = keys.headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(!policy.contains("openstreetmap"), "{policy}");
}

fn ci(v: f64) -> Option<CleanlinessIndex> {
    Some(CleanlinessIndex::new(v).unwrap())
}

#[tokio::test]
async fn a_places_forecast_shows_bands_threshold_and_where_the_alert_fires() {
    let dash = dashboard(false);
    let here = Position::new(13.4, 52.52).unwrap();
    // 72 now, slowly worse, then 4 points down at hour 3 and 11 down from hour 5 on, for
    // longer than the two hours a change must last.
    let mut values = vec![
        ci(72.0),
        ci(71.0),
        ci(70.0),
        ci(68.0),
        None,
        ci(61.0),
        ci(61.0),
    ];
    values.extend((7..=96).map(|h| ci(60.0 + f64::from(h % 7))));
    dash.forecast.set_hourly(here, values);
    let level = |v| Some(PollenLevel::new(v).unwrap());
    let levels = |tree, grass| {
        let mut l = PollenLevels::default();
        if let Some(t) = level(tree) {
            l.set(PollenType::Tree, t);
        }
        if let Some(g) = level(grass) {
            l.set(PollenType::Grass, g);
        }
        l
    };
    dash.forecast.set_pollen(
        here,
        PollenOutlook {
            today: chrono::NaiveDate::from_ymd_opt(2026, 5, 1).unwrap(),
            yesterday: levels(1, 2),
            days: vec![
                levels(1, 2),
                levels(2, 3),
                levels(4, 3),
                levels(5, 2),
                levels(3, 1),
            ],
        },
    );
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_key(&mut browser).await;
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    // Medium sensitivity: a change of 10 CI points within 6 hours.
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
    let body = &page.body;
    assert!(body.contains("id=\"forecast-chart\""), "{body}");
    assert_eq!(
        body.matches("<rect class=\"band\"").count(),
        5,
        "the five categories"
    );
    assert_eq!(body.matches("<path class=\"ci-line\"").count(), 1);
    // The line breaks where hour 4 is missing: two runs.
    let at = body.find("<path class=\"ci-line\" d=\"").unwrap();
    let d = &body[at..body[at..].find("\" fill").unwrap() + at];
    assert_eq!(d.matches('M').count(), 2, "{d}");
    assert_eq!(body.matches("<rect class=\"threshold\"").count(), 1);
    // Hour 5 is the first 10 points below 72.
    assert_eq!(body.matches("<circle class=\"fires\"").count(), 1);
    assert!(body.contains("fires in 5 h"));
    assert!(
        body.contains("In 5 hours the air quality is expected to be worse (61 AQI)."),
        "{body}"
    );
    // The rule replayed over the last three days, on the same place.
    assert!(body.contains("id=\"rule-backtest\""), "{body}");
    assert!(
        body.contains("alerts with this rule's Repeat setting"),
        "{body}"
    );
    // Five days of pollen, two types with values: ten bars.
    assert_eq!(body.matches("<rect class=\"pollen-bar\"").count(), 10);
    assert!(body.contains("src=\"/dashboard/assets/leaflet.js\""));
    assert!(body.contains("id=\"forecast-map\""));
}

#[tokio::test]
async fn a_pollen_alert_is_marked_on_the_day_it_fires() {
    let dash = dashboard(false);
    let here = Position::new(2.35, 48.86).unwrap();
    let tree = |v| {
        let mut l = PollenLevels::default();
        l.set(PollenType::Tree, PollenLevel::new(v).unwrap());
        l
    };
    dash.forecast.set_pollen(
        here,
        PollenOutlook {
            today: chrono::NaiveDate::from_ymd_opt(2026, 5, 1).unwrap(),
            yesterday: tree(1),
            days: vec![tree(1), tree(2), tree(4)],
        },
    );
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_key(&mut browser).await;
    let account = dash
        .manager
        .identity()
        .account_by_email("ada@example.org")
        .await
        .unwrap();
    let spec = RuleSpec::new(
        DataType::Pollen,
        Forecast::Days(2),
        Sensitivity::Medium,
        MessageSpec::Default,
    )
    .unwrap();
    dash.manager.add_rule(account.id, key, spec).await.unwrap();
    let page = browser
        .get(&format!(
            "/dashboard/rules?key={}&lat=48.86&lon=2.35",
            key.0
        ))
        .await;
    let body = &page.body;
    assert!(
        body.contains("id=\"forecast-none\""),
        "no air-quality series here"
    );
    assert_eq!(body.matches("<rect class=\"pollen-bar\"").count(), 3);
    assert_eq!(body.matches("<circle class=\"fires\"").count(), 1, "{body}");
    assert!(body.contains("In 2 days, tree"), "{body}");
}

#[tokio::test]
async fn typed_coordinates_out_of_range_say_what_to_correct() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = ada_with_key(&mut browser).await;
    for (query, expected) in [
        ("lat=north&lon=13", "Latitude: `north` is not a number"),
        ("lat=95&lon=13", "atitude 95 is outside [-90, 90]"),
    ] {
        let page = browser
            .get(&format!("/dashboard/rules?key={}&{query}", key.0))
            .await;
        assert_eq!(page.status, StatusCode::OK);
        assert!(page.body.contains(expected), "{query}: {}", page.body);
        assert!(!page.body.contains("id=\"forecast-chart\""));
    }
}

#[tokio::test]
async fn deliveries_are_listed_first_then_charted_per_hour_and_day() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let (_, key) = crate::dashboard::ada_with_a_delivery(&mut browser).await;
    let page = browser
        .get(&format!("/dashboard/deliveries?key={}", key.0))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    let body = &page.body;
    let chart = |id: &str| {
        let at = body
            .find(&format!("id=\"{id}\""))
            .unwrap_or_else(|| panic!("no {id}"));
        let end = body[at..].find("</svg>").unwrap() + at;
        body[at..end].to_owned()
    };
    for window in ["24h", "7d"] {
        let requests = chart(&format!("chart-{window}-requests"));
        assert_eq!(
            requests.matches("<rect class=\"bar\"").count(),
            1,
            "{requests}"
        );
        assert!(requests.contains(": 1 requests"), "{requests}");
        let deliveries = chart(&format!("chart-{window}-deliveries"));
        assert!(
            deliveries.contains("data-series=\"delivered (2xx)\""),
            "{deliveries}"
        );
        let latency = chart(&format!("chart-{window}-latency"));
        assert_eq!(latency.matches("<rect class=\"bar\"").count(), 1);
        assert_eq!(latency.matches("<line class=\"max\"").count(), 1);
        chart(&format!("chart-{window}-alerts"));
    }
    assert!(body.contains("By status: HTTP "), "{body}");
    // The list first, what a reader comes for; the charts summarise it below.
    let charts_at = body.find("id=\"activity\"").unwrap();
    let table_at = body.find("id=\"deliveries\"").unwrap();
    assert!(table_at < charts_at);
    assert!(body.contains("<tr class=\"delivery\">"));
}

#[tokio::test]
async fn the_playground_names_the_route_of_the_best_departure() {
    let dash = dashboard(false);
    let mut browser = Browser::new(&dash);
    let csrf = browser.sign_up("ada@example.org").await;
    let page = browser.get("/dashboard/playground").await;
    let at = page.body.find("name=\"request\"").unwrap();
    let start = page.body[at..].find('>').unwrap() + at + 1;
    let end = page.body[start..].find("</textarea>").unwrap() + start;
    let mut sample: serde_json::Value =
        serde_json::from_str(&page.body[start..end].replace("&quot;", "\"")).unwrap();
    sample["departureWindowMinutes"] = serde_json::json!(30);
    let first = sample["routes"][0]["id"].clone();
    let first = first
        .as_str()
        .map_or_else(|| first.to_string(), str::to_owned);
    let scored = browser
        .post(
            "/dashboard/playground",
            &[("request", &sample.to_string()), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(scored.status, StatusCode::OK, "{}", scored.body);
    // A flat field: leaving at once on the first route is best, and the list names the route,
    // not the time.
    assert!(
        scored.body.contains(&format!(
            "<strong>Best Departure Time</strong> — route {first}: Leave at"
        )),
        "{}",
        scored.body
    );
}
