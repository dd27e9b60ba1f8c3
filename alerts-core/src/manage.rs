//! Alert settings management: a key's webhook URL, its signing secret and its rules, as the
//! developer dashboard and the admin command change them. Both go through [`Manager`], so a
//! rule made in one is checked by exactly the same rules as one made in the other. Accounts
//! and keys themselves are [`identity_core::manage::Identity`]'s, which the manager asks
//! whether a key is the acting account's.
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
//! use runtime_core::{FixedClock, SequentialIds};
//! use identity_core::manage::Identity;
//! use identity_core::randomness::SeededRandomness;
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let store = Arc::new(MemoryStore::new());
//! let ids = Arc::new(SequentialIds::default());
//! let rng = Arc::new(SeededRandomness::default());
//! let identity = Identity::new(store.clone(), store.clone(),
//!     Arc::new(FixedClock::new(chrono::Utc::now())), ids.clone(), rng.clone());
//! let manager = Manager::new(identity.clone(), store.clone(), store, ids, rng,
//!     Arc::new(AnyWebhookUrl));
//!
//! let account = identity.create_account("ada@example.org", "correct horse battery").await.unwrap();
//! let created = identity.create_key(account.id, "production").await.unwrap();
//! manager.set_webhook_url(account.id, created.info.id, Some("https://example.org/hook")).await.unwrap();
//! let spec = RuleSpec::new(DataType::Aq, Forecast::Hours(6), Sensitivity::Medium,
//!     MessageSpec::Default).unwrap();
//! manager.add_rule(account.id, created.info.id, spec).await.unwrap();
//! assert_eq!(manager.list_rules(account.id, created.info.id).await.unwrap().len(), 1);
//!
//! // Another account cannot touch the key.
//! let other = identity.create_account("eve@example.org", "another long password").await.unwrap();
//! assert!(manager.list_rules(other.id, created.info.id).await.is_err());
//! # });
//! ```

use std::sync::Arc;
use std::time::Duration;

use identity_core::ids::{AccountId, KeyId};
use identity_core::keys::WebhookSecret;
use identity_core::manage::{Identity, IdentityError};
use identity_core::ports::{AccountStore, KeyAuthenticator};
use identity_core::randomness::SecretRng;
use runtime_core::{Clock, IdGenerator};
use thiserror::Error;

use crate::ids::RuleId;
use crate::ports::{RuleStore, StoreError};
use crate::rule::{AlertRule, RuleSpec};

/// How long a rotated-out signing secret keeps signing deliveries by default: a day, time
/// for receivers to switch to the new one.
pub const DEFAULT_SECRET_GRACE: Duration = Duration::from_secs(24 * 3600);

/// The most alert rules of one key by default, enabled or not: self-service accounts would
/// otherwise multiply every request's work by as many rules as they like.
pub const DEFAULT_RULES_PER_KEY: usize = 20;

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

/// Why an alert settings operation was refused.
#[derive(Debug, Error)]
pub enum ManageError {
    /// The key or rule does not exist, or belongs to another account.
    #[error("not found")]
    NotFound,
    /// The key was revoked; it can no longer be changed.
    #[error("this key is revoked; create a new key")]
    Revoked,
    /// The webhook URL was refused.
    #[error("webhook URL: {0}")]
    WebhookUrl(String),
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
    /// An identity refusal other than a missing or revoked key.
    #[error(transparent)]
    Identity(IdentityError),
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

impl From<IdentityError> for ManageError {
    fn from(e: IdentityError) -> Self {
        match e {
            IdentityError::NotFound => ManageError::NotFound,
            IdentityError::Revoked => ManageError::Revoked,
            IdentityError::Store(e) => ManageError::Store(e),
            other => ManageError::Identity(other),
        }
    }
}

/// The alert settings use cases over the stores.
#[derive(Clone)]
pub struct Manager {
    identity: Identity,
    accounts: Arc<dyn AccountStore>,
    rules: Arc<dyn RuleStore>,
    ids: Arc<dyn IdGenerator>,
    rng: Arc<dyn SecretRng>,
    urls: Arc<dyn WebhookUrlCheck>,
    rules_per_key: usize,
    /// The most days after today the forecast source gives pollen for, and why.
    pollen_limit: Option<(u32, String)>,
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("rules_per_key", &self.rules_per_key)
            .finish_non_exhaustive()
    }
}

