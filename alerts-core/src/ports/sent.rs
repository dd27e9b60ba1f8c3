//! What rules that tell a change once have told: the [`SentChanges`] port.
//!
//! A rule whose repeat is [`Repeat::Once`](crate::rule::Repeat::Once) leaves an alert out of a
//! file when the same change was told to the same point id before ([`crate::repeat`] says what
//! makes two changes the same). The pipeline records each change a job tells as it writes the
//! job's file, and asks, chunk by chunk, what earlier jobs told.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;

use crate::ids::{RuleId, Token};

use super::StoreError;

/// A change told to one point id by one rule.
///
/// `(rule_id, point_id, subject)` names the slot: a store keeps one change per slot, the one
/// recorded last.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SentChange {
    /// The rule that told it.
    pub rule_id: RuleId,
    /// The point's id, as the client sent it.
    pub point_id: String,
    /// What changes: `aq`, or the pollen type (`tree`, `grass`, `weed`).
    pub subject: String,
    /// What makes it this change: direction, forecast hour or day, and category.
    pub mark: String,
    /// When the change has passed: once `until` is reached it is never the same change again.
    pub until: DateTime<Utc>,
}

/// Keeps the changes that once-per-change rules told, for each point id of a key.
///
/// A change counts as told once the job that recorded it has its file written
/// ([`JobUpdate::Written`](super::JobUpdate::Written)): a job that fails before then (or is
/// retried) does not keep a later request from telling it. Recorded changes go with their
/// request when retention purges it ([`JobQueue::purge_finished`](super::JobQueue::purge_finished)),
/// so the store holds at most one change per rule, point id and subject of the requests it
/// keeps. The store that implements this must be the one that keeps the jobs.
#[async_trait]
pub trait SentChanges: Send + Sync {
    /// The changes told to any of `point_ids` under `key` by jobs whose file is written, and
    /// still ahead at `now` (`until` after `now`).
    async fn sent_changes(
        &self,
        key: KeyId,
        point_ids: &[&str],
        now: DateTime<Utc>,
    ) -> Result<Vec<SentChange>, StoreError>;

    /// Records the changes that the job of `token` (a request of `key`) tells, each replacing
    /// whatever its slot held (of two for one slot, the later). They count from the moment the
    /// job's file is written. Changes of a rule that no longer exists are dropped.
    ///
    /// [`StoreError::NotFound`] when changes are given for a token no request has.
    async fn record_sent(
        &self,
        token: Token,
        key: KeyId,
        changes: &[SentChange],
    ) -> Result<(), StoreError>;
}
