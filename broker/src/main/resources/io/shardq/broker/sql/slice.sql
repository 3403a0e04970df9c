-- Slices (shardq.slice): the slots of each shard's message storage, their assignment and retirement.
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter; a /* TEMPLATE: ... */ slot takes only an
-- identifier built from numeric catalog ids (Queries), always quoted. The build generates the
-- enum io.shardq.broker.internal.Query from these names (src/build/QueryNames.java), so a misspelt
-- name fails compilation; QueriesTest PREPAREs every statement against the migrated schema.

-- name: slice_select_assigned
SELECT shard_no, slot, first_seq, last_seq FROM shardq.slice
 WHERE destination_id = ? AND first_seq IS NOT NULL

-- name: slice_select_slots
SELECT slot FROM shardq.slice WHERE destination_id = ? AND shard_no = ? ORDER BY slot

-- name: slice_select_containing
SELECT slot, first_seq, last_seq FROM shardq.slice
 WHERE destination_id = ? AND shard_no = ? AND first_seq <= ? AND last_seq >= ?

-- name: slice_assign
SELECT shardq.assign_slice(?, ?, ?, ?)

-- name: slice_select_retirable
SELECT sl.shard_no, sl.slot, sl.first_seq, sl.last_seq
  FROM shardq.slice sl
  JOIN (SELECT shard_no, min(position) AS p FROM shardq.cursor WHERE destination_id = ? GROUP BY shard_no) c
    ON c.shard_no = sl.shard_no
 WHERE sl.destination_id = ? AND sl.last_seq <= c.p

-- name: slice_lock_for_retire
SELECT 1 FROM shardq.slice
 WHERE destination_id = ? AND shard_no = ? AND slot = ? AND first_seq = ?
   FOR UPDATE SKIP LOCKED

-- name: slice_free
UPDATE shardq.slice SET first_seq = NULL, last_seq = NULL, assigned_at = NULL
 WHERE destination_id = ? AND shard_no = ? AND slot = ?

-- name: slice_count_free
SELECT sh.shard_no, count(sl.slot) FILTER (WHERE sl.first_seq IS NULL)
  FROM shardq.shard sh LEFT JOIN shardq.slice sl USING (destination_id, shard_no)
 WHERE sh.destination_id = ? GROUP BY sh.shard_no

-- name: slice_add
SELECT shardq.add_slot(?, ?)

-- name: slice_select_lock_holders
SELECT a.pid, extract(epoch FROM now() - coalesce(a.xact_start, a.backend_start))::bigint, a.state, left(a.query, 200)
  FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
 WHERE l.relation = ?::regclass AND l.granted AND a.pid <> pg_backend_pid()

-- name: maintenance_notify_many
-- A follower's slice crossings, coalesced, for the leader: one NOTIFY per destination/shard.
SELECT pg_notify('shardq_maintenance', p) FROM unnest(?::text[]) AS p

-- name: slice_vacuum_leaf
-- Reclaims a leaf's dead rows (rolled-back enqueues), outside a transaction block, under the
-- session's lock_timeout (session_set_lock_timeout).
VACUUM /* TEMPLATE: leaf */

-- name: slice_truncate_leaf
-- Empties a retired slice's leaf, in the retiring transaction.
TRUNCATE /* TEMPLATE: leaf */
