-- Dashboard sessions. Only the SHA-256 of the session id is kept: the id itself is in the
-- browser's cookie alone.
CREATE TABLE sessions (
    id_hash     text        PRIMARY KEY,
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    csrf_secret text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
