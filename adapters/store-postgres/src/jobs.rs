//! Alert requests, their jobs, and the delivery log: the job queue and the delivery log.

use std::time::Duration;

use alerts_core::idempotency::{Enqueued, Fingerprint, Idempotency};
use alerts_core::ids::{KeyId, Token};
use alerts_core::ports::stored::{to_i32, to_i64, to_u32, to_u64};
use alerts_core::ports::{
    AlertJob, DeliveryAttempt, DeliveryErrorKind, DeliveryLog, JobCounts, JobOutcome, JobQueue,
    JobStage, JobUpdate, Lease, NewAlertJob, PointPages, RequestSummary, StoreError,
    UNFINISHED_JOB, check_page_total, decode_stored_point, encode_stored_point,
};
use alerts_core::request::AlertPoint;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::{PgStore, db_error, db_error_or_conflict};

impl PgStore {
    /// After an update matched no row: the job is unknown, or another worker holds it.
    async fn lease_lost_or_missing(&self, token: Token) -> StoreError {
        let exists = sqlx::query_scalar::<_, i32>("SELECT 1 FROM alert_jobs WHERE token = $1")
            .bind(token.0)
            .fetch_optional(&self.pool)
            .await;
        match exists {
            Ok(Some(_)) => StoreError::LeaseLost,
            Ok(None) => StoreError::NotFound,
            Err(e) => db_error(e),
        }
    }
}

/// Points written per `INSERT`. The arrays take any length; a bound keeps the JSON encoded at
/// once, and each message to the server, to one batch rather than the whole request.
const POINTS_PER_INSERT: usize = 1000;

/// Writes a request's points, one row each, inside the caller's transaction, reading them
/// page by page.
async fn insert_points(
    tx: &mut sqlx::PgConnection,
    token: Token,
    pages: &mut dyn PointPages,
) -> Result<(), StoreError> {
    let mut first: u64 = 0;
    loop {
        let page = pages.next_page().await?;
        if page.is_empty() {
            break;
        }
        for chunk in page.chunks(POINTS_PER_INSERT) {
            let seqs: Vec<i64> = (first..first + chunk.len() as u64).map(to_i64).collect();
            first += chunk.len() as u64;
            let json = chunk
                .iter()
                .map(encode_stored_point)
                .collect::<Result<Vec<String>, _>>()?;
            // `text::json` keeps the text as sent: json (not jsonb) stores its input verbatim.
            sqlx::query(
                "INSERT INTO alert_points (token, seq, point) \
                 SELECT $1, u.seq, u.point::json \
                 FROM unnest($2::bigint[], $3::text[]) AS u(seq, point)",
            )
            .bind(token.0)
            .bind(&seqs)
            .bind(&json)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
        }
    }
    check_page_total(first, pages)
}

/// Stores a request, its points and its job, due at once, inside the caller's transaction.
/// `false` when a request of the same API key holds the idempotency key already (and nothing
/// was written, nor any page read).
async fn insert_request(
    tx: &mut sqlx::PgConnection,
    job: &NewAlertJob,
    pages: &mut dyn PointPages,
    idempotency: Option<&Idempotency>,
) -> Result<bool, StoreError> {
    let received = job.received_at;
    let inserted = sqlx::query(
        "INSERT INTO alert_requests \
         (token, key_id, point_count, received_at, idempotency_key, fingerprint) \
         VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (key_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING",
    )
    .bind(job.token.0)
    .bind(job.key_id.0)
    .bind(to_i64(pages.total()))
    .bind(received)
    .bind(idempotency.map(|i| i.key.as_str()))
    .bind(idempotency.map(|i| i.fingerprint.0.to_vec()))
    .execute(&mut *tx)
    .await
    .map_err(db_error_or_conflict(|| {
        format!("the alert request {} exists already", job.token)
    }))?
    .rows_affected();
    if inserted == 0 {
        return Ok(false);
    }
    insert_points(tx, job.token, pages).await?;
    sqlx::query("INSERT INTO alert_jobs (token, stage, run_at) VALUES ($1, 'evaluate', $2)")
        .bind(job.token.0)
        .bind(received)
        .execute(&mut *tx)
        .await
        .map_err(db_error)?;
    Ok(true)
}

