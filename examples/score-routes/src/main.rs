//! Scores routes by linking `racs-core` directly and prints the response of the score-routes
//! operation as JSON.
//!
//! ```sh
//! cargo run -p score-routes                          # the sample routes in sample-request.json
//! cargo run -p score-routes -- my-request.json       # a request body of your own
//! cargo run -p score-routes -- --details my-request.json   # plus length, coverage and dose
//! ```
//!
//! The air-quality data is a made-up field around central Berlin (see [`demo_ci`]), not
//! measurements; the program says so on stderr, and the printed JSON says so in the member
//! `dataSource`, the server's own for synthetic data, so that the output names its source
//! wherever it is copied to.

use std::process::ExitCode;
use std::sync::Arc;

use aq_core::memory::FnSource;
use aq_core::{AirQualitySource, CleanlinessIndex, Position, SourceInfo};
use insights_system::{RandomIds, SystemClock, TokioTimer};
use racs_core::{Limits, RacsConfig, ScoreRequest, Scorer};

/// The sample request of docs/quick-start.md: four walks from Zoologischer Garten to the
/// Brandenburg Gate.
const SAMPLE_REQUEST: &str = include_str!("../sample-request.json");

/// Made-up air over central Berlin: an east-west avenue along 52.5163° N is dirty, the park
/// south of it and the canal further south are cleaner. Outside a box around the centre there is
/// no data, so routes elsewhere get error 100.
fn demo_ci(p: Position) -> Option<CleanlinessIndex> {
    if !(13.25..=13.50).contains(&p.lon()) || !(52.45..=52.56).contains(&p.lat()) {
        return None;
    }
    let metres_from_avenue = (p.lat() - 52.5163).abs() * 111_200.0;
    let traffic = 38.0 * (-(metres_from_avenue / 150.0).powi(2)).exp();
    let park = (13.338..=13.376).contains(&p.lon()) && (52.5095..=52.5150).contains(&p.lat());
    let canal = (52.5050..=52.5085).contains(&p.lat());
    let green = if canal {
        13.0
    } else if park {
        7.0
    } else {
        0.0
    };
    CleanlinessIndex::new((72.0 - traffic + green).clamp(0.0, 100.0)).ok()
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut details = false;
    let mut path = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--details" => details = true,
            "-h" | "--help" => {
                eprintln!("usage: score-routes [--details] [REQUEST.json]");
                return ExitCode::SUCCESS;
            }
            _ => path = Some(arg),
        }
    }

    let text = match &path {
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read {p}: {e}");
                return ExitCode::from(2);
            }
        },
        None => SAMPLE_REQUEST.to_owned(),
    };
    let request = match ScoreRequest::from_json_slice(text.as_bytes(), &Limits::default()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: the request is refused: {e}");
            return ExitCode::from(2);
        }
    };

    eprintln!(
        "note: DEMO DATA. The air quality below comes from a made-up field around central \
         Berlin, not from measurements."
    );
    let source = FnSource::new("demo-berlin", |p: Position, _| demo_ci(p));
    let info = source.info();
    let scorer = Scorer::new(
        Arc::new(source),
        Arc::new(SystemClock),
        Arc::new(TokioTimer),
        Arc::new(RandomIds),
    )
    .with_config(RacsConfig {
        include_details: details,
        ..RacsConfig::default()
    });
    let response = scorer.score(&request).await;

    match serde_json::to_value(&response)
        .and_then(|v| serde_json::to_string_pretty(&labelled(v, &info)))
    {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot encode the response: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `response` with the member `dataSource` naming `source`: its name, whether it is
/// synthetic, and what it is.
fn labelled(mut response: serde_json::Value, source: &SourceInfo) -> serde_json::Value {
    if let Some(members) = response.as_object_mut() {
        members.insert(
            "dataSource".to_owned(),
            serde_json::json!({
                "name": source.name,
                "synthetic": source.demo,
                "notice": if source.demo {
                    "Synthetic demo data: a made-up field around central Berlin, not measurements."
                } else {
                    "Measured or forecast air quality."
                },
            }),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_printed_response_names_its_synthetic_source() {
        let request =
            ScoreRequest::from_json_slice(SAMPLE_REQUEST.as_bytes(), &Limits::default()).unwrap();
        let source = FnSource::new("demo-berlin", |p: Position, _| demo_ci(p));
        let info = source.info();
        let scorer = Scorer::new(
            Arc::new(source),
            Arc::new(SystemClock),
            Arc::new(TokioTimer),
            Arc::new(RandomIds),
        );
        let response = serde_json::to_value(scorer.score(&request).await).unwrap();
        let printed = labelled(response, &info);
        assert_eq!(printed["dataSource"]["name"], "demo-berlin");
        assert_eq!(printed["dataSource"]["synthetic"], true);
        assert_eq!(printed["racss"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn the_sample_request_is_valid() {
        let request =
            ScoreRequest::from_json_slice(SAMPLE_REQUEST.as_bytes(), &Limits::default()).unwrap();
        assert_eq!(request.routes.len(), 4);
    }

    #[test]
    fn the_demo_field_is_dirty_on_the_avenue_and_empty_far_away() {
        let on_avenue = demo_ci(Position::new(13.36, 52.5163).unwrap()).unwrap();
        let by_canal = demo_ci(Position::new(13.36, 52.5060).unwrap()).unwrap();
        assert!(on_avenue.value() < 40.0 && by_canal.value() > 80.0);
        assert!(demo_ci(Position::new(2.35, 48.85).unwrap()).is_none());
    }
}
