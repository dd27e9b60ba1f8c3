//! In-memory implementations of every port of the alert pipeline, for tests, examples and
//! benchmarks: [`MemoryStore`] (rules, accounts, jobs, deliveries), [`MemoryFiles`] (files and
//! URL signing) and [`RecordingSender`] (a webhook sender with scripted answers that records
//! what it was asked to send).
//!
//! They keep the promises of the ports exactly, lease semantics included, and pass the
//! conformance suites; they are not meant for production (nothing survives the process).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use uuid::Uuid;

use crate::idempotency::{Enqueued, Fingerprint, Idempotency};
use crate::ids::{AccountId, KeyId, RuleId, Token};
use crate::keys::{KeyHash, WebhookSecret};
use crate::ports::{
    Account, AccountStore, AlertJob, ApiKeyInfo, DeliveryAttempt, DeliveryLog, FileError, FileKey,
    FileStore, FileWriter, JobCounts, JobOutcome, JobQueue, JobStage, JobUpdate, KeyConfig, Lease,
    NewAlertJob, NewApiKey, PointPages, RequestSummary, RuleStore, Session, SessionStore,
    SigningSecret, StoreError, UNFINISHED_JOB, UrlSigner, WebhookRequest, WebhookResponse,
    WebhookSender, check_page_total,
};
use crate::request::AlertPoint;
use crate::rule::AlertRule;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic in another test thread must not hide this store's state from the rest.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn after(now: DateTime<Utc>, d: Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(d)
        .ok()
        .and_then(|d| now.checked_add_signed(d))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

#[derive(Debug, Clone)]
struct KeyRecord {
    info: ApiKeyInfo,
    hash: KeyHash,
    previous: Vec<SigningSecret>,
}

#[derive(Debug, Clone)]
struct JobRecord {
    token: Token,
    key_id: KeyId,
    points: Vec<AlertPoint>,
    received_at: DateTime<Utc>,
    stage: JobStage,
    attempts: u32,
    run_at: DateTime<Utc>,
    lease: Option<Lease>,
    alerts: Option<u64>,
    outcome: Option<JobOutcome>,
    seq: u64,
}

#[derive(Debug, Default)]
struct State {
    accounts: Vec<Account>,
    keys: Vec<KeyRecord>,
    rules: Vec<AlertRule>,
    jobs: HashMap<Token, JobRecord>,
    attempts: HashMap<Token, Vec<DeliveryAttempt>>,
    sessions: HashMap<String, Session>,
    /// Idempotency keys by API key, with the request they name.
    idempotency: HashMap<(KeyId, String), (Token, Fingerprint)>,
    seq: u64,
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

    fn held_job(&mut self, token: Token, lease: &Lease) -> Result<&mut JobRecord, StoreError> {
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

/// Accounts, keys, rules, jobs, deliveries and sessions in memory: [`RuleStore`],
/// [`AccountStore`], [`JobQueue`], [`DeliveryLog`] and [`SessionStore`] in one value, as a database adapter would be.
#[derive(Debug, Default)]
pub struct MemoryStore {
    state: Mutex<State>,
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
            Ok(())
        }
    }
}

/// Stores a request and its job, due at once; refuses a token stored already.
fn insert_job(
    state: &mut State,
    job: &NewAlertJob,
    points: Vec<AlertPoint>,
) -> Result<(), StoreError> {
    if state.jobs.contains_key(&job.token) {
        return Err(StoreError::Conflict(format!(
            "the token {} exists already",
            job.token
        )));
    }
    state.seq += 1;
    let seq = state.seq;
    state.jobs.insert(
        job.token,
        JobRecord {
            token: job.token,
            key_id: job.key_id,
            points,
            received_at: job.received_at,
            stage: JobStage::Evaluate,
            attempts: 0,
            run_at: job.received_at,
            lease: None,
            alerts: None,
            outcome: None,
            seq,
        },
    );
    Ok(())
}

