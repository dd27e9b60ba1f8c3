//! The store suites: rule store, job queue, delivery log and sent changes, after identity's
//! (account store, key authentication, session store).
//!
//! Every store implementation runs [`run_all`] in its tests, or the single suites when it
//! implements only some of the ports. A suite panics with a message naming the promise of the
//! port that was broken.
//!
//! The suites share one store and may leave data behind: each creates accounts and keys of its
//! own with fresh ids, so data from other suites (or from an earlier run on the same database
//! file) does not disturb them. The job-queue suites first finish every job that is still
//! claimable (see [`drain`]), since claims see the whole queue. Nothing else may use the store
//! while a suite runs.
//!
//! Times are fixed instants passed to the store; nothing reads the system clock. The suites
//! use whole seconds, since stores may keep times to the microsecond only.
//!
//! An adapter's test depends on `alerts-core` with the `conformance` feature, opens a store
//! and awaits `alerts_core::conformance::stores::run_all(&store)`.
//!
//! One module per port: `rules` (the rule store, and secret rotation as it shows there),
//! `enqueue`, `idempotency`, `claims` and `fairness` (the job queue: storing requests,
//! idempotency keys, working on jobs, sharing the workers among keys and the retention purge),
//! `settle` (a delivery attempt and the job's next state in one write, and the notices of
//! arriving jobs, [`arrivals`], which an adapter runs with a timer of its runtime),
//! `deliveries` (the delivery log, test deliveries included), `sent` (what once-per-change
//! rules told), and `fixtures`, what they share.

#![allow(clippy::unwrap_used)]

mod claims;
mod cost;
mod deliveries;
mod enqueue;
mod fairness;
mod fixtures;
mod idempotency;
mod rules;
mod sent;
mod settle;

pub use claims::{claims, concurrent_claims, job_counts, release_and_redeliver, updates};
pub use cost::{JobCost, small_job_cost};
pub use deliveries::{activity, delivery_log, test_deliveries};
pub use enqueue::{
    awkward_points, concurrent_enqueue, enqueue, paged_enqueue, paged_enqueue_all_or_nothing,
    points_pages, points_past_the_end,
};
pub use fairness::{backlog, fair_claims, purge_finished};
pub use fixtures::{claim, drain, enqueue_jobs, one_point_pages, read_points};
pub use idempotency::{concurrent_idempotent_enqueue, idempotent_enqueue};
pub use rules::{key_config, key_config_changes_are_seen_everywhere, rules, secret_rotation};
pub use sent::sent_changes;
pub use settle::{Sleep, arrivals, concurrent_settlements, settlements};

use identity_core::ports::{AccountStore, KeyAuthenticator, SessionStore};

use crate::ports::{DeliveryLog, JobQueue, RuleStore, SentChanges};

/// Runs every store suite, one after the other, on `store`: identity's
/// ([`identity_core::conformance::run_all`]), since the same stores keep accounts and keys,
/// then the alert pipeline's.
pub async fn run_all<S>(store: &S)
where
    S: RuleStore
        + AccountStore
        + KeyAuthenticator
        + JobQueue
        + DeliveryLog
        + SentChanges
        + SessionStore,
{
    identity_core::conformance::run_all(store).await;
    secret_rotation(store).await;
    rules(store).await;
    key_config(store).await;
    enqueue(store).await;
    concurrent_enqueue(store).await;
    points_pages(store).await;
    points_past_the_end(store).await;
    paged_enqueue(store).await;
    paged_enqueue_all_or_nothing(store).await;
    idempotent_enqueue(store).await;
    concurrent_idempotent_enqueue(store).await;
    claims(store).await;
    concurrent_claims(store).await;
    updates(store).await;
    release_and_redeliver(store).await;
    settlements(store).await;
    concurrent_settlements(store).await;
    delivery_log(store).await;
    activity(store).await;
    test_deliveries(store).await;
    job_counts(store).await;
    fair_claims(store).await;
    backlog(store).await;
    purge_finished(store).await;
    sent_changes(store).await;
}
