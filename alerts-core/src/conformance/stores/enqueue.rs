//! The [`JobQueue`](crate::ports::JobQueue) suites for storing requests: a request, its job and
//! its points, in one page or many, all or nothing.

use std::sync::atomic::{AtomicUsize, Ordering};

use aq_core::Position;
use identity_core::ports::AccountStore;
use uuid::Uuid;

use crate::idempotency::Enqueued;
use crate::ids::Token;
use crate::ports::{
    ClaimLimits, DeliveryLog, JobQueue, JobStage, NewAlertRequest, PointPages, StoreError,
};
use crate::request::AlertPoint;

use super::fixtures::{
    LEASE, account_with_key, drain, end_of_suites, enqueue_one, expect_err, idempotency,
    lease_span, ok, points, read_points, request, secs, summary_of, t0, tokens,
};

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
        store
            .claim(t0() + secs(30), LEASE, ClaimLimits::up_to(10), &lease_ids)
            .await,
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
    assert!(
        (1..=10).contains(&calls.load(Ordering::SeqCst)),
        "claim calls lease_ids at most once per job it may take"
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

/// Requests stored at once (as many clients post them): each is stored whole with its job,
/// whatever the store does to write several together, small and large side by side.
pub async fn concurrent_enqueue<S: AccountStore + JobQueue + DeliveryLog + ?Sized>(store: &S) {
    drain(store).await;
    let (_, key, _) = account_with_key(store).await;
    let mut requests: Vec<NewAlertRequest> = (0..40)
        .map(|i| request(key.id, 1 + i % 10, t0() + secs(i64::try_from(i).unwrap())))
        .collect();
    // One request over a page, which is stored on its own.
    let mut large = request(key.id, 1, t0());
    large.points = (0..=crate::ports::POINT_PAGE)
        .map(|i| AlertPoint {
            id: format!("large-{i}"),
            ..large.points[0].clone()
        })
        .collect();
    requests.push(large);
    let stored = futures::future::join_all(requests.iter().map(|r| store.enqueue(r))).await;
    for (request, stored) in requests.iter().zip(stored) {
        ok(stored, "enqueue stores each of many requests made at once");
        assert_eq!(
            ok(
                read_points(store, request.token, 1000).await,
                "points_page reads a request's points"
            ),
            request.points,
            "each request made at once keeps its own points"
        );
    }
    let jobs = ok(
        store
            .claim(
                t0() + secs(60),
                LEASE,
                ClaimLimits::up_to(100),
                &Uuid::new_v4,
            )
            .await,
        "claim leases due jobs",
    );
    let mut claimed = tokens(&jobs);
    claimed.sort();
    let mut expected: Vec<Token> = requests.iter().map(|r| r.token).collect();
    expected.sort();
    assert_eq!(claimed, expected, "every request made at once has its job");
}
