use aq_core::{CleanlinessIndex, PollenLevels};
use chrono::{TimeZone, Utc};
use proptest::prelude::*;

use super::*;
use crate::change::{Direction, Duration};

fn series(values: &[f64]) -> HourlyCi {
    HourlyCi {
        start: Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap(),
        values: values
            .iter()
            .map(|v| Some(CleanlinessIndex::clamped(*v)))
            .collect(),
        provenance: aq_core::Provenance::Unstated,
    }
}

fn rule(horizon: u32, threshold: f64, hysteresis: f64, min_duration: u32) -> EpisodeRule {
    EpisodeRule {
        horizon,
        threshold,
        hysteresis,
        min_duration,
        confidence: 1.0,
    }
}

#[test]
fn an_episode_starting_at_the_horizon_is_confirmed_by_the_hour_past_it() {
    let s = series(&[60.0, 60.0, 60.0, 45.0, 44.0]);
    let c = aq_episode(&s, rule(3, 10.0, 2.0, 2)).unwrap();
    assert_eq!((c.hours, c.last_hours, c.end_hours), (3, 4, None));
    assert_eq!(c.duration(), Duration::AtLeast(2));
    // Without the hour past the horizon the episode cannot be seen to last.
    assert!(aq_episode(&series(&[60.0, 60.0, 60.0, 45.0]), rule(3, 10.0, 2.0, 2)).is_none());
    // Nor may it start past the horizon.
    assert!(
        aq_episode(
            &series(&[60.0, 60.0, 60.0, 45.0, 44.0]),
            rule(2, 10.0, 2.0, 2)
        )
        .is_none()
    );
}

#[test]
fn hysteresis_keeps_a_value_hovering_on_the_line_one_episode() {
    // Threshold 10 below 70 is 60; the forecast hovers 59 / 61 / 59.5 / 61.5 / 59.
    let s = series(&[70.0, 59.0, 61.0, 59.5, 61.5, 59.0, 70.0]);
    let c = aq_episode(&s, rule(6, 10.0, 2.0, 2)).unwrap();
    assert_eq!((c.hours, c.peak_hours, c.end_hours), (1, 1, Some(6)));
    // Without a margin the same forecast is three one-hour wiggles, none of them held.
    assert!(aq_episode(&s, rule(6, 10.0, 0.0, 2)).is_none());
}

#[test]
fn a_missing_hour_neither_ends_nor_counts() {
    let mut s = series(&[70.0, 50.0, 0.0, 50.0, 70.0]);
    s.values[2] = None;
    let c = aq_episode(&s, rule(4, 10.0, 2.0, 2)).unwrap();
    assert_eq!((c.hours, c.last_hours, c.end_hours), (1, 3, Some(4)));
    assert!(
        aq_episode(&s, rule(4, 10.0, 2.0, 3)).is_none(),
        "two hours with values"
    );
}

#[test]
fn a_short_wiggle_one_way_does_not_hide_a_lasting_change_the_other() {
    let s = series(&[50.0, 38.0, 50.0, 62.0, 63.0, 64.0]);
    let c = aq_episode(&s, rule(5, 10.0, 2.0, 2)).unwrap();
    assert_eq!((c.hours, c.direction()), (3, Direction::Improvement));
    assert_eq!((c.peak_hours, c.peak.value()), (5, 64.0));
}

#[test]
fn a_pollen_rise_today_that_stays_is_one_episode_against_yesterday() {
    let grass =
        |v: u8| PollenLevels::default().with(PollenType::Grass, PollenLevel::new(v).unwrap());
    let outlook = PollenOutlook {
        today: chrono::NaiveDate::from_ymd_opt(2026, 5, 1).unwrap(),
        yesterday: grass(1),
        days: vec![grass(3), grass(3), grass(3), grass(3)],
    };
    let [_, one, _] = pollen_episodes(&outlook, rule(0, 2.0, 0.0, 1));
    let one = one.unwrap();
    assert_eq!(
        (one.day, one.end_day),
        (0, None),
        "it lasts the four days read"
    );
    assert_eq!(one.duration(), Duration::AtLeast(1));
    let [_, three, _] = pollen_episodes(&outlook, rule(0, 2.0, 0.0, 3));
    assert_eq!(three.unwrap().duration(), Duration::AtLeast(3));
}

