-- Named leases: work one process of a deployment does at a time (fetching the CAMS runs). A
-- lease belongs to its holder until `until` (microseconds since the epoch, as every time here).
CREATE TABLE leases (
    name   TEXT    PRIMARY KEY,
    holder TEXT    NOT NULL,
    until  INTEGER NOT NULL
);
