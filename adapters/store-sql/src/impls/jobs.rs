//! The pipeline's `JobQueue` on a store type, with the statements and rows of
//! [`requests`](crate::requests) (a request, its points and its job stored; points read back;
//! retention), [`claims`](crate::claims) (which jobs a claim takes) and [`jobs`](crate::jobs)
//! (a held job's updates, redelivery, the queue's counts), and the writes stored together of
//! [`batch`](crate::batch).

/// Implements `JobQueue` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! impl_jobs {
    ($store:ty, $dialect:ident) => {
        impl $store {
            /// Runs `query`, an update of the job `token` that checks, in the same statement,
            /// that `lease` still holds it: the token and the lease id are its last two
            /// placeholders. A worker that lost its lease changes nothing.
            async fn update_held(
                &self,
                query: sqlx::query::Query<'_, Db, <Db as sqlx::Database>::Arguments>,
                token: Token,
                lease: &Lease,
            ) -> Result<(), StoreError> {
                let done = query
                    .bind(token.0)
                    .bind(lease.id)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                if done.rows_affected() == 0 {
                    return Err(self.lease_lost_or_missing(token).await);
                }
                Ok(())
            }

            /// Writes a request's points inside the caller's transaction, one row per page as
            /// the pages arrive, so that the JSON held at once, and each message to the
            /// database, is one page's.
            async fn insert_points(
                tx: &mut <Db as sqlx::Database>::Connection,
                token: Token,
                pages: &mut dyn PointPages,
            ) -> Result<(), StoreError> {
                let mut seq: u64 = 0;
                loop {
                    let page = pages.next_page().await?;
                    if page.is_empty() {
                        break;
                    }
                    sqlx::query($crate::requests::INSERT_POINT_PAGE)
                        .bind(token.0)
                        .bind(to_i64(seq))
                        .bind(to_i32(u32::try_from(page.len()).unwrap_or(u32::MAX)))
                        .bind(encode_stored_points(&page)?)
                        .execute(&mut *tx)
                        .await
                        .map_err(Self::db_error)?;
                    seq += page.len() as u64;
                }
                check_page_total(seq, pages)
            }

            /// Stores a request, its points and its job, due at once, inside the caller's
            /// transaction. `false` when a request of the same API key holds the idempotency
            /// key already (and nothing was written, nor any page read).
            async fn insert_request(
                tx: &mut <Db as sqlx::Database>::Connection,
                job: &NewAlertJob,
                pages: &mut dyn PointPages,
                idempotency: Option<&Idempotency>,
            ) -> Result<bool, StoreError> {
                let received = Self::to_time(job.received_at);
                let inserted = sqlx::query($crate::requests::INSERT_REQUEST)
                    .bind(job.token.0)
                    .bind(job.key_id.0)
                    .bind(to_i64(pages.total()))
                    .bind(received)
                    .bind(idempotency.map(|i| i.key.as_str()))
                    .bind(idempotency.map(|i| i.fingerprint.0.to_vec()))
                    .execute(&mut *tx)
                    .await
                    .map_err(Self::db_error_or_conflict(|| {
                        format!("the alert request {} exists already", job.token)
                    }))?
                    .rows_affected();
                if inserted == 0 {
                    return Ok(false);
                }
                Self::insert_points(tx, job.token, pages).await?;
                sqlx::query($crate::requests::INSERT_JOB)
                    .bind(job.token.0)
                    .bind(job.key_id.0)
                    .bind(received)
                    .execute(&mut *tx)
                    .await
                    .map_err(Self::db_error)?;
                Ok(true)
            }

            /// The statement that records `settlement`'s next state of a held job, checking
            /// its lease as every update does: its last two placeholders are the job's token
            /// and the lease id. `written` records the file and moves the job past
            /// evaluation, when it is given.
            fn settle_change(
                settlement: &Settlement,
            ) -> sqlx::query::Query<'static, Db, <Db as sqlx::Database>::Arguments> {
                let written = settlement.written.map(to_i64);
                match settlement.next {
                    JobUpdate::Written { alerts } => {
                        sqlx::query($crate::jobs::SET_WRITTEN).bind(to_i64(alerts))
                    }
                    JobUpdate::Retry { attempts, run_at } => sqlx::query($crate::jobs::RETRY)
                        .bind(to_i32(attempts))
                        .bind(Self::to_time(run_at))
                        .bind(written),
                    JobUpdate::Finish { outcome, attempts } => sqlx::query($crate::jobs::FINISH)
                        .bind(outcome.as_str())
                        .bind(to_i32(attempts))
                        .bind(written),
                }
            }

            /// Writes a settlement inside the caller's transaction: the attempt (kept whatever
            /// became of the lease: it was made), then the job's change; whether it changed
            /// the job.
            async fn settle_in(
                tx: &mut <Db as sqlx::Database>::Connection,
                held: &$crate::batch::HeldSettlement,
            ) -> Result<bool, StoreError> {
                if let Some(attempt) = &held.settlement.attempt {
                    Self::insert_attempt(&mut *tx, attempt).await?;
                }
                let changed = Self::settle_change(&held.settlement)
                    .bind(held.token.0)
                    .bind(held.lease.id)
                    .execute(&mut *tx)
                    .await
                    .map_err(Self::db_error)?
                    .rows_affected();
                Ok(changed > 0)
            }
        }

        impl $crate::batch::BatchStore for $store {
            async fn insert_requests(
                &self,
                batch: &[$crate::batch::Queued<$crate::batch::SmallRequest>],
            ) -> Result<(), $crate::batch::BatchFailed> {
                use $crate::batch::BatchFailed;
                let mut tx = self.begin_write().await.map_err(BatchFailed::Transaction)?;
                for queued in batch {
                    let request = &queued.item;
                    let mut pages = SlicePages::new(&request.points, POINT_PAGE);
                    Self::insert_request(&mut tx, &request.job, &mut pages, None)
                        .await
                        .map_err(BatchFailed::Write)?;
                }
                tx.commit()
                    .await
                    .map_err(|e| BatchFailed::Transaction(Self::db_error(e)))
            }

            async fn insert_settlements(
                &self,
                batch: &[$crate::batch::Queued<$crate::batch::HeldSettlement>],
            ) -> Result<Vec<bool>, $crate::batch::BatchFailed> {
                use $crate::batch::BatchFailed;
                let mut tx = self.begin_write().await.map_err(BatchFailed::Transaction)?;
                let mut changed = Vec::with_capacity(batch.len());
                for queued in batch {
                    let change = Self::settle_in(&mut tx, &queued.item)
                        .await
                        .map_err(BatchFailed::Write)?;
                    changed.push(change);
                }
                tx.commit()
                    .await
                    .map_err(|e| BatchFailed::Transaction(Self::db_error(e)))?;
                Ok(changed)
            }

            async fn lease_lost_or_missing(&self, token: Token) -> StoreError {
                let exists = sqlx::query_scalar::<_, i32>($crate::jobs::JOB_EXISTS)
                    .bind(token.0)
                    .fetch_optional(self.pool())
                    .await;
                match exists {
                    Ok(Some(_)) => StoreError::LeaseLost,
                    Ok(None) => StoreError::NotFound,
                    Err(e) => Self::db_error(e),
                }
            }
        }

        #[async_trait]
        impl JobQueue for $store {
            async fn enqueue_pages(
                &self,
                job: &NewAlertJob,
                pages: &mut dyn PointPages,
                idempotency: Option<&Idempotency>,
            ) -> Result<Enqueued, StoreError> {
                // The transaction stays open while the pages are read: they come from memory
                // or a local file, and a request is one transaction however it arrives. On any
                // error it is dropped, which rolls it back.
                let Some(idempotency) = idempotency else {
                    if pages.total() <= POINT_PAGE as u64 {
                        let points = $crate::batch::read_small(pages).await?;
                        let request = $crate::batch::SmallRequest { job: *job, points };
                        $crate::batch::store_request(self, request).await?;
                        return Ok(Enqueued::Stored);
                    }
                    let mut tx = self.begin_write().await?;
                    Self::insert_request(&mut tx, job, pages, None).await?;
                    tx.commit().await.map_err(Self::db_error)?;
                    self.jobs_arrived();
                    return Ok(Enqueued::Stored);
                };
                // The insert waits for a concurrent one with the same key and then stores
                // nothing; the stored request is read after. Retention may delete it in
                // between, so try again a few times before giving up. No page is read until
                // the insert has the key.
                for _ in 0..3 {
                    let mut tx = self.begin_write().await?;
                    if Self::insert_request(&mut tx, job, pages, Some(idempotency)).await? {
                        tx.commit().await.map_err(Self::db_error)?;
                        self.jobs_arrived();
                        return Ok(Enqueued::Stored);
                    }
                    tx.rollback().await.map_err(Self::db_error)?;
                    let existing: Option<$crate::requests::IdempotentRow> =
                        sqlx::query_as($crate::requests::REQUEST_BY_IDEMPOTENCY_KEY)
                            .bind(job.key_id.0)
                            .bind(idempotency.key.as_str())
                            .fetch_optional(self.pool())
                            .await
                            .map_err(Self::db_error)?;
                    if let Some(existing) = existing {
                        return $crate::requests::existing(existing);
                    }
                }
                Err(StoreError::Conflict(format!(
                    "the idempotency key {} kept changing hands",
                    idempotency.key
                )))
            }

            async fn claim(
                &self,
                now: DateTime<Utc>,
                lease_for: std::time::Duration,
                limits: ClaimLimits,
                lease_ids: &(dyn Fn() -> Uuid + Send + Sync),
            ) -> Result<Vec<AlertJob>, StoreError> {
                if limits.max == 0 || limits.per_key == 0 {
                    return Ok(Vec::new());
                }
                // The whole transaction runs where the store runs its writes (on SQLite, a
                // thread of its own), which cannot call back into the caller: the lease ids are
                // made first, one for every job the claim may take.
                let max = limits.max.min($crate::claims::MOST_PER_CLAIM);
                let ids: Vec<Uuid> = (0..max).map(|_| lease_ids()).collect();
                let store = self.clone();
                self.run_write(async move {
                    let until = Lease::end(now, lease_for);
                    let mut tx = store.begin_write().await?;
                    Self::claims_take_turns(&mut tx).await?;
                    let due: Vec<$crate::claims::ClaimRow<Time>> =
                        sqlx::query_as($crate::claims::$dialect::CLAIM)
                            .bind(Self::to_time(now))
                            .bind(to_i64(max as u64))
                            .bind(to_i64(limits.per_key as u64))
                            .bind(to_i64(max.min(limits.per_key) as u64))
                            .fetch_all(&mut *tx)
                            .await
                            .map_err(Self::db_error)?;
                    let jobs = $crate::claims::leased_jobs::<Self>(due, ids, until)?;
                    if !jobs.is_empty() {
                        Self::lease_jobs(&mut tx, &jobs).await?;
                    }
                    tx.commit().await.map_err(Self::db_error)?;
                    Ok(jobs)
                })
                .await
            }

            async fn points_page(
                &self,
                token: Token,
                from: u64,
                limit: usize,
            ) -> Result<Vec<AlertPoint>, StoreError> {
                let until = from.saturating_add(limit as u64);
                let pages: Vec<$crate::requests::PointPageRow> =
                    sqlx::query_as($crate::requests::POINT_PAGES)
                        .bind(token.0)
                        .bind(to_i64(from))
                        .bind(to_i64(until))
                        .fetch_all(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                if pages.is_empty() {
                    let exists = sqlx::query_scalar::<_, i32>($crate::requests::REQUEST_EXISTS)
                        .bind(token.0)
                        .fetch_optional(self.pool())
                        .await
                        .map_err(Self::db_error)?;
                    return exists.map(|_| Vec::new()).ok_or(StoreError::NotFound);
                }
                points_of_pages(pages, token, from, limit)
            }

            async fn update(
                &self,
                token: Token,
                lease: &Lease,
                update: JobUpdate,
            ) -> Result<(), StoreError> {
                // The statement of a settlement that wrote no file and made no attempt: one
                // statement that checks the lease (and ends it, but for Written), atomic on
                // its own.
                let change = Self::settle_change(&Settlement {
                    written: None,
                    attempt: None,
                    next: update,
                });
                self.update_held(change, token, lease).await
            }

            async fn settle(
                &self,
                token: Token,
                lease: &Lease,
                settlement: &Settlement,
            ) -> Result<(), StoreError> {
                if settlement.attempt.is_none() {
                    // A single statement is atomic on its own.
                    let change = Self::settle_change(settlement);
                    return self.update_held(change, token, lease).await;
                }
                // With an attempt: stored with the other settlements waiting.
                let held = $crate::batch::HeldSettlement {
                    token,
                    lease: *lease,
                    settlement: settlement.clone(),
                };
                $crate::batch::store_settlement(self, held).await
            }

            async fn arrivals(&self) -> Result<Box<dyn Arrivals>, StoreError> {
                self.subscribe().await
            }

            async fn release(&self, token: Token, lease: &Lease) -> Result<(), StoreError> {
                let query = sqlx::query($crate::jobs::RELEASE);
                self.update_held(query, token, lease).await?;
                self.jobs_arrived();
                Ok(())
            }

            async fn redeliver(
                &self,
                key: KeyId,
                token: Token,
                at: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let done = sqlx::query($crate::jobs::REDELIVER)
                    .bind(Self::to_time(at))
                    .bind(token.0)
                    .bind(key.0)
                    .execute(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                if done.rows_affected() > 0 {
                    self.jobs_arrived();
                    return Ok(());
                }
                let unfinished: Option<i32> = sqlx::query_scalar($crate::jobs::UNFINISHED_JOB)
                    .bind(token.0)
                    .bind(key.0)
                    .fetch_optional(self.pool())
                    .await
                    .map_err(Self::db_error)?;
                match unfinished {
                    Some(_) => Err(StoreError::Conflict(UNFINISHED_JOB.to_owned())),
                    None => Err(StoreError::NotFound),
                }
            }

            async fn counts(&self, now: DateTime<Utc>) -> Result<JobCounts, StoreError> {
                let row: $crate::jobs::CountsRow<Time> = sqlx::query_as($crate::jobs::COUNTS)
                    .bind(Self::to_time(now))
                    .fetch_one(self.pool())
                    .await
                    .map_err(Self::db_error)?;
                $crate::jobs::counts::<Self>(row)
            }

            async fn backlog(&self, key: KeyId, now: DateTime<Utc>) -> Result<Backlog, StoreError> {
                let row: $crate::jobs::BacklogRow<Time> = sqlx::query_as($crate::jobs::BACKLOG)
                    .bind(key.0)
                    .bind(Self::to_time(now))
                    .fetch_one(self.pool())
                    .await
                    .map_err(Self::db_error)?;
                $crate::jobs::backlog::<Self>(row)
            }

            async fn purge_finished(
                &self,
                before: DateTime<Utc>,
                limit: usize,
            ) -> Result<Vec<Token>, StoreError> {
                let tokens: Vec<Uuid> = sqlx::query_scalar($crate::requests::PURGE_FINISHED)
                    .bind(Self::to_time(before))
                    .bind(to_i64(limit as u64))
                    .fetch_all(self.writer())
                    .await
                    .map_err(Self::db_error)?;
                Ok(tokens.into_iter().map(Token).collect())
            }
        }
    };
}
