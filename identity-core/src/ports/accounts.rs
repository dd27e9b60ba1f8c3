//! Accounts and their API keys as the dashboard and the admin command manage them: the
//! [`AccountStore`] port.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ids::{AccountId, KeyId};
use crate::keys::{KeyHash, WebhookSecret};

use super::StoreError;

/// A developer account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// The account's id.
    pub id: AccountId,
    /// The sign-in email, trimmed and lower-cased.
    pub email: String,
    /// The password hash in PHC string form (argon2id); never the password.
    pub password_hash: String,
    /// Raised by every change of the password: a session carries the version of the
    /// password it was signed in with, and a session of an older version is no longer valid
    /// ([`SessionStore`](super::SessionStore)). A new account starts at 0.
    pub credential_version: i64,
    /// When the account was created.
    pub created_at: DateTime<Utc>,
}

/// A new API key to store. The key itself is not here: only its hash and prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiKey {
    /// The key's id.
    pub id: KeyId,
    /// The owning account.
    pub account_id: AccountId,
    /// The owner's label for the key.
    pub label: String,
    /// The public prefix.
    pub prefix: String,
    /// The SHA-256 of the key.
    pub hash: KeyHash,
    /// The first webhook signing secret.
    pub secret: WebhookSecret,
    /// When the key was created.
    pub created_at: DateTime<Utc>,
}

/// What the dashboard shows of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyInfo {
    /// The key's id.
    pub id: KeyId,
    /// The owning account.
    pub account_id: AccountId,
    /// The owner's label.
    pub label: String,
    /// The public prefix.
    pub prefix: String,
    /// When the key was created.
    pub created_at: DateTime<Utc>,
    /// When the key was last used on the API.
    pub last_used_at: Option<DateTime<Utc>>,
    /// When the key was revoked; revoked keys are refused by the API.
    pub revoked_at: Option<DateTime<Utc>>,
    /// Where deliveries for this key go.
    pub webhook_url: Option<String>,
    /// The current signing secret.
    pub secret: WebhookSecret,
}

/// Manages accounts and keys. A key carries, beside its identity, where its deliveries go and
/// the secret that signs them: they are created, shown and revoked with the key, while what
/// they are used for is the alert pipeline's business. Every operation on a key's data is scoped by the key id,
/// and callers check that the key belongs to the signed-in account ([`ApiKeyInfo::account_id`])
/// before they change anything.
#[async_trait]
pub trait AccountStore: Send + Sync {
    /// Stores a new account. [`StoreError::Conflict`] when the email is taken.
    async fn create_account(&self, account: &Account) -> Result<(), StoreError>;

    /// The account with this (trimmed, lower-cased) email.
    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError>;

    /// The account with this id.
    async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError>;

    /// Replaces the account's password hash (PHC string form) and raises its
    /// [`Account::credential_version`] by one, in one write, if the version is still
    /// `current` (the one the caller read, and checked a password against); returns the new
    /// version. [`StoreError::CredentialsChanged`] when another change came first,
    /// [`StoreError::NotFound`] for an unknown account.
    async fn set_password_hash(
        &self,
        account: AccountId,
        hash: &str,
        current: i64,
    ) -> Result<i64, StoreError>;

    /// Whether any account exists: a server on an empty store tells newcomers how to start.
    async fn has_accounts(&self) -> Result<bool, StoreError>;

    /// Stores a new key. [`StoreError::Conflict`] when the hash exists already.
    async fn create_key(&self, key: &NewApiKey) -> Result<(), StoreError>;

    /// The account's keys, revoked ones included, newest first.
    async fn list_keys(&self, account: AccountId) -> Result<Vec<ApiKeyInfo>, StoreError>;

    /// One key.
    async fn key_info(&self, key: KeyId) -> Result<Option<ApiKeyInfo>, StoreError>;

    /// The keys whose public prefix is `prefix`, of any account, revoked ones included,
    /// newest first: for an operator who names a key by the prefix that deliveries and logs
    /// show. Prefixes are short, so more than one key may have the same.
    async fn keys_with_prefix(&self, prefix: &str) -> Result<Vec<ApiKeyInfo>, StoreError>;

    /// Renames a key. [`StoreError::NotFound`] for an unknown key.
    async fn set_key_label(&self, key: KeyId, label: &str) -> Result<(), StoreError>;

    /// Revokes a key at `at`; revoking twice keeps the first time.
    async fn revoke_key(&self, key: KeyId, at: DateTime<Utc>) -> Result<(), StoreError>;

    /// Sets or clears where the key's deliveries go.
    async fn set_webhook_url(&self, key: KeyId, url: Option<&str>) -> Result<(), StoreError>;

    /// Makes `new` the key's signing secret; the previous one keeps signing until
    /// `previous_valid_until`.
    async fn rotate_secret(
        &self,
        key: KeyId,
        new: &WebhookSecret,
        previous_valid_until: DateTime<Utc>,
    ) -> Result<(), StoreError>;
}
