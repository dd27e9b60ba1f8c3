//! Alert requests, their jobs, and the delivery log: the job queue and the delivery log.

use std::fmt::Write as _;
use std::sync::LazyLock;
use std::time::Duration;

use alerts_core::idempotency::{Enqueued, Fingerprint, Idempotency};
use alerts_core::ids::{KeyId, Token};
use alerts_core::ports::stored::{to_i64, to_u32, to_u64};
use alerts_core::ports::{
    AlertJob, DeliveryAttempt, DeliveryErrorKind, DeliveryLog, JobCounts, JobOutcome, JobQueue,
    JobStage, JobUpdate, Lease, NewAlertJob, PointPages, RequestSummary, StoreError,
    UNFINISHED_JOB, check_page_total, decode_stored_point, encode_stored_point,
};
use alerts_core::request::AlertPoint;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::{SqliteStore, db_error, db_error_or_conflict, from_micros, micros};

impl SqliteStore {
    /// After an update matched no row: the job is unknown, or another worker holds it.
    async fn lease_lost_or_missing(&self, token: Token) -> StoreError {
        let exists = sqlx::query_scalar::<_, i64>("SELECT 1 FROM alert_jobs WHERE token = ?1")
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

/// Points written per `INSERT`. Each takes two bound parameters, and the token one more:
/// 801 in all, under the 999 that SQLite builds before 3.32 (and builds configured like them)
/// allow in one statement.
const POINTS_PER_INSERT: usize = 400;

/// `INSERT INTO alert_points` of `rows` rows: the token is `?1`, and row `i` binds its index
/// and its JSON as `?(2 + 2i)` and `?(3 + 2i)`.
fn insert_points_sql(rows: usize) -> String {
    let mut sql = String::from("INSERT INTO alert_points (token, seq, point) VALUES ");
    for i in 0..rows {
        let sep = if i == 0 { "" } else { ", " };
        // Writing to a String cannot fail.
        let _ = write!(sql, "{sep}(?1, ?{}, ?{})", 2 + 2 * i, 3 + 2 * i);
    }
    sql
}

/// The statement of a full batch: built once, and the same text every time, so that each
/// connection prepares it once.
static INSERT_FULL_BATCH: LazyLock<String> = LazyLock::new(|| insert_points_sql(POINTS_PER_INSERT));

/// Writes a request's points, one row each, inside the caller's transaction, reading them
/// page by page. Points are encoded one batch at a time, so the JSON held at once is one
/// batch's, not the request's.
async fn insert_points(
    tx: &mut sqlx::SqliteConnection,
    token: Token,
    pages: &mut dyn PointPages,
) -> Result<(), StoreError> {
    let mut seq: u64 = 0;
    loop {
        let page = pages.next_page().await?;
        if page.is_empty() {
            break;
        }
        for chunk in page.chunks(POINTS_PER_INSERT) {
            let full = chunk.len() == POINTS_PER_INSERT;
            let query = if full {
                sqlx::query(INSERT_FULL_BATCH.as_str())
            } else {
                // A shorter batch has a length of its own per request: preparing it for the
                // statement cache would only push out statements that are reused.
                sqlx::query(sqlx::AssertSqlSafe(insert_points_sql(chunk.len()))).persistent(false)
            };
            let mut query = query.bind(token.0);
            for point in chunk {
                query = query.bind(to_i64(seq)).bind(encode_stored_point(point)?);
                seq += 1;
            }
            query.execute(&mut *tx).await.map_err(db_error)?;
        }
    }
    check_page_total(seq, pages)
}

/// Stores a request, its points and its job, due at once, inside the caller's transaction.
async fn insert_request(
    tx: &mut sqlx::SqliteConnection,
    job: &NewAlertJob,
    pages: &mut dyn PointPages,
    idempotency: Option<&Idempotency>,
) -> Result<(), StoreError> {
    let received = micros(job.received_at);
    sqlx::query(
        "INSERT INTO alert_requests \
         (token, key_id, point_count, received_at, idempotency_key, fingerprint) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
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
    }))?;
    insert_points(tx, job.token, pages).await?;
    sqlx::query("INSERT INTO alert_jobs (token, stage, run_at) VALUES (?1, 'evaluate', ?2)")
        .bind(job.token.0)
        .bind(received)
        .execute(&mut *tx)
        .await
        .map_err(db_error)?;
    Ok(())
}

