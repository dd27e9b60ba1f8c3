//! [`MemoryStore`] as the job queue and the delivery log.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use uuid::Uuid;

use crate::idempotency::{Enqueued, Idempotency};
use crate::ids::Token;
use crate::ports::{
    Activity, ActivityWindow, AlertJob, Arrivals, Backlog, ClaimLimits, DeliveryAttempt,
    DeliveryLog, JobCounts, JobQueue, JobStage, JobUpdate, Lease, NewAlertJob, PointPages,
    RequestSummary, Settlement, StoreError, TEST_DELIVERIES_KEPT, TestDelivery, UNFINISHED_JOB,
    check_page_total, is_claimable,
};
use crate::request::AlertPoint;

use super::lock;
use super::store::{JobRecord, MemoryStore, State};

/// Stores a request and its job, due at once; refuses a token stored already.
fn insert_job(
    state: &mut State,
    job: &NewAlertJob,
    points: Vec<AlertPoint>,
) -> Result<(), StoreError> {
    if state.jobs.contains_key(&job.token) {
        return Err(StoreError::Conflict(format!(
            "the token {} exists already",
            job.token
        )));
    }
    state.seq += 1;
    let seq = state.seq;
    state.jobs.insert(
        job.token,
        JobRecord {
            token: job.token,
            key_id: job.key_id,
            points,
            received_at: job.received_at,
            stage: JobStage::Evaluate,
            attempts: 0,
            run_at: job.received_at,
            lease: None,
            alerts: None,
            outcome: None,
            seq,
        },
    );
    Ok(())
}

/// Applies `update` to a held job, as [`JobQueue::update`] does.
fn apply(job: &mut JobRecord, update: JobUpdate) {
    match update {
        JobUpdate::Written { alerts } => {
            job.stage = JobStage::Deliver;
            job.alerts = Some(alerts);
            return;
        }
        JobUpdate::Retry { attempts, run_at } => {
            job.attempts = attempts;
            job.run_at = run_at;
        }
        JobUpdate::Finish { outcome, attempts } => {
            job.stage = JobStage::Done;
            job.outcome = Some(outcome);
            job.attempts = attempts;
        }
    }
    job.lease = None;
}

/// Records a delivery attempt; an attempt recorded already is kept as it was.
fn record(state: &mut State, attempt: &DeliveryAttempt) {
    let list = state.attempts.entry(attempt.token).or_default();
    if !list.iter().any(|a| a.attempt == attempt.attempt) {
        list.push(attempt.clone());
        list.sort_by_key(|a| a.attempt);
    }
}

#[async_trait]
impl JobQueue for MemoryStore {
    async fn enqueue_pages(
        &self,
        job: &NewAlertJob,
        pages: &mut dyn PointPages,
        idempotency: Option<&Idempotency>,
    ) -> Result<Enqueued, StoreError> {
        // Everything is in memory here anyway: read the pages first, since the state's lock
        // cannot be held across them.
        let mut points = Vec::new();
        loop {
            let page = pages.next_page().await?;
            if page.is_empty() {
                break;
            }
            points.extend(page);
        }
        check_page_total(points.len() as u64, pages)?;
        let mut state = lock(&self.state);
        let Some(idempotency) = idempotency else {
            insert_job(&mut state, job, points)?;
            self.arrivals.notify();
            return Ok(Enqueued::Stored);
        };
        let slot = (job.key_id, idempotency.key.as_str().to_owned());
        // A key is remembered only as long as its request is.
        if let Some(&(token, fingerprint)) = state.idempotency.get(&slot)
            && state.jobs.contains_key(&token)
        {
            return Ok(Enqueued::Existing { token, fingerprint });
        }
        insert_job(&mut state, job, points)?;
        state
            .idempotency
            .insert(slot, (job.token, idempotency.fingerprint));
        self.arrivals.notify();
        Ok(Enqueued::Stored)
    }

