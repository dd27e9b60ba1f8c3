//! The store suites: rule store, account store, session store, job queue, delivery log and
//! sent changes.
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
//! One module per port: `accounts` and `rules` (the account and rule stores), `sessions`,
//! `enqueue`, `idempotency`, `claims` and `fairness` (the job queue: storing requests,
//! idempotency keys, working on jobs, sharing the workers among keys and the retention purge),
//! `deliveries` (the delivery log), `sent` (what once-per-change rules told), and `fixtures`,
//! what they share.

#![allow(clippy::unwrap_used)]

mod accounts;
mod claims;
mod deliveries;
mod enqueue;
mod fairness;
mod fixtures;
mod idempotency;
mod rules;
mod sent;
mod sessions;

pub use accounts::{accounts, api_keys, passwords, rules, secret_rotation};
pub use claims::{claims, concurrent_claims, job_counts, release_and_redeliver, updates};
pub use deliveries::{activity, delivery_log};
pub use enqueue::{
    awkward_points, enqueue, paged_enqueue, paged_enqueue_all_or_nothing, points_pages,
    points_past_the_end,
};
pub use fairness::{backlog, fair_claims, purge_finished};
pub use fixtures::drain;
pub use idempotency::{concurrent_idempotent_enqueue, idempotent_enqueue};
pub use rules::{authentication, key_config};
pub use sent::sent_changes;
pub use sessions::{account_sessions, sessions};

use crate::ports::{AccountStore, DeliveryLog, JobQueue, RuleStore, SentChanges, SessionStore};

/// Runs every store suite, one after the other, on `store`.
pub async fn run_all<S>(store: &S)
where
    S: RuleStore + AccountStore + JobQueue + DeliveryLog + SentChanges + SessionStore,
{
    accounts(store).await;
    passwords(store).await;
    sessions(store).await;
    account_sessions(store).await;
    api_keys(store).await;
    secret_rotation(store).await;
    rules(store).await;
    authentication(store).await;
    key_config(store).await;
    enqueue(store).await;
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
    delivery_log(store).await;
    activity(store).await;
    job_counts(store).await;
    fair_claims(store).await;
    backlog(store).await;
    purge_finished(store).await;
    sent_changes(store).await;
}
