//! What the store suites share: requests and their points, rules, claims, and [`drain`], which
//! empties the queue before a queue suite. Times, accounts and keys come from
//! [`identity_core::conformance::fixtures`].

use std::time::Duration;

use aq_core::Position;
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use uuid::Uuid;

use crate::idempotency::{Fingerprint, Idempotency, IdempotencyKey};
use crate::ids::{RuleId, Token};
use crate::ports::{
    AlertJob, ClaimLimits, DeliveryLog, JobOutcome, JobQueue, JobUpdate, NewAlertRequest,
    StoreError, encode_stored_points,
};
use crate::request::AlertPoint;
use crate::rule::{AlertRule, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};

pub(super) use identity_core::conformance::fixtures::{
    account_with_key, end_of_suites, expect_err, ok, secs, t0,
};

pub(super) fn aq_spec(hours: u8) -> RuleSpec {
    RuleSpec::new(
        DataType::Aq,
        Forecast::Hours(hours),
        Sensitivity::Medium,
        MessageSpec::Default,
    )
    .unwrap()
}

pub(super) fn pollen_custom_spec() -> RuleSpec {
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

pub(super) fn rule(
    key: KeyId,
    spec: RuleSpec,
    enabled: bool,
    created_at: DateTime<Utc>,
) -> AlertRule {
    AlertRule {
        id: RuleId(Uuid::new_v4()),
        key_id: key,
        spec,
        enabled,
        created_at,
    }
}

/// `n` points with coordinates that survive any JSON round trip exactly.
pub(super) fn points(n: usize) -> Vec<AlertPoint> {
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

pub(super) fn request(key: KeyId, n_points: usize, received_at: DateTime<Utc>) -> NewAlertRequest {
    NewAlertRequest {
        token: Token(Uuid::new_v4()),
        key_id: key,
        points: points(n_points),
        received_at,
    }
}

/// Every point of a request, read `page` at a time as a worker reads them, checking that no
/// page is longer than asked. Suites use it; an adapter's own tests may too.
///
/// # Errors
/// The store's, as [`JobQueue::points_page`] gives it.
pub async fn read_points<S: JobQueue + ?Sized>(
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

pub(super) async fn enqueue_one<S: JobQueue + ?Sized>(store: &S, request: &NewAlertRequest) {
    ok(
        store.enqueue(request).await,
        "enqueue stores a new request and its job",
    );
}

pub(super) const LEASE: Duration = Duration::from_secs(300);

pub(super) fn lease_span() -> chrono::Duration {
    chrono::Duration::from_std(LEASE).unwrap()
}

/// Claims up to `max` jobs at `now` under a lease of five minutes, with no cap per key;
/// panics naming the broken `promise` should the store fail. Suites use it; an adapter's own
/// tests may too.
pub async fn claim<S: JobQueue + ?Sized>(
    store: &S,
    now: DateTime<Utc>,
    max: usize,
    promise: &str,
) -> Vec<AlertJob> {
    ok(
        store
            .claim(now, LEASE, ClaimLimits::up_to(max), &Uuid::new_v4)
            .await,
        promise,
    )
}

pub(super) async fn claim_with<S: JobQueue + ?Sized>(
    store: &S,
    now: DateTime<Utc>,
    limits: ClaimLimits,
    promise: &str,
) -> Vec<AlertJob> {
    ok(
        store.claim(now, LEASE, limits, &Uuid::new_v4).await,
        promise,
    )
}

pub(super) fn tokens(jobs: &[AlertJob]) -> Vec<Token> {
    jobs.iter().map(|j| j.token).collect()
}

/// Enqueues `n` requests of `key` with one point each, received at `from` and one
/// millisecond apart, and returns their tokens in that order: jobs for an adapter's own
/// tests.
pub async fn enqueue_jobs<S: JobQueue + ?Sized>(
    store: &S,
    key: KeyId,
    n: usize,
    from: DateTime<Utc>,
) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(n);
    for i in 0..n {
        let received = from + chrono::Duration::milliseconds(i64::try_from(i).unwrap());
        let request = request(key, 1, received);
        enqueue_one(store, &request).await;
        tokens.push(request.token);
    }
    tokens
}

/// The pages a store wrote for `points` when each point is a page of its own, as the
/// migration that moved stored points into pages leaves them.
pub fn one_point_pages(points: &[AlertPoint]) -> Vec<String> {
    points
        .iter()
        .map(|p| encode_stored_points(std::slice::from_ref(p)).unwrap())
        .collect()
}

/// Finishes every job that is claimable at any time the suites use, so that a queue suite
/// sees only its own jobs. Suites call it first; an adapter's own tests may too.
pub async fn drain<S: JobQueue + ?Sized>(store: &S) {
    loop {
        let jobs = ok(
            store
                .claim(
                    end_of_suites(),
                    LEASE,
                    ClaimLimits::up_to(500),
                    &Uuid::new_v4,
                )
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

pub(super) async fn summary_of<S: DeliveryLog + ?Sized>(
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

pub(super) fn idempotency(key: &str, request: &NewAlertRequest) -> Idempotency {
    Idempotency {
        key: IdempotencyKey::parse(key).unwrap_or_else(|e| panic!("{e}")),
        fingerprint: Fingerprint::of_points(&request.points),
    }
}
