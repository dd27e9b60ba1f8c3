//! The conformance suite every [`AirQualitySource`] and [`ForecastSource`] adapter runs: the
//! port contract checked the same way for all of them.
//!
//! Available to other crates' tests with the `conformance` feature. The adapter's test supplies
//! queries it knows to be covered and not covered (for example, a point beside a station and
//! one far from every station, or a station's point at a time with and without fresh
//! readings); the suite checks:
//!
//! - an empty batch is answered with an empty list;
//! - the answer has one entry per query, in query order: a batch interleaving covered and
//!   uncovered queries, and the same batch reversed, give the flags and values that the queries
//!   give one by one;
//! - covered flags are honest: every covered query is `Some` with a CI in [0, 100] that, when
//!   the source reports concentrations, is the CI of those concentrations under the default
//!   EAQI bands, and every uncovered query is `None`;
//! - times are respected: a place answered at two times gives each time its own answer in the
//!   mixed batch (checked through the single-query answers);
//! - the narrower answers agree with the full one: `sample_ci` gives `sample`'s CIs, and
//!   `sample_exposure` its CIs and PM2.5;
//! - a pollen day's plants belong to types the day has, and no plant's mean count exceeds its
//!   type's.
//!
//! The suite panics with a message naming the broken rule, like any test assertion.

use aq_core::{
    AirQualitySource, AirSample, EaqiBands, ForecastSource, HourlyCi, Position, SampleQuery,
};
use chrono::{DateTime, Utc};

/// What the adapter's test knows about its source.
#[derive(Debug, Clone, Default)]
pub struct Expectations {
    /// Queries the source must answer (`Some`).
    pub covered: Vec<SampleQuery>,
    /// Queries the source must not answer (`None`): no data there, or not at that time.
    pub uncovered: Vec<SampleQuery>,
}

fn same(a: Option<AirSample>, b: Option<AirSample>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            (a.ci.value() - b.ci.value()).abs() < 1e-9 && a.concentrations == b.concentrations
        }
        _ => false,
    }
}

/// Runs the [`AirQualitySource`] checks.
///
/// # Panics
/// When the source breaks the port contract, with a message saying how.
pub async fn check_air_quality(source: &dyn AirQualitySource, expect: &Expectations) {
    let name = source.info().name;
    let empty = source.sample(&[]).await;
    assert!(
        matches!(&empty, Ok(v) if v.is_empty()),
        "{name}: an empty batch must give an empty answer, got {empty:?}"
    );

    // One by one first: the reference answers.
    let mut singles = Vec::new();
    for (q, covered) in expect
        .covered
        .iter()
        .map(|q| (*q, true))
        .chain(expect.uncovered.iter().map(|q| (*q, false)))
    {
        let answer = match source.sample(&[q]).await {
            Ok(a) => a,
            Err(e) => panic!("{name}: a single query failed: {e}"),
        };
        assert_eq!(answer.len(), 1, "{name}: one query must give one answer");
        let a = answer[0];
        if covered {
            let s = a.unwrap_or_else(|| panic!("{name}: {q:?} must be covered"));
            assert!(
                (0.0..=100.0).contains(&s.ci.value()),
                "{name}: CI {} outside [0, 100]",
                s.ci.value()
            );
            if let Some(c) = s.concentrations {
                let ci = EaqiBands::default().ci(&c);
                assert!(
                    ci.is_some_and(|ci| (ci.value() - s.ci.value()).abs() < 1e-6),
                    "{name}: CI {} does not match its concentrations {c:?}",
                    s.ci.value()
                );
            }
        } else {
            assert!(a.is_none(), "{name}: {q:?} must not be covered, got {a:?}");
        }
        singles.push((q, a));
    }

    // Interleaved: covered and uncovered alternate, so a shifted answer shows.
    let mut order: Vec<usize> = Vec::new();
    let (nc, nu) = (expect.covered.len(), expect.uncovered.len());
    for i in 0..nc.max(nu) {
        if i < nc {
            order.push(i);
        }
        if i < nu {
            order.push(nc + i);
        }
    }
    for reversed in [false, true] {
        let mut idx = order.clone();
        if reversed {
            idx.reverse();
        }
        let batch: Vec<SampleQuery> = idx.iter().map(|&i| singles[i].0).collect();
        let answers = match source.sample(&batch).await {
            Ok(a) => a,
            Err(e) => panic!("{name}: a batch failed: {e}"),
        };
        assert_eq!(
            answers.len(),
            batch.len(),
            "{name}: {} answers for {} queries",
            answers.len(),
            batch.len()
        );
        for (k, &i) in idx.iter().enumerate() {
            assert!(
                same(answers[k], singles[i].1),
                "{name}: answer {k} of the batch{} differs from the query alone: {:?} vs {:?}",
                if reversed { " (reversed)" } else { "" },
                answers[k],
                singles[i].1
            );
        }
        // The CI-only answer is the full answer's CI, query for query.
        let cis = match source.sample_ci(&batch).await {
            Ok(c) => c,
            Err(e) => panic!("{name}: a batch of CIs failed: {e}"),
        };
        let want: Vec<_> = answers.iter().map(|a| a.map(|s| s.ci)).collect();
        assert_eq!(
            cis,
            want,
            "{name}: sample_ci{} differs from sample's CIs",
            if reversed { " (reversed)" } else { "" }
        );
        // Route scoring's answer (CI and PM2.5) is the full answer's, query for query.
        let exposures = match source.sample_exposure(&batch).await {
            Ok(e) => e,
            Err(e) => panic!("{name}: a batch of exposures failed: {e}"),
        };
        let want: Vec<_> = answers
            .iter()
            .map(|a| a.map(aq_core::Exposure::from))
            .collect();
        assert_eq!(
            exposures,
            want,
            "{name}: sample_exposure{} differs from sample's CI and PM2.5",
            if reversed { " (reversed)" } else { "" }
        );
    }
}

