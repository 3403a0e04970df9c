-- The key/value caches (shardq.kv_cache and each cache's partitioned shardq."kv_<id>"): rows, locks,
-- single-flight loading, bounds, expiry buckets.
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter; a /* TEMPLATE: ... */ slot takes only an
-- identifier built from numeric catalog ids (Queries), always quoted. The build generates the
-- enum io.shardq.broker.internal.Query from these names (src/build/QueryNames.java), so a misspelt
-- name fails compilation; QueriesTest PREPAREs every statement against the migrated schema.

-- name: kv_cache_select_by_name
SELECT id, name, durable, default_ttl_ms, max_ttl_ms, max_entries, max_bytes, bucket_ms, max_key_bytes,
       max_value_bytes
  FROM shardq.kv_cache WHERE name = ?

-- name: kv_cache_select_all
SELECT id, name, durable, default_ttl_ms, max_ttl_ms, max_entries, max_bytes, bucket_ms, max_key_bytes,
       max_value_bytes
  FROM shardq.kv_cache ORDER BY id

-- name: kv_select_many
-- One probe of each partition's primary key per key: no scan at any size.
-- The expiry (epoch ms, null: none) is for the near cache, which must not serve an entry after it.
SELECT k, v, (extract(epoch FROM expires_at) * 1000)::bigint FROM /* TEMPLATE: kv */
 WHERE k = ANY(?) AND (expires_at IS NULL OR expires_at > shardq.kv_ts(?))

-- name: kv_select_one
-- One key: with "k = ?" PostgreSQL settles on a generic plan after five runs (no planning per call,
-- measured 0.01 ms instead of 0.33 ms over 20 partitions); with "k = ANY(?)" it keeps re-planning,
-- since its custom plans look cheaper than the generic one for an array of unknown length.
SELECT v, (extract(epoch FROM expires_at) * 1000)::bigint FROM /* TEMPLATE: kv */
 WHERE k = ? AND (expires_at IS NULL OR expires_at > shardq.kv_ts(?))

-- name: kv_select_keys_first
-- The first page of live keys in key order: a Merge Append of each partition's primary key index,
-- read up to the limit, never a sort of the whole cache. For callers that visit every entry
-- (JCache's iterator), not for the hot path.
SELECT k FROM /* TEMPLATE: kv */
 WHERE expires_at IS NULL OR expires_at > shardq.kv_ts(?)
 ORDER BY k LIMIT ?

-- name: kv_select_keys_after
-- The next page: keys after the last one of the previous page (keyset paging).
SELECT k FROM /* TEMPLATE: kv */
 WHERE k > ? AND (expires_at IS NULL OR expires_at > shardq.kv_ts(?))
 ORDER BY k LIMIT ?

-- name: kv_select_exists
SELECT EXISTS (SELECT 1 FROM /* TEMPLATE: kv */
                WHERE k = ? AND (expires_at IS NULL OR expires_at > shardq.kv_ts(?)))

-- name: kv_lock_keys
-- A write's first statement: a transaction-level advisory lock per key, in the order given
-- (ascending, distinct hashes), so two writers of overlapping batches never deadlock. The
-- statements after it take their snapshots after the locks: they see what an earlier holder
-- committed. One key then has one row, although PostgreSQL cannot enforce it across partitions.
SELECT count(pg_advisory_xact_lock(?, h)) FROM unnest(?::integer[]) AS h

-- name: kv_lock_keys_generic
-- kv_lock_keys in a transaction of the engine's own (never an application's: the setting lasts
-- until the transaction ends): also makes this transaction's statements use generic plans.
-- PostgreSQL otherwise re-plans kv_delete_many (k = ANY(?)) over every partition on each call,
-- judging its custom plans cheaper; measured (KvPutPathTest) a putAll of 20 about 25% faster.
SELECT count(pg_advisory_xact_lock(?, h)), min(set_config('plan_cache_mode', 'force_generic_plan', true))
  FROM unnest(?::integer[]) AS h

-- name: kv_delete_many
-- (put, replace, remove) A delete needs no advisory lock of its own: it cannot make a second row.
DELETE FROM /* TEMPLATE: kv */ WHERE k = ANY(?)
RETURNING k, expires_at IS NULL OR expires_at > shardq.kv_ts(?)

-- name: kv_delete_one
-- (remove of one key) "k = ?": a generic plan, where "= ANY(?)" is re-planned per call.
DELETE FROM /* TEMPLATE: kv */ WHERE k = ?
RETURNING k, expires_at IS NULL OR expires_at > shardq.kv_ts(?)

-- name: kv_delete_expired
-- (put if absent) The keys' expired rows, which do not count as present.
DELETE FROM /* TEMPLATE: kv */ WHERE k = ANY(?) AND expires_at <= shardq.kv_ts(?)

-- name: kv_insert_many
-- (put, replace) After kv_lock_keys and kv_delete_many in the same transaction.
INSERT INTO /* TEMPLATE: kv */ (k, v, expires_at, bucket, touched_at, size)
SELECT u.k, u.v, shardq.kv_ts(u.e), u.b, shardq.kv_ts(?), octet_length(u.k) + octet_length(u.v)
  FROM unnest(?::bytea[], ?::bytea[], ?::bigint[], ?::bigint[]) AS u (k, v, e, b)

-- name: kv_insert_absent
-- (put if absent) After kv_lock_keys and kv_delete_expired: only keys without a row.
INSERT INTO /* TEMPLATE: kv */ (k, v, expires_at, bucket, touched_at, size)
SELECT u.k, u.v, shardq.kv_ts(u.e), u.b, shardq.kv_ts(?), octet_length(u.k) + octet_length(u.v)
  FROM unnest(?::bytea[], ?::bytea[], ?::bigint[], ?::bigint[]) AS u (k, v, e, b)
 WHERE NOT EXISTS (SELECT 1 FROM /* TEMPLATE: kv */ x WHERE x.k = u.k)

-- name: kv_load_try_lock
-- A read-through load's session-level lock on (cache, key hash), in a key space of its own (the
-- writers' transaction locks are (cache id, hash)), and when the try was made: a failure the
-- holder records later is at or after it.
SELECT pg_try_advisory_lock(hashtext('shardq.kv_load') # ?, ?), clock_timestamp()

-- name: kv_load_lock
-- Waits for the holder's load to end; bounded by lock_timeout (kv_load_lock_timeout).
SELECT pg_advisory_lock(hashtext('shardq.kv_load') # ?, ?)

-- name: kv_load_unlock
SELECT pg_advisory_unlock(hashtext('shardq.kv_load') # ?, ?)

-- name: kv_load_lock_timeout
-- Session-level, on a pooled connection: set before the wait, set back to '0' after it.
SELECT set_config('lock_timeout', ?, false)

-- name: kv_load_failure_upsert
INSERT INTO shardq.kv_load_failure (cache_id, key_hash, k, attempt_at, error)
VALUES (?, ?, ?, clock_timestamp(), ?)
ON CONFLICT (cache_id, key_hash)
DO UPDATE SET k = excluded.k, attempt_at = excluded.attempt_at, error = excluded.error

-- name: kv_load_failure_purge
-- The maintenance leader's round: failures older than the given milliseconds (no waiter can
-- still read them) and those of dropped caches. now(), the statement's start here: Citus refuses a
-- volatile function (clock_timestamp) in a modification's WHERE.
DELETE FROM shardq.kv_load_failure f
 WHERE f.attempt_at < now() - make_interval(secs => ? / 1000.0)
    OR NOT EXISTS (SELECT 1 FROM shardq.kv_cache c WHERE c.id = f.cache_id)

-- name: kv_load_failure_select
SELECT error FROM shardq.kv_load_failure
 WHERE cache_id = ? AND key_hash = ? AND k = ? AND attempt_at >= ?

-- name: kv_clear
SELECT shardq.kv_clear(?)

-- name: kv_touch_many
-- At most once per touch interval per key: rows touched more recently are left alone.
UPDATE /* TEMPLATE: kv */ SET touched_at = shardq.kv_ts(?)
 WHERE k = ANY(?) AND touched_at < shardq.kv_ts(?)

-- name: kv_count_live
SELECT count(*), coalesce(sum(size), 0) FROM /* TEMPLATE: kv */
 WHERE expires_at IS NULL OR expires_at > shardq.kv_ts(?)

-- name: kv_evict_lru
-- The ? least recently touched live entries; rows a writer holds are skipped (never waited on).
WITH e AS (
    DELETE FROM /* TEMPLATE: kv */ WHERE k IN (
        SELECT k FROM /* TEMPLATE: kv */
         WHERE expires_at IS NULL OR expires_at > shardq.kv_ts(?)
         ORDER BY touched_at LIMIT ? FOR UPDATE SKIP LOCKED)
    RETURNING 1)
SELECT count(*) FROM e

-- name: kv_cache_count_evictions
UPDATE shardq.kv_cache SET evictions = evictions + ? WHERE id = ?

-- name: kv_select_buckets
-- The cache's bucket partitions (the forever one, bucket 0, left out).
SELECT substring(c.relname FROM '_([0-9]+)$')::bigint AS bucket
  FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = pg_catalog.to_regclass(?) AND c.relname ~ '_[0-9]+$'
 ORDER BY 1

-- name: kv_ensure_buckets
SELECT shardq.kv_ensure_buckets(?, ?, ?)

-- name: kv_lock_partition
-- A write in an application's (or a session's) transaction to a bucket partition made after the
-- transaction first used the cache: PostgreSQL routes an INSERT with the partition list it read
-- when it first locked the parent, and takes in later changes only when it next acquires a lock
-- it does not hold yet. Reading the new partition is such an acquisition (nothing new when held);
-- a SELECT rather than LOCK TABLE, which cannot be prepared.
SELECT 1 FROM /* TEMPLATE: kv_partition */ LIMIT 0

-- name: kv_need_bucket
-- A writer's first entry expiring in a bucket this instance has not seen a partition for.
SELECT shardq.kv_need_bucket(?, ?, ?)

-- name: kv_drop_bucket
SELECT shardq.kv_drop_bucket(?, ?)

-- name: kv_notify_invalidations
-- Near-cache invalidations, one NOTIFY per payload, sent in the writing transaction (delivered at its commit).
SELECT count(pg_notify(?, p)) FROM unnest(?::text[]) AS p
