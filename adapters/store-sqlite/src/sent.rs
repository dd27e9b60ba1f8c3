//! What once-per-change rules told: the sent-changes store.

use alerts_core::ids::{RuleId, Token};
use alerts_core::ports::{SentChange, SentChanges, StoreError};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use uuid::Uuid;

use crate::{SqliteStore, db_error, from_micros, micros};

#[async_trait]
impl SentChanges for SqliteStore {
    async fn sent_changes(
        &self,
        key: KeyId,
        point_ids: &[&str],
        now: DateTime<Utc>,
    ) -> Result<Vec<SentChange>, StoreError> {
        if point_ids.is_empty() {
            return Ok(Vec::new());
        }
        // The ids travel as one JSON array, however many the chunk has.
        let ids = serde_json::to_string(point_ids)
            .map_err(|e| StoreError::Corrupt(format!("point ids: {e}")))?;
        let rows: Vec<(Uuid, String, String, String, i64)> = sqlx::query_as(
            "SELECT s.rule_id, s.point_id, s.subject, s.mark, s.until \
             FROM sent_changes s JOIN alert_jobs j ON j.token = s.token \
             WHERE s.key_id = ?1 AND s.point_id IN (SELECT value FROM json_each(?2)) \
               AND s.until > ?3 AND j.alerts IS NOT NULL",
        )
        .bind(key.0)
        .bind(ids)
        .bind(micros(now))
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)?;
        rows.into_iter()
            .map(|(rule_id, point_id, subject, mark, until)| {
                Ok(SentChange {
                    rule_id: RuleId(rule_id),
                    point_id,
                    subject,
                    mark,
                    until: from_micros(until)?,
                })
            })
            .collect()
    }

    async fn record_sent(
        &self,
        token: Token,
        key: KeyId,
        changes: &[SentChange],
    ) -> Result<(), StoreError> {
        let mut tx = self
            .pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(db_error)?;
        for change in changes {
            // A rule deleted while its request was evaluated has nothing left to remember.
            sqlx::query(
                "INSERT INTO sent_changes (rule_id, point_id, subject, key_id, token, mark, until) \
                 SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 \
                 WHERE EXISTS (SELECT 1 FROM alert_rules WHERE id = ?1) \
                 ON CONFLICT (rule_id, point_id, subject) DO UPDATE SET \
                   key_id = excluded.key_id, token = excluded.token, mark = excluded.mark, \
                   until = excluded.until",
            )
            .bind(change.rule_id.0)
            .bind(&change.point_id)
            .bind(&change.subject)
            .bind(key.0)
            .bind(token.0)
            .bind(&change.mark)
            .bind(micros(change.until))
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
        }
        tx.commit().await.map_err(db_error)?;
        Ok(())
    }
}
