//! Account and key management: the use cases behind the developer dashboard's sign-up,
//! sign-in and keys pages and the admin command's account and key commands. Both go through
//! [`Identity`], so an account or key made in one is checked by exactly the same rules as one
//! made in the other.
//!
//! Every operation on a key takes the account acting on it and refuses, as
//! [`IdentityError::NotFound`], a key that belongs to another account: someone else's key looks
//! exactly like a key that does not exist.
//!
//! ```
//! use std::sync::Arc;
//! use identity_core::manage::{Identity, IdentityError};
//! use identity_core::memory::MemoryIdentity;
//! use identity_core::randomness::SeededRandomness;
//! use runtime_core::{FixedClock, SequentialIds};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let store = Arc::new(MemoryIdentity::new());
//! let identity = Identity::new(store.clone(), store,
//!     Arc::new(FixedClock::new(chrono::Utc::now())), Arc::new(SequentialIds::default()),
//!     Arc::new(SeededRandomness::default()));
//!
//! let ada = identity.create_account("Ada@Example.org", "correct horse battery").await.unwrap();
//! assert_eq!(ada.email, "ada@example.org");
//! let created = identity.create_key(ada.id, "production").await.unwrap();
//! assert!(created.key.expose().starts_with("ik_"));
//! assert_eq!(identity.key_by_text(created.key.expose()).await.unwrap().id, created.info.id);
//!
//! // Another account cannot see the key.
//! let eve = identity.create_account("eve@example.org", "another long password").await.unwrap();
//! assert!(matches!(identity.key(eve.id, created.info.id).await, Err(IdentityError::NotFound)));
//! # });
//! ```

use std::sync::{Arc, OnceLock};

use runtime_core::{Clock, IdGenerator};
use thiserror::Error;

use crate::account::{
    EmailError, HashError, Password, PasswordError, hash_password, normalize_email, verify_password,
};
use crate::ids::{AccountId, KeyId};
use crate::keys::{ApiKey, WebhookSecret};
use crate::ports::{Account, AccountStore, ApiKeyInfo, KeyAuthenticator, NewApiKey, StoreError};
use crate::randomness::{SecretRng, SeededRandomness};

/// The longest key label, in characters.
pub const MAX_LABEL_CHARS: usize = 100;

/// The most live (not revoked) API keys of one account by default: self-service accounts
/// would otherwise multiply every per-key limit by as many keys as they like.
pub const DEFAULT_KEYS_PER_ACCOUNT: usize = 20;

/// Why an account or key operation was refused.
#[derive(Debug, Error)]
pub enum IdentityError {
    /// The email is not acceptable.
    #[error(transparent)]
    Email(#[from] EmailError),
    /// The password does not meet the policy.
    #[error(transparent)]
    Password(#[from] PasswordError),
    /// An account with this email exists already.
    #[error("an account with this email exists already; sign in instead")]
    EmailTaken,
    /// Sign-in failed. Deliberately the same for an unknown email and a wrong password.
    #[error("the email or the password is wrong")]
    WrongCredentials,
    /// The key or account does not exist, or belongs to another account.
    #[error("not found")]
    NotFound,
    /// The key was revoked; it can no longer be changed.
    #[error("this key is revoked; create a new key")]
    Revoked,
    /// The label is empty or too long.
    #[error("label: {0}")]
    Label(String),
    /// The account has as many live keys as it may have.
    #[error(
        "this account has {limit} API keys, the most it may have (max_keys_per_account); revoke a key it no longer uses first"
    )]
    TooManyKeys {
        /// The limit.
        limit: usize,
    },
    /// A stored password hash is damaged.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The store failed.
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for IdentityError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => IdentityError::NotFound,
            other => IdentityError::Store(other),
        }
    }
}

/// A key just created: the only moment its full text exists.
#[derive(Debug, Clone)]
pub struct CreatedKey {
    /// What the dashboard lists.
    pub info: ApiKeyInfo,
    /// The key itself: show it once.
    pub key: ApiKey,
}

