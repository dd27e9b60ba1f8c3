-- Rate limits shared by every replica: one row per limited key, holding the instant its
-- allowance is whole again (the GCRA's theoretical arrival time, microseconds since the epoch).
-- A row whose time has passed means the same as no row, so losing the table loses nothing but
-- the current minute's counts: it is unlogged (no write-ahead log, the cheapest writes
-- PostgreSQL has; emptied after a crash, not copied to standbys). No index but the key, so that
-- the update of each request stays a heap-only update; the sweep of passed rows scans.
CREATE UNLOGGED TABLE rate_limits (
    bucket TEXT NOT NULL,
    limit_key TEXT NOT NULL,
    tat_us BIGINT NOT NULL,
    -- Whether the last request was allowed: the answer of the statement that wrote the row.
    allowed BOOLEAN NOT NULL,
    PRIMARY KEY (bucket, limit_key)
) WITH (fillfactor = 70);
