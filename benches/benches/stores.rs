//! Stores: alert jobs enqueued per second (request and job in one transaction, one point
//! each), and jobs claimed and finished per second (claims of 10 under a lease, then one
//! update per job), by one worker and by four concurrent workers, on SQLite (a file in a
//! temporary directory, WAL, synchronous=FULL) and on PostgreSQL (a database of the
//! benchmark's own on 127.0.0.1:5432 or `INSIGHTS_TEST_POSTGRES_URL`, dropped afterwards).
//!
//! Without a reachable PostgreSQL the PostgreSQL cases are skipped with a message.
//!
//! Each rate is also printed at the end on a line starting `FIGURE:`: the jobs of every timed
//! batch criterion ran, over the time they took.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use alerts_core::ids::Token;
use alerts_core::ports::{ClaimLimits, JobOutcome, JobQueue, JobUpdate, NewAlertRequest};
use alerts_core::request::AlertPoint;
use aq_core::Position;
use identity_core::ids::{AccountId, KeyId};
use identity_core::keys::{ApiKey, WebhookSecret};
use identity_core::ports::{Account, AccountStore, NewApiKey};
use identity_core::randomness::SeededRandomness;

use chrono::{DateTime, TimeZone, Utc};
use criterion::{Criterion, Throughput};
use sqlx::{Connection, PgConnection};
use store_postgres::{PgOptions, PgStore};
use store_sqlite::{SqliteOptions, SqliteStore};
use tokio::runtime::Runtime;
use uuid::Uuid;

const CLAIM_BATCH: usize = 10;
const LEASE: Duration = Duration::from_secs(600);

/// Every store the benchmark runs against, as the trait objects the pipeline would hold.
trait Store: AccountStore + JobQueue + Clone + 'static {}
impl<T: AccountStore + JobQueue + Clone + 'static> Store for T {}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0)
        .single()
        .expect("a valid time")
}

async fn account_with_key(store: &impl AccountStore) -> KeyId {
    let rng = SeededRandomness::default();
    let account = Account {
        id: AccountId(Uuid::new_v4()),
        email: format!("{}@example.com", Uuid::new_v4().simple()),
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".to_owned(),
        credential_version: 0,
        created_at: t0(),
    };
    store
        .create_account(&account)
        .await
        .expect("create account");
    let key = ApiKey::generate(&rng);
    let new = NewApiKey {
        id: KeyId(Uuid::new_v4()),
        account_id: account.id,
        label: "bench".to_owned(),
        prefix: key.prefix().to_owned(),
        hash: key.hash(),
        secret: WebhookSecret::generate(&rng),
        created_at: t0(),
    };
    store.create_key(&new).await.expect("create key");
    new.id
}

/// Received times count up, so that claims (oldest first) walk the queue in order.
fn request(key: KeyId, n: u64) -> NewAlertRequest {
    NewAlertRequest {
        token: Token(Uuid::new_v4()),
        key_id: key,
        points: vec![AlertPoint {
            position: Position::new(-74.006, 40.7128).expect("a valid position"),
            id: format!("device-{n}"),
            custom_data: "{}".to_owned(),
        }],
        received_at: t0() + chrono::Duration::microseconds(i64::try_from(n).unwrap_or(0)),
    }
}

/// Claims and finishes jobs until none is due; returns how many it finished.
async fn work(store: impl Store, now: DateTime<Utc>) -> u64 {
    let mut done = 0;
    loop {
        let jobs = store
            .claim(now, LEASE, ClaimLimits::up_to(CLAIM_BATCH), &Uuid::new_v4)
            .await
            .expect("claim");
        if jobs.is_empty() {
            return done;
        }
        for job in jobs {
            store
                .update(
                    job.token,
                    &job.lease,
                    JobUpdate::Finish {
                        outcome: JobOutcome::Delivered,
                        attempts: 1,
                    },
                )
                .await
                .expect("finish");
            done += 1;
        }
    }
}

/// Jobs and the time they took, summed over every timed batch of one case.
#[derive(Default)]
struct Tally(RefCell<(u64, Duration)>);

impl Tally {
    fn add(&self, jobs: u64, elapsed: Duration) {
        let mut t = self.0.borrow_mut();
        t.0 += jobs;
        t.1 += elapsed;
    }

