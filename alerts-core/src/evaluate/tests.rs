use aq_core::memory::MemoryForecast;
use aq_core::{CleanlinessIndex, PollenLevel};
use aq_core::{PollenLevels, PollenType};

use crate::change::Direction;
use chrono::TimeZone;
use proptest::prelude::*;

use super::*;
use crate::episode::{EpisodeRule, aq_episode};

/// The first crossing, as episodes of one hour without a margin find it.
fn aq_change(s: &HourlyCi, hours: u32, threshold: f64) -> Option<crate::change::AqChange> {
    aq_episode(
        s,
        EpisodeRule {
            horizon: hours,
            threshold,
            hysteresis: 0.0,
            min_duration: 1,
            confidence: 0.0,
        },
    )
}

/// The first day's change per type, as episodes of one day without a margin find it.
fn pollen_changes(
    outlook: &PollenOutlook,
    days: u32,
    threshold: u8,
) -> [Option<crate::change::PollenChange>; 3] {
    pollen_episodes(
        outlook,
        EpisodeRule {
            horizon: days,
            threshold: f64::from(threshold),
            hysteresis: 0.0,
            min_duration: 1,
            confidence: 0.0,
        },
    )
}
use crate::ids::RuleId;
use crate::rule::MessageSpec;
use identity_core::ids::KeyId;

fn ci(v: f64) -> Option<CleanlinessIndex> {
    Some(CleanlinessIndex::new(v).unwrap())
}

fn lvl(v: u8) -> PollenLevel {
    PollenLevel::new(v).unwrap()
}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

fn may_day() -> chrono::NaiveDate {
    t0().date_naive()
}

fn series(values: Vec<Option<CleanlinessIndex>>) -> HourlyCi {
    HourlyCi {
        start: t0(),
        values,
        provenance: aq_core::Provenance::Unstated,
    }
}

fn rule(n: u128, dt: DataType, f: Forecast, s: Sensitivity) -> AlertRule {
    AlertRule {
        id: RuleId(uuid::Uuid::from_u128(n)),
        key_id: KeyId(uuid::Uuid::from_u128(1)),
        spec: RuleSpec::new(dt, f, s, MessageSpec::Default).unwrap(),
        enabled: true,
        created_at: t0(),
    }
}

fn point(id: &str, lon: f64, lat: f64) -> AlertPoint {
    AlertPoint {
        position: Position::new(lon, lat).unwrap(),
        id: id.into(),
        custom_data: "{}".into(),
    }
}

#[test]
fn default_thresholds_match_scoring_md() {
    let t = Thresholds::default();
    let aq: Vec<f64> = Sensitivity::ALL.iter().map(|s| t.aq(*s)).collect();
    let pollen: Vec<u8> = Sensitivity::ALL.iter().map(|s| t.pollen(*s)).collect();
    assert_eq!(aq, [5.0, 10.0, 20.0]);
    assert_eq!(pollen, [1, 2, 3]);
}

#[test]
fn aq_takes_the_first_hour_past_the_threshold() {
    let s = series(vec![ci(60.0), ci(57.0), ci(65.0), ci(40.0), ci(30.0)]);
    let c = aq_change(&s, 4, 5.0).unwrap();
    assert_eq!((c.hours, c.direction()), (2, Direction::Improvement));
    let c = aq_change(&s, 4, 10.0).unwrap();
    assert_eq!((c.hours, c.direction()), (3, Direction::Deterioration));
    assert_eq!(c.forecast, ci(40.0).unwrap());
    assert!(
        aq_change(&s, 2, 10.0).is_none(),
        "hour 3 is past a 2 hour horizon"
    );
    assert!(aq_change(&s, 96, 31.0).is_none());
}

#[test]
fn aq_threshold_is_inclusive_and_ignores_hour_zero() {
    let s = series(vec![ci(50.0), ci(45.0)]);
    assert_eq!(aq_change(&s, 1, 5.0).unwrap().hours, 1);
    assert!(aq_change(&s, 1, 5.000_001).is_none());
    assert!(aq_change(&s, 0, 1.0).is_none());
}

