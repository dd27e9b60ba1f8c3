-- Named leases: work one replica of a deployment does at a time (fetching the CAMS runs). A
-- lease belongs to its holder until `until`.
CREATE TABLE leases (
    name   text        PRIMARY KEY,
    holder text        NOT NULL,
    until  timestamptz NOT NULL
);
