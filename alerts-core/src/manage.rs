//! Account, key and rule management: the use cases behind the developer dashboard and the
//! admin command. Both go through [`Manager`], so an account, key or rule made in one is
//! checked by exactly the same rules as one made in the other.
//!
//! Every operation on a key takes the account acting on it and refuses, as
//! [`ManageError::NotFound`], a key that belongs to another account: someone else's key looks
//! exactly like a key that does not exist.
//!
//! ```
//! use std::sync::Arc;
//! use alerts_core::manage::{AnyWebhookUrl, Manager};
//! use alerts_core::memory::MemoryStore;
//! use alerts_core::rule::{DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
//! use alerts_core::randomness::SeededRandomness;
//! use aq_core::runtime::{FixedClock, SequentialIds};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let store = Arc::new(MemoryStore::new());
//! let clock = Arc::new(FixedClock::new(chrono::Utc::now()));
//! let manager = Manager::new(store.clone(), store, clock, Arc::new(SequentialIds::default()),
//!     Arc::new(SeededRandomness::default()), Arc::new(AnyWebhookUrl));
//!
//! let account = manager.create_account("ada@example.org", "correct horse battery").await.unwrap();
//! let created = manager.create_key(account.id, "production").await.unwrap();
//! manager.set_webhook_url(account.id, created.info.id, Some("https://example.org/hook")).await.unwrap();
//! let spec = RuleSpec::new(DataType::Aq, Forecast::Hours(6), Sensitivity::Medium,
//!     MessageSpec::Default).unwrap();
//! manager.add_rule(account.id, created.info.id, spec).await.unwrap();
//! assert_eq!(manager.list_rules(account.id, created.info.id).await.unwrap().len(), 1);
//!
//! // Another account cannot touch the key.
//! let other = manager.create_account("eve@example.org", "another long password").await.unwrap();
//! assert!(manager.list_rules(other.id, created.info.id).await.is_err());
//! # });
//! ```

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aq_core::runtime::{Clock, IdGenerator};
use thiserror::Error;

use crate::account::{
    EmailError, HashError, Password, PasswordError, hash_password, normalize_email, verify_password,
};
use crate::ids::{AccountId, KeyId, RuleId};
use crate::keys::{ApiKey, WebhookSecret};
use crate::ports::{Account, AccountStore, ApiKeyInfo, NewApiKey, RuleStore, StoreError};
use crate::randomness::{SecretRng, SeededRandomness};
use crate::rule::{AlertRule, RuleSpec};

/// The longest key label, in characters.
pub const MAX_LABEL_CHARS: usize = 100;

/// How long a rotated-out signing secret keeps signing deliveries by default: a day, time
/// for receivers to switch to the new one.
pub const DEFAULT_SECRET_GRACE: Duration = Duration::from_secs(24 * 3600);

/// Checks a webhook URL before it is saved, exactly as the webhook sender will check it when
/// it delivers (scheme, host, forbidden networks). Implemented by the sender's adapter and
/// handed in by the server.
pub trait WebhookUrlCheck: Send + Sync {
    /// The URL to store (normalised), or why it is refused, in words that say what to do.
    ///
    /// # Errors
    /// The reason the URL cannot receive webhooks.
    fn check(&self, url: &str) -> Result<String, String>;
}

/// A [`WebhookUrlCheck`] that only requires `http://` or `https://`: for tests and examples.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnyWebhookUrl;

impl WebhookUrlCheck for AnyWebhookUrl {
    fn check(&self, url: &str) -> Result<String, String> {
        let url = url.trim();
        if url.starts_with("http://") || url.starts_with("https://") {
            Ok(url.to_owned())
        } else {
            Err("a webhook URL must start with http:// or https://".to_owned())
        }
    }
}

