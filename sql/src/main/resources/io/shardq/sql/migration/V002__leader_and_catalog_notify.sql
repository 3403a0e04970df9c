-- V002: one maintenance leader, and catalog changes pushed to every instance.
-- Why: slice retirement and spare-slot DDL ran on every instance every second; now one
-- elected instance runs them (shardq.leader, a row with a lease, as River's river_leader).
-- And instances polled shardq.destination every heartbeat to see drops, re-creations,
-- stop/start and alters; now a trigger sends NOTIFY shardq_catalog for every change, made by
-- the admin functions, the Java admin API or a hand-written UPDATE in psql alike.
-- Forward only: never edit this file once landed; add V003__... instead.

-- At most one row per role ('maintenance'); the instance in it leads until expires_at.
-- Taken by an upsert when free or expired, extended by its holder, deleted on resignation.
CREATE TABLE shardq.leader (
    role         text        PRIMARY KEY,
    instance_id  bigint      NOT NULL,
    elected_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
COMMENT ON TABLE shardq.leader IS
    'The instance that runs background maintenance (slice retirement, spare slots) until expires_at';

-- Payload: the destination's name (names never change; a re-created queue has a new id, which
-- is how instances know to replace their in-memory state). NOTIFY is transactional: it is sent
-- at commit, and identical payloads within one transaction are folded into one.
CREATE FUNCTION shardq.destination_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('shardq_catalog', OLD.name);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('shardq_catalog', NEW.name);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER destination_notify
    AFTER INSERT OR UPDATE OR DELETE ON shardq.destination
    FOR EACH ROW EXECUTE FUNCTION shardq.destination_notify();