/// The account and key use cases over the identity ports.
#[derive(Clone)]
pub struct Identity {
    keys_per_account: usize,
    accounts: Arc<dyn AccountStore>,
    keys: Arc<dyn KeyAuthenticator>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    rng: Arc<dyn SecretRng>,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("keys_per_account", &self.keys_per_account)
            .finish_non_exhaustive()
    }
}

impl Identity {
    /// Account and key management over the stores, with time, ids and secret randomness from
    /// the ports, and at most [`DEFAULT_KEYS_PER_ACCOUNT`] live keys per account.
    pub fn new(
        accounts: Arc<dyn AccountStore>,
        keys: Arc<dyn KeyAuthenticator>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        rng: Arc<dyn SecretRng>,
    ) -> Self {
        Self {
            keys_per_account: DEFAULT_KEYS_PER_ACCOUNT,
            accounts,
            keys,
            clock,
            ids,
            rng,
        }
    }

    /// The same, with at most `limit` live keys per account.
    #[must_use]
    pub fn with_keys_per_account(self, limit: usize) -> Self {
        Self {
            keys_per_account: limit,
            ..self
        }
    }

    /// The clock the use cases read, for the use cases of the cores above.
    #[must_use]
    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    /// Signs up: a new account with a normalised email and an argon2id password hash.
    ///
    /// # Errors
    /// [`IdentityError::Email`], [`IdentityError::Password`], [`IdentityError::EmailTaken`], or
    /// a store failure.
    pub async fn create_account(
        &self,
        email: &str,
        password: &str,
    ) -> Result<Account, IdentityError> {
        let email = normalize_email(email)?;
        let password = Password::new(password)?;
        let account = Account {
            id: AccountId(self.ids.new_id()),
            email,
            password_hash: hash_password(&password, self.rng.as_ref())?,
            credential_version: 0,
            created_at: self.clock.now(),
        };
        match self.accounts.create_account(&account).await {
            Ok(()) => Ok(account),
            Err(StoreError::Conflict(_)) => Err(IdentityError::EmailTaken),
            Err(e) => Err(e.into()),
        }
    }

    /// Signs in. An unknown email costs the same hashing work as a wrong password, so that
    /// response times do not tell which emails have accounts.
    ///
    /// # Errors
    /// [`IdentityError::WrongCredentials`], or a store failure.
    pub async fn sign_in(&self, email: &str, password: &str) -> Result<Account, IdentityError> {
        let account = match normalize_email(email) {
            Ok(email) => self.accounts.account_by_email(&email).await?,
            Err(_) => None,
        };
        let Some(account) = account else {
            let _ = verify_password(password, dummy_hash());
            return Err(IdentityError::WrongCredentials);
        };
        if verify_password(password, &account.password_hash)? {
            Ok(account)
        } else {
            Err(IdentityError::WrongCredentials)
        }
    }

    /// Changes a signed-in account's password, after checking its current one: whoever holds
    /// only a session must not be able to lock the owner out. Returns the account as it is
    /// now, with its raised credential version: every session made before is no longer valid,
    /// and the caller ends them and starts a fresh one for whoever made the change.
    ///
    /// # Errors
    /// [`IdentityError::WrongCredentials`] when `current` is not the password,
    /// [`IdentityError::Password`] when `new` does not meet the policy,
    /// [`IdentityError::NotFound`] for an unknown account, or a store failure.
    pub async fn change_password(
        &self,
        account: AccountId,
        current: &str,
        new: &str,
    ) -> Result<Account, IdentityError> {
        let stored = self.account(account).await?;
        if !verify_password(current, &stored.password_hash)? {
            return Err(IdentityError::WrongCredentials);
        }
        self.set_password(stored, new).await
    }

