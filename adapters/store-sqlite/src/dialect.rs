//! What SQLite does its own way ([`SqlDialect`]): times as integer microseconds, claims that
//! take turns by the write lock alone, and leases and told changes written row by row in the
//! write transaction.

use std::future::Future;
use std::sync::Arc;

use alerts_core::ids::Token;
use alerts_core::ports::{AlertJob, Arrivals, SentChange, StoreError};
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use sqlx::{Sqlite, SqliteConnection, SqlitePool};
use store_sql::InProcess;
use store_sql::SqlDialect;

use crate::SqliteStore;

impl SqlDialect for SqliteStore {
    type Db = Sqlite;
    /// Microseconds since the Unix epoch: exact to compare and to sort.
    type Time = i64;

    const NAME: &'static str = "SQLite";

    fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    fn in_process(&self) -> &Arc<InProcess> {
        &self.in_process
    }

    fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    fn to_time(t: DateTime<Utc>) -> i64 {
        t.timestamp_micros()
    }

    fn from_time(us: i64) -> Result<DateTime<Utc>, StoreError> {
        DateTime::from_timestamp_micros(us)
            .ok_or_else(|| StoreError::Corrupt(format!("time {us} µs is out of range")))
    }

    fn spawn_write<F>(&self, write: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.writer_thread.spawn(write)
    }

    fn run_write<T: Send + 'static>(
        &self,
        write: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> impl Future<Output = Result<T, StoreError>> + Send {
        self.writer_thread.run(write)
    }

    fn jobs_arrived(&self) {
        // The embedded database has one server writing to it: telling this process is
        // telling every worker.
        self.arrivals.notify();
    }

    async fn subscribe(&self) -> Result<Box<dyn Arrivals>, StoreError> {
        Ok(self.arrivals.subscribe())
    }

    async fn claims_take_turns(_: &mut SqliteConnection) -> Result<(), StoreError> {
        // A claim begins as every write does, with the write lock: no other claim can pick
        // the same jobs, or lease more of the same key, between its read and its updates.
        Ok(())
    }

    async fn lease_jobs(tx: &mut SqliteConnection, jobs: &[AlertJob]) -> Result<(), StoreError> {
        for job in jobs {
            let updated = sqlx::query(
                "UPDATE alert_jobs SET lease_id = $1, lease_until = $2 WHERE token = $3",
            )
            .bind(job.lease.id)
            .bind(Self::to_time(job.lease.until))
            .bind(job.token.0)
            .execute(&mut *tx)
            .await
            .map_err(Self::db_error)?;
            if updated.rows_affected() != 1 {
                // The claim's write transaction selected this job: this cannot happen short of
                // a bug.
                return Err(StoreError::Corrupt(format!(
                    "claim could not lease the selected job {}",
                    job.token.0
                )));
            }
        }
        Ok(())
    }

    async fn write_sent(
        &self,
        token: Token,
        key: KeyId,
        changes: &[SentChange],
    ) -> Result<(), StoreError> {
        let mut tx = self
            .writer
            .begin_with(store_sql::dialect::sqlite::BEGIN_WRITE)
            .await
            .map_err(Self::db_error)?;
        for change in changes {
            sqlx::query(store_sql::sent::sqlite::UPSERT_SENT)
                .bind(change.rule_id.0)
                .bind(&change.point_id)
                .bind(&change.subject)
                .bind(key.0)
                .bind(token.0)
                .bind(&change.mark)
                .bind(Self::to_time(change.until))
                .execute(&mut *tx)
                .await
                .map_err(Self::db_error)?;
        }
        tx.commit().await.map_err(Self::db_error)
    }
}