    async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_for: Duration,
        limits: ClaimLimits,
        lease_ids: &(dyn Fn() -> Uuid + Send + Sync),
    ) -> Result<Vec<AlertJob>, StoreError> {
        let mut state = lock(&self.state);
        let mut held: HashMap<KeyId, usize> = HashMap::new();
        for job in state.jobs.values() {
            if job.stage != JobStage::Done && Lease::is_live(job.lease_until(), now) {
                *held.entry(job.key_id).or_default() += 1;
            }
        }
        let mut due: Vec<(DateTime<Utc>, Token, KeyId)> = state
            .jobs
            .values()
            .filter(|j| is_claimable(j.stage, j.run_at, j.lease_until(), now))
            .map(|j| (j.run_at, j.token, j.key_id))
            .collect();
        due.sort_unstable();
        // Each job's round is its place among its key's due jobs; rounds first, then age.
        let mut seen: HashMap<KeyId, usize> = HashMap::new();
        let mut ranked: Vec<(usize, DateTime<Utc>, Token, KeyId)> = due
            .into_iter()
            .filter_map(|(run_at, token, key)| {
                let round = seen.entry(key).or_default();
                *round += 1;
                let room = limits
                    .per_key
                    .saturating_sub(held.get(&key).copied().unwrap_or(0));
                (*round <= room).then_some((*round, run_at, token, key))
            })
            .collect();
        ranked.sort_unstable();
        let until = Lease::end(now, lease_for);
        let mut claimed = Vec::new();
        for (_, _, token, _) in ranked.into_iter().take(limits.max) {
            let Some(job) = state.jobs.get_mut(&token) else {
                continue;
            };
            let lease = Lease {
                id: lease_ids(),
                until,
            };
            job.lease = Some(lease);
            claimed.push(AlertJob {
                token,
                key_id: job.key_id,
                stage: job.stage,
                attempts: job.attempts,
                received_at: job.received_at,
                lease,
            });
        }
        Ok(claimed)
    }

    async fn points_page(
        &self,
        token: Token,
        from: u64,
        limit: usize,
    ) -> Result<Vec<AlertPoint>, StoreError> {
        let state = lock(&self.state);
        let points = &state.jobs.get(&token).ok_or(StoreError::NotFound)?.points;
        // A `from` beyond what usize holds is past the end of any request.
        let start = usize::try_from(from).map_or(points.len(), |f| f.min(points.len()));
        Ok(points[start..].iter().take(limit).cloned().collect())
    }

    async fn update(
        &self,
        token: Token,
        lease: &Lease,
        update: JobUpdate,
    ) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        apply(state.held_job(token, lease)?, update);
        Ok(())
    }

    async fn settle(
        &self,
        token: Token,
        lease: &Lease,
        settlement: &Settlement,
    ) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        if !state.jobs.contains_key(&token) {
            return Err(StoreError::NotFound);
        }
        if let Some(attempt) = &settlement.attempt {
            record(&mut state, attempt);
        }
        let job = state.held_job(token, lease)?;
        if let Some(alerts) = settlement.written {
            apply(job, JobUpdate::Written { alerts });
        }
        apply(job, settlement.next);
        Ok(())
    }

    async fn arrivals(&self) -> Result<Box<dyn Arrivals>, StoreError> {
        Ok(self.arrivals.subscribe())
    }

    async fn release(&self, token: Token, lease: &Lease) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        state.held_job(token, lease)?.lease = None;
        self.arrivals.notify();
        Ok(())
    }

    async fn redeliver(
        &self,
        key: KeyId,
        token: Token,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        let job = state
            .jobs
            .get_mut(&token)
            .filter(|j| j.key_id == key)
            .ok_or(StoreError::NotFound)?;
        if job.stage != JobStage::Done {
            return Err(StoreError::Conflict(UNFINISHED_JOB.to_owned()));
        }
        if job.alerts.is_none() {
            return Err(StoreError::NotFound);
        }
        job.stage = JobStage::Deliver;
        job.outcome = None;
        job.run_at = at;
        job.lease = None;
        self.arrivals.notify();
        Ok(())
    }

    async fn counts(&self, now: DateTime<Utc>) -> Result<JobCounts, StoreError> {
        let state = lock(&self.state);
        let mut counts = JobCounts::default();
        for job in state.jobs.values().filter(|j| j.stage != JobStage::Done) {
            if Lease::is_live(job.lease_until(), now) {
                counts.leased += 1;
            } else {
                counts.waiting += 1;
                if job.run_at <= now {
                    counts.oldest_waiting = Some(
                        counts
                            .oldest_waiting
                            .map_or(job.run_at, |t| t.min(job.run_at)),
                    );
                }
            }
        }
        Ok(counts)
    }

    async fn backlog(&self, key: KeyId, now: DateTime<Utc>) -> Result<Backlog, StoreError> {
        let state = lock(&self.state);
        let mut backlog = Backlog::default();
        for job in state.jobs.values().filter(|j| j.stage != JobStage::Done) {
            let waiting = is_claimable(job.stage, job.run_at, job.lease_until(), now);
            if job.key_id == key {
                backlog.key_pending += 1;
                if waiting {
                    backlog.key_waiting += 1;
                    backlog.key_oldest_waiting = Some(
                        backlog
                            .key_oldest_waiting
                            .map_or(job.run_at, |t| t.min(job.run_at)),
                    );
                }
            }
            if waiting {
                backlog.oldest_waiting = Some(
                    backlog
                        .oldest_waiting
                        .map_or(job.run_at, |t| t.min(job.run_at)),
                );
            }
        }
        Ok(backlog)
    }

    async fn purge_finished(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Token>, StoreError> {
        let mut state = lock(&self.state);
        let mut old: Vec<(DateTime<Utc>, Token)> = state
            .jobs
            .values()
            .filter(|j| j.stage == JobStage::Done && j.received_at < before)
            .map(|j| (j.received_at, j.token))
            .collect();
        old.sort_unstable();
        old.truncate(limit);
        let tokens: Vec<Token> = old.into_iter().map(|(_, token)| token).collect();
        for token in &tokens {
            state.jobs.remove(token);
            state.attempts.remove(token);
        }
        state
            .idempotency
            .retain(|_, (token, _)| !tokens.contains(token));
        state.sent.retain(|_, told| !tokens.contains(&told.token));
        Ok(tokens)
    }
}

