-- R__shardq_admin_views: the engine's state as read-only SQL functions, like Oracle's AQ views
-- (GV$AQ_SHARDED_SUBSCRIBER_STAT and friends), so psql users and the admin CLI read the same
-- thing and nothing outside the engine reads its tables directly (the tables may change; these
-- signatures must not):
--   select * from shardq.shard_stats('orders');   -- per shard: head, cursor, waiting, lease
--   select * from shardq.instances();             -- live instances and their heartbeats
--   select * from shardq.leases('orders');        -- who holds each shard's dequeue lease
-- A repeatable migration, like R__shardq_admin.sql, rather than V002: these are functions over
-- the tables of V001, re-created (CREATE OR REPLACE) whenever this file changes, and adding them
-- changes no table, so the schema version stays where it is. Flyway applies repeatable
-- migrations by description, so this file runs after R__shardq_admin.sql, whose
-- shardq.destination_id it calls (an unknown name raises 42704 with the name).

-- Per shard of a queue: the next sequence number, the consumer cursor, the messages waiting
-- (beyond the cursor, less those a selective consumer took out of order: taken_ahead), the
-- instance owning the shard for enqueue and the one holding its dequeue lease (null: none), and
-- whether the shard is draining (V015: the queue shrinks; it takes no new messages and is
-- retired once empty). Dropped first: a repeatable migration cannot change the columns in place;
-- plpgsql, so that the body (V015's column) is checked when it runs, not when an older schema
-- (a migration test stopped before V015) applies this file.
DROP FUNCTION IF EXISTS shardq.shard_stats(text);
CREATE FUNCTION shardq.shard_stats(queue text)
RETURNS TABLE (
    shard_no        integer,
    next_seq        bigint,
    cursor_position bigint,
    waiting         bigint,
    taken_ahead     bigint,
    owner_instance  bigint,
    lease_instance  bigint,
    draining        boolean)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
    -- looked up first: a function call inside the query would be sent to the workers on Citus
    v_id integer := shardq.destination_id(shard_stats.queue);
BEGIN
    RETURN QUERY
    SELECT s.shard_no, s.next_seq, c.position,
           (s.next_seq - 1 - c.position - coalesce(l.n, 0))::bigint, coalesce(l.n, 0)::bigint,
           s.owner_instance, c.lease_instance, s.drain_head IS NOT NULL
      FROM shardq.shard s
      JOIN shardq.subscription sub ON sub.destination_id = s.destination_id AND sub.name = ''
      JOIN shardq.cursor c ON c.subscription_id = sub.id AND c.shard_no = s.shard_no
      LEFT JOIN LATERAL (SELECT coalesce(sum(d.last_seq - greatest(d.first_seq, c.position + 1) + 1), 0) AS n FROM shardq.dequeue_range d
                          WHERE d.subscription_id = sub.id AND d.shard_no = s.shard_no
                            AND d.last_seq > c.position) l ON true
     WHERE s.destination_id = v_id
     ORDER BY s.shard_no;
END
$$;

-- The instances alive: not stopped, heartbeat within the last alive_within_seconds, with the
-- shards they own for enqueue and the dequeue leases they hold now.
CREATE OR REPLACE FUNCTION shardq.instances(alive_within_seconds integer DEFAULT 30)
RETURNS TABLE (
    id               bigint,
    name             text,
    started_at       timestamptz,
    heartbeat_at     timestamptz,
    heartbeat_age_ms bigint,
    shards_owned     bigint,
    leases_held      bigint)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    -- the counts as joins with grouped reads (Citus correlates no subquery over its shards with a
    -- coordinator table's rows), in PL/pgSQL (Citus plans no SQL function's parameters there)
    RETURN QUERY
    SELECT i.id, i.name, i.started_at, i.heartbeat_at,
           greatest(0, (extract(epoch FROM now() - i.heartbeat_at) * 1000)::bigint),
           coalesce(o.n, 0), coalesce(l.n, 0)
      FROM shardq.instance i
      LEFT JOIN (SELECT s.owner_instance AS id, count(*) AS n FROM shardq.shard s
                  WHERE s.owner_instance IS NOT NULL GROUP BY s.owner_instance) o ON o.id = i.id
      LEFT JOIN (SELECT c.lease_instance AS id, count(*) AS n FROM shardq.cursor c
                  WHERE c.lease_instance IS NOT NULL AND c.lease_until > now() GROUP BY c.lease_instance) l ON l.id = i.id
     WHERE i.stopped_at IS NULL
       AND i.heartbeat_at > now() - make_interval(secs => instances.alive_within_seconds)
     ORDER BY i.id;
END $$;

-- The dequeue leases of a destination's cursors: per subscription ('' for a queue) and shard,
-- the holder, until when, and whether that is still in the future (an expired lease passes to
-- the next instance that asks). Cursors nobody leases are left out.
CREATE OR REPLACE FUNCTION shardq.leases(queue text)
RETURNS TABLE (
    shard_no      integer,
    subscription  text,
    instance_id   bigint,
    instance_name text,
    lease_until   timestamptz,
    live          boolean)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
    -- PL/pgSQL and looked up first: Citus plans neither a SQL function's parameters nor a function
    -- call inside a statement over several shards
    v_id integer := shardq.destination_id(leases.queue);
BEGIN
    RETURN QUERY
    SELECT c.shard_no, sub.name, c.lease_instance, i.name, c.lease_until, c.lease_until > now()
      FROM shardq.cursor c
      JOIN shardq.subscription sub ON sub.id = c.subscription_id
      LEFT JOIN shardq.instance i ON i.id = c.lease_instance
     WHERE c.destination_id = v_id AND c.lease_instance IS NOT NULL
     ORDER BY sub.name, c.shard_no;
END $$;

-- Temporary destinations (V007) with their owners: the instance and JMS connection that created
-- each, and whether that instance is alive (not stopped, heartbeat within alive_within_seconds).
-- A dead instance's temporary destinations are dropped by the maintenance leader.
CREATE OR REPLACE FUNCTION shardq.temporary_destinations(alive_within_seconds integer DEFAULT 30)
RETURNS TABLE (
    name           text,
    kind           text,
    instance_id    bigint,
    instance_name  text,
    connection_id  uuid,
    created_at     timestamptz,
    owner_alive    boolean)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    -- plpgsql: checked when it runs, so this file applies to a schema a test rebuilt before V007
    RETURN QUERY
    SELECT d.name, d.kind, t.instance_id, i.name, t.connection_id, t.created_at,
           coalesce(i.stopped_at IS NULL AND i.heartbeat_at > now() - make_interval(secs => alive_within_seconds), false)
      FROM shardq.temporary_destination t
      JOIN shardq.destination d ON d.id = t.destination_id
      LEFT JOIN shardq.instance i ON i.id = t.instance_id
     ORDER BY d.name;
END $$;
