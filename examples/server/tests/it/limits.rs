//! Rate limits that hold across replicas: two servers on one PostgreSQL database (limits in
//! the database, or in Redis) give a key one allowance and a password guesser one set of
//! tries, not one per replica; and a limit store that goes away is the documented `open` or
//! `closed` behaviour, never a 500.

use std::time::{Duration, Instant};

use test_support::redis::TestRedis;

use crate::harness::{Deployment, Key, PATIENCE, Reply, Server, client};
use crate::outage::Cable;
use crate::scale_out::TestDb;
use crate::security::{Browser, PASSWORD, new_email, text};

/// The burst of the keys in these tests, at one request a second sustained.
const BURST: usize = 10;
/// The sign-in attempts allowed per email from one network a minute (the dashboard's).
const SIGN_INS_PER_EMAIL_AND_NETWORK: usize = 5;

fn rates() -> String {
    format!("rate_per_second = 1\nrate_burst = {BURST}\n")
}

async fn conditions(server: &Server, key: &Key) -> Reply {
    let url = server.url(&format!(
        "/insights/v1/conditions?key={}&lat=52.52&lon=13.405",
        key.key
    ));
    Reply::read(client().get(url).send().await.unwrap()).await
}

/// Sends `3 × BURST` requests of `key`, alternating between `servers`, as fast as they are
/// answered; how many were allowed, and the seconds it took. Anything but 200 or 429 fails.
async fn spend(servers: &[&Server], key: &Key) -> (usize, u64) {
    let started = Instant::now();
    let mut allowed = 0;
    for i in 0..3 * BURST {
        let reply = conditions(servers[i % servers.len()], key).await;
        match reply.status.as_u16() {
            200 => allowed += 1,
            429 => assert!(reply.header("retry-after").is_some(), "{reply:?}"),
            other => panic!(
                "request {i}: {other} {}",
                String::from_utf8_lossy(&reply.body)
            ),
        }
    }
    (allowed, started.elapsed().as_secs() + 1)
}

/// Two replicas share one allowance: the burst, plus what one second a request refilled while
/// the test ran, and far from twice the burst.
fn assert_one_allowance(allowed: usize, seconds: u64) {
    let most = BURST + usize::try_from(seconds).unwrap();
    assert!(
        (BURST..=most).contains(&allowed),
        "{allowed} requests allowed across two replicas in {seconds} s; one allowance is \
         {BURST} plus one a second"
    );
    assert!(allowed < 2 * BURST, "each replica gave its own allowance");
}

/// Guesses the password of a new account, alternating between `servers` from one address;
/// how many guesses were checked (422) before the first refusal (429), which must come.
async fn guesses_checked(deployment: &Deployment, servers: &[&Server]) -> usize {
    let email = new_email();
    deployment.create_account(&email, PASSWORD);
    let mut browser = Browser::new(servers[0]);
    for attempt in 0..4 * SIGN_INS_PER_EMAIL_AND_NETWORK {
        browser.base = servers[attempt % servers.len()].base.clone();
        let reply = browser.sign_in(&email, &format!("guess {attempt}")).await;
        match reply.status.as_u16() {
            422 => {}
            429 => return attempt,
            other => panic!("guess {attempt}: {other} {}", text(&reply)),
        }
    }
    panic!("every guess was checked")
}

/// A PostgreSQL deployment with the test's rates, and Redis for its limits when given.
fn deployment(db: &TestDb, redis: Option<&TestRedis>) -> Deployment {
    let deployment = Deployment::new()
        .flag("--database-url", &db.url)
        .config(&rates());
    match redis {
        Some(redis) => deployment
            .flag("--limits-url", &redis.url)
            .flag("--limits-prefix", &redis.prefix),
        None => deployment,
    }
}

