//! The store suites: rule store, account store, session store, job queue and delivery log.
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

#![allow(clippy::unwrap_used)]

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex};
use std::task::Poll;
use std::time::Duration;

use aq_core::Position;
use chrono::{DateTime, TimeZone, Utc};
use uuid::Uuid;

use crate::idempotency::{Enqueued, Fingerprint, Idempotency, IdempotencyKey};
use crate::ids::{AccountId, KeyId, RuleId, Token};
use crate::keys::{ApiKey, WebhookSecret};
use crate::ports::{
    Account, AccountStore, AlertJob, ApiKeyInfo, DeliveryAttempt, DeliveryErrorKind, DeliveryLog,
    JobOutcome, JobQueue, JobStage, JobUpdate, NewAlertRequest, NewApiKey, PointPages, RuleStore,
    Session, SessionStore, StoreError, UNFINISHED_JOB,
};
use crate::randomness::SeededRandomness;
use crate::request::AlertPoint;
use crate::rule::{AlertRule, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};

/// Runs every store suite, one after the other, on `store`.
pub async fn run_all<S>(store: &S)
where
    S: RuleStore + AccountStore + JobQueue + DeliveryLog + SessionStore,
{
    accounts(store).await;
    sessions(store).await;
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
    job_counts(store).await;
}

// ---------------------------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------------------------

/// The suites' "now": every time is an offset from it.
fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

fn secs(n: i64) -> chrono::Duration {
    chrono::Duration::seconds(n)
}

/// A time after every time the suites use: claiming at it reaches every unfinished job.
fn end_of_suites() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2200, 1, 1, 0, 0, 0).unwrap()
}

/// Secrets seeded afresh in every run, so that keys never collide with those of earlier runs
/// kept in the store.
fn secrets() -> &'static SeededRandomness {
    static RNG: LazyLock<SeededRandomness> =
        LazyLock::new(|| SeededRandomness::new(Uuid::new_v4().as_u64_pair().0));
    &RNG
}

fn ok<T>(result: Result<T, StoreError>, promise: &str) -> T {
    result.unwrap_or_else(|e| panic!("{promise}: the store failed with `{e}` ({e:?})"))
}

fn expect_err<T: std::fmt::Debug>(result: Result<T, StoreError>, want: &StoreError, promise: &str) {
    match result {
        Err(e) if std::mem::discriminant(&e) == std::mem::discriminant(want) => {}
        other => panic!("{promise}: expected {want:?}, got {other:?}"),
    }
}

async fn new_account<S: AccountStore + ?Sized>(store: &S) -> Account {
    let id = Uuid::new_v4();
    let account = Account {
        id: AccountId(id),
        email: format!("dev-{}@example.com", id.simple()),
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo".to_owned(),
        created_at: t0(),
    };
    ok(
        store.create_account(&account).await,
        "create_account stores a new account",
    );
    account
}

async fn new_key<S: AccountStore + ?Sized>(
    store: &S,
    account: AccountId,
    created_at: DateTime<Utc>,
) -> (NewApiKey, ApiKey) {
    let key = ApiKey::generate(secrets());
    let new = NewApiKey {
        id: KeyId(Uuid::new_v4()),
        account_id: account,
        label: "production".to_owned(),
        prefix: key.prefix().to_owned(),
        hash: key.hash(),
        secret: WebhookSecret::generate(secrets()),
        created_at,
    };
    ok(store.create_key(&new).await, "create_key stores a new key");
    (new, key)
}

/// A fresh account with one key: what most suites start from.
async fn account_with_key<S: AccountStore + ?Sized>(store: &S) -> (Account, NewApiKey, ApiKey) {
    let account = new_account(store).await;
    let (key, api_key) = new_key(store, account.id, t0()).await;
    (account, key, api_key)
}

fn aq_spec(hours: u8) -> RuleSpec {
    RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(hours),
        Sensitivity::Medium,
        MessageSpec::Default,
    )
    .unwrap()
}

fn pollen_custom_spec() -> RuleSpec {
    RuleSpec::new(
        DataType::Pollen,
        Forecast::Days(2),
        Sensitivity::High,
        MessageSpec::Custom {
            deterioration: "In {days} days {kind} pollen: {category}. «ñ»".to_owned(),
            improvement: "{kind} pollen gets better".to_owned(),
        },
    )
    .unwrap()
}

fn rule(key: KeyId, spec: RuleSpec, enabled: bool, created_at: DateTime<Utc>) -> AlertRule {
    AlertRule {
        id: RuleId(Uuid::new_v4()),
        key_id: key,
        spec,
        enabled,
        created_at,
    }
}

/// `n` points with coordinates that survive any JSON round trip exactly.
fn points(n: usize) -> Vec<AlertPoint> {
    (0..n)
        .map(|i| AlertPoint {
            position: Position::new(13.25 + i as f64 * 0.5, 52.5 - i as f64 * 0.25).unwrap(),
            id: format!("point-{i}"),
            custom_data: if i % 2 == 0 {
                "{}".to_owned()
            } else {
                r#"{"user":17,"name":"Zoë"}"#.to_owned()
            },
        })
        .collect()
}

fn request(key: KeyId, n_points: usize, received_at: DateTime<Utc>) -> NewAlertRequest {
    NewAlertRequest {
        token: Token(Uuid::new_v4()),
        key_id: key,
        points: points(n_points),
        received_at,
    }
}

/// Every point of a request, read `page` at a time as a worker reads them, checking that no
/// page is longer than asked.
async fn read_points<S: JobQueue + ?Sized>(
    store: &S,
    token: Token,
    page: usize,
) -> Result<Vec<AlertPoint>, StoreError> {
    let mut all = Vec::new();
    loop {
        let got = store.points_page(token, all.len() as u64, page).await?;
        assert!(
            got.len() <= page,
            "points_page returns at most `limit` points (asked {page}, got {})",
            got.len()
        );
        let last = got.len() < page;
        all.extend(got);
        if last {
            return Ok(all);
        }
    }
}

async fn enqueue_one<S: JobQueue + ?Sized>(store: &S, request: &NewAlertRequest) {
    ok(
        store.enqueue(request).await,
        "enqueue stores a new request and its job",
    );
}

const LEASE: Duration = Duration::from_secs(300);

fn lease_span() -> chrono::Duration {
    chrono::Duration::from_std(LEASE).unwrap()
}

async fn claim<S: JobQueue + ?Sized>(
    store: &S,
    now: DateTime<Utc>,
    max: usize,
    promise: &str,
) -> Vec<AlertJob> {
    ok(store.claim(now, LEASE, max, &Uuid::new_v4).await, promise)
}

fn tokens(jobs: &[AlertJob]) -> Vec<Token> {
    jobs.iter().map(|j| j.token).collect()
}

/// Finishes every job that is claimable at any time the suites use, so that a queue suite
/// sees only its own jobs. Suites call it first; an adapter's own tests may too.
pub async fn drain<S: JobQueue + ?Sized>(store: &S) {
    loop {
        let jobs = ok(
            store
                .claim(end_of_suites(), LEASE, 500, &Uuid::new_v4)
                .await,
            "claim leases due jobs (draining the queue before a suite)",
        );
        if jobs.is_empty() {
            return;
        }
        for job in jobs {
            ok(
                store
                    .update(
                        job.token,
                        &job.lease,
                        JobUpdate::Finish {
                            outcome: JobOutcome::Cancelled,
                            attempts: job.attempts,
                        },
                    )
                    .await,
                "update with the lease just taken finishes the job (draining the queue)",
            );
        }
    }
}

async fn summary_of<S: DeliveryLog + ?Sized>(
    store: &S,
    key: KeyId,
    token: Token,
) -> crate::ports::RequestSummary {
    let list = ok(
        store.list_requests(key, 1000).await,
        "list_requests lists a key's requests",
    );
    list.into_iter()
        .find(|s| s.token == token)
        .unwrap_or_else(|| panic!("list_requests lists every request of the key ({token})"))
}

/// Polls every future until all are done, so that they run concurrently without a runtime.
async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *output = Some(value),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().map(Option::unwrap).collect()
}

