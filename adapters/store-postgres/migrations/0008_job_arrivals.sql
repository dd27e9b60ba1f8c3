-- Idle workers wait to be told that jobs arrived instead of polling the claim query. A job
-- stored, or put back (released by a stopping worker, redelivered), notifies on commit every
-- replica listening on this schema's channel. A retry due later notifies nobody: the
-- worker that scheduled it wakes at its time, and every worker still claims now and then.
-- The channel names the schema by a digest, since a channel name is at most 63 bytes.
CREATE FUNCTION notify_jobs_arrived() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('insights_jobs_' || left(md5(current_schema()), 16), '');
    RETURN NULL;
END
$$;

CREATE TRIGGER alert_jobs_stored AFTER INSERT ON alert_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs_arrived();

-- Put back: a finished job redelivered, or a held job released as it was (a retry changes its
-- run time, a finish its stage). The store's times come from the service, not the database's
-- clock, so the condition is on what changed rather than on the time.
CREATE TRIGGER alert_jobs_put_back AFTER UPDATE OF lease_id, stage ON alert_jobs
    FOR EACH ROW
    WHEN ((OLD.stage = 'done' AND NEW.stage <> 'done')
          OR (OLD.lease_id IS NOT NULL AND NEW.lease_id IS NULL AND NEW.stage <> 'done'
              AND NEW.stage = OLD.stage AND NEW.run_at = OLD.run_at))
    EXECUTE FUNCTION notify_jobs_arrived();
