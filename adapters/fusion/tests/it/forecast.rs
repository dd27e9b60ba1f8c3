//! Ahead of now the correction relaxes to the model; every value says how sure it is; stale
//! and stuck stations are counted; the cross-validation scores the fusion.

use std::sync::Arc;

use aq_core::{Area, ForecastSource, Pollutant, Position, Reading, StationId, StationSeries};
use aq_fusion::{FusionConfig, MemoryStations, QcReason, cross_validate};
use chrono::Duration;

use crate::world::{
    Counted, Model, Truth, answered, fused, fused_with, now, stations, stations_within,
};

#[tokio::test]
async fn ahead_of_now_the_correction_falls_off_with_one_fitted_relaxation_time() {
    let truth = Truth::new(7);
    let model = Model::new(truth.clone());
    let all = stations(&truth, 80, 11);
    // The station where the model is furthest off.
    let off = |s: &StationSeries| {
        let x = s.position;
        (truth.at(Pollutant::Pm25, x, 0.0, 1.0) - model.value(Pollutant::Pm25, x, now())).abs()
    };
    let at = all
        .iter()
        .max_by(|a, b| off(a).total_cmp(&off(b)))
        .unwrap()
        .position;
    let source = fused(&model, all, Arc::default());
    let hours = 48;
    let f = source
        .hourly_concentrations(&[at], now(), hours)
        .await
        .unwrap()
        .pop()
        .flatten()
        .unwrap();
    let m = model
        .hourly_concentrations(&[at], now(), hours)
        .await
        .unwrap()
        .pop()
        .flatten()
        .unwrap();
    let pm = |c: &Option<aq_core::Concentrations>| c.unwrap().get(Pollutant::Pm25).unwrap().ug_m3();
    let correction: Vec<f64> = f
        .values
        .iter()
        .zip(&m.values)
        .map(|(f, m)| pm(f) - pm(m))
        .collect();
    assert!(correction[0].abs() > 1.0, "{correction:?}");
    // One e-folding time, fitted to the residuals and within its bounds, for every hour ahead.
    let tau = -1.0 / (correction[1] / correction[0]).ln();
    let config = FusionConfig::default();
    assert!(
        (config.relaxation_min_hours - 1e-6..=config.relaxation_max_hours + 1e-6).contains(&tau),
        "{tau}"
    );
    for (h, c) in correction.iter().enumerate() {
        let expected = correction[0] * (-(h as f64) / tau).exp();
        assert!(
            (c - expected).abs() < 1e-9,
            "hour {h}: {c} against {expected}"
        );
    }
    // The error estimate grows back towards the model's as the correction fades.
    let fusion = source.hourly_fusion(&[at], now(), hours).await.unwrap();
    let sd: Vec<f64> = fusion[0]
        .as_ref()
        .unwrap()
        .values
        .iter()
        .map(|h| h.unwrap().uncertainty.get(Pollutant::Pm25).unwrap())
        .collect();
    assert!(sd.windows(2).all(|w| w[1] >= w[0] - 1e-12), "{sd:?}");
    assert!(sd[hours as usize] > 1.3 * sd[0], "{sd:?}");
    let first = fusion[0].as_ref().unwrap().values[0].unwrap();
    assert!(first.stations_used >= 1);
    assert_eq!(first.newest_observation, Some(now()));
}

#[tokio::test]
async fn the_error_estimate_is_smallest_at_the_stations_and_the_models_far_away() {
    let truth = Truth::new(7);
    let model = Model::new(truth.clone());
    // Stations along the western edge of the cell from 10° to 11° E, so that one analysis
    // holds places beside them, near them and far from them.
    let all = stations_within(&truth, 40, 11, 10.0..10.3);
    let station = all
        .iter()
        .map(|s| s.position)
        .find(|p| p.lat() > 50.2 && p.lat() < 50.8)
        .unwrap();
    let source = fused(&model, all, Arc::default());
    let between = Position::new(10.5, station.lat()).unwrap();
    let far = Position::new(10.99, station.lat()).unwrap();
    let fusion = source
        .hourly_fusion(&[station, between, far], now(), 0)
        .await
        .unwrap();
    let sd = |i: usize| {
        fusion[i].as_ref().unwrap().values[0]
            .unwrap()
            .uncertainty
            .get(Pollutant::No2)
            .unwrap()
    };
    assert!(
        sd(0) < sd(1) && sd(1) < sd(2),
        "{} {} {}",
        sd(0),
        sd(1),
        sd(2)
    );
}