#[async_trait]
impl JobQueue for MemoryStore {
    async fn enqueue_pages(
        &self,
        job: &NewAlertJob,
        pages: &mut dyn PointPages,
        idempotency: Option<&Idempotency>,
    ) -> Result<Enqueued, StoreError> {
        // Everything is in memory here anyway: read the pages first, since the state's lock
        // cannot be held across them.
        let mut points = Vec::new();
        loop {
            let page = pages.next_page().await?;
            if page.is_empty() {
                break;
            }
            points.extend(page);
        }
        check_page_total(points.len() as u64, pages)?;
        let mut state = lock(&self.state);
        let Some(idempotency) = idempotency else {
            insert_job(&mut state, job, points)?;
            return Ok(Enqueued::Stored);
        };
        let slot = (job.key_id, idempotency.key.as_str().to_owned());
        // A key is remembered only as long as its request is.
        if let Some(&(token, fingerprint)) = state.idempotency.get(&slot)
            && state.jobs.contains_key(&token)
        {
            return Ok(Enqueued::Existing { token, fingerprint });
        }
        insert_job(&mut state, job, points)?;
        state
            .idempotency
            .insert(slot, (job.token, idempotency.fingerprint));
        Ok(Enqueued::Stored)
    }

    async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_for: Duration,
        max: usize,
        lease_ids: &(dyn Fn() -> Uuid + Send + Sync),
    ) -> Result<Vec<AlertJob>, StoreError> {
        let mut state = lock(&self.state);
        let mut due: Vec<(DateTime<Utc>, u64, Token)> = state
            .jobs
            .values()
            .filter(|j| {
                j.stage != JobStage::Done
                    && j.run_at <= now
                    && j.lease.is_none_or(|l| l.until <= now)
            })
            .map(|j| (j.run_at, j.seq, j.token))
            .collect();
        due.sort_unstable();
        let until = after(now, lease_for);
        let mut claimed = Vec::new();
        for (_, _, token) in due.into_iter().take(max) {
            let Some(job) = state.jobs.get_mut(&token) else {
                continue;
            };
            let lease = Lease {
                id: lease_ids(),
                until,
            };
            job.lease = Some(lease);
            claimed.push(AlertJob {
                token,
                key_id: job.key_id,
                stage: job.stage,
                attempts: job.attempts,
                received_at: job.received_at,
                lease,
            });
        }
        Ok(claimed)
    }

    async fn points_page(
        &self,
        token: Token,
        from: u64,
        limit: usize,
    ) -> Result<Vec<AlertPoint>, StoreError> {
        let state = lock(&self.state);
        let points = &state.jobs.get(&token).ok_or(StoreError::NotFound)?.points;
        // A `from` beyond what usize holds is past the end of any request.
        let start = usize::try_from(from).map_or(points.len(), |f| f.min(points.len()));
        Ok(points[start..].iter().take(limit).cloned().collect())
    }

    async fn update(
        &self,
        token: Token,
        lease: &Lease,
        update: JobUpdate,
    ) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        let job = state.held_job(token, lease)?;
        match update {
            JobUpdate::Written { alerts, run_at } => {
                job.stage = JobStage::Deliver;
                job.alerts = Some(alerts);
                job.run_at = run_at;
            }
            JobUpdate::Retry { attempts, run_at } => {
                job.attempts = attempts;
                job.run_at = run_at;
            }
            JobUpdate::Finish { outcome, attempts } => {
                job.stage = JobStage::Done;
                job.outcome = Some(outcome);
                job.attempts = attempts;
            }
        }
        job.lease = None;
        Ok(())
    }

    async fn release(&self, token: Token, lease: &Lease) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        state.held_job(token, lease)?.lease = None;
        Ok(())
    }

    async fn redeliver(
        &self,
        key: KeyId,
        token: Token,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        let job = state
            .jobs
            .get_mut(&token)
            .filter(|j| j.key_id == key)
            .ok_or(StoreError::NotFound)?;
        if job.stage != JobStage::Done {
            return Err(StoreError::Conflict(UNFINISHED_JOB.to_owned()));
        }
        if job.alerts.is_none() {
            return Err(StoreError::NotFound);
        }
        job.stage = JobStage::Deliver;
        job.outcome = None;
        job.run_at = at;
        job.lease = None;
        Ok(())
    }

    async fn counts(&self, now: DateTime<Utc>) -> Result<JobCounts, StoreError> {
        let state = lock(&self.state);
        let mut counts = JobCounts::default();
        for job in state.jobs.values().filter(|j| j.stage != JobStage::Done) {
            if job.lease.is_some_and(|l| l.until > now) {
                counts.leased += 1;
            } else {
                counts.waiting += 1;
            }
        }
        Ok(counts)
    }
}