/// A stored fingerprint, which is always 32 bytes.
fn parse_fingerprint(bytes: &[u8]) -> Result<Fingerprint, StoreError> {
    bytes
        .try_into()
        .map(Fingerprint)
        .map_err(|_| StoreError::Corrupt(format!("a fingerprint of {} bytes", bytes.len())))
}

#[async_trait]
impl JobQueue for PgStore {
    async fn enqueue_pages(
        &self,
        job: &NewAlertJob,
        pages: &mut dyn PointPages,
        idempotency: Option<&Idempotency>,
    ) -> Result<Enqueued, StoreError> {
        // The transaction stays open while the pages are read: they come from memory or a
        // local file, and a request is one transaction however it arrives. On any error it is
        // dropped, which rolls it back.
        let Some(idempotency) = idempotency else {
            let mut tx = self.pool.begin().await.map_err(db_error)?;
            insert_request(&mut tx, job, pages, None).await?;
            tx.commit().await.map_err(db_error)?;
            return Ok(Enqueued::Stored);
        };
        // The insert waits for a concurrent one with the same key and then stores nothing;
        // the stored request is read after. Retention may delete it in between, so try again
        // a few times before giving up. No page is read until the insert has the key.
        for _ in 0..3 {
            let mut tx = self.pool.begin().await.map_err(db_error)?;
            if insert_request(&mut tx, job, pages, Some(idempotency)).await? {
                tx.commit().await.map_err(db_error)?;
                return Ok(Enqueued::Stored);
            }
            tx.rollback().await.map_err(db_error)?;
            let existing: Option<(Uuid, Vec<u8>)> = sqlx::query_as(
                "SELECT token, fingerprint FROM alert_requests \
                 WHERE key_id = $1 AND idempotency_key = $2",
            )
            .bind(job.key_id.0)
            .bind(idempotency.key.as_str())
            .fetch_optional(&self.pool)
            .await
            .map_err(db_error)?;
            if let Some((token, fingerprint)) = existing {
                return Ok(Enqueued::Existing {
                    token: Token(token),
                    fingerprint: parse_fingerprint(&fingerprint)?,
                });
            }
        }
        Err(StoreError::Conflict(format!(
            "the idempotency key {} kept changing hands",
            idempotency.key
        )))
    }

