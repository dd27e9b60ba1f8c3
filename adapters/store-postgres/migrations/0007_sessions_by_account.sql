-- Changing or resetting a password ends the account's other sessions, and an account can end
-- all of its sessions but the current one: both find the sessions by account.
CREATE INDEX sessions_by_account ON sessions (account_id);
