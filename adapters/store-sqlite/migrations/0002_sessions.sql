-- Dashboard sessions. Only the SHA-256 of the session id is kept: the id itself is in the
-- browser's cookie alone.
CREATE TABLE sessions (
    id_hash     TEXT    PRIMARY KEY NOT NULL,
    account_id  BLOB    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    csrf_secret TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
