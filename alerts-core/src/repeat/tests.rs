use std::collections::HashMap;

use aq_core::{CleanlinessIndex, HourlyCi, Position};
use chrono::TimeZone;
use proptest::prelude::*;

use super::*;
use crate::evaluate::{ChunkForecast, Evaluator};
use crate::request::AlertPoint;
use crate::rule::{AlertRule, DataType, Forecast, MessageSpec, Persistence, RuleSpec, Sensitivity};
use identity_core::ids::KeyId;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

fn once_rule(horizon: u8, hysteresis: u8) -> AlertRule {
    let spec = RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(horizon),
        Sensitivity::Medium,
        MessageSpec::Default,
    )
    .unwrap()
    .with_repeat(Repeat::Once)
    .with_persistence(Persistence {
        min_duration: None,
        hysteresis: Some(hysteresis),
    })
    .unwrap();
    AlertRule {
        id: RuleId(uuid::Uuid::from_u128(7)),
        key_id: KeyId(uuid::Uuid::from_u128(1)),
        spec,
        enabled: true,
        created_at: t0(),
    }
}

/// What a store keeps of the told episodes: one per slot, the newest.
#[derive(Default)]
struct Told(HashMap<(RuleId, String, String), SentChange>);

impl Told {
    /// Evaluates `rule` at one point whose hourly CI from `at` is `values`, as the pipeline
    /// does, and returns the peaks of the alerts that went into the file.
    fn evaluate(&mut self, rule: &AlertRule, at: DateTime<Utc>, values: &[f64]) -> Vec<f64> {
        let point = AlertPoint {
            position: Position::new(2.35, 48.85).unwrap(),
            id: "user-17".into(),
            custom_data: "{}".into(),
        };
        let series = HourlyCi {
            start: at,
            values: values
                .iter()
                .map(|v| Some(CleanlinessIndex::clamped(*v)))
                .collect(),
            provenance: aq_core::Provenance::Unstated,
        };
        let forecast = ChunkForecast {
            aq: vec![Some(series)],
            evaluated_at: at,
            ..ChunkForecast::default()
        };
        let before = self.0.values().filter(|c| c.until > at).cloned().collect();
        let mut filter = OnceFilter::new(before);
        let mut peaks = Vec::new();
        let rules = [rule.clone()];
        Evaluator::default().evaluate_chunk(&rules, &[point], &forecast, |alert| {
            if filter.admit(alert)
                && let Change::Aq(c) = alert.change
            {
                peaks.push(c.peak.value());
            }
        });
        for c in filter.told() {
            self.0.insert(
                (c.rule_id, c.point_id.clone(), c.subject.clone()),
                c.clone(),
            );
        }
        peaks
    }
}

fn hours(n: i64) -> chrono::Duration {
    chrono::Duration::hours(n)
}

#[test]
fn a_ramp_whose_first_hour_moves_is_told_once_and_again_when_it_deepens() {
    let rule = once_rule(12, 2);
    let mut told = Told::default();
    // 80 falling 4 points an hour to 56, then flat: the first hour 10 points below now moves
    // one hour later at each evaluation, as the air now falls too.
    let ramp = [80.0, 76.0, 72.0, 68.0, 64.0, 60.0, 56.0, 56.0, 56.0, 56.0];
    assert_eq!(told.evaluate(&rule, t0(), &ramp), [56.0]);
    assert!(told.evaluate(&rule, t0() + hours(1), &ramp[1..]).is_empty());
    assert!(told.evaluate(&rule, t0() + hours(2), &ramp[2..]).is_empty());
    // The same ramp now reaches Low (36): a category beyond the told Moderate.
    let deeper = [72.0, 68.0, 64.0, 60.0, 56.0, 48.0, 36.0, 36.0];
    assert_eq!(told.evaluate(&rule, t0() + hours(2), &deeper), [36.0]);
}

#[test]
fn a_peak_on_a_category_edge_is_news_only_past_the_margin() {
    let rule = once_rule(6, 2);
    let mut told = Told::default();
    assert_eq!(
        told.evaluate(&rule, t0(), &[70.0, 70.0, 40.5, 40.5, 70.0]),
        [40.5]
    );
    // Just into Low: within two points of the told peak.
    assert!(
        told.evaluate(&rule, t0(), &[70.0, 70.0, 39.5, 39.0, 70.0])
            .is_empty()
    );
    assert!(
        told.evaluate(&rule, t0(), &[70.0, 70.0, 40.2, 40.5, 70.0])
            .is_empty()
    );
    // Three points past the edge is another category, whatever the margin.
    assert_eq!(
        told.evaluate(&rule, t0(), &[70.0, 70.0, 37.0, 39.0, 70.0]),
        [37.0]
    );
}