/// Why a management operation was refused.
#[derive(Debug, Error)]
pub enum ManageError {
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
    /// The key, rule or account does not exist, or belongs to another account.
    #[error("not found")]
    NotFound,
    /// The key was revoked; it can no longer be changed.
    #[error("this key is revoked; create a new key")]
    Revoked,
    /// The label is empty or too long.
    #[error("label: {0}")]
    Label(String),
    /// The webhook URL was refused.
    #[error("webhook URL: {0}")]
    WebhookUrl(String),
    /// The account has as many live keys as it may have.
    #[error(
        "this account has {limit} API keys, the most it may have (max_keys_per_account); revoke a key it no longer uses first"
    )]
    TooManyKeys {
        /// The limit.
        limit: usize,
    },
    /// The key has as many rules as it may have.
    #[error(
        "this API key has {limit} alert rules, the most it may have (max_rules_per_key); delete a rule first"
    )]
    TooManyRules {
        /// The limit.
        limit: usize,
    },
    /// The key has a rule with the same settings already: a second would only send every alert
    /// twice.
    #[error("this API key has an alert rule with the same settings already")]
    DuplicateRule,
    /// A pollen rule looks further ahead than the configured source forecasts.
    #[error(
        "forecast: {} is beyond the pollen forecast of this server's source; choose at most \
         {days} days ({why})",
        .forecast.label()
    )]
    PollenHorizon {
        /// The horizon asked for.
        forecast: crate::rule::Forecast,
        /// The most days after today the source forecasts.
        days: u32,
        /// Why the source stops there.
        why: String,
    },
    /// A stored password hash is damaged.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The store failed.
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for ManageError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => ManageError::NotFound,
            other => ManageError::Store(other),
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

/// How much one account may create: self-service accounts would otherwise multiply every
/// per-key limit by as many keys, and every request's work by as many rules, as they like.
///
/// ```
/// use alerts_core::manage::AccountLimits;
///
/// let limits = AccountLimits::default();
/// assert_eq!((limits.keys_per_account, limits.rules_per_key), (20, 20));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountLimits {
    /// The most live (not revoked) API keys of one account (default 20).
    pub keys_per_account: usize,
    /// The most alert rules of one key, enabled or not (default 20).
    pub rules_per_key: usize,
}

impl Default for AccountLimits {
    fn default() -> Self {
        Self {
            keys_per_account: 20,
            rules_per_key: 20,
        }
    }
}

/// The management use cases over the stores.
#[derive(Clone)]
pub struct Manager {
    limits: AccountLimits,
    accounts: Arc<dyn AccountStore>,
    keys: Arc<dyn RuleStore>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    rng: Arc<dyn SecretRng>,
    urls: Arc<dyn WebhookUrlCheck>,
    /// The most days after today the forecast source gives pollen for, and why.
    pollen_limit: Option<(u32, String)>,
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager").finish_non_exhaustive()
    }
}

impl Manager {
    /// A manager over the stores, with time, ids, secret randomness and the webhook URL check
    /// from the ports.
    pub fn new(
        accounts: Arc<dyn AccountStore>,
        keys: Arc<dyn RuleStore>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        rng: Arc<dyn SecretRng>,
        urls: Arc<dyn WebhookUrlCheck>,
    ) -> Self {
        Self {
            limits: AccountLimits::default(),
            accounts,
            keys,
            clock,
            ids,
            rng,
            urls,
            pollen_limit: None,
        }
    }

    /// The same manager with other account limits.
    #[must_use]
    pub fn with_limits(self, limits: AccountLimits) -> Self {
        Self { limits, ..self }
    }

    /// The same manager, refusing pollen rules that look more than `days` days after today:
    /// the forecast source gives no whole day beyond (`why` says so in the refusal).
    #[must_use]
    pub fn with_pollen_limit(mut self, days: u32, why: impl Into<String>) -> Self {
        self.pollen_limit = Some((days, why.into()));
        self
    }

    fn check_pollen_horizon(&self, spec: &RuleSpec) -> Result<(), ManageError> {
        let (Some((days, why)), crate::rule::DataType::Pollen) =
            (&self.pollen_limit, spec.data_type())
        else {
            return Ok(());
        };
        if crate::evaluate::horizon(spec.forecast()) > *days {
            return Err(ManageError::PollenHorizon {
                forecast: spec.forecast(),
                days: *days,
                why: why.clone(),
            });
        }
        Ok(())
    }