    /// Gives the account with this email a new password, without the old one: for an operator
    /// helping a customer who lost theirs. Returns the account as it is now; its sessions are
    /// no longer valid, and the caller ends them.
    ///
    /// # Errors
    /// [`IdentityError::Email`], [`IdentityError::NotFound`] for an unknown email,
    /// [`IdentityError::Password`] when `new` does not meet the policy, or a store failure.
    pub async fn reset_password(&self, email: &str, new: &str) -> Result<Account, IdentityError> {
        let account = self.account_by_email(email).await?;
        self.set_password(account, new).await
    }

    async fn set_password(&self, account: Account, new: &str) -> Result<Account, IdentityError> {
        let password = Password::new(new)?;
        let password_hash = hash_password(&password, self.rng.as_ref())?;
        let credential_version = self
            .accounts
            .set_password_hash(account.id, &password_hash, account.credential_version)
            .await?;
        Ok(Account {
            password_hash,
            credential_version,
            ..account
        })
    }

    /// The account with this id (the dashboard shows who is signed in).
    ///
    /// # Errors
    /// [`IdentityError::NotFound`], or a store failure.
    pub async fn account(&self, id: AccountId) -> Result<Account, IdentityError> {
        self.accounts
            .account(id)
            .await?
            .ok_or(IdentityError::NotFound)
    }

    /// The account with this email, for the admin command.
    ///
    /// # Errors
    /// [`IdentityError::NotFound`], or a store failure.
    pub async fn account_by_email(&self, email: &str) -> Result<Account, IdentityError> {
        let email = normalize_email(email)?;
        self.accounts
            .account_by_email(&email)
            .await?
            .ok_or(IdentityError::NotFound)
    }

    /// Creates a key for `account` with a first signing secret.
    ///
    /// # Errors
    /// [`IdentityError::Label`], [`IdentityError::TooManyKeys`], or a store failure.
    pub async fn create_key(
        &self,
        account: AccountId,
        label: &str,
    ) -> Result<CreatedKey, IdentityError> {
        let label = check_label(label)?;
        let live = self
            .accounts
            .list_keys(account)
            .await?
            .iter()
            .filter(|k| k.revoked_at.is_none())
            .count();
        if live >= self.keys_per_account {
            return Err(IdentityError::TooManyKeys {
                limit: self.keys_per_account,
            });
        }
        let key = ApiKey::generate(self.rng.as_ref());
        let new = NewApiKey {
            id: KeyId(self.ids.new_id()),
            account_id: account,
            label,
            prefix: key.prefix().to_owned(),
            hash: key.hash(),
            secret: WebhookSecret::generate(self.rng.as_ref()),
            created_at: self.clock.now(),
        };
        self.accounts.create_key(&new).await?;
        let info = self.accounts.key_info(new.id).await?.ok_or_else(|| {
            IdentityError::Store(StoreError::Corrupt("a created key vanished".into()))
        })?;
        Ok(CreatedKey { info, key })
    }

    /// The account's keys, newest first.
    ///
    /// # Errors
    /// A store failure.
    pub async fn list_keys(&self, account: AccountId) -> Result<Vec<ApiKeyInfo>, IdentityError> {
        Ok(self.accounts.list_keys(account).await?)
    }

    /// One of the account's keys, revoked or not.
    ///
    /// # Errors
    /// [`IdentityError::NotFound`] for an unknown key or another account's.
    pub async fn key(&self, account: AccountId, key: KeyId) -> Result<ApiKeyInfo, IdentityError> {
        match self.accounts.key_info(key).await? {
            Some(info) if info.account_id == account => Ok(info),
            _ => Err(IdentityError::NotFound),
        }
    }

    /// One of the account's keys that is not revoked: what every operation that changes a key
    /// or acts for it asks for.
    ///
    /// # Errors
    /// [`IdentityError::NotFound`] for an unknown key or another account's,
    /// [`IdentityError::Revoked`] for a revoked one.
    pub async fn live_key(
        &self,
        account: AccountId,
        key: KeyId,
    ) -> Result<ApiKeyInfo, IdentityError> {
        let info = self.key(account, key).await?;
        if info.revoked_at.is_some() {
            return Err(IdentityError::Revoked);
        }
        Ok(info)
    }