#[test]
fn aq_missing_data_never_alerts() {
    assert!(aq_change(&series(vec![None, ci(0.0)]), 1, 5.0).is_none());
    assert!(aq_change(&series(vec![]), 1, 5.0).is_none());
    let s = series(vec![ci(90.0), None, ci(10.0)]);
    assert_eq!(aq_change(&s, 2, 5.0).unwrap().hours, 2);
}

#[test]
fn pollen_compares_today_with_yesterday_and_later_days_with_today() {
    let yesterday = PollenLevels::default()
        .with(PollenType::Tree, lvl(1))
        .with(PollenType::Grass, lvl(3));
    let outlook = PollenOutlook {
        today: may_day(),
        yesterday,
        days: vec![
            PollenLevels::default()
                .with(PollenType::Tree, lvl(1))
                .with(PollenType::Grass, lvl(4))
                .with(PollenType::Weed, lvl(5)),
            PollenLevels::default()
                .with(PollenType::Tree, lvl(4))
                .with(PollenType::Grass, lvl(0)),
        ],
    };
    let [tree, grass, weed] = pollen_changes(&outlook, 1, 1);
    assert_eq!(tree.unwrap().day, 1);
    assert_eq!(tree.unwrap().levels(), 3);
    assert_eq!(grass.unwrap().day, 0, "today compares with yesterday");
    assert_eq!(grass.unwrap().direction(), Direction::Deterioration);
    assert!(
        weed.is_none(),
        "no level yesterday means no alert for today"
    );

    let [tree, grass, _] = pollen_changes(&outlook, 0, 1);
    assert!(tree.is_none(), "tomorrow is outside `today`");
    assert!(grass.is_some());

    let [tree, grass, _] = pollen_changes(&outlook, 4, 3);
    assert_eq!(tree.unwrap().day, 1);
    assert_eq!(grass.unwrap().day, 1, "tomorrow compares with today");
    assert_eq!(grass.unwrap().levels(), 4);
    assert_eq!(grass.unwrap().direction(), Direction::Improvement);
}

fn grass(v: u8) -> PollenLevels {
    PollenLevels::default().with(PollenType::Grass, lvl(v))
}

#[test]
fn flat_daily_levels_never_alert_at_any_sensitivity_or_horizon() {
    for level in 0..=5 {
        let outlook = PollenOutlook {
            today: may_day(),
            yesterday: grass(level),
            days: vec![grass(level); 5],
        };
        for s in Sensitivity::ALL {
            let t = Thresholds::default().pollen(s);
            assert_eq!(pollen_changes(&outlook, 4, t), [None; 3], "{level} {s:?}");
        }
    }
}

#[test]
fn a_rise_of_k_levels_day_over_day_gives_its_wording() {
    let ev = Evaluator::default();
    let spec = |f| RuleSpec::new(DataType::Pollen, f, Sensitivity::High, MessageSpec::Default);
    for (k, size) in [(1, "slightly"), (2, "moderately"), (3, "drastically")] {
        let today = PollenOutlook {
            today: may_day(),
            yesterday: grass(1),
            days: vec![grass(1 + k), grass(1 + k)],
        };
        let tomorrow = PollenOutlook {
            today: may_day(),
            yesterday: grass(2),
            days: vec![grass(2), grass(2 + k)],
        };
        for (outlook, forecast, when) in [
            (today, Forecast::Today, "Today"),
            (tomorrow, Forecast::Days(1), "Tomorrow"),
        ] {
            let mut text = String::new();
            ev.changes(
                &spec(forecast).unwrap(),
                None,
                &[],
                Some(&outlook),
                |c, _| {
                    write_description(
                        &mut text,
                        &MessageSpec::Default,
                        &c,
                        AqIndex::Cleanliness,
                        None,
                        &ev.messages,
                        i18n_core::Language::English,
                    );
                },
            );
            assert_eq!(
                text,
                format!("{when} grass pollen levels will {size} rise.")
            );
        }
    }
}