    /// The figure line, unless the case was filtered out and never ran.
    fn figure(&self, what: &str) -> Option<String> {
        let (jobs, elapsed) = *self.0.borrow();
        (jobs > 0).then(|| {
            format!(
                "FIGURE: {what} = {:.0} jobs/s",
                jobs as f64 / elapsed.as_secs_f64().max(1e-9)
            )
        })
    }
}

fn bench_store<S: Store>(
    c: &mut Criterion,
    rt: &Runtime,
    name: &str,
    store: &S,
    figures: &mut Vec<String>,
) {
    let key = rt.block_on(account_with_key(store));
    let counter = Arc::new(AtomicU64::new(0));
    // Every claim runs at a "now" after all enqueued jobs.
    let now = t0() + chrono::Duration::days(365);
    let mut group = c.benchmark_group(format!("stores/{name}"));
    group.throughput(Throughput::Elements(1));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));

    let enqueued = Tally::default();
    group.bench_function("enqueue", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    store.enqueue(&request(key, n)).await.expect("enqueue");
                }
                let elapsed = start.elapsed();
                enqueued.add(iters, elapsed);
                // Leave an empty queue for the claim cases (untimed).
                work(store.clone(), now).await;
                elapsed
            })
        });
    });
    figures.extend(enqueued.figure(&format!("stores {name} enqueue")));

    for workers in [1usize, 4] {
        let claimed = Tally::default();
        group.bench_function(format!("claim_and_finish/{workers}_workers"), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    for _ in 0..iters {
                        let n = counter.fetch_add(1, Ordering::Relaxed);
                        store.enqueue(&request(key, n)).await.expect("enqueue");
                    }
                    let start = Instant::now();
                    let handles: Vec<_> = (0..workers)
                        .map(|_| tokio::spawn(work(store.clone(), now)))
                        .collect();
                    let mut done = 0;
                    for handle in handles {
                        done += handle.await.expect("worker");
                    }
                    let elapsed = start.elapsed();
                    assert_eq!(done, iters, "every enqueued job is done once");
                    claimed.add(iters, elapsed);
                    elapsed
                })
            });
        });
        let plural = if workers == 1 { "" } else { "s" };
        figures.extend(claimed.figure(&format!(
            "stores {name} claim and finish, {workers} worker{plural}"
        )));
    }
    group.finish();
}

fn sqlite(c: &mut Criterion, figures: &mut Vec<String>) {
    let rt = Runtime::new().expect("tokio runtime");
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = rt
        .block_on(SqliteStore::open(SqliteOptions::file(
            dir.path().join("bench.sqlite3"),
        )))
        .expect("open SQLite");
    bench_store(c, &rt, "sqlite", &store, figures);
    rt.block_on(store.close());
}

/// A database of the benchmark's own, dropped when this is dropped.
struct BenchDb {
    rt: Arc<Runtime>,
    admin: String,
    name: String,
}

impl Drop for BenchDb {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        let dropped = self.rt.block_on(async {
            let mut conn = PgConnection::connect(&self.admin).await?;
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut conn)
                .await
                .map(|_| ())
        });
        if let Err(e) = dropped {
            eprintln!("could not drop the benchmark database {}: {e}", self.name);
        }
    }
}

fn postgres(c: &mut Criterion, figures: &mut Vec<String>) {
    let rt = Arc::new(Runtime::new().expect("tokio runtime"));
    let admin = std::env::var("INSIGHTS_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned());
    let name = format!("insights_bench_{}", Uuid::new_v4().simple());
    let created = rt.block_on(async {
        let mut conn = PgConnection::connect(&admin).await?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
    });
    if let Err(e) = created {
        eprintln!("PostgreSQL at {admin} is not usable ({e}); skipping the PostgreSQL cases");
        figures.push(format!(
            "FIGURE: stores postgres skipped (PostgreSQL at {admin} is not usable: {e})"
        ));
        return;
    }
    let db = BenchDb {
        rt: rt.clone(),
        admin: admin.clone(),
        name: name.clone(),
    };
    let server = admin.rsplit_once('/').map_or(admin.as_str(), |(s, _)| s);
    let store = rt
        .block_on(PgStore::open(PgOptions::new(format!("{server}/{name}"))))
        .expect("open PostgreSQL");
    bench_store(c, &rt, "postgres", &store, figures);
    rt.block_on(store.close());
    drop(db);
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    let mut figures = Vec::new();
    sqlite(&mut c, &mut figures);
    postgres(&mut c, &mut figures);
    c.final_summary();
    println!();
    for line in figures {
        println!("{line}");
    }
}
