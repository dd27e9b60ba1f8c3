//! Rows as the stores' queries read them, and the ports' values made of them: the checks of
//! stored data that both databases need, in plain Rust. Times come as each database keeps them
//! and are read by the store's [`SqlDialect::from_time`].

use alerts_core::idempotency::Fingerprint;
use alerts_core::ids::{RuleId, Token};
use alerts_core::ports::stored::{to_u32, to_u64};
use alerts_core::ports::{
    AttemptTally, DeliveryAttempt, DeliveryErrorKind, JobOutcome, JobStage, RequestSummary,
    RequestTally, StoreError,
};
use alerts_core::rule::{AlertRule, RuleSpec};
use identity_core::ids::{AccountId, KeyId};
use identity_core::keys::WebhookSecret;
use identity_core::ports::{Account, ApiKeyInfo, Session};
use uuid::Uuid;

use crate::SqlDialect;

/// An account: id, email, password hash, created.
pub type AccountRow<T> = (Uuid, String, String, T);

/// The account of an [`AccountRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a time the store cannot have written.
pub fn account<D: SqlDialect>(row: AccountRow<D::Time>) -> Result<Account, StoreError> {
    let (id, email, password_hash, created) = row;
    Ok(Account {
        id: AccountId(id),
        email,
        password_hash,
        created_at: D::from_time(created)?,
    })
}

/// A key with its current secret: id, account, label, prefix, created, last used, revoked,
/// webhook URL, secret.
pub type KeyRow<T> = (
    Uuid,
    Uuid,
    String,
    String,
    T,
    Option<T>,
    Option<T>,
    Option<String>,
    String,
);

/// The key of a [`KeyRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a time or secret the store cannot have written.
pub fn key_info<D: SqlDialect>(row: KeyRow<D::Time>) -> Result<ApiKeyInfo, StoreError> {
    let (id, account_id, label, prefix, created, used, revoked, url, secret) = row;
    Ok(ApiKeyInfo {
        id: KeyId(id),
        account_id: AccountId(account_id),
        label,
        prefix,
        created_at: D::from_time(created)?,
        last_used_at: D::from_opt_time(used)?,
        revoked_at: D::from_opt_time(revoked)?,
        webhook_url: url,
        secret: secret_of(&secret)?,
    })
}

/// A stored webhook signing secret.
///
/// # Errors
/// [`StoreError::Corrupt`] when it is not one.
pub fn secret_of(s: &str) -> Result<WebhookSecret, StoreError> {
    WebhookSecret::parse(s).map_err(|e| StoreError::Corrupt(format!("webhook secret: {e}")))
}

/// An alert rule: id, key, spec as JSON text, enabled, created.
pub type RuleRow<T> = (Uuid, Uuid, String, bool, T);

/// The rule of a [`RuleRow`]; its spec is validated again as it is read.
///
/// # Errors
/// [`StoreError::Corrupt`] when the spec or the time is not one the store can have written.
pub fn rule<D: SqlDialect>(row: RuleRow<D::Time>) -> Result<AlertRule, StoreError> {
    let (id, key_id, spec, enabled, created) = row;
    let spec: RuleSpec = serde_json::from_str(&spec)
        .map_err(|e| StoreError::Corrupt(format!("alert rule {id}: {e}")))?;
    Ok(AlertRule {
        id: RuleId(id),
        key_id: KeyId(key_id),
        spec,
        enabled,
        created_at: D::from_time(created)?,
    })
}

/// A rule's spec as the stores keep it: JSON text.
///
/// # Errors
/// [`StoreError::Corrupt`] should it not serialise (it always does).
pub fn spec_text(spec: &RuleSpec) -> Result<String, StoreError> {
    serde_json::to_string(spec)
        .map_err(|e| StoreError::Corrupt(format!("alert rule could not be encoded: {e}")))
}

/// A session: id hash, account, CSRF secret, created, expires.
pub type SessionRow<T> = (String, Uuid, String, T, T);

/// The session of a [`SessionRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a time the store cannot have written.
pub fn session<D: SqlDialect>(row: SessionRow<D::Time>) -> Result<Session, StoreError> {
    let (id_hash, account, csrf_secret, created, expires) = row;
    Ok(Session {
        id_hash,
        account_id: AccountId(account),
        csrf_secret,
        created_at: D::from_time(created)?,
        expires_at: D::from_time(expires)?,
    })
}

