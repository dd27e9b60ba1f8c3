//! A thread of its own for the transactions that hold the database's write lock.
//!
//! SQLite lets one transaction write at a time, and sqlx runs each statement on the
//! connection's own thread: a transaction of four statements is four trips from the task that
//! drives it to that thread and back. When that task runs on the server's runtimes, each trip
//! back waits for a runtime thread to be free, behind whatever requests, evaluations and
//! deliveries are queued there, and the write lock is held all that time: every request
//! waiting to be accepted and every job waiting to be claimed waits too. The claim and the
//! batch writers (accepted requests, settled jobs) therefore run on a runtime of their own,
//! on a thread that does nothing else, so that the next statement of a transaction is sent
//! as soon as the last one is done.

use std::future::Future;
use std::sync::Arc;

use alerts_core::ports::StoreError;
use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The name of the thread, as tools that list a process's threads show it.
const THREAD_NAME: &str = "sqlite-writer";

/// A single-threaded runtime on a thread of its own. Cheap to clone: clones share the thread,
/// which ends once the last clone is dropped and the work it was given is done.
#[derive(Debug, Clone)]
pub(crate) struct WriterThread {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    handle: Handle,
    /// Dropped with the last clone, which lets the thread's runtime, and the thread, end.
    _stop: oneshot::Sender<()>,
}

impl WriterThread {
    /// Starts the thread.
    ///
    /// # Errors
    /// The operating system's error when the runtime or the thread cannot be made.
    pub(crate) fn start() -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name(THREAD_NAME.to_owned())
            .spawn(move || {
                // Runs the spawned work until every clone is gone; work still under way then
                // is dropped with the runtime (nobody is left to wait for it).
                let _ = runtime.block_on(stopped);
            })?;
        Ok(Self {
            inner: Arc::new(Inner {
                handle,
                _stop: stop,
            }),
        })
    }

    /// Runs `work` on the thread. Work holding a clone keeps the thread alive until it ends;
    /// the returned handle says `cancelled` for work the thread could no longer take.
    pub(crate) fn spawn<F>(&self, work: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.inner.handle.spawn(work)
    }

    /// Runs `write` on the thread and gives its outcome: its own; a panic in it passed on to
    /// the caller, as if the caller had run it; or [`StoreError::Unavailable`] when the
    /// thread ended before it could run. The write is started at once, and runs to its end
    /// even if the returned future is dropped.
    pub(crate) fn run<T: Send + 'static>(
        &self,
        write: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + 'static {
        let running = self.spawn(write);
        async move {
            match running.await {
                Ok(done) => done,
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(_) => Err(StoreError::Unavailable(
                    "the store stopped before this write could run".to_owned(),
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn work_runs_on_the_writer_thread_and_not_on_the_callers() {
        let writer = WriterThread::start().unwrap();
        let caller = std::thread::current().id();
        let ran_on = writer
            .spawn(async { std::thread::current().id() })
            .await
            .unwrap();
        assert_ne!(ran_on, caller);
    }

    #[tokio::test]
    async fn a_write_run_gives_its_own_outcome_and_an_error_once_the_thread_ended() {
        let writer = WriterThread::start().unwrap();
        assert_eq!(writer.run(async { Ok(7) }).await, Ok(7));
        let refused = StoreError::NotFound;
        assert_eq!(
            writer.run(async move { Err::<(), _>(refused) }).await,
            Err(StoreError::NotFound)
        );
        let late = WriterThread {
            inner: Arc::new(Inner {
                handle: writer.inner.handle.clone(),
                _stop: oneshot::channel().0,
            }),
        };
        drop(writer);
        // Once the thread has let its runtime go, a write is refused, not lost without a word.
        for _ in 0..200 {
            if let Err(e) = late.run(async { Ok(()) }).await {
                assert!(matches!(e, StoreError::Unavailable(_)), "{e:?}");
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the runtime kept running after the last clone went");
    }

    #[tokio::test]
    async fn work_from_many_callers_runs_on_one_thread() {
        let writer = WriterThread::start().unwrap();
        let mut threads = std::collections::HashSet::new();
        let handles: Vec<_> = (0..20)
            .map(|_| writer.spawn(async { std::thread::current().id() }))
            .collect();
        for handle in handles {
            threads.insert(handle.await.unwrap());
        }
        assert_eq!(threads.len(), 1);
    }

    #[tokio::test]
    async fn the_thread_ends_once_the_last_clone_is_dropped() {
        let writer = WriterThread::start().unwrap();
        // Work that never ends holds this until its runtime drops it.
        let held = Arc::new(());
        let in_work = held.clone();
        drop(writer.spawn(async move {
            let _in_work = in_work;
            std::future::pending::<()>().await;
        }));
        let clone = writer.clone();
        drop(writer);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(Arc::strong_count(&held), 2, "a clone keeps the thread");
        drop(clone);
        for _ in 0..200 {
            if Arc::strong_count(&held) == 1 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the thread's runtime still holds its work after the last clone went");
    }
}
