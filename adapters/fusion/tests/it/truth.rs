//! Against the truth: closer than the model between the stations, the model's far from them,
//! and an outlier changes nothing but its own exclusion.

use std::sync::Arc;

use aq_core::{
    AirQualitySource, ForecastSource, Pollutant, Position, Reading, StationId, StationSeries,
};
use aq_fusion::QcReason;

use crate::world::{Counted, Model, Truth, answered, fused, held_out, now, rmse, stations};

#[tokio::test]
async fn between_the_stations_the_fused_field_is_far_closer_to_the_truth_than_the_model() {
    let truth = Truth::new(7);
    let model = Model::new(truth.clone());
    let source = fused(&model, stations(&truth, 80, 11), Arc::default());
    let places = held_out(300, 13);
    for (p, most) in [(Pollutant::Pm25, 0.5), (Pollutant::No2, 0.5)] {
        let truth_there: Vec<f64> = places.iter().map(|&x| truth.at(p, x, 0.0, 1.0)).collect();
        let model_there = answered(&model, p, &places, now()).await;
        let fused_there = answered(&source, p, &places, now()).await;
        let (m, f) = (
            rmse(&model_there, &truth_there),
            rmse(&fused_there, &truth_there),
        );
        let ratio = f / m;
        println!("{p}: model RMSE {m:.2}, fused RMSE {f:.2}, ratio {ratio:.2}");
        assert!(
            ratio < most,
            "{p}: model RMSE {m:.2}, fused {f:.2}, ratio {ratio:.2}"
        );
    }
}

#[tokio::test]
async fn far_from_every_station_the_answer_is_the_models_to_the_bit() {
    let truth = Truth::new(7);
    let model = Model::new(truth.clone());
    let source = fused(&model, stations(&truth, 80, 11), Arc::default());
    // 250 km and more east of the easternmost station, still inside the model.
    let far: Vec<Position> = [16.8, 18.0, 20.5]
        .iter()
        .map(|&lon| Position::new(lon, 51.0).unwrap())
        .collect();
    let queries: Vec<aq_core::SampleQuery> = far
        .iter()
        .map(|&position| aq_core::SampleQuery {
            position,
            time: now(),
        })
        .collect();
    assert_eq!(
        source.sample(&queries).await.unwrap(),
        model.sample(&queries).await.unwrap()
    );
    let start = now() - chrono::Duration::hours(3);
    assert_eq!(
        ForecastSource::hourly_ci(&source, &far, start, 30)
            .await
            .unwrap(),
        model.hourly_ci(&far, start, 30).await.unwrap()
    );
    assert_eq!(
        source.hourly_concentrations(&far, start, 30).await.unwrap(),
        model.hourly_concentrations(&far, start, 30).await.unwrap()
    );
    // No station stands behind those hours, nor within reach to tell the model's error.
    let fusion = source.hourly_fusion(&far, start, 30).await.unwrap();
    for series in fusion {
        for hour in series.unwrap().values {
            let hour = hour.unwrap();
            assert_eq!(hour.stations_used, 0);
            assert_eq!(hour.newest_observation, None);
            assert_eq!(hour.uncertainty, aq_core::Uncertainties::default());
        }
    }
}

#[tokio::test]
async fn an_injected_outlier_changes_nothing_but_its_own_exclusion() {
    let truth = Truth::new(7);
    let model = Model::new(truth.clone());
    let honest = stations(&truth, 80, 11);
    let mut with_outlier = honest.clone();
    // 1,000 µg/m³ in the middle of the domain, among readings in the tens.
    let middle = Position::new(11.5, 51.0).unwrap();
    with_outlier.push(StationSeries {
        station: StationId("broken".into()),
        position: middle,
        pollutant: Pollutant::Pm25,
        readings: (-3..=0)
            .map(|h| Reading {
                time: now() + chrono::Duration::hours(h),
                value: 1_000.0 + f64::from(h as i32),
            })
            .collect(),
    });
    let counted = Arc::new(Counted::default());
    let clean = fused(&model, honest, Arc::default());
    let dirty = fused(&model, with_outlier, counted.clone());
    let mut places = held_out(200, 17);
    places.push(middle);
    for p in [Pollutant::Pm25, Pollutant::No2] {
        assert_eq!(
            answered(&dirty, p, &places, now()).await,
            answered(&clean, p, &places, now()).await,
            "{p}"
        );
    }
    // The first-guess check takes it before the spatial test is asked; no honest reading goes.
    assert_eq!(counted.total(QcReason::GrossError), 1);
    assert_eq!(counted.total(QcReason::Outlier), 0);
    assert_eq!(counted.total(QcReason::Stale), 0);
}

