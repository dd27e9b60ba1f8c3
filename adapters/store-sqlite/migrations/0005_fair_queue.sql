-- Fair claims and backpressure look at the queue per API key: each job carries its request's
-- key, so that a key's unfinished jobs are one range of an index instead of a join.
ALTER TABLE alert_jobs ADD COLUMN key_id BLOB REFERENCES api_keys (id) ON DELETE CASCADE;
UPDATE alert_jobs SET key_id = (SELECT r.key_id FROM alert_requests r WHERE r.token = alert_jobs.token);
CREATE INDEX alert_jobs_by_key ON alert_jobs (key_id, run_at) WHERE stage <> 'done';

-- The retention sweep deletes finished requests oldest first.
CREATE INDEX alert_requests_by_age ON alert_requests (received_at);

-- A request's points in pages: one row holds a run of consecutive points as a JSON array of
-- the points as the store writes them (`custom_data` as a JSON string), so that storing and
-- reading a large request is a few hundred rows rather than one per point. `first_seq` is the
-- index of the page's first point in the posted list.
CREATE TABLE alert_point_pages (
    token       BLOB    NOT NULL REFERENCES alert_requests (token) ON DELETE CASCADE,
    first_seq   INTEGER NOT NULL CHECK (first_seq >= 0),
    point_count INTEGER NOT NULL CHECK (point_count > 0),
    points      TEXT    NOT NULL,
    PRIMARY KEY (token, first_seq)
) WITHOUT ROWID;

-- Points stored before this migration become pages of one point each, their text unchanged.
INSERT INTO alert_point_pages (token, first_seq, point_count, points)
SELECT token, seq, 1, '[' || point || ']' FROM alert_points;

-- Servers of earlier versions write and read alert_points: stop them all before a server of
-- this version opens the database.
DROP TABLE alert_points;
