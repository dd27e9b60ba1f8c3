//! Once-per-change rules: a change told once, again when the forecast turns, per point id,
//! and across the half hour over a source that answers with the nearest hour.

use super::*;

/// The descriptions in the file of the request `token`.
async fn descriptions(h: &Harness, token: Token) -> Vec<String> {
    let file = h.files.read(&FileKey::for_token(token)).await.unwrap();
    decode_all(&file)
        .unwrap()
        .into_iter()
        .map(|line| line.description)
        .collect()
}

#[tokio::test]
async fn a_once_rule_tells_a_change_once_and_again_when_the_forecast_turns() {
    let h = Harness::new().await;
    let once = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(6),
        Sensitivity::Medium,
        MessageSpec::Custom {
            deterioration: "once: worse in {hours} h ({category})".into(),
            improvement: "once: better in {hours} h ({category})".into(),
        },
    )
    .unwrap()
    .with_repeat(Repeat::Once);
    h.store
        .add_rule(&AlertRule {
            id: RuleId(h.ids.new_id()),
            key_id: h.key_id,
            spec: once,
            enabled: true,
            created_at: t0(),
        })
        .await
        .unwrap();
    let pipeline = AlertPipeline::new(h.ports(), PipelineConfig::default());
    let post = || async {
        let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
        assert_eq!(pipeline.run_once(1).await.unwrap().claimed(), 1);
        descriptions(&h, token).await
    };
    let every = "In 2 hours the air quality is expected to be worse (58 AQI).";

    // 72 now, 58 at 10:00: told once, while the rule that repeats tells it every time.
    let worse = "once: worse in 2 h (Moderate)";
    assert_eq!(post().await, [every, worse]);
    assert_eq!(post().await, [every], "the same change is not told again");
    h.clock.set(t0() + chrono::Duration::minutes(40));
    assert_eq!(
        post().await,
        [every],
        "forty minutes on, the change at 10:00 is the same change"
    );

    // The forecast turns: the air gets better instead, and that is news.
    h.forecast
        .set_hourly(paris(), vec![ci(72.0), ci(75.0), ci(85.0), ci(85.0)]);
    let every_better = "In 2 hours the air quality is expected to be better (85 AQI).";
    assert_eq!(
        post().await,
        [every_better, "once: better in 2 h (Excellent)"]
    );
    assert_eq!(
        post().await,
        [every_better],
        "the better air is told once too"
    );

    // It turns back to the first change: told again, the reader last heard the opposite.
    h.forecast
        .set_hourly(paris(), vec![ci(72.0), ci(70.0), ci(58.0), ci(58.0)]);
    assert_eq!(post().await, [every, worse]);

    // Just past the edge of Low (38, within the two-point hysteresis of Moderate's 40): the
    // same episode.
    h.forecast
        .set_hourly(paris(), vec![ci(72.0), ci(70.0), ci(38.0), ci(38.0)]);
    assert_eq!(
        post().await,
        ["In 2 hours the air quality is expected to be worse (38 AQI)."]
    );

    // Deeper into the same episode: another category is news.
    h.forecast
        .set_hourly(paris(), vec![ci(72.0), ci(70.0), ci(35.0), ci(35.0)]);
    let every_low = "In 2 hours the air quality is expected to be worse (35 AQI).";
    assert_eq!(post().await, [every_low, "once: worse in 2 h (Low)"]);

    // The episode told lasted as far as the forecast read (to 12:00); four hours on, the same
    // numbers speak of 14:00 and 15:00: a new episode.
    h.clock.set(t0() + chrono::Duration::hours(4));
    assert_eq!(post().await, [every_low, "once: worse in 2 h (Low)"]);
}

#[tokio::test]
async fn a_once_rule_tells_each_point_id_its_own_change() {
    let h = Harness::new().await;
    for mut rule in h.store.list_rules(h.key_id).await.unwrap() {
        rule.spec = rule.spec.with_repeat(Repeat::Once);
        h.store.update_rule(&rule).await.unwrap();
    }
    let pipeline = AlertPipeline::new(h.ports(), PipelineConfig::default());
    let mut first = h.request();
    let token = pipeline.accept(h.key_id, first.clone()).await.unwrap();
    pipeline.run_once(1).await.unwrap();
    assert_eq!(descriptions(&h, token).await.len(), 1);

    // Another point id at the same place has not been told.
    first.points.push(AlertPoint {
        id: "user-18".into(),
        ..first.points[0].clone()
    });
    let token = pipeline.accept(h.key_id, first).await.unwrap();
    pipeline.run_once(1).await.unwrap();
    let file = h.files.read(&FileKey::for_token(token)).await.unwrap();
    let ids: Vec<String> = decode_all(&file)
        .unwrap()
        .into_iter()
        .map(|l| l.id)
        .collect();
    assert_eq!(ids, ["user-18"]);
}

/// A source that holds one value per clock hour and answers an instant with the nearest
/// hour's, as Open-Meteo does: clean air up to 09:00, dirty from 10:00.
struct NearestHour;

#[async_trait]
impl ForecastSource for NearestHour {
    fn info(&self) -> SourceInfo {
        SourceInfo::demo("nearest-hour")
    }
    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        let read = DateTime::from_timestamp((start.timestamp() + 1800).div_euclid(3600) * 3600, 0)
            .unwrap();
        let dirty_from = t0() + chrono::Duration::hours(2);
        let values = (0..=hours)
            .map(|h| {
                let at = read + chrono::Duration::hours(i64::from(h));
                ci(if at < dirty_from { 72.0 } else { 50.0 })
            })
            .collect();
        Ok(vec![
            Some(HourlyCi {
                start: read,
                values,
                provenance: aq_core::Provenance::Unstated,
            });
            positions.len()
        ])
    }
    async fn daily_pollen(
        &self,
        positions: &[Position],
        _at: DateTime<Utc>,
        _days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        Ok(vec![None; positions.len()])
    }
}

#[tokio::test]
async fn a_once_rule_over_a_source_reading_the_nearest_hour_tells_a_change_once_across_the_half_hour()
 {
    let h = Harness::new().await;
    for mut rule in h.store.list_rules(h.key_id).await.unwrap() {
        rule.spec = rule.spec.with_repeat(Repeat::Once);
        h.store.update_rule(&rule).await.unwrap();
    }
    let mut ports = h.ports();
    ports.forecast = Arc::new(NearestHour);
    let pipeline = AlertPipeline::new(ports, PipelineConfig::default());
    let post = |minute| {
        h.clock.set(t0() + chrono::Duration::minutes(minute));
        async {
            let token = pipeline.accept(h.key_id, h.request()).await.unwrap();
            assert_eq!(pipeline.run_once(1).await.unwrap().claimed(), 1);
            descriptions(&h, token).await
        }
    };
    // At 08:20 the source reads 08:00 and the change is two hours on; at 08:40 it reads 09:00
    // and the change is one hour on. Both speak of 10:00.
    assert_eq!(
        post(20).await,
        ["In 2 hours the air quality is expected to be worse (50 AQI)."]
    );
    assert_eq!(
        post(40).await,
        Vec::<String>::new(),
        "the change at 10:00, read past the half hour, is the same change"
    );
}
