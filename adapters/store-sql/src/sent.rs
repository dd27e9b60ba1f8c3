//! What once-per-change rules told: the sent-changes store, for
//! [`sql_store!`](crate::sql_store). Writing them is the store's own
//! ([`SqlDialect::write_sent`](crate::SqlDialect::write_sent)): each database has its own way
//! to write many rows at once.

/// The statement that stores told changes, with `$rows` the `SELECT` of the rows to store
/// (rule, point id, subject, key, token, mark, until); a row for a rule that exists already
/// replaces the one before it.
///
/// ```
/// let sql = store_sql::upsert_sent!("SELECT $1, $2, $3, $4, $5, $6, $7");
/// assert!(sql.starts_with("INSERT INTO sent_changes"));
/// ```
#[macro_export]
macro_rules! upsert_sent {
    ($rows:literal) => {
        concat!(
            "INSERT INTO sent_changes (rule_id, point_id, subject, key_id, token, mark, until) ",
            $rows,
            " ON CONFLICT (rule_id, point_id, subject) DO UPDATE SET \
             key_id = excluded.key_id, token = excluded.token, mark = excluded.mark, \
             until = excluded.until"
        )
    };
}

/// Implements `SentChanges` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! sent_sql {
    ($store:ty, $dialect:ident) => {
        #[async_trait]
        impl SentChanges for $store {
            async fn sent_changes(
                &self,
                key: KeyId,
                point_ids: &[&str],
                now: DateTime<Utc>,
            ) -> Result<Vec<SentChange>, StoreError> {
                if point_ids.is_empty() {
                    return Ok(Vec::new());
                }
                // The ids travel as one JSON array, however many the chunk has.
                let ids = $crate::__private::serde_json::to_string(point_ids)
                    .map_err(|e| StoreError::Corrupt(format!("point ids: {e}")))?;
                let rows: Vec<(Uuid, String, String, String, Time)> = sqlx::query_as(concat!(
                    "SELECT s.rule_id, s.point_id, s.subject, s.mark, s.until \
                     FROM sent_changes s JOIN alert_jobs j ON j.token = s.token \
                     WHERE s.key_id = $1 AND s.point_id IN (",
                    $crate::dialect_sql!($dialect, json_strings),
                    ") AND s.until > $3 AND j.alerts IS NOT NULL"
                ))
                .bind(key.0)
                .bind(ids)
                .bind(Self::to_time(now))
                .fetch_all(self.pool())
                .await
                .map_err(Self::db_error)?;
                rows.into_iter()
                    .map(|(rule_id, point_id, subject, mark, until)| {
                        Ok(SentChange {
                            rule_id: RuleId(rule_id),
                            point_id,
                            subject,
                            mark,
                            until: Self::from_time(until)?,
                        })
                    })
                    .collect()
            }

            async fn record_sent(
                &self,
                token: Token,
                key: KeyId,
                changes: &[SentChange],
            ) -> Result<(), StoreError> {
                self.write_sent(token, key, changes).await
            }
        }
    };
}
