//! [`MemoryStore`]: rules, accounts and sessions, and the state its job queue shares.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::idempotency::Fingerprint;
use crate::ids::{AccountId, KeyId, RuleId, Token};
use crate::keys::{KeyHash, WebhookSecret};
use crate::ports::{
    Account, AccountStore, ApiKeyInfo, DeliveryAttempt, JobOutcome, JobStage, KeyConfig, Lease,
    NewApiKey, RuleStore, Session, SessionStore, SigningSecret, StoreError,
};
use crate::request::AlertPoint;
use crate::rule::AlertRule;

use super::lock;

#[derive(Debug, Clone)]
struct KeyRecord {
    info: ApiKeyInfo,
    hash: KeyHash,
    previous: Vec<SigningSecret>,
}

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

#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) accounts: Vec<Account>,
    keys: Vec<KeyRecord>,
    pub(super) rules: Vec<AlertRule>,
    pub(super) jobs: HashMap<Token, JobRecord>,
    pub(super) attempts: HashMap<Token, Vec<DeliveryAttempt>>,
    pub(super) sessions: HashMap<String, Session>,
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
    fn key(&self, id: KeyId) -> Option<&KeyRecord> {
        self.keys.iter().find(|k| k.info.id == id)
    }

    fn key_mut(&mut self, id: KeyId) -> Result<&mut KeyRecord, StoreError> {
        self.keys
            .iter_mut()
            .find(|k| k.info.id == id)
            .ok_or(StoreError::NotFound)
    }

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
/// [`RuleStore`], [`AccountStore`], [`JobQueue`](crate::ports::JobQueue),
/// [`DeliveryLog`](crate::ports::DeliveryLog), [`SentChanges`](crate::ports::SentChanges) and
/// [`SessionStore`] in one value, as a database adapter would be.
#[derive(Debug, Default)]
pub struct MemoryStore {
    pub(super) state: Mutex<State>,
}

impl MemoryStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
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
    async fn authenticate(
        &self,
        hash: &KeyHash,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyId>, StoreError> {
        let mut state = lock(&self.state);
        let Some(key) = state
            .keys
            .iter_mut()
            .find(|k| k.hash == *hash && k.info.revoked_at.is_none())
        else {
            return Ok(None);
        };
        if crate::ports::last_use_is_stale(key.info.last_used_at, now) {
            key.info.last_used_at = Some(now);
        }
        Ok(Some(key.info.id))
    }

    async fn key_config(
        &self,
        key_id: KeyId,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyConfig>, StoreError> {
        let state = lock(&self.state);
        let Some(key) = state.key(key_id).filter(|k| k.info.revoked_at.is_none()) else {
            return Ok(None);
        };
        let mut secrets = vec![SigningSecret {
            secret: key.info.secret.clone(),
            valid_until: None,
        }];
        secrets.extend(
            key.previous
                .iter()
                .filter(|s| s.valid_until.is_some_and(|until| until > now))
                .cloned(),
        );
        let mut rules: Vec<AlertRule> = state
            .rules
            .iter()
            .filter(|r| r.key_id == key_id && r.enabled)
            .cloned()
            .collect();
        rules.sort_by_key(|r| r.created_at);
        Ok(Some(KeyConfig {
            key_id,
            prefix: key.info.prefix.clone(),
            webhook_url: key.info.webhook_url.clone(),
            secrets,
            rules,
        }))
    }
}

#[async_trait]
impl SessionStore for MemoryStore {
    async fn create_session(&self, session: &Session) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        if state.sessions.contains_key(&session.id_hash) {
            return Err(StoreError::Conflict(
                "the session exists already".to_owned(),
            ));
        }
        state
            .sessions
            .insert(session.id_hash.clone(), session.clone());
        Ok(())
    }

    async fn session(
        &self,
        id_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Session>, StoreError> {
        Ok(lock(&self.state)
            .sessions
            .get(id_hash)
            .filter(|s| s.expires_at > now)
            .cloned())
    }

    async fn delete_session(&self, id_hash: &str) -> Result<(), StoreError> {
        lock(&self.state).sessions.remove(id_hash);
        Ok(())
    }

    async fn delete_account_sessions(
        &self,
        account: AccountId,
        except: Option<&str>,
    ) -> Result<u64, StoreError> {
        let mut state = lock(&self.state);
        let before = state.sessions.len();
        state
            .sessions
            .retain(|hash, s| s.account_id != account || Some(hash.as_str()) == except);
        Ok((before - state.sessions.len()) as u64)
    }

    async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut state = lock(&self.state);
        let before = state.sessions.len();
        state.sessions.retain(|_, s| s.expires_at > now);
        Ok((before - state.sessions.len()) as u64)
    }
}

