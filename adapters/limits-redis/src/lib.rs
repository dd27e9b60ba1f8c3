//! Rate limits shared by every replica, kept in Redis: [`RedisLimits`] implements
//! identity-core's [`LimitStore`] and passes its conformance suite.
//!
//! Each limited key is one Redis string, `PREFIX` + bucket + `:` + key, holding the instant its
//! allowance is whole again (microseconds since the epoch) and expiring at that instant. One
//! Lua script per request reads it, applies the GCRA step of [`identity_core::ports::gcra`] and
//! writes it back with its expiry, atomically (Redis runs a script alone); the script is sent
//! by its digest (`EVALSHA`), and its text only when the server does not know it yet.
//!
//! ```no_run
//! # async fn demo() -> Result<(), identity_core::ports::LimitError> {
//! use std::num::NonZeroU32;
//! use identity_core::ports::{LimitStore, Quota};
//! use limits_redis::RedisLimits;
//!
//! let limits = RedisLimits::open("redis://127.0.0.1:6379", "insights:limits:")?;
//! let quota = Quota::per_minute(NonZeroU32::new(5).unwrap());
//! let decision = limits.take("sign_in", "ada", quota, 1, chrono::Utc::now()).await?;
//! # Ok(()) }
//! ```

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::ports::{Decision, LimitError, LimitStore, Quota, micros};
use redis::Script;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// The GCRA step: `ARGV` are now, the units' intervals and the burst's, in microseconds.
/// Answers `{1, full_in}` when allowed (how long until the allowance is whole again),
/// `{0, wait}` when limited. The time is written with `%.0f`
/// since Lua's own number formatting keeps only 14 digits.
const TAKE: &str = r"
local now = tonumber(ARGV[1])
local increment = tonumber(ARGV[2])
local tolerance = tonumber(ARGV[3])
local tat = now
local stored = redis.call('GET', KEYS[1])
if stored then
  tat = math.max(tonumber(stored), now)
end
local new_tat = tat + increment
local allow_at = new_tat - tolerance
if allow_at > now then
  return {0, allow_at - now}
end
local ttl_ms = math.max(1, math.ceil((new_tat - now) / 1000))
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', ttl_ms)
return {1, new_tat - now}
";

/// How long connecting, and each answer, may take: a limit check is on every request's path,
/// so a Redis that does not answer must fail fast and leave the decision to the caller's
/// policy.
const TIMEOUT: Duration = Duration::from_millis(500);

/// Rate limits in Redis. Cheap to clone: clones share one multiplexed connection, which
/// reconnects by itself after Redis restarts.
#[derive(Clone)]
pub struct RedisLimits {
    connection: ConnectionManager,
    script: Script,
    prefix: String,
}

impl std::fmt::Debug for RedisLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLimits")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisLimits {
    /// Limits at `url` (`redis://host:port/db`, or `rediss://` with TLS when built with it),
    /// every key starting with `prefix` so that one Redis may serve several deployments. The
    /// connection is made on first use: a Redis that is down at start-up delays nothing.
    ///
    /// # Errors
    /// [`LimitError::Unavailable`] when the URL is malformed.
    pub fn open(url: &str, prefix: &str) -> Result<Self, LimitError> {
        let client = redis::Client::open(url).map_err(|e| {
            LimitError::Unavailable(format!(
                "the limits URL is not valid ({e}); expected redis://host:port"
            ))
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(1);
        let connection = ConnectionManager::new_lazy_with_config(client, config)
            .map_err(|e| LimitError::Unavailable(e.to_string()))?;
        Ok(Self {
            connection,
            script: Script::new(TAKE),
            prefix: prefix.to_owned(),
        })
    }

    /// Checks that Redis answers.
    ///
    /// # Errors
    /// [`LimitError::Unavailable`] when it does not.
    pub async fn ping(&self) -> Result<(), LimitError> {
        let mut connection = self.connection.clone();
        redis::cmd("PING")
            .query_async::<String>(&mut connection)
            .await
            .map(|_| ())
            .map_err(unavailable)
    }
}

fn unavailable(e: redis::RedisError) -> LimitError {
    LimitError::Unavailable(e.to_string())
}

#[async_trait]
impl LimitStore for RedisLimits {
    async fn take(
        &self,
        bucket: &str,
        key: &str,
        quota: Quota,
        cost: u32,
        now: DateTime<Utc>,
    ) -> Result<Decision, LimitError> {
        let increment = quota.emission_interval_us().saturating_mul(i64::from(cost));
        let mut connection = self.connection.clone();
        let (allowed, micros_left): (i64, i64) = self
            .script
            .key(format!("{}{bucket}:{key}", self.prefix))
            .arg(micros(now))
            .arg(increment)
            .arg(quota.tolerance_us())
            .invoke_async(&mut connection)
            .await
            .map_err(|e| {
                if matches!(
                    e.kind(),
                    redis::ErrorKind::UnexpectedReturnType | redis::ErrorKind::Parse
                ) {
                    LimitError::Corrupt(e.to_string())
                } else {
                    unavailable(e)
                }
            })?;
        let left = Duration::from_micros(u64::try_from(micros_left).unwrap_or(0));
        Ok(match allowed {
            1 => Decision::Allowed { full_in: left },
            _ => Decision::Limited { retry_after: left },
        })
    }
}
