//! A forecast source that answers a large batch of positions in parts at once.
//!
//! The sources that answer from memory (the demo field, the CAMS grids, a station file) spend
//! a batch's time on the processor, in one task: an alert job's page of 1,000 points would use
//! one core while the other is free. [`ForecastInParts`] splits such a batch into as many parts
//! as the runtime has threads and asks the source for each at once. Remote sources are not
//! wrapped, nor a model corrected by a remote station source: their time is the upstream's,
//! and their requests are theirs to shape.

use std::future::Future;
use std::sync::Arc;

use aq_core::{
    ForecastSource, HourlyCi, HourlyConcentrations, HourlyFusion, PollenDays, PollenOutlook,
    Position, SourceError, SourceInfo, SourceReach, check_batch_len,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use tokio::task::JoinSet;

/// A [`ForecastSource`] that asks the source inside for a large batch in parts at once (see the
/// module's documentation); every method is the source's own, its answers, errors and their
/// order too.
pub(crate) struct ForecastInParts(pub(crate) Arc<dyn ForecastSource>);

#[async_trait]
impl ForecastSource for ForecastInParts {
    fn info(&self) -> SourceInfo {
        self.0.info()
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        in_parts(positions, |part| {
            let inner = self.0.clone();
            async move { inner.hourly_ci(&part, start, hours).await }
        })
        .await
    }

    async fn hourly_ci_for_changes(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        in_parts(positions, |part| {
            let inner = self.0.clone();
            async move { inner.hourly_ci_for_changes(&part, start, hours).await }
        })
        .await
    }

    async fn hourly_concentrations(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
        in_parts(positions, |part| {
            let inner = self.0.clone();
            async move { inner.hourly_concentrations(&part, start, hours).await }
        })
        .await
    }

    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        in_parts(positions, |part| {
            let inner = self.0.clone();
            async move { inner.daily_pollen(&part, at, days).await }
        })
        .await
    }

    async fn pollen_days(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenDays>>, SourceError> {
        in_parts(positions, |part| {
            let inner = self.0.clone();
            async move { inner.pollen_days(&part, at, days).await }
        })
        .await
    }

    fn reach(&self) -> SourceReach {
        self.0.reach()
    }

    async fn hourly_fusion(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyFusion>>, SourceError> {
        in_parts(positions, |part| {
            let inner = self.0.clone();
            async move { inner.hourly_fusion(&part, start, hours).await }
        })
        .await
    }
}

/// The fewest positions worth a part of their own: below this, a task costs more than it saves.
const MIN_PART: usize = 256;

/// `work`'s answers for `positions`, in their order, from parts of them answered at once, one
/// task each, as many as the runtime has threads (each part at least [`MIN_PART`] positions):
/// a large batch, such as a page of an alert job, is then not held to one core while another
/// is free. Neighbours go to one part, so that the parts mostly read different data (a grid's
/// chunks, a station file's cells). On a runtime of one thread, or for a small batch, `work`
/// answers the whole batch itself. The parts' tasks end with the call: a part that fails, or
/// a caller that stops waiting, stops the others.
///
/// # Errors
/// The first error of a part, [`SourceError::InvalidResponse`] when a part answers with the
/// wrong number of entries, and [`SourceError::Unavailable`] when a part's task fails.
async fn in_parts<T, F, Fut>(positions: &[Position], work: F) -> Result<Vec<T>, SourceError>
where
    F: Fn(Vec<Position>) -> Fut,
    Fut: Future<Output = Result<Vec<T>, SourceError>> + Send + 'static,
    T: Send + 'static,
{
    let threads = tokio::runtime::Handle::try_current().map_or(1, |h| h.metrics().num_workers());
    let parts = threads.min(positions.len() / MIN_PART).max(1);
    if parts == 1 {
        return work(positions.to_vec()).await;
    }
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (positions[a], positions[b]);
        a.lat()
            .total_cmp(&b.lat())
            .then(a.lon().total_cmp(&b.lon()))
    });
    let members: Vec<&[usize]> = order.chunks(positions.len().div_ceil(parts)).collect();
    // Dropped, the set aborts the tasks still running.
    let mut tasks = JoinSet::new();
    for (part, members) in members.iter().enumerate() {
        let asked = work(members.iter().map(|&p| positions[p]).collect());
        tasks.spawn(async move { (part, asked.await) });
    }
    let mut out: Vec<Option<T>> = std::iter::repeat_with(|| None)
        .take(positions.len())
        .collect();
    while let Some(done) = tasks.join_next().await {
        let (part, answers) =
            done.map_err(|e| SourceError::Unavailable(format!("a part of the batch failed: {e}")))?;
        let answers = check_batch_len(members[part].len(), answers?)?;
        for (&p, answer) in members[part].iter().zip(answers) {
            out[p] = Some(answer);
        }
    }
    // Every position lies in exactly one part, and each part answered all of its own.
    Ok(out.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use aq_core::Pollutant;
    use aq_grid::{Field, GridSource, GridStore, Lattice, Layer, Product, Quantity};
    use chrono::{Duration, TimeZone};

    use super::*;

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 6, 10, h, 0, 0).unwrap()
    }

    fn positions(n: usize) -> Vec<Position> {
        (0..n)
            .map(|i| {
                let f = i as f64;
                Position::new((f * 7.3) % 360.0 - 180.0, (f * 3.1) % 170.0 - 85.0).unwrap()
            })
            .collect()
    }

    /// Whatever the parts, each position gets its own answer, in the order asked.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn answers_come_back_in_the_order_asked() {
        for n in [0, 1, 300, 1_000, 1_001] {
            let asked = positions(n);
            let answers = in_parts(&asked, |part| async move {
                Ok::<_, SourceError>(part.iter().map(|p| (p.lat(), p.lon())).collect())
            })
            .await
            .unwrap();
            let want: Vec<(f64, f64)> = asked.iter().map(|p| (p.lat(), p.lon())).collect();
            assert_eq!(answers, want, "{n} positions");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_part_that_fails_fails_the_batch() {
        let asked = positions(1_000);
        let failed = in_parts(&asked, |part| async move {
            if part.iter().any(|p| p.lat() > 80.0) {
                Err(SourceError::Unavailable("no".into()))
            } else {
                Ok(vec![(); part.len()])
            }
        })
        .await;
        assert!(matches!(failed, Err(SourceError::Unavailable(_))));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_part_with_too_few_answers_is_an_invalid_response() {
        let asked = positions(1_000);
        let short = in_parts(&asked, |part| async move {
            Ok::<_, SourceError>(vec![(); part.len() - 1])
        })
        .await;
        assert!(matches!(short, Err(SourceError::InvalidResponse(_))));
    }

    /// The part still at work when another fails is stopped (its work dropped), not left
    /// running.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_part_stops_the_others() {
        use std::sync::atomic::{AtomicBool, Ordering};

        /// Tells, when dropped, that the work holding it was dropped.
        struct Dropped(Arc<AtomicBool>);
        impl Drop for Dropped {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }

        let dropped = Arc::new(AtomicBool::new(false));
        let asked = positions(1_000);
        let failed = in_parts(&asked, |part| {
            let fails = part.iter().any(|p| p.lat() > 80.0);
            // Only the part that never ends holds a guard, from before it first runs.
            let guard = (!fails).then(|| Dropped(dropped.clone()));
            async move {
                let _guard = guard;
                if fails {
                    return Err(SourceError::Unavailable("no".into()));
                }
                // Never done by itself: only stopping it ends it.
                std::future::pending::<()>().await;
                Ok(vec![(); part.len()])
            }
        })
        .await;
        assert!(failed.is_err());
        let mut waited = 0;
        while !dropped.load(Ordering::SeqCst) && waited < 500 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            waited += 1;
        }
        assert!(dropped.load(Ordering::SeqCst), "the other part ran on");
    }

    /// A batch large enough to be split answers exactly as the source answers it whole.
    #[test]
    fn a_batch_answered_in_parts_answers_as_a_whole() {
        let lattice = Lattice::new(53.0, -0.5, 9, 10.0, 0.5, 13).unwrap();
        let fields: Vec<Field> = (0..30)
            .flat_map(|h| {
                [
                    Quantity::Pollutant(Pollutant::Pm25),
                    Quantity::Pollen(aq_core::PollenType::Grass),
                ]
                .into_iter()
                .map(move |quantity| Field {
                    product: Product::Europe,
                    quantity,
                    run: at(0),
                    valid: at(0) + Duration::hours(h),
                    layer: Layer::new(
                        lattice,
                        (0..lattice.len())
                            .map(|n| (n as f32 * 0.7 + h as f32 * 3.1) % 60.0)
                            .collect(),
                    )
                    .unwrap(),
                })
            })
            .collect();
        let positions: Vec<Position> = (0..700)
            .map(|i| {
                let f = f64::from(i);
                Position::new(10.0 + (f * 0.37) % 6.0, 49.0 + (f * 0.53) % 4.0).unwrap()
            })
            .collect();
        let now = at(2) + Duration::minutes(20);
        let answer = |rt: tokio::runtime::Runtime| {
            rt.block_on(async {
                let store = Arc::new(GridStore::in_memory());
                store.commit(fields.clone()).await.unwrap();
                let source = ForecastInParts(Arc::new(GridSource::new(store)));
                (
                    source.hourly_ci(&positions, now, 24).await.unwrap(),
                    source.pollen_days(&positions, now, 1).await.unwrap(),
                )
            })
        };
        let whole = answer(
            tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap(),
        );
        let parts = answer(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap(),
        );
        assert!(
            whole.0.iter().all(Option::is_some),
            "every position covered"
        );
        assert_eq!(whole, parts);
    }

    /// A source that counts the batches it is asked, with a window of its own.
    #[derive(Default)]
    struct Counting {
        asked: std::sync::atomic::AtomicUsize,
    }

    impl Counting {
        fn answer<T: Clone>(&self, positions: &[Position], none: T) -> Vec<T> {
            self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            vec![none; positions.len()]
        }
    }

    #[async_trait]
    impl ForecastSource for Counting {
        fn info(&self) -> SourceInfo {
            SourceInfo::real("counting")
        }

        async fn hourly_ci(
            &self,
            positions: &[Position],
            _: DateTime<Utc>,
            _: u32,
        ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
            Ok(self.answer(positions, None))
        }

        async fn daily_pollen(
            &self,
            positions: &[Position],
            _: DateTime<Utc>,
            _: u32,
        ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
            Ok(self.answer(positions, None))
        }

        fn reach(&self) -> SourceReach {
            SourceReach {
                past_hours: Some(3),
                ahead_hours: Some(96),
            }
        }

        async fn hourly_concentrations(
            &self,
            positions: &[Position],
            _: DateTime<Utc>,
            _: u32,
        ) -> Result<Vec<Option<HourlyConcentrations>>, SourceError> {
            Ok(self.answer(positions, None))
        }

        async fn pollen_days(
            &self,
            positions: &[Position],
            _: DateTime<Utc>,
            _: u32,
        ) -> Result<Vec<Option<PollenDays>>, SourceError> {
            Ok(self.answer(positions, None))
        }

        async fn hourly_fusion(
            &self,
            positions: &[Position],
            _: DateTime<Utc>,
            _: u32,
        ) -> Result<Vec<Option<HourlyFusion>>, SourceError> {
            Ok(self.answer(positions, None))
        }
    }

    /// Every method reaches the source inside, none falls back to the trait's provided answer,
    /// and a large batch is asked in two parts on two threads.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_method_is_the_sources_own() {
        let inner = Arc::new(Counting::default());
        let wrapped = ForecastInParts(inner.clone());
        assert_eq!(wrapped.reach(), inner.reach());
        assert_eq!(wrapped.info(), inner.info());
        let batch = positions(600);
        let now = at(8);
        assert_eq!(wrapped.hourly_ci(&batch, now, 3).await.unwrap().len(), 600);
        assert_eq!(
            wrapped
                .hourly_concentrations(&batch, now, 3)
                .await
                .unwrap()
                .len(),
            600
        );
        assert_eq!(
            wrapped.daily_pollen(&batch, now, 2).await.unwrap().len(),
            600
        );
        assert_eq!(
            wrapped.pollen_days(&batch, now, 2).await.unwrap().len(),
            600
        );
        assert_eq!(
            wrapped.hourly_fusion(&batch, now, 3).await.unwrap().len(),
            600
        );
        assert_eq!(inner.asked.load(std::sync::atomic::Ordering::SeqCst), 5 * 2);
    }
}