#[tokio::test]
async fn a_chunk_costs_one_call_per_data_type_and_emits_in_order() {
    let forecast = MemoryForecast::default();
    let a = point("a", 2.35, 48.85);
    let b = point("b", 13.4, 52.5);
    let c = point("c", 0.0, 0.0); // not covered
    forecast.set_hourly(a.position, vec![ci(80.0), ci(70.0), ci(50.0)]);
    forecast.set_hourly(b.position, vec![ci(50.0), ci(52.0)]);
    forecast.set_pollen(
        b.position,
        PollenOutlook {
            today: may_day(),
            yesterday: grass(1),
            days: vec![grass(2)],
        },
    );
    let rules = vec![
        rule(1, DataType::Aq, Forecast::Hours(2), Sensitivity::Medium),
        rule(2, DataType::Pollen, Forecast::Today, Sensitivity::High),
        AlertRule {
            enabled: false,
            ..rule(3, DataType::Aq, Forecast::Hours(1), Sensitivity::High)
        },
    ];
    let points = vec![a, b, c];
    let ev = Evaluator::default();
    let fc = ev.fetch(&forecast, &rules, &points, t0()).await.unwrap();
    assert_eq!((fc.aq.len(), fc.pollen.len()), (3, 3));
    let mut lines = Vec::new();
    let n = ev.evaluate_chunk(&rules, &points, &fc, |alert| {
        lines.push(alert.line().to_owned_line());
    });
    assert_eq!(n, 2);
    assert_eq!(lines[0].id, "a");
    assert_eq!(
        lines[0].description,
        "In 1 hour the air quality is expected to be worse (70 AQI)."
    );
    assert_eq!(lines[1].id, "b");
    assert_eq!(lines[1].data_type, DataType::Pollen);
    assert_eq!(
        lines[1].description,
        "Today grass pollen levels will slightly rise."
    );
}

#[tokio::test]
async fn a_us_epa_rule_shows_the_us_aqi_of_the_forecast_hour_and_the_default_the_ci() {
    use aq_core::{Concentration, Concentrations, Pollutant};
    let pm25 =
        |v| Some(Concentrations::default().with(Pollutant::Pm25, Concentration::new(v).unwrap()));
    let forecast = MemoryForecast::anchored(t0());
    let a = point("a", 2.35, 48.85);
    let b = point("b", 13.4, 52.5); // CI but no concentrations
    forecast.set_hourly(a.position, vec![ci(80.0), ci(70.0), ci(50.0)]);
    forecast.set_hourly(b.position, vec![ci(80.0), ci(70.0), ci(70.0)]);
    // Hour 1, the hour the change speaks of: PM2.5 80 µg/m³ after 5 the hour before. The
    // NowCast weighs them (80 + 5 / 2) / 1.5 = 55.0 µg/m³: US AQI 149 in the 2024 table,
    // where the hour alone would read 168.
    forecast.set_hourly_concentrations(a.position, vec![pm25(5.0), pm25(80.0), pm25(30.0)]);
    let us = |id| AlertRule {
        spec: RuleSpec::new(
            DataType::Aq,
            Forecast::Hours(2),
            Sensitivity::Medium,
            MessageSpec::Default,
        )
        .unwrap()
        .with_aq_index(AqIndex::UsEpa),
        ..rule(id, DataType::Aq, Forecast::Hours(2), Sensitivity::Medium)
    };
    let rules = vec![
        us(1),
        rule(2, DataType::Aq, Forecast::Hours(2), Sensitivity::Medium),
    ];
    let points = vec![a, b];
    let ev = Evaluator::default();
    let fc = ev.fetch(&forecast, &rules, &points, t0()).await.unwrap();
    let mut lines = Vec::new();
    ev.evaluate_chunk(&rules, &points, &fc, |alert| {
        lines.push(alert.line().to_owned_line().description);
    });
    assert_eq!(
        lines,
        [
            "In 1 hour the air quality is expected to be worse (US AQI 149).",
            "In 1 hour the air quality is expected to be worse (70 AQI).",
            "In 1 hour the air quality is expected to be worse (US AQI not available).",
            "In 1 hour the air quality is expected to be worse (70 AQI).",
        ]
    );

    // Without a US AQI rule the concentrations are not asked for.
    let fc = ev
        .fetch(&forecast, &rules[1..], &points, t0())
        .await
        .unwrap();
    assert!(fc.concentrations.is_empty());
}