/// A stored fingerprint, which is always 32 bytes.
fn parse_fingerprint(bytes: &[u8]) -> Result<Fingerprint, StoreError> {
    bytes
        .try_into()
        .map(Fingerprint)
        .map_err(|_| StoreError::Corrupt(format!("a fingerprint of {} bytes", bytes.len())))
}

#[async_trait]
impl JobQueue for SqliteStore {
    async fn enqueue_pages(
        &self,
        job: &NewAlertJob,
        pages: &mut dyn PointPages,
        idempotency: Option<&Idempotency>,
    ) -> Result<Enqueued, StoreError> {
        // The write lock is taken first, so no other writer can store the same key between
        // the lookup and the insert. It is held while the pages are read: they come from
        // memory or a local file, and a request is one transaction however it arrives.
        let mut tx = self
            .pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(db_error)?;
        if let Some(idempotency) = idempotency {
            let existing: Option<(Uuid, Vec<u8>)> = sqlx::query_as(
                "SELECT token, fingerprint FROM alert_requests \
                 WHERE key_id = ?1 AND idempotency_key = ?2",
            )
            .bind(job.key_id.0)
            .bind(idempotency.key.as_str())
            .fetch_optional(&mut *tx)
            .await
            .map_err(db_error)?;
            if let Some((token, fingerprint)) = existing {
                return Ok(Enqueued::Existing {
                    token: Token(token),
                    fingerprint: parse_fingerprint(&fingerprint)?,
                });
            }
        }
        // On any error the transaction is dropped, which rolls it back: nothing is stored.
        insert_request(&mut tx, job, pages, idempotency).await?;
        tx.commit().await.map_err(db_error)?;
        Ok(Enqueued::Stored)
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
        // The write lock is taken before the candidates are read, so no other claimer can
        // pick them between this read and the updates below.
        let mut tx = self
            .pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(db_error)?;
        let due: Vec<(Uuid, Uuid, i64)> = sqlx::query_as(
            "SELECT j.token, r.key_id, r.received_at FROM alert_jobs j \
             JOIN alert_requests r ON r.token = j.token \
             WHERE j.stage <> 'done' AND j.run_at <= ?1 \
               AND (j.lease_until IS NULL OR j.lease_until <= ?1) \
             ORDER BY j.run_at, j.token LIMIT ?2",
        )
        .bind(micros(now))
        .bind(to_i64(max as u64))
        .fetch_all(&mut *tx)
        .await
        .map_err(db_error)?;
        let mut jobs = Vec::with_capacity(due.len());
        for (token, key_id, received) in due {
            let lease = Lease {
                id: lease_ids(),
                until,
            };
            let (stage, attempts): (String, i64) = sqlx::query_as(
                "UPDATE alert_jobs SET lease_id = ?1, lease_until = ?2 WHERE token = ?3 \
                 RETURNING stage, attempts",
            )
            .bind(lease.id)
            .bind(micros(until))
            .bind(token)
            .fetch_one(&mut *tx)
            .await
            .map_err(db_error)?;
            jobs.push(AlertJob {
                token: Token(token),
                key_id: KeyId(key_id),
                stage: stage.parse::<JobStage>()?,
                attempts: to_u32(attempts, "attempts")?,
                received_at: from_micros(received)?,
                lease,
            });
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
            "SELECT seq, point FROM alert_points WHERE token = ?1 AND seq >= ?2 \
             ORDER BY seq LIMIT ?3",
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
                sqlx::query_scalar::<_, i64>("SELECT 1 FROM alert_requests WHERE token = ?1")
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
                "UPDATE alert_jobs SET stage = 'deliver', alerts = ?1, run_at = ?2, \
                 lease_id = NULL, lease_until = NULL WHERE token = ?3 AND lease_id = ?4",
            )
            .bind(to_i64(alerts))
            .bind(micros(run_at)),
            JobUpdate::Retry { attempts, run_at } => sqlx::query(
                "UPDATE alert_jobs SET attempts = ?1, run_at = ?2, \
                 lease_id = NULL, lease_until = NULL WHERE token = ?3 AND lease_id = ?4",
            )
            .bind(i64::from(attempts))
            .bind(micros(run_at)),
            JobUpdate::Finish { outcome, attempts } => sqlx::query(
                "UPDATE alert_jobs SET stage = 'done', outcome = ?1, attempts = ?2, \
                 lease_id = NULL, lease_until = NULL WHERE token = ?3 AND lease_id = ?4",
            )
            .bind(outcome.as_str())
            .bind(i64::from(attempts)),
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
             WHERE token = ?1 AND lease_id = ?2",
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
            "UPDATE alert_jobs SET stage = 'deliver', outcome = NULL, run_at = ?1, \
             lease_id = NULL, lease_until = NULL \
             WHERE token = ?2 AND alerts IS NOT NULL AND stage = 'done' \
               AND EXISTS (SELECT 1 FROM alert_requests r WHERE r.token = ?2 AND r.key_id = ?3)",
        )
        .bind(micros(at))
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
             WHERE j.token = ?1 AND r.key_id = ?2 AND j.stage <> 'done'",
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
            "SELECT COALESCE(SUM(CASE WHEN lease_until IS NULL OR lease_until <= ?1 THEN 1 ELSE 0 END), 0), \
                    COALESCE(SUM(CASE WHEN lease_until > ?1 THEN 1 ELSE 0 END), 0) \
             FROM alert_jobs WHERE stage <> 'done'",
        )
        .bind(micros(now))
        .fetch_one(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(JobCounts {
            waiting: to_u64(waiting, "a job count")?,
            leased: to_u64(leased, "a job count")?,
        })
    }
}

