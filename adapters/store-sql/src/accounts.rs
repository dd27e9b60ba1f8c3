//! Accounts, API keys, signing secrets and alert rules: the account store and key
//! authentication (identity's ports), and the rule store (the alert pipeline's), for
//! [`sql_store!`](crate::sql_store).
//!
//! ```
//! // A key with its current secret, for the key listings.
//! assert!(store_sql::select_keys!("WHERE k.id = $1").ends_with("valid_until IS NULL WHERE k.id = $1"));
//! ```

/// A query of keys with their current secret (the columns of a
/// [`KeyRow`](crate::rows::KeyRow)), filtered by `$filter`.
#[macro_export]
macro_rules! select_keys {
    ($filter:literal) => {
        concat!(
            "SELECT k.id, k.account_id, k.label, k.prefix, k.created_at, k.last_used_at, ",
            "k.revoked_at, k.webhook_url, s.secret FROM api_keys k ",
            "JOIN webhook_secrets s ON s.key_id = k.id AND s.valid_until IS NULL ",
            $filter
        )
    };
}

/// Implements `KeyAuthenticator`, `RuleStore` and `AccountStore` for
/// [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! accounts_sql {
    ($store:ty, $dialect:ident) => {
        impl $store {
            /// The rules of `key`, or its enabled ones only.
            async fn rules_of(
                conn: &mut <Db as sqlx::Database>::Connection,
                key: KeyId,
                only_enabled: bool,
            ) -> Result<Vec<AlertRule>, StoreError> {
                let rows: Vec<rows::RuleRow<Time>> = sqlx::query_as(
                    "SELECT id, key_id, CAST(spec AS TEXT), enabled, created_at FROM alert_rules \
                     WHERE key_id = $1 AND (enabled OR NOT $2) ORDER BY created_at, seq",
                )
                .bind(key.0)
                .bind(only_enabled)
                .fetch_all(&mut *conn)
                .await
                .map_err(Self::db_error)?;
                rows.into_iter().map(rows::rule::<Self>).collect()
            }

            /// The keys a query of [`select_keys!`] finds with `filter` in `$1`.
            async fn keys_where(
                &self,
                query: &'static str,
                filter: impl for<'q> sqlx::Encode<'q, Db> + sqlx::Type<Db> + Send,
            ) -> Result<Vec<ApiKeyInfo>, StoreError> {
                let rows: Vec<rows::KeyRow<Time>> = sqlx::query_as(query)
                    .bind(filter)
                    .fetch_all(self.pool())
                    .await
                    .map_err(Self::db_error)?;
                rows.into_iter().map(rows::key_info::<Self>).collect()
            }
        }

        #[async_trait]
        impl KeyAuthenticator for $store {
            async fn authenticate(
                &self,
                hash: &KeyHash,
                now: DateTime<Utc>,
            ) -> Result<Option<KeyId>, StoreError> {
                // A read on the hot path; the write only when the recorded use is stale.
                let key: Option<(Uuid, Option<Time>)> = sqlx::query_as(
                    "SELECT id, last_used_at FROM api_keys \
                     WHERE key_hash = $1 AND revoked_at IS NULL",
                )
                .bind(hash.to_hex())
                .fetch_optional(self.pool())
                .await
                .map_err(Self::db_error)?;
                let Some((id, last_used)) = key else {
                    return Ok(None);
                };
                if last_use_is_stale(Self::from_opt_time(last_used)?, now) {
                    sqlx::query(
                        "UPDATE api_keys SET last_used_at = $1 \
                         WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)",
                    )
                    .bind(Self::to_time(now))
                    .bind(id)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                }
                Ok(Some(KeyId(id)))
            }
        }

        #[async_trait]
        impl RuleStore for $store {
            async fn key_config(
                &self,
                key_id: KeyId,
                now: DateTime<Utc>,
            ) -> Result<Option<KeyConfig>, StoreError> {
                // The version alone first: most reads find the configuration kept at it.
                let version: Option<i64> = sqlx::query_scalar(
                    "SELECT config_version FROM api_keys WHERE id = $1 AND revoked_at IS NULL",
                )
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
                let key: Option<(String, Option<String>, i64)> = sqlx::query_as(
                    "SELECT prefix, webhook_url, config_version FROM api_keys \
                     WHERE id = $1 AND revoked_at IS NULL",
                )
                .bind(key_id.0)
                .fetch_optional(&mut *tx)
                .await
                .map_err(Self::db_error)?;
                let Some((prefix, webhook_url, version)) = key else {
                    self.in_process().configs.forget(key_id);
                    return Ok(None);
                };
                // Every secret, expired ones too: which are still valid depends on the time
                // of each read of the kept configuration (`configs::current`).
                let secrets: Vec<(String, Option<Time>)> = sqlx::query_as(
                    "SELECT secret, valid_until FROM webhook_secrets WHERE key_id = $1 \
                     ORDER BY valid_until IS NOT NULL, valid_until DESC, seq DESC",
                )
                .bind(key_id.0)
                .fetch_all(&mut *tx)
                .await
                .map_err(Self::db_error)?;
                let rules = Self::rules_of(&mut tx, key_id, true).await?;
                tx.commit().await.map_err(Self::db_error)?;
                let secrets = secrets
                    .into_iter()
                    .map(|(secret, until)| {
                        Ok(SigningSecret {
                            secret: rows::secret_of(&secret)?,
                            valid_until: Self::from_opt_time(until)?,
                        })
                    })
                    .collect::<Result<Vec<_>, StoreError>>()?;
                let config = KeyConfig {
                    key_id,
                    prefix,
                    webhook_url,
                    secrets,
                    rules,
                };
                self.in_process().configs.keep(version, config.clone());
                Ok(Some($crate::configs::current(config, now)))
            }

            async fn add_rule(&self, rule: &AlertRule) -> Result<(), StoreError> {
                sqlx::query(concat!(
                    "INSERT INTO alert_rules (id, key_id, spec, enabled, created_at) \
                     VALUES ($1, $2, $3",
                    $crate::dialect_sql!($dialect, as_jsonb),
                    ", $4, $5)"
                ))
                .bind(rule.id.0)
                .bind(rule.key_id.0)
                .bind(rows::spec_text(&rule.spec)?)
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
                let done = sqlx::query(concat!(
                    "UPDATE alert_rules SET spec = $1",
                    $crate::dialect_sql!($dialect, as_jsonb),
                    ", enabled = $2 WHERE id = $3 AND key_id = $4"
                ))
                .bind(rows::spec_text(&rule.spec)?)
                .bind(rule.enabled)
                .bind(rule.id.0)
                .bind(rule.key_id.0)
                .execute(self.writer())
                .await
                .map_err(Self::db_error)?;
                affected_one(done.rows_affected())
            }

            async fn delete_rule(&self, key: KeyId, rule: RuleId) -> Result<(), StoreError> {
                let done = sqlx::query("DELETE FROM alert_rules WHERE id = $1 AND key_id = $2")
                    .bind(rule.0)
                    .bind(key.0)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                affected_one(done.rows_affected())
            }
        }

        #[async_trait]
        impl AccountStore for $store {
            async fn create_account(&self, account: &Account) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO accounts (id, email, password_hash, created_at) \
                     VALUES ($1, $2, $3, $4)",
                )
                .bind(account.id.0)
                .bind(&account.email)
                .bind(&account.password_hash)
                .bind(Self::to_time(account.created_at))
                .execute(self.writer())
                .await
                .map_err(Self::db_error_or_conflict(|| {
                    format!("an account with the email {} exists already", account.email)
                }))?;
                Ok(())
            }

            async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError> {
                let row: Option<rows::AccountRow<Time>> = sqlx::query_as(
                    "SELECT id, email, password_hash, created_at FROM accounts WHERE email = $1",
                )
                .bind(email.trim().to_lowercase())
                .fetch_optional(self.pool())
                .await
                .map_err(Self::db_error)?;
                row.map(rows::account::<Self>).transpose()
            }

            async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError> {
                let row: Option<rows::AccountRow<Time>> = sqlx::query_as(
                    "SELECT id, email, password_hash, created_at FROM accounts WHERE id = $1",
                )
                .bind(id.0)
                .fetch_optional(self.pool())
                .await
                .map_err(Self::db_error)?;
                row.map(rows::account::<Self>).transpose()
            }

            async fn set_password_hash(
                &self,
                account: AccountId,
                hash: &str,
            ) -> Result<(), StoreError> {
                let done = sqlx::query("UPDATE accounts SET password_hash = $1 WHERE id = $2")
                    .bind(hash)
                    .bind(account.0)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                affected_one(done.rows_affected())
            }

            async fn has_accounts(&self) -> Result<bool, StoreError> {
                sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM accounts)")
                    .fetch_one(self.pool())
                    .await
                    .map_err(Self::db_error)
            }

            async fn create_key(&self, key: &NewApiKey) -> Result<(), StoreError> {
                let mut tx = self.begin_write().await?;
                sqlx::query(
                    "INSERT INTO api_keys (id, account_id, label, prefix, key_hash, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(key.id.0)
                .bind(key.account_id.0)
                .bind(&key.label)
                .bind(&key.prefix)
                .bind(key.hash.to_hex())
                .bind(Self::to_time(key.created_at))
                .execute(&mut *tx)
                .await
                .map_err(Self::db_error_or_conflict(|| {
                    format!("the API key {} exists already", key.prefix)
                }))?;
                sqlx::query("INSERT INTO webhook_secrets (key_id, secret) VALUES ($1, $2)")
                    .bind(key.id.0)
                    .bind(key.secret.expose())
                    .execute(&mut *tx)
                    .await
                    .map_err(Self::db_error)?;
                tx.commit().await.map_err(Self::db_error)
            }

            async fn list_keys(&self, account: AccountId) -> Result<Vec<ApiKeyInfo>, StoreError> {
                let query = $crate::select_keys!(
                    "WHERE k.account_id = $1 ORDER BY k.created_at DESC, k.seq DESC"
                );
                self.keys_where(query, account.0).await
            }

            async fn keys_with_prefix(&self, prefix: &str) -> Result<Vec<ApiKeyInfo>, StoreError> {
                let query = $crate::select_keys!(
                    "WHERE k.prefix = $1 ORDER BY k.created_at DESC, k.seq DESC"
                );
                self.keys_where(query, prefix).await
            }

            async fn key_info(&self, key: KeyId) -> Result<Option<ApiKeyInfo>, StoreError> {
                let query = $crate::select_keys!("WHERE k.id = $1");
                Ok(self.keys_where(query, key.0).await?.into_iter().next())
            }

            async fn set_key_label(&self, key: KeyId, label: &str) -> Result<(), StoreError> {
                let done = sqlx::query("UPDATE api_keys SET label = $1 WHERE id = $2")
                    .bind(label)
                    .bind(key.0)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                affected_one(done.rows_affected())
            }

            async fn revoke_key(&self, key: KeyId, at: DateTime<Utc>) -> Result<(), StoreError> {
                let done = sqlx::query(
                    "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2",
                )
                .bind(Self::to_time(at))
                .bind(key.0)
                .execute(self.writer())
                .await
                .map_err(Self::db_error)?;
                affected_one(done.rows_affected())
            }

            async fn set_webhook_url(
                &self,
                key: KeyId,
                url: Option<&str>,
            ) -> Result<(), StoreError> {
                let done = sqlx::query("UPDATE api_keys SET webhook_url = $1 WHERE id = $2")
                    .bind(url)
                    .bind(key.0)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                affected_one(done.rows_affected())
            }

            async fn rotate_secret(
                &self,
                key: KeyId,
                new: &WebhookSecret,
                previous_valid_until: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = self.begin_write().await?;
                let done = sqlx::query(
                    "UPDATE webhook_secrets SET valid_until = $1 \
                     WHERE key_id = $2 AND valid_until IS NULL",
                )
                .bind(Self::to_time(previous_valid_until))
                .bind(key.0)
                .execute(&mut *tx)
                .await
                .map_err(Self::db_error)?;
                affected_one(done.rows_affected())?;
                sqlx::query("INSERT INTO webhook_secrets (key_id, secret) VALUES ($1, $2)")
                    .bind(key.0)
                    .bind(new.expose())
                    .execute(&mut *tx)
                    .await
                    .map_err(Self::db_error)?;
                tx.commit().await.map_err(Self::db_error)
            }
        }
    };
}