#[async_trait]
impl DeliveryLog for MemoryStore {
    async fn record_attempt(&self, attempt: &DeliveryAttempt) -> Result<(), StoreError> {
        record(&mut lock(&self.state), attempt);
        Ok(())
    }

    async fn list_requests(
        &self,
        key: KeyId,
        limit: usize,
    ) -> Result<Vec<RequestSummary>, StoreError> {
        let state = lock(&self.state);
        let mut jobs: Vec<&JobRecord> = state.jobs.values().filter(|j| j.key_id == key).collect();
        jobs.sort_by(|a, b| b.received_at.cmp(&a.received_at).then(b.seq.cmp(&a.seq)));
        Ok(jobs
            .into_iter()
            .take(limit)
            .map(|j| RequestSummary {
                token: j.token,
                received_at: j.received_at,
                points: j.points.len() as u64,
                alerts: j.alerts,
                stage: j.stage,
                outcome: j.outcome,
                attempts: j.attempts,
            })
            .collect())
    }

    async fn list_attempts(
        &self,
        key: KeyId,
        token: Token,
    ) -> Result<Vec<DeliveryAttempt>, StoreError> {
        let state = lock(&self.state);
        if state.jobs.get(&token).is_none_or(|j| j.key_id != key) {
            return Ok(Vec::new());
        }
        Ok(state.attempts.get(&token).cloned().unwrap_or_default())
    }

    async fn activity(&self, key: KeyId, window: &ActivityWindow) -> Result<Activity, StoreError> {
        let state = lock(&self.state);
        let jobs = || state.jobs.values().filter(|j| j.key_id == key);
        Ok(Activity::tally(
            window,
            jobs().map(|j| (j.received_at, j.alerts)),
            jobs().flat_map(|j| state.attempts.get(&j.token).into_iter().flatten()),
        ))
    }

    async fn record_test(&self, test: &TestDelivery) -> Result<(), StoreError> {
        if !self.has_key(test.key) {
            return Err(StoreError::NotFound);
        }
        let mut state = lock(&self.state);
        if state
            .tests
            .values()
            .flatten()
            .any(|t| t.token == test.token)
        {
            return Ok(());
        }
        let tests = state.tests.entry(test.key).or_default();
        tests.push(test.clone());
        tests.sort_by(|a, b| b.at.cmp(&a.at).then(b.token.cmp(&a.token)));
        tests.truncate(TEST_DELIVERIES_KEPT);
        Ok(())
    }

    async fn list_tests(&self, key: KeyId, limit: usize) -> Result<Vec<TestDelivery>, StoreError> {
        let state = lock(&self.state);
        Ok(state
            .tests
            .get(&key)
            .map(|tests| tests.iter().take(limit).cloned().collect())
            .unwrap_or_default())
    }
}