#[tokio::test]
async fn stale_and_stuck_stations_are_left_out_and_counted() {
    let truth = Truth::new(7);
    let model = Model::new(truth.clone());
    let mut all = stations(&truth, 30, 11);
    let at = Position::new(11.5, 51.0).unwrap();
    let series = |id: &str, readings: Vec<(i64, f64)>| StationSeries {
        station: StationId(id.to_owned()),
        position: at,
        pollutant: Pollutant::No2,
        readings: readings
            .into_iter()
            .map(|(h, value)| Reading {
                time: now() + Duration::hours(h),
                value,
            })
            .collect(),
    };
    all.push(series("silent", vec![(-6, 30.0), (-5, 31.0)]));
    all.push(series("frozen", (-8..=0).map(|h| (h, 44.4)).collect()));
    all.push(series("below-zero", vec![(-1, 20.0), (0, -3.0)]));
    let counted = Arc::new(Counted::default());
    let source = fused(&model, all, counted.clone());
    source.hourly_fusion(&[at], now(), 0).await.unwrap();
    assert_eq!(counted.total(QcReason::Stale), 1);
    assert_eq!(counted.total(QcReason::Stuck), 1);
    assert_eq!(counted.total(QcReason::Negative), 1);
    // Asked again, the same analysis counts nothing twice.
    source.hourly_fusion(&[at], now(), 0).await.unwrap();
    assert_eq!(counted.total(QcReason::Stale), 1);
}

#[tokio::test]
async fn cross_validation_scores_the_fusion_above_the_model_with_honest_error_estimates() {
    let truth = Truth::new(7);
    let model = Model::new(truth.clone());
    let stations = MemoryStations::new("stations", stations(&truth, 80, 11));
    let hours: Vec<_> = (0..6).map(|h| now() - Duration::hours(h)).collect();
    let area = Area::new(49.0, 9.0, 53.0, 14.0).unwrap();
    let report = cross_validate(&model, &stations, area, &hours, &FusionConfig::default())
        .await
        .unwrap();
    println!("{report}");
    assert_eq!(report.hours, 6);
    assert_eq!(report.pollutants.len(), 2);
    for p in &report.pollutants {
        assert_eq!(p.readings, 6 * 80, "{p:?}");
        assert!(p.fused.rmse < 0.7 * p.model.rmse, "{p:?}");
        assert!(p.fused.bias.abs() < p.model.bias.abs(), "{p:?}");
        assert!(p.fused.correlation > p.model.correlation, "{p:?}");
        assert!((0.8..=1.0).contains(&p.within_95), "{p:?}");
        assert_eq!(p.methods.fitted, 6, "{p:?}");
    }
    let text = report.to_string();
    assert!(
        text.contains("PM2.5") && text.contains("RMSE ratio"),
        "{text}"
    );
    // Hours ahead, the stations' correction still helps, relaxed or held. The stations read
    // up to now: the five hours before now have their hour ahead read, none its sixth or 24th,
    // which are left out.
    let leads: Vec<(u32, u64)> = report
        .ahead
        .iter()
        .map(|a| (a.lead_hours, a.readings))
        .collect();
    assert_eq!(leads, [(1, 400), (1, 400)], "{:?}", report.ahead);
    // Six hours earlier, the sixth hour ahead is read too.
    let earlier: Vec<_> = hours.iter().map(|h| *h - Duration::hours(6)).collect();
    let report = cross_validate(&model, &stations, area, &earlier, &FusionConfig::default())
        .await
        .unwrap();
    let leads: Vec<(u32, u64)> = report
        .ahead
        .iter()
        .map(|a| (a.lead_hours, a.readings))
        .collect();
    assert_eq!(
        leads,
        [(1, 480), (1, 480), (6, 480), (6, 480)],
        "{:?}",
        report.ahead
    );
    for a in &report.ahead {
        assert!(a.fused.rmse < 0.7 * a.model.rmse, "{a:?}");
        assert!(a.held.rmse < 0.7 * a.model.rmse, "{a:?}");
    }
    assert!(text.contains("relaxed RMSE"), "{text}");
}

