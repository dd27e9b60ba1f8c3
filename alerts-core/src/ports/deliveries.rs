//! The record of webhook deliveries: the [`DeliveryLog`] port.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::ids::{KeyId, Token};

use super::{DeliveryErrorKind, JobOutcome, JobStage, StoreError};

/// One attempt to deliver a webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryAttempt {
    /// The request delivered.
    pub token: Token,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// When the attempt started.
    pub at: DateTime<Utc>,
    /// The HTTP status, when a response came.
    pub status: Option<u16>,
    /// How long the attempt took, in milliseconds.
    pub latency_ms: u64,
    /// What went wrong, when it did.
    pub error: Option<DeliveryErrorKind>,
}

/// A request's summary for the deliveries page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestSummary {
    /// The token.
    pub token: Token,
    /// When it was accepted.
    pub received_at: DateTime<Utc>,
    /// Points posted.
    pub points: u64,
    /// Lines in the file, once written.
    pub alerts: Option<u64>,
    /// Where the job is.
    pub stage: JobStage,
    /// How it ended, when it did.
    pub outcome: Option<JobOutcome>,
    /// Delivery attempts made.
    pub attempts: u32,
}

/// The record of deliveries: written by the pipeline, read by the dashboard and the admin
/// command.
#[async_trait]
pub trait DeliveryLog: Send + Sync {
    /// Records an attempt. Recording the same (token, attempt) twice keeps one record.
    async fn record_attempt(&self, attempt: &DeliveryAttempt) -> Result<(), StoreError>;

    /// A key's latest requests, newest first.
    async fn list_requests(
        &self,
        key: KeyId,
        limit: usize,
    ) -> Result<Vec<RequestSummary>, StoreError>;

    /// The attempts of a request made with `key`, in order. Empty for another key's token.
    async fn list_attempts(
        &self,
        key: KeyId,
        token: Token,
    ) -> Result<Vec<DeliveryAttempt>, StoreError>;
}
