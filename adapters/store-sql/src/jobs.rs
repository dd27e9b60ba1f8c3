//! Alert requests and their jobs: the job queue, for [`sql_store!`](crate::sql_store). Which
//! jobs are held and claimable, and which a claim takes, are the rules of
//! [`claims`](crate::claims); every update of a held job checks its lease in the same
//! statement, so that a worker that lost its lease changes nothing.

/// Implements `JobQueue` for [`sql_store!`](crate::sql_store).
#[doc(hidden)]
#[macro_export]
macro_rules! jobs_sql {
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

            /// After an update matched no row: the job is unknown, or another worker holds it.
            async fn lease_lost_or_missing(&self, token: Token) -> StoreError {
                let exists = sqlx::query_scalar::<_, i32>(
                    "SELECT 1 FROM alert_jobs WHERE token = $1",
                )
                .bind(token.0)
                .fetch_optional(self.pool())
                .await;
                match exists {
                    Ok(Some(_)) => StoreError::LeaseLost,
                    Ok(None) => StoreError::NotFound,
                    Err(e) => Self::db_error(e),
                }
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
                    sqlx::query(
                        "INSERT INTO alert_point_pages (token, first_seq, point_count, points) \
                         VALUES ($1, $2, $3, $4)",
                    )
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
                let inserted = sqlx::query(
                    "INSERT INTO alert_requests \
                     (token, key_id, point_count, received_at, idempotency_key, fingerprint) \
                     VALUES ($1, $2, $3, $4, $5, $6) \
                     ON CONFLICT (key_id, idempotency_key) WHERE idempotency_key IS NOT NULL \
                     DO NOTHING",
                )
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
                sqlx::query(
                    "INSERT INTO alert_jobs (token, key_id, stage, run_at) \
                     VALUES ($1, $2, 'evaluate', $3)",
                )
                .bind(job.token.0)
                .bind(job.key_id.0)
                .bind(received)
                .execute(&mut *tx)
                .await
                .map_err(Self::db_error)?;
                Ok(true)
            }

            /// Queues `item` for the next transaction of its kind (see
            /// [`batch`](crate::batch)), in the store's queue that `queue` picks, starts
            /// `writer` when no write of that kind is under way, and returns once the
            /// transaction that holds `item` is committed.
            async fn store_together<T: Send + 'static>(
                &self,
                queue: fn(&$crate::InProcess) -> &$crate::batch::BatchQueue<T>,
                item: T,
                writer: fn(
                    Self,
                    $crate::batch::WriterGuard<T>,
                ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
            ) -> Result<(), StoreError> {
                let (outcome, start) = queue(self.in_process()).push(item);
                if start {
                    // A task of its own, so that a caller going away (a client that hung up,
                    // a worker stopping) cannot stop a write that others wait for; the guard
                    // is made first, so that even a task that never runs lets go.
                    let guard = $crate::batch::WriterGuard::new(self.in_process().clone(), queue);
                    drop(self.spawn_write(writer(self.clone(), guard)));
                }
                outcome.await.map_err(|_| {
                    StoreError::Unavailable("the write that was to store this stopped".to_owned())
                })?
            }

            /// Stores the waiting small requests, a batch per transaction, until none wait.
            async fn write_queued(
                &self,
                guard: $crate::batch::WriterGuard<$crate::batch::SmallRequest>,
            ) {
                use $crate::batch::BatchFailed;
                while let Some(batch) = guard.queue().next_batch() {
                    match self.insert_batch(&batch).await {
                        Ok(()) => {
                            self.jobs_arrived();
                            for queued in batch {
                                queued.answer(Ok(()));
                            }
                        }
                        Err(BatchFailed::Transaction(e)) => {
                            for queued in batch {
                                queued.answer(Err(e.clone()));
                            }
                        }
                        Err(BatchFailed::Write(e)) if batch.len() == 1 => {
                            batch.into_iter().for_each(|queued| queued.answer(Err(e.clone())));
                        }
                        // Each request in a transaction of its own, so that one that cannot be
                        // stored (its key deleted meanwhile, say) does not fail the others.
                        Err(BatchFailed::Write(_)) => {
                            for queued in batch {
                                let stored = self
                                    .insert_batch(std::slice::from_ref(&queued))
                                    .await
                                    .map_err(BatchFailed::into_error);
                                if stored.is_ok() {
                                    self.jobs_arrived();
                                }
                                queued.answer(stored);
                            }
                        }
                    }
                }
                guard.finish();
            }

            /// Stores every request of `batch` in one transaction, or none of them.
            async fn insert_batch(
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

            /// The statement that records `settlement`'s next state of a held job, checking
            /// its lease as every update does: its last two placeholders are the job's token
            /// and the lease id. `written` records the file and moves the job past
            /// evaluation, when it is given.
            fn settle_change(
                settlement: &Settlement,
            ) -> sqlx::query::Query<'static, Db, <Db as sqlx::Database>::Arguments> {
                let written = settlement.written.map(to_i64);
                match settlement.next {
                    JobUpdate::Written { alerts } => sqlx::query(
                        "UPDATE alert_jobs SET stage = 'deliver', alerts = $1 \
                         WHERE token = $2 AND lease_id = $3",
                    )
                    .bind(to_i64(alerts)),
                    JobUpdate::Retry { attempts, run_at } => sqlx::query(
                        "UPDATE alert_jobs SET attempts = $1, run_at = $2, \
                         alerts = COALESCE($3, alerts), \
                         stage = CASE WHEN $3 IS NULL THEN stage ELSE 'deliver' END, \
                         lease_id = NULL, lease_until = NULL WHERE token = $4 AND lease_id = $5",
                    )
                    .bind(to_i32(attempts))
                    .bind(Self::to_time(run_at))
                    .bind(written),
                    JobUpdate::Finish { outcome, attempts } => sqlx::query(
                        "UPDATE alert_jobs SET stage = 'done', outcome = $1, attempts = $2, \
                         alerts = COALESCE($3, alerts), \
                         lease_id = NULL, lease_until = NULL WHERE token = $4 AND lease_id = $5",
                    )
                    .bind(outcome.as_str())
                    .bind(to_i32(attempts))
                    .bind(written),
                }
            }

            /// Stores a settlement with an attempt in a transaction of its own: whether it
            /// changed the job (no when the lease was lost).
            async fn settle_alone(
                &self,
                held: &$crate::batch::HeldSettlement,
            ) -> Result<bool, StoreError> {
                let mut tx = self.begin_write().await?;
                let changed = Self::settle_in(&mut tx, held).await?;
                tx.commit().await.map_err(Self::db_error)?;
                Ok(changed)
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

            /// Stores the waiting settlements, a batch per transaction, until none wait.
            async fn write_settlements(
                &self,
                guard: $crate::batch::WriterGuard<$crate::batch::HeldSettlement>,
            ) {
                use $crate::batch::BatchFailed;
                while let Some(batch) = guard.queue().next_batch() {
                    let together = async {
                        let mut tx = self.begin_write().await.map_err(BatchFailed::Transaction)?;
                        let mut changed = Vec::with_capacity(batch.len());
                        for queued in &batch {
                            let change = Self::settle_in(&mut tx, &queued.item)
                                .await
                                .map_err(BatchFailed::Write)?;
                            changed.push(change);
                        }
                        tx.commit()
                            .await
                            .map_err(|e| BatchFailed::Transaction(Self::db_error(e)))?;
                        Ok::<_, BatchFailed>(changed)
                    };
                    let changed: Vec<Result<bool, StoreError>> = match together.await {
                        Ok(changed) => changed.into_iter().map(Ok).collect(),
                        Err(BatchFailed::Transaction(e)) => vec![Err(e); batch.len()],
                        Err(BatchFailed::Write(e)) if batch.len() == 1 => vec![Err(e)],
                        // Each on its own, so that one that cannot be stored does not fail the
                        // others.
                        Err(BatchFailed::Write(_)) => {
                            let mut each = Vec::with_capacity(batch.len());
                            for queued in &batch {
                                each.push(self.settle_alone(&queued.item).await);
                            }
                            each
                        }
                    };
                    for (queued, changed) in batch.into_iter().zip(changed) {
                        let outcome = match changed {
                            Ok(true) => Ok(()),
                            Ok(false) => Err(self.lease_lost_or_missing(queued.item.token).await),
                            Err(e) => Err(e),
                        };
                        queued.answer(outcome);
                    }
                }
                guard.finish();
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
                        // A small request: read whole first (a page's worth at most, and
                        // one more page when the pages hold more than they announced, which
                        // is refused), then stored with the others waiting.
                        let mut points = Vec::new();
                        loop {
                            let page = pages.next_page().await?;
                            if page.is_empty() {
                                break;
                            }
                            points.extend(page);
                            if points.len() as u64 > pages.total() {
                                break;
                            }
                        }
                        check_page_total(points.len() as u64, pages)?;
                        let request = $crate::batch::SmallRequest { job: *job, points };
                        self.store_together(
                            |kept| &kept.enqueues,
                            request,
                            |store, guard| {
                                Box::pin(async move { store.write_queued(guard).await })
                            },
                        )
                        .await?;
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
                    let existing: Option<(Uuid, Vec<u8>)> = sqlx::query_as(
                        "SELECT token, fingerprint FROM alert_requests \
                         WHERE key_id = $1 AND idempotency_key = $2",
                    )
                    .bind(job.key_id.0)
                    .bind(idempotency.key.as_str())
                    .fetch_optional(self.pool())
                    .await
                    .map_err(Self::db_error)?;
                    if let Some((token, fingerprint)) = existing {
                        return Ok(Enqueued::Existing {
                            token: Token(token),
                            fingerprint: rows::fingerprint(&fingerprint)?,
                        });
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
                    let due: Vec<(Uuid, Uuid, Time, String, i32)> =
                        sqlx::query_as($crate::claim_sql!($dialect))
                            .bind(Self::to_time(now))
                            .bind(to_i64(max as u64))
                            .bind(to_i64(limits.per_key as u64))
                            .bind(to_i64(max.min(limits.per_key) as u64))
                            .fetch_all(&mut *tx)
                            .await
                            .map_err(Self::db_error)?;
                    let mut jobs = Vec::with_capacity(due.len());
                    let leased = due.into_iter().zip(ids);
                    for ((token, key_id, received_at, stage, attempts), id) in leased {
                        jobs.push(AlertJob {
                            token: Token(token),
                            key_id: KeyId(key_id),
                            stage: stage.parse::<JobStage>()?,
                            attempts: to_u32(i64::from(attempts), "attempts")?,
                            received_at: Self::from_time(received_at)?,
                            lease: Lease { id, until },
                        });
                    }
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
                let pages: Vec<(i64, String)> = sqlx::query_as(
                    "SELECT first_seq, points FROM alert_point_pages \
                     WHERE token = $1 AND first_seq < $3 AND first_seq + point_count > $2 \
                     ORDER BY first_seq",
                )
                .bind(token.0)
                .bind(to_i64(from))
                .bind(to_i64(until))
                .fetch_all(self.pool())
                .await
                .map_err(Self::db_error)?;
                if pages.is_empty() {
                    // Only an empty page needs telling apart: past the end, or no such request.
                    let exists = sqlx::query_scalar::<_, i32>(
                        "SELECT 1 FROM alert_requests WHERE token = $1",
                    )
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
                self.store_together(
                    |kept| &kept.settlements,
                    held,
                    |store, guard| {
                        Box::pin(async move { store.write_settlements(guard).await })
                    },
                )
                .await
            }

            async fn arrivals(&self) -> Result<Box<dyn Arrivals>, StoreError> {
                self.subscribe().await
            }

            async fn release(&self, token: Token, lease: &Lease) -> Result<(), StoreError> {
                let query = sqlx::query(
                    "UPDATE alert_jobs SET lease_id = NULL, lease_until = NULL \
                     WHERE token = $1 AND lease_id = $2",
                );
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
                // The stage is checked by the update itself, so that two redelivers, or a
                // redeliver and a worker, cannot both see the job finished.
                let done = sqlx::query(
                    "UPDATE alert_jobs SET stage = 'deliver', outcome = NULL, run_at = $1, \
                     lease_id = NULL, lease_until = NULL \
                     WHERE token = $2 AND alerts IS NOT NULL AND stage = 'done' \
                       AND EXISTS (SELECT 1 FROM alert_requests r \
                                   WHERE r.token = $2 AND r.key_id = $3)",
                )
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
                let unfinished: Option<i32> = sqlx::query_scalar(
                    "SELECT 1 FROM alert_jobs j \
                     JOIN alert_requests r ON r.token = j.token \
                     WHERE j.token = $1 AND r.key_id = $2 AND j.stage <> 'done'",
                )
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
                let (waiting, leased, oldest): (i64, i64, Option<Time>) =
                    sqlx::query_as(concat!(
                        "SELECT COALESCE(SUM(CASE WHEN ",
                        $crate::job_not_held!("", "$1"),
                        " THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN ",
                        $crate::job_held!("", "$1"),
                        " THEN 1 ELSE 0 END), 0), MIN(CASE WHEN ",
                        $crate::job_claimable!("", "$1"),
                        " THEN run_at END) FROM alert_jobs WHERE stage <> 'done'"
                    ))
                    .bind(Self::to_time(now))
                    .fetch_one(self.pool())
                    .await
                    .map_err(Self::db_error)?;
                Ok(JobCounts {
                    waiting: to_u64(waiting, "a job count")?,
                    leased: to_u64(leased, "a job count")?,
                    oldest_waiting: Self::from_opt_time(oldest)?,
                })
            }

            async fn backlog(&self, key: KeyId, now: DateTime<Utc>) -> Result<Backlog, StoreError> {
                let (pending, waiting, key_oldest, oldest): (i64, i64, Option<Time>, Option<Time>) =
                    sqlx::query_as(concat!(
                        "SELECT \
                         (SELECT COUNT(*) FROM alert_jobs WHERE key_id = $1 AND stage <> 'done'), \
                         (SELECT COUNT(*) FROM alert_jobs WHERE key_id = $1 AND ",
                        $crate::job_claimable!("", "$2"),
                        "), (SELECT MIN(run_at) FROM alert_jobs WHERE key_id = $1 AND ",
                        $crate::job_claimable!("", "$2"),
                        "), (SELECT MIN(run_at) FROM alert_jobs WHERE ",
                        $crate::job_claimable!("", "$2"),
                        ")"
                    ))
                    .bind(key.0)
                    .bind(Self::to_time(now))
                    .fetch_one(self.pool())
                    .await
                    .map_err(Self::db_error)?;
                Ok(Backlog {
                    key_pending: to_u64(pending, "a job count")?,
                    key_waiting: to_u64(waiting, "a job count")?,
                    key_oldest_waiting: Self::from_opt_time(key_oldest)?,
                    oldest_waiting: Self::from_opt_time(oldest)?,
                })
            }

            async fn purge_finished(
                &self,
                before: DateTime<Utc>,
                limit: usize,
            ) -> Result<Vec<Token>, StoreError> {
                // Points, the job and its attempts go with the request (ON DELETE CASCADE),
                // and with them the request's idempotency key.
                let tokens: Vec<Uuid> = sqlx::query_scalar(
                    "DELETE FROM alert_requests WHERE token IN ( \
                       SELECT r.token FROM alert_requests r JOIN alert_jobs j ON j.token = r.token \
                       WHERE j.stage = 'done' AND r.received_at < $1 \
                       ORDER BY r.received_at LIMIT $2) \
                     RETURNING token",
                )
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