// ---------------------------------------------------------------------------------------------
// Accounts and keys.
// ---------------------------------------------------------------------------------------------

/// Accounts: stored and found by id and by email; an email is taken only once.
pub async fn accounts<S: AccountStore + ?Sized>(store: &S) {
    // Other suites may have filled the store already: only the "some" side is checkable here.
    new_account(store).await;
    assert!(
        ok(store.has_accounts().await, "has_accounts answers"),
        "has_accounts is true once an account exists"
    );
    let account = new_account(store).await;
    assert_eq!(
        ok(store.account(account.id).await, "account finds an account"),
        Some(account.clone()),
        "account returns the account as it was created"
    );
    assert_eq!(
        ok(
            store.account_by_email(&account.email).await,
            "account_by_email finds an account"
        ),
        Some(account.clone()),
        "account_by_email returns the account with that email"
    );
    let twin = Account {
        id: AccountId(Uuid::new_v4()),
        ..account.clone()
    };
    expect_err(
        store.create_account(&twin).await,
        &StoreError::Conflict(String::new()),
        "create_account refuses an email that is taken with Conflict",
    );
    assert_eq!(
        ok(
            store.account(twin.id).await,
            "account answers for unknown ids"
        ),
        None,
        "a refused account is not stored"
    );
    assert_eq!(
        ok(
            store.account_by_email("nobody-at-all@example.com").await,
            "account_by_email answers for unknown emails"
        ),
        None,
        "account_by_email returns None for an unknown email"
    );
}

/// API keys: listed newest first with what the dashboard shows; label, webhook URL and
/// revocation; a hash is stored only once; unknown keys are `NotFound`.
pub async fn api_keys<S: AccountStore + ?Sized>(store: &S) {
    let account = new_account(store).await;
    let other = new_account(store).await;
    let (k1, _) = new_key(store, account.id, t0()).await;
    let (k2, _) = new_key(store, account.id, t0() + secs(60)).await;
    let (k3, _) = new_key(store, other.id, t0() + secs(30)).await;

    let info = |k: &NewApiKey| ApiKeyInfo {
        id: k.id,
        account_id: k.account_id,
        label: k.label.clone(),
        prefix: k.prefix.clone(),
        created_at: k.created_at,
        last_used_at: None,
        revoked_at: None,
        webhook_url: None,
        secret: k.secret.clone(),
    };
    assert_eq!(
        ok(store.list_keys(account.id).await, "list_keys lists keys"),
        vec![info(&k2), info(&k1)],
        "list_keys lists the account's keys only, newest first, as created"
    );
    assert_eq!(
        ok(store.key_info(k3.id).await, "key_info finds a key"),
        Some(info(&k3)),
        "key_info returns the key as it was created"
    );
    assert_eq!(
        ok(
            store.key_info(KeyId(Uuid::new_v4())).await,
            "key_info answers for unknown keys"
        ),
        None,
        "key_info returns None for an unknown key"
    );

    let same_hash = NewApiKey {
        id: KeyId(Uuid::new_v4()),
        ..k1.clone()
    };
    expect_err(
        store.create_key(&same_hash).await,
        &StoreError::Conflict(String::new()),
        "create_key refuses a hash that exists with Conflict",
    );
    assert_eq!(
        ok(store.list_keys(account.id).await, "list_keys lists keys").len(),
        2,
        "a refused key is not stored"
    );

    ok(
        store.set_key_label(k1.id, "staging (old)").await,
        "set_key_label renames a key",
    );
    ok(
        store
            .set_webhook_url(k1.id, Some("https://hooks.example.com/insights?x=1"))
            .await,
        "set_webhook_url sets a URL",
    );
    let got = ok(store.key_info(k1.id).await, "key_info finds a key").unwrap();
    assert_eq!(
        got.label, "staging (old)",
        "set_key_label changes the label"
    );
    assert_eq!(
        got.webhook_url.as_deref(),
        Some("https://hooks.example.com/insights?x=1"),
        "set_webhook_url stores the URL"
    );
    ok(
        store.set_webhook_url(k1.id, None).await,
        "set_webhook_url clears a URL",
    );
    assert_eq!(
        ok(store.key_info(k1.id).await, "key_info finds a key")
            .unwrap()
            .webhook_url,
        None,
        "set_webhook_url(None) clears the URL"
    );

    ok(
        store.revoke_key(k2.id, t0() + secs(120)).await,
        "revoke_key revokes",
    );
    ok(
        store.revoke_key(k2.id, t0() + secs(999)).await,
        "revoke_key on a revoked key succeeds",
    );
    let revoked = ok(store.key_info(k2.id).await, "key_info finds a key").unwrap();
    assert_eq!(
        revoked.revoked_at,
        Some(t0() + secs(120)),
        "revoking twice keeps the first time"
    );
    assert_eq!(
        ok(store.list_keys(account.id).await, "list_keys lists keys").len(),
        2,
        "list_keys includes revoked keys"
    );
    let other_untouched = ok(store.key_info(k3.id).await, "key_info finds a key").unwrap();
    assert_eq!(
        other_untouched,
        info(&k3),
        "changing one key leaves other keys alone"
    );

    let unknown = KeyId(Uuid::new_v4());
    expect_err(
        store.set_key_label(unknown, "x").await,
        &StoreError::NotFound,
        "set_key_label on an unknown key is NotFound",
    );
    expect_err(
        store
            .set_webhook_url(unknown, Some("https://example.com"))
            .await,
        &StoreError::NotFound,
        "set_webhook_url on an unknown key is NotFound",
    );
    expect_err(
        store.revoke_key(unknown, t0()).await,
        &StoreError::NotFound,
        "revoke_key on an unknown key is NotFound",
    );
}

/// Secret rotation: the new secret is current; the previous one keeps signing until its grace
/// period ends, then drops out of the key's configuration.
pub async fn secret_rotation<S: AccountStore + RuleStore + ?Sized>(store: &S) {
    let (_, key, _) = account_with_key(store).await;
    let s1 = key.secret.clone();
    let s2 = WebhookSecret::generate(secrets());
    let s3 = WebhookSecret::generate(secrets());

    ok(
        store.rotate_secret(key.id, &s2, t0() + secs(86_400)).await,
        "rotate_secret rotates",
    );
    assert_eq!(
        ok(store.key_info(key.id).await, "key_info finds a key")
            .unwrap()
            .secret,
        s2,
        "after rotate_secret, key_info shows the new secret"
    );
    let config = ok(
        store.key_config(key.id, t0() + secs(3_600)).await,
        "key_config reads a key",
    )
    .unwrap();
    let pairs: Vec<(WebhookSecret, Option<DateTime<Utc>>)> = config
        .secrets
        .iter()
        .map(|s| (s.secret.clone(), s.valid_until))
        .collect();
    assert_eq!(
        pairs,
        vec![(s2.clone(), None), (s1.clone(), Some(t0() + secs(86_400)))],
        "key_config lists the current secret first, then the previous one in its grace period"
    );

    ok(
        store
            .rotate_secret(key.id, &s3, t0() + secs(2 * 86_400))
            .await,
        "rotate_secret rotates again",
    );
    let config = ok(
        store.key_config(key.id, t0() + secs(3_600)).await,
        "key_config reads a key",
    )
    .unwrap();
    assert_eq!(
        config.secrets.first().map(|s| (&s.secret, s.valid_until)),
        Some((&s3, None)),
        "the newest secret is current and first"
    );
    let previous: HashSet<(String, Option<DateTime<Utc>>)> = config.secrets[1..]
        .iter()
        .map(|s| (s.secret.expose().to_owned(), s.valid_until))
        .collect();
    let expected: HashSet<(String, Option<DateTime<Utc>>)> = [
        (s2.expose().to_owned(), Some(t0() + secs(2 * 86_400))),
        (s1.expose().to_owned(), Some(t0() + secs(86_400))),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        previous, expected,
        "every previous secret in its grace period keeps signing"
    );

    let later = ok(
        store.key_config(key.id, t0() + secs(86_400 + 60)).await,
        "key_config reads a key",
    )
    .unwrap();
    assert_eq!(
        later
            .secrets
            .iter()
            .map(|s| s.secret.clone())
            .collect::<Vec<_>>(),
        vec![s3.clone(), s2.clone()],
        "key_config leaves out a previous secret whose grace period has ended"
    );
    let much_later = ok(
        store.key_config(key.id, t0() + secs(30 * 86_400)).await,
        "key_config reads a key",
    )
    .unwrap();
    assert_eq!(
        much_later.secrets.len(),
        1,
        "after every grace period only the current secret is left"
    );
    assert_eq!(
        much_later.secrets[0].secret, s3,
        "the current secret never expires"
    );

    expect_err(
        store.rotate_secret(KeyId(Uuid::new_v4()), &s3, t0()).await,
        &StoreError::NotFound,
        "rotate_secret on an unknown key is NotFound",
    );
}