impl Manager {
    /// A manager that asks `identity` whose keys are whose, keeps webhook URLs and secrets in
    /// `accounts` (they are the key's) and rules in `rules`, with ids and secret randomness
    /// from the ports and the webhook URL check of the sender, and at most
    /// [`DEFAULT_RULES_PER_KEY`] rules per key.
    pub fn new(
        identity: Identity,
        accounts: Arc<dyn AccountStore>,
        rules: Arc<dyn RuleStore>,
        ids: Arc<dyn IdGenerator>,
        rng: Arc<dyn SecretRng>,
        urls: Arc<dyn WebhookUrlCheck>,
    ) -> Self {
        Self {
            identity,
            accounts,
            rules,
            ids,
            rng,
            urls,
            rules_per_key: DEFAULT_RULES_PER_KEY,
            pollen_limit: None,
        }
    }

    /// A manager over one store that keeps accounts, keys and rules alike, as every store
    /// adapter does, with the [`Identity`] over the same store inside.
    pub fn with_store<S>(
        store: Arc<S>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        rng: Arc<dyn SecretRng>,
        urls: Arc<dyn WebhookUrlCheck>,
    ) -> Self
    where
        S: AccountStore + KeyAuthenticator + RuleStore + 'static,
    {
        let identity = Identity::new(
            store.clone(),
            store.clone(),
            clock,
            ids.clone(),
            rng.clone(),
        );
        Self::new(identity, store.clone(), store, ids, rng, urls)
    }

    /// The identity use cases this manager checks keys with.
    #[must_use]
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// The same manager, with at most `limit` rules per key.
    #[must_use]
    pub fn with_rules_per_key(self, limit: usize) -> Self {
        Self {
            rules_per_key: limit,
            ..self
        }
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
        self.identity.live_key(account, key).await?;
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
        self.identity.live_key(account, key).await?;
        let secret = WebhookSecret::generate(self.rng.as_ref());
        let grace = chrono::Duration::from_std(grace).unwrap_or(chrono::Duration::days(1));
        self.accounts
            .rotate_secret(key, &secret, self.identity.clock().now() + grace)
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
        self.identity.key(account, key).await?;
        Ok(self.rules.list_rules(key).await?)
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
        self.identity.live_key(account, key).await?;
        self.check_pollen_horizon(&spec)?;
        let rules = self.rules.list_rules(key).await?;
        if rules.iter().any(|r| r.spec == spec) {
            return Err(ManageError::DuplicateRule);
        }
        if rules.len() >= self.rules_per_key {
            return Err(ManageError::TooManyRules {
                limit: self.rules_per_key,
            });
        }
        let rule = AlertRule {
            id: RuleId(self.ids.new_id()),
            key_id: key,
            spec,
            enabled: true,
            created_at: self.identity.clock().now(),
        };
        self.rules.add_rule(&rule).await?;
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
        self.identity.live_key(account, key).await?;
        let rules = self.rules.list_rules(key).await?;
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
        self.rules.update_rule(&updated).await?;
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
        self.identity.live_key(account, key).await?;
        Ok(self.rules.delete_rule(key, rule).await?)
    }
}

#[cfg(test)]
mod tests {
    use identity_core::ids::AccountId;
    use identity_core::randomness::SeededRandomness;
    use runtime_core::{FixedClock, SequentialIds};

    use super::*;
    use crate::memory::MemoryStore;
    use crate::rule::{DataType, Forecast, MessageSpec, Sensitivity};

    fn manager() -> Manager {
        let store = Arc::new(MemoryStore::new());
        let ids = Arc::new(SequentialIds::default());
        let rng = Arc::new(SeededRandomness::default());
        let identity = Identity::new(
            store.clone(),
            store.clone(),
            Arc::new(FixedClock::new(chrono::Utc::now())),
            ids.clone(),
            rng.clone(),
        );
        Manager::new(
            identity,
            store.clone(),
            store,
            ids,
            rng,
            Arc::new(AnyWebhookUrl),
        )
    }

    async fn account(m: &Manager, email: &str) -> AccountId {
        m.identity()
            .create_account(email, "correct horse battery")
            .await
            .unwrap()
            .id
    }

    async fn key(m: &Manager, account: AccountId) -> KeyId {
        m.identity()
            .create_key(account, "prod")
            .await
            .unwrap()
            .info
            .id
    }

    fn spec(data_type: DataType, forecast: Forecast) -> RuleSpec {
        RuleSpec::new(data_type, forecast, Sensitivity::High, MessageSpec::Default).unwrap()
    }

