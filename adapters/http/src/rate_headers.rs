//! The `RateLimit-*` headers of draft-ietf-httpapi-ratelimit-headers-06 on every answer of a
//! route that counts against a key's rate, so that a client can pace itself before it meets a
//! 429:
//!
//! | header | value |
//! |---|---|
//! | `RateLimit-Limit` | the burst: requests a key with a whole allowance may send at once |
//! | `RateLimit-Remaining` | requests the key may still send at once, after this one |
//! | `RateLimit-Reset` | whole seconds until the allowance is whole again |
//! | `RateLimit-Policy` | `<burst>;w=<seconds a burst takes to refill>` |
//!
//! The key's check happens in the [`Authenticated`](crate::extract::Authenticated) extractor,
//! inside the handler; [`advertise`] leaves a [`RateSlot`] in the request for it to fill and
//! copies what it holds onto the answer, refusals included. An answer refused before the key
//! was checked (a missing or unknown key) carries none.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use identity_core::ports::Quota;

/// `RateLimit-Limit`.
pub const RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
/// `RateLimit-Remaining`.
pub const RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
/// `RateLimit-Reset`.
pub const RATELIMIT_RESET: HeaderName = HeaderName::from_static("ratelimit-reset");
/// `RateLimit-Policy`.
pub const RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");

/// What one check of a key's rate leaves to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateHeaders {
    /// The burst.
    pub limit: u32,
    /// Requests left at once.
    pub remaining: u32,
    /// Until the allowance is whole again.
    pub reset: Duration,
    /// How long a whole burst takes to refill, in whole seconds (at least 1).
    pub window_secs: u64,
}

impl RateHeaders {
    /// After a request that `quota` counted, whose key is whole again `full_in` from now.
    ///
    /// ```
    /// use std::num::NonZeroU32;
    /// use std::time::Duration;
    /// use identity_core::ports::Quota;
    /// use insights_http::rate_headers::RateHeaders;
    ///
    /// // 50 a second, bursts of 100: the first request leaves 99 and 20 ms to wait.
    /// let quota = Quota::per_second(NonZeroU32::new(50).unwrap(), NonZeroU32::new(100).unwrap());
    /// let h = RateHeaders::counted(&quota, Duration::from_millis(20));
    /// assert_eq!((h.limit, h.remaining, h.window_secs), (100, 99, 2));
    /// ```
    #[must_use]
    pub fn counted(quota: &Quota, full_in: Duration) -> Self {
        Self {
            limit: quota.burst.get(),
            remaining: quota.remaining(full_in),
            reset: full_in,
            window_secs: window_secs(quota),
        }
    }

    /// After a request refused for its rate: nothing left, and the reset is `retry_after`,
    /// when the next request fits (what a refused client needs, rather than when the whole
    /// burst is back).
    #[must_use]
    pub fn refused(quota: &Quota, retry_after: Duration) -> Self {
        Self {
            limit: quota.burst.get(),
            remaining: 0,
            reset: retry_after,
            window_secs: window_secs(quota),
        }
    }

    fn write(&self, response: &mut Response) {
        let headers = response.headers_mut();
        // Whole seconds, rounded up: a client that waits this long finds what was promised.
        let reset = self.reset.as_secs() + u64::from(self.reset.subsec_nanos() > 0);
        headers.insert(RATELIMIT_LIMIT, HeaderValue::from(self.limit));
        headers.insert(RATELIMIT_REMAINING, HeaderValue::from(self.remaining));
        headers.insert(RATELIMIT_RESET, HeaderValue::from(reset));
        if let Ok(policy) = HeaderValue::from_str(&format!("{};w={}", self.limit, self.window_secs))
        {
            headers.insert(RATELIMIT_POLICY, policy);
        }
    }
}

/// Seconds for a whole burst to refill, rounded up, at least 1.
fn window_secs(quota: &Quota) -> u64 {
    let micros = u64::try_from(quota.tolerance_us()).unwrap_or(u64::MAX);
    micros.div_ceil(1_000_000).max(1)
}

/// Where the key's check leaves its headers for [`advertise`].
#[derive(Debug, Clone, Default)]
pub struct RateSlot(Arc<OnceLock<RateHeaders>>);

impl RateSlot {
    /// Keeps `headers` for the answer; a second check of the same request changes nothing.
    pub fn fill(&self, headers: RateHeaders) {
        let _ = self.0.set(headers);
    }
}

/// The layer: a slot in the request, its headers on the answer.
pub async fn advertise(mut request: Request, next: Next) -> Response {
    let slot = RateSlot::default();
    request.extensions_mut().insert(slot.clone());
    let mut response = next.run(request).await;
    if let Some(headers) = slot.0.get() {
        headers.write(&mut response);
    }
    response
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use super::*;

    fn quota() -> Quota {
        Quota::per_second(NonZeroU32::new(10).unwrap(), NonZeroU32::new(20).unwrap())
    }

    #[test]
    fn the_reset_rounds_up_to_a_whole_second() {
        let mut response = Response::new(axum::body::Body::empty());
        RateHeaders::counted(&quota(), Duration::from_millis(1_100)).write(&mut response);
        let h = response.headers();
        assert_eq!(h[RATELIMIT_LIMIT], "20");
        assert_eq!(
            h[RATELIMIT_REMAINING], "9",
            "1.1 s of 2 s used: 9 whole of 20 left"
        );
        assert_eq!(h[RATELIMIT_RESET], "2");
        assert_eq!(h[RATELIMIT_POLICY], "20;w=2");
    }

    #[test]
    fn a_refusal_leaves_nothing_and_says_when() {
        let h = RateHeaders::refused(&quota(), Duration::from_millis(100));
        assert_eq!((h.remaining, h.reset), (0, Duration::from_millis(100)));
    }
}
