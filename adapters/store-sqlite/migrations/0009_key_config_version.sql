-- Each key's configuration version, raised by every change to what an alert job reads of the
-- key: its webhook URL, its revocation, its signing secrets and its rules. A server keeps the
-- configurations it read and asks for the version alone; the triggers make sure that no
-- writer, whichever process it is, changes a configuration without raising it.
ALTER TABLE api_keys ADD COLUMN config_version INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER api_keys_config_changed AFTER UPDATE OF webhook_url, revoked_at ON api_keys
BEGIN
    UPDATE api_keys SET config_version = config_version + 1 WHERE id = NEW.id;
END;

CREATE TRIGGER alert_rules_added AFTER INSERT ON alert_rules
BEGIN
    UPDATE api_keys SET config_version = config_version + 1 WHERE id = NEW.key_id;
END;
CREATE TRIGGER alert_rules_changed AFTER UPDATE ON alert_rules
BEGIN
    UPDATE api_keys SET config_version = config_version + 1 WHERE id IN (OLD.key_id, NEW.key_id);
END;
CREATE TRIGGER alert_rules_removed AFTER DELETE ON alert_rules
BEGIN
    UPDATE api_keys SET config_version = config_version + 1 WHERE id = OLD.key_id;
END;

CREATE TRIGGER webhook_secrets_added AFTER INSERT ON webhook_secrets
BEGIN
    UPDATE api_keys SET config_version = config_version + 1 WHERE id = NEW.key_id;
END;
CREATE TRIGGER webhook_secrets_changed AFTER UPDATE ON webhook_secrets
BEGIN
    UPDATE api_keys SET config_version = config_version + 1 WHERE id IN (OLD.key_id, NEW.key_id);
END;
CREATE TRIGGER webhook_secrets_removed AFTER DELETE ON webhook_secrets
BEGIN
    UPDATE api_keys SET config_version = config_version + 1 WHERE id = OLD.key_id;
END;