    /// Signs up: a new account with a normalised email and an argon2id password hash.
    ///
    /// # Errors
    /// [`ManageError::Email`], [`ManageError::Password`], [`ManageError::EmailTaken`], or a
    /// store failure.
    pub async fn create_account(
        &self,
        email: &str,
        password: &str,
    ) -> Result<Account, ManageError> {
        let email = normalize_email(email)?;
        let password = Password::new(password)?;
        let account = Account {
            id: AccountId(self.ids.new_id()),
            email,
            password_hash: hash_password(&password, self.rng.as_ref())?,
            created_at: self.clock.now(),
        };
        match self.accounts.create_account(&account).await {
            Ok(()) => Ok(account),
            Err(StoreError::Conflict(_)) => Err(ManageError::EmailTaken),
            Err(e) => Err(e.into()),
        }
    }

    /// Signs in. An unknown email costs the same hashing work as a wrong password, so that
    /// response times do not tell which emails have accounts.
    ///
    /// # Errors
    /// [`ManageError::WrongCredentials`], or a store failure.
    pub async fn sign_in(&self, email: &str, password: &str) -> Result<Account, ManageError> {
        let account = match normalize_email(email) {
            Ok(email) => self.accounts.account_by_email(&email).await?,
            Err(_) => None,
        };
        let Some(account) = account else {
            let _ = verify_password(password, dummy_hash());
            return Err(ManageError::WrongCredentials);
        };
        if verify_password(password, &account.password_hash)? {
            Ok(account)
        } else {
            Err(ManageError::WrongCredentials)
        }
    }

    /// Changes a signed-in account's password, after checking its current one: whoever holds
    /// only a session must not be able to lock the owner out. The caller ends the account's
    /// other sessions.
    ///
    /// # Errors
    /// [`ManageError::WrongCredentials`] when `current` is not the password,
    /// [`ManageError::Password`] when `new` does not meet the policy, [`ManageError::NotFound`]
    /// for an unknown account, or a store failure.
    pub async fn change_password(
        &self,
        account: AccountId,
        current: &str,
        new: &str,
    ) -> Result<(), ManageError> {
        let stored = self.account(account).await?;
        if !verify_password(current, &stored.password_hash)? {
            return Err(ManageError::WrongCredentials);
        }
        self.set_password(account, new).await
    }

    /// Gives the account with this email a new password, without the old one: for an operator
    /// helping a customer who lost theirs. The caller ends the account's sessions.
    ///
    /// # Errors
    /// [`ManageError::Email`], [`ManageError::NotFound`] for an unknown email,
    /// [`ManageError::Password`] when `new` does not meet the policy, or a store failure.
    pub async fn reset_password(&self, email: &str, new: &str) -> Result<Account, ManageError> {
        let account = self.account_by_email(email).await?;
        self.set_password(account.id, new).await?;
        Ok(account)
    }

    async fn set_password(&self, account: AccountId, new: &str) -> Result<(), ManageError> {
        let password = Password::new(new)?;
        let hash = hash_password(&password, self.rng.as_ref())?;
        Ok(self.accounts.set_password_hash(account, &hash).await?)
    }

    /// The account with this id (the dashboard shows who is signed in).
    ///
    /// # Errors
    /// [`ManageError::NotFound`], or a store failure.
    pub async fn account(&self, id: AccountId) -> Result<Account, ManageError> {
        self.accounts
            .account(id)
            .await?
            .ok_or(ManageError::NotFound)
    }

    /// The account with this email, for the admin command.
    ///
    /// # Errors
    /// [`ManageError::NotFound`], or a store failure.
    pub async fn account_by_email(&self, email: &str) -> Result<Account, ManageError> {
        let email = normalize_email(email)?;
        self.accounts
            .account_by_email(&email)
            .await?
            .ok_or(ManageError::NotFound)
    }

