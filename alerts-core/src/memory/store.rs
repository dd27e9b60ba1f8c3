//! [`MemoryStore`]: rules, and the state its job queue shares; accounts, keys and sessions
//! are kept by the [`MemoryIdentity`] inside it.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ids::{AccountId, KeyId};
use identity_core::keys::{KeyHash, WebhookSecret};
use identity_core::memory::MemoryIdentity;
use identity_core::ports::{
    Account, AccountStore, ApiKeyInfo, KeyAuthenticator, NewApiKey, Session, SessionStore,
};

use crate::idempotency::Fingerprint;
use crate::ids::{RuleId, Token};
use crate::ports::ArrivalHub;
use crate::ports::{
    DeliveryAttempt, JobOutcome, JobStage, KeyConfig, Lease, RuleStore, SigningSecret, StoreError,
    TestDelivery,
};
use crate::request::AlertPoint;
use crate::rule::AlertRule;

use super::lock;

#[derive(Debug, Clone)]
pub(super) struct JobRecord {
    pub(super) token: Token,
    pub(super) key_id: KeyId,
    pub(super) points: Vec<AlertPoint>,
    pub(super) received_at: DateTime<Utc>,
    pub(super) stage: JobStage,
    pub(super) attempts: u32,
    pub(super) run_at: DateTime<Utc>,
    pub(super) lease: Option<Lease>,
    pub(super) alerts: Option<u64>,
    pub(super) outcome: Option<JobOutcome>,
    pub(super) seq: u64,
}

impl JobRecord {
    /// When the job's lease ends, if it has one.
    pub(super) fn lease_until(&self) -> Option<DateTime<Utc>> {
        self.lease.map(|l| l.until)
    }
}

#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) rules: Vec<AlertRule>,
    pub(super) jobs: HashMap<Token, JobRecord>,
    pub(super) attempts: HashMap<Token, Vec<DeliveryAttempt>>,
    /// Test deliveries by key, newest first, at most `TEST_DELIVERIES_KEPT` each.
    pub(super) tests: HashMap<KeyId, Vec<TestDelivery>>,
    /// Idempotency keys by API key, with the request they name.
    pub(super) idempotency: HashMap<(KeyId, String), (Token, Fingerprint)>,
    /// Changes told by once-per-change rules, by rule, point id and subject.
    pub(super) sent: HashMap<(RuleId, String, String), SentRecord>,
    pub(super) seq: u64,
}

/// A told change in [`State::sent`]: the job that told it and what it was.
#[derive(Debug, Clone)]
pub(super) struct SentRecord {
    pub(super) token: Token,
    pub(super) key_id: KeyId,
    pub(super) mark: String,
    pub(super) until: DateTime<Utc>,
}

impl State {
    pub(super) fn held_job(
        &mut self,
        token: Token,
        lease: &Lease,
    ) -> Result<&mut JobRecord, StoreError> {
        let job = self.jobs.get_mut(&token).ok_or(StoreError::NotFound)?;
        // The lease id alone decides: a holder whose lease ran out may still finish as long as
        // nobody claimed the job in between (a claim replaces the id).
        if job.lease.is_some_and(|l| l.id == lease.id) {
            Ok(job)
        } else {
            Err(StoreError::LeaseLost)
        }
    }
}

/// Accounts, keys, rules, jobs, deliveries, told changes and sessions in memory:
/// [`RuleStore`], [`AccountStore`], [`KeyAuthenticator`], [`JobQueue`](crate::ports::JobQueue),
/// [`DeliveryLog`](crate::ports::DeliveryLog), [`SentChanges`](crate::ports::SentChanges) and
/// [`SessionStore`] in one value, as a database adapter would be. The identity ports are
/// those of a [`MemoryIdentity`] inside.
#[derive(Debug, Default)]
pub struct MemoryStore {
    identity: MemoryIdentity,
    pub(super) state: Mutex<State>,
    pub(super) arrivals: ArrivalHub,
}

impl MemoryStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `key` exists, revoked or not.
    pub(super) fn has_key(&self, key: KeyId) -> bool {
        self.identity.key_with_secrets(key).is_some()
    }

    /// Where a job is, for tests: its stage, attempts, run time and outcome.
    #[must_use]
    pub fn job_state(&self, token: Token) -> Option<JobState> {
        lock(&self.state).jobs.get(&token).map(|j| JobState {
            stage: j.stage,
            attempts: j.attempts,
            run_at: j.run_at,
            leased_until: j.lease.map(|l| l.until),
            alerts: j.alerts,
            outcome: j.outcome,
        })
    }
}

/// A job's state as [`MemoryStore::job_state`] shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobState {
    /// What happens next.
    pub stage: JobStage,
    /// Delivery attempts made.
    pub attempts: u32,
    /// When the job is next due.
    pub run_at: DateTime<Utc>,
    /// The current lease's end, if leased.
    pub leased_until: Option<DateTime<Utc>>,
    /// Lines in the file, once written.
    pub alerts: Option<u64>,
    /// How it ended, once done.
    pub outcome: Option<JobOutcome>,
}