#[tokio::test]
async fn each_rule_recommends_for_its_audience_the_general_one_as_before() {
    use crate::rule::Audience;
    let forecast = MemoryForecast::default();
    let a = point("a", 2.35, 48.85);
    // 80 now, 35 (Low) for the next two hours: worse, reaching Low.
    forecast.set_hourly(a.position, vec![ci(80.0), ci(35.0), ci(35.0)]);
    let of = |id, audience| AlertRule {
        spec: RuleSpec::new(
            DataType::Aq,
            Forecast::Hours(1),
            Sensitivity::Medium,
            MessageSpec::Default,
        )
        .unwrap()
        .with_audience(audience),
        ..rule(id, DataType::Aq, Forecast::Hours(1), Sensitivity::Medium)
    };
    let rules = vec![of(1, Audience::General), of(2, Audience::Children)];
    let points = vec![a];
    let ev = Evaluator::default();
    let fc = ev.fetch(&forecast, &rules, &points, t0()).await.unwrap();
    let mut lines = Vec::new();
    ev.evaluate_chunk(&rules, &points, &fc, |alert| {
        lines.push(alert.line().to_owned_line());
    });
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].description, lines[1].description);
    assert_eq!(
        lines[0].recommendation,
        "Limit prolonged or heavy outdoor exertion, especially if you are sensitive to air pollution."
    );
    assert_eq!(
        lines[1].recommendation,
        "Children should avoid long or heavy outdoor exertion; move sport and active play indoors."
    );
}