/// Rules: listed oldest first, disabled ones included; updates and deletes are scoped by key.
pub async fn rules<S: AccountStore + ?Sized>(store: &S) {
    let (account, k1, _) = account_with_key(store).await;
    let (k2, _) = new_key(store, account.id, t0()).await;
    let r1 = rule(k1.id, aq_spec(6), true, t0());
    let r2 = rule(k1.id, pollen_custom_spec(), false, t0() + secs(60));
    let r3 = rule(k1.id, aq_spec(24), true, t0() + secs(120));
    let r4 = rule(k2.id, aq_spec(1), true, t0() + secs(30));
    // Added out of order: the list is ordered by creation time, not by insertion.
    for r in [&r3, &r1, &r4, &r2] {
        ok(store.add_rule(r).await, "add_rule stores a rule");
    }
    assert_eq!(
        ok(store.list_rules(k1.id).await, "list_rules lists rules"),
        vec![r1.clone(), r2.clone(), r3.clone()],
        "list_rules lists the key's rules only, disabled ones included, oldest first, as stored"
    );

    let r2_changed = AlertRule {
        spec: aq_spec(48),
        enabled: true,
        ..r2.clone()
    };
    ok(
        store.update_rule(&r2_changed).await,
        "update_rule changes a rule",
    );
    assert_eq!(
        ok(store.list_rules(k1.id).await, "list_rules lists rules"),
        vec![r1.clone(), r2_changed.clone(), r3.clone()],
        "update_rule replaces the spec and the enabled flag"
    );

    let r1_hijacked = AlertRule {
        key_id: k2.id,
        enabled: false,
        ..r1.clone()
    };
    expect_err(
        store.update_rule(&r1_hijacked).await,
        &StoreError::NotFound,
        "update_rule of a rule under another key is NotFound",
    );
    expect_err(
        store.delete_rule(k2.id, r1.id).await,
        &StoreError::NotFound,
        "delete_rule of a rule under another key is NotFound",
    );
    assert_eq!(
        ok(store.list_rules(k1.id).await, "list_rules lists rules")[0],
        r1,
        "another key cannot change or delete a rule"
    );

    ok(store.delete_rule(k1.id, r1.id).await, "delete_rule deletes");
    assert_eq!(
        ok(store.list_rules(k1.id).await, "list_rules lists rules"),
        vec![r2_changed, r3],
        "a deleted rule is gone"
    );
    expect_err(
        store.delete_rule(k1.id, r1.id).await,
        &StoreError::NotFound,
        "delete_rule of a deleted rule is NotFound",
    );
    expect_err(
        store
            .update_rule(&rule(k1.id, aq_spec(6), true, t0()))
            .await,
        &StoreError::NotFound,
        "update_rule of an unknown rule is NotFound",
    );
    assert_eq!(
        ok(store.list_rules(k2.id).await, "list_rules lists rules"),
        vec![r4],
        "another key's rules are untouched"
    );
}

/// Authentication: by key hash, refusing revoked keys, recording the last use.
pub async fn authentication<S: AccountStore + RuleStore + ?Sized>(store: &S) {
    let (_, key, api_key) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;

    assert_eq!(
        ok(
            store.authenticate(&api_key.hash(), t0() + secs(10)).await,
            "authenticate looks a key up"
        ),
        Some(key.id),
        "authenticate finds a key by its hash"
    );
    assert_eq!(
        ok(store.key_info(key.id).await, "key_info finds a key")
            .unwrap()
            .last_used_at,
        Some(t0() + secs(10)),
        "authenticate records its time as the key's last use"
    );
    ok(
        store.authenticate(&api_key.hash(), t0() + secs(20)).await,
        "authenticate looks a key up",
    );
    assert_eq!(
        ok(store.key_info(key.id).await, "key_info finds a key")
            .unwrap()
            .last_used_at,
        Some(t0() + secs(10)),
        "a use within LAST_USE_RESOLUTION of the recorded one need not be written"
    );
    ok(
        store.authenticate(&api_key.hash(), t0() + secs(80)).await,
        "authenticate looks a key up",
    );
    assert_eq!(
        ok(store.key_info(key.id).await, "key_info finds a key")
            .unwrap()
            .last_used_at,
        Some(t0() + secs(80)),
        "a use LAST_USE_RESOLUTION after the recorded one is recorded"
    );
    assert_eq!(
        ok(store.key_info(other_key.id).await, "key_info finds a key")
            .unwrap()
            .last_used_at,
        None,
        "authenticating one key records nothing on another"
    );

    let stranger = ApiKey::generate(secrets());
    assert_eq!(
        ok(
            store.authenticate(&stranger.hash(), t0()).await,
            "authenticate answers for unknown keys"
        ),
        None,
        "authenticate refuses an unknown key"
    );

    ok(
        store.revoke_key(key.id, t0() + secs(100)).await,
        "revoke_key revokes",
    );
    assert_eq!(
        ok(
            store.authenticate(&api_key.hash(), t0() + secs(200)).await,
            "authenticate answers for revoked keys"
        ),
        None,
        "authenticate refuses a revoked key"
    );
    assert_eq!(
        ok(store.key_info(key.id).await, "key_info finds a key")
            .unwrap()
            .last_used_at,
        Some(t0() + secs(80)),
        "a refused authentication is not a use"
    );
}

/// The pipeline's view of a key: prefix, webhook URL and enabled rules oldest first; nothing
/// for revoked or unknown keys.
pub async fn key_config<S: AccountStore + RuleStore + ?Sized>(store: &S) {
    let (account, key, _) = account_with_key(store).await;
    let (other, _) = new_key(store, account.id, t0()).await;
    ok(
        store
            .set_webhook_url(key.id, Some("https://receiver.example.com/hook"))
            .await,
        "set_webhook_url sets a URL",
    );
    let late = rule(key.id, aq_spec(3), true, t0() + secs(300));
    let off = rule(key.id, aq_spec(6), false, t0() + secs(100));
    let early = rule(key.id, pollen_custom_spec(), true, t0() + secs(50));
    let foreign = rule(other.id, aq_spec(12), true, t0());
    for r in [&late, &off, &early, &foreign] {
        ok(store.add_rule(r).await, "add_rule stores a rule");
    }

    let config = ok(
        store.key_config(key.id, t0()).await,
        "key_config reads a key",
    )
    .unwrap_or_else(|| panic!("key_config returns the configuration of a live key"));
    assert_eq!(config.key_id, key.id, "key_config names the key");
    assert_eq!(
        config.prefix, key.prefix,
        "key_config carries the key's prefix"
    );
    assert_eq!(
        config.webhook_url.as_deref(),
        Some("https://receiver.example.com/hook"),
        "key_config carries the webhook URL"
    );
    assert_eq!(
        config.secrets.len(),
        1,
        "a key never rotated has one secret"
    );
    assert_eq!(
        config.secrets[0].secret, key.secret,
        "the first secret is current"
    );
    assert_eq!(
        config.secrets[0].valid_until, None,
        "the current secret has no end"
    );
    assert_eq!(
        config.rules,
        vec![early, late],
        "key_config lists the key's enabled rules only, oldest first"
    );

    ok(
        store.revoke_key(key.id, t0() + secs(1)).await,
        "revoke_key revokes",
    );
    assert_eq!(
        ok(
            store.key_config(key.id, t0() + secs(2)).await,
            "key_config reads a key"
        ),
        None,
        "key_config returns None for a revoked key"
    );
    assert_eq!(
        ok(
            store.key_config(KeyId(Uuid::new_v4()), t0()).await,
            "key_config answers for unknown keys"
        ),
        None,
        "key_config returns None for an unknown key"
    );
}