#[test]
fn an_episode_after_the_told_one_ended_is_news() {
    let rule = once_rule(6, 2);
    let mut told = Told::default();
    // Worse from 09:00 to 11:00 (ends at 11:00).
    assert_eq!(
        told.evaluate(&rule, t0(), &[70.0, 55.0, 55.0, 70.0]),
        [55.0]
    );
    assert!(
        told.evaluate(&rule, t0(), &[70.0, 55.0, 55.0, 70.0])
            .is_empty()
    );
    // At 11:00 the episode has ended; a new one from 12:00 is told.
    assert_eq!(
        told.evaluate(&rule, t0() + hours(3), &[70.0, 55.0, 55.0, 70.0]),
        [55.0]
    );
}

#[test]
fn a_change_that_starts_after_the_told_one_ends_is_news_before_its_record_runs_out() {
    let rule = once_rule(12, 2);
    let mut told = Told::default();
    // Worse 09:00 to 11:00 (over at 11:00).
    assert_eq!(
        told.evaluate(&rule, t0(), &[70.0, 55.0, 55.0, 70.0]),
        [55.0]
    );
    // An hour later the forecast drops it and shows 15:00 to 17:00 instead: another episode.
    let later = [70.0, 70.0, 70.0, 70.0, 70.0, 70.0, 55.0, 55.0, 70.0];
    assert_eq!(told.evaluate(&rule, t0() + hours(1), &later), [55.0]);
}

#[test]
fn reaching_the_floor_is_news_whatever_the_margin() {
    let rule = once_rule(6, 5);
    let mut told = Told::default();
    assert_eq!(
        told.evaluate(&rule, t0(), &[70.0, 10.0, 10.0, 70.0]),
        [10.0]
    );
    assert!(
        told.evaluate(&rule, t0(), &[70.0, 6.0, 6.0, 70.0])
            .is_empty()
    );
    assert_eq!(told.evaluate(&rule, t0(), &[70.0, 0.0, 6.0, 70.0]), [0.0]);
}

#[test]
fn a_stretched_episode_stays_one_and_the_other_way_is_news() {
    let rule = once_rule(12, 2);
    let mut told = Told::default();
    assert_eq!(
        told.evaluate(&rule, t0(), &[70.0, 55.0, 55.0, 70.0]),
        [55.0]
    );
    // The next run stretches it to 13:00: the same episode, its record now ending then.
    assert!(
        told.evaluate(&rule, t0(), &[70.0, 55.0, 55.0, 55.0, 55.0, 70.0])
            .is_empty()
    );
    // So a run that shows only its last hours (12:00 to 14:00) still speaks of it.
    assert!(
        told.evaluate(&rule, t0(), &[70.0, 70.0, 70.0, 70.0, 55.0, 55.0, 70.0])
            .is_empty()
    );
    // The forecast turns: better air is another change.
    assert_eq!(
        told.evaluate(&rule, t0(), &[70.0, 85.0, 85.0, 70.0]),
        [85.0]
    );
}

#[test]
fn a_record_written_before_episodes_is_told_again_once() {
    let rule = once_rule(6, 2);
    let mut told = Told::default();
    told.0.insert(
        (rule.id, "user-17".into(), "aq".into()),
        SentChange {
            rule_id: rule.id,
            point_id: "user-17".into(),
            subject: "aq".into(),
            mark: "deterioration 2026-05-01T10:00:00Z Moderate".into(),
            until: t0() + hours(3),
        },
    );
    assert_eq!(
        told.evaluate(&rule, t0(), &[70.0, 55.0, 55.0, 70.0]),
        [55.0]
    );
    assert!(
        told.evaluate(&rule, t0(), &[70.0, 55.0, 55.0, 70.0])
            .is_empty()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The same forecast evaluated an hour later, the air now unchanged, tells nothing new:
    /// whatever the first evaluation found, the second finds the same episode.
    #[test]
    fn an_unchanged_forecast_one_hour_later_tells_nothing(
        now in 0.0f64..=100.0,
        rest in prop::collection::vec(0.0f64..=100.0, 1..30),
        hysteresis in 0u8..=5,
    ) {
        let rule = once_rule(48, hysteresis);
        let mut values = vec![now, now];
        values.extend(rest);
        let mut told = Told::default();
        told.evaluate(&rule, t0(), &values);
        prop_assert!(told.evaluate(&rule, t0() + hours(1), &values[1..]).is_empty());
    }

    /// Once an episode is told, peaks moving by no more than the hysteresis in later runs are
    /// never news, across any category edge.
    #[test]
    fn a_peak_moving_within_the_margin_is_never_news(
        first in 1.0f64..=55.0,
        moves in prop::collection::vec(-1.0f64..=1.0, 1..10),
        hysteresis in 1u8..=5,
    ) {
        let rule = once_rule(6, hysteresis);
        let mut told = Told::default();
        prop_assert_eq!(told.evaluate(&rule, t0(), &[70.0, 70.0, first, first, 70.0]).len(), 1);
        for m in moves {
            // Kept off the floor, where reaching it is news whatever the margin (tested above).
            let peak = (first + m * f64::from(hysteresis)).clamp(0.5, 59.0);
            prop_assert!(told.evaluate(&rule, t0(), &[70.0, 70.0, peak, peak, 70.0]).is_empty());
        }
    }
}
