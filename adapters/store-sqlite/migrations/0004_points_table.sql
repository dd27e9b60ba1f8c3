-- One row per point of an alert request, so that a worker reads a request one page at a time
-- instead of loading every point it holds at once. `seq` is the point's index in the posted
-- list; `point` is the point's JSON (an AlertPoint) as the store writes it.
--
-- WITHOUT ROWID: the rows are kept in primary-key order, so a request's points lie together
-- and a page is one range of the key, with no second lookup into a rowid table.
CREATE TABLE alert_points (
    token BLOB    NOT NULL REFERENCES alert_requests (token) ON DELETE CASCADE,
    seq   INTEGER NOT NULL CHECK (seq >= 0),
    point TEXT    NOT NULL,
    PRIMARY KEY (token, seq)
) WITHOUT ROWID;

-- The points of requests stored before this migration. json_each gives each element of the
-- array with its text as stored (escapes and number spellings kept) and its index as `key`.
-- A points array that is not valid JSON (possible only by editing the database by hand)
-- makes the migration fail, and the store refuse to open, rather than lose that request's
-- points.
INSERT INTO alert_points (token, seq, point)
SELECT r.token, p.key, p.value
FROM alert_requests r, json_each(r.points) p;

-- The points live in alert_points alone from now on. Servers of earlier versions write and
-- read this column: stop them all before a server of this version opens the database.
ALTER TABLE alert_requests DROP COLUMN points;