#[tokio::test]
async fn no_rules_of_a_type_means_no_call_for_it() {
    let forecast = MemoryForecast::default();
    let rules = vec![rule(
        1,
        DataType::Pollen,
        Forecast::Days(4),
        Sensitivity::Low,
    )];
    let points = vec![point("a", 1.0, 1.0)];
    let fc = Evaluator::default()
        .fetch(&forecast, &rules, &points, t0())
        .await
        .unwrap();
    assert!(fc.aq.is_empty());
    assert_eq!(fc.pollen, vec![None]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Alerts exactly when some hour is at or past the threshold, and at the first such hour.
    #[test]
    fn aq_alerts_iff_a_change_reaches_the_threshold(
        now in 0.0f64..=100.0,
        values in prop::collection::vec(prop::option::weighted(0.9, 0.0f64..=100.0), 0..30),
        hours in 0u32..40,
        threshold in 0.5f64..40.0,
    ) {
        let mut all = vec![ci(now)];
        all.extend(values.iter().map(|v| v.map(|v| CleanlinessIndex::new(v).unwrap())));
        let s = series(all);
        let first = values
            .iter()
            .take(hours as usize)
            .position(|v| v.is_some_and(|v| (v - now).abs() >= threshold));
        match (aq_change(&s, hours, threshold), first) {
            (None, None) => {}
            (Some(c), Some(i)) => {
                prop_assert_eq!(c.hours as usize, i + 1);
                prop_assert!((c.forecast.value() - now).abs() >= threshold);
            }
            (got, want) => prop_assert!(false, "got {:?}, expected hour {:?}", got, want),
        }
    }

    /// Mirroring the series around the CI now swaps the direction and keeps the hour.
    #[test]
    fn aq_deterioration_and_improvement_are_mirror_images(
        now in 20.0f64..=80.0,
        deltas in prop::collection::vec(-20.0f64..=20.0, 1..24),
        threshold in 0.5f64..20.0,
    ) {
        let up = series(std::iter::once(now).chain(deltas.iter().map(|d| now + d)).map(ci).collect());
        let down = series(std::iter::once(now).chain(deltas.iter().map(|d| now - d)).map(ci).collect());
        let h = deltas.len() as u32;
        match (aq_change(&up, h, threshold), aq_change(&down, h, threshold)) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                prop_assert_eq!(a.hours, b.hours);
                prop_assert_eq!(a.direction(), b.direction().opposite());
            }
            (a, b) => prop_assert!(false, "{:?} vs {:?}", a, b),
        }
    }

    /// Pollen: alerts at the first day whose change from its reference day (yesterday for
    /// today, today for later days) is at least the threshold; mirrored levels swap the
    /// direction.
    #[test]
    fn pollen_alerts_iff_a_change_reaches_the_threshold(
        yesterday in 0u8..=5,
        days in prop::collection::vec(prop::option::weighted(0.9, 0u8..=5), 0..6),
        horizon in 0u32..5,
        threshold in 1u8..=5,
    ) {
        let levels = |v: Option<u8>| v.map_or_else(PollenLevels::default, |v| PollenLevels::default().with(PollenType::Weed, lvl(v)));
        let outlook = PollenOutlook { today: may_day(), yesterday: levels(Some(yesterday)), days: days.iter().map(|d| levels(*d)).collect() };
        let mirrored = PollenOutlook {
            today: may_day(),
            yesterday: levels(Some(5 - yesterday)),
            days: days.iter().map(|d| levels(d.map(|v| 5 - v))).collect(),
        };
        let today = days.first().copied().flatten();
        let first = days
            .iter()
            .take(horizon as usize + 1)
            .enumerate()
            .position(|(day, d)| {
                let reference = if day == 0 { Some(yesterday) } else { today };
                matches!((reference, d), (Some(r), Some(v)) if v.abs_diff(r) >= threshold)
            });
        let got = pollen_changes(&outlook, horizon, threshold)[2];
        let mirror = pollen_changes(&mirrored, horizon, threshold)[2];
        prop_assert_eq!(got.map(|c| c.day as usize), first);
        prop_assert_eq!(mirror.map(|c| c.day), got.map(|c| c.day));
        if let (Some(a), Some(b)) = (got, mirror) {
            prop_assert_eq!(a.direction(), b.direction().opposite());
            prop_assert!(a.levels() >= threshold);
        }
        prop_assert!(pollen_changes(&outlook, horizon, threshold)[0].is_none());
    }
}

#[tokio::test]
async fn an_alert_line_carries_its_rule_time_episode_and_index_values_after_the_specs_members() {
    let forecast = MemoryForecast::anchored(t0());
    let a = point("a", 2.35, 48.85);
    // Worse from 09:00 (38, Low), worst at 10:00 (15, Poor), over at 12:00.
    forecast.set_hourly(
        a.position,
        vec![
            ci(70.0),
            ci(38.0),
            ci(15.0),
            ci(30.0),
            ci(70.0),
            ci(70.0),
            ci(70.0),
        ],
    );
    let rules = vec![rule(
        9,
        DataType::Aq,
        Forecast::Hours(6),
        Sensitivity::Medium,
    )];
    let points = vec![a];
    let ev = Evaluator::default();
    let fc = ev.fetch(&forecast, &rules, &points, t0()).await.unwrap();
    let mut lines = Vec::new();
    ev.evaluate_chunk(&rules, &points, &fc, |alert| {
        let mut encoder = crate::ndjson::NdjsonEncoder::new();
        encoder.encode(&alert.line()).unwrap();
        lines.push(String::from_utf8(encoder.finish().to_vec()).unwrap());
    });
    let json: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    // The spec's seven members first and in their order, the members for programs after.
    let at = |key: &str| lines[0].find(&format!("\"{key}\":")).unwrap();
    let order = [
        "description",
        "recommendation",
        "lat",
        "lon",
        "id",
        "data_type",
        "custom_data",
        "rule_id",
        "evaluated_at",
        "direction",
        "subject",
        "starts_at",
        "index",
        "peak_at",
        "peak",
        "ends_at",
        "duration",
    ];
    assert!(
        order.windows(2).all(|w| at(w[0]) < at(w[1])),
        "{}",
        lines[0]
    );
    assert_eq!(json["rule_id"], rules[0].id.to_string());
    assert_eq!(json["evaluated_at"], "2026-05-01T08:00:00Z");
    assert_eq!(json["direction"], "deterioration");
    assert_eq!(json["subject"], "aq");
    assert_eq!(json["starts_at"], "2026-05-01T09:00:00Z");
    assert_eq!(
        json["index"],
        serde_json::json!({"code": "cleanliness", "value": 38.0, "category": "Low"})
    );
    assert_eq!(json["peak_at"], "2026-05-01T10:00:00Z");
    assert_eq!(json["peak"]["category"], "Poor");
    assert_eq!(json["ends_at"], "2026-05-01T12:00:00Z");
    assert_eq!(json["duration"], 3);
    let decoded = crate::ndjson::decode_all(lines[0].as_bytes()).unwrap();
    assert_eq!(decoded[0].details.as_ref().unwrap().duration, 3);
}

