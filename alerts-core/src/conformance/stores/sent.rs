//! The sent-changes suite: what once-per-change rules told counts once its file is written,
//! is found by key, point id and time, keeps one change per slot, and goes with its request and
//! its rule.

use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use identity_core::ports::AccountStore;

use crate::ids::{RuleId, Token};
use crate::ports::{
    JobOutcome, JobQueue, JobUpdate, Lease, RuleStore, SentChange, SentChanges, StoreError,
};

use super::fixtures::{
    account_with_key, aq_spec, claim, drain, enqueue_one, expect_err, ok, request, rule, secs, t0,
};

fn change(
    rule: RuleId,
    point: &str,
    subject: &str,
    mark: &str,
    until: DateTime<Utc>,
) -> SentChange {
    SentChange {
        rule_id: rule,
        point_id: point.to_owned(),
        subject: subject.to_owned(),
        mark: mark.to_owned(),
        until,
    }
}

async fn sorted<S: SentChanges + ?Sized>(
    store: &S,
    key: KeyId,
    ids: &[&str],
    now: DateTime<Utc>,
) -> Vec<(String, String, String)> {
    let mut found: Vec<(String, String, String)> = ok(
        store.sent_changes(key, ids, now).await,
        "sent_changes reads what was told",
    )
    .into_iter()
    .map(|c| (c.point_id, c.subject, c.mark))
    .collect();
    found.sort();
    found
}

fn told(point: &str, subject: &str, mark: &str) -> (String, String, String) {
    (point.to_owned(), subject.to_owned(), mark.to_owned())
}

/// Stores a request of `key` received at `at` and claims it: the queue must hold nothing else.
async fn claimed<S: JobQueue + ?Sized>(store: &S, key: KeyId, at: DateTime<Utc>) -> (Token, Lease) {
    let r = request(key, 3, at);
    enqueue_one(store, &r).await;
    let jobs = claim(store, t0(), 10, "claim leases the job just stored").await;
    assert_eq!(jobs.len(), 1, "claim leases the one job waiting");
    assert_eq!(jobs[0].token, r.token, "claim leases the job just stored");
    (r.token, jobs[0].lease)
}

async fn written<S: JobQueue + ?Sized>(store: &S, token: Token, lease: &Lease) {
    ok(
        store
            .update(token, lease, JobUpdate::Written { alerts: 2 })
            .await,
        "update records the written file",
    );
}

/// What once-per-change rules told ([`SentChanges`]).
pub async fn sent_changes<S: AccountStore + JobQueue + SentChanges + RuleStore + ?Sized>(
    store: &S,
) {
    drain(store).await;
    // Long before anything other suites store, so that the purge below sees this suite's
    // requests alone.
    let long_ago = t0() - secs(5_000 * 86_400);
    let (_, key, _) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;
    let watched = rule(key.id, aq_spec(6), true, t0());
    let removed = rule(key.id, aq_spec(3), true, t0());
    for r in [&watched, &removed] {
        ok(store.add_rule(r).await, "add_rule stores a rule");
    }
    let until = t0() + secs(3_600);
    let ids = ["point-0", "point-1", "point-2"];

    let (first, lease) = claimed(store, key.id, long_ago).await;
    ok(
        store
            .record_sent(
                first,
                key.id,
                &[
                    change(watched.id, "point-0", "aq", "worse 11:00 Low", until),
                    change(watched.id, "point-1", "grass", "worse 05-02 High", until),
                    change(removed.id, "point-1", "aq", "better 10:00 Good", until),
                ],
            )
            .await,
        "record_sent records the changes a job tells",
    );
    assert!(
        sorted(store, key.id, &ids, t0()).await.is_empty(),
        "a change counts only once its job's file is written"
    );
    written(store, first, &lease).await;
    assert_eq!(
        sorted(store, key.id, &ids, t0()).await,
        vec![
            told("point-0", "aq", "worse 11:00 Low"),
            told("point-1", "aq", "better 10:00 Good"),
            told("point-1", "grass", "worse 05-02 High"),
        ],
        "a change counts once its job's file is written"
    );
    assert_eq!(
        sorted(store, key.id, &["point-0", "point-9"], t0()).await,
        vec![told("point-0", "aq", "worse 11:00 Low")],
        "sent_changes gives the asked point ids alone"
    );
    assert!(
        sorted(store, other_key.id, &ids, t0()).await.is_empty(),
        "sent_changes gives the asked key's changes alone"
    );
    assert!(
        sorted(store, key.id, &ids, until).await.is_empty(),
        "a change whose `until` has come has passed"
    );
    assert!(
        sorted(store, key.id, &[], t0()).await.is_empty(),
        "no point ids, no changes"
    );

    ok(
        store.delete_rule(key.id, removed.id).await,
        "delete_rule deletes a rule",
    );
    assert!(
        !sorted(store, key.id, &ids, t0()).await.contains(&told(
            "point-1",
            "aq",
            "better 10:00 Good"
        )),
        "a deleted rule's changes go with it"
    );

    // A later job replaces the slot: until its file is written, the slot tells nothing.
    ok(
        store
            .update(
                first,
                &lease,
                JobUpdate::Finish {
                    outcome: JobOutcome::Delivered,
                    attempts: 1,
                },
            )
            .await,
        "update finishes a delivered job",
    );
    let (second, lease) = claimed(store, key.id, long_ago + secs(1)).await;
    ok(
        store
            .record_sent(
                second,
                key.id,
                &[
                    change(watched.id, "point-0", "aq", "worse 11:00 Poor", until),
                    change(watched.id, "point-0", "aq", "worse 12:00 Poor", until),
                    change(removed.id, "point-2", "aq", "worse 12:00 Poor", until),
                ],
            )
            .await,
        "record_sent drops the changes of a deleted rule",
    );
    assert_eq!(
        sorted(store, key.id, &ids, t0()).await,
        vec![told("point-1", "grass", "worse 05-02 High")],
        "a slot recorded by a job whose file is not written tells nothing"
    );
    written(store, second, &lease).await;
    assert_eq!(
        sorted(store, key.id, &ids, t0()).await,
        vec![
            told("point-0", "aq", "worse 12:00 Poor"),
            told("point-1", "grass", "worse 05-02 High"),
        ],
        "a slot keeps the change recorded last"
    );

    expect_err(
        store
            .record_sent(
                Token(uuid::Uuid::new_v4()),
                key.id,
                &[change(watched.id, "point-0", "aq", "x", until)],
            )
            .await,
        &StoreError::NotFound,
        "record_sent for a token no request has",
    );

    ok(
        store
            .update(
                second,
                &lease,
                JobUpdate::Finish {
                    outcome: JobOutcome::Delivered,
                    attempts: 1,
                },
            )
            .await,
        "update finishes a delivered job",
    );
    let purged = ok(
        store.purge_finished(long_ago + secs(60), 10).await,
        "purge_finished deletes finished requests",
    );
    assert!(
        purged.contains(&first) && purged.contains(&second),
        "purge_finished deletes this suite's finished requests: {purged:?}"
    );
    assert!(
        sorted(store, key.id, &ids, t0()).await.is_empty(),
        "told changes go with their request when retention purges it"
    );
}
