-- Each account's credential version, raised with every change of its password, and the version
-- each session was signed in with: a session of an older version is no longer valid, and none
-- is stored for a password that changed after it was checked. Existing sessions and accounts
-- start at the same version, so nobody is signed out by the migration.
ALTER TABLE accounts ADD COLUMN credential_version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN credential_version BIGINT NOT NULL DEFAULT 0;