// ---------------------------------------------------------------------------------------------
// The job queue.
// ---------------------------------------------------------------------------------------------

/// Enqueueing: the request and its job are stored together; a token is stored only once.
pub async fn enqueue<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let req = request(key.id, 3, t0());
    enqueue_one(store, &req).await;

    assert_eq!(
        ok(
            read_points(store, req.token, 1000).await,
            "points_page reads a request's points"
        ),
        req.points,
        "points_page returns the request's points exactly as posted"
    );
    let summary = summary_of(store, key.id, req.token).await;
    assert_eq!(
        (summary.received_at, summary.points, summary.alerts),
        (t0(), 3, None),
        "a new request is listed with its time and point count, and no file yet"
    );
    assert_eq!(
        (summary.stage, summary.outcome, summary.attempts),
        (JobStage::Evaluate, None, 0),
        "a new job waits for evaluation with no attempts"
    );

    let twin = NewAlertRequest {
        points: points(1),
        received_at: t0() + secs(5),
        ..req.clone()
    };
    expect_err(
        store.enqueue(&twin).await,
        &StoreError::Conflict(String::new()),
        "enqueue refuses a token stored already with Conflict",
    );
    assert_eq!(
        ok(
            read_points(store, req.token, 1000).await,
            "points_page reads a request's points"
        ),
        req.points,
        "a refused enqueue leaves the first request's points unchanged"
    );

    let calls = AtomicUsize::new(0);
    let lease_ids = || {
        calls.fetch_add(1, Ordering::SeqCst);
        Uuid::new_v4()
    };
    let jobs = ok(
        store.claim(t0() + secs(30), LEASE, 10, &lease_ids).await,
        "claim leases due jobs",
    );
    assert_eq!(
        tokens(&jobs),
        vec![req.token],
        "a refused enqueue adds no second job: the request has exactly one"
    );
    let job = &jobs[0];
    assert_eq!(job.key_id, key.id, "a claimed job carries its key");
    assert_eq!(
        job.stage,
        JobStage::Evaluate,
        "a new job starts with evaluation"
    );
    assert_eq!(job.attempts, 0, "a new job has no attempts");
    assert_eq!(
        job.received_at,
        t0(),
        "a claimed job carries its request's time"
    );
    assert_eq!(
        job.lease.until,
        t0() + secs(30) + lease_span(),
        "a lease lasts from now for lease_for"
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "claim calls lease_ids once per claimed job"
    );

    expect_err(
        store.points_page(Token(Uuid::new_v4()), 0, 10).await,
        &StoreError::NotFound,
        "points_page of an unknown token is NotFound",
    );
    drain(store).await;
}

/// `n` points whose ids and `custom_data` carry what a store must not change: escapes,
/// spacing, key order, number spellings, characters outside ASCII. `tag` sets the requests
/// apart. Stores' own tests use them too, for what the suites cannot reach (migrations).
pub fn awkward_points(tag: &str, n: usize) -> Vec<AlertPoint> {
    (0..n)
        .map(|i| AlertPoint {
            position: Position::new(
                -179.5 + (i % 719) as f64 * 0.5,
                89.75 - (i % 719) as f64 * 0.25,
            )
            .unwrap(),
            id: format!("{tag}-{i}-\u{e9}\"q\""),
            custom_data: match i % 4 {
                0 => "{}".to_owned(),
                1 => format!(
                    r#"{{ "z" : {i}, "a":[1, 2.50,3e+2] ,"s":"tab\t\u00e9 \ud83d\ude00" }}"#
                ),
                2 => format!("{{\n  \"seq\": {i},\n  \"name\": \"Zo\u{eb} \u{1f600}\"\n}}"),
                _ => format!(r#"{{"big":123456789012345678901234567890,"neg":-0.0,"i":{i}}}"#),
            },
        })
        .collect()
}

/// Paging a request's points: in posting order, each point exactly as posted, no page longer
/// than asked, a short page at the end, and no point of another request; for requests
/// stored by either enqueue, longer than any batch a store writes at once.
pub async fn points_pages<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    const N: usize = 1_234;
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let plain = NewAlertRequest {
        points: awkward_points("plain", N),
        ..request(key.id, 0, t0())
    };
    enqueue_one(store, &plain).await;
    let keyed = NewAlertRequest {
        points: awkward_points("keyed", N),
        ..request(key.id, 0, t0() + secs(1))
    };
    assert_eq!(
        ok(
            store
                .enqueue_idempotent(&keyed, &idempotency("pages-1", &keyed))
                .await,
            "enqueue_idempotent stores a request of many points",
        ),
        Enqueued::Stored,
        "a new idempotency key stores the request"
    );
    assert_eq!(
        summary_of(store, key.id, plain.token).await.points,
        N as u64,
        "a request of many points is listed with its point count"
    );

    for req in [&plain, &keyed] {
        for page in [1, 7, 500, 5_000] {
            let (mut from, mut reads) = (0, 0);
            loop {
                let got = ok(
                    store.points_page(req.token, from as u64, page).await,
                    "points_page reads a page of a stored request",
                );
                reads += 1;
                let want = &req.points[from.min(N)..(from + page).min(N)];
                assert_eq!(
                    got.len(),
                    want.len(),
                    "points_page({from}, {page}) of {N} points returns min(limit, points left)"
                );
                for (i, (got, want)) in got.iter().zip(want).enumerate() {
                    assert_eq!(
                        got,
                        want,
                        "point {} (page size {page}) comes back as posted, in posting order",
                        from + i
                    );
                    assert_eq!(
                        got.custom_data.as_bytes(),
                        want.custom_data.as_bytes(),
                        "custom_data of point {} comes back byte for byte",
                        from + i
                    );
                }
                from += got.len();
                if got.len() < page {
                    break;
                }
            }
            assert_eq!(
                (from, reads),
                (N, N / page + 1),
                "pages of {page} reach the end of {N} points, told by the first short page"
            );
        }
        assert_eq!(
            ok(
                read_points(store, req.token, 7).await,
                "points_page reads every page"
            ),
            req.points,
            "the pages of a request, joined, are its points"
        );
    }
    let mid = ok(
        store.points_page(keyed.token, 1_000, 100).await,
        "points_page from the middle of a request",
    );
    assert_eq!(
        mid,
        keyed.points[1_000..1_100],
        "a page may start anywhere: from is an index into the posted points"
    );
    drain(store).await;
}

/// Reading past the end: an empty page for a stored request, NotFound for an unknown token.
pub async fn points_past_the_end<S: AccountStore + JobQueue + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let req = request(key.id, 3, t0());
    enqueue_one(store, &req).await;
    assert_eq!(
        ok(
            store.points_page(req.token, 2, 10).await,
            "points_page of the last point"
        ),
        req.points[2..],
        "a page starting at the last point holds that point alone"
    );
    for from in [
        3,
        4,
        5_000,
        u64::from(u32::MAX) + 1,
        i64::MAX as u64,
        u64::MAX,
    ] {
        assert_eq!(
            ok(
                store.points_page(req.token, from, 10).await,
                "points_page past the end of a stored request",
            ),
            Vec::<AlertPoint>::new(),
            "a page from {from}, at or past the end of 3 points, is empty"
        );
    }
    assert_eq!(
        ok(
            store.points_page(req.token, 0, 0).await,
            "points_page with limit 0",
        ),
        Vec::<AlertPoint>::new(),
        "a page of limit 0 is empty"
    );
    let unknown = Token(Uuid::new_v4());
    for (from, limit) in [(0, 10), (3, 10), (u64::MAX, 10), (0, 0)] {
        expect_err(
            store.points_page(unknown, from, limit).await,
            &StoreError::NotFound,
            "points_page of an unknown token is NotFound, wherever the page starts",
        );
    }
    drain(store).await;
}

