//! The bounded caches of fetched answers that the HTTP sources keep.
//!
//! Entries are held by `quick_cache`: once a cache is full, each new answer evicts one entry
//! the cache judges least likely to be asked for again, so a busy source keeps its useful
//! answers instead of starting afresh. Freshness is judged by the source's own clock (the
//! [`Clock`](runtime_core::Clock) port) when an answer is read, so an answer older than its
//! time to live is fetched again, never served, and tests can move time by hand.

use std::hash::Hash;

use chrono::{DateTime, Utc};

use crate::http;

/// Answers by key, each with the time it was fetched: at most about `capacity` of them (the
/// cache is split into shards, each holding its share, rounded up), each served for `ttl_s`
/// seconds.
pub(crate) struct TimedCache<K, V> {
    entries: quick_cache::sync::Cache<K, (DateTime<Utc>, V)>,
    ttl_s: u64,
}

impl<K: Eq + Hash + Clone, V: Clone> TimedCache<K, V> {
    /// An empty cache of at most about `capacity` answers, each fresh for `ttl_s` seconds. A
    /// capacity of 0 keeps nothing.
    pub(crate) fn new(capacity: usize, ttl_s: u64) -> Self {
        Self {
            entries: quick_cache::sync::Cache::new(capacity),
            ttl_s,
        }
    }

    /// The answer for `key` if one was fetched less than the time to live before `now`.
    pub(crate) fn get_fresh(&self, key: &K, now: DateTime<Utc>) -> Option<V> {
        self.entries
            .get(key)
            .filter(|(at, _)| http::fresh(*at, now, self.ttl_s))
            .map(|(_, value)| value)
    }

    /// Keeps `value` for `key`, fetched at `now`, in place of any older answer.
    pub(crate) fn insert(&self, key: K, now: DateTime<Utc>, value: V) {
        self.entries.insert(key, (now, value));
    }

    /// How many answers are kept, fresh or not.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeDelta, TimeZone};

    use super::*;

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap()
    }

    #[test]
    fn answers_are_served_until_their_time_to_live_ends() {
        let cache = TimedCache::new(10, 600);
        cache.insert("a", t0(), 1);
        assert_eq!(cache.get_fresh(&"a", t0()), Some(1));
        assert_eq!(
            cache.get_fresh(&"a", t0() + TimeDelta::seconds(599)),
            Some(1)
        );
        assert_eq!(cache.get_fresh(&"a", t0() + TimeDelta::seconds(600)), None);
        assert_eq!(cache.get_fresh(&"b", t0()), None);
        // A newer answer replaces the stale one.
        cache.insert("a", t0() + TimeDelta::seconds(600), 2);
        assert_eq!(
            cache.get_fresh(&"a", t0() + TimeDelta::seconds(601)),
            Some(2)
        );
    }

    #[test]
    fn the_cache_never_holds_more_than_its_capacity() {
        let cache = TimedCache::new(1_000, 3_600);
        for i in 0..10_000 {
            cache.insert(i, t0(), i);
        }
        // The shards round their shares up: a few entries over at most, never the whole run.
        assert!(cache.len() <= 1_000 + 64, "{}", cache.len());
        assert!(cache.len() >= 500, "{}", cache.len());
        // The latest answer is kept.
        assert_eq!(cache.get_fresh(&9_999, t0()), Some(9_999));
    }

    #[test]
    fn a_cache_of_no_capacity_keeps_nothing() {
        let cache = TimedCache::new(0, 3_600);
        cache.insert(1, t0(), 1);
        assert_eq!(cache.get_fresh(&1, t0()), None);
    }
}