    async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_for: Duration,
        max: usize,
        lease_ids: &(dyn Fn() -> Uuid + Send + Sync),
    ) -> Result<Vec<AlertJob>, StoreError> {
        if max == 0 {
            return Ok(Vec::new());
        }
        let until = Lease::end(now, lease_for);
        let mut tx = self.pool.begin().await.map_err(db_error)?;
        // SKIP LOCKED: concurrent claimers pass over the rows another one is taking instead of
        // waiting for it; a row whose lease was taken and committed meanwhile fails the WHERE
        // clause when it is rechecked under the lock.
        let due: Vec<(Uuid, Uuid, DateTime<Utc>, String, i32)> = sqlx::query_as(
            "SELECT j.token, r.key_id, r.received_at, j.stage, j.attempts FROM alert_jobs j \
             JOIN alert_requests r ON r.token = j.token \
             WHERE j.stage <> 'done' AND j.run_at <= $1 \
               AND (j.lease_until IS NULL OR j.lease_until <= $1) \
             ORDER BY j.run_at, j.token LIMIT $2 \
             FOR UPDATE OF j SKIP LOCKED",
        )
        .bind(now)
        .bind(to_i64(max as u64))
        .fetch_all(&mut *tx)
        .await
        .map_err(db_error)?;
        if due.is_empty() {
            tx.commit().await.map_err(db_error)?;
            return Ok(Vec::new());
        }
        let mut jobs = Vec::with_capacity(due.len());
        for (token, key_id, received_at, stage, attempts) in due {
            jobs.push(AlertJob {
                token: Token(token),
                key_id: KeyId(key_id),
                stage: stage.parse::<JobStage>()?,
                attempts: to_u32(i64::from(attempts), "attempts")?,
                received_at,
                lease: Lease {
                    id: lease_ids(),
                    until,
                },
            });
        }
        let tokens: Vec<Uuid> = jobs.iter().map(|j| j.token.0).collect();
        let leases: Vec<Uuid> = jobs.iter().map(|j| j.lease.id).collect();
        let updated = sqlx::query(
            "UPDATE alert_jobs AS j SET lease_id = u.lease_id, lease_until = $3 \
             FROM unnest($1::uuid[], $2::uuid[]) AS u(token, lease_id) WHERE j.token = u.token",
        )
        .bind(&tokens)
        .bind(&leases)
        .bind(until)
        .execute(&mut *tx)
        .await
        .map_err(db_error)?;
        if updated.rows_affected() != tokens.len() as u64 {
            // The rows are locked by this transaction: this cannot happen short of a bug.
            return Err(StoreError::Corrupt(format!(
                "claim leased {} of {} locked jobs",
                updated.rows_affected(),
                tokens.len()
            )));
        }
        tx.commit().await.map_err(db_error)?;
        Ok(jobs)
    }

    async fn points_page(
        &self,
        token: Token,
        from: u64,
        limit: usize,
    ) -> Result<Vec<AlertPoint>, StoreError> {
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT seq, point::text FROM alert_points WHERE token = $1 AND seq >= $2 \
             ORDER BY seq LIMIT $3",
        )
        .bind(token.0)
        .bind(to_i64(from))
        .bind(to_i64(limit as u64))
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)?;
        if rows.is_empty() {
            // Only an empty page needs telling apart: past the end, or no such request.
            let exists =
                sqlx::query_scalar::<_, i32>("SELECT 1 FROM alert_requests WHERE token = $1")
                    .bind(token.0)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(db_error)?;
            return exists.map(|_| Vec::new()).ok_or(StoreError::NotFound);
        }
        rows.into_iter()
            .map(|(seq, point)| decode_stored_point(&point, token, seq))
            .collect()
    }

    async fn update(
        &self,
        token: Token,
        lease: &Lease,
        update: JobUpdate,
    ) -> Result<(), StoreError> {
        // Each update is one statement that checks the lease and ends it: atomic on its own.
        let query = match update {
            JobUpdate::Written { alerts, run_at } => sqlx::query(
                "UPDATE alert_jobs SET stage = 'deliver', alerts = $1, run_at = $2, \
                 lease_id = NULL, lease_until = NULL WHERE token = $3 AND lease_id = $4",
            )
            .bind(to_i64(alerts))
            .bind(run_at),
            JobUpdate::Retry { attempts, run_at } => sqlx::query(
                "UPDATE alert_jobs SET attempts = $1, run_at = $2, \
                 lease_id = NULL, lease_until = NULL WHERE token = $3 AND lease_id = $4",
            )
            .bind(to_i32(attempts))
            .bind(run_at),
            JobUpdate::Finish { outcome, attempts } => sqlx::query(
                "UPDATE alert_jobs SET stage = 'done', outcome = $1, attempts = $2, \
                 lease_id = NULL, lease_until = NULL WHERE token = $3 AND lease_id = $4",
            )
            .bind(outcome.as_str())
            .bind(to_i32(attempts)),
        };
        let done = query
            .bind(token.0)
            .bind(lease.id)
            .execute(&self.pool)
            .await
            .map_err(db_error)?;
        if done.rows_affected() == 0 {
            return Err(self.lease_lost_or_missing(token).await);
        }
        Ok(())
    }

    async fn release(&self, token: Token, lease: &Lease) -> Result<(), StoreError> {
        let done = sqlx::query(
            "UPDATE alert_jobs SET lease_id = NULL, lease_until = NULL \
             WHERE token = $1 AND lease_id = $2",
        )
        .bind(token.0)
        .bind(lease.id)
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        if done.rows_affected() == 0 {
            return Err(self.lease_lost_or_missing(token).await);
        }
        Ok(())
    }

    async fn redeliver(
        &self,
        key: KeyId,
        token: Token,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        // The stage is checked by the update itself, so that two redelivers, or a redeliver
        // and a worker, cannot both see the job finished.
        let done = sqlx::query(
            "UPDATE alert_jobs SET stage = 'deliver', outcome = NULL, run_at = $1, \
             lease_id = NULL, lease_until = NULL \
             WHERE token = $2 AND alerts IS NOT NULL AND stage = 'done' \
               AND EXISTS (SELECT 1 FROM alert_requests r WHERE r.token = $2 AND r.key_id = $3)",
        )
        .bind(at)
        .bind(token.0)
        .bind(key.0)
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        if done.rows_affected() > 0 {
            return Ok(());
        }
        let unfinished: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM alert_jobs j JOIN alert_requests r ON r.token = j.token \
             WHERE j.token = $1 AND r.key_id = $2 AND j.stage <> 'done'",
        )
        .bind(token.0)
        .bind(key.0)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_error)?;
        match unfinished {
            Some(_) => Err(StoreError::Conflict(UNFINISHED_JOB.to_owned())),
            None => Err(StoreError::NotFound),
        }
    }

    async fn counts(&self, now: DateTime<Utc>) -> Result<JobCounts, StoreError> {
        let (waiting, leased): (i64, i64) = sqlx::query_as(
            "SELECT COALESCE(SUM(CASE WHEN lease_until IS NULL OR lease_until <= $1 THEN 1 ELSE 0 END), 0), \
                    COALESCE(SUM(CASE WHEN lease_until > $1 THEN 1 ELSE 0 END), 0) \
             FROM alert_jobs WHERE stage <> 'done'",
        )
        .bind(now)
        .fetch_one(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(JobCounts {
            waiting: to_u64(waiting, "a job count")?,
            leased: to_u64(leased, "a job count")?,
        })
    }
}

