//! The alert workers' dispatcher: claims jobs whenever a place is free and there may be work,
//! and runs each claimed job on a task of its own.
//!
//! An idle dispatcher does not poll the claim query: it waits to be told that jobs arrived
//! (the job queue's [`Arrivals`]: in process on the embedded store, `LISTEN/NOTIFY` across
//! replicas on PostgreSQL), for a place to free up, or for a retry it scheduled to come due.
//! It still claims now and then untold, a safety net for what no notice covers: jobs whose
//! worker died (claimable once their lease ends), retries scheduled by a replica that stopped,
//! and notices lost with a connection.
//!
//! A busy dispatcher claims for several places at once ([`worth_claiming`]): each claim is a
//! write transaction that runs the queue's fairness query, and claiming for the one place each
//! finished job frees made about as many claims as jobs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::time::Duration;

use alerts_core::pipeline::{AlertPipeline, Processed};
use alerts_core::ports::{AlertJob, Arrivals, JobQueue, StoreError};
use chrono::{DateTime, Utc};
use insights_http::Metrics;
use runtime_core::Clock;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;

/// How long an idle dispatcher waits untold before it claims anyway (see the module's
/// documentation). Short beside the lease, so that a dead worker's jobs wait mostly for
/// their lease.
pub(crate) const SAFETY_POLL: Duration = Duration::from_secs(5);
/// How often an idle dispatcher claims while it cannot subscribe to arrivals.
const UNTOLD_POLL: Duration = Duration::from_millis(200);
/// How long a dispatcher waits after the store failed before it tries again.
const ERROR_BACKOFF: Duration = Duration::from_secs(2);
/// The longest a free place waits for others to free up before the dispatcher claims for it
/// anyway (see [`worth_claiming`]): short beside a job's time under load, so that slow jobs
/// in the other places leave it idle no longer than this.
const GATHER_PLACES: Duration = Duration::from_millis(20);

/// Whether to claim now for `free` of `places` places, with `running` jobs in hand and the
/// first of the free places waiting for a claim since `waited` ago: at once when nothing runs
/// or a quarter of the places (at least one) are free; otherwise once that place has waited
/// [`GATHER_PLACES`], so that under load claims take a few jobs each, and a place is never
/// left idle for long.
fn worth_claiming(places: usize, free: usize, running: usize, waited: Duration) -> bool {
    free > 0 && (running == 0 || free >= (places / 4).max(1) || waited >= GATHER_PLACES)
}

/// What a dispatcher runs jobs with.
pub(crate) struct Workers {
    /// Jobs in progress at once, at most.
    pub(crate) places: usize,
    /// The pipeline that claims and processes jobs.
    pub(crate) pipeline: Arc<AlertPipeline>,
    /// The job queue the pipeline claims from, for its arrivals.
    pub(crate) jobs: Arc<dyn JobQueue>,
    /// The time, to schedule retries.
    pub(crate) clock: Arc<dyn Clock>,
    /// Where deliveries are counted.
    pub(crate) metrics: Metrics,
}

