-- A claim counts the live leases of each key: they are few (one per job in progress), so they
-- get an index of their own, and a claim need not read every unfinished job to count them.
CREATE INDEX alert_jobs_leased ON alert_jobs (lease_until) WHERE lease_until IS NOT NULL;