/// Pages handed out as scripted: points of the given sizes, then maybe an error, announcing
/// `total` points whatever they hold.
#[derive(Clone)]
struct ScriptedPages {
    pages: std::collections::VecDeque<Result<Vec<AlertPoint>, StoreError>>,
    total: u64,
    /// Pages asked for so far, the empty end included.
    asked: usize,
}

impl ScriptedPages {
    /// `points` in pages of the given sizes (the last page takes what is left), announced as
    /// exactly that many.
    fn new(points: &[AlertPoint], sizes: &[usize]) -> Self {
        let mut pages = std::collections::VecDeque::new();
        let mut rest = points;
        for &size in sizes {
            let (page, tail) = rest.split_at(size.min(rest.len()));
            pages.push_back(Ok(page.to_vec()));
            rest = tail;
        }
        if !rest.is_empty() {
            pages.push_back(Ok(rest.to_vec()));
        }
        Self {
            pages,
            total: points.len() as u64,
            asked: 0,
        }
    }

    /// Fails with `error` once the pages before it are handed out.
    fn then_fail(mut self, error: StoreError) -> Self {
        self.pages.push_back(Err(error));
        self
    }
}

#[async_trait::async_trait]
impl PointPages for ScriptedPages {
    fn total(&self) -> u64 {
        self.total
    }

    async fn next_page(&mut self) -> Result<Vec<AlertPoint>, StoreError> {
        self.asked += 1;
        self.pages.pop_front().unwrap_or(Ok(Vec::new()))
    }
}

/// Storing a request from pages: pages of any size (one point, uneven, larger than a store's
/// batch) join into the request's points in order, byte for byte, with or without an
/// idempotency key; an existing key stores nothing.
pub async fn paged_enqueue<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let all = awkward_points("paged", 2_345);
    for (i, sizes) in [&[1, 1, 1][..], &[3, 997, 1, 1_200], &[2_345], &[5, 0, 7]]
        .into_iter()
        .enumerate()
    {
        let req = NewAlertRequest {
            points: all.clone(),
            ..request(key.id, 0, t0() + secs(i as i64))
        };
        let mut pages = ScriptedPages::new(&req.points, sizes);
        // An empty page ends the request, so a script with one inside stores what is before.
        let before_empty = sizes.iter().position(|&n| n == 0);
        if let Some(at) = before_empty {
            let stored: usize = sizes[..at].iter().sum();
            pages.total = stored as u64;
            assert_eq!(
                ok(
                    store.enqueue_pages(&req.job(), &mut pages, None).await,
                    "enqueue_pages stores the points before the first empty page",
                ),
                Enqueued::Stored,
                "a request without an idempotency key is stored"
            );
            assert_eq!(
                ok(read_points(store, req.token, 500).await, "points_page"),
                req.points[..stored],
                "an empty page ends the request's points"
            );
            continue;
        }
        assert_eq!(
            ok(
                store.enqueue_pages(&req.job(), &mut pages, None).await,
                "enqueue_pages stores a request read page by page",
            ),
            Enqueued::Stored,
            "a request without an idempotency key is stored"
        );
        assert!(
            pages.asked > sizes.len(),
            "enqueue_pages reads pages until the empty one ({} asked for {} pages)",
            pages.asked,
            sizes.len()
        );
        let got = ok(read_points(store, req.token, 500).await, "points_page");
        assert_eq!(
            got.len(),
            all.len(),
            "pages of sizes {sizes:?} store every point"
        );
        for (n, (got, want)) in got.iter().zip(&all).enumerate() {
            assert_eq!(
                got, want,
                "point {n} of pages {sizes:?} is stored as posted"
            );
            assert_eq!(
                got.custom_data.as_bytes(),
                want.custom_data.as_bytes(),
                "custom_data of point {n} (pages {sizes:?}) is stored byte for byte"
            );
        }
        assert_eq!(
            summary_of(store, key.id, req.token).await.points,
            all.len() as u64,
            "a paged request is listed with its point count"
        );
    }

    let keyed = NewAlertRequest {
        points: all[..10].to_vec(),
        ..request(key.id, 0, t0() + secs(10))
    };
    let idem = idempotency("paged-1", &keyed);
    let mut pages = ScriptedPages::new(&keyed.points, &[4, 4]);
    assert_eq!(
        ok(
            store
                .enqueue_pages(&keyed.job(), &mut pages, Some(&idem))
                .await,
            "enqueue_pages with a new idempotency key",
        ),
        Enqueued::Stored,
        "a new idempotency key stores the request"
    );
    let retry = NewAlertRequest {
        token: Token(Uuid::new_v4()),
        ..keyed.clone()
    };
    let mut pages = ScriptedPages::new(&retry.points, &[4, 4]);
    assert_eq!(
        ok(
            store
                .enqueue_pages(&retry.job(), &mut pages, Some(&idem))
                .await,
            "enqueue_pages with a stored idempotency key",
        ),
        Enqueued::Existing {
            token: keyed.token,
            fingerprint: idem.fingerprint
        },
        "a stored idempotency key names the stored request"
    );
    expect_err(
        store.points_page(retry.token, 0, 10).await,
        &StoreError::NotFound,
        "a request whose key was stored already is not stored",
    );
    drain(store).await;
}

/// Storing from pages is all or nothing: a source that fails part-way, or whose pages hold
/// another number of points than announced, leaves no request, no point, no job and no
/// idempotency key behind.
pub async fn paged_enqueue_all_or_nothing<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(
    store: &S,
) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let all = awkward_points("all-or-nothing", 1_500);
    let failure = StoreError::Unavailable("the spooled body could not be read".into());
    let cases: [(&str, ScriptedPages, StoreError); 4] = [
        (
            "a source that fails after two pages",
            ScriptedPages::new(&all, &[700, 700]).then_fail(failure.clone()),
            failure.clone(),
        ),
        (
            "a source that fails at once",
            ScriptedPages::new(&[], &[]).then_fail(failure.clone()),
            failure.clone(),
        ),
        (
            "pages that hold fewer points than announced",
            ScriptedPages {
                total: 1_501,
                ..ScriptedPages::new(&all, &[1_000])
            },
            StoreError::Corrupt(String::new()),
        ),
        (
            "pages that hold more points than announced",
            ScriptedPages {
                total: 1_499,
                ..ScriptedPages::new(&all, &[1_000])
            },
            StoreError::Corrupt(String::new()),
        ),
    ];
    for (i, (case, script, want)) in cases.into_iter().enumerate() {
        for keyed in [false, true] {
            let req = NewAlertRequest {
                points: all.clone(),
                ..request(key.id, 0, t0() + secs(i as i64))
            };
            let idem = idempotency(&format!("all-or-nothing-{i}"), &req);
            let mut source = script.clone();
            expect_err(
                store
                    .enqueue_pages(&req.job(), &mut source, keyed.then_some(&idem))
                    .await,
                &want,
                &format!("enqueue_pages fails with the source's error: {case}"),
            );
            expect_err(
                store.points_page(req.token, 0, 10).await,
                &StoreError::NotFound,
                &format!("no request and no point is left of {case}"),
            );
            let listed = ok(
                store.list_requests(key.id, 1000).await,
                "list_requests lists a key's requests",
            );
            assert!(
                listed.iter().all(|s| s.token != req.token),
                "no request is listed of {case}"
            );
            // A job that exists would answer a stranger's lease with LeaseLost.
            let stranger = crate::ports::Lease {
                id: Uuid::new_v4(),
                until: end_of_suites(),
            };
            expect_err(
                store.release(req.token, &stranger).await,
                &StoreError::NotFound,
                &format!("no job is left of {case}"),
            );
            if keyed {
                // The key was not taken: the retry the client makes is stored.
                assert_eq!(
                    ok(
                        store.enqueue_idempotent(&req, &idem).await,
                        "enqueue_idempotent after a failed enqueue_pages",
                    ),
                    Enqueued::Stored,
                    "a key whose request failed to store is free for the retry ({case})"
                );
            }
        }
    }
    drain(store).await;
}

