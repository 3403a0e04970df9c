-- Instances (shardq.instance): registration, heartbeat, session locks; the maintenance leader
-- (shardq.leader); JMS client ids (shardq.client_id).
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter; a /* TEMPLATE: ... */ slot takes only an
-- identifier built from numeric catalog ids (Queries), always quoted. The build generates the
-- enum io.shardq.broker.internal.Query from these names (src/build/QueryNames.java), so a misspelt
-- name fails compilation; QueriesTest PREPAREs every statement against the migrated schema.

-- name: instance_insert
-- Registers an instance; also tells whether the schema is distributed over Citus (the enqueue then
-- reserves and inserts in two router statements: docs/design/citus.md).
INSERT INTO shardq.instance (name) VALUES (?) RETURNING id, shardq.on_citus()

-- name: instance_heartbeat
UPDATE shardq.instance SET heartbeat_at = now(), hungry_for = ?, produces = ? WHERE id = ?

-- name: instance_mark_session_lock
-- On the LISTEN connection, after every (re)connect: takes the instance's session lock (see V013)
-- and records that it holds one. Returns false when the lock was not free.
WITH l AS (SELECT pg_try_advisory_lock(1397248593, ?::integer) AS got)
UPDATE shardq.instance SET session_lock = true FROM l WHERE id = ? AND l.got
RETURNING l.got

-- name: instance_stop
UPDATE shardq.instance SET stopped_at = now(), hungry_for = '{}' WHERE id = ?

-- name: instance_add_produces
-- A destination this instance starts producing to, published at once (not at the next heartbeat),
-- so that the owners of its shards give this instance its share one heartbeat sooner.
UPDATE shardq.instance SET produces = array_append(produces, ?::integer)
 WHERE id = ? AND NOT (?::integer = ANY (produces))

-- name: instance_session_unlock
SELECT pg_advisory_unlock(1397248593, ?::integer)

-- name: instance_select_live
-- The live instances (shardq.live_instances: heartbeat within the TTL, session lock held), with the
-- destinations each one's consumers want more shards of and those it produces to.
SELECT id, hungry_for, produces FROM shardq.instance
 WHERE id IN (SELECT shardq.live_instances(?)) ORDER BY id

-- name: leader_attempt_elect
-- Takes the leader row when it is free or expired, or extends it when it is ours (River's
-- elector); a row comes back only when this instance leads. Times are the database's.
INSERT INTO shardq.leader AS l (role, instance_id, elected_at, expires_at)
VALUES ('maintenance', ?, now(), now() + make_interval(secs => ?))
ON CONFLICT (role) DO UPDATE
   SET instance_id = excluded.instance_id,
       elected_at = CASE WHEN l.instance_id = excluded.instance_id THEN l.elected_at ELSE now() END,
       expires_at = excluded.expires_at
 WHERE l.instance_id = excluded.instance_id OR l.expires_at < now()
RETURNING l.elected_at

-- name: leader_resign
-- Deletes our leader row and tells the followers, in one statement.
WITH gone AS (DELETE FROM shardq.leader WHERE role = 'maintenance' AND instance_id = ? RETURNING instance_id)
SELECT pg_notify('shardq_leader', instance_id::text) FROM gone

-- name: leader_select
SELECT instance_id, expires_at > now() FROM shardq.leader WHERE role = 'maintenance'

-- name: client_id_claim
-- Takes a client id for a connection: free, or held by an instance that is dead (stopped, or no
-- heartbeat within the TTL). Returns the connection id on success, no row when it is in use.
INSERT INTO shardq.client_id AS c (client_id, instance_id, connection_id) VALUES (?, ?, ?)
ON CONFLICT (client_id) DO UPDATE
   SET instance_id = EXCLUDED.instance_id, connection_id = EXCLUDED.connection_id, taken_at = now()
 WHERE NOT EXISTS (
       SELECT 1 FROM shardq.instance i
        WHERE i.id = c.instance_id AND i.stopped_at IS NULL
          AND i.heartbeat_at > now() - make_interval(secs => ?))
RETURNING connection_id

-- name: client_id_release
DELETE FROM shardq.client_id WHERE client_id = ? AND connection_id = ?

-- name: client_id_release_instance
DELETE FROM shardq.client_id WHERE instance_id = ?

-- name: instance_select_exists
-- Whether an instance's row is visible on a connection: on an application's DataSource, whether
-- it is the database ShardQ's own pool uses (ClusterView#instanceVisibleOn).
SELECT 1 FROM shardq.instance WHERE id = ?

-- name: instance_listen
-- On the LISTEN connection; the channel slot takes one of the engine's channel names
-- ([a-z_]+, quoted as an identifier).
LISTEN /* TEMPLATE: channel */

-- name: embedded_presence_lock
-- The embedded server's presence lock (in its postgres database): one shared holder per JVM using it.
SELECT pg_advisory_lock_shared(?)

-- name: embedded_presence_leave
-- Gives up this JVM's presence and tries the exclusive lock: true when no other JVM uses the server.
SELECT pg_advisory_unlock_shared(?), pg_try_advisory_lock(?)

-- name: embedded_count_clients
SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()

-- name: server_start_time
-- The server process a new connection reached (store/ServerIncarnation): another value after a
-- restart or a failover to a promoted standby.
SELECT pg_postmaster_start_time()::text

-- name: cursor_lease_fence_all
-- After the server changed (a failover, a restart: BrokerCore.serverChanged): every lease of this
-- instance gets a new acquisition number, so a commit planned under what the instance held before
-- fails its guard (cursor_commit_move, dequeue_range_insert) instead of moving a cursor past what
-- the new server has; the leases stay this instance's and are taken again, re-reading everything.
-- SKIP LOCKED, as cursor_lease_release_all: a cursor row a prepared (XA) transaction holds keeps
-- its locks across a failover until a transaction manager decides it, and the first borrower after
-- the switch must not wait for that (a commit planned under such a row waits for the same lock).
UPDATE shardq.cursor SET lease_seq = lease_seq + 1
 WHERE (subscription_id, shard_no) IN (
       SELECT subscription_id, shard_no FROM shardq.cursor WHERE lease_instance = ? FOR UPDATE SKIP LOCKED)