    /// The key with this full text, whoever owns it: for the admin command, whose operator
    /// holds the key.
    ///
    /// # Errors
    /// [`IdentityError::NotFound`] for a malformed, unknown or revoked key.
    pub async fn key_by_text(&self, text: &str) -> Result<ApiKeyInfo, IdentityError> {
        let key = ApiKey::parse(text.trim()).map_err(|_| IdentityError::NotFound)?;
        let id = self
            .keys
            .authenticate(&key.hash(), self.clock.now())
            .await?
            .ok_or(IdentityError::NotFound)?;
        self.accounts
            .key_info(id)
            .await?
            .ok_or(IdentityError::NotFound)
    }

    /// Renames a live key.
    ///
    /// # Errors
    /// [`IdentityError::Label`], [`IdentityError::NotFound`], [`IdentityError::Revoked`], or a
    /// store failure.
    pub async fn rename_key(
        &self,
        account: AccountId,
        key: KeyId,
        label: &str,
    ) -> Result<(), IdentityError> {
        let label = check_label(label)?;
        self.live_key(account, key).await?;
        Ok(self.accounts.set_key_label(key, &label).await?)
    }

    /// Revokes a key; the API refuses it from then on.
    ///
    /// # Errors
    /// [`IdentityError::NotFound`], or a store failure.
    pub async fn revoke_key(&self, account: AccountId, key: KeyId) -> Result<(), IdentityError> {
        self.key(account, key).await?;
        Ok(self.accounts.revoke_key(key, self.clock.now()).await?)
    }
}

fn check_label(label: &str) -> Result<String, IdentityError> {
    let label = label.trim();
    let chars = label.chars().count();
    if chars > MAX_LABEL_CHARS {
        return Err(IdentityError::Label(format!(
            "at most {MAX_LABEL_CHARS} characters, got {chars}"
        )));
    }
    if label.chars().any(char::is_control) {
        return Err(IdentityError::Label(
            "control characters are not allowed".into(),
        ));
    }
    Ok(if label.is_empty() {
        "default".to_owned()
    } else {
        label.to_owned()
    })
}

