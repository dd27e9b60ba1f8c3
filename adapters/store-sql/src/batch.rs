//! Small alert requests stored together: many requests, one transaction.
//!
//! Accepting a request writes it durably before the client hears back. On its own, each small
//! request would be a transaction of its own, with its own commit (an fsync on SQLite with
//! `synchronous = FULL`) and its own turn at the database's single writer, and a stream of
//! small requests would take most of the writer's turns from the alert workers' claims and
//! settlements. Requests that arrive while a write is under way wait for the next one instead,
//! and that one stores all of them in one transaction: each still hears back only once it is
//! committed, so nothing an accepted request was promised changes.
//!
//! Only requests whose points are all in memory (one page) and that carry no idempotency key
//! go this way; the others keep their transaction of their own.
//!
//! ```
//! use alerts_core::ids::Token;
//! use alerts_core::ports::NewAlertJob;
//! use identity_core::ids::KeyId;
//! use store_sql::batch::EnqueueQueue;
//!
//! let queue = EnqueueQueue::default();
//! let job = |n: u128| NewAlertJob {
//!     token: Token(uuid::Uuid::from_u128(n)),
//!     key_id: KeyId(uuid::Uuid::nil()),
//!     received_at: chrono::Utc::now(),
//! };
//! // The first request finds no write under way: its caller starts one.
//! let (_first, start) = queue.push(job(1), Vec::new());
//! assert!(start);
//! // The next waits for that write to take it.
//! let (_second, start) = queue.push(job(2), Vec::new());
//! assert!(!start);
//! assert_eq!(queue.next_batch().map(|b| b.len()), Some(2));
//! // Nothing left: the write is over, and the next request starts another.
//! assert!(queue.next_batch().is_none());
//! assert!(queue.push(job(3), Vec::new()).1);
//! ```

use std::sync::{Mutex, PoisonError};

use alerts_core::ports::{NewAlertJob, StoreError};
use alerts_core::request::AlertPoint;
use tokio::sync::oneshot;

/// The most requests one transaction stores: enough that a burst is a few transactions, few
/// enough that one transaction holds the writer for milliseconds.
pub const MOST_PER_BATCH: usize = 256;

/// A request waiting to be stored, and where its outcome goes.
#[derive(Debug)]
pub struct Queued {
    /// The request's job.
    pub job: NewAlertJob,
    /// Its points, all of them.
    pub points: Vec<AlertPoint>,
    reply: oneshot::Sender<Result<(), StoreError>>,
}

impl Queued {
    /// Tells the request's caller how its write ended. A caller that went away meanwhile does
    /// not need telling.
    pub fn answer(self, outcome: Result<(), StoreError>) {
        let _ = self.reply.send(outcome);
    }
}

/// The requests waiting for the next write, and whether a write is under way.
#[derive(Debug, Default)]
pub struct EnqueueQueue {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    waiting: Vec<Queued>,
    writing: bool,
}

/// Where a request's outcome arrives.
pub type Outcome = oneshot::Receiver<Result<(), StoreError>>;

impl EnqueueQueue {
    /// Queues a request: where its outcome will arrive, and `true` when no write was under
    /// way, so that the caller must start one (which takes batches with
    /// [`EnqueueQueue::next_batch`] until there are none).
    pub fn push(&self, job: NewAlertJob, points: Vec<AlertPoint>) -> (Outcome, bool) {
        let (reply, outcome) = oneshot::channel();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.waiting.push(Queued { job, points, reply });
        let start = !state.writing;
        state.writing = true;
        (outcome, start)
    }

    /// The next requests to store, oldest first, at most [`MOST_PER_BATCH`]; `None` when none
    /// wait, which ends the write under way.
    pub fn next_batch(&self) -> Option<Vec<Queued>> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.waiting.is_empty() {
            state.writing = false;
            return None;
        }
        let take = state.waiting.len().min(MOST_PER_BATCH);
        Some(state.waiting.drain(..take).collect())
    }

    /// Marks the write under way as over, whatever became of it, so that the next request
    /// starts another, which takes what was left waiting: for a writer that stopped short (its
    /// task panicked or was dropped). Called after a write that ended normally it may let two
    /// writes run at once for a while, which only stores fewer requests per transaction.
    pub fn writer_stopped(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.writing = false;
    }
}

/// Ends the write under way when dropped, however the writer's task ends.
#[derive(Debug)]
pub struct WriterGuard<'a>(pub &'a EnqueueQueue);

impl Drop for WriterGuard<'_> {
    fn drop(&mut self) {
        self.0.writer_stopped();
    }
}