/// Claims: due jobs only, oldest run time first, at most `max`, never a leased job until its
/// lease expires, and then it is reclaimed under a new lease.
pub async fn claims<S: AccountStore + JobQueue + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let a = request(key.id, 1, t0() + secs(10));
    let b = request(key.id, 1, t0());
    let c = request(key.id, 1, t0() + secs(5));
    let d = request(key.id, 1, t0() + secs(3_600));
    for r in [&a, &b, &c, &d] {
        enqueue_one(store, r).await;
    }

    assert!(
        claim(store, t0() - secs(1), 10, "claim leases due jobs")
            .await
            .is_empty(),
        "claim leaves jobs whose run time has not come"
    );
    let calls = AtomicUsize::new(0);
    let handed_out = Mutex::new(Vec::new());
    let lease_ids = || {
        calls.fetch_add(1, Ordering::SeqCst);
        let id = Uuid::new_v4();
        handed_out.lock().unwrap().push(id);
        id
    };
    let now = t0() + secs(20);
    let first = ok(
        store.claim(now, LEASE, 2, &lease_ids).await,
        "claim leases due jobs",
    );
    assert_eq!(
        tokens(&first),
        vec![b.token, c.token],
        "claim takes at most max jobs, oldest run time first"
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "claim calls lease_ids once per claimed job"
    );
    let given: HashSet<Uuid> = handed_out.lock().unwrap().iter().copied().collect();
    let used: HashSet<Uuid> = first.iter().map(|j| j.lease.id).collect();
    assert_eq!(
        used, given,
        "each job is leased under its own id from lease_ids"
    );

    let second = claim(store, now, 10, "claim leases due jobs").await;
    assert_eq!(
        tokens(&second),
        vec![a.token],
        "claim skips leased jobs and jobs not yet due"
    );
    assert!(
        claim(store, now + secs(60), 10, "claim leases due jobs")
            .await
            .is_empty(),
        "a job is not claimed again while its lease lasts"
    );

    let after_expiry = now + lease_span() + secs(1);
    let reclaimed = claim(store, after_expiry, 10, "claim reclaims expired leases").await;
    assert_eq!(
        tokens(&reclaimed),
        vec![b.token, c.token, a.token],
        "claim reclaims jobs whose lease expired, oldest run time first"
    );
    for job in &reclaimed {
        let old: Vec<&AlertJob> = first
            .iter()
            .chain(second.iter())
            .filter(|o| o.token == job.token)
            .collect();
        assert_ne!(
            old[0].lease.id, job.lease.id,
            "a reclaimed job gets a new lease id"
        );
        assert_eq!(
            job.lease.until,
            after_expiry + lease_span(),
            "a reclaimed job's lease runs from the new claim"
        );
    }
    for job in &reclaimed {
        ok(
            store
                .update(
                    job.token,
                    &job.lease,
                    JobUpdate::Finish {
                        outcome: JobOutcome::Delivered,
                        attempts: 1,
                    },
                )
                .await,
            "update Finish with the lease held",
        );
    }
    assert!(
        ok(
            store.claim(after_expiry, LEASE, 0, &Uuid::new_v4).await,
            "claim with max 0 succeeds"
        )
        .is_empty(),
        "claim with max 0 takes nothing"
    );
    let later = claim(store, t0() + secs(3_600), 10, "claim leases due jobs").await;
    assert_eq!(
        tokens(&later),
        vec![d.token],
        "a job is claimable once its run time comes"
    );
    drain(store).await;
}

fn idempotency(key: &str, request: &NewAlertRequest) -> Idempotency {
    Idempotency {
        key: IdempotencyKey::parse(key).unwrap_or_else(|e| panic!("{e}")),
        fingerprint: Fingerprint::of_points(&request.points),
    }
}

/// Idempotent enqueueing: the first request with a key is stored; a second one with the same
/// key (for the same API key) stores nothing and names the first; other API keys have keys of
/// their own.
pub async fn idempotent_enqueue<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;
    let first = request(key.id, 2, t0());
    let stored = ok(
        store
            .enqueue_idempotent(&first, &idempotency("order-1", &first))
            .await,
        "enqueue_idempotent stores a request with a new key",
    );
    assert_eq!(stored, Enqueued::Stored, "a new key stores the request");
    assert_eq!(
        ok(
            read_points(store, first.token, 1000).await,
            "points_page of the stored request"
        ),
        first.points,
        "the request stored with a key is stored whole"
    );

    let retry = request(key.id, 3, t0() + secs(1));
    let again = ok(
        store
            .enqueue_idempotent(&retry, &idempotency("order-1", &retry))
            .await,
        "enqueue_idempotent answers a key stored already",
    );
    assert_eq!(
        again,
        Enqueued::Existing {
            token: first.token,
            fingerprint: Fingerprint::of_points(&first.points),
        },
        "a key stored already names the first request and its fingerprint"
    );
    expect_err(
        store.points_page(retry.token, 0, 1000).await,
        &StoreError::NotFound,
        "nothing is stored for a request whose key was stored already",
    );
    assert_eq!(
        ok(
            read_points(store, first.token, 1000).await,
            "points_page of the stored request"
        ),
        first.points,
        "a replayed request adds no points to the stored one"
    );

    let elsewhere = request(other_key.id, 1, t0());
    assert_eq!(
        ok(
            store
                .enqueue_idempotent(&elsewhere, &idempotency("order-1", &elsewhere))
                .await,
            "enqueue_idempotent with another API key",
        ),
        Enqueued::Stored,
        "idempotency keys belong to one API key: another key's same name is new"
    );
    let plain = request(key.id, 1, t0());
    enqueue_one(store, &plain).await;
    let requests = ok(store.list_requests(key.id, 1000).await, "list_requests");
    assert_eq!(
        requests.len(),
        2,
        "the key has its idempotent request and its plain one, and no more"
    );
}

/// Concurrent idempotent enqueueing: many callers at once with the same key store exactly one
/// request, and every caller learns its token.
pub async fn concurrent_idempotent_enqueue<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(
    store: &S,
) {
    const CALLERS: usize = 8;
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let requests: Vec<NewAlertRequest> = (0..CALLERS).map(|_| request(key.id, 1, t0())).collect();
    let shared = points(1);
    let calls = requests
        .iter()
        .map(|r| {
            let r = NewAlertRequest {
                points: shared.clone(),
                ..r.clone()
            };
            async move {
                let idem = idempotency("same-key", &r);
                let result = store.enqueue_idempotent(&r, &idem).await;
                (r.token, result)
            }
        })
        .collect();
    let results = join_all(calls).await;
    let mut stored = Vec::new();
    let mut named = HashSet::new();
    for (token, result) in results {
        match ok(result, "concurrent enqueue_idempotent calls succeed") {
            Enqueued::Stored => {
                stored.push(token);
                named.insert(token);
            }
            Enqueued::Existing { token, .. } => {
                named.insert(token);
            }
        }
    }
    assert_eq!(
        stored.len(),
        1,
        "exactly one of the concurrent callers stores the request"
    );
    assert_eq!(
        named.len(),
        1,
        "every concurrent caller is told the one stored token"
    );
    let listed = ok(store.list_requests(key.id, 1000).await, "list_requests");
    assert_eq!(listed.len(), 1, "one request is stored");
}

/// Concurrent claims: several claimers at once never get the same job, and together they get
/// every job.
pub async fn concurrent_claims<S: AccountStore + JobQueue + ?Sized>(store: &S) {
    const JOBS: usize = 60;
    const CLAIMERS: usize = 6;
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let mut all = HashSet::new();
    for i in 0..JOBS {
        let r = request(key.id, 1, t0() + secs(i as i64));
        enqueue_one(store, &r).await;
        all.insert(r.token);
    }
    let now = t0() + secs(3_600);
    let claimer = |_: usize| async move {
        let mut mine = Vec::new();
        loop {
            let jobs = claim(store, now, 3, "concurrent claims succeed").await;
            if jobs.is_empty() {
                return mine;
            }
            mine.extend(tokens(&jobs));
        }
    };
    let results = join_all((0..CLAIMERS).map(claimer).collect()).await;
    let mut seen: HashMap<Token, usize> = HashMap::new();
    for token in results.iter().flatten() {
        *seen.entry(*token).or_default() += 1;
    }
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        twice.is_empty(),
        "no two concurrent claimers get the same job: {} jobs were handed out more than once",
        twice.len()
    );
    let got: HashSet<Token> = seen.keys().copied().collect();
    assert_eq!(
        got.len(),
        JOBS,
        "concurrent claimers together claim every due job"
    );
    assert_eq!(got, all, "claimers get exactly the jobs that were enqueued");
    drain(store).await;
}