#[tokio::test]
async fn one_call_makes_at_most_its_budget_of_analyses_and_the_rest_follow() {
    let truth = Truth::new(7);
    let model = Model::new(truth.clone());
    let config = FusionConfig {
        max_new_analyses: 1,
        ..FusionConfig::default()
    };
    let source = fused_with(&model, stations(&truth, 80, 11), config);
    // Two places in the cell from 10° E, one in the cell from 12° E.
    let places = [
        Position::new(10.4, 51.3).unwrap(),
        Position::new(10.6, 51.6).unwrap(),
        Position::new(12.5, 51.5).unwrap(),
    ];
    let alone = answered(&model, Pollutant::No2, &places, now()).await;
    let first = answered(&source, Pollutant::No2, &places, now()).await;
    // The cell most places wait on is analysed; the other keeps the model for now.
    assert!(
        first[0] != alone[0] && first[1] != alone[1],
        "{first:?} {alone:?}"
    );
    assert_eq!(first[2], alone[2]);
    let second = answered(&source, Pollutant::No2, &places, now()).await;
    assert_eq!(&second[..2], &first[..2]);
    assert!(second[2] != alone[2], "{second:?} {alone:?}");
}

/// PM2.5 series of `n` stations within about 15 km of 11.5° E, 51° N over the twelve hours up to
/// now, each reading `value(hour)` (hours from now, negative) plus a little of its own.
fn around(n: u32, value: impl Fn(i64) -> f64) -> Vec<StationSeries> {
    (0..n)
        .map(|i| {
            let angle = f64::from(i) * 0.41;
            StationSeries {
                station: StationId(format!("B{i:02}")),
                position: Position::new(11.5 + 0.2 * angle.cos(), 51.0 + 0.12 * angle.sin())
                    .unwrap(),
                pollutant: Pollutant::Pm25,
                readings: (-12..=0)
                    .map(|h| Reading {
                        time: now() + Duration::hours(h),
                        // Never the same value twice in a row: a steady reading is not a
                        // stuck one.
                        value: value(h) + 0.1 * f64::from(i % 4) + 0.3 * ((h + 20) % 3) as f64,
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The fused PM2.5 minus the model's at 11.5° E, 51° N, from now for `hours`.
async fn corrections(model: &Model, series: Vec<StationSeries>, hours: u32) -> Vec<f64> {
    let at = Position::new(11.5, 51.0).unwrap();
    let source = fused(model, series, Arc::default());
    let pm = |c: &Option<aq_core::Concentrations>| c.unwrap().get(Pollutant::Pm25).unwrap().ug_m3();
    let f = source
        .hourly_concentrations(&[at], now(), hours)
        .await
        .unwrap();
    let m = model
        .hourly_concentrations(&[at], now(), hours)
        .await
        .unwrap();
    f[0].as_ref()
        .unwrap()
        .values
        .iter()
        .zip(&m[0].as_ref().unwrap().values)
        .map(|(f, m)| pm(f) - pm(m))
        .collect()
}

/// A model that says 10 µg/m³ everywhere, at every hour.
fn flat(truth: Truth) -> Model {
    Model {
        scale: 0.0,
        bias: 10.0,
        ..Model::new(truth)
    }
}

#[tokio::test]
async fn a_bias_the_stations_showed_for_twelve_hours_holds_and_invents_no_trend() {
    let model = flat(Truth::new(7));
    // Fifteen stations that have read 60 for twelve hours where the model says 10.
    let c = corrections(&model, around(15, |_| 60.0), 24).await;
    assert!(c[0] > 40.0, "{c:?}");
    assert!(c[23] >= 0.75 * c[0], "{c:?}");
    // Within the day the fused value moves by less than one µg/m³ an hour and about 10 in all,
    // where a fixed day-long relaxation took 36 of the 50 away.
    assert!(c.windows(2).all(|w| (w[0] - w[1]).abs() < 1.0), "{c:?}");
    assert!(c[0] - c[23] < 10.0, "{c:?}");
}

#[tokio::test]
async fn a_local_event_that_faded_fades_ahead_as_fast() {
    let model = flat(Truth::new(7));
    // A plume that has faded with an e-folding time of three hours since twelve hours ago.
    let c = corrections(
        &model,
        around(15, |h| 10.0 + 400.0 * (-((h + 12) as f64) / 3.0).exp()),
        24,
    )
    .await;
    assert!(c[0] > 1.0, "{c:?}");
    let tau = -1.0 / (c[1] / c[0]).ln();
    assert!((2.0..=6.0).contains(&tau), "fitted {tau} h: {c:?}");
    assert!(c[12] < 0.05 * c[0], "{c:?}");
}

#[tokio::test]
async fn one_past_spike_does_not_decide_how_long_a_bias_lasts() {
    let model = flat(Truth::new(7));
    let mut series = around(15, |_| 60.0);
    // Six hours ago one analyser read 1,000 for an hour; it reads like the others now.
    series[0].readings[6].value = 1_000.0;
    let c = corrections(&model, series, 24).await;
    assert!(c[0] > 40.0, "{c:?}");
    assert!(c[23] >= 0.75 * c[0], "{c:?}");
}

/// The fused CI at 11.5° E, 51° N from now for `hours`: as lookups read it, and as changes are
/// read from it.
async fn ci_both_ways(
    model: &Model,
    series: Vec<StationSeries>,
    hours: u32,
) -> (Vec<f64>, Vec<f64>) {
    let at = Position::new(11.5, 51.0).unwrap();
    let source = fused(model, series, Arc::default());
    let values = |s: Vec<Option<aq_core::HourlyCi>>| -> Vec<f64> {
        s[0].as_ref()
            .unwrap()
            .values
            .iter()
            .map(|v| v.unwrap().value())
            .collect()
    };
    let read = values(source.hourly_ci(&[at], now(), hours).await.unwrap());
    let changes = values(
        source
            .hourly_ci_for_changes(&[at], now(), hours)
            .await
            .unwrap(),
    );
    (read, changes)
}

#[tokio::test]
async fn a_flat_model_under_steady_stations_shows_no_change_to_alert_on() {
    let model = flat(Truth::new(7));
    let (read, changes) = ci_both_ways(&model, around(15, |_| 60.0), 24).await;
    // Lookups see the correction fade a little over the day ...
    assert!(read[23] > read[0], "{read:?}");
    // ... changes are read with it kept: not one hour differs from now, so no rule at any
    // sensitivity has a change to tell.
    assert!(
        changes.iter().all(|v| (v - changes[0]).abs() < 1e-9),
        "{changes:?}"
    );
    assert!(
        (changes[0] - read[0]).abs() < 1e-9,
        "now is the same either way"
    );
}

#[tokio::test]
async fn a_fading_plume_is_not_told_as_air_getting_better() {
    let model = flat(Truth::new(7));
    let plume = around(15, |h| 10.0 + 400.0 * (-((h + 12) as f64) / 3.0).exp());
    let (read, changes) = ci_both_ways(&model, plume, 24).await;
    assert!(read[12] > read[0], "the best estimate fades: {read:?}");
    assert!(
        changes.iter().all(|v| (v - changes[0]).abs() < 1e-9),
        "{changes:?}"
    );
}
