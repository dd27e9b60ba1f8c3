//! Identity's `KeyAuthenticator` and `AccountStore` on a store type, with the statements and
//! rows of [`accounts`](crate::accounts).

/// Implements `KeyAuthenticator` and `AccountStore` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! impl_accounts {
    ($store:ty) => {
        impl $store {
            /// The keys `query`, one of the key listings of `store_sql::accounts`, finds with
            /// `filter` in `$1`.
            async fn keys_where(
                &self,
                query: &'static str,
                filter: impl for<'q> sqlx::Encode<'q, Db> + sqlx::Type<Db> + Send,
            ) -> Result<Vec<ApiKeyInfo>, StoreError> {
                let rows: Vec<$crate::accounts::KeyRow<Time>> = sqlx::query_as(query)
                    .bind(filter)
                    .fetch_all(self.pool())
                    .await
                    .map_err(Self::db_error)?;
                rows.into_iter()
                    .map($crate::accounts::key_info::<Self>)
                    .collect()
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
                let key: Option<$crate::accounts::KeyUseRow<Time>> =
                    sqlx::query_as($crate::accounts::KEY_BY_HASH)
                        .bind(hash.to_hex())
                        .fetch_optional(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                let Some((id, last_used)) = key else {
                    return Ok(None);
                };
                if last_use_is_stale(Self::from_opt_time(last_used)?, now) {
                    sqlx::query($crate::accounts::TOUCH_KEY)
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
        impl AccountStore for $store {
            async fn create_account(&self, account: &Account) -> Result<(), StoreError> {
                sqlx::query($crate::accounts::INSERT_ACCOUNT)
                    .bind(account.id.0)
                    .bind(&account.email)
                    .bind(&account.password_hash)
                    .bind(account.credential_version)
                    .bind(Self::to_time(account.created_at))
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error_or_conflict(|| {
                        format!("an account with the email {} exists already", account.email)
                    }))?;
                Ok(())
            }

            async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError> {
                let row: Option<$crate::accounts::AccountRow<Time>> =
                    sqlx::query_as($crate::accounts::ACCOUNT_BY_EMAIL)
                        .bind(email.trim().to_lowercase())
                        .fetch_optional(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                row.map($crate::accounts::account::<Self>).transpose()
            }

            async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError> {
                let row: Option<$crate::accounts::AccountRow<Time>> =
                    sqlx::query_as($crate::accounts::ACCOUNT_BY_ID)
                        .bind(id.0)
                        .fetch_optional(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                row.map($crate::accounts::account::<Self>).transpose()
            }

            async fn set_password_hash(
                &self,
                account: AccountId,
                hash: &str,
                current: i64,
            ) -> Result<i64, StoreError> {
                let version: Option<i64> = sqlx::query_scalar($crate::accounts::SET_PASSWORD_HASH)
                    .bind(hash)
                    .bind(account.0)
                    .bind(current)
                    .fetch_optional(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                if let Some(version) = version {
                    return Ok(version);
                }
                let exists: bool = sqlx::query_scalar($crate::accounts::ACCOUNT_EXISTS)
                    .bind(account.0)
                    .fetch_one(self.pool())
                    .await
                    .map_err(Self::db_error)?;
                Err(if exists {
                    StoreError::CredentialsChanged
                } else {
                    StoreError::NotFound
                })
            }

            async fn has_accounts(&self) -> Result<bool, StoreError> {
                sqlx::query_scalar($crate::accounts::HAS_ACCOUNTS)
                    .fetch_one(self.pool())
                    .await
                    .map_err(Self::db_error)
            }

            async fn create_key(&self, key: &NewApiKey) -> Result<(), StoreError> {
                let mut tx = self.begin_write().await?;
                sqlx::query($crate::accounts::INSERT_KEY)
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
                sqlx::query($crate::accounts::INSERT_SECRET)
                    .bind(key.id.0)
                    .bind(key.secret.expose())
                    .execute(&mut *tx)
                    .await
                    .map_err(Self::db_error)?;
                tx.commit().await.map_err(Self::db_error)
            }

            async fn list_keys(&self, account: AccountId) -> Result<Vec<ApiKeyInfo>, StoreError> {
                self.keys_where($crate::accounts::KEYS_OF_ACCOUNT, account.0)
                    .await
            }

            async fn keys_with_prefix(&self, prefix: &str) -> Result<Vec<ApiKeyInfo>, StoreError> {
                self.keys_where($crate::accounts::KEYS_WITH_PREFIX, prefix)
                    .await
            }

            async fn key_info(&self, key: KeyId) -> Result<Option<ApiKeyInfo>, StoreError> {
                let keys = self.keys_where($crate::accounts::KEY_BY_ID, key.0).await?;
                Ok(keys.into_iter().next())
            }

            async fn set_key_label(&self, key: KeyId, label: &str) -> Result<(), StoreError> {
                let done = sqlx::query($crate::accounts::SET_KEY_LABEL)
                    .bind(label)
                    .bind(key.0)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                affected_one(done.rows_affected())
            }

            async fn revoke_key(&self, key: KeyId, at: DateTime<Utc>) -> Result<(), StoreError> {
                let done = sqlx::query($crate::accounts::REVOKE_KEY)
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
                let done = sqlx::query($crate::accounts::SET_WEBHOOK_URL)
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
                let done = sqlx::query($crate::accounts::EXPIRE_SECRET)
                    .bind(Self::to_time(previous_valid_until))
                    .bind(key.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(Self::db_error)?;
                affected_one(done.rows_affected())?;
                sqlx::query($crate::accounts::INSERT_SECRET)
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
