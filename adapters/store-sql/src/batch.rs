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

use std::sync::{Mutex, PoisonError};

use alerts_core::ids::Token;
use alerts_core::ports::{Lease, NewAlertJob, Settlement, StoreError};
use alerts_core::request::AlertPoint;
use tokio::sync::oneshot;

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

    /// Marks the writer under way as over, whatever became of it, so that the next write
    /// starts another, which takes what was left waiting: for a writer that stopped short (its
    /// task panicked or was dropped). Called after a writer that ended normally it may let two
    /// writers run at once for a while, which only stores fewer writes per transaction.
    pub fn writer_stopped(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.writing = false;
    }
}

/// Ends the writer under way when dropped, however the writer's task ends.
#[derive(Debug)]
pub struct WriterGuard<'a, T>(pub &'a BatchQueue<T>);

impl<T> Drop for WriterGuard<'_, T> {
    fn drop(&mut self) {
        self.0.writer_stopped();
    }
}
