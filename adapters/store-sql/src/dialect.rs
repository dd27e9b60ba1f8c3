//! The SQL the two databases spell differently, side by side: [`dialect_sql!`](crate::dialect_sql)
//! gives the `sqlite` or the `postgres` spelling of each piece, as a literal that the queries
//! are put together from with `concat!`, so that every query is one `&'static str`.
//!
//! Everything else is written once in SQL that both understand: `$1` placeholders (SQLite reads
//! them as PostgreSQL does), `ON CONFLICT`, `RETURNING`, `IS DISTINCT FROM`, `CAST(x AS TEXT)`,
//! integer columns read as `i32` when PostgreSQL keeps them as `integer`.
//!
//! ```
//! assert_eq!(store_sql::dialect_sql!(sqlite, begin_write), "BEGIN IMMEDIATE");
//! assert_eq!(
//!     concat!("VALUES ($1", store_sql::dialect_sql!(postgres, as_jsonb), ")"),
//!     "VALUES ($1::jsonb)"
//! );
//! ```

/// A piece of SQL in the spelling of `sqlite` or `postgres`:
///
/// - `begin_write`: how a transaction that writes starts. SQLite takes the write lock up
///   front, since a transaction that read first and then tried to write could fail at once
///   with `SQLITE_BUSY`; PostgreSQL locks rows as it goes.
/// - `as_jsonb`: what follows a JSON text parameter stored in a JSON column (PostgreSQL's
///   `jsonb`; SQLite keeps the text).
/// - `json_strings`: the strings of the JSON array in `$2`, as a one-column `SELECT`.
/// - `activity_bucket(column)`: the bucket of the time in `column`, counting from `$2` in
///   buckets of `$3` seconds (SQLite keeps times as microseconds).
/// - `claim_candidates`: of each key in `keys` (which ends with a `NULL`, matching none), its
///   oldest claimable jobs, at most `$4`, each with its round (its place among the key's
///   jobs), read from the key's index so that a long backlog costs a claim little. PostgreSQL
///   has `LATERAL`; SQLite a correlated `IN`.
/// - `claim_lock`: what the claim's final `SELECT` ends with: PostgreSQL locks the rows,
///   passing over any that something other than a claim (an update, a redeliver) holds at the
///   moment; SQLite's claim holds the write lock already.
#[macro_export]
macro_rules! dialect_sql {
    (sqlite, begin_write) => {
        "BEGIN IMMEDIATE"
    };
    (postgres, begin_write) => {
        "BEGIN"
    };

    (sqlite, as_jsonb) => {
        ""
    };
    (postgres, as_jsonb) => {
        "::jsonb"
    };

    (sqlite, json_strings) => {
        "SELECT value FROM json_each($2)"
    };
    (postgres, json_strings) => {
        "SELECT json_array_elements_text($2::json)"
    };

    (sqlite, activity_bucket($column:literal)) => {
        concat!("(", $column, " - $2) / ($3 * 1000000)")
    };
    (postgres, activity_bucket($column:literal)) => {
        concat!("FLOOR(EXTRACT(EPOCH FROM (", $column, " - $2)) / $3)::bigint")
    };

    (sqlite, claim_candidates) => {
        concat!(
            "SELECT j.token, j.key_id, j.run_at, \
                    ROW_NUMBER() OVER (PARTITION BY j.key_id ORDER BY j.run_at, j.token) AS round \
             FROM keys k JOIN alert_jobs j ON j.token IN ( \
                 SELECT c.token FROM alert_jobs c \
                 WHERE c.key_id = k.key_id AND ",
            $crate::job_claimable!("c.", "$1"),
            " ORDER BY c.run_at, c.token LIMIT $4)"
        )
    };
    (postgres, claim_candidates) => {
        concat!(
            "SELECT j.token, j.key_id, j.run_at, \
                    ROW_NUMBER() OVER (PARTITION BY j.key_id ORDER BY j.run_at, j.token) AS round \
             FROM keys k CROSS JOIN LATERAL ( \
                 SELECT c.token, c.key_id, c.run_at FROM alert_jobs c \
                 WHERE c.key_id = k.key_id AND ",
            $crate::job_claimable!("c.", "$1"),
            " ORDER BY c.run_at, c.token LIMIT $4) j"
        )
    };

    (sqlite, claim_lock) => {
        ""
    };
    (postgres, claim_lock) => {
        " FOR UPDATE OF j SKIP LOCKED"
    };
}
