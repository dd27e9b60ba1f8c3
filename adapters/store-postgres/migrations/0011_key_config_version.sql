-- Each key's configuration version, raised by every change to what an alert job reads of the
-- key: its webhook URL, its revocation, its signing secrets and its rules. Every replica keeps
-- the configurations it read and asks for the version alone; the triggers make sure that no
-- writer, whichever replica or command it is, changes a configuration without raising it.
ALTER TABLE api_keys ADD COLUMN config_version BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION api_keys_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.config_version := OLD.config_version + 1;
    RETURN NEW;
END
$$;

CREATE TRIGGER api_keys_config_changed BEFORE UPDATE OF webhook_url, revoked_at ON api_keys
    FOR EACH ROW EXECUTE FUNCTION api_keys_config_changed();

-- For the rows of a key's rules and secrets: the key they belonged to and the key they belong
-- to now.
CREATE FUNCTION key_config_part_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE api_keys SET config_version = config_version + 1 WHERE id = OLD.key_id;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.key_id IS DISTINCT FROM OLD.key_id) THEN
        UPDATE api_keys SET config_version = config_version + 1 WHERE id = NEW.key_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER alert_rules_config_changed AFTER INSERT OR UPDATE OR DELETE ON alert_rules
    FOR EACH ROW EXECUTE FUNCTION key_config_part_changed();
CREATE TRIGGER webhook_secrets_config_changed AFTER INSERT OR UPDATE OR DELETE ON webhook_secrets
    FOR EACH ROW EXECUTE FUNCTION key_config_part_changed();