/// A valid hash of a password nobody has, to spend the same time on unknown emails.
fn dummy_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| {
        Password::new("no account has this password")
            .ok()
            .and_then(|p| hash_password(&p, &SeededRandomness::default()).ok())
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use runtime_core::{FixedClock, SequentialIds};

    use super::*;
    use crate::memory::MemoryIdentity;

    fn identity() -> Identity {
        let store = Arc::new(MemoryIdentity::new());
        Identity::new(
            store.clone(),
            store,
            Arc::new(FixedClock::new(chrono::Utc::now())),
            Arc::new(SequentialIds::default()),
            Arc::new(SeededRandomness::default()),
        )
    }

    #[tokio::test]
    async fn sign_in_accepts_the_password_and_refuses_others_alike() {
        let m = identity();
        m.create_account("Ada@Example.org", "correct horse battery")
            .await
            .unwrap();
        assert!(
            m.sign_in("ada@example.org", "correct horse battery")
                .await
                .is_ok()
        );
        let wrong = m
            .sign_in("ada@example.org", "wrong password!")
            .await
            .unwrap_err();
        let unknown = m
            .sign_in("nobody@example.org", "correct horse battery")
            .await
            .unwrap_err();
        assert_eq!(wrong.to_string(), unknown.to_string());
    }

    #[tokio::test]
    async fn an_email_signs_up_once() {
        let m = identity();
        m.create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        let err = m
            .create_account(" ADA@example.org", "another long password")
            .await
            .unwrap_err();
        assert!(matches!(err, IdentityError::EmailTaken), "{err:?}");
    }

    #[tokio::test]
    async fn keys_of_other_accounts_are_invisible() {
        let m = identity();
        let ada = m
            .create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        let eve = m
            .create_account("eve@example.org", "correct horse battery")
            .await
            .unwrap();
        let key = m.create_key(ada.id, "prod").await.unwrap();
        assert!(matches!(
            m.key(eve.id, key.info.id).await,
            Err(IdentityError::NotFound)
        ));
        assert!(matches!(
            m.rename_key(eve.id, key.info.id, "mine").await,
            Err(IdentityError::NotFound)
        ));
        assert!(matches!(
            m.revoke_key(eve.id, key.info.id).await,
            Err(IdentityError::NotFound)
        ));
        assert!(m.key(ada.id, key.info.id).await.is_ok());
    }

    #[tokio::test]
    async fn revoked_keys_are_not_live_nor_found_by_text() {
        let m = identity();
        let ada = m
            .create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        let key = m.create_key(ada.id, "").await.unwrap();
        assert_eq!(key.info.label, "default");
        assert_eq!(
            m.key_by_text(key.key.expose()).await.unwrap().id,
            key.info.id
        );
        m.revoke_key(ada.id, key.info.id).await.unwrap();
        assert!(matches!(
            m.live_key(ada.id, key.info.id).await,
            Err(IdentityError::Revoked)
        ));
        assert!(matches!(
            m.key_by_text(key.key.expose()).await,
            Err(IdentityError::NotFound)
        ));
        assert!(matches!(
            m.rename_key(ada.id, key.info.id, "renamed").await,
            Err(IdentityError::Revoked)
        ));
        assert_eq!(m.key(ada.id, key.info.id).await.unwrap().label, "default");
        assert!(
            m.revoke_key(ada.id, key.info.id).await.is_ok(),
            "revoking twice is fine"
        );
    }

    #[tokio::test]
    async fn a_password_changes_only_with_the_current_one_and_resets_without_it() {
        let m = identity();
        let ada = m
            .create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        assert!(matches!(
            m.change_password(ada.id, "not the password", "a brand new passphrase")
                .await,
            Err(IdentityError::WrongCredentials)
        ));
        assert!(matches!(
            m.change_password(ada.id, "correct horse battery", "short")
                .await,
            Err(IdentityError::Password(_))
        ));
        m.change_password(ada.id, "correct horse battery", "a brand new passphrase")
            .await
            .unwrap();
        assert!(
            m.sign_in("ada@example.org", "correct horse battery")
                .await
                .is_err()
        );
        assert!(
            m.sign_in("ada@example.org", "a brand new passphrase")
                .await
                .is_ok()
        );
        let reset = m
            .reset_password(" ADA@example.org", "the operator's choice")
            .await
            .unwrap();
        assert_eq!(reset.id, ada.id);
        assert!(
            m.sign_in("ada@example.org", "the operator's choice")
                .await
                .is_ok()
        );
        assert!(matches!(
            m.reset_password("nobody@example.org", "the operator's choice")
                .await,
            Err(IdentityError::NotFound)
        ));
    }

    #[tokio::test]
    async fn an_account_has_at_most_its_limit_of_live_keys() {
        let m = identity().with_keys_per_account(2);
        let ada = m
            .create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        let first = m.create_key(ada.id, "a").await.unwrap();
        m.create_key(ada.id, "b").await.unwrap();
        assert!(matches!(
            m.create_key(ada.id, "c").await,
            Err(IdentityError::TooManyKeys { limit: 2 })
        ));
        m.revoke_key(ada.id, first.info.id).await.unwrap();
        assert!(
            m.create_key(ada.id, "c").await.is_ok(),
            "a revoked key frees its place"
        );
    }

    #[test]
    fn labels_are_trimmed_and_bounded() {
        assert_eq!(check_label("  prod ").unwrap(), "prod");
        assert!(check_label(&"x".repeat(101)).is_err());
        assert!(check_label("a\u{7}b").is_err());
    }
}
