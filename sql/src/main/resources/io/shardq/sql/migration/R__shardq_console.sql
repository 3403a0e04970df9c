-- Reads for operators' views (shardq console, scripts): who consumes what across the fleet, and
-- what purges discarded. plpgsql so that this file also applies to a schema a migration test
-- rebuilt at an older version (the bodies are checked when they run).

-- Open consumers per destination, subscription ('' for a queue) and live instance (the instances
-- of shardq.instances(alive_within_seconds)). A topic subscription's count is written by the
-- engine when a consumer opens or closes (shardq.subscribe, shardq.consumer_closed); a queue's by
-- each instance from its own count, within a heartbeat of a change. Rows with no consumer are
-- left out.
CREATE OR REPLACE FUNCTION shardq.consumers(alive_within_seconds integer DEFAULT 30)
RETURNS TABLE (
    destination   text,
    kind          text,
    subscription  text,
    client_id     text,
    instance_id   bigint,
    instance_name text,
    consumers     bigint)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN QUERY
    SELECT d.name, d.kind, s.name, s.client_id, i.id, i.name, c.consumers::bigint
      FROM shardq.subscription_consumer c
      JOIN shardq.subscription s ON s.id = c.subscription_id
      JOIN shardq.destination d ON d.id = s.destination_id
      JOIN shardq.instances(alive_within_seconds => consumers.alive_within_seconds) i ON i.id = c.instance_id
     WHERE c.consumers > 0
     ORDER BY d.name, s.name, i.id;
END $$;

-- Per queue that was ever purged: the messages purge_queue discarded, in how many purges, and when
-- the last one ran (V016).
CREATE OR REPLACE FUNCTION shardq.purges()
RETURNS TABLE (
    name          text,
    purged        bigint,
    purges        bigint,
    last_purge_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN QUERY
    SELECT d.name, p.purged, p.purges, p.last_purge_at
      FROM shardq.purge_count p
      JOIN shardq.destination d ON d.id = p.destination_id
     ORDER BY d.name;
END $$;
