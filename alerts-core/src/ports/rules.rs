//! A key's alert rules and the configuration the pipeline reads for it: the [`RuleStore`]
//! port.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use identity_core::ids::KeyId;
use identity_core::keys::WebhookSecret;

use crate::ids::RuleId;
use crate::rule::AlertRule;

use super::StoreError;

/// A webhook signing secret and, during a rotation's grace period, until when it stays valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningSecret {
    /// The secret.
    pub secret: WebhookSecret,
    /// `None` for the current secret; the end of the grace period for a previous one.
    pub valid_until: Option<DateTime<Utc>>,
}

/// Everything the pipeline needs to know about one API key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyConfig {
    /// The key's id.
    pub key_id: KeyId,
    /// The key's public prefix (`ik_` and eight hex digits), sent as `KEY` in deliveries.
    pub prefix: String,
    /// Where deliveries go; `None` until the owner sets it.
    pub webhook_url: Option<String>,
    /// The current signing secret first, then previous ones still in their grace period.
    /// Deliveries are signed with every one of them, so receivers can switch at their pace.
    pub secrets: Vec<SigningSecret>,
    /// The key's enabled rules, oldest first.
    pub rules: Vec<AlertRule>,
}

/// A key's rules and its alert configuration: what the pipeline reads for each job, and what
/// the dashboard and the admin command change.
#[async_trait]
pub trait RuleStore: Send + Sync {
    /// The alert configuration of a key that is not revoked. Previous secrets whose grace
    /// period ended before `now` are left out.
    async fn key_config(
        &self,
        key_id: KeyId,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyConfig>, StoreError>;

    /// Stores a new rule.
    async fn add_rule(&self, rule: &AlertRule) -> Result<(), StoreError>;

    /// A key's rules, disabled ones included, oldest first.
    async fn list_rules(&self, key: KeyId) -> Result<Vec<AlertRule>, StoreError>;

    /// Replaces a rule's spec and enabled flag. [`StoreError::NotFound`] when the rule does not
    /// exist under `rule.key_id`.
    async fn update_rule(&self, rule: &AlertRule) -> Result<(), StoreError>;

    /// Deletes a rule. [`StoreError::NotFound`] when it does not exist under `key`.
    async fn delete_rule(&self, key: KeyId, rule: RuleId) -> Result<(), StoreError>;
}
