//! The job queue's rules as SQL, each in one place: when a job is held, when it is claimable,
//! and which jobs one claim takes. The queries of [`jobs`](crate::jobs) and the claim are put
//! together from these with `concat!`; the in-memory queue applies the same rules in Rust
//! (`alerts_core::ports::Lease::is_live` and `alerts_core::ports::is_claimable`).
//!
//! ```
//! assert_eq!(
//!     store_sql::job_not_held!("j.", "$1"),
//!     "(j.lease_until IS NULL OR j.lease_until <= $1)"
//! );
//! assert!(store_sql::claim_sql!(postgres).ends_with("FOR UPDATE OF j SKIP LOCKED"));
//! ```

/// The most jobs one claim takes, whatever its caller asks for: a claim makes a lease id for
/// every job it may take before it starts (see `jobs.rs`), and holds the write lock on SQLite
/// while it runs, so it stays as small as a batch of writes.
pub const MOST_PER_CLAIM: usize = 256;

/// A job (`$prefix` is its table's alias and a dot, or nothing) held under a live lease at the
/// time in the placeholder `$now`.
#[macro_export]
macro_rules! job_held {
    ($prefix:literal, $now:literal) => {
        concat!($prefix, "lease_until > ", $now)
    };
}

/// A job (as in [`job_held!`]) not held at `$now`: never leased, released, or its lease
/// expired (its worker died or stalled).
#[macro_export]
macro_rules! job_not_held {
    ($prefix:literal, $now:literal) => {
        concat!(
            "(",
            $prefix,
            "lease_until IS NULL OR ",
            $prefix,
            "lease_until <= ",
            $now,
            ")"
        )
    };
}

/// A job (as in [`job_held!`]) a claim may take at `$now`: not done, due, and not held.
#[macro_export]
macro_rules! job_claimable {
    ($prefix:literal, $now:literal) => {
        concat!(
            $prefix,
            "stage <> 'done' AND ",
            $prefix,
            "run_at <= ",
            $now,
            " AND ",
            $crate::job_not_held!($prefix, $now)
        )
    };
}

/// The jobs one claim takes, in the `$dialect` of [`dialect_sql!`](crate::dialect_sql) (`$1`
/// now, `$2` the most, `$3` the cap per key, `$4` the smaller of the two): token, key, the
/// request's time, stage and attempts.
///
/// Of every key with due jobs, its oldest claimable ones, no more than either limit lets it
/// have; those numbered within their key by run time (their round), a key's rounds cut where
/// its live leases would pass the cap, then round by round, oldest first. So a key with a
/// thousand due jobs delays another key's single job by at most one job.
///
/// A claim runs while the queue is at its longest and, on SQLite, holds the write lock, so
/// none of its parts reads the whole queue: the live leases are read from the index of leased
/// jobs (a finished job holds no lease: every update that finishes one ends it), the keys
/// with unfinished jobs are found by skipping from one key to the next in the index by key,
/// and each key gives its few oldest claimable jobs from that index.
#[macro_export]
macro_rules! claim_sql {
    ($dialect:ident) => {
        concat!(
            "WITH RECURSIVE held AS ( \
                 SELECT key_id, COUNT(*) AS n FROM alert_jobs WHERE ",
            $crate::job_held!("", "$1"),
            " GROUP BY key_id), \
             keys (key_id) AS ( \
                 SELECT (SELECT key_id FROM alert_jobs WHERE stage <> 'done' \
                         ORDER BY key_id LIMIT 1) \
                 UNION ALL \
                 SELECT (SELECT j.key_id FROM alert_jobs j \
                         WHERE j.stage <> 'done' AND j.key_id > k.key_id \
                         ORDER BY j.key_id LIMIT 1) \
                 FROM keys k WHERE k.key_id IS NOT NULL), \
             due AS (",
            $crate::dialect_sql!($dialect, claim_candidates),
            "), \
             picked AS ( \
                 SELECT d.token, d.round, d.run_at FROM due d \
                 LEFT JOIN held h ON h.key_id = d.key_id \
                 WHERE d.round <= $3 - COALESCE(h.n, 0) \
                 ORDER BY d.round, d.run_at, d.token LIMIT $2) \
             SELECT j.token, j.key_id, r.received_at, j.stage, j.attempts FROM alert_jobs j \
             JOIN picked p ON p.token = j.token \
             JOIN alert_requests r ON r.token = j.token \
             ORDER BY p.round, p.run_at, p.token",
            $crate::dialect_sql!($dialect, claim_lock)
        )
    };
}
