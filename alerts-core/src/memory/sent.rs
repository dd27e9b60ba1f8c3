//! [`SentChanges`] for [`MemoryStore`].

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;

use crate::ids::Token;
use crate::ports::{SentChange, SentChanges, StoreError};

use super::lock;
use super::store::{MemoryStore, SentRecord};

#[async_trait]
impl SentChanges for MemoryStore {
    async fn sent_changes(
        &self,
        key: KeyId,
        point_ids: &[&str],
        now: DateTime<Utc>,
    ) -> Result<Vec<SentChange>, StoreError> {
        let state = lock(&self.state);
        let written = |token: &Token| {
            state
                .jobs
                .get(token)
                .is_some_and(|job| job.alerts.is_some())
        };
        Ok(state
            .sent
            .iter()
            .filter(|((_, point_id, _), told)| {
                told.key_id == key
                    && told.until > now
                    && point_ids.contains(&point_id.as_str())
                    && written(&told.token)
            })
            .map(|((rule_id, point_id, subject), told)| SentChange {
                rule_id: *rule_id,
                point_id: point_id.clone(),
                subject: subject.clone(),
                mark: told.mark.clone(),
                until: told.until,
            })
            .collect())
    }

    async fn record_sent(
        &self,
        token: Token,
        key: KeyId,
        changes: &[SentChange],
    ) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        if !state.jobs.contains_key(&token) {
            return Err(StoreError::NotFound);
        }
        // A rule deleted while its request was evaluated has nothing left to remember.
        let live: Vec<&SentChange> = changes
            .iter()
            .filter(|c| state.rules.iter().any(|r| r.id == c.rule_id))
            .collect();
        for change in live {
            state.sent.insert(
                (
                    change.rule_id,
                    change.point_id.clone(),
                    change.subject.clone(),
                ),
                SentRecord {
                    token,
                    key_id: key,
                    mark: change.mark.clone(),
                    until: change.until,
                },
            );
        }
        Ok(())
    }
}
