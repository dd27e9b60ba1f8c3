-- The scale-out store's schema. Every replica applies it at start-up; sqlx serialises the
-- replicas with an advisory lock, and applied migrations are skipped.

CREATE TABLE accounts (
    id            uuid        PRIMARY KEY,
    email         text        NOT NULL UNIQUE,
    password_hash text        NOT NULL,
    created_at    timestamptz NOT NULL
);

CREATE TABLE api_keys (
    -- The insertion order breaks ties between keys created in the same microsecond.
    seq          bigint      GENERATED ALWAYS AS IDENTITY UNIQUE,
    id           uuid        PRIMARY KEY,
    account_id   uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    label        text        NOT NULL,
    prefix       text        NOT NULL,
    -- Lower-case hex of the key's SHA-256: the key itself is never stored.
    key_hash     text        NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at   timestamptz,
    webhook_url  text
);
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at);

CREATE TABLE webhook_secrets (
    seq         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key_id      uuid        NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    secret      text        NOT NULL,
    -- NULL for the key's current secret; the end of the grace period for a previous one.
    valid_until timestamptz
);
CREATE UNIQUE INDEX webhook_secrets_one_current ON webhook_secrets (key_id) WHERE valid_until IS NULL;
CREATE INDEX webhook_secrets_by_key ON webhook_secrets (key_id, valid_until);

CREATE TABLE alert_rules (
    seq        bigint      GENERATED ALWAYS AS IDENTITY UNIQUE,
    id         uuid        PRIMARY KEY,
    key_id     uuid        NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    -- The RuleSpec as JSON; validated again whenever it is read.
    spec       jsonb       NOT NULL,
    enabled    boolean     NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX alert_rules_by_key ON alert_rules (key_id, created_at, seq);

-- What a client posted: written once, read by the worker that evaluates it.
CREATE TABLE alert_requests (
    token       uuid        PRIMARY KEY,
    key_id      uuid        NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    -- The points as a JSON array of AlertPoint, kept as written (json, not jsonb: never queried).
    points      json        NOT NULL,
    point_count bigint      NOT NULL,
    received_at timestamptz NOT NULL
);
CREATE INDEX alert_requests_by_key ON alert_requests (key_id, received_at);

-- The job of each request, kept apart from the points so that claims lock and scan small rows.
CREATE TABLE alert_jobs (
    token       uuid        PRIMARY KEY REFERENCES alert_requests (token) ON DELETE CASCADE,
    stage       text        NOT NULL CHECK (stage IN ('evaluate', 'deliver', 'done')),
    attempts    integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    -- Lines in the file, once written; NULL means the file was never written.
    alerts      bigint,
    outcome     text        CHECK (outcome IN ('delivered', 'gone', 'gave_up', 'cancelled')),
    run_at      timestamptz NOT NULL,
    lease_id    uuid,
    lease_until timestamptz
);
-- Only unfinished jobs are ever claimed; finished ones stay out of the index.
CREATE INDEX alert_jobs_due ON alert_jobs (run_at, token) WHERE stage <> 'done';

CREATE TABLE delivery_attempts (
    token      uuid        NOT NULL REFERENCES alert_requests (token) ON DELETE CASCADE,
    attempt    integer     NOT NULL,
    at         timestamptz NOT NULL,
    status     integer,
    latency_ms bigint      NOT NULL,
    error      text        CHECK (error IN ('connect', 'timeout', 'status', 'forbidden')),
    PRIMARY KEY (token, attempt)
);
