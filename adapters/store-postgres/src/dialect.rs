//! What PostgreSQL does its own way ([`SqlDialect`]): `timestamptz` times, claims that take
//! turns on an advisory lock across replicas, and leases and told changes written in one
//! statement each from arrays.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use alerts_core::ids::{RuleId, Token};
use alerts_core::ports::{AlertJob, Arrivals, SentChange, StoreError};
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use sqlx::{PgConnection, PgPool, Postgres};
use store_sql::InProcess;
use store_sql::SqlDialect;
use uuid::Uuid;

use crate::PgStore;

/// The advisory lock claims take turns on (any number; this one spells "claim").
const CLAIM_LOCK: i64 = 0x0063_6c61_696d;

impl SqlDialect for PgStore {
    type Db = Postgres;
    type Time = DateTime<Utc>;

    const NAME: &'static str = "PostgreSQL";

    fn pool(&self) -> &PgPool {
        &self.pool
    }

    fn in_process(&self) -> &Arc<InProcess> {
        &self.in_process
    }

    fn writer(&self) -> &PgPool {
        // Concurrent writers each take a connection; row locks order them.
        &self.pool
    }

    fn spawn_write<F>(&self, write: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        tokio::spawn(write)
    }

    fn run_write<T: Send + 'static>(
        &self,
        write: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> impl Future<Output = Result<T, StoreError>> + Send {
        write
    }

    fn jobs_arrived(&self) {
        // The database tells every listening replica on commit (the `alert_jobs` triggers).
    }

    async fn subscribe(&self) -> Result<Box<dyn Arrivals>, StoreError> {
        crate::arrivals::subscribe(&self.pool).await
    }

    fn to_time(t: DateTime<Utc>) -> DateTime<Utc> {
        t
    }

    fn from_time(t: DateTime<Utc>) -> Result<DateTime<Utc>, StoreError> {
        Ok(t)
    }

    async fn claims_take_turns(tx: &mut PgConnection) -> Result<(), StoreError> {
        // Across replicas too. A claim is a few milliseconds, so the turns cost little.
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(CLAIM_LOCK)
            .execute(&mut *tx)
            .await
            .map(|_| ())
            .map_err(Self::db_error)
    }

    async fn lease_jobs(tx: &mut PgConnection, jobs: &[AlertJob]) -> Result<(), StoreError> {
        let tokens: Vec<Uuid> = jobs.iter().map(|j| j.token.0).collect();
        let leases: Vec<Uuid> = jobs.iter().map(|j| j.lease.id).collect();
        let until = jobs.first().map(|j| j.lease.until);
        let updated = sqlx::query(
            "UPDATE alert_jobs AS j SET lease_id = u.lease_id, lease_until = $3 \
             FROM unnest($1::uuid[], $2::uuid[]) AS u(token, lease_id) WHERE j.token = u.token",
        )
        .bind(&tokens)
        .bind(&leases)
        .bind(until)
        .execute(&mut *tx)
        .await
        .map_err(Self::db_error)?;
        if updated.rows_affected() != tokens.len() as u64 {
            // The rows are locked by this transaction: this cannot happen short of a bug.
            return Err(StoreError::Corrupt(format!(
                "claim leased {} of {} locked jobs",
                updated.rows_affected(),
                tokens.len()
            )));
        }
        Ok(())
    }

    async fn write_sent(
        &self,
        token: Token,
        key: KeyId,
        changes: &[SentChange],
    ) -> Result<(), StoreError> {
        // One statement may write a row once: of changes for the same slot, the last wins.
        let mut last: HashMap<(RuleId, &str, &str), &SentChange> = HashMap::new();
        for change in changes {
            last.insert((change.rule_id, &change.point_id, &change.subject), change);
        }
        let changes: Vec<&SentChange> = last.into_values().collect();
        let column =
            |f: fn(&SentChange) -> String| changes.iter().map(|c| f(c)).collect::<Vec<_>>();
        let rules: Vec<Uuid> = changes.iter().map(|c| c.rule_id.0).collect();
        let untils: Vec<DateTime<Utc>> = changes.iter().map(|c| c.until).collect();
        sqlx::query(store_sql::sent::postgres::UPSERT_SENT)
            .bind(rules)
            .bind(column(|c| c.point_id.clone()))
            .bind(column(|c| c.subject.clone()))
            .bind(column(|c| c.mark.clone()))
            .bind(untils)
            .bind(key.0)
            .bind(token.0)
            .execute(&self.pool)
            .await
            .map_err(Self::db_error)?;
        Ok(())
    }
}