#[async_trait]
impl DeliveryLog for MemoryStore {
    async fn record_attempt(&self, attempt: &DeliveryAttempt) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        let list = state.attempts.entry(attempt.token).or_default();
        if !list.iter().any(|a| a.attempt == attempt.attempt) {
            list.push(attempt.clone());
            list.sort_by_key(|a| a.attempt);
        }
        Ok(())
    }

    async fn list_requests(
        &self,
        key: KeyId,
        limit: usize,
    ) -> Result<Vec<RequestSummary>, StoreError> {
        let state = lock(&self.state);
        let mut jobs: Vec<&JobRecord> = state.jobs.values().filter(|j| j.key_id == key).collect();
        jobs.sort_by(|a, b| b.received_at.cmp(&a.received_at).then(b.seq.cmp(&a.seq)));
        Ok(jobs
            .into_iter()
            .take(limit)
            .map(|j| RequestSummary {
                token: j.token,
                received_at: j.received_at,
                points: j.points.len() as u64,
                alerts: j.alerts,
                stage: j.stage,
                outcome: j.outcome,
                attempts: j.attempts,
            })
            .collect())
    }

    async fn list_attempts(
        &self,
        key: KeyId,
        token: Token,
    ) -> Result<Vec<DeliveryAttempt>, StoreError> {
        let state = lock(&self.state);
        if state.jobs.get(&token).is_none_or(|j| j.key_id != key) {
            return Ok(Vec::new());
        }
        Ok(state.attempts.get(&token).cloned().unwrap_or_default())
    }
}

// ---------------------------------------------------------------------------------------------
// Files.
// ---------------------------------------------------------------------------------------------

/// Files in memory, with signed URLs of the form
/// `memory://alerts/<token>.ndjson?expires=<unix>&signature=<hex>` that [`MemoryFiles::fetch`]
/// checks and resolves as a file server would. The signature is an HMAC-SHA256 of the path and
/// the expiry under the store's own key, so a URL cannot be pointed at another file or
/// extended.
#[derive(Debug)]
pub struct MemoryFiles {
    files: Arc<Mutex<HashMap<FileKey, Bytes>>>,
    url_key: [u8; 32],
}

impl Default for MemoryFiles {
    fn default() -> Self {
        Self::with_url_key(*b"memory-files url key, tests only")
    }
}

impl MemoryFiles {
    /// An empty file store with a fixed URL-signing key.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty file store signing URLs with `url_key`.
    #[must_use]
    pub fn with_url_key(url_key: [u8; 32]) -> Self {
        Self {
            files: Arc::default(),
            url_key,
        }
    }

