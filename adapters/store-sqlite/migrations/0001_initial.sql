-- The embedded store's schema. Times are INTEGER microseconds since the Unix epoch (UTC), so
-- that they compare exactly and sort as numbers; ids are the 16 bytes of their UUIDs.

CREATE TABLE accounts (
    id            BLOB    PRIMARY KEY NOT NULL,
    email         TEXT    NOT NULL UNIQUE,
    password_hash TEXT    NOT NULL,
    created_at    INTEGER NOT NULL
);

CREATE TABLE api_keys (
    -- The insertion order breaks ties between keys created in the same microsecond.
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           BLOB    NOT NULL UNIQUE,
    account_id   BLOB    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    label        TEXT    NOT NULL,
    prefix       TEXT    NOT NULL,
    -- Lower-case hex of the key's SHA-256: the key itself is never stored.
    key_hash     TEXT    NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER,
    webhook_url  TEXT
);
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at);

CREATE TABLE webhook_secrets (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    key_id      BLOB    NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    secret      TEXT    NOT NULL,
    -- NULL for the key's current secret; the end of the grace period for a previous one.
    valid_until INTEGER
);
CREATE UNIQUE INDEX webhook_secrets_one_current ON webhook_secrets (key_id) WHERE valid_until IS NULL;
CREATE INDEX webhook_secrets_by_key ON webhook_secrets (key_id, valid_until);

CREATE TABLE alert_rules (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         BLOB    NOT NULL UNIQUE,
    key_id     BLOB    NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    -- The RuleSpec as JSON; validated again whenever it is read.
    spec       TEXT    NOT NULL,
    enabled    INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    created_at INTEGER NOT NULL
);
CREATE INDEX alert_rules_by_key ON alert_rules (key_id, created_at, seq);

-- What a client posted: written once, read by the worker that evaluates it.
CREATE TABLE alert_requests (
    token       BLOB    PRIMARY KEY NOT NULL,
    key_id      BLOB    NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    -- The points as a JSON array of AlertPoint.
    points      TEXT    NOT NULL,
    point_count INTEGER NOT NULL,
    received_at INTEGER NOT NULL
);
CREATE INDEX alert_requests_by_key ON alert_requests (key_id, received_at);

-- The job of each request, kept apart from the points so that claims scan small rows.
CREATE TABLE alert_jobs (
    token       BLOB    PRIMARY KEY NOT NULL REFERENCES alert_requests (token) ON DELETE CASCADE,
    stage       TEXT    NOT NULL CHECK (stage IN ('evaluate', 'deliver', 'done')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    -- Lines in the file, once written; NULL means the file was never written.
    alerts      INTEGER,
    outcome     TEXT    CHECK (outcome IN ('delivered', 'gone', 'gave_up', 'cancelled')),
    run_at      INTEGER NOT NULL,
    lease_id    BLOB,
    lease_until INTEGER
);
-- Only unfinished jobs are ever claimed; finished ones stay out of the index.
CREATE INDEX alert_jobs_due ON alert_jobs (run_at, token) WHERE stage <> 'done';

CREATE TABLE delivery_attempts (
    token      BLOB    NOT NULL REFERENCES alert_requests (token) ON DELETE CASCADE,
    attempt    INTEGER NOT NULL,
    at         INTEGER NOT NULL,
    status     INTEGER,
    latency_ms INTEGER NOT NULL,
    error      TEXT    CHECK (error IN ('connect', 'timeout', 'status', 'forbidden')),
    PRIMARY KEY (token, attempt)
);
