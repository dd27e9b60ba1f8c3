//! Writes stored together: many small requests, or many jobs' settlements, one transaction.
//!
//! Accepting a request writes it durably before the client hears back, and a worker records
//! each delivery attempt with its job's next state before it moves on. On its own, each would
//! be a transaction of its own, with its own commit (an fsync on SQLite with
//! `synchronous = FULL`) and its own turn at the database's single writer. Writes that arrive
//! while one is under way wait for the next instead, and that one stores all of them in one
//! transaction: each caller still hears back only once its write is committed, so nothing a
//! client or a job was promised changes.
//!
//! Only requests whose points are all in memory (one page) and that carry no idempotency key
//! go this way, and settlements that record an attempt; the others keep their transaction of
//! their own.
//!
//! ```
//! use alerts_core::ids::Token;
//! use alerts_core::ports::NewAlertJob;
//! use identity_core::ids::KeyId;
//! use store_sql::batch::{BatchQueue, SmallRequest};
//!
//! let queue = BatchQueue::<SmallRequest>::default();
//! let job = |n: u128| NewAlertJob {
//!     token: Token(uuid::Uuid::from_u128(n)),
//!     key_id: KeyId(uuid::Uuid::nil()),
//!     received_at: chrono::Utc::now(),
//! };
//! // The first request finds no write under way: its caller starts one.
//! let small = |n| SmallRequest { job: job(n), points: Vec::new() };
//! let (_first, start) = queue.push(small(1));
//! assert!(start);
//! // The next waits for that write to take it.
//! let (_second, start) = queue.push(small(2));
//! assert!(!start);
//! assert_eq!(queue.next_batch().map(|b| b.len()), Some(2));
//! // Nothing left: the write is over, and the next request starts another.
//! assert!(queue.next_batch().is_none());
//! assert!(queue.push(small(3)).1);
//! ```

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use alerts_core::ids::Token;
use alerts_core::ports::{
    Lease, NewAlertJob, PointPages, Settlement, StoreError, check_page_total,
};
use alerts_core::request::AlertPoint;
use tokio::sync::oneshot;

use crate::{InProcess, SqlDialect};

/// The most writes one transaction stores: enough that a burst is a few transactions, few
/// enough that one transaction holds the writer for milliseconds.
pub const MOST_PER_BATCH: usize = 256;

/// A small request to store: its job and all its points.
#[derive(Debug)]
pub struct SmallRequest {
    /// The request's job.
    pub job: NewAlertJob,
    /// Its points, all of them.
    pub points: Vec<AlertPoint>,
}

/// What became of a held job, to store under its lease.
#[derive(Debug)]
pub struct HeldSettlement {
    /// The job.
    pub token: Token,
    /// The lease its worker holds.
    pub lease: Lease,
    /// The attempt and the job's next state.
    pub settlement: Settlement,
}

/// A write waiting to be stored, and where its outcome goes.
#[derive(Debug)]
pub struct Queued<T> {
    /// The write.
    pub item: T,
    reply: oneshot::Sender<Result<(), StoreError>>,
}

impl<T> Queued<T> {
    /// Tells the write's caller how it ended. A caller that went away meanwhile does not need
    /// telling.
    pub fn answer(self, outcome: Result<(), StoreError>) {
        let _ = self.reply.send(outcome);
    }
}

/// The writes waiting for the next transaction, and whether a writer is under way.
#[derive(Debug)]
pub struct BatchQueue<T> {
    state: Mutex<State<T>>,
}

impl<T> Default for BatchQueue<T> {
    fn default() -> Self {
        Self {
            state: Mutex::new(State {
                waiting: Vec::new(),
                writing: false,
            }),
        }
    }
}

#[derive(Debug)]
struct State<T> {
    waiting: Vec<Queued<T>>,
    writing: bool,
}

/// Where a write's outcome arrives.
pub type Outcome = oneshot::Receiver<Result<(), StoreError>>;

impl<T> BatchQueue<T> {
    /// Queues a write: where its outcome will arrive, and `true` when no writer was under way,
    /// so that the caller must start one (which takes batches with [`BatchQueue::next_batch`]
    /// until there are none).
    pub fn push(&self, item: T) -> (Outcome, bool) {
        let (reply, outcome) = oneshot::channel();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.waiting.push(Queued { item, reply });
        let start = !state.writing;
        state.writing = true;
        (outcome, start)
    }

    /// The next writes to store, oldest first, at most [`MOST_PER_BATCH`]; `None` when none
    /// wait, which ends the writer under way.
    pub fn next_batch(&self) -> Option<Vec<Queued<T>>> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.waiting.is_empty() {
            state.writing = false;
            return None;
        }
        let take = state.waiting.len().min(MOST_PER_BATCH);
        Some(state.waiting.drain(..take).collect())
    }

    /// Ends the writer under way short: every write still waiting is answered
    /// [`StoreError::Unavailable`] (it was never tried, and may be made again), and the next
    /// write starts another writer.
    fn abandon(&self) {
        let waiting = {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.writing = false;
            std::mem::take(&mut state.waiting)
        };
        for queued in waiting {
            queued.answer(Err(StoreError::Unavailable(
                "the write that was to store this stopped before it began".to_owned(),
            )));
        }
    }
}