/// A stored fingerprint, which is always 32 bytes.
///
/// # Errors
/// [`StoreError::Corrupt`] for any other length.
pub fn fingerprint(bytes: &[u8]) -> Result<Fingerprint, StoreError> {
    bytes
        .try_into()
        .map(Fingerprint)
        .map_err(|_| StoreError::Corrupt(format!("a fingerprint of {} bytes", bytes.len())))
}

/// A stored HTTP status.
///
/// # Errors
/// [`StoreError::Corrupt`] when it is out of range.
pub fn status(s: Option<i32>) -> Result<Option<u16>, StoreError> {
    s.map(|s| {
        u16::try_from(s)
            .map_err(|_| StoreError::Corrupt(format!("HTTP status {s} is out of range")))
    })
    .transpose()
}

/// A stored delivery error.
///
/// # Errors
/// [`StoreError::Corrupt`] when it names no kind of error.
pub fn error_kind(e: Option<&str>) -> Result<Option<DeliveryErrorKind>, StoreError> {
    e.map(str::parse::<DeliveryErrorKind>)
        .transpose()
        .map_err(StoreError::from)
}

/// A delivery attempt: token, attempt, at, status, latency, error.
pub type AttemptRow<T> = (Uuid, i32, T, Option<i32>, i64, Option<String>);

/// The attempt of an [`AttemptRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a value the store cannot have written.
pub fn attempt<D: SqlDialect>(row: AttemptRow<D::Time>) -> Result<DeliveryAttempt, StoreError> {
    let (token, attempt, at, status, latency, error) = row;
    Ok(DeliveryAttempt {
        token: Token(token),
        attempt: to_u32(i64::from(attempt), "attempt")?,
        at: D::from_time(at)?,
        status: self::status(status)?,
        latency_ms: to_u64(latency, "latency")?,
        error: error_kind(error.as_deref())?,
    })
}

/// A request with its job: token, received, points, alerts, stage, outcome, attempts.
pub type SummaryRow<T> = (Uuid, T, i64, Option<i64>, String, Option<String>, i32);

/// The summary of a [`SummaryRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a value the store cannot have written.
pub fn summary<D: SqlDialect>(row: SummaryRow<D::Time>) -> Result<RequestSummary, StoreError> {
    let (token, received, points, alerts, stage, outcome, attempts) = row;
    Ok(RequestSummary {
        token: Token(token),
        received_at: D::from_time(received)?,
        points: to_u64(points, "point count")?,
        alerts: alerts.map(|a| to_u64(a, "alert count")).transpose()?,
        stage: stage.parse::<JobStage>()?,
        outcome: outcome
            .as_deref()
            .map(str::parse::<JobOutcome>)
            .transpose()?,
        attempts: to_u32(i64::from(attempts), "attempts")?,
    })
}

/// The requests of one bucket of activity: bucket, requests, alerts.
pub type RequestTallyRow = (i64, i64, i64);

/// The tally of a [`RequestTallyRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a negative count or bucket.
pub fn request_tally(row: RequestTallyRow) -> Result<RequestTally, StoreError> {
    let (bucket, requests, alerts) = row;
    Ok(RequestTally {
        bucket: to_u32(bucket, "bucket")?,
        requests: to_u64(requests, "request count")?,
        alerts: to_u64(alerts, "alert count")?,
    })
}

/// The attempts of one bucket, status and error: bucket, status, error, attempts, total and
/// longest latency.
pub type AttemptTallyRow = (i64, Option<i32>, Option<String>, i64, i64, i64);

/// The tally of an [`AttemptTallyRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a value the store cannot have written.
pub fn attempt_tally(row: AttemptTallyRow) -> Result<AttemptTally, StoreError> {
    let (bucket, status, error, attempts, total, max) = row;
    Ok(AttemptTally {
        bucket: to_u32(bucket, "bucket")?,
        status: self::status(status)?,
        error: error_kind(error.as_deref())?,
        attempts: to_u64(attempts, "attempt count")?,
        latency_ms_total: to_u64(total, "latency")?,
        latency_ms_max: to_u64(max, "latency")?,
    })
}
