-- V013: the fleet follows live instances (issue 23).
-- session_lock: the instance holds a session-level advisory lock, keyed (1397248593, its id), on
-- its LISTEN connection for its whole life, and says so here once it took it. A killed JVM's
-- sockets are closed by the operating system and PostgreSQL ends its backends at once, which
-- drops the lock: an instance that said it holds the lock and no longer does is dead for dequeue
-- leases and enqueue ownership about a second after the kill, not a lease TTL later. An instance
-- that is alive but stalled (a long GC pause, SIGSTOP) keeps its connections and its lock; the
-- heartbeat TTL stays the bound for it. 1397248593 is 'SHRQ' in ASCII: the first key of every
-- ShardQ advisory lock, so that an application's own advisory locks do not collide with them.
-- produces: the destinations this instance sent to lately; the enqueue share of a destination is
-- counted over the live instances that produce to it (consumer-only instances do not dilute it).
-- Forward only: never edit this file once landed.
ALTER TABLE shardq.instance ADD COLUMN session_lock boolean NOT NULL DEFAULT false;
ALTER TABLE shardq.instance ADD COLUMN produces integer[] NOT NULL DEFAULT '{}';

-- The live instances: not stopped, a heartbeat within ttl_secs, and still holding their session
-- lock if they took one (the lock is looked up in pg_locks of this database).
CREATE FUNCTION shardq.live_instances(ttl_secs double precision) RETURNS SETOF bigint
LANGUAGE sql STABLE AS $$
    SELECT i.id FROM shardq.instance i
     WHERE i.stopped_at IS NULL
       AND i.heartbeat_at > now() - make_interval(secs => ttl_secs)
       AND (NOT i.session_lock OR i.id IN (
            SELECT l.objid::bigint FROM pg_catalog.pg_locks l
             WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
               AND l.classid = 1397248593::oid
               AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = current_database())))
$$;
COMMENT ON FUNCTION shardq.live_instances(double precision) IS
    'Instances alive for leases and enqueue ownership: heartbeat within the TTL and, once taken, their session advisory lock still held';