    fn url_mac(&self, path: &str, expires: i64) -> Hmac<Sha256> {
        // HMAC takes keys of any length; the fallback is never taken.
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.url_key)
            .unwrap_or_else(|_| Hmac::<Sha256>::new(&Default::default()));
        mac.update(path.as_bytes());
        mac.update(b"\n");
        mac.update(expires.to_string().as_bytes());
        mac
    }

    /// Fetches a URL made by this signer at time `now`, as the file server would: the file
    /// when the signature matches and the URL has not expired.
    ///
    /// # Errors
    /// [`FileError::Other`] for a URL this store did not sign, a tampered one, or one that has
    /// expired; [`FileError::NotFound`] for a file that is gone.
    pub fn fetch(&self, url: &str, now: DateTime<Utc>) -> Result<Bytes, FileError> {
        let bad = || FileError::Other(format!("not a URL signed by this store: {url}"));
        let rest = url.strip_prefix("memory://").ok_or_else(bad)?;
        let (path, query) = rest.split_once("?expires=").ok_or_else(bad)?;
        let (expires, signature) = query.split_once("&signature=").ok_or_else(bad)?;
        let expires: i64 = expires.parse().map_err(|_| bad())?;
        let signature = hex::decode(signature).map_err(|_| bad())?;
        self.url_mac(path, expires)
            .verify_slice(&signature)
            .map_err(|_| bad())?;
        if now.timestamp() > expires {
            return Err(FileError::Other(format!("the URL expired at {expires}")));
        }
        lock(&self.files)
            .get(&FileKey(path.to_owned()))
            .cloned()
            .ok_or(FileError::NotFound)
    }

    /// The keys of the files stored, sorted.
    #[must_use]
    pub fn keys(&self) -> Vec<FileKey> {
        let mut keys: Vec<FileKey> = lock(&self.files).keys().cloned().collect();
        keys.sort_by(|a, b| a.0.cmp(&b.0));
        keys
    }
}

struct MemoryWriter {
    files: Arc<Mutex<HashMap<FileKey, Bytes>>>,
    key: FileKey,
    buf: BytesMut,
}

#[async_trait]
impl FileWriter for MemoryWriter {
    async fn write(&mut self, chunk: Bytes) -> Result<(), FileError> {
        self.buf.extend_from_slice(&chunk);
        Ok(())
    }

    async fn finish(self: Box<Self>) -> Result<u64, FileError> {
        let len = self.buf.len() as u64;
        lock(&self.files).insert(self.key, self.buf.freeze());
        Ok(len)
    }

    async fn abort(self: Box<Self>) -> Result<(), FileError> {
        Ok(())
    }
}

#[async_trait]
impl FileStore for MemoryFiles {
    async fn create(&self, key: &FileKey) -> Result<Box<dyn FileWriter>, FileError> {
        Ok(Box::new(MemoryWriter {
            files: Arc::clone(&self.files),
            key: key.clone(),
            buf: BytesMut::new(),
        }))
    }

    async fn exists(&self, key: &FileKey) -> Result<bool, FileError> {
        Ok(lock(&self.files).contains_key(key))
    }

    async fn read(&self, key: &FileKey) -> Result<Bytes, FileError> {
        lock(&self.files)
            .get(key)
            .cloned()
            .ok_or(FileError::NotFound)
    }

    async fn delete(&self, key: &FileKey) -> Result<(), FileError> {
        lock(&self.files).remove(key);
        Ok(())
    }
}

