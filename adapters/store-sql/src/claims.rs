//! Which jobs a claim takes, for the pipeline's `JobQueue`: the queue's rules as SQL, each
//! spelt in one place, the claim statement in each database's spelling, and the rows it reads
//! as leased jobs. The in-memory queue applies the same rules in Rust
//! (`alerts_core::ports::Lease::is_live` and `alerts_core::ports::is_claimable`).
//!
//! The statements that apply a rule ([`CLAIM`](sqlite::CLAIM), and the counts of
//! [`jobs`](crate::jobs)) spell it out, so that each reads as it runs; the tests of this
//! module hold each to the rule.
//!
//! ```
//! use store_sql::claims::{postgres, sqlite};
//!
//! assert!(postgres::CLAIM.ends_with("FOR UPDATE OF j SKIP LOCKED"));
//! assert!(sqlite::CLAIM.ends_with("ORDER BY p.round, p.run_at, p.token"));
//! ```

use alerts_core::ids::Token;
use alerts_core::ports::stored::to_u32;
use alerts_core::ports::{AlertJob, JobStage, Lease, StoreError};
use chrono::{DateTime, Utc};
use identity_core::ids::KeyId;
use uuid::Uuid;

use crate::SqlDialect;

/// The most jobs one claim takes, whatever its caller asks for: a claim makes a lease id for
/// every job it may take before it starts, and holds the write lock on SQLite while it runs,
/// so it stays as small as a batch of writes.
pub const MOST_PER_CLAIM: usize = 256;

/// A job held under a live lease at the time `$1`. Where a statement applies it to a table
/// with an alias, or at another placeholder, the columns take the alias and `$1` becomes that
/// placeholder.
pub const HELD: &str = "lease_until > $1";

/// A job (as in [`HELD`]) not held at `$1`: never leased, released, or its lease expired (its
/// worker died or stalled).
pub const NOT_HELD: &str = "(lease_until IS NULL OR lease_until <= $1)";

/// A job (as in [`HELD`]) a claim may take at `$1`: not done, due, and not held.
pub const CLAIMABLE: &str =
    "stage <> 'done' AND run_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)";

/// SQLite's spelling: each key's candidates from a correlated `IN`; the claim holds the write
/// lock already.
pub mod sqlite {
    /// The jobs one claim takes (each a [`ClaimRow`](super::ClaimRow)): `$1` now, `$2` the
    /// most, `$3` the cap per key, `$4` the smaller of the two.
    ///
    /// Of every key with due jobs, its oldest claimable ones, no more than either limit lets
    /// it have; those numbered within their key by run time (their round), a key's rounds cut
    /// where its live leases would pass the cap, then round by round, oldest first. So a key
    /// with a thousand due jobs delays another key's single job by at most one job.
    ///
    /// A claim runs while the queue is at its longest and, on SQLite, holds the write lock, so
    /// none of its parts reads the whole queue: the live leases are read from the index of
    /// leased jobs (a finished job holds no lease: every update that finishes one ends it),
    /// the keys with unfinished jobs are found by skipping from one key to the next in the
    /// index by key, and each key gives its few oldest claimable jobs from that index.
    pub const CLAIM: &str = "\
        WITH RECURSIVE held AS ( \
            SELECT key_id, COUNT(*) AS n FROM alert_jobs WHERE lease_until > $1 \
            GROUP BY key_id), \
        keys (key_id) AS ( \
            SELECT (SELECT key_id FROM alert_jobs WHERE stage <> 'done' \
                    ORDER BY key_id LIMIT 1) \
            UNION ALL \
            SELECT (SELECT j.key_id FROM alert_jobs j \
                    WHERE j.stage <> 'done' AND j.key_id > k.key_id \
                    ORDER BY j.key_id LIMIT 1) \
            FROM keys k WHERE k.key_id IS NOT NULL), \
        due AS (\
            SELECT j.token, j.key_id, j.run_at, \
                   ROW_NUMBER() OVER (PARTITION BY j.key_id ORDER BY j.run_at, j.token) AS round \
            FROM keys k JOIN alert_jobs j ON j.token IN ( \
                SELECT c.token FROM alert_jobs c \
                WHERE c.key_id = k.key_id AND c.stage <> 'done' AND c.run_at <= $1 \
                  AND (c.lease_until IS NULL OR c.lease_until <= $1) \
                ORDER BY c.run_at, c.token LIMIT $4)), \
        picked AS ( \
            SELECT d.token, d.round, d.run_at FROM due d \
            LEFT JOIN held h ON h.key_id = d.key_id \
            WHERE d.round <= $3 - COALESCE(h.n, 0) \
            ORDER BY d.round, d.run_at, d.token LIMIT $2) \
        SELECT j.token, j.key_id, r.received_at, j.stage, j.attempts FROM alert_jobs j \
        JOIN picked p ON p.token = j.token \
        JOIN alert_requests r ON r.token = j.token \
        ORDER BY p.round, p.run_at, p.token";
}