    /// Creates a key for `account` with a first signing secret.
    ///
    /// # Errors
    /// [`ManageError::Label`], [`ManageError::TooManyKeys`], or a store failure.
    pub async fn create_key(
        &self,
        account: AccountId,
        label: &str,
    ) -> Result<CreatedKey, ManageError> {
        let label = check_label(label)?;
        let live = self
            .accounts
            .list_keys(account)
            .await?
            .iter()
            .filter(|k| k.revoked_at.is_none())
            .count();
        if live >= self.limits.keys_per_account {
            return Err(ManageError::TooManyKeys {
                limit: self.limits.keys_per_account,
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
            ManageError::Store(StoreError::Corrupt("a created key vanished".into()))
        })?;
        Ok(CreatedKey { info, key })
    }

    /// The account's keys, newest first.
    ///
    /// # Errors
    /// A store failure.
    pub async fn list_keys(&self, account: AccountId) -> Result<Vec<ApiKeyInfo>, ManageError> {
        Ok(self.accounts.list_keys(account).await?)
    }

    /// One of the account's keys.
    ///
    /// # Errors
    /// [`ManageError::NotFound`] for an unknown key or another account's.
    pub async fn key(&self, account: AccountId, key: KeyId) -> Result<ApiKeyInfo, ManageError> {
        match self.accounts.key_info(key).await? {
            Some(info) if info.account_id == account => Ok(info),
            _ => Err(ManageError::NotFound),
        }
    }

    /// The key with this full text, whoever owns it: for the admin command, whose operator
    /// holds the key.
    ///
    /// # Errors
    /// [`ManageError::NotFound`] for a malformed, unknown or revoked key.
    pub async fn key_by_text(&self, text: &str) -> Result<ApiKeyInfo, ManageError> {
        let key = ApiKey::parse(text.trim()).map_err(|_| ManageError::NotFound)?;
        let id = self
            .keys
            .authenticate(&key.hash(), self.clock.now())
            .await?
            .ok_or(ManageError::NotFound)?;
        self.accounts
            .key_info(id)
            .await?
            .ok_or(ManageError::NotFound)
    }

    /// One of the account's keys that is not revoked: what everything that changes a key's
    /// settings or sends on its behalf acts on.
    ///
    /// # Errors
    /// [`ManageError::NotFound`] for an unknown key or another account's,
    /// [`ManageError::Revoked`] for a revoked one.
    pub async fn live_key(
        &self,
        account: AccountId,
        key: KeyId,
    ) -> Result<ApiKeyInfo, ManageError> {
        let info = self.key(account, key).await?;
        if info.revoked_at.is_some() {
            return Err(ManageError::Revoked);
        }
        Ok(info)
    }

    /// Renames a live key.
    ///
    /// # Errors
    /// [`ManageError::Label`], [`ManageError::NotFound`], [`ManageError::Revoked`], or a store
    /// failure.
    pub async fn rename_key(
        &self,
        account: AccountId,
        key: KeyId,
        label: &str,
    ) -> Result<(), ManageError> {
        let label = check_label(label)?;
        self.live_key(account, key).await?;
        Ok(self.accounts.set_key_label(key, &label).await?)
    }

    /// Revokes a key; the API refuses it from then on.
    ///
    /// # Errors
    /// [`ManageError::NotFound`], or a store failure.
    pub async fn revoke_key(&self, account: AccountId, key: KeyId) -> Result<(), ManageError> {
        self.key(account, key).await?;
        Ok(self.accounts.revoke_key(key, self.clock.now()).await?)
    }

    /// Sets (or, with `None` or an empty string, clears) where the key's deliveries go, after
    /// the same check the sender makes. Returns the URL as stored.
    ///
    /// # Errors
    /// [`ManageError::WebhookUrl`] saying what is wrong with the URL, [`ManageError::NotFound`],
    /// [`ManageError::Revoked`], or a store failure.
    pub async fn set_webhook_url(
        &self,
        account: AccountId,
        key: KeyId,
        url: Option<&str>,
    ) -> Result<Option<String>, ManageError> {
        self.live_key(account, key).await?;
        let url = match url.map(str::trim).filter(|u| !u.is_empty()) {
            Some(u) => Some(self.urls.check(u).map_err(ManageError::WebhookUrl)?),
            None => None,
        };
        self.accounts.set_webhook_url(key, url.as_deref()).await?;
        Ok(url)
    }

    /// Replaces the key's signing secret; the previous one keeps signing for `grace`.
    ///
    /// # Errors
    /// [`ManageError::NotFound`], [`ManageError::Revoked`], or a store failure.
    pub async fn rotate_secret(
        &self,
        account: AccountId,
        key: KeyId,
        grace: Duration,
    ) -> Result<WebhookSecret, ManageError> {
        self.live_key(account, key).await?;
        let secret = WebhookSecret::generate(self.rng.as_ref());
        let grace = chrono::Duration::from_std(grace).unwrap_or(chrono::Duration::days(1));
        self.accounts
            .rotate_secret(key, &secret, self.clock.now() + grace)
            .await?;
        Ok(secret)
    }

    /// The key's rules, oldest first.
    ///
    /// # Errors
    /// [`ManageError::NotFound`], or a store failure.
    pub async fn list_rules(
        &self,
        account: AccountId,
        key: KeyId,
    ) -> Result<Vec<AlertRule>, ManageError> {
        self.key(account, key).await?;
        Ok(self.accounts.list_rules(key).await?)
    }

    /// Adds an enabled rule to the key.
    ///
    /// # Errors
    /// [`ManageError::NotFound`], [`ManageError::Revoked`], [`ManageError::PollenHorizon`],
    /// [`ManageError::TooManyRules`], [`ManageError::DuplicateRule`], or a store failure.
    pub async fn add_rule(
        &self,
        account: AccountId,
        key: KeyId,
        spec: RuleSpec,
    ) -> Result<AlertRule, ManageError> {
        self.live_key(account, key).await?;
        self.check_pollen_horizon(&spec)?;
        let rules = self.accounts.list_rules(key).await?;
        if rules.iter().any(|r| r.spec == spec) {
            return Err(ManageError::DuplicateRule);
        }
        if rules.len() >= self.limits.rules_per_key {
            return Err(ManageError::TooManyRules {
                limit: self.limits.rules_per_key,
            });
        }
        let rule = AlertRule {
            id: RuleId(self.ids.new_id()),
            key_id: key,
            spec,
            enabled: true,
            created_at: self.clock.now(),
        };
        self.accounts.add_rule(&rule).await?;
        Ok(rule)
    }

    /// Replaces a rule's spec and enabled flag.
    ///
    /// # Errors
    /// [`ManageError::NotFound`] for a rule that is not the key's, [`ManageError::Revoked`] for
    /// a revoked key, [`ManageError::PollenHorizon`]
    /// for an enabled rule given a horizon past the source's (a rule stored before the source
    /// changed can still be disabled or deleted), [`ManageError::DuplicateRule`] when another
    /// of the key's rules has the new spec, or a store failure.
    pub async fn update_rule(
        &self,
        account: AccountId,
        key: KeyId,
        rule: RuleId,
        spec: RuleSpec,
        enabled: bool,
    ) -> Result<AlertRule, ManageError> {
        self.live_key(account, key).await?;
        let rules = self.accounts.list_rules(key).await?;
        if rules.iter().any(|r| r.id != rule && r.spec == spec) {
            return Err(ManageError::DuplicateRule);
        }
        let existing = rules
            .into_iter()
            .find(|r| r.id == rule)
            .ok_or(ManageError::NotFound)?;
        if enabled && (spec != existing.spec || !existing.enabled) {
            self.check_pollen_horizon(&spec)?;
        }
        let updated = AlertRule {
            spec,
            enabled,
            ..existing
        };
        self.accounts.update_rule(&updated).await?;
        Ok(updated)
    }

    /// Deletes a rule of a live key.
    ///
    /// # Errors
    /// [`ManageError::NotFound`], [`ManageError::Revoked`], or a store failure.
    pub async fn delete_rule(
        &self,
        account: AccountId,
        key: KeyId,
        rule: RuleId,
    ) -> Result<(), ManageError> {
        self.live_key(account, key).await?;
        Ok(self.accounts.delete_rule(key, rule).await?)
    }
}

fn check_label(label: &str) -> Result<String, ManageError> {
    let label = label.trim();
    let chars = label.chars().count();
    if chars > MAX_LABEL_CHARS {
        return Err(ManageError::Label(format!(
            "at most {MAX_LABEL_CHARS} characters, got {chars}"
        )));
    }
    if label.chars().any(char::is_control) {
        return Err(ManageError::Label(
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
    use aq_core::runtime::{FixedClock, SequentialIds};

    use super::*;
    use crate::memory::MemoryStore;
    use crate::rule::{DataType, Forecast, MessageSpec, Sensitivity};

    fn manager() -> Manager {
        let store = Arc::new(MemoryStore::new());
        Manager::new(
            store.clone(),
            store,
            Arc::new(FixedClock::new(chrono::Utc::now())),
            Arc::new(SequentialIds::default()),
            Arc::new(SeededRandomness::default()),
            Arc::new(AnyWebhookUrl),
        )
    }

    #[tokio::test]
    async fn sign_in_accepts_the_password_and_refuses_others_alike() {
        let m = manager();
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
        let m = manager();
        m.create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        let err = m
            .create_account(" ADA@example.org", "another long password")
            .await
            .unwrap_err();
        assert!(matches!(err, ManageError::EmailTaken), "{err:?}");
    }

    #[tokio::test]
    async fn keys_of_other_accounts_are_invisible() {
        let m = manager();
        let ada = m
            .create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        let eve = m
            .create_account("eve@example.org", "correct horse battery")
            .await
            .unwrap();
        let key = m.create_key(ada.id, "prod").await.unwrap();
        let spec = RuleSpec::new(
            DataType::Aq,
            Forecast::Hours(1),
            Sensitivity::High,
            MessageSpec::Default,
        )
        .unwrap();
        assert!(matches!(
            m.key(eve.id, key.info.id).await,
            Err(ManageError::NotFound)
        ));
        assert!(matches!(
            m.add_rule(eve.id, key.info.id, spec).await,
            Err(ManageError::NotFound)
        ));
        assert!(matches!(
            m.set_webhook_url(eve.id, key.info.id, Some("https://evil.example"))
                .await,
            Err(ManageError::NotFound)
        ));
        assert!(matches!(
            m.revoke_key(eve.id, key.info.id).await,
            Err(ManageError::NotFound)
        ));
        assert!(m.key(ada.id, key.info.id).await.is_ok());
    }

    #[tokio::test]
    async fn pollen_rules_stop_where_the_source_forecast_stops() {
        let m = manager().with_pollen_limit(3, "the model forecasts 96 hours");
        let ada = m
            .create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        let key = m.create_key(ada.id, "prod").await.unwrap().info.id;
        let spec = |dt, f| RuleSpec::new(dt, f, Sensitivity::High, MessageSpec::Default).unwrap();
        let refused = m
            .add_rule(ada.id, key, spec(DataType::Pollen, Forecast::Days(4)))
            .await
            .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "forecast: 4 days is beyond the pollen forecast of this server's source; choose at most \
             3 days (the model forecasts 96 hours)"
        );
        let rule = m
            .add_rule(ada.id, key, spec(DataType::Pollen, Forecast::Days(3)))
            .await
            .unwrap();
        assert!(
            m.add_rule(ada.id, key, spec(DataType::Aq, Forecast::Hours(96)))
                .await
                .is_ok(),
            "air-quality hours are not pollen days"
        );
        assert!(matches!(
            m.update_rule(
                ada.id,
                key,
                rule.id,
                spec(DataType::Pollen, Forecast::Days(4)),
                true
            )
            .await,
            Err(ManageError::PollenHorizon { days: 3, .. })
        ));
        // A rule stored before the limit can still be switched off.
        let old = RuleSpec::new(
            DataType::Pollen,
            Forecast::Days(4),
            Sensitivity::Low,
            MessageSpec::Default,
        )
        .unwrap();
        assert!(
            m.update_rule(ada.id, key, rule.id, old, false)
                .await
                .is_ok(),
            "disabling is always allowed"
        );
    }

    #[tokio::test]
    async fn revoked_keys_cannot_be_configured_or_found_by_text() {
        let m = manager();
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
            m.set_webhook_url(ada.id, key.info.id, Some("https://example.org"))
                .await,
            Err(ManageError::Revoked)
        ));
        assert!(matches!(
            m.key_by_text(key.key.expose()).await,
            Err(ManageError::NotFound)
        ));
    }

    #[tokio::test]
    async fn a_revoked_key_can_be_neither_renamed_nor_given_rules() {
        let m = manager();
        let ada = m
            .create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        let key = m.create_key(ada.id, "prod").await.unwrap().info.id;
        let spec = RuleSpec::new(
            DataType::Aq,
            Forecast::Hours(1),
            Sensitivity::High,
            MessageSpec::Default,
        )
        .unwrap();
        let rule = m.add_rule(ada.id, key, spec.clone()).await.unwrap();
        m.revoke_key(ada.id, key).await.unwrap();
        assert!(matches!(
            m.rename_key(ada.id, key, "renamed").await,
            Err(ManageError::Revoked)
        ));
        assert!(matches!(
            m.update_rule(ada.id, key, rule.id, spec, false).await,
            Err(ManageError::Revoked)
        ));
        assert!(matches!(
            m.delete_rule(ada.id, key, rule.id).await,
            Err(ManageError::Revoked)
        ));
        assert_eq!(m.key(ada.id, key).await.unwrap().label, "prod");
        assert!(
            m.revoke_key(ada.id, key).await.is_ok(),
            "revoking twice is fine"
        );
    }

    #[tokio::test]
    async fn a_password_changes_only_with_the_current_one_and_resets_without_it() {
        let m = manager();
        let ada = m
            .create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        assert!(matches!(
            m.change_password(ada.id, "not the password", "a brand new passphrase")
                .await,
            Err(ManageError::WrongCredentials)
        ));
        assert!(matches!(
            m.change_password(ada.id, "correct horse battery", "short")
                .await,
            Err(ManageError::Password(_))
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
            Err(ManageError::NotFound)
        ));
    }

    #[tokio::test]
    async fn webhook_urls_pass_the_check_and_empty_clears() {
        let m = manager();
        let ada = m
            .create_account("ada@example.org", "correct horse battery")
            .await
            .unwrap();
        let key = m.create_key(ada.id, "prod").await.unwrap();
        let err = m
            .set_webhook_url(ada.id, key.info.id, Some("ftp://x"))
            .await
            .unwrap_err();
        assert!(err.to_string().starts_with("webhook URL:"), "{err}");
        let set = m
            .set_webhook_url(ada.id, key.info.id, Some(" https://example.org/h "))
            .await
            .unwrap();
        assert_eq!(set.as_deref(), Some("https://example.org/h"));
        assert_eq!(
            m.set_webhook_url(ada.id, key.info.id, Some(""))
                .await
                .unwrap(),
            None
        );
        assert_eq!(m.key(ada.id, key.info.id).await.unwrap().webhook_url, None);
    }

    #[test]
    fn labels_are_trimmed_and_bounded() {
        assert_eq!(check_label("  prod ").unwrap(), "prod");
        assert!(check_label(&"x".repeat(101)).is_err());
        assert!(check_label("a\u{7}b").is_err());
    }
}
