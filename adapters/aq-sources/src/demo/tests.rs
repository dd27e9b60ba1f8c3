//! The field's character: where and when the air is dirty, pollen seasons, determinism.

use aq_core::{PollenType, Pollutant};
use chrono::TimeZone;
use proptest::prelude::*;

use super::*;

fn at(y: i32, m: u32, d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, h, 0, 0).unwrap()
}

fn pos(lon: f64, lat: f64) -> Position {
    Position::new(lon, lat).unwrap()
}

#[test]
fn info_is_labelled_demo() {
    let i = AirQualitySource::info(&DemoField::default());
    assert!(i.demo);
    assert_eq!(i.name, "demo");
    assert!(i.attribution.unwrap().contains("not measurements"));
}

#[test]
fn cities_are_dirtier_than_remote_ocean() {
    let f = DemoField::default();
    let t = at(2026, 1, 14, 8);
    let paris = f.concentrations_at(pos(2.35, 48.86), t);
    let pacific = f.concentrations_at(pos(-140.0, -30.0), t);
    let no2 = |c: Concentrations| c.get(Pollutant::No2).unwrap().ug_m3();
    assert!(no2(paris) > 3.0 * no2(pacific), "{paris:?} vs {pacific:?}");
}

#[test]
fn pollen_seasons_follow_hemisphere() {
    let f = DemoField::default();
    let berlin = pos(13.4, 52.5);
    let melbourne = pos(144.96, -37.81);
    let tree = |l: PollenLevels| l.get(PollenType::Tree).unwrap().value();
    let grass = |l: PollenLevels| l.get(PollenType::Grass).unwrap().value();
    // Mid-April: birch season in Berlin; autumn in Melbourne.
    let april = at(2026, 4, 15, 12);
    assert!(tree(f.pollen_at(berlin, april)) > tree(f.pollen_at(berlin, at(2026, 12, 1, 12))));
    assert!(tree(f.pollen_at(berlin, april)) >= tree(f.pollen_at(melbourne, april)));
    // December: summer grass in Melbourne, nothing in Berlin.
    let dec = at(2026, 12, 10, 2);
    assert_eq!(grass(f.pollen_at(berlin, dec)), 0);
    assert!(grass(f.pollen_at(melbourne, dec)) >= grass(f.pollen_at(melbourne, april)));
    // No pollen near the poles.
    assert_eq!(tree(f.pollen_at(pos(0.0, 80.0), april)), 0);
}

#[test]
fn seeds_change_the_field() {
    let p = pos(10.0, 20.0);
    let t = at(2026, 6, 1, 12);
    assert_ne!(
        DemoField::new(1).sample_at(p, t),
        DemoField::new(2).sample_at(p, t)
    );
}

#[test]
fn weather_moves_slowly() {
    let f = DemoField::default();
    let p = pos(-40.0, 10.0);
    let t = at(2026, 6, 1, 12);
    let a = f.sample_at(p, t).unwrap().ci.value();
    let b = f
        .sample_at(p, t + chrono::Duration::minutes(10))
        .unwrap()
        .ci
        .value();
    assert!((a - b).abs() < 2.0, "{a} then {b}");
}

#[tokio::test]
async fn forecast_is_the_field_at_future_times() {
    let f = DemoField::default();
    let p = pos(121.47, 31.23);
    let start = at(2026, 3, 1, 0);
    let series = f.hourly_ci(&[p], start, 6).await.unwrap();
    let series = series[0].as_ref().unwrap();
    assert_eq!(series.values.len(), 7);
    assert_eq!(
        series.values[6],
        f.sample_at(p, start + chrono::Duration::hours(6))
            .map(|s| s.ci)
    );
    let outlook = f.daily_pollen(&[p], start, 3).await.unwrap();
    let outlook = outlook[0].as_ref().unwrap();
    assert_eq!(outlook.days.len(), 4);
    // The days of a lookup: the outlook's levels, with counts, and made up.
    let days = f.pollen_days(&[p], start, 4).await.unwrap();
    let days = days[0].as_ref().unwrap();
    assert_eq!(days.provenance, Provenance::Synthetic);
    let levels: Vec<_> = days.days.iter().map(|d| d.levels()).collect();
    assert_eq!(levels, outlook.days);
    assert!(
        days.days[0]
            .get(aq_core::PollenType::Grass)
            .unwrap()
            .mean_grains_m3
            .is_some()
    );
    // Every plant has a day, and a type's mean is the sum of its plants' means.
    for day in &days.days {
        assert_eq!(day.plants().count(), aq_core::Plant::ALL.len());
        for kind in aq_core::PollenType::ALL {
            let of_type: f64 = day
                .plants()
                .filter(|(p, _)| p.pollen_type() == kind)
                .map(|(_, v)| v.mean_grains_m3)
                .sum();
            let mean = day.get(kind).unwrap().mean_grains_m3.unwrap();
            assert!((of_type - mean).abs() < 1e-9, "{kind} on {}", day.date);
        }
    }
    // The concentrations beside it are those the CI was derived from.
    let air = f.hourly_concentrations(&[p], start, 6).await.unwrap();
    let air = air[0].as_ref().unwrap();
    assert_eq!(air.values.len(), 7);
    let six = air.values[6].unwrap();
    assert_eq!(
        six,
        f.concentrations_at(p, start + chrono::Duration::hours(6))
    );
    assert_eq!(f.bands.ci(&six), series.values[6]);
}

#[tokio::test]
async fn conforms_to_the_ports() {
    use crate::conformance::{self, Expectations, ForecastExpectations};
    let f = DemoField::default();
    let q = |lon, lat, t| SampleQuery {
        position: pos(lon, lat),
        time: t,
    };
    conformance::check_air_quality(
        &f,
        &Expectations {
            covered: vec![
                q(2.35, 48.86, at(2026, 1, 5, 8)),
                q(2.35, 48.86, at(2026, 1, 5, 20)),
                q(-179.9, -89.0, at(2030, 7, 1, 0)),
                q(151.2, -33.9, at(2026, 3, 1, 12)),
            ],
            uncovered: vec![],
        },
    )
    .await;
    conformance::check_forecast(
        &f,
        &ForecastExpectations {
            covered: vec![pos(13.4, 52.5), pos(-58.4, -34.6)],
            uncovered: vec![],
            start: at(2026, 4, 20, 6),
            hours: 96,
            pollen_covered: true,
        },
    )
    .await;
}

proptest! {
    #[test]
    fn deterministic_and_in_range(
        seed in any::<u64>(),
        lon in -180.0f64..=180.0,
        lat in -90.0f64..=90.0,
        secs in 0i64..4_102_444_800,
    ) {
        let p = pos(lon, lat);
        let t = DateTime::<Utc>::from_timestamp(secs, 0).unwrap();
        let a = DemoField::new(seed);
        let b = DemoField::new(seed);
        let s = a.sample_at(p, t).unwrap();
        prop_assert_eq!(Some(s), b.sample_at(p, t));
        prop_assert!((0.0..=100.0).contains(&s.ci.value()));
        let c = s.concentrations.unwrap();
        for pol in Pollutant::ALL {
            let v = c.get(pol).unwrap().ug_m3();
            prop_assert!(v.is_finite() && (0.0..5_000.0).contains(&v), "{pol} = {v}");
        }
        prop_assert_eq!(a.pollen_at(p, t), b.pollen_at(p, t));
    }
}
