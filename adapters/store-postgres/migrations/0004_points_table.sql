-- One row per point of an alert request, so that a worker reads a request one page at a time
-- instead of loading every point it holds at once. `seq` is the point's index in the posted
-- list; `point` is the point's JSON (an AlertPoint) as the store writes it: json, not jsonb,
-- so that it is kept as written and custom_data comes back byte for byte.
CREATE TABLE alert_points (
    token uuid   NOT NULL REFERENCES alert_requests (token) ON DELETE CASCADE,
    seq   bigint NOT NULL CHECK (seq >= 0),
    point json   NOT NULL,
    PRIMARY KEY (token, seq)
);

-- The points of requests stored before this migration. On json (not jsonb),
-- json_array_elements gives each element's own text, and WITH ORDINALITY its position
-- (from 1).
INSERT INTO alert_points (token, seq, point)
SELECT r.token, e.n - 1, e.point
FROM alert_requests r, json_array_elements(r.points) WITH ORDINALITY AS e(point, n);

-- The points live in alert_points alone from now on. Servers of earlier versions write and
-- read this column: stop them all before a server of this version opens the database.
ALTER TABLE alert_requests DROP COLUMN points;