#[async_trait]
impl UrlSigner for MemoryFiles {
    async fn signed_url(
        &self,
        key: &FileKey,
        now: DateTime<Utc>,
        valid_for: Duration,
    ) -> Result<String, FileError> {
        let expires = after(now, valid_for).timestamp();
        let signature = hex::encode(self.url_mac(&key.0, expires).finalize().into_bytes());
        Ok(format!(
            "memory://{}?expires={expires}&signature={signature}",
            key.0
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// Webhooks.
// ---------------------------------------------------------------------------------------------

/// A [`WebhookSender`] that records every request and answers from a script: the scripted
/// responses in order, then 200 for ever.
#[derive(Debug, Default)]
pub struct RecordingSender {
    script: Mutex<VecDeque<WebhookResponse>>,
    sent: Mutex<Vec<WebhookRequest>>,
}

impl RecordingSender {
    /// A sender that answers 200 to everything.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A sender that answers with these responses first.
    #[must_use]
    pub fn scripted(responses: impl IntoIterator<Item = WebhookResponse>) -> Self {
        Self {
            script: Mutex::new(responses.into_iter().collect()),
            sent: Mutex::default(),
        }
    }

    /// Adds a response to the end of the script.
    pub fn push_response(&self, response: WebhookResponse) {
        lock(&self.script).push_back(response);
    }

    /// Every request sent so far, in order.
    #[must_use]
    pub fn requests(&self) -> Vec<WebhookRequest> {
        lock(&self.sent).clone()
    }

    /// A response with HTTP `status` (error class [`crate::ports::DeliveryErrorKind::Status`]
    /// unless it is a 2xx) after 12 ms.
    #[must_use]
    pub fn status(status: u16) -> WebhookResponse {
        WebhookResponse {
            status: Some(status),
            latency: Duration::from_millis(12),
            error: (!(200..300).contains(&status))
                .then_some(crate::ports::DeliveryErrorKind::Status),
        }
    }

    /// A response for an attempt that failed without an answer.
    #[must_use]
    pub fn failure(kind: crate::ports::DeliveryErrorKind) -> WebhookResponse {
        WebhookResponse {
            status: None,
            latency: Duration::from_millis(10_000),
            error: Some(kind),
        }
    }
}

#[async_trait]
impl WebhookSender for RecordingSender {
    async fn send(&self, request: &WebhookRequest) -> WebhookResponse {
        lock(&self.sent).push(request.clone());
        lock(&self.script)
            .pop_front()
            .unwrap_or_else(|| Self::status(200))
    }
}

#[cfg(test)]
mod tests {
    use aq_core::runtime::{Clock, FixedClock, IdGenerator, SequentialIds};
    use chrono::TimeZone;

    use super::*;
    use crate::conformance;

    #[async_trait]
    impl conformance::files::Fetcher for MemoryFiles {
        async fn get(&self, url: &str, now: DateTime<Utc>) -> Result<Bytes, String> {
            self.fetch(url, now).map_err(|e| e.to_string())
        }

        async fn wait(&self, now: DateTime<Utc>, duration: Duration) -> DateTime<Utc> {
            after(now, duration)
        }
    }

    #[tokio::test]
    async fn memory_store_passes_the_store_suites() {
        conformance::stores::run_all(&MemoryStore::new()).await;
    }

    #[tokio::test]
    async fn memory_files_pass_the_file_and_signer_suites() {
        let files = MemoryFiles::new();
        conformance::files::run_file_store_suite(&files).await;
        let now = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
        conformance::files::run_url_signer_suite(&files, &files, &files, now).await;
    }

    #[tokio::test]
    async fn urls_expire_and_cannot_be_altered() {
        let files = MemoryFiles::new();
        let clock = FixedClock::new(Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap());
        let key = FileKey::for_token(Token(SequentialIds::default().new_id()));
        let mut w = files.create(&key).await.unwrap();
        w.write(Bytes::from_static(b"x\n")).await.unwrap();
        w.finish().await.unwrap();
        let url = files
            .signed_url(&key, clock.now(), Duration::from_secs(900))
            .await
            .unwrap();
        assert!(
            url.starts_with(&format!("memory://{}?expires=", key.0)),
            "{url}"
        );
        assert_eq!(
            files.fetch(&url, clock.now()).unwrap(),
            Bytes::from_static(b"x\n")
        );
        clock.advance(chrono::Duration::seconds(900));
        assert!(
            files.fetch(&url, clock.now()).is_ok(),
            "valid through its last second"
        );
        clock.advance(chrono::Duration::seconds(1));
        assert!(files.fetch(&url, clock.now()).is_err());
        let extended = url.replace("expires=1777", "expires=1778");
        assert!(files.fetch(&extended, clock.now()).is_err());
        let other = MemoryFiles::with_url_key([9; 32]);
        assert!(other.fetch(&url, clock.now()).is_err());
    }
}

#[cfg(test)]
mod account_tests {
    use chrono::Utc;

    use super::*;

    #[tokio::test]
    async fn a_fresh_store_has_no_account_until_one_is_made() {
        let store = MemoryStore::new();
        assert!(!store.has_accounts().await.unwrap());
        store
            .create_account(&Account {
                id: AccountId(uuid::Uuid::from_u128(1)),
                email: "ada@example.org".into(),
                password_hash: "x".into(),
                created_at: Utc::now(),
            })
            .await
            .unwrap();
        assert!(store.has_accounts().await.unwrap());
    }
}
