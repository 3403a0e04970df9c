-- The statements a Citus coordinator runs in place of those that lock rows over several shards
-- (shardq.citus_* in R__shardq_citus.sql: one round trip, one router statement per shard number
-- inside; docs/design/citus.md). Each is chosen by Queries.get(query, citus) for the statement
-- whose name it extends with _citus, and takes the same parameters.
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter. QueriesTest PREPAREs every statement against the
-- migrated schema.

-- name: cursor_lease_expire_dead_citus
SELECT lease_instance, subscription_id, shard_no FROM shardq.citus_lease_expire_dead(?, ?)

-- name: cursor_lease_acquire_citus
SELECT shard_no, lease_position, head, lease_seq FROM shardq.citus_lease_acquire(?, ?, ?, ?, ?, ?, false)

-- name: cursor_lease_acquire_skip_locked_citus
SELECT shard_no, lease_position, head, lease_seq FROM shardq.citus_lease_acquire(?, ?, ?, ?, ?, ?, true)

-- name: cursor_lease_renew_citus
SELECT subscription_id, shard_no FROM shardq.citus_lease_renew(?, ?, ?)

-- name: cursor_lease_release_citus
SELECT shardq.citus_lease_release(?, ?, ?)

-- name: cursor_lease_release_all_citus
SELECT shardq.citus_lease_release(NULL, NULL, ?)

-- name: cursor_lease_fence_all_citus
SELECT shardq.citus_lease_fence_all(?)

-- name: shard_release_owner_citus
SELECT shardq.citus_release_owner(?)

-- name: cursor_commit_move_citus
SELECT moved, logged, cleared, attempts FROM shardq.citus_commit_move(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
