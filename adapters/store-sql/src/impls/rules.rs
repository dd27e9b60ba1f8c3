//! The pipeline's `RuleStore` on a store type, with the statements and rows of
//! [`rules`](crate::rules) and of a key's configuration ([`configs`](crate::configs)).

/// Implements `RuleStore` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! impl_rules {
    ($store:ty, $dialect:ident) => {
        impl $store {
            /// The rules of `key`, or its enabled ones only.
            async fn rules_of(
                conn: &mut <Db as sqlx::Database>::Connection,
                key: KeyId,
                only_enabled: bool,
            ) -> Result<Vec<AlertRule>, StoreError> {
                let rows: Vec<$crate::rules::RuleRow<Time>> =
                    sqlx::query_as($crate::rules::RULES_OF_KEY)
                        .bind(key.0)
                        .bind(only_enabled)
                        .fetch_all(&mut *conn)
                        .await
                        .map_err(Self::db_error)?;
                rows.into_iter().map($crate::rules::rule::<Self>).collect()
            }
        }

        #[async_trait]
        impl RuleStore for $store {
            async fn key_config(
                &self,
                key_id: KeyId,
                now: DateTime<Utc>,
            ) -> Result<Option<KeyConfig>, StoreError> {
                let version: Option<i64> = sqlx::query_scalar($crate::configs::CONFIG_VERSION)
                    .bind(key_id.0)
                    .fetch_optional(self.pool())
                    .await
                    .map_err(Self::db_error)?;
                let Some(version) = version else {
                    self.in_process().configs.forget(key_id);
                    return Ok(None);
                };
                if let Some(config) = self.in_process().configs.at_version(key_id, version, now) {
                    return Ok(Some(config));
                }
                // A read transaction: the key, its secrets and its rules from one snapshot,
                // with the version they are at.
                let mut tx = self.pool().begin().await.map_err(Self::db_error)?;
                let key: Option<$crate::configs::ConfigKeyRow> =
                    sqlx::query_as($crate::configs::CONFIG_KEY)
                        .bind(key_id.0)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(Self::db_error)?;
                let Some(key) = key else {
                    self.in_process().configs.forget(key_id);
                    return Ok(None);
                };
                let secrets: Vec<$crate::configs::SecretRow<Time>> =
                    sqlx::query_as($crate::configs::CONFIG_SECRETS)
                        .bind(key_id.0)
                        .fetch_all(&mut *tx)
                        .await
                        .map_err(Self::db_error)?;
                let rules = Self::rules_of(&mut tx, key_id, true).await?;
                tx.commit().await.map_err(Self::db_error)?;
                let (version, config) =
                    $crate::configs::config::<Self>(key_id, key, secrets, rules)?;
                self.in_process().configs.keep(version, config.clone());
                Ok(Some($crate::configs::current(config, now)))
            }

            async fn add_rule(&self, rule: &AlertRule) -> Result<(), StoreError> {
                sqlx::query($crate::rules::$dialect::INSERT_RULE)
                    .bind(rule.id.0)
                    .bind(rule.key_id.0)
                    .bind($crate::rules::spec_text(&rule.spec)?)
                    .bind(rule.enabled)
                    .bind(Self::to_time(rule.created_at))
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error_or_conflict(|| {
                        format!("the alert rule {} exists already", rule.id)
                    }))?;
                Ok(())
            }

            async fn list_rules(&self, key: KeyId) -> Result<Vec<AlertRule>, StoreError> {
                let mut conn = self.pool().acquire().await.map_err(Self::db_error)?;
                Self::rules_of(&mut conn, key, false).await
            }

            async fn update_rule(&self, rule: &AlertRule) -> Result<(), StoreError> {
                let done = sqlx::query($crate::rules::$dialect::UPDATE_RULE)
                    .bind($crate::rules::spec_text(&rule.spec)?)
                    .bind(rule.enabled)
                    .bind(rule.id.0)
                    .bind(rule.key_id.0)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                affected_one(done.rows_affected())
            }

            async fn delete_rule(&self, key: KeyId, rule: RuleId) -> Result<(), StoreError> {
                let done = sqlx::query($crate::rules::DELETE_RULE)
                    .bind(rule.0)
                    .bind(key.0)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                affected_one(done.rows_affected())
            }
        }
    };
}
