//! Lookups by the place's country: `regionCode`, and the national index an hour lists by
//! default, with a stub that puts everything north of 50° in Great Britain.

use std::sync::Arc;

use aq_core::{
    CleanlinessIndex, Concentration, Concentrations, CountryCode, CountryLookup, Pollutant,
    Position,
};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;

use crate::openapi::{assert_valid, document};
use crate::support::{App, app_with_countries, send};

/// Great Britain north of 50°, the sea south of it.
struct NorthIsBritain;

impl CountryLookup for NorthIsBritain {
    fn country(&self, position: Position) -> Option<CountryCode> {
        (position.lat() > 50.0)
            .then(|| CountryCode::new("GB"))
            .flatten()
    }
}

const LONDON: (f64, f64) = (-0.13, 51.5);
const SEA: (f64, f64) = (-30.0, 35.0);

/// A week and the current hour of the same air at `place`: PM2.5 40, PM10 20, NO₂ 30, O₃ 60
/// and SO₂ 5 µg/m³.
fn store_air(app: &App, place: (f64, f64)) {
    let position = Position::new(place.0, place.1).unwrap();
    let hours = 7 * 24 + 1;
    let air = [
        (Pollutant::Pm25, 40.0),
        (Pollutant::Pm10, 20.0),
        (Pollutant::No2, 30.0),
        (Pollutant::O3, 60.0),
        (Pollutant::So2, 5.0),
    ]
    .into_iter()
    .fold(Concentrations::default(), |c, (p, v)| {
        c.with(p, Concentration::new(v).unwrap())
    });
    app.forecast
        .set_hourly(position, vec![CleanlinessIndex::new(60.0).ok(); hours]);
    app.forecast
        .set_hourly_concentrations(position, vec![Some(air); hours]);
}

async fn conditions(app: &App, place: (f64, f64), extra: &str) -> Value {
    let (status, body) = send(
        app,
        Request::get(format!(
            "/insights/v1/conditions?key={}&lat={}&lon={}{extra}",
            app.key, place.1, place.0
        ))
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

fn codes(body: &Value) -> Vec<&str> {
    body["data"]["hour"]["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["code"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_british_place_lists_the_daqi_by_default_and_a_place_at_sea_none() {
    let app = app_with_countries(Arc::new(NorthIsBritain)).await;
    store_air(&app, LONDON);
    store_air(&app, SEA);
    let doc = document(&app).await;

    let body = conditions(&app, LONDON, "").await;
    assert_valid(&doc, "ConditionsResponse", &body);
    assert_eq!(body["metadata"]["regionCode"], "gb");
    assert_eq!(codes(&body), ["ci", "eaqi", "usa_epa", "gbr_defra"]);
    // A day of 40 µg/m³ of PM2.5 is band 4 (36 to 41), Moderate.
    let daqi = &body["data"]["hour"]["indexes"][3];
    assert_eq!(daqi["value"], 4, "{daqi}");
    assert_eq!(daqi["category"], "Moderate");
    assert_eq!(daqi["color"], "#ffff00");
    assert_eq!(daqi["dominantPollutant"], "pm25");
    assert_eq!(daqi["displayName"], "Daily Air Quality Index (UK, Defra)");

    let body = conditions(&app, SEA, "").await;
    assert_valid(&doc, "ConditionsResponse", &body);
    assert_eq!(body["metadata"]["regionCode"], Value::Null);
    assert_eq!(codes(&body), ["ci", "eaqi", "usa_epa"]);
}

#[tokio::test]
async fn any_national_index_is_computed_anywhere_when_asked() {
    let app = app_with_countries(Arc::new(NorthIsBritain)).await;
    store_air(&app, SEA);
    let body = conditions(&app, SEA, "&indexes=ind_cpcb,can_ec,chn_mep,gbr_defra").await;
    assert_eq!(codes(&body), ["ind_cpcb", "can_ec", "chn_mep", "gbr_defra"]);
    let indexes = &body["data"]["hour"]["indexes"];
    // India: PM2.5 40 is 51 + 49 · (40 − 31) / 29 = 66.2, Satisfactory, above PM10's 20 and
    // NO₂'s 37.5.
    assert_eq!(indexes[0]["value"], 66, "{indexes}");
    assert_eq!(indexes[0]["category"], "Satisfactory");
    assert_eq!(indexes[0]["dominantPollutant"], "pm25");
    // China: PM2.5 40 is 50 + 50 · 5 / 40 = 56.25, rounded up, Good.
    assert_eq!(indexes[2]["value"], 57, "{indexes}");
    assert_eq!(indexes[2]["category"], "Good");
    // Canada: every value has its risk.
    assert!(indexes[1]["value"].as_u64().unwrap() >= 1);
}
