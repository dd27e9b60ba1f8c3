//! Where rate limits are kept, from the settings: this process, the PostgreSQL database or
//! Redis; and the sweep of the database's refilled rows.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use identity_core::limiter::Limiter;
use identity_core::ports::{Decision, LimitError, LimitStore, Quota};
use limits_redis::RedisLimits;
use runtime_core::Clock;
use store_postgres::PgStore;
use tokio::sync::watch;

use crate::config::{LimitsAt, Settings};
use crate::private::redact_url;

/// The longest a limit check waits for the shared store: it is on the path of every API
/// request and sign-in, so a store that hangs must not hold them; past this the setting
/// `limits_unavailable` decides.
const STORE_TIMEOUT: Duration = Duration::from_secs(1);
/// How often the database's rows of refilled limits are deleted.
const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// Rows deleted per statement of that sweep.
const SWEEP_BATCH: i64 = 5_000;

/// A shared store whose every answer comes within [`STORE_TIMEOUT`] or is an error.
struct Timed(Arc<dyn LimitStore>);

#[async_trait]
impl LimitStore for Timed {
    async fn take(
        &self,
        bucket: &str,
        key: &str,
        quota: Quota,
        cost: u32,
        now: DateTime<Utc>,
    ) -> Result<Decision, LimitError> {
        tokio::time::timeout(STORE_TIMEOUT, self.0.take(bucket, key, quota, cost, now))
            .await
            .unwrap_or_else(|_| {
                Err(LimitError::Unavailable(format!(
                    "no answer within {} ms",
                    STORE_TIMEOUT.as_millis()
                )))
            })
    }
}

/// The limits of the settings, reporting store failures to `metrics`. `database` is the
/// PostgreSQL store when the database is PostgreSQL. Also says where they are, for the
/// start-up message.
pub(crate) async fn open_limiter(
    settings: &Settings,
    database: Option<&Arc<PgStore>>,
    metrics: &insights_http::Metrics,
) -> Result<(Arc<Limiter>, String)> {
    let (store, at): (Arc<dyn LimitStore>, String) = match (&settings.limits, database) {
        (LimitsAt::Memory, _) => {
            return Ok((Arc::new(Limiter::in_process()), "this process".into()));
        }
        (LimitsAt::Database, Some(pg)) => (pg.clone(), "PostgreSQL (shared)".into()),
        (LimitsAt::Database, None) => {
            anyhow::bail!("limits can be kept in the database only when it is PostgreSQL")
        }
        (LimitsAt::Redis(url), _) => {
            let redis = RedisLimits::open(url, &settings.limits_prefix)
                .with_context(|| format!("cannot set up the limits in {}", redact_url(url)))?;
            // A Redis that is down at start-up is no reason not to serve: the setting says
            // what happens meanwhile.
            if let Err(e) = redis.ping().await {
                tracing::warn!(limits = %redact_url(url), error = %e,
                    "the limits' Redis does not answer yet");
            }
            (
                Arc::new(redis),
                format!("Redis (shared, {})", redact_url(url)),
            )
        }
    };
    let limiter = Limiter::shared(Arc::new(Timed(store)), settings.limits_unavailable)
        .with_observer(Arc::new(metrics.clone()));
    Ok((Arc::new(limiter), at))
}

/// Every [`SWEEP_EVERY`], deletes the database's rows of limits that have refilled: they mean
/// the same as no row, and the table would otherwise keep every key ever limited.
pub(crate) async fn sweep_limits(
    store: Arc<PgStore>,
    clock: Arc<dyn Clock>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        loop {
            match store.purge_limits(clock.now(), SWEEP_BATCH).await {
                Ok(n) if n == u64::try_from(SWEEP_BATCH).unwrap_or(0) && !*stop.borrow() => {}
                Ok(_) => break,
                Err(e) => {
                    tracing::debug!(error = %e, "cannot sweep refilled limits");
                    break;
                }
            }
        }
        tokio::select! {
            () = tokio::time::sleep(SWEEP_EVERY) => {}
            _ = stop.changed() => return,
        }
    }
}
