//! Arrivals on PostgreSQL: `LISTEN` on the channel that the `alert_jobs` triggers notify (see
//! the migration `0008_job_arrivals.sql`), so that a job stored by any replica wakes the idle
//! workers of every replica.
//!
//! Each subscription has a connection of its own, read without pause by a task of its own, so
//! that notices never pile up on the server while the workers are busy; the task keeps one
//! notice for the worker and ends when the worker drops its subscription.

use std::time::Duration;

use alerts_core::ports::{Arrivals, StoreError};
use async_trait::async_trait;
use futures::StreamExt as _;
use futures::channel::mpsc;
use sqlx::PgPool;
use sqlx::postgres::PgListener;

/// The channel of the schema the store's connections use, as the triggers name it.
const CHANNEL: &str = "SELECT 'insights_jobs_' || left(md5(current_schema()), 16)";

/// How long the listening task waits after the server could not be reached.
const RECONNECT_PAUSE: Duration = Duration::from_secs(1);

/// Subscribes a worker to the notices of its schema's channel.
pub(crate) async fn subscribe(pool: &PgPool) -> Result<Box<dyn Arrivals>, StoreError> {
    let unavailable = |e: sqlx::Error| StoreError::Unavailable(format!("PostgreSQL: {e}"));
    let channel: String = sqlx::query_scalar(CHANNEL)
        .fetch_one(pool)
        .await
        .map_err(unavailable)?;
    let mut listener = PgListener::connect_with(pool).await.map_err(unavailable)?;
    listener.listen(&channel).await.map_err(unavailable)?;
    // Room for one notice: further ones while the worker is busy add nothing.
    let (mut notices, receiver) = mpsc::channel(0);
    tokio::spawn(async move {
        loop {
            // A lost connection is a notice too: notices sent meanwhile are lost, so the
            // worker claims to find out. The listener reconnects on the next call.
            let received = listener.try_recv().await;
            if let Err(e) = notices.try_send(())
                && e.is_disconnected()
            {
                break;
            }
            if received.is_err() {
                tokio::time::sleep(RECONNECT_PAUSE).await;
            }
        }
    });
    Ok(Box::new(PgArrivals { receiver }))
}

struct PgArrivals {
    receiver: mpsc::Receiver<()>,
}

#[async_trait]
impl Arrivals for PgArrivals {
    async fn next(&mut self) -> Result<(), StoreError> {
        self.receiver.next().await.ok_or_else(|| {
            StoreError::Unavailable("PostgreSQL: the listening task stopped".to_owned())
        })
    }
}
