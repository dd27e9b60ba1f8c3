//! [`MemoryIdentity`]: accounts, keys and sessions in memory, for tests, examples and
//! benchmarks. It keeps the promises of the ports exactly and passes the conformance suites;
//! nothing survives the process.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ids::{AccountId, KeyId};
use crate::keys::{KeyHash, WebhookSecret};
use crate::ports::{
    Account, AccountStore, ApiKeyInfo, KeyAuthenticator, LeaseStore, NewApiKey, Session,
    SessionStore, StoreError, last_use_is_stale,
};

/// Rotated-out signing secrets with the end of each one's grace period, newest first.
pub type RotatedSecrets = Vec<(WebhookSecret, DateTime<Utc>)>;

#[derive(Debug, Clone)]
struct KeyRecord {
    info: ApiKeyInfo,
    hash: KeyHash,
    previous: RotatedSecrets,
}

#[derive(Debug, Default)]
struct State {
    accounts: Vec<Account>,
    keys: Vec<KeyRecord>,
    sessions: HashMap<String, Session>,
    /// Per lease name: its holder and until when.
    leases: HashMap<String, (String, DateTime<Utc>)>,
}

impl State {
    fn credential_version(&self, account: AccountId) -> Option<i64> {
        self.accounts
            .iter()
            .find(|a| a.id == account)
            .map(|a| a.credential_version)
    }

    fn key(&self, id: KeyId) -> Option<&KeyRecord> {
        self.keys.iter().find(|k| k.info.id == id)
    }

    fn key_mut(&mut self, id: KeyId) -> Result<&mut KeyRecord, StoreError> {
        self.keys
            .iter_mut()
            .find(|k| k.info.id == id)
            .ok_or(StoreError::NotFound)
    }

    /// The keys that `keep` selects, newest first; among equal times, the later created first.
    fn keys_where(&self, keep: impl Fn(&ApiKeyInfo) -> bool) -> Vec<ApiKeyInfo> {
        let mut keys: Vec<(usize, ApiKeyInfo)> = self
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| keep(&k.info))
            .map(|(i, k)| (i, k.info.clone()))
            .collect();
        keys.sort_by(|a, b| b.1.created_at.cmp(&a.1.created_at).then(b.0.cmp(&a.0)));
        keys.into_iter().map(|(_, k)| k).collect()
    }
}

/// Accounts, keys and sessions in memory: [`AccountStore`], [`KeyAuthenticator`] and
/// [`SessionStore`] in one value, as a database adapter would be.
///
/// ```
/// use identity_core::ids::AccountId;
/// use identity_core::memory::MemoryIdentity;
/// use identity_core::ports::{Account, AccountStore};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryIdentity::new();
/// assert!(!store.has_accounts().await.unwrap());
/// let ada = Account {
///     id: AccountId(uuid::Uuid::from_u128(1)),
///     email: "ada@example.org".into(),
///     password_hash: "$argon2id$...".into(),
///     credential_version: 0,
///     created_at: chrono::Utc::now(),
/// };
/// store.create_account(&ada).await.unwrap();
/// assert_eq!(store.account_by_email("ada@example.org").await.unwrap(), Some(ada.clone()));
/// // A new password raises the version that sessions are bound to.
/// assert_eq!(store.set_password_hash(ada.id, "$argon2id$new...", 0).await.unwrap(), 1);
/// # });
/// ```
#[derive(Debug, Default)]
pub struct MemoryIdentity {
    state: Mutex<State>,
}

impl MemoryIdentity {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic in another test thread must not hide this store's state from the rest.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A key with its rotated-out signing secrets and the end of each one's grace period,
    /// newest first: what an in-memory store of the cores above reads to build a key's
    /// configuration.
    #[must_use]
    pub fn key_with_secrets(&self, key: KeyId) -> Option<(ApiKeyInfo, RotatedSecrets)> {
        self.lock()
            .key(key)
            .map(|k| (k.info.clone(), k.previous.clone()))
    }
}

#[async_trait]
impl KeyAuthenticator for MemoryIdentity {
    async fn authenticate(
        &self,
        hash: &KeyHash,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyId>, StoreError> {
        let mut state = self.lock();
        let Some(key) = state
            .keys
            .iter_mut()
            .find(|k| k.hash == *hash && k.info.revoked_at.is_none())
        else {
            return Ok(None);
        };
        if last_use_is_stale(key.info.last_used_at, now) {
            key.info.last_used_at = Some(now);
        }
        Ok(Some(key.info.id))
    }
}

#[async_trait]
impl LeaseStore for MemoryIdentity {
    async fn take_lease(
        &self,
        name: &str,
        holder: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let free = state
            .leases
            .get(name)
            .is_none_or(|(held_by, held_until)| held_by == holder || *held_until <= now);
        if free {
            state
                .leases
                .insert(name.to_owned(), (holder.to_owned(), until));
        }
        Ok(free)
    }