type AttemptRow = (Uuid, i64, i64, Option<i64>, i64, Option<String>);

fn attempt(row: AttemptRow) -> Result<DeliveryAttempt, StoreError> {
    let (token, attempt, at, status, latency, error) = row;
    Ok(DeliveryAttempt {
        token: Token(token),
        attempt: to_u32(attempt, "attempt")?,
        at: from_micros(at)?,
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

type SummaryRow = (Uuid, i64, i64, Option<i64>, String, Option<String>, i64);

fn summary(row: SummaryRow) -> Result<RequestSummary, StoreError> {
    let (token, received, points, alerts, stage, outcome, attempts) = row;
    Ok(RequestSummary {
        token: Token(token),
        received_at: from_micros(received)?,
        points: to_u64(points, "point count")?,
        alerts: alerts.map(|a| to_u64(a, "alert count")).transpose()?,
        stage: stage.parse::<JobStage>()?,
        outcome: outcome
            .as_deref()
            .map(str::parse::<JobOutcome>)
            .transpose()?,
        attempts: to_u32(attempts, "attempts")?,
    })
}

#[async_trait]
impl DeliveryLog for SqliteStore {
    async fn record_attempt(&self, attempt: &DeliveryAttempt) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO delivery_attempts (token, attempt, at, status, latency_ms, error) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (token, attempt) DO NOTHING",
        )
        .bind(attempt.token.0)
        .bind(i64::from(attempt.attempt))
        .bind(micros(attempt.at))
        .bind(attempt.status.map(i64::from))
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
             WHERE r.key_id = ?1 ORDER BY r.received_at DESC, r.token DESC LIMIT ?2",
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
             WHERE a.token = ?1 AND r.key_id = ?2 ORDER BY a.attempt",
        )
        .bind(token.0)
        .bind(key.0)
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)?;
        rows.into_iter().map(attempt).collect()
    }
}