/// A source whose values ahead relax (as a fused source's do) where the hours for changes keep
/// the correction: the rules read the latter.
struct Relaxing(MemoryForecast);

#[async_trait::async_trait]
impl ForecastSource for Relaxing {
    fn info(&self) -> aq_core::SourceInfo {
        self.0.info()
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        self.0.hourly_ci(positions, start, hours).await
    }

    async fn hourly_ci_for_changes(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let mut series = self.0.hourly_ci(positions, start, hours).await?;
        for s in series.iter_mut().flatten() {
            let now = s.values[0];
            s.values.iter_mut().for_each(|v| *v = now);
        }
        Ok(series)
    }

    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        self.0.daily_pollen(positions, at, days).await
    }
}

#[tokio::test]
async fn rules_read_the_hours_for_changes_so_a_fading_correction_tells_nothing() {
    let memory = MemoryForecast::anchored(t0());
    let a = point("a", 2.35, 48.85);
    // The relaxed values climb back towards a clean model: "better" by 20 points in 3 hours.
    memory.set_hourly(
        a.position,
        vec![ci(40.0), ci(48.0), ci(55.0), ci(60.0), ci(62.0)],
    );
    let rules = vec![rule(1, DataType::Aq, Forecast::Hours(3), Sensitivity::High)];
    let points = vec![a];
    let ev = Evaluator::default();
    let fc = ev.fetch(&memory, &rules, &points, t0()).await.unwrap();
    assert_eq!(
        ev.evaluate_chunk(&rules, &points, &fc, |_| {}),
        1,
        "read as given"
    );
    let fc = ev
        .fetch(&Relaxing(memory), &rules, &points, t0())
        .await
        .unwrap();
    assert_eq!(ev.evaluate_chunk(&rules, &points, &fc, |_| {}), 0);
}

/// A source that is as sure of now as 2 CI points and of every hour ahead as `sd`, as a fused
/// one says.
struct Uncertain(MemoryForecast, f64);

#[async_trait::async_trait]
impl ForecastSource for Uncertain {
    fn info(&self) -> aq_core::SourceInfo {
        self.0.info()
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        self.0.hourly_ci(positions, start, hours).await
    }

    async fn hourly_fusion(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<aq_core::HourlyFusion>>, SourceError> {
        // Now known to within 2 points, every hour ahead to within `sd`.
        let hour = |sd| {
            Some(aq_core::FusedHour {
                ci_uncertainty: Some(sd),
                ..aq_core::FusedHour::default()
            })
        };
        let mut values = vec![hour(2.0)];
        values.extend(std::iter::repeat_n(hour(self.1), hours as usize));
        Ok(vec![
            Some(aq_core::HourlyFusion { start, values });
            positions.len()
        ])
    }

    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        self.0.daily_pollen(positions, at, days).await
    }
}

