//! Alert rules, for the pipeline's `RuleStore`: the statements, and the rows they read as
//! rules. A rule's spec is JSON text, which PostgreSQL keeps as `jsonb` (so the statements
//! that write it differ, in [`sqlite`] and [`postgres`]) and both read back as text.
//!
//! ```
//! use store_sql::rules::{postgres, sqlite};
//!
//! assert!(sqlite::INSERT_RULE.ends_with("VALUES ($1, $2, $3, $4, $5)"));
//! assert!(postgres::INSERT_RULE.ends_with("VALUES ($1, $2, $3::jsonb, $4, $5)"));
//! ```

use alerts_core::ids::RuleId;
use alerts_core::ports::StoreError;
use alerts_core::rule::{AlertRule, RuleSpec};
use identity_core::ids::KeyId;
use uuid::Uuid;

use crate::SqlDialect;

/// The rules (each a [`RuleRow`]) of the key `$1`, or only its enabled ones when `$2`, in the
/// order they were added.
pub const RULES_OF_KEY: &str = "\
    SELECT id, key_id, CAST(spec AS TEXT), enabled, created_at FROM alert_rules \
    WHERE key_id = $1 AND (enabled OR NOT $2) ORDER BY created_at, seq";

/// Deletes the rule `$1` of the key `$2`.
pub const DELETE_RULE: &str = "DELETE FROM alert_rules WHERE id = $1 AND key_id = $2";

/// SQLite's spelling: the spec is stored as the text it is.
pub mod sqlite {
    /// A new rule: `$1` id, `$2` key, `$3` spec (JSON text), `$4` enabled, `$5` created.
    pub const INSERT_RULE: &str = "\
        INSERT INTO alert_rules (id, key_id, spec, enabled, created_at) \
        VALUES ($1, $2, $3, $4, $5)";

    /// Replaces the spec (`$1`, JSON text) and the switch (`$2`) of the rule `$3` of the key
    /// `$4`.
    pub const UPDATE_RULE: &str =
        "UPDATE alert_rules SET spec = $1, enabled = $2 WHERE id = $3 AND key_id = $4";
}

/// PostgreSQL's spelling: the spec's text is cast to the column's `jsonb`.
pub mod postgres {
    /// As SQLite's [`INSERT_RULE`](super::sqlite::INSERT_RULE).
    pub const INSERT_RULE: &str = "\
        INSERT INTO alert_rules (id, key_id, spec, enabled, created_at) \
        VALUES ($1, $2, $3::jsonb, $4, $5)";

    /// As SQLite's [`UPDATE_RULE`](super::sqlite::UPDATE_RULE).
    pub const UPDATE_RULE: &str =
        "UPDATE alert_rules SET spec = $1::jsonb, enabled = $2 WHERE id = $3 AND key_id = $4";
}

/// An alert rule: id, key, spec as JSON text, enabled, created.
pub type RuleRow<T> = (Uuid, Uuid, String, bool, T);

/// The rule of a [`RuleRow`]; its spec is validated again as it is read.
///
/// # Errors
/// [`StoreError::Corrupt`] when the spec or the time is not one the store can have written.
pub fn rule<D: SqlDialect>(row: RuleRow<D::Time>) -> Result<AlertRule, StoreError> {
    let (id, key_id, spec, enabled, created) = row;
    let spec: RuleSpec = serde_json::from_str(&spec)
        .map_err(|e| StoreError::Corrupt(format!("alert rule {id}: {e}")))?;
    Ok(AlertRule {
        id: RuleId(id),
        key_id: KeyId(key_id),
        spec,
        enabled,
        created_at: D::from_time(created)?,
    })
}

/// A rule's spec as the stores keep it: JSON text.
///
/// # Errors
/// [`StoreError::Corrupt`] should it not serialise (it always does).
pub fn spec_text(spec: &RuleSpec) -> Result<String, StoreError> {
    serde_json::to_string(spec)
        .map_err(|e| StoreError::Corrupt(format!("alert rule could not be encoded: {e}")))
}