#[test]
fn a_pollen_episode_needs_its_days_and_names_its_worst() {
    let grass =
        |v: u8| PollenLevels::default().with(PollenType::Grass, PollenLevel::new(v).unwrap());
    let outlook = PollenOutlook {
        today: chrono::NaiveDate::from_ymd_opt(2026, 5, 1).unwrap(),
        yesterday: grass(1),
        days: vec![grass(1), grass(3), grass(1), grass(3), grass(5)],
    };
    let [_, one_day, _] = pollen_episodes(&outlook, rule(3, 2.0, 0.0, 1));
    assert_eq!(one_day.unwrap().day, 1);
    let [_, two_days, _] = pollen_episodes(&outlook, rule(3, 2.0, 0.0, 2));
    let two_days = two_days.unwrap();
    assert_eq!(
        (two_days.day, two_days.peak_day, two_days.peak.value()),
        (3, 4, 5)
    );
    assert_eq!(two_days.duration(), Duration::AtLeast(2));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// With a one-step duration and no margin an episode starts where the first change reaching
    /// the threshold is: the rule before episodes, as a special case.
    #[test]
    fn one_hour_and_no_margin_start_at_the_first_crossing(
        now in 0.0f64..=100.0,
        values in prop::collection::vec(prop::option::weighted(0.9, 0.0f64..=100.0), 0..30),
        hours in 0u32..40,
        threshold in 0.5f64..40.0,
    ) {
        let mut s = series(&[now]);
        s.values.extend(values.iter().map(|v| v.map(CleanlinessIndex::clamped)));
        let first = values
            .iter()
            .take(hours as usize)
            .position(|v| v.is_some_and(|v| (v - now).abs() >= threshold));
        let got = aq_episode(&s, rule(hours, threshold, 0.0, 1)).map(|c| c.hours as usize);
        prop_assert_eq!(got, first.map(|i| i + 1));
    }

    /// A forecast whose every change from now is back within the threshold (past the margin)
    /// the next hour never holds a change for two hours, and raises nothing.
    #[test]
    fn changes_never_held_for_the_minimum_raise_nothing(
        now in 20.0f64..=80.0,
        deltas in prop::collection::vec(-20.0f64..=20.0, 1..40),
        threshold in 5.0f64..=20.0,
        hysteresis in 0.0f64..=4.0,
        min_duration in 2u32..=6,
    ) {
        let mut values = vec![now];
        let mut previous_crossed = false;
        for d in &deltas {
            // After an hour past the threshold, the next hour is back at now.
            let v = if previous_crossed { now } else { now + d };
            previous_crossed = (v - now).abs() >= threshold;
            values.push(v);
        }
        let h = u32::try_from(deltas.len()).unwrap();
        prop_assert!(aq_episode(&series(&values), rule(h, threshold, hysteresis, min_duration)).is_none());
    }

    /// A monotone ramp is one episode in its direction, from its first hour past the threshold,
    /// at its worst at the last hour read.
    #[test]
    fn a_monotone_ramp_is_one_episode_named_by_its_last_hour(
        now in 30.0f64..=70.0,
        steps in prop::collection::vec(0.5f64..=4.0, 4..30),
        up in any::<bool>(),
        threshold in 5.0f64..=10.0,
    ) {
        let sign = if up { 1.0 } else { -1.0 };
        let mut values = vec![now];
        let mut v = now;
        for s in &steps {
            v += sign * s;
            values.push(v.clamp(0.0, 100.0));
        }
        let h = u32::try_from(steps.len()).unwrap();
        let s = series(&values);
        let first = values.iter().position(|x| (x - now).abs() >= threshold);
        match aq_episode(&s, rule(h, threshold, 2.0, 2)) {
            Some(c) => {
                let direction = if up { Direction::Improvement } else { Direction::Deterioration };
                prop_assert_eq!(c.direction(), direction);
                prop_assert_eq!(Some(c.hours as usize), first);
                prop_assert_eq!(c.end_hours, None);
                let worst = if up { values.iter().copied().fold(f64::MIN, f64::max) } else { values.iter().copied().fold(f64::MAX, f64::min) };
                prop_assert_eq!(c.peak.value(), worst);
                // The first hour at the worst value (a ramp clamped at the scale's end stays
                // there).
                let first_worst = values.iter().position(|v| *v == worst).unwrap();
                prop_assert_eq!(c.peak_hours as usize, first_worst);
            }
            // Only a ramp that crosses at its very last hour has nothing past it to hold.
            None => prop_assert!(first.is_none() || first == Some(values.len() - 1)),
        }
    }

    /// A forecast that crosses the threshold and then flaps around the line by less than the
    /// hysteresis is one episode, from the first crossing to the end of the hours read.
    #[test]
    fn flapping_within_the_margin_is_one_episode(
        now in 30.0f64..=70.0,
        flaps in prop::collection::vec(-0.99f64..=0.99, 2..30),
        threshold in 5.0f64..=20.0,
        up in any::<bool>(),
    ) {
        let sign = if up { 1.0 } else { -1.0 };
        let line = now + sign * threshold;
        let mut values = vec![now, line + sign * 0.01];
        values.extend(flaps.iter().map(|f| line + f));
        let h = u32::try_from(values.len() - 1).unwrap();
        let c = aq_episode(&series(&values), rule(h, threshold, 2.0, 2)).unwrap();
        prop_assert_eq!((c.hours, c.end_hours), (1, None));
        prop_assert_eq!(c.last_hours, h);
    }
}