#[tokio::test]
async fn a_change_within_its_own_uncertainty_is_not_told_and_one_beyond_it_says_how_likely() {
    let lines = |sd: f64| async move {
        let memory = MemoryForecast::anchored(t0());
        let a = point("a", 2.35, 48.85);
        // 12 points worse for three hours, 29 at the worst (Low).
        memory.set_hourly(a.position, vec![ci(45.0), ci(33.0), ci(29.0), ci(33.0)]);
        let rules = vec![rule(
            1,
            DataType::Aq,
            Forecast::Hours(3),
            Sensitivity::Medium,
        )];
        let points = vec![a];
        let ev = Evaluator::default();
        let fc = ev
            .fetch(&Uncertain(memory, sd), &rules, &points, t0())
            .await
            .unwrap();
        let mut out = Vec::new();
        ev.evaluate_chunk(&rules, &points, &fc, |alert| {
            out.push(alert.line().to_owned_line())
        });
        out
    };
    // Hours ahead known to within 5 points: the change (12) is beyond its own spread (4.6).
    let told = lines(5.0).await;
    assert_eq!(told.len(), 1);
    // Low or worse at the peak of 29: Φ((40 − 29) / 5) ≈ 0.986.
    let p = told[0].details.as_ref().unwrap().probability.unwrap();
    assert!((p - 0.986).abs() < 0.001, "{p}");
    // Within 17 points, even the largest change (16) is within its spread (16.9): nothing is
    // told.
    assert!(lines(17.0).await.is_empty());
    // A source without uncertainty tells it, with no probability.
    let plain = {
        let memory = MemoryForecast::anchored(t0());
        let a = point("a", 2.35, 48.85);
        memory.set_hourly(a.position, vec![ci(45.0), ci(33.0), ci(29.0), ci(33.0)]);
        let rules = vec![rule(
            1,
            DataType::Aq,
            Forecast::Hours(3),
            Sensitivity::Medium,
        )];
        let ev = Evaluator::default();
        let points = vec![a];
        let fc = ev.fetch(&memory, &rules, &points, t0()).await.unwrap();
        let mut out = Vec::new();
        ev.evaluate_chunk(&rules, &points, &fc, |alert| {
            out.push(alert.line().to_owned_line())
        });
        out
    };
    assert_eq!(plain.len(), 1);
    assert_eq!(plain[0].details.as_ref().unwrap().probability, None);
}

#[tokio::test]
async fn a_rule_that_sets_no_duration_follows_the_servers_default_and_one_that_does_its_own() {
    let memory = MemoryForecast::anchored(t0());
    let a = point("a", 2.35, 48.85);
    // One hour 15 points worse, then back.
    memory.set_hourly(a.position, vec![ci(70.0), ci(55.0), ci(70.0), ci(70.0)]);
    let plain = rule(1, DataType::Aq, Forecast::Hours(3), Sensitivity::Medium);
    let own = AlertRule {
        spec: plain
            .spec
            .clone()
            .with_persistence(crate::rule::Persistence {
                min_duration: Some(2),
                hysteresis: None,
            })
            .unwrap(),
        ..rule(2, DataType::Aq, Forecast::Hours(3), Sensitivity::Medium)
    };
    let rules = vec![plain, own];
    let points = vec![a];
    let count = |ev: &Evaluator| {
        let ev = ev.clone();
        let rules = rules.clone();
        let points = points.clone();
        let memory = &memory;
        async move {
            let fc = ev.fetch(memory, &rules, &points, t0()).await.unwrap();
            let mut fired = Vec::new();
            ev.evaluate_chunk(&rules, &points, &fc, |alert| fired.push(alert.rule.id));
            fired
        }
    };
    assert!(
        count(&Evaluator::default()).await.is_empty(),
        "two hours by default"
    );
    let one_hour = Evaluator {
        thresholds: Thresholds {
            aq_min_hours: 1,
            ..Thresholds::default()
        },
        ..Evaluator::default()
    };
    assert_eq!(
        count(&one_hour).await,
        [rules[0].id],
        "the rule that set two keeps two"
    );
}