    async fn release_lease(&self, name: &str, holder: &str) -> Result<(), StoreError> {
        let mut state = self.lock();
        if state.leases.get(name).is_some_and(|(h, _)| h == holder) {
            state.leases.remove(name);
        }
        Ok(())
    }
}

#[async_trait]
impl SessionStore for MemoryIdentity {
    async fn create_session(&self, session: &Session) -> Result<(), StoreError> {
        let mut state = self.lock();
        if state.credential_version(session.account_id) != Some(session.credential_version) {
            return Err(StoreError::CredentialsChanged);
        }
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
        let state = self.lock();
        Ok(state
            .sessions
            .get(id_hash)
            .filter(|s| {
                s.expires_at > now
                    && state.credential_version(s.account_id) == Some(s.credential_version)
            })
            .cloned())
    }

    async fn delete_session(&self, id_hash: &str) -> Result<(), StoreError> {
        self.lock().sessions.remove(id_hash);
        Ok(())
    }

    async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut state = self.lock();
        let before = state.sessions.len();
        state.sessions.retain(|_, s| s.expires_at > now);
        Ok((before - state.sessions.len()) as u64)
    }

    async fn delete_account_sessions(
        &self,
        account: AccountId,
        except: Option<&str>,
    ) -> Result<u64, StoreError> {
        let mut state = self.lock();
        let before = state.sessions.len();
        state
            .sessions
            .retain(|hash, s| s.account_id != account || Some(hash.as_str()) == except);
        Ok((before - state.sessions.len()) as u64)
    }
}

#[async_trait]
impl AccountStore for MemoryIdentity {
    async fn create_account(&self, account: &Account) -> Result<(), StoreError> {
        let mut state = self.lock();
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
        Ok(self
            .lock()
            .accounts
            .iter()
            .find(|a| a.email == email)
            .cloned())
    }

    async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError> {
        Ok(self.lock().accounts.iter().find(|a| a.id == id).cloned())
    }

    async fn has_accounts(&self) -> Result<bool, StoreError> {
        Ok(!self.lock().accounts.is_empty())
    }

    async fn set_password_hash(
        &self,
        account: AccountId,
        hash: &str,
        current: i64,
    ) -> Result<i64, StoreError> {
        let mut state = self.lock();
        let found = state
            .accounts
            .iter_mut()
            .find(|a| a.id == account)
            .ok_or(StoreError::NotFound)?;
        if found.credential_version != current {
            return Err(StoreError::CredentialsChanged);
        }
        hash.clone_into(&mut found.password_hash);
        found.credential_version += 1;
        Ok(found.credential_version)
    }

    async fn create_key(&self, key: &NewApiKey) -> Result<(), StoreError> {
        let mut state = self.lock();
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
        Ok(self.lock().keys_where(|k| k.prefix == prefix))
    }

    async fn list_keys(&self, account: AccountId) -> Result<Vec<ApiKeyInfo>, StoreError> {
        Ok(self.lock().keys_where(|k| k.account_id == account))
    }

    async fn key_info(&self, key: KeyId) -> Result<Option<ApiKeyInfo>, StoreError> {
        Ok(self.lock().key(key).map(|k| k.info.clone()))
    }

    async fn set_key_label(&self, key: KeyId, label: &str) -> Result<(), StoreError> {
        self.lock().key_mut(key)?.info.label = label.to_owned();
        Ok(())
    }

    async fn revoke_key(&self, key: KeyId, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.lock().key_mut(key)?.info.revoked_at.get_or_insert(at);
        Ok(())
    }

    async fn set_webhook_url(&self, key: KeyId, url: Option<&str>) -> Result<(), StoreError> {
        self.lock().key_mut(key)?.info.webhook_url = url.map(str::to_owned);
        Ok(())
    }

    async fn rotate_secret(
        &self,
        key: KeyId,
        new: &WebhookSecret,
        previous_valid_until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut state = self.lock();
        let k = state.key_mut(key)?;
        let old = std::mem::replace(&mut k.info.secret, new.clone());
        k.previous.insert(0, (old, previous_valid_until));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn memory_identity_passes_the_suites() {
        crate::conformance::run_all(&MemoryIdentity::new()).await;
        crate::conformance::leases(&MemoryIdentity::new()).await;
    }
}