type AttemptRow = (Uuid, i32, DateTime<Utc>, Option<i32>, i64, Option<String>);

fn attempt(row: AttemptRow) -> Result<DeliveryAttempt, StoreError> {
    let (token, attempt, at, status, latency, error) = row;
    Ok(DeliveryAttempt {
        token: Token(token),
        attempt: to_u32(i64::from(attempt), "attempt")?,
        at,
        status: status
            .map(|s| {
                u16::try_from(s)
                    .map_err(|_| StoreError::Corrupt(format!("HTTP status {s} is out of range")))
            })
            .transpose()?,
        latency_ms: to_u64(latency, "latency")?,
        error: error
            .as_deref()
            .map(str::parse::<DeliveryErrorKind>)
            .transpose()?,
    })
}

type SummaryRow = (
    Uuid,
    DateTime<Utc>,
    i64,
    Option<i64>,
    String,
    Option<String>,
    i32,
);

fn summary(row: SummaryRow) -> Result<RequestSummary, StoreError> {
    let (token, received, points, alerts, stage, outcome, attempts) = row;
    Ok(RequestSummary {
        token: Token(token),
        received_at: received,
        points: to_u64(points, "point count")?,
        alerts: alerts.map(|a| to_u64(a, "alert count")).transpose()?,
        stage: stage.parse::<JobStage>()?,
        outcome: outcome
            .as_deref()
            .map(str::parse::<JobOutcome>)
            .transpose()?,
        attempts: to_u32(i64::from(attempts), "attempts")?,
    })
}

#[async_trait]
impl DeliveryLog for PgStore {
    async fn record_attempt(&self, attempt: &DeliveryAttempt) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO delivery_attempts (token, attempt, at, status, latency_ms, error) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (token, attempt) DO NOTHING",
        )
        .bind(attempt.token.0)
        .bind(to_i32(attempt.attempt))
        .bind(attempt.at)
        .bind(attempt.status.map(i32::from))
        .bind(to_i64(attempt.latency_ms))
        .bind(attempt.error.map(DeliveryErrorKind::as_str))
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(())
    }

    async fn list_requests(
        &self,
        key: KeyId,
        limit: usize,
    ) -> Result<Vec<RequestSummary>, StoreError> {
        let rows: Vec<SummaryRow> = sqlx::query_as(
            "SELECT r.token, r.received_at, r.point_count, j.alerts, j.stage, j.outcome, \
                    j.attempts \
             FROM alert_requests r JOIN alert_jobs j ON j.token = r.token \
             WHERE r.key_id = $1 ORDER BY r.received_at DESC, r.token DESC LIMIT $2",
        )
        .bind(key.0)
        .bind(to_i64(limit as u64))
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)?;
        rows.into_iter().map(summary).collect()
    }

    async fn list_attempts(
        &self,
        key: KeyId,
        token: Token,
    ) -> Result<Vec<DeliveryAttempt>, StoreError> {
        let rows: Vec<AttemptRow> = sqlx::query_as(
            "SELECT a.token, a.attempt, a.at, a.status, a.latency_ms, a.error \
             FROM delivery_attempts a JOIN alert_requests r ON r.token = a.token \
             WHERE a.token = $1 AND r.key_id = $2 ORDER BY a.attempt",
        )
        .bind(token.0)
        .bind(key.0)
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)?;
        rows.into_iter().map(attempt).collect()
    }
}