/// Updates: Written, Retry and Finish end the lease and move the job on; an update under a
/// lease that was lost or ended fails with `LeaseLost` and changes nothing.
pub async fn updates<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let req = request(key.id, 2, t0());
    enqueue_one(store, &req).await;
    let j1 = claim(store, t0(), 1, "claim leases due jobs").await;
    assert_eq!(tokens(&j1), vec![req.token], "claim takes the due job");
    let l1 = j1[0].lease;

    ok(
        store
            .update(
                req.token,
                &l1,
                JobUpdate::Written {
                    alerts: 3,
                    run_at: t0() + secs(10),
                },
            )
            .await,
        "update Written with the lease held",
    );
    let s = summary_of(store, key.id, req.token).await;
    assert_eq!(
        (s.stage, s.alerts, s.attempts),
        (JobStage::Deliver, Some(3), 0),
        "Written moves the job to delivery and records the alert count"
    );
    assert!(
        claim(store, t0() + secs(5), 1, "claim leases due jobs")
            .await
            .is_empty(),
        "after Written the job waits for its run time"
    );
    let j2 = claim(store, t0() + secs(10), 1, "claim leases due jobs").await;
    assert_eq!(
        tokens(&j2),
        vec![req.token],
        "Written ends the lease: the job is claimable at run_at"
    );
    assert_eq!(
        j2[0].stage,
        JobStage::Deliver,
        "the job is claimed for delivery"
    );
    let l2 = j2[0].lease;

    expect_err(
        store
            .update(
                req.token,
                &l1,
                JobUpdate::Finish {
                    outcome: JobOutcome::Delivered,
                    attempts: 1,
                },
            )
            .await,
        &StoreError::LeaseLost,
        "update under a lease that ended is LeaseLost",
    );
    ok(
        store
            .update(
                req.token,
                &l2,
                JobUpdate::Retry {
                    attempts: 1,
                    run_at: t0() + secs(60),
                },
            )
            .await,
        "update Retry with the lease held",
    );
    let s = summary_of(store, key.id, req.token).await;
    assert_eq!(
        (s.stage, s.attempts, s.outcome),
        (JobStage::Deliver, 1, None),
        "Retry keeps the job in delivery and records the attempts"
    );
    assert!(
        claim(store, t0() + secs(59), 1, "claim leases due jobs")
            .await
            .is_empty(),
        "a retry waits for its run time"
    );
    let j3 = claim(store, t0() + secs(60), 1, "claim leases due jobs").await;
    assert_eq!(
        tokens(&j3),
        vec![req.token],
        "a retry is claimable at run_at"
    );
    assert_eq!(j3[0].attempts, 1, "a claimed retry carries its attempts");
    let l3 = j3[0].lease;

    // The worker holding l3 stalls past its lease; another worker takes the job over.
    let j4 = claim(
        store,
        t0() + secs(60) + lease_span() + secs(1),
        1,
        "claim reclaims expired leases",
    )
    .await;
    assert_eq!(
        tokens(&j4),
        vec![req.token],
        "an expired lease is reclaimed"
    );
    let l4 = j4[0].lease;
    expect_err(
        store
            .update(
                req.token,
                &l3,
                JobUpdate::Retry {
                    attempts: 9,
                    run_at: t0(),
                },
            )
            .await,
        &StoreError::LeaseLost,
        "update under a lease taken over by another worker is LeaseLost",
    );
    expect_err(
        store.release(req.token, &l3).await,
        &StoreError::LeaseLost,
        "release under a lease taken over by another worker is LeaseLost",
    );
    assert_eq!(
        summary_of(store, key.id, req.token).await.attempts,
        1,
        "a refused update changes nothing"
    );

    ok(
        store
            .update(
                req.token,
                &l4,
                JobUpdate::Finish {
                    outcome: JobOutcome::Delivered,
                    attempts: 2,
                },
            )
            .await,
        "update Finish with the lease held",
    );
    let s = summary_of(store, key.id, req.token).await;
    assert_eq!(
        (s.stage, s.outcome, s.attempts, s.alerts),
        (JobStage::Done, Some(JobOutcome::Delivered), 2, Some(3)),
        "Finish marks the job done with its outcome and attempts"
    );
    assert!(
        claim(store, end_of_suites(), 10, "claim leases due jobs")
            .await
            .is_empty(),
        "a finished job is never claimed again"
    );
    expect_err(
        store
            .update(
                req.token,
                &l4,
                JobUpdate::Finish {
                    outcome: JobOutcome::Gone,
                    attempts: 3,
                },
            )
            .await,
        &StoreError::LeaseLost,
        "Finish ends the lease: a second update under it is LeaseLost",
    );
}

/// Release gives a job back at once and unchanged; redeliver puts a finished job whose file
/// was written back to delivery, keeping its attempts, only for its own key, and never a job
/// still in progress.
pub async fn release_and_redeliver<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;
    let req = request(key.id, 1, t0());
    enqueue_one(store, &req).await;

    let j1 = claim(store, t0(), 1, "claim leases due jobs").await;
    ok(
        store.release(req.token, &j1[0].lease).await,
        "release gives a held job back",
    );
    let j2 = claim(store, t0(), 1, "claim leases due jobs").await;
    assert_eq!(
        tokens(&j2),
        vec![req.token],
        "a released job is claimable again at once"
    );
    assert_eq!(
        (j2[0].stage, j2[0].attempts),
        (JobStage::Evaluate, 0),
        "release leaves the job unchanged"
    );
    expect_err(
        store.release(req.token, &j1[0].lease).await,
        &StoreError::LeaseLost,
        "release under a lease already given back is LeaseLost",
    );
    expect_err(
        store.redeliver(key.id, req.token, t0()).await,
        &StoreError::Conflict(UNFINISHED_JOB.to_owned()),
        "redeliver of a job still being written is a Conflict",
    );

    ok(
        store
            .update(
                req.token,
                &j2[0].lease,
                JobUpdate::Written {
                    alerts: 0,
                    run_at: t0() + secs(1),
                },
            )
            .await,
        "update Written with the lease held",
    );
    let j3 = claim(store, t0() + secs(1), 1, "claim leases due jobs").await;
    expect_err(
        store.redeliver(key.id, req.token, t0()).await,
        &StoreError::Conflict(UNFINISHED_JOB.to_owned()),
        "redeliver of a job being delivered is a Conflict: it is never delivered twice at once",
    );
    ok(
        store
            .update(
                req.token,
                &j3[0].lease,
                JobUpdate::Finish {
                    outcome: JobOutcome::GaveUp,
                    attempts: 5,
                },
            )
            .await,
        "update Finish with the lease held",
    );

    expect_err(
        store.redeliver(other_key.id, req.token, t0()).await,
        &StoreError::NotFound,
        "redeliver of another key's token is NotFound",
    );
    expect_err(
        store.redeliver(key.id, Token(Uuid::new_v4()), t0()).await,
        &StoreError::NotFound,
        "redeliver of an unknown token is NotFound",
    );
    assert_eq!(
        summary_of(store, key.id, req.token).await.stage,
        JobStage::Done,
        "a refused redeliver changes nothing"
    );

    ok(
        store.redeliver(key.id, req.token, t0() + secs(7_200)).await,
        "redeliver puts a finished job back",
    );
    let s = summary_of(store, key.id, req.token).await;
    assert_eq!(
        (s.stage, s.outcome, s.attempts, s.alerts),
        (JobStage::Deliver, None, 5, Some(0)),
        "redeliver puts the job back to delivery with its attempts and file kept"
    );
    assert!(
        claim(store, t0() + secs(3_600), 1, "claim leases due jobs")
            .await
            .is_empty(),
        "a redelivered job waits for the time given"
    );
    let j4 = claim(store, t0() + secs(7_200), 1, "claim leases due jobs").await;
    assert_eq!(
        tokens(&j4),
        vec![req.token],
        "a redelivered job is claimable at the time given"
    );
    assert_eq!(
        (j4[0].stage, j4[0].attempts),
        (JobStage::Deliver, 5),
        "a redelivered job is claimed for delivery with its attempts"
    );
    drain(store).await;
}

