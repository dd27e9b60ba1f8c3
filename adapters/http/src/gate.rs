//! One large-body parse at a time per API key: a key's next large body waits for its previous
//! one, so that one key never holds more than one of the server's parse permits, however many
//! bodies it sends at once. The waiting is bounded by the request timeout, and the bodies that
//! can wait by the key's byte budget.
//!
//! A gate exists only while a parse of its key runs or waits: memory grows with the requests
//! in flight, never with the keys seen.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The gates of the keys whose large bodies are being parsed.
pub(crate) struct Gates<K: Hash + Eq + Clone> {
    open: Arc<Mutex<HashMap<K, Arc<Semaphore>>>>,
}

impl<K: Hash + Eq + Clone> Gates<K> {
    pub(crate) fn new() -> Self {
        Self {
            open: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Waits for `key`'s turn; the turn lasts until the returned value is dropped.
    pub(crate) async fn turn(&self, key: K) -> Turn<K> {
        let gate = {
            let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(
                open.entry(key.clone())
                    .or_insert_with(|| Arc::new(Semaphore::new(1))),
            )
        };
        // Made before the wait, so that a wait that is cancelled still tidies the gate up.
        let mut turn = Turn {
            open: Arc::clone(&self.open),
            key,
            gate: Some(Arc::clone(&gate)),
            permit: None,
        };
        // The gate is never closed, so the wait ends only with a permit.
        turn.permit = gate.acquire_owned().await.ok();
        turn
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// A key's turn to have a large body parsed.
pub(crate) struct Turn<K: Hash + Eq + Clone> {
    open: Arc<Mutex<HashMap<K, Arc<Semaphore>>>>,
    key: K,
    gate: Option<Arc<Semaphore>>,
    permit: Option<OwnedSemaphorePermit>,
}

impl<K: Hash + Eq + Clone> Drop for Turn<K> {
    fn drop(&mut self) {
        // Every reference to a gate outside the map is dropped before the map is locked, and
        // new ones are made only under the lock: the last turn to leave sees the map's alone.
        self.permit = None;
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        self.gate = None;
        if open
            .get(&self.key)
            .is_some_and(|gate| Arc::strong_count(gate) == 1)
        {
            open.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_key_waits_for_its_own_previous_turn_but_not_for_other_keys() {
        let gates = Gates::new();
        let first = gates.turn("a").await;
        // Another key is not held up.
        let other = tokio::time::timeout(Duration::from_secs(5), gates.turn("b"))
            .await
            .expect("key b waited for key a");
        // The same key is.
        let second = tokio::time::timeout(Duration::from_millis(50), gates.turn("a")).await;
        assert!(second.is_err(), "key a had two turns at once");
        drop(first);
        let second = tokio::time::timeout(Duration::from_secs(5), gates.turn("a"))
            .await
            .expect("key a's next turn never came");
        drop((second, other));
        assert_eq!(gates.len(), 0, "gates outlived their turns");
    }

    #[tokio::test]
    async fn a_wait_that_is_given_up_leaves_nothing_behind() {
        let gates = Gates::new();
        let first = gates.turn(1).await;
        for _ in 0..10 {
            let gave_up = tokio::time::timeout(Duration::from_millis(1), gates.turn(1)).await;
            assert!(gave_up.is_err());
        }
        assert_eq!(gates.len(), 1);
        drop(first);
        assert_eq!(gates.len(), 0);
    }
}
