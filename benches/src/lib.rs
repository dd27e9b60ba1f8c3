//! Benchmarks across the workspace; see `benches/` in this crate. This library holds what the
//! side-by-side comparisons share: timing a block of calls and taking medians over rounds.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Calls `f` `iters` times; returns the mean time per call.
///
/// ```
/// let per_call = benches::timed_block(3, &|| 2 + 2);
/// assert!(per_call < std::time::Duration::from_secs(1));
/// ```
pub fn timed_block<T>(iters: usize, f: &dyn Fn() -> T) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    start.elapsed() / u32::try_from(iters.max(1)).unwrap_or(u32::MAX)
}

/// How many calls of `f` fill `block`, from one call's time (between 1 and 10,000).
pub fn calls_for<T>(block: Duration, f: &dyn Fn() -> T) -> usize {
    let one = timed_block(1, f).max(Duration::from_micros(1));
    usize::try_from((block.as_nanos() / one.as_nanos()).clamp(1, 10_000)).unwrap_or(1)
}

/// The median of `v` (the mean of the middle two for an even count); NaN when empty.
///
/// ```
/// assert_eq!(benches::median(vec![3.0, 1.0, 2.0]), 2.0);
/// assert_eq!(benches::median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
/// assert!(benches::median(vec![]).is_nan());
/// ```
#[must_use]
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