/// How a batch's transaction failed.
#[derive(Debug)]
pub enum BatchFailed {
    /// The transaction itself (no writer to be had, a failed commit): the same for every write
    /// of the batch, which would only fail again one by one.
    Transaction(StoreError),
    /// One write's own statement; the others may be stored one by one.
    Write(StoreError),
}

impl BatchFailed {
    /// The database's error, however the transaction failed.
    #[must_use]
    pub fn into_error(self) -> StoreError {
        match self {
            Self::Transaction(e) | Self::Write(e) => e,
        }
    }
}

/// A writer's hold on its queue, made before the writer's task is started and moved into it:
/// however the task ends without finishing (it panicked, or was dropped before it ran), the
/// writes left waiting are answered and the next write starts another writer, so that none
/// waits for a writer that is gone.
#[derive(Debug)]
pub struct WriterGuard<T: 'static> {
    kept: Arc<InProcess>,
    queue: fn(&InProcess) -> &BatchQueue<T>,
    finished: bool,
}

impl<T> WriterGuard<T> {
    /// A hold on the queue `queue` picks of `kept`.
    #[must_use]
    pub fn new(kept: Arc<InProcess>, queue: fn(&InProcess) -> &BatchQueue<T>) -> Self {
        Self {
            kept,
            queue,
            finished: false,
        }
    }

    /// The queue.
    #[must_use]
    pub fn queue(&self) -> &BatchQueue<T> {
        (self.queue)(&self.kept)
    }

    /// Lets go once [`BatchQueue::next_batch`] found nothing waiting, which ended the writer.
    pub fn finish(mut self) {
        self.finished = true;
    }
}

impl<T> Drop for WriterGuard<T> {
    fn drop(&mut self) {
        if !self.finished {
            self.queue().abandon();
        }
    }
}

/// Reads a small request whole, to be stored with the others waiting: a page's worth at most,
/// and one more page when the pages hold more than they announced, which is refused.
///
/// # Errors
/// [`StoreError::Corrupt`] when the pages do not hold the points they announced; the pages'
/// own.
pub async fn read_small(pages: &mut dyn PointPages) -> Result<Vec<AlertPoint>, StoreError> {
    let mut points = Vec::new();
    loop {
        let page = pages.next_page().await?;
        if page.is_empty() {
            break;
        }
        points.extend(page);
        if points.len() as u64 > pages.total() {
            break;
        }
    }
    check_page_total(points.len() as u64, pages)?;
    Ok(points)
}

/// The transactions a store writes batches in: the driver's part of the writers here, which
/// [`sql_store!`](crate::sql_store) implements.
pub trait BatchStore: SqlDialect + Clone {
    /// Stores every request of `batch`, with its points and its job, in one transaction, or
    /// none of them.
    fn insert_requests(
        &self,
        batch: &[Queued<SmallRequest>],
    ) -> impl Future<Output = Result<(), BatchFailed>> + Send;

    /// Stores every settlement of `batch` in one transaction, or none of them: whether each
    /// changed its job (no when its lease was lost).
    fn insert_settlements(
        &self,
        batch: &[Queued<HeldSettlement>],
    ) -> impl Future<Output = Result<Vec<bool>, BatchFailed>> + Send;

    /// After a settlement changed no job: the job is unknown, or another worker holds it.
    fn lease_lost_or_missing(&self, token: Token) -> impl Future<Output = StoreError> + Send;
}

/// Stores `request` with the other small requests waiting, and returns once the transaction
/// that holds it is committed.
///
/// # Errors
/// The transaction's, or [`StoreError::Unavailable`] when the write that was to store it
/// stopped.
pub async fn store_request<S: BatchStore>(
    store: &S,
    request: SmallRequest,
) -> Result<(), StoreError> {
    store_together(store, |kept| &kept.enqueues, request, write_requests).await
}

/// Stores `held` with the other settlements waiting, and returns once the transaction that
/// holds it is committed.
///
/// # Errors
/// [`StoreError::LeaseLost`] when the job's lease was lost, [`StoreError::NotFound`] when
/// there is no such job; the transaction's, or [`StoreError::Unavailable`] when the write that
/// was to store it stopped.
pub async fn store_settlement<S: BatchStore>(
    store: &S,
    held: HeldSettlement,
) -> Result<(), StoreError> {
    store_together(store, |kept| &kept.settlements, held, write_settlements).await
}