/// Claims jobs whenever a place is free and there may be work, up to `places` in progress at
/// once, each on a task of its own. On shutdown it claims nothing more and waits for the jobs
/// in hand (the caller bounds that wait; a job cut off there is taken over after its lease).
pub(crate) async fn dispatch(workers: Workers, mut stop: watch::Receiver<bool>) {
    let mut running: JoinSet<Option<DateTime<Utc>>> = JoinSet::new();
    let mut arrivals: Option<Box<dyn Arrivals>> = None;
    // Retries and deferrals of this dispatcher's jobs, earliest first.
    let mut due: BinaryHeap<Reverse<Instant>> = BinaryHeap::new();
    let mut claim_now = true;
    let mut untold_until = Instant::now();
    // Since when a claim is wanted for free places but waits for more of them.
    let mut gathering: Option<Instant> = None;
    loop {
        if *stop.borrow() {
            break;
        }
        if arrivals.is_none() {
            match workers.jobs.arrivals().await {
                // Jobs stored before the subscription are found by the claim it calls for.
                Ok(subscribed) => {
                    arrivals = Some(subscribed);
                    claim_now = true;
                }
                Err(e) => tracing::warn!(error = %e, "cannot wait for jobs; polling for them"),
            }
        }
        let now = Instant::now();
        while due.peek().is_some_and(|Reverse(at)| *at <= now) {
            due.pop();
            claim_now = true;
        }
        if now >= untold_until {
            claim_now = true;
        }
        let free = workers.places.saturating_sub(running.len());
        let waited = gathering.map_or(Duration::ZERO, |since| now - since);
        if claim_now && worth_claiming(workers.places, free, running.len(), waited) {
            claim_now = false;
            gathering = None;
            let poll = if arrivals.is_some() {
                SAFETY_POLL
            } else {
                UNTOLD_POLL
            };
            untold_until = now + poll;
            match workers.pipeline.claim(free).await {
                Ok(jobs) => {
                    for job in jobs {
                        running.spawn(run_job(
                            job,
                            workers.pipeline.clone(),
                            workers.metrics.clone(),
                        ));
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot claim jobs");
                    untold_until = now + ERROR_BACKOFF;
                }
            }
        }
        if claim_now && free > 0 {
            gathering.get_or_insert(now);
        }
        let wake = due
            .peek()
            .map_or(untold_until, |Reverse(at)| (*at).min(untold_until));
        let wake = gathering.map_or(wake, |since| wake.min(since + GATHER_PLACES));
        tokio::select! {
            Some(done) = running.join_next(), if !running.is_empty() => {
                // A finished job frees a place, and may free its key's share of the workers:
                // claim, once for every job that finished meanwhile, when it is worth it.
                schedule(&mut due, done.ok().flatten(), workers.clock.as_ref());
                while let Some(done) = running.try_join_next() {
                    schedule(&mut due, done.ok().flatten(), workers.clock.as_ref());
                }
                claim_now = true;
            }
            told = next_arrival(arrivals.as_deref_mut()) => {
                if let Err(e) = told {
                    tracing::warn!(error = %e, "cannot wait for jobs; subscribing again");
                    arrivals = None;
                    untold_until = Instant::now() + ERROR_BACKOFF;
                } else {
                    claim_now = true;
                }
            }
            () = tokio::time::sleep_until(wake) => {}
            _ = stop.changed() => break,
        }
    }
    while running.join_next().await.is_some() {}
}

/// The next arrival, or never without a subscription.
async fn next_arrival(arrivals: Option<&mut (dyn Arrivals + 'static)>) -> Result<(), StoreError> {
    match arrivals {
        Some(arrivals) => arrivals.next().await,
        None => std::future::pending().await,
    }
}

/// Remembers when a job this dispatcher put back is due again.
fn schedule(due: &mut BinaryHeap<Reverse<Instant>>, at: Option<DateTime<Utc>>, clock: &dyn Clock) {
    if let Some(at) = at {
        let wait = (at - clock.now()).to_std().unwrap_or_default();
        due.push(Reverse(Instant::now() + wait));
    }
}

/// Takes one claimed job one step and counts what became of it; when it is due again, if it
/// was put back for later.
async fn run_job(
    job: AlertJob,
    pipeline: Arc<AlertPipeline>,
    metrics: Metrics,
) -> Option<DateTime<Utc>> {
    match pipeline.process(&job).await {
        Ok(processed) => {
            count(&metrics, &processed);
            tracing::debug!(token = %job.token, ?processed, "job progressed");
            match processed {
                Processed::Retrying { at, .. } => Some(at),
                Processed::Deferred { until } => Some(until),
                _ => None,
            }
        }
        Err(error) => {
            tracing::warn!(token = %job.token, %error, "job stopped; it is retried after its lease");
            None
        }
    }
}

fn count(metrics: &Metrics, processed: &Processed) {
    match processed {
        Processed::Retrying { .. } => metrics.count_delivery("failed"),
        Processed::Finished { outcome, .. } => metrics.count_delivery(outcome.as_str()),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