#[tokio::test]
async fn a_broken_analyser_with_one_neighbour_is_left_out_and_corrects_nothing() {
    let truth = Truth::new(7);
    let model = Model::new(truth.clone());
    let broken_at = Position::new(11.5, 51.0).unwrap();
    // The one honest station 25 km east; the place asked 8 km west of the analyser.
    let neighbour_at = Position::new(11.5 + 25.0 / 70.0, 51.0).unwrap();
    let asked = Position::new(11.5 - 8.0 / 70.0, 51.0).unwrap();
    let series = |id: &str, at: Position, value: &dyn Fn(i64) -> f64| StationSeries {
        station: StationId(id.into()),
        position: at,
        pollutant: Pollutant::Pm25,
        readings: (-3..=0)
            .map(|h| Reading {
                time: now() + chrono::Duration::hours(h),
                value: value(h),
            })
            .collect(),
    };
    let honest = vec![series("honest", neighbour_at, &|h| {
        truth.at(Pollutant::Pm25, neighbour_at, h as f64, 1.0)
    })];
    let mut with_broken = honest.clone();
    with_broken.push(series("broken", broken_at, &|h| 1_000.0 + h as f64));
    let counted = Arc::new(Counted::default());
    let clean = fused(&model, honest, Arc::default());
    let dirty = fused(&model, with_broken, counted.clone());
    let near = answered(&dirty, Pollutant::Pm25, &[asked], now()).await;
    assert_eq!(
        near,
        answered(&clean, Pollutant::Pm25, &[asked], now()).await
    );
    assert!(near[0] < 100.0, "{near:?}");
    assert_eq!(counted.total(QcReason::GrossError), 1);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Stations that read exactly what the model says correct nothing, anywhere, at any hour.
    #[test]
    fn stations_that_agree_with_the_model_leave_it_as_it_is(
        places in proptest::collection::vec((10.0f64..13.0, 50.0f64..52.0), 1..30),
        queries in proptest::collection::vec((8.0f64..15.0, 49.0f64..53.0, -6i64..30), 1..20),
    ) {
        let model = Model::new(Truth::new(3));
        let series: Vec<StationSeries> = places
            .iter()
            .enumerate()
            .flat_map(|(i, &(lon, lat))| {
                let x = Position::new(lon, lat).unwrap();
                let model = &model;
                [Pollutant::Pm25, Pollutant::No2].map(move |p| StationSeries {
                    station: StationId(format!("S{i}")),
                    position: x,
                    pollutant: p,
                    readings: (-4..=0)
                        .map(|h| {
                            let t = now() + chrono::Duration::hours(h);
                            Reading { time: t, value: model.value(p, x, t) }
                        })
                        .collect(),
                })
            })
            .collect();
        let source = fused(&model, series, Arc::default());
        let queries: Vec<aq_core::SampleQuery> = queries
            .iter()
            .map(|&(lon, lat, h)| aq_core::SampleQuery {
                position: Position::new(lon, lat).unwrap(),
                time: now() + chrono::Duration::hours(h),
            })
            .collect();
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let (fused, alone) = rt.block_on(async {
            (source.sample(&queries).await.unwrap(), model.sample(&queries).await.unwrap())
        });
        proptest::prop_assert_eq!(fused, alone);
    }
}
