-- Test deliveries sent from the dashboard's Webhook page, listed on its Deliveries page beside
-- the alert requests. A test belongs to no request (it carries no file and is never retried),
-- so it has a table of its own holding its one result, its key, and the URL it went to, since
-- the key's webhook URL may change afterwards. `at` is microseconds since the epoch, as every
-- time here.
--
-- The retention sweep deletes finished requests and never looks here: instead the store keeps
-- each key's newest tests only (TEST_DELIVERIES_KEPT in alerts-core), forgetting older ones in
-- the transaction that records a test, so that no key grows the table without end. The rows go
-- with their key.
CREATE TABLE test_deliveries (
    token      BLOB    PRIMARY KEY NOT NULL,
    key_id     BLOB    NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    at         INTEGER NOT NULL,
    url        TEXT    NOT NULL,
    status     INTEGER,
    latency_ms INTEGER NOT NULL,
    error      TEXT    CHECK (error IN ('connect', 'timeout', 'status', 'forbidden'))
);
-- Listing a key's newest tests and forgetting the older ones both read one range of it.
CREATE INDEX test_deliveries_by_key ON test_deliveries (key_id, at, token);
