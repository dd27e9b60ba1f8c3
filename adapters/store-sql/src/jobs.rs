//! A job's way through the queue after its claim, for the pipeline's `JobQueue`: the updates
//! a worker makes under its lease, a redelivery, and the counts of the queue. The statements,
//! and the rows they read. Both databases read every statement here as it is.
//!
//! Every update of a held job checks its lease in the same statement, its last two
//! placeholders the job's token and the lease id, so that a worker that lost its lease changes
//! nothing. Which jobs are held and claimable are the rules of [`claims`](crate::claims), which
//! the counts apply.

use alerts_core::ports::stored::to_u64;
use alerts_core::ports::{Backlog, JobCounts, StoreError};

use crate::SqlDialect;

/// A row when the job `$1` exists: an update under a lease that matched no row lost its lease,
/// or had no job to update.
pub const JOB_EXISTS: &str = "SELECT 1 FROM alert_jobs WHERE token = $1";

/// The job's file is written, with `$1` alerts in it: its deliveries are next, under the same
/// lease (`$2` token, `$3` lease).
pub const SET_WRITTEN: &str = "\
    UPDATE alert_jobs SET stage = 'deliver', alerts = $1 \
    WHERE token = $2 AND lease_id = $3";

/// The job is tried again: `$1` attempts so far, `$2` when, `$3` the alerts of the file written
/// meanwhile, if one was (which moves the job on to its deliveries); its lease ends (`$4` token,
/// `$5` lease).
pub const RETRY: &str = "\
    UPDATE alert_jobs SET attempts = $1, run_at = $2, \
    alerts = COALESCE($3, alerts), \
    stage = CASE WHEN $3 IS NULL THEN stage ELSE 'deliver' END, \
    lease_id = NULL, lease_until = NULL WHERE token = $4 AND lease_id = $5";

/// The job is done: `$1` outcome, `$2` attempts, `$3` the alerts of the file written
/// meanwhile, if one was; its lease ends (`$4` token, `$5` lease).
pub const FINISH: &str = "\
    UPDATE alert_jobs SET stage = 'done', outcome = $1, attempts = $2, \
    alerts = COALESCE($3, alerts), \
    lease_id = NULL, lease_until = NULL WHERE token = $4 AND lease_id = $5";

/// Gives the job `$1` back, held under the lease `$2`, to be claimed again.
pub const RELEASE: &str = "\
    UPDATE alert_jobs SET lease_id = NULL, lease_until = NULL \
    WHERE token = $1 AND lease_id = $2";

/// Delivers the finished job `$2` of the key `$3` again, due at `$1`. The update checks the
/// stage itself, so that two redelivers, or a redeliver and a worker, cannot both see the job
/// finished.
pub const REDELIVER: &str = "\
    UPDATE alert_jobs SET stage = 'deliver', outcome = NULL, run_at = $1, \
    lease_id = NULL, lease_until = NULL \
    WHERE token = $2 AND alerts IS NOT NULL AND stage = 'done' \
      AND EXISTS (SELECT 1 FROM alert_requests r \
                  WHERE r.token = $2 AND r.key_id = $3)";

/// A row when the job `$1` of the key `$2` is not finished: a redeliver that changed nothing
/// came too early, or for no job of the key.
pub const UNFINISHED_JOB: &str = "\
    SELECT 1 FROM alert_jobs j \
    JOIN alert_requests r ON r.token = j.token \
    WHERE j.token = $1 AND r.key_id = $2 AND j.stage <> 'done'";

/// The unfinished jobs at `$1` (a [`CountsRow`]): not held, held, and when the oldest
/// claimable one was due.
pub const COUNTS: &str = "\
    SELECT COALESCE(SUM(CASE WHEN \
    (lease_until IS NULL OR lease_until <= $1) \
    THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN \
    lease_until > $1 \
    THEN 1 ELSE 0 END), 0), MIN(CASE WHEN \
    stage <> 'done' AND run_at <= $1 \
    AND (lease_until IS NULL OR lease_until <= $1) \
    THEN run_at END) FROM alert_jobs WHERE stage <> 'done'";

/// The backlog the key `$1` would join at `$2` (a [`BacklogRow`]): its unfinished jobs, its
/// claimable ones, when its oldest claimable one was due, and when any key's was.
pub const BACKLOG: &str = "\
    SELECT \
    (SELECT COUNT(*) FROM alert_jobs WHERE key_id = $1 AND stage <> 'done'), \
    (SELECT COUNT(*) FROM alert_jobs WHERE key_id = $1 AND \
     stage <> 'done' AND run_at <= $2 \
     AND (lease_until IS NULL OR lease_until <= $2)), \
    (SELECT MIN(run_at) FROM alert_jobs WHERE key_id = $1 AND \
     stage <> 'done' AND run_at <= $2 \
     AND (lease_until IS NULL OR lease_until <= $2)), \
    (SELECT MIN(run_at) FROM alert_jobs WHERE \
     stage <> 'done' AND run_at <= $2 \
     AND (lease_until IS NULL OR lease_until <= $2))";

/// The queue's counts: waiting, leased, the oldest waiting.
pub type CountsRow<T> = (i64, i64, Option<T>);

/// The counts of a [`CountsRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a negative count or a time the store cannot have written.
pub fn counts<D: SqlDialect>(row: CountsRow<D::Time>) -> Result<JobCounts, StoreError> {
    let (waiting, leased, oldest) = row;
    Ok(JobCounts {
        waiting: to_u64(waiting, "a job count")?,
        leased: to_u64(leased, "a job count")?,
        oldest_waiting: D::from_opt_time(oldest)?,
    })
}

/// A key's backlog: its pending jobs, its waiting ones, its oldest waiting, any key's oldest
/// waiting.
pub type BacklogRow<T> = (i64, i64, Option<T>, Option<T>);

/// The backlog of a [`BacklogRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a negative count or a time the store cannot have written.
pub fn backlog<D: SqlDialect>(row: BacklogRow<D::Time>) -> Result<Backlog, StoreError> {
    let (pending, waiting, key_oldest, oldest) = row;
    Ok(Backlog {
        key_pending: to_u64(pending, "a job count")?,
        key_waiting: to_u64(waiting, "a job count")?,
        key_oldest_waiting: D::from_opt_time(key_oldest)?,
        oldest_waiting: D::from_opt_time(oldest)?,
    })
}
