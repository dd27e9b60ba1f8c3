//! Remembers the `webhook-id`s of the deliveries handled lately, in bounded memory.
//!
//! An id is remembered only once its delivery was handled successfully: a delivery that failed
//! (and was answered with an error) must be handled again when the service retries it. While a
//! delivery is being handled, its id is "in flight", so that a retry arriving meanwhile (the
//! service gave up waiting on the first attempt) is not processed twice at the same time.

use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The ids of recent deliveries: a ring of the last `capacity` handled ids, and the ids being
/// handled right now.
#[derive(Debug)]
pub(crate) struct Dedupe {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    capacity: usize,
    /// Oldest first; the set holds the same ids for constant-time lookups.
    order: VecDeque<String>,
    done: HashSet<String>,
    in_flight: HashSet<String>,
}

/// What to do with a delivery, given its id.
#[derive(Debug)]
pub(crate) enum Claim<'a> {
    /// Not seen lately: handle it, then call [`Pending::complete`] if that worked.
    Fresh(Pending<'a>),
    /// Handled already: answer 2xx and do nothing else.
    Done,
    /// Being handled by another request right now.
    InFlight,
}

/// A delivery being handled. Dropping it without [`Pending::complete`] (on an error, or when the
/// sender hung up and the request was cancelled) forgets the id, so that a retry is handled.
#[derive(Debug)]
pub(crate) struct Pending<'a> {
    dedupe: &'a Dedupe,
    id: String,
    completed: bool,
}

impl Dedupe {
    /// Remembers up to `capacity` handled ids; 0 turns deduplication off.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(Inner {
                capacity,
                order: VecDeque::with_capacity(capacity.min(1024)),
                done: HashSet::new(),
                in_flight: HashSet::new(),
            }),
        }
    }

    /// Looks `id` up and, if it is new, marks it in flight.
    pub(crate) fn claim(&self, id: &str) -> Claim<'_> {
        let mut inner = self.lock();
        if inner.done.contains(id) {
            Claim::Done
        } else if !inner.in_flight.insert(id.to_owned()) {
            Claim::InFlight
        } else {
            Claim::Fresh(Pending {
                dedupe: self,
                id: id.to_owned(),
                completed: false,
            })
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // The sets stay consistent whatever a panicking holder was doing, so poison is moot.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Pending<'_> {
    /// Records the delivery as handled: later deliveries with its id are duplicates.
    pub(crate) fn complete(mut self) {
        self.completed = true;
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        let mut inner = self.dedupe.lock();
        inner.in_flight.remove(&self.id);
        if self.completed {
            inner.remember(std::mem::take(&mut self.id));
        }
    }
}

impl Inner {
    fn remember(&mut self, id: String) {
        if self.capacity == 0 || !self.done.insert(id.clone()) {
            return;
        }
        self.order.push_back(id);
        if self.order.len() > self.capacity
            && let Some(oldest) = self.order.pop_front()
        {
            self.done.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handle(dedupe: &Dedupe, id: &str) {
        match dedupe.claim(id) {
            Claim::Fresh(p) => p.complete(),
            other => panic!("{id} should be fresh, got {other:?}"),
        }
    }

    #[test]
    fn a_handled_id_is_a_duplicate() {
        let dedupe = Dedupe::new(10);
        handle(&dedupe, "msg_a");
        assert!(matches!(dedupe.claim("msg_a"), Claim::Done));
        assert!(matches!(dedupe.claim("msg_b"), Claim::Fresh(_)));
    }

    #[test]
    fn a_failed_delivery_is_handled_again() {
        let dedupe = Dedupe::new(10);
        let first = dedupe.claim("msg_a");
        assert!(matches!(dedupe.claim("msg_a"), Claim::InFlight));
        drop(first);
        handle(&dedupe, "msg_a");
    }

    #[test]
    fn only_the_last_ids_are_remembered() {
        let dedupe = Dedupe::new(3);
        for id in ["1", "2", "3", "4"] {
            handle(&dedupe, id);
        }
        assert!(matches!(dedupe.claim("1"), Claim::Fresh(_)));
        for id in ["2", "3", "4"] {
            assert!(matches!(dedupe.claim(id), Claim::Done), "{id}");
        }
        let inner = dedupe.lock();
        assert_eq!(inner.order.len(), 3);
        assert_eq!(inner.done.len(), 3);
        assert!(inner.in_flight.is_empty());
    }

    #[test]
    fn capacity_zero_remembers_nothing() {
        let dedupe = Dedupe::new(0);
        handle(&dedupe, "msg_a");
        handle(&dedupe, "msg_a");
    }
}
