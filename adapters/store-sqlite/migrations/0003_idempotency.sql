-- Idempotency keys of alert requests: a client that got no answer sends its request again
-- with the same key and is told the token of the stored one, instead of a second job and a
-- second webhook. Keys belong to one API key and live as long as their request.
ALTER TABLE alert_requests ADD COLUMN idempotency_key TEXT;
-- SHA-256 of the points, to tell a retry from a different request reusing a key.
ALTER TABLE alert_requests ADD COLUMN fingerprint BLOB;
CREATE UNIQUE INDEX alert_requests_idempotency ON alert_requests (key_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