/// Two replicas of `deployment`, which keeps its limits in `store` (as the start-up message
/// names it): the key gets one allowance between them, and a guesser one set of tries.
async fn two_replicas_share_the_limits(deployment: &Deployment, store: &str) {
    let key = deployment.new_key();
    let (a, b) = (deployment.serve(&[]), deployment.serve(&[]));
    let printed = a.printed();
    assert!(
        printed.contains(&format!("rate limits: {store}")),
        "{printed}"
    );
    let (allowed, seconds) = spend(&[&a, &b], &key).await;
    assert_one_allowance(allowed, seconds);
    assert_eq!(
        guesses_checked(deployment, &[&a, &b]).await,
        SIGN_INS_PER_EMAIL_AND_NETWORK
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_postgres_give_a_key_one_allowance_and_a_guesser_one_set_of_tries() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let deployment = deployment(&db, None);
    two_replicas_share_the_limits(&deployment, "PostgreSQL").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_with_limits_in_redis_give_a_key_one_allowance_and_a_guesser_one_set_of_tries()
{
    let Some(db) = TestDb::create().await else {
        return;
    };
    let Some(redis) = TestRedis::find().await else {
        return;
    };
    let deployment = deployment(&db, Some(&redis));
    two_replicas_share_the_limits(&deployment, "Redis").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_replica_alone_keeps_its_limits_in_process_by_default() {
    let deployment = Deployment::new().config(&rates());
    let key = deployment.new_key();
    let server = deployment.serve(&[]);
    assert!(
        server.printed().contains("rate limits: this process"),
        "{}",
        server.printed()
    );
    let (allowed, seconds) = spend(&[&server], &key).await;
    assert_one_allowance(allowed, seconds);
}

/// The Redis of `redis` behind a cable, for a deployment on `db` with `extra` flags.
async fn behind_a_cable(
    db: &TestDb,
    redis: &TestRedis,
    extra: &[&str],
) -> (Deployment, Cable, Key, Server) {
    let address = redis
        .url
        .trim_start_matches("redis://")
        .split('/')
        .next()
        .unwrap()
        .replace("localhost", "127.0.0.1");
    let cable = Cable::to(address.parse().unwrap()).await;
    let through = TestRedis {
        url: format!("redis://{}", cable.addr),
        prefix: redis.prefix.clone(),
    };
    let deployment = deployment(db, Some(&through));
    let key = deployment.new_key();
    let server = deployment.serve(extra);
    assert_eq!(conditions(&server, &key).await.status, 200);
    (deployment, cable, key, server)
}

/// Polls the API until it answers `status`; that reply.
async fn until_status(server: &Server, key: &Key, status: u16) -> Reply {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let reply = conditions(server, key).await;
        assert_ne!(reply.status, 500, "{reply:?}");
        if reply.status == status {
            return reply;
        }
        assert!(
            Instant::now() < deadline,
            "still {} after {PATIENCE:?}: {}",
            reply.status,
            String::from_utf8_lossy(&reply.body)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A sign-in attempt on `server` for a new account.
async fn a_sign_in(deployment: &Deployment, server: &Server) -> Reply {
    let email = new_email();
    deployment.create_account(&email, PASSWORD);
    Browser::new(server).sign_in(&email, "a wrong guess").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_limit_store_cut_off_is_503_with_retry_after_when_closed() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let Some(redis) = TestRedis::find().await else {
        return;
    };
    let (deployment, cable, key, server) =
        behind_a_cable(&db, &redis, &["--limits-unavailable", "closed"]).await;
    cable.cut();
    let refused = until_status(&server, &key, 503).await;
    refused.assert_error(503, "unavailable", &["rate limit"]);
    let retry_after: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!(retry_after >= 1);
    let sign_in = a_sign_in(&deployment, &server).await;
    assert_eq!(sign_in.status, 503, "{}", text(&sign_in));
    assert!(sign_in.header("retry-after").is_some());

    cable.restore();
    until_status(&server, &key, 200).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_limit_store_cut_off_falls_back_to_local_limits_when_open_but_sign_ins_wait() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let Some(redis) = TestRedis::find().await else {
        return;
    };
    let (deployment, cable, key, server) = behind_a_cable(&db, &redis, &[]).await;
    cable.cut();
    // Every answer during the outage is the API's own: allowed by this process's limits, or
    // limited by them once the local burst is spent.
    let (allowed, seconds) = spend(&[&server], &key).await;
    assert!(allowed >= 1, "the open setting lets requests through");
    assert!(
        allowed <= BURST + usize::try_from(seconds).unwrap(),
        "and still limits them: {allowed} in {seconds} s"
    );
    let sign_in = a_sign_in(&deployment, &server).await;
    assert_eq!(
        sign_in.status,
        503,
        "sign-ins fail closed: {}",
        text(&sign_in)
    );
    let metrics = Reply::read(client().get(server.url("/metrics")).send().await.unwrap()).await;
    let metrics = String::from_utf8_lossy(&metrics.body).into_owned();
    let counted = |outcome: &str, bucket: &str| {
        metrics.lines().any(|l| {
            l.starts_with("insights_limit_store_failures_total{")
                && l.contains(&format!("bucket=\"{bucket}\""))
                && l.contains(&format!("outcome=\"{outcome}\""))
        })
    };
    assert!(counted("decided_locally", "api_key"), "{metrics}");
    assert!(counted("refused", "sign_in_network"), "{metrics}");

    cable.restore();
    until_status(&server, &key, 200).await;
}