#[async_trait]
impl AccountStore for MemoryStore {
    async fn create_account(&self, account: &Account) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        if state
            .accounts
            .iter()
            .any(|a| a.email == account.email || a.id == account.id)
        {
            return Err(StoreError::Conflict(format!(
                "an account with the email {} exists already",
                account.email
            )));
        }
        state.accounts.push(account.clone());
        Ok(())
    }

    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError> {
        Ok(lock(&self.state)
            .accounts
            .iter()
            .find(|a| a.email == email)
            .cloned())
    }

    async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError> {
        Ok(lock(&self.state)
            .accounts
            .iter()
            .find(|a| a.id == id)
            .cloned())
    }

    async fn set_password_hash(&self, account: AccountId, hash: &str) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        let found = state
            .accounts
            .iter_mut()
            .find(|a| a.id == account)
            .ok_or(StoreError::NotFound)?;
        hash.clone_into(&mut found.password_hash);
        Ok(())
    }

    async fn has_accounts(&self) -> Result<bool, StoreError> {
        Ok(!lock(&self.state).accounts.is_empty())
    }

    async fn create_key(&self, key: &NewApiKey) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        if !state.accounts.iter().any(|a| a.id == key.account_id) {
            return Err(StoreError::NotFound);
        }
        if state
            .keys
            .iter()
            .any(|k| k.hash == key.hash || k.info.id == key.id)
        {
            return Err(StoreError::Conflict("the key exists already".into()));
        }
        state.keys.push(KeyRecord {
            info: ApiKeyInfo {
                id: key.id,
                account_id: key.account_id,
                label: key.label.clone(),
                prefix: key.prefix.clone(),
                created_at: key.created_at,
                last_used_at: None,
                revoked_at: None,
                webhook_url: None,
                secret: key.secret.clone(),
            },
            hash: key.hash,
            previous: Vec::new(),
        });
        Ok(())
    }

    async fn keys_with_prefix(&self, prefix: &str) -> Result<Vec<ApiKeyInfo>, StoreError> {
        let state = lock(&self.state);
        let mut keys: Vec<(usize, ApiKeyInfo)> = state
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| k.info.prefix == prefix)
            .map(|(i, k)| (i, k.info.clone()))
            .collect();
        keys.sort_by(|a, b| b.1.created_at.cmp(&a.1.created_at).then(b.0.cmp(&a.0)));
        Ok(keys.into_iter().map(|(_, k)| k).collect())
    }

    async fn list_keys(&self, account: AccountId) -> Result<Vec<ApiKeyInfo>, StoreError> {
        let state = lock(&self.state);
        // Newest first; among equal times, the later created first.
        let mut keys: Vec<(usize, ApiKeyInfo)> = state
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| k.info.account_id == account)
            .map(|(i, k)| (i, k.info.clone()))
            .collect();
        keys.sort_by(|a, b| b.1.created_at.cmp(&a.1.created_at).then(b.0.cmp(&a.0)));
        Ok(keys.into_iter().map(|(_, k)| k).collect())
    }

    async fn key_info(&self, key: KeyId) -> Result<Option<ApiKeyInfo>, StoreError> {
        Ok(lock(&self.state).key(key).map(|k| k.info.clone()))
    }

    async fn set_key_label(&self, key: KeyId, label: &str) -> Result<(), StoreError> {
        lock(&self.state).key_mut(key)?.info.label = label.to_owned();
        Ok(())
    }

    async fn revoke_key(&self, key: KeyId, at: DateTime<Utc>) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        let k = state.key_mut(key)?;
        k.info.revoked_at.get_or_insert(at);
        Ok(())
    }

    async fn set_webhook_url(&self, key: KeyId, url: Option<&str>) -> Result<(), StoreError> {
        lock(&self.state).key_mut(key)?.info.webhook_url = url.map(str::to_owned);
        Ok(())
    }

    async fn rotate_secret(
        &self,
        key: KeyId,
        new: &WebhookSecret,
        previous_valid_until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        let k = state.key_mut(key)?;
        let old = std::mem::replace(&mut k.info.secret, new.clone());
        k.previous.insert(
            0,
            SigningSecret {
                secret: old,
                valid_until: Some(previous_valid_until),
            },
        );
        Ok(())
    }

    async fn add_rule(&self, rule: &AlertRule) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        if state.key(rule.key_id).is_none() {
            return Err(StoreError::NotFound);
        }
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