/// PostgreSQL's spelling: each key's candidates from a `LATERAL` subquery, and the jobs
/// picked locked, passing over any that something other than a claim (an update, a
/// redeliver) holds at the moment.
pub mod postgres {
    /// As SQLite's [`CLAIM`](super::sqlite::CLAIM).
    pub const CLAIM: &str = "\
        WITH RECURSIVE held AS ( \
            SELECT key_id, COUNT(*) AS n FROM alert_jobs WHERE lease_until > $1 \
            GROUP BY key_id), \
        keys (key_id) AS ( \
            SELECT (SELECT key_id FROM alert_jobs WHERE stage <> 'done' \
                    ORDER BY key_id LIMIT 1) \
            UNION ALL \
            SELECT (SELECT j.key_id FROM alert_jobs j \
                    WHERE j.stage <> 'done' AND j.key_id > k.key_id \
                    ORDER BY j.key_id LIMIT 1) \
            FROM keys k WHERE k.key_id IS NOT NULL), \
        due AS (\
            SELECT j.token, j.key_id, j.run_at, \
                   ROW_NUMBER() OVER (PARTITION BY j.key_id ORDER BY j.run_at, j.token) AS round \
            FROM keys k CROSS JOIN LATERAL ( \
                SELECT c.token, c.key_id, c.run_at FROM alert_jobs c \
                WHERE c.key_id = k.key_id AND c.stage <> 'done' AND c.run_at <= $1 \
                  AND (c.lease_until IS NULL OR c.lease_until <= $1) \
                ORDER BY c.run_at, c.token LIMIT $4) j), \
        picked AS ( \
            SELECT d.token, d.round, d.run_at FROM due d \
            LEFT JOIN held h ON h.key_id = d.key_id \
            WHERE d.round <= $3 - COALESCE(h.n, 0) \
            ORDER BY d.round, d.run_at, d.token LIMIT $2) \
        SELECT j.token, j.key_id, r.received_at, j.stage, j.attempts FROM alert_jobs j \
        JOIN picked p ON p.token = j.token \
        JOIN alert_requests r ON r.token = j.token \
        ORDER BY p.round, p.run_at, p.token FOR UPDATE OF j SKIP LOCKED";
}

/// A job a claim took: token, key, when its request arrived, stage, attempts.
pub type ClaimRow<T> = (Uuid, Uuid, T, String, i32);

/// The jobs of the rows a claim took, each under the next of `lease_ids` until `until`.
///
/// # Errors
/// [`StoreError::Corrupt`] for a value the store cannot have written.
pub fn leased_jobs<D: SqlDialect>(
    rows: Vec<ClaimRow<D::Time>>,
    lease_ids: Vec<Uuid>,
    until: DateTime<Utc>,
) -> Result<Vec<AlertJob>, StoreError> {
    let mut jobs = Vec::with_capacity(rows.len());
    for ((token, key_id, received_at, stage, attempts), id) in rows.into_iter().zip(lease_ids) {
        jobs.push(AlertJob {
            token: Token(token),
            key_id: KeyId(key_id),
            stage: stage.parse::<JobStage>()?,
            attempts: to_u32(i64::from(attempts), "attempts")?,
            received_at: D::from_time(received_at)?,
            lease: Lease { id, until },
        });
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{BACKLOG, COUNTS};

    /// `rule` applied to the table of `alias` (a name and a dot, or nothing) at the placeholder
    /// `now`.
    fn applied(rule: &str, alias: &str, now: &str) -> String {
        ["lease_until", "run_at", "stage"]
            .iter()
            .fold(rule.to_owned(), |sql, column| {
                sql.replace(column, &format!("{alias}{column}"))
            })
            .replace("$1", now)
    }

    #[test]
    fn the_claims_apply_the_rules() {
        for claim in [sqlite::CLAIM, postgres::CLAIM] {
            assert!(claim.contains(&format!("WHERE {} GROUP", applied(HELD, "", "$1"))));
            assert!(claim.contains(&format!(
                "c.key_id = k.key_id AND {} ORDER",
                applied(CLAIMABLE, "c.", "$1")
            )));
        }
    }

    #[test]
    fn the_counts_apply_the_rules() {
        assert!(COUNTS.contains(&format!("WHEN {} THEN 1", applied(NOT_HELD, "", "$1"))));
        assert!(COUNTS.contains(&format!("WHEN {} THEN 1", applied(HELD, "", "$1"))));
        assert!(COUNTS.contains(&format!(
            "WHEN {} THEN run_at",
            applied(CLAIMABLE, "", "$1")
        )));
        assert_eq!(BACKLOG.matches(&applied(CLAIMABLE, "", "$2")).count(), 3);
    }
}
