//! What once-per-change rules told, for the pipeline's `SentChanges`: the statements, and the
//! rows they read. Each database has its own way to write many rows at once, and its own
//! spelling of a JSON array read as rows, in [`sqlite`] and [`postgres`]; writing them is the
//! store's own ([`SqlDialect::write_sent`]).
//!
//! ```
//! use store_sql::sent::{postgres, sqlite};
//!
//! assert!(sqlite::UPSERT_SENT.starts_with("INSERT INTO sent_changes"));
//! assert!(postgres::UPSERT_SENT.contains("FROM UNNEST("));
//! ```

use alerts_core::ids::RuleId;
use alerts_core::ports::{SentChange, StoreError};
use uuid::Uuid;

use crate::SqlDialect;

/// SQLite's spelling: the point ids through `json_each`, and told changes one row at a time.
pub mod sqlite {
    /// The changes (each a [`SentRow`](super::SentRow)) the key `$1` told about the point ids
    /// of the JSON array `$2` that still hold at `$3`, by requests whose file was written.
    pub const SENT_CHANGES: &str = "\
        SELECT s.rule_id, s.point_id, s.subject, s.mark, s.until \
        FROM sent_changes s JOIN alert_jobs j ON j.token = s.token \
        WHERE s.key_id = $1 AND s.point_id IN (SELECT value FROM json_each($2)) \
        AND s.until > $3 AND j.alerts IS NOT NULL";

    /// Stores one told change: `$1` rule, `$2` point id, `$3` subject, `$4` key, `$5` token,
    /// `$6` mark, `$7` until; it replaces the one before it of the same rule, point id and
    /// subject. A rule deleted while its request was evaluated has nothing left to remember,
    /// so a change of a rule that no longer exists is dropped.
    pub const UPSERT_SENT: &str = "\
        INSERT INTO sent_changes (rule_id, point_id, subject, key_id, token, mark, until) \
        SELECT $1, $2, $3, $4, $5, $6, $7 \
        WHERE EXISTS (SELECT 1 FROM alert_rules WHERE id = $1) \
        ON CONFLICT (rule_id, point_id, subject) DO UPDATE SET \
        key_id = excluded.key_id, token = excluded.token, mark = excluded.mark, \
        until = excluded.until";
}

/// PostgreSQL's spelling: the point ids through `json_array_elements_text`, and told changes
/// from arrays, one statement for them all.
pub mod postgres {
    /// As SQLite's [`SENT_CHANGES`](super::sqlite::SENT_CHANGES).
    pub const SENT_CHANGES: &str = "\
        SELECT s.rule_id, s.point_id, s.subject, s.mark, s.until \
        FROM sent_changes s JOIN alert_jobs j ON j.token = s.token \
        WHERE s.key_id = $1 AND s.point_id IN (SELECT json_array_elements_text($2::json)) \
        AND s.until > $3 AND j.alerts IS NOT NULL";

    /// Stores told changes from arrays of equal length: `$1` rules, `$2` point ids, `$3`
    /// subjects, `$4` marks, `$5` untils; all told by the request `$7` of the key `$6`. One
    /// statement may write a row once, so the caller keeps only the last change of each rule,
    /// point id and subject. As SQLite's [`UPSERT_SENT`](super::sqlite::UPSERT_SENT), a change
    /// replaces the one before it, and a change of a rule that no longer exists is dropped.
    pub const UPSERT_SENT: &str = "\
        INSERT INTO sent_changes (rule_id, point_id, subject, key_id, token, mark, until) \
        SELECT c.rule_id, c.point_id, c.subject, $6, $7, c.mark, c.until \
        FROM UNNEST($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) \
             AS c (rule_id, point_id, subject, mark, until) \
        WHERE EXISTS (SELECT 1 FROM alert_rules r WHERE r.id = c.rule_id) \
        ON CONFLICT (rule_id, point_id, subject) DO UPDATE SET \
        key_id = excluded.key_id, token = excluded.token, mark = excluded.mark, \
        until = excluded.until";
}

/// The point ids of a lookup as the one JSON array they travel in, however many a chunk has.
///
/// # Errors
/// [`StoreError::Corrupt`] should they not serialise (they always do).
pub fn point_ids_json(point_ids: &[&str]) -> Result<String, StoreError> {
    serde_json::to_string(point_ids).map_err(|e| StoreError::Corrupt(format!("point ids: {e}")))
}

/// A told change: rule, point id, subject, mark, until.
pub type SentRow<T> = (Uuid, String, String, String, T);

/// The change of a [`SentRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a time the store cannot have written.
pub fn sent_change<D: SqlDialect>(row: SentRow<D::Time>) -> Result<SentChange, StoreError> {
    let (rule_id, point_id, subject, mark, until) = row;
    Ok(SentChange {
        rule_id: RuleId(rule_id),
        point_id,
        subject,
        mark,
        until: D::from_time(until)?,
    })
}