#[async_trait]
impl RuleStore for MemoryStore {
    async fn key_config(
        &self,
        key_id: KeyId,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyConfig>, StoreError> {
        let Some((info, previous)) = self
            .identity
            .key_with_secrets(key_id)
            .filter(|(info, _)| info.revoked_at.is_none())
        else {
            return Ok(None);
        };
        let mut secrets = vec![SigningSecret {
            secret: info.secret,
            valid_until: None,
        }];
        secrets.extend(previous.into_iter().filter(|(_, until)| *until > now).map(
            |(secret, until)| SigningSecret {
                secret,
                valid_until: Some(until),
            },
        ));
        let mut rules: Vec<AlertRule> = lock(&self.state)
            .rules
            .iter()
            .filter(|r| r.key_id == key_id && r.enabled)
            .cloned()
            .collect();
        rules.sort_by_key(|r| r.created_at);
        Ok(Some(KeyConfig {
            key_id,
            prefix: info.prefix,
            webhook_url: info.webhook_url,
            secrets,
            rules,
        }))
    }

    async fn add_rule(&self, rule: &AlertRule) -> Result<(), StoreError> {
        if self.identity.key_with_secrets(rule.key_id).is_none() {
            return Err(StoreError::NotFound);
        }
        let mut state = lock(&self.state);
        if state.rules.iter().any(|r| r.id == rule.id) {
            return Err(StoreError::Conflict(format!(
                "a rule with id {} exists already",
                rule.id
            )));
        }
        state.rules.push(rule.clone());
        Ok(())
    }

    async fn list_rules(&self, key: KeyId) -> Result<Vec<AlertRule>, StoreError> {
        let state = lock(&self.state);
        let mut rules: Vec<AlertRule> = state
            .rules
            .iter()
            .filter(|r| r.key_id == key)
            .cloned()
            .collect();
        // Stable: rules created at the same instant keep the order they were added in.
        rules.sort_by_key(|r| r.created_at);
        Ok(rules)
    }

    async fn update_rule(&self, rule: &AlertRule) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        let stored = state
            .rules
            .iter_mut()
            .find(|r| r.id == rule.id && r.key_id == rule.key_id)
            .ok_or(StoreError::NotFound)?;
        stored.spec = rule.spec.clone();
        stored.enabled = rule.enabled;
        Ok(())
    }

    async fn delete_rule(&self, key: KeyId, rule: RuleId) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        let before = state.rules.len();
        state.rules.retain(|r| !(r.id == rule && r.key_id == key));
        if state.rules.len() == before {
            Err(StoreError::NotFound)
        } else {
            state.sent.retain(|(rule_id, _, _), _| *rule_id != rule);
            Ok(())
        }
    }
}

// The identity ports are the inner store's.
#[async_trait]
impl KeyAuthenticator for MemoryStore {
    async fn authenticate(
        &self,
        hash: &KeyHash,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyId>, StoreError> {
        self.identity.authenticate(hash, now).await
    }
}

#[async_trait]
impl SessionStore for MemoryStore {
    async fn create_session(&self, session: &Session) -> Result<(), StoreError> {
        self.identity.create_session(session).await
    }

    async fn session(
        &self,
        id_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Session>, StoreError> {
        self.identity.session(id_hash, now).await
    }

    async fn delete_session(&self, id_hash: &str) -> Result<(), StoreError> {
        self.identity.delete_session(id_hash).await
    }

    async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        self.identity.delete_expired_sessions(now).await
    }

    async fn delete_account_sessions(
        &self,
        account: AccountId,
        except: Option<&str>,
    ) -> Result<u64, StoreError> {
        self.identity.delete_account_sessions(account, except).await
    }
}

#[async_trait]
impl AccountStore for MemoryStore {
    async fn create_account(&self, account: &Account) -> Result<(), StoreError> {
        self.identity.create_account(account).await
    }

    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError> {
        self.identity.account_by_email(email).await
    }

    async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError> {
        self.identity.account(id).await
    }

    async fn has_accounts(&self) -> Result<bool, StoreError> {
        self.identity.has_accounts().await
    }

    async fn set_password_hash(
        &self,
        account: AccountId,
        hash: &str,
        current: i64,
    ) -> Result<i64, StoreError> {
        self.identity
            .set_password_hash(account, hash, current)
            .await
    }

    async fn create_key(&self, key: &NewApiKey) -> Result<(), StoreError> {
        self.identity.create_key(key).await
    }

    async fn list_keys(&self, account: AccountId) -> Result<Vec<ApiKeyInfo>, StoreError> {
        self.identity.list_keys(account).await
    }

    async fn key_info(&self, key: KeyId) -> Result<Option<ApiKeyInfo>, StoreError> {
        self.identity.key_info(key).await
    }

    async fn keys_with_prefix(&self, prefix: &str) -> Result<Vec<ApiKeyInfo>, StoreError> {
        self.identity.keys_with_prefix(prefix).await
    }

    async fn set_key_label(&self, key: KeyId, label: &str) -> Result<(), StoreError> {
        self.identity.set_key_label(key, label).await
    }

    async fn revoke_key(&self, key: KeyId, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.identity.revoke_key(key, at).await
    }

    async fn set_webhook_url(&self, key: KeyId, url: Option<&str>) -> Result<(), StoreError> {
        self.identity.set_webhook_url(key, url).await
    }

    async fn rotate_secret(
        &self,
        key: KeyId,
        new: &WebhookSecret,
        previous_valid_until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.identity
            .rotate_secret(key, new, previous_valid_until)
            .await
    }
}
