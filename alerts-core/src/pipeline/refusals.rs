//! Refusals for a busy queue, remembered for a moment: a key whose requests were just refused
//! because its jobs (or everyone's) wait too long is refused again without the store being
//! asked, until the moment is over.
//!
//! A flooding client is refused many times a second, and each refusal would otherwise read the
//! key's configuration and its backlog, the same reads the alert workers need to drain that
//! backlog. A backlog does not drain in less time than a refusal's `Retry-After` (a second at
//! least) tells the client to wait, so remembering a refusal for at most a second changes no
//! answer a client that follows `Retry-After` sees. A key's queue kept at a short target
//! would drain empty in that second, leaving its workers idle while other clients of the key
//! are refused, so a key's refusal is remembered for half the target at most. Per process,
//! like the key's pace.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;

use super::{AcceptError, BusyScope};

/// The longest a refusal is remembered.
const REMEMBERED_FOR: Duration = Duration::from_secs(1);

/// Keys remembered at most; past it the memory starts afresh (a forgotten key is only asked
/// about again).
const MAX_KEYS: usize = 10_000;

/// Until when each key, and every key, is refused without asking the store.
#[derive(Debug)]
pub(crate) struct Refusals {
    state: Mutex<State>,
    /// How long a key's refusal stands at most.
    key_lasts: Duration,
}

/// A remembered refusal: until when it stands, and the end of the wait its `Retry-After` told,
/// which a repeated refusal keeps telling.
#[derive(Debug, Clone, Copy)]
struct Standing {
    until: DateTime<Utc>,
    retry_at: DateTime<Utc>,
}

#[derive(Debug, Default)]
struct State {
    keys: HashMap<KeyId, Standing>,
    everyone: Option<Standing>,
}

impl Refusals {
    /// Refusals for a pipeline that keeps a key's standing queue at `target`.
    pub(crate) fn new(target: Duration) -> Self {
        Self {
            state: Mutex::default(),
            key_lasts: (target / 2).min(REMEMBERED_FOR),
        }
    }

    /// Remembers `refusal` of a request of `key` at `now`, when it was for a busy queue.
    pub(crate) fn remember(&self, key: KeyId, refusal: &AcceptError, now: DateTime<Utc>) {
        let AcceptError::Busy { retry_after, scope } = refusal else {
            return;
        };
        let most = match scope {
            BusyScope::Key => self.key_lasts,
            BusyScope::Service => REMEMBERED_FOR,
        };
        let (Ok(lasts), Ok(wait)) = (
            chrono::Duration::from_std((*retry_after).min(most)),
            chrono::Duration::from_std(*retry_after),
        ) else {
            return;
        };
        let standing = Standing {
            until: now + lasts,
            retry_at: now + wait,
        };
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match scope {
            BusyScope::Key => {
                if state.keys.len() >= MAX_KEYS && !state.keys.contains_key(&key) {
                    state.keys.clear();
                }
                state.keys.insert(key, standing);
            }
            BusyScope::Service => state.everyone = Some(standing),
        }
    }

    /// The refusal a request of `key` gets at `now` without asking the store, if one stands:
    /// `Busy`, with what is left of the first refusal's `Retry-After` as its own (at least 1 s,
    /// as every `Busy` has).
    pub(crate) fn standing(&self, key: KeyId, now: DateTime<Utc>) -> Option<AcceptError> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let busy = |standing: Standing, scope| AcceptError::Busy {
            retry_after: (standing.retry_at - now)
                .to_std()
                .unwrap_or_default()
                .max(Duration::from_secs(1)),
            scope,
        };
        match state.everyone {
            Some(standing) if standing.until > now => {
                return Some(busy(standing, BusyScope::Service));
            }
            Some(_) => state.everyone = None,
            None => {}
        }
        match state.keys.get(&key).copied() {
            Some(standing) if standing.until > now => Some(busy(standing, BusyScope::Key)),
            Some(_) => {
                state.keys.remove(&key);
                None
            }
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use uuid::Uuid;

    use super::*;

    fn t(ms: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap() + chrono::Duration::milliseconds(ms)
    }

    fn busy(secs: u64, scope: BusyScope) -> AcceptError {
        AcceptError::Busy {
            retry_after: Duration::from_secs(secs),
            scope,
        }
    }

    #[test]
    fn a_busy_key_is_refused_for_a_second_at_most_and_other_keys_are_not() {
        let refusals = Refusals::new(Duration::from_secs(15));
        let (key, other) = (KeyId(Uuid::from_u128(1)), KeyId(Uuid::from_u128(2)));
        refusals.remember(key, &busy(20, BusyScope::Key), t(0));
        assert_eq!(
            refusals.standing(key, t(400)),
            Some(AcceptError::Busy {
                retry_after: Duration::from_millis(19_600),
                scope: BusyScope::Key
            }),
            "the first refusal's wait, less what has passed"
        );
        assert_eq!(refusals.standing(other, t(400)), None);
        assert_eq!(refusals.standing(key, t(1_000)), None, "a second later");
    }

    #[test]
    fn a_key_kept_at_a_short_target_is_refused_for_half_of_it() {
        let refusals = Refusals::new(Duration::from_millis(600));
        let key = KeyId(Uuid::from_u128(1));
        refusals.remember(key, &busy(1, BusyScope::Key), t(0));
        assert!(refusals.standing(key, t(299)).is_some());
        assert_eq!(refusals.standing(key, t(300)), None);
        refusals.remember(key, &busy(1, BusyScope::Service), t(0));
        assert!(
            refusals.standing(key, t(999)).is_some(),
            "a busy service is remembered for the whole second"
        );
    }

    #[test]
    fn a_busy_service_refuses_every_key_and_other_refusals_are_not_remembered() {
        let refusals = Refusals::new(Duration::from_secs(15));
        let key = KeyId(Uuid::from_u128(1));
        refusals.remember(key, &AcceptError::TooManyPending { limit: 3 }, t(0));
        refusals.remember(key, &AcceptError::NoAlertRules, t(0));
        assert_eq!(refusals.standing(key, t(0)), None);
        refusals.remember(key, &busy(1, BusyScope::Service), t(0));
        let anyone = KeyId(Uuid::from_u128(9));
        assert_eq!(
            refusals.standing(anyone, t(999)),
            Some(busy(1, BusyScope::Service))
        );
        assert_eq!(refusals.standing(anyone, t(1_000)), None);
    }

    #[test]
    fn memory_is_bounded_by_the_number_of_keys() {
        let refusals = Refusals::new(Duration::from_secs(15));
        for n in 0..=MAX_KEYS as u128 {
            refusals.remember(KeyId(Uuid::from_u128(n)), &busy(1, BusyScope::Key), t(0));
        }
        let kept = refusals.state.lock().unwrap().keys.len();
        assert!(kept <= MAX_KEYS, "{kept} keys kept");
    }
}
