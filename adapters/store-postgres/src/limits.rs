//! Shared rate limits: [`LimitStore`] on PostgreSQL, one upsert per request.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ports::{Decision, LimitError, LimitStore, Quota, micros};

use crate::PgStore;

/// The GCRA step of [`identity_core::ports::gcra`] in one statement, atomic under concurrent
/// requests on the same key: the row is locked by the upsert. `$3` is now, `$4` the units'
/// intervals, `$5` the burst's. A refused request leaves the time as it was.
const TAKE: &str = "\
INSERT INTO rate_limits AS r (bucket, limit_key, tat_us, allowed)
VALUES ($1, $2, CASE WHEN $4 <= $5 THEN $3 + $4 ELSE $3 END, $4 <= $5)
ON CONFLICT (bucket, limit_key) DO UPDATE SET
    allowed = GREATEST(r.tat_us, $3) + $4 - $5 <= $3,
    tat_us = CASE WHEN GREATEST(r.tat_us, $3) + $4 - $5 <= $3
                  THEN GREATEST(r.tat_us, $3) + $4 ELSE r.tat_us END
RETURNING tat_us, allowed";

/// Rows whose time has passed, a batch at a time (each statement stays short).
const PURGE: &str = "\
DELETE FROM rate_limits WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM rate_limits WHERE tat_us <= $1 LIMIT $2))";

#[async_trait]
impl LimitStore for PgStore {
    async fn take(
        &self,
        bucket: &str,
        key: &str,
        quota: Quota,
        cost: u32,
        now: DateTime<Utc>,
    ) -> Result<Decision, LimitError> {
        let now_us = micros(now);
        let increment = quota.emission_interval_us().saturating_mul(i64::from(cost));
        let tolerance = quota.tolerance_us();
        let (tat, allowed): (i64, bool) = sqlx::query_as(TAKE)
            .bind(bucket)
            .bind(key)
            .bind(now_us)
            .bind(increment)
            .bind(tolerance)
            .fetch_one(&self.pool)
            .await
            .map_err(|e| LimitError::Unavailable(e.to_string()))?;
        if allowed {
            // The stored time is the new one: the allowance is whole again then.
            let full_in = u64::try_from(tat.saturating_sub(now_us)).unwrap_or(0);
            return Ok(Decision::Allowed {
                full_in: Duration::from_micros(full_in),
            });
        }
        let wait = tat
            .max(now_us)
            .saturating_add(increment)
            .saturating_sub(tolerance)
            .saturating_sub(now_us);
        Ok(Decision::Limited {
            retry_after: Duration::from_micros(u64::try_from(wait).unwrap_or(0)),
        })
    }
}

impl PgStore {
    /// Deletes up to `batch` limit rows whose allowance had refilled by `now` (they mean the
    /// same as no row); returns how many. A sweep calls it until it returns less than `batch`.
    ///
    /// # Errors
    /// [`LimitError::Unavailable`] when the database fails.
    pub async fn purge_limits(&self, now: DateTime<Utc>, batch: i64) -> Result<u64, LimitError> {
        sqlx::query(PURGE)
            .bind(micros(now))
            .bind(batch)
            .execute(&self.pool)
            .await
            .map(|done| done.rows_affected())
            .map_err(|e| LimitError::Unavailable(e.to_string()))
    }
}