    #[tokio::test]
    async fn keys_of_other_accounts_cannot_be_configured() {
        let m = manager();
        let ada = account(&m, "ada@example.org").await;
        let eve = account(&m, "eve@example.org").await;
        let key = key(&m, ada).await;
        assert!(matches!(
            m.add_rule(eve, key, spec(DataType::Aq, Forecast::Hours(1)))
                .await,
            Err(ManageError::NotFound)
        ));
        assert!(matches!(
            m.set_webhook_url(eve, key, Some("https://evil.example"))
                .await,
            Err(ManageError::NotFound)
        ));
        assert!(matches!(
            m.rotate_secret(eve, key, DEFAULT_SECRET_GRACE).await,
            Err(ManageError::NotFound)
        ));
        assert!(matches!(
            m.list_rules(eve, key).await,
            Err(ManageError::NotFound)
        ));
        assert!(m.list_rules(ada, key).await.is_ok());
    }

    #[tokio::test]
    async fn pollen_rules_stop_where_the_source_forecast_stops() {
        let m = manager().with_pollen_limit(3, "the model forecasts 96 hours");
        let ada = account(&m, "ada@example.org").await;
        let key = key(&m, ada).await;
        let refused = m
            .add_rule(ada, key, spec(DataType::Pollen, Forecast::Days(4)))
            .await
            .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "forecast: 4 days is beyond the pollen forecast of this server's source; choose at most \
             3 days (the model forecasts 96 hours)"
        );
        let rule = m
            .add_rule(ada, key, spec(DataType::Pollen, Forecast::Days(3)))
            .await
            .unwrap();
        assert!(
            m.add_rule(ada, key, spec(DataType::Aq, Forecast::Hours(96)))
                .await
                .is_ok(),
            "air-quality hours are not pollen days"
        );
        assert!(matches!(
            m.update_rule(
                ada,
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
            m.update_rule(ada, key, rule.id, old, false).await.is_ok(),
            "disabling is always allowed"
        );
    }

    #[tokio::test]
    async fn a_key_has_at_most_its_limit_of_rules_and_no_twins() {
        let m = manager().with_rules_per_key(2);
        let ada = account(&m, "ada@example.org").await;
        let key = key(&m, ada).await;
        m.add_rule(ada, key, spec(DataType::Aq, Forecast::Hours(1)))
            .await
            .unwrap();
        assert!(matches!(
            m.add_rule(ada, key, spec(DataType::Aq, Forecast::Hours(1)))
                .await,
            Err(ManageError::DuplicateRule)
        ));
        m.add_rule(ada, key, spec(DataType::Aq, Forecast::Hours(2)))
            .await
            .unwrap();
        assert!(matches!(
            m.add_rule(ada, key, spec(DataType::Aq, Forecast::Hours(3)))
                .await,
            Err(ManageError::TooManyRules { limit: 2 })
        ));
    }

    #[tokio::test]
    async fn revoked_keys_cannot_be_configured() {
        let m = manager();
        let ada = account(&m, "ada@example.org").await;
        let key = key(&m, ada).await;
        let rule = m
            .add_rule(ada, key, spec(DataType::Aq, Forecast::Hours(2)))
            .await
            .unwrap();
        m.identity().revoke_key(ada, key).await.unwrap();
        assert!(matches!(
            m.set_webhook_url(ada, key, Some("https://example.org"))
                .await,
            Err(ManageError::Revoked)
        ));
        assert!(matches!(
            m.rotate_secret(ada, key, DEFAULT_SECRET_GRACE).await,
            Err(ManageError::Revoked)
        ));
        assert!(matches!(
            m.add_rule(ada, key, spec(DataType::Aq, Forecast::Hours(1)))
                .await,
            Err(ManageError::Revoked)
        ));
        assert!(matches!(
            m.update_rule(
                ada,
                key,
                rule.id,
                spec(DataType::Aq, Forecast::Hours(2)),
                false
            )
            .await,
            Err(ManageError::Revoked)
        ));
        assert!(matches!(
            m.delete_rule(ada, key, rule.id).await,
            Err(ManageError::Revoked)
        ));
        assert_eq!(m.list_rules(ada, key).await.unwrap(), vec![rule]);
    }

    #[tokio::test]
    async fn webhook_urls_pass_the_check_and_empty_clears() {
        let m = manager();
        let ada = account(&m, "ada@example.org").await;
        let key = key(&m, ada).await;
        let err = m
            .set_webhook_url(ada, key, Some("ftp://x"))
            .await
            .unwrap_err();
        assert!(err.to_string().starts_with("webhook URL:"), "{err}");
        let set = m
            .set_webhook_url(ada, key, Some(" https://example.org/h "))
            .await
            .unwrap();
        assert_eq!(set.as_deref(), Some("https://example.org/h"));
        assert_eq!(m.set_webhook_url(ada, key, Some("")).await.unwrap(), None);
        assert_eq!(m.identity().key(ada, key).await.unwrap().webhook_url, None);
    }
}
