//! The delivery log: every delivery attempt, and the listings the dashboard shows.

use alerts_core::ids::Token;
use alerts_core::ports::stored::{to_i32, to_i64, to_u32, to_u64};
use alerts_core::ports::{
    Activity, ActivityWindow, AttemptTally, DeliveryAttempt, DeliveryErrorKind, DeliveryLog,
    JobOutcome, JobStage, RequestSummary, RequestTally, StoreError,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use uuid::Uuid;

use crate::{PgStore, db_error};

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

    async fn activity(&self, key: KeyId, window: &ActivityWindow) -> Result<Activity, StoreError> {
        let (since, until) = (window.since, window.until());
        let width = i64::from(window.bucket_seconds);
        let requests: Vec<(i64, i64, i64)> = sqlx::query_as(
            "SELECT FLOOR(EXTRACT(EPOCH FROM (r.received_at - $2)) / $3)::bigint AS bucket, \
                    COUNT(*), COALESCE(SUM(j.alerts), 0)::bigint \
             FROM alert_requests r JOIN alert_jobs j ON j.token = r.token \
             WHERE r.key_id = $1 AND r.received_at >= $2 AND r.received_at < $4 \
             GROUP BY 1",
        )
        .bind(key.0)
        .bind(since)
        .bind(width)
        .bind(until)
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)?;
        let attempts: Vec<(i64, Option<i32>, Option<String>, i64, i64, i64)> = sqlx::query_as(
            "SELECT FLOOR(EXTRACT(EPOCH FROM (a.at - $2)) / $3)::bigint AS bucket, a.status, \
                    a.error, COUNT(*), SUM(a.latency_ms)::bigint, MAX(a.latency_ms) \
             FROM delivery_attempts a JOIN alert_requests r ON r.token = a.token \
             WHERE r.key_id = $1 AND a.at >= $2 AND a.at < $4 \
             GROUP BY 1, a.status, a.error",
        )
        .bind(key.0)
        .bind(since)
        .bind(width)
        .bind(until)
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)?;
        let requests = requests
            .into_iter()
            .map(|(bucket, requests, alerts)| {
                Ok(RequestTally {
                    bucket: to_u32(bucket, "bucket")?,
                    requests: to_u64(requests, "request count")?,
                    alerts: to_u64(alerts, "alert count")?,
                })
            })
            .collect::<Result<_, StoreError>>()?;
        let attempts = attempts
            .into_iter()
            .map(|(bucket, status, error, attempts, total, max)| {
                Ok(AttemptTally {
                    bucket: to_u32(bucket, "bucket")?,
                    status: status
                        .map(|s| {
                            u16::try_from(s).map_err(|_| {
                                StoreError::Corrupt(format!("HTTP status {s} is out of range"))
                            })
                        })
                        .transpose()?,
                    error: error
                        .as_deref()
                        .map(str::parse::<DeliveryErrorKind>)
                        .transpose()?,
                    attempts: to_u64(attempts, "attempt count")?,
                    latency_ms_total: to_u64(total, "latency")?,
                    latency_ms_max: to_u64(max, "latency")?,
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(Activity { requests, attempts }.sorted())
    }
}