/// Queues `item` for the next transaction of its kind, in the queue of `store` that `queue`
/// picks, starts `writer` when no write of that kind is under way, and returns once the
/// transaction that holds `item` is committed.
async fn store_together<S, T, F>(
    store: &S,
    queue: fn(&InProcess) -> &BatchQueue<T>,
    item: T,
    writer: fn(S, WriterGuard<T>) -> F,
) -> Result<(), StoreError>
where
    S: BatchStore,
    T: 'static,
    F: Future<Output = ()> + Send + 'static,
{
    let (outcome, start) = queue(store.in_process()).push(item);
    if start {
        // A task of its own, so that a caller going away (a client that hung up, a worker
        // stopping) cannot stop a write that others wait for; the guard is made first, so that
        // even a task that never runs lets go.
        let guard = WriterGuard::new(store.in_process().clone(), queue);
        drop(store.spawn_write(writer(store.clone(), guard)));
    }
    outcome.await.map_err(|_| {
        StoreError::Unavailable("the write that was to store this stopped".to_owned())
    })?
}

/// Stores the waiting small requests, a batch per transaction, until none wait.
async fn write_requests<S: BatchStore>(store: S, guard: WriterGuard<SmallRequest>) {
    while let Some(batch) = guard.queue().next_batch() {
        match store.insert_requests(&batch).await {
            Ok(()) => {
                store.jobs_arrived();
                for queued in batch {
                    queued.answer(Ok(()));
                }
            }
            Err(BatchFailed::Transaction(e)) => {
                for queued in batch {
                    queued.answer(Err(e.clone()));
                }
            }
            Err(BatchFailed::Write(e)) if batch.len() == 1 => {
                batch
                    .into_iter()
                    .for_each(|queued| queued.answer(Err(e.clone())));
            }
            // Each request in a transaction of its own, so that one that cannot be stored (its
            // key deleted meanwhile, say) does not fail the others.
            Err(BatchFailed::Write(_)) => {
                for queued in batch {
                    let stored = store
                        .insert_requests(std::slice::from_ref(&queued))
                        .await
                        .map_err(BatchFailed::into_error);
                    if stored.is_ok() {
                        store.jobs_arrived();
                    }
                    queued.answer(stored);
                }
            }
        }
    }
    guard.finish();
}

/// Stores the waiting settlements, a batch per transaction, until none wait.
async fn write_settlements<S: BatchStore>(store: S, guard: WriterGuard<HeldSettlement>) {
    while let Some(batch) = guard.queue().next_batch() {
        let changed: Vec<Result<bool, StoreError>> = match store.insert_settlements(&batch).await {
            Ok(changed) => changed.into_iter().map(Ok).collect(),
            Err(BatchFailed::Transaction(e)) => vec![Err(e); batch.len()],
            Err(BatchFailed::Write(e)) if batch.len() == 1 => vec![Err(e)],
            // Each on its own, so that one that cannot be stored does not fail the others.
            Err(BatchFailed::Write(_)) => {
                let mut each = Vec::with_capacity(batch.len());
                for queued in &batch {
                    let alone = store
                        .insert_settlements(std::slice::from_ref(queued))
                        .await
                        .map(|changed| changed.contains(&true))
                        .map_err(BatchFailed::into_error);
                    each.push(alone);
                }
                each
            }
        };
        for (queued, changed) in batch.into_iter().zip(changed) {
            let outcome = match changed {
                Ok(true) => Ok(()),
                Ok(false) => Err(store.lease_lost_or_missing(queued.item.token).await),
                Err(e) => Err(e),
            };
            queued.answer(outcome);
        }
    }
    guard.finish();
}

#[cfg(test)]
mod tests {
    use alerts_core::ids::Token;
    use identity_core::ids::KeyId;

    use super::*;

    fn small(n: u128) -> SmallRequest {
        SmallRequest {
            job: NewAlertJob {
                token: Token(uuid::Uuid::from_u128(n)),
                key_id: KeyId(uuid::Uuid::nil()),
                received_at: chrono::DateTime::UNIX_EPOCH,
            },
            points: Vec::new(),
        }
    }

    #[test]
    fn a_writer_gone_without_finishing_answers_what_waits_and_lets_the_next_write_start_one() {
        let kept = Arc::new(InProcess::default());
        let (mut first, start) = kept.enqueues.push(small(1));
        assert!(start);
        let (mut second, start) = kept.enqueues.push(small(2));
        assert!(!start);
        // The writer's task is dropped before it took anything.
        drop(WriterGuard::new(kept.clone(), |kept| &kept.enqueues));
        for outcome in [&mut first, &mut second] {
            assert!(
                matches!(outcome.try_recv(), Ok(Err(StoreError::Unavailable(_)))),
                "a write left waiting is told it was not made"
            );
        }
        assert!(
            kept.enqueues.push(small(3)).1,
            "the next write starts a writer"
        );
    }

    #[test]
    fn a_writer_that_finished_leaves_the_next_write_to_start_one() {
        let kept = Arc::new(InProcess::default());
        let (_outcome, _) = kept.enqueues.push(small(1));
        let guard = WriterGuard::new(kept.clone(), |kept| &kept.enqueues);
        assert_eq!(guard.queue().next_batch().map(|b| b.len()), Some(1));
        assert!(guard.queue().next_batch().is_none());
        guard.finish();
        assert!(kept.enqueues.push(small(2)).1);
    }
}
