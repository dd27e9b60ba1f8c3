//! Telling idle workers that work arrived: the [`Arrivals`] a [`JobQueue`](super::JobQueue)
//! hands out, and [`ArrivalHub`], the in-process way of keeping the promise.
//!
//! A worker that found nothing to claim waits on its [`Arrivals`] instead of asking the store
//! again and again. What the promise covers is what a worker cannot know by itself: jobs stored,
//! put back by a redeliver, or given back by a worker that stopped. A retry that a worker
//! scheduled is due at a time that worker knows, and a job whose holder died is claimable once
//! its lease ends; a service still claims now and then without being told (a safety poll), for
//! those and for notices lost with a connection.

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use futures::StreamExt as _;
use futures::channel::mpsc;

use super::StoreError;

/// Notices that jobs may have become claimable, for one worker (see the [module](self)).
///
/// Notices do not pile up: any number of them since the last [`Arrivals::next`] make the next
/// call return at once, once.
#[async_trait]
pub trait Arrivals: Send {
    /// Returns once jobs may have become claimable since the subscription was made or the
    /// previous call returned. It may also return when nothing arrived (a lost connection, for
    /// one), so that a claim finds out; it never misses a notice of its own store.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when notices cannot be received at the moment; the caller
    /// waits a while before it calls again.
    async fn next(&mut self) -> Result<(), StoreError>;
}

/// Arrivals within one process: every [`ArrivalHub::notify`] reaches every subscription made
/// before it. A store whose writers all live in one process (memory, embedded SQLite) keeps
/// its promise with one.
///
/// ```
/// use alerts_core::ports::{ArrivalHub, Arrivals};
///
/// let hub = ArrivalHub::default();
/// let mut worker = hub.subscribe();
/// hub.notify();
/// hub.notify();
/// futures::executor::block_on(worker.next()).unwrap();
/// // Two notices, one wake-up: nothing is pending now.
/// assert!(futures::FutureExt::now_or_never(worker.next()).is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ArrivalHub {
    subscribers: Arc<Mutex<Vec<mpsc::Sender<()>>>>,
}

impl ArrivalHub {
    /// A new subscription, told of every later notice.
    #[must_use]
    pub fn subscribe(&self) -> Box<dyn Arrivals> {
        // Room for one notice: further ones while it waits add nothing.
        let (sender, receiver) = mpsc::channel(0);
        self.subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(sender);
        Box::new(HubArrivals { receiver })
    }

    /// Tells every subscription that jobs may have become claimable; subscriptions dropped
    /// since are forgotten.
    pub fn notify(&self) {
        self.subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain_mut(|s| match s.try_send(()) {
                Ok(()) => true,
                Err(e) => !e.is_disconnected(),
            });
    }
}

struct HubArrivals {
    receiver: mpsc::Receiver<()>,
}

#[async_trait]
impl Arrivals for HubArrivals {
    async fn next(&mut self) -> Result<(), StoreError> {
        match self.receiver.next().await {
            Some(()) => Ok(()),
            // The hub is gone with its store: nothing more will arrive.
            None => futures::future::pending().await,
        }
    }
}