/// What the adapter's test knows about its forecasts.
#[derive(Debug, Clone)]
pub struct ForecastExpectations {
    /// Positions with an hourly CI series from `start`.
    pub covered: Vec<Position>,
    /// Positions without one.
    pub uncovered: Vec<Position>,
    /// The start of the series asked for.
    pub start: DateTime<Utc>,
    /// Hours after `start` asked for.
    pub hours: u32,
    /// Whether the covered positions also have pollen outlooks (the uncovered never do).
    pub pollen_covered: bool,
}

/// Runs the [`ForecastSource`] checks: batch length and order, covered flags, the series'
/// start and length, and the pollen outlook's days.
///
/// # Panics
/// When the source breaks the port contract, with a message saying how.
pub async fn check_forecast(source: &dyn ForecastSource, expect: &ForecastExpectations) {
    let name = source.info().name;
    fn ok<T>(name: &str, r: Result<T, aq_core::SourceError>) -> T {
        r.unwrap_or_else(|e| panic!("{name}: {e}"))
    }
    assert!(
        ok(
            &name,
            source.hourly_ci(&[], expect.start, expect.hours).await
        )
        .is_empty()
    );
    assert!(ok(&name, source.daily_pollen(&[], expect.start, 1).await).is_empty());

    let mut positions = Vec::new();
    let mut flags = Vec::new();
    for i in 0..expect.covered.len().max(expect.uncovered.len()) {
        if let Some(p) = expect.covered.get(i) {
            positions.push(*p);
            flags.push(true);
        }
        if let Some(p) = expect.uncovered.get(i) {
            positions.push(*p);
            flags.push(false);
        }
    }
    let series = ok(
        &name,
        source
            .hourly_ci(&positions, expect.start, expect.hours)
            .await,
    );
    assert_eq!(
        series.len(),
        positions.len(),
        "{name}: hourly_ci answer length"
    );
    for (k, (s, covered)) in series.iter().zip(&flags).enumerate() {
        match (s, covered) {
            (Some(s), true) => {
                assert_eq!(
                    s.start, expect.start,
                    "{name}: series {k} must start at the start asked for"
                );
                assert!(
                    !s.values.is_empty() && s.values.len() <= expect.hours as usize + 1,
                    "{name}: series {k} has {} values for {} hours",
                    s.values.len(),
                    expect.hours
                );
                assert!(
                    s.values
                        .iter()
                        .flatten()
                        .all(|ci| (0.0..=100.0).contains(&ci.value()))
                );
            }
            (None, false) => {}
            (s, c) => panic!("{name}: position {k} covered should be {c}, got {s:?}"),
        }
        // The same position alone gives the same series.
        let alone = ok(
            &name,
            source
                .hourly_ci(&positions[k..=k], expect.start, expect.hours)
                .await,
        );
        assert_eq!(alone.len(), 1);
        assert_eq!(&alone[0], s, "{name}: series {k} differs when asked alone");
    }

    check_concentrations(source, &positions, &series, expect).await;

    let days = 2;
    let outlooks = ok(
        &name,
        source.daily_pollen(&positions, expect.start, days).await,
    );
    assert_eq!(
        outlooks.len(),
        positions.len(),
        "{name}: daily_pollen answer length"
    );
    for (k, (o, covered)) in outlooks.iter().zip(&flags).enumerate() {
        match o {
            Some(o) => {
                assert!(
                    *covered && expect.pollen_covered,
                    "{name}: position {k} must have no pollen outlook"
                );
                assert!(
                    !o.days.is_empty() && o.days.len() <= days as usize + 1,
                    "{name}: {} days of pollen for {days} asked",
                    o.days.len()
                );
            }
            None => assert!(
                !(*covered && expect.pollen_covered),
                "{name}: position {k} must have a pollen outlook"
            ),
        }
    }
    check_pollen_days(source, &positions, &outlooks, expect.start, days).await;
}

