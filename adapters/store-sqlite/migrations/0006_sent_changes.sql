-- What rules that tell a change once (repeat "once") have told each point id: one row per
-- rule, point id and subject (`aq` or a pollen type) with the change told last and the request
-- that told it. A row counts only once that request's file is written (its job's `alerts` is
-- set), and goes with the request when retention deletes it, or with its rule.
CREATE TABLE sent_changes (
    rule_id  BLOB    NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    point_id TEXT    NOT NULL,
    subject  TEXT    NOT NULL,
    key_id   BLOB    NOT NULL,
    token    BLOB    NOT NULL REFERENCES alert_requests (token) ON DELETE CASCADE,
    mark     TEXT    NOT NULL,
    until    INTEGER NOT NULL,
    PRIMARY KEY (rule_id, point_id, subject)
) WITHOUT ROWID;
-- A chunk of points asks by key and point id; deleting a request finds its rows by token.
CREATE INDEX sent_changes_by_point ON sent_changes (key_id, point_id);
CREATE INDEX sent_changes_by_token ON sent_changes (token);
