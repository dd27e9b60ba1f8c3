//! What once-per-change rules told: the sent-changes store.

use std::collections::HashMap;

use alerts_core::ids::{RuleId, Token};
use alerts_core::ports::{SentChange, SentChanges, StoreError};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use uuid::Uuid;

use crate::{PgStore, db_error};

#[async_trait]
impl SentChanges for PgStore {
    async fn sent_changes(
        &self,
        key: KeyId,
        point_ids: &[&str],
        now: DateTime<Utc>,
    ) -> Result<Vec<SentChange>, StoreError> {
        if point_ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<(Uuid, String, String, String, DateTime<Utc>)> = sqlx::query_as(
            "SELECT s.rule_id, s.point_id, s.subject, s.mark, s.until \
             FROM sent_changes s JOIN alert_jobs j ON j.token = s.token \
             WHERE s.key_id = $1 AND s.point_id = ANY($2) AND s.until > $3 \
               AND j.alerts IS NOT NULL",
        )
        .bind(key.0)
        .bind(point_ids)
        .bind(now)
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(rows
            .into_iter()
            .map(|(rule_id, point_id, subject, mark, until)| SentChange {
                rule_id: RuleId(rule_id),
                point_id,
                subject,
                mark,
                until,
            })
            .collect())
    }

    async fn record_sent(
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
        // A rule deleted while its request was evaluated has nothing left to remember.
        sqlx::query(
            "INSERT INTO sent_changes (rule_id, point_id, subject, key_id, token, mark, until) \
             SELECT c.rule_id, c.point_id, c.subject, $6, $7, c.mark, c.until \
             FROM UNNEST($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) \
                  AS c (rule_id, point_id, subject, mark, until) \
             WHERE EXISTS (SELECT 1 FROM alert_rules r WHERE r.id = c.rule_id) \
             ON CONFLICT (rule_id, point_id, subject) DO UPDATE SET \
               key_id = excluded.key_id, token = excluded.token, mark = excluded.mark, \
               until = excluded.until",
        )
        .bind(rules)
        .bind(column(|c| c.point_id.clone()))
        .bind(column(|c| c.subject.clone()))
        .bind(column(|c| c.mark.clone()))
        .bind(untils)
        .bind(key.0)
        .bind(token.0)
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(())
    }
}