// ---------------------------------------------------------------------------------------------
// The delivery log.
// ---------------------------------------------------------------------------------------------

/// The delivery log: requests newest first with their counts; attempts in order, recorded once
/// per number, visible only to the request's key.
pub async fn delivery_log<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let (_, other_key, _) = account_with_key(store).await;
    let r1 = request(key.id, 1, t0());
    let r2 = request(key.id, 2, t0() + secs(60));
    let r3 = request(key.id, 3, t0() + secs(120));
    let foreign = request(other_key.id, 4, t0() + secs(90));
    for r in [&r2, &r1, &foreign, &r3] {
        enqueue_one(store, r).await;
    }

    let listed = ok(
        store.list_requests(key.id, 10).await,
        "list_requests lists requests",
    );
    assert_eq!(
        listed
            .iter()
            .map(|s| (s.token, s.points))
            .collect::<Vec<_>>(),
        vec![(r3.token, 3), (r2.token, 2), (r1.token, 1)],
        "list_requests lists the key's requests only, newest first, with their point counts"
    );
    assert_eq!(
        tokens_of(&ok(
            store.list_requests(key.id, 2).await,
            "list_requests lists requests"
        )),
        vec![r3.token, r2.token],
        "list_requests returns at most limit requests, the newest"
    );
    assert_eq!(
        tokens_of(&ok(
            store.list_requests(other_key.id, 10).await,
            "list_requests lists requests"
        )),
        vec![foreign.token],
        "list_requests shows another key only its own requests"
    );

    let a1 = DeliveryAttempt {
        token: r1.token,
        attempt: 1,
        at: t0() + secs(5),
        status: Some(503),
        latency_ms: 812,
        error: Some(DeliveryErrorKind::Status),
    };
    let a2 = DeliveryAttempt {
        token: r1.token,
        attempt: 2,
        at: t0() + secs(35),
        status: None,
        latency_ms: 10_000,
        error: Some(DeliveryErrorKind::Timeout),
    };
    let a3 = DeliveryAttempt {
        token: r1.token,
        attempt: 3,
        at: t0() + secs(155),
        status: Some(204),
        latency_ms: 41,
        error: None,
    };
    for a in [&a1, &a2, &a2, &a3, &a1] {
        ok(store.record_attempt(a).await, "record_attempt records");
    }
    assert_eq!(
        ok(
            store.list_attempts(key.id, r1.token).await,
            "list_attempts lists attempts"
        ),
        vec![a1.clone(), a2.clone(), a3.clone()],
        "record_attempt keeps one record per (token, attempt); list_attempts lists them in order"
    );
    assert!(
        ok(
            store.list_attempts(other_key.id, r1.token).await,
            "list_attempts answers for another key's token"
        )
        .is_empty(),
        "list_attempts shows nothing of another key's request"
    );
    assert!(
        ok(
            store.list_attempts(key.id, r2.token).await,
            "list_attempts lists attempts"
        )
        .is_empty(),
        "a request without attempts has none listed"
    );
    drain(store).await;
}

/// `counts` tells waiting jobs from leased ones, counts a job whose lease expired as waiting,
/// and leaves finished jobs out.
pub async fn job_counts<S: AccountStore + JobQueue + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let now = t0();
    let count = |at| async move { ok(store.counts(at).await, "counts answers") };
    assert_eq!(
        count(now).await,
        crate::ports::JobCounts::default(),
        "counts is zero on a drained queue"
    );
    let due = request(key.id, 1, now);
    let later = request(key.id, 1, now + secs(60));
    enqueue_one(store, &due).await;
    enqueue_one(store, &later).await;
    assert_eq!(
        count(now).await,
        crate::ports::JobCounts {
            waiting: 2,
            leased: 0
        },
        "enqueued jobs count as waiting, due or not"
    );
    let jobs = claim(store, now, 10, "claim leases the due job").await;
    assert_eq!(
        tokens(&jobs),
        vec![due.token],
        "only the due job is claimed"
    );
    assert_eq!(
        count(now).await,
        crate::ports::JobCounts {
            waiting: 1,
            leased: 1
        },
        "a claimed job counts as leased"
    );
    assert_eq!(
        count(now + lease_span() + secs(1)).await,
        crate::ports::JobCounts {
            waiting: 2,
            leased: 0
        },
        "a job whose lease expired counts as waiting again"
    );
    ok(
        store
            .update(
                due.token,
                &jobs[0].lease,
                JobUpdate::Finish {
                    outcome: JobOutcome::Delivered,
                    attempts: 1,
                },
            )
            .await,
        "update with the lease finishes the job",
    );
    assert_eq!(
        count(now).await,
        crate::ports::JobCounts {
            waiting: 1,
            leased: 0
        },
        "finished jobs are not counted"
    );
    drain(store).await;
}

/// Sessions: stored by hash, found until they expire, deleted on sign-out, swept when expired.
pub async fn sessions<S: AccountStore + SessionStore + ?Sized>(store: &S) {
    let account = new_account(store).await;
    let session = |hours: i64| Session {
        id_hash: format!("{:x}{:x}", Uuid::new_v4().simple(), Uuid::new_v4().simple()),
        account_id: account.id,
        csrf_secret: Uuid::new_v4().simple().to_string(),
        created_at: t0(),
        expires_at: t0() + chrono::Duration::hours(hours),
    };
    let live = session(12);
    ok(
        store.create_session(&live).await,
        "create_session stores a new session",
    );
    assert_eq!(
        ok(store.session(&live.id_hash, t0()).await, "session reads"),
        Some(live.clone()),
        "session returns what create_session stored"
    );
    expect_err(
        store.create_session(&live).await,
        &StoreError::Conflict(String::new()),
        "create_session refuses a hash that exists already",
    );
    assert_eq!(
        ok(
            store.session("0".repeat(64).as_str(), t0()).await,
            "session reads"
        ),
        None,
        "session returns None for an unknown hash"
    );
    assert_eq!(
        ok(
            store
                .session(&live.id_hash, live.expires_at - secs(1))
                .await,
            "session reads"
        ),
        Some(live.clone()),
        "a session is valid until its last second"
    );
    assert_eq!(
        ok(
            store.session(&live.id_hash, live.expires_at).await,
            "session reads"
        ),
        None,
        "a session is not returned once it has expired"
    );

    let short = session(1);
    ok(
        store.create_session(&short).await,
        "create_session stores a session",
    );
    let swept = ok(
        store.delete_expired_sessions(t0() + secs(3600)).await,
        "delete_expired_sessions sweeps",
    );
    assert!(swept >= 1, "delete_expired_sessions counts what it deleted");
    assert_eq!(
        ok(store.session(&short.id_hash, t0()).await, "session reads"),
        None,
        "delete_expired_sessions deletes a session that expired"
    );
    assert_eq!(
        ok(store.session(&live.id_hash, t0()).await, "session reads"),
        Some(live.clone()),
        "delete_expired_sessions keeps sessions that are still valid"
    );

    ok(
        store.delete_session(&live.id_hash).await,
        "delete_session signs out",
    );
    assert_eq!(
        ok(store.session(&live.id_hash, t0()).await, "session reads"),
        None,
        "a deleted session is gone"
    );
    ok(
        store.delete_session(&live.id_hash).await,
        "deleting a missing session succeeds",
    );
}

fn tokens_of(list: &[crate::ports::RequestSummary]) -> Vec<Token> {
    list.iter().map(|s| s.token).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn join_all_runs_every_future_and_keeps_order() {
        let out = join_all(
            (0..5u64)
                .map(|i| async move {
                    // Yield a few times so that the futures interleave.
                    for _ in 0..i {
                        tokio::task::yield_now().await;
                    }
                    i * 10
                })
                .collect(),
        )
        .await;
        assert_eq!(out, vec![0, 10, 20, 30, 40]);
    }
}
