-- A claim counts the live leases of each key: they are few (one per job in progress), so they
-- get an index of their own, and a claim need not read every unfinished job to count them.
CREATE INDEX alert_jobs_leased ON alert_jobs (lease_until) WHERE lease_until IS NOT NULL;

-- Every alert request reads its key's backlog (how many unfinished jobs, how many waiting, the
-- oldest waiting) before it is queued: with the stage and the lease in the key's index, that
-- reading is the index's range alone, however long the backlog.
DROP INDEX alert_jobs_by_key;
CREATE INDEX alert_jobs_by_key ON alert_jobs (key_id, run_at, stage, lease_until)
    WHERE stage <> 'done';
