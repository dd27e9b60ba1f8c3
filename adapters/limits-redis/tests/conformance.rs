//! The limit store's conformance suite on the Redis at 127.0.0.1:6379 (or the one
//! `INSIGHTS_TEST_REDIS_URL` names); skipped when it is absent, unless the run requires every
//! service.

#![allow(clippy::unwrap_used)]

use identity_core::ports::LimitStore as _;
use limits_redis::RedisLimits;
use test_support::redis::TestRedis;

#[tokio::test]
async fn redis_passes_the_limit_suite() {
    let Some(redis) = TestRedis::find().await else {
        return;
    };
    let limits = RedisLimits::open(&redis.url, &redis.prefix).unwrap();
    limits.ping().await.unwrap();
    identity_core::conformance::limits(&limits).await;
}

#[tokio::test]
async fn an_unreachable_redis_is_an_error_not_a_hang() {
    // A port nothing listens on: connecting is refused at once.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let limits = RedisLimits::open(&format!("redis://127.0.0.1:{port}"), "t:").unwrap();
    let quota = identity_core::ports::Quota::per_minute(std::num::NonZeroU32::MIN);
    let result = limits.take("b", "k", quota, 1, chrono::Utc::now()).await;
    assert!(
        matches!(
            result,
            Err(identity_core::ports::LimitError::Unavailable(_))
        ),
        "{result:?}"
    );
}