/// The days of a lookup lie within the outlook: the same dates from today and the same levels
/// (the counts beside them are the source's own), and a position with days has an outlook. A
/// day's plants are of types it has, and no plant's mean exceeds its type's: a type's grains are
/// its plants' grains summed.
async fn check_pollen_days(
    source: &dyn ForecastSource,
    positions: &[Position],
    outlooks: &[Option<aq_core::PollenOutlook>],
    at: DateTime<Utc>,
    days: u32,
) {
    let name = source.info().name;
    let lookup = source
        .pollen_days(positions, at, days + 1)
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        lookup.len(),
        positions.len(),
        "{name}: pollen_days answer length"
    );
    for (k, (d, o)) in lookup.iter().zip(outlooks).enumerate() {
        let Some(d) = d else {
            continue;
        };
        let o = o
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: position {k} has pollen days but no outlook"));
        assert!(
            d.days.len() <= days as usize + 1,
            "{name}: {} pollen days for {} asked",
            d.days.len(),
            days + 1
        );
        for (n, (day, levels)) in d.days.iter().zip(&o.days).enumerate() {
            let date = o.today + chrono::Days::new(n as u64);
            assert_eq!(day.date, date, "{name}: position {k}, day {n}");
            assert_eq!(
                &day.levels(),
                levels,
                "{name}: position {k}, {date}: the levels of a lookup are the outlook's"
            );
            check_plants(&name, day);
        }
    }
}

fn check_plants(name: &str, day: &aq_core::PollenDay) {
    let date = day.date;
    for (plant, value) in day.plants() {
        let kind = plant.pollen_type();
        let of_type = day
            .get(kind)
            .unwrap_or_else(|| panic!("{name}: {date}: {plant} has a value, {kind} none"));
        if let Some(total) = of_type.mean_grains_m3 {
            assert!(
                value.mean_grains_m3 <= total * (1.0 + 1e-9),
                "{name}: {date}: {plant}'s mean {} exceeds {kind}'s {total}",
                value.mean_grains_m3
            );
        }
    }
}

/// The hourly concentrations lie beside the hourly CI: the same start, and concentrations in
/// exactly the hours that have a CI (those it was derived from), for a source that gives any
/// at that position; none where the position is not covered.
async fn check_concentrations(
    source: &dyn ForecastSource,
    positions: &[Position],
    series: &[Option<HourlyCi>],
    expect: &ForecastExpectations,
) {
    let name = source.info().name;
    let concentrations = source
        .hourly_concentrations(positions, expect.start, expect.hours)
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        concentrations.len(),
        positions.len(),
        "{name}: hourly_concentrations answer length"
    );
    for (k, (c, ci)) in concentrations.iter().zip(series).enumerate() {
        let Some(c) = c else { continue };
        let ci = ci
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: position {k} has concentrations but no CI series"));
        assert_eq!(c.start, ci.start, "{name}: concentrations {k} start");
        let hours = c.values.len().max(ci.values.len());
        for h in 0..hours {
            let has_c = c.values.get(h).is_some_and(Option::is_some);
            let has_ci = ci.values.get(h).is_some_and(Option::is_some);
            assert_eq!(
                has_c, has_ci,
                "{name}: position {k} hour {h}: concentrations and CI must come together"
            );
        }
    }
}
