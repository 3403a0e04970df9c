-- Cursors (shardq.cursor): leases, consumer commits, the dequeue log (shardq.dequeue_range) and
-- delivery attempts (shardq.delivery_attempt).
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter; a /* TEMPLATE: ... */ slot takes only an
-- identifier built from numeric catalog ids (Queries), always quoted. The build generates the
-- enum io.shardq.broker.internal.Query from these names (src/build/QueryNames.java), so a misspelt
-- name fails compilation; QueriesTest PREPAREs every statement against the migrated schema.

-- name: cursor_lease_expire_dead
-- Leases of instances that took their session lock and lost it (their connections closed: the JVM
-- died) expire now, instead of a TTL after their last renewal. SKIP LOCKED as the other lease
-- statements: a row held by a transaction is left for the next round.
UPDATE shardq.cursor SET lease_until = now()
 WHERE (subscription_id, shard_no) IN (
       SELECT c.subscription_id, c.shard_no FROM shardq.cursor c
        WHERE c.lease_until > now()
          AND c.lease_instance IN (
              SELECT i.id FROM shardq.instance i
               WHERE i.session_lock AND i.stopped_at IS NULL AND i.id <> ?
                 AND i.id NOT IN (SELECT shardq.live_instances(?)))
          FOR UPDATE SKIP LOCKED)
RETURNING lease_instance, subscription_id, shard_no

-- name: cursor_select_min_position
-- The lowest cursor of a shard over the destination's subscriptions (a producer leaving the shard
-- waits until every subscription consumed what it sent there).
SELECT coalesce(min(position), 9223372036854775807) FROM shardq.cursor WHERE destination_id = ? AND shard_no = ?

-- name: cursor_lease_acquire
-- Takes free or expired leases (or renews ours), each acquisition numbered anew (lease_seq, V017:
-- see dequeue_range_insert). FOR UPDATE first: it waits for in-flight commits
-- of the previous holder that logged consumption under FOR KEY SHARE (a plain UPDATE would not
-- wait for them), so the dequeue log read after this statement is complete. It runs under a short
-- lock_timeout: a row held longer is held by a prepared transaction (XA, issue 13), which keeps its
-- locks until a transaction manager decides it, maybe after a crash; then the caller runs
-- cursor_lease_acquire_skip_locked instead.
WITH locked AS (
    SELECT c.subscription_id, c.shard_no FROM shardq.cursor c
     WHERE c.subscription_id = ? AND c.shard_no = ANY(?)
       AND (c.lease_instance IS NULL OR c.lease_instance = ? OR c.lease_until < now())
     ORDER BY c.shard_no
       FOR UPDATE OF c)
UPDATE shardq.cursor c
   SET lease_instance = ?, lease_until = now() + make_interval(secs => ?), lease_seq = c.lease_seq + 1
  FROM locked l, shardq.shard s
 WHERE c.subscription_id = l.subscription_id AND c.shard_no = l.shard_no
   AND s.destination_id = c.destination_id AND s.shard_no = c.shard_no
   AND (c.lease_instance IS NULL OR c.lease_instance = ? OR c.lease_until < now())
RETURNING c.shard_no, c.position, least(s.next_seq, s.fence), c.lease_seq

-- name: cursor_lease_acquire_skip_locked
-- cursor_lease_acquire, skipping locked rows: a cursor row a prepared transaction holds is not taken
-- (its consumption is neither delivered again nor lost while undecided: the lease is taken, and the
-- decided cursor and log read, once the row is free), and the other shards are.
WITH locked AS (
    SELECT c.subscription_id, c.shard_no FROM shardq.cursor c
     WHERE c.subscription_id = ? AND c.shard_no = ANY(?)
       AND (c.lease_instance IS NULL OR c.lease_instance = ? OR c.lease_until < now())
     ORDER BY c.shard_no
       FOR UPDATE OF c SKIP LOCKED)
UPDATE shardq.cursor c
   SET lease_instance = ?, lease_until = now() + make_interval(secs => ?), lease_seq = c.lease_seq + 1
  FROM locked l, shardq.shard s
 WHERE c.subscription_id = l.subscription_id AND c.shard_no = l.shard_no
   AND s.destination_id = c.destination_id AND s.shard_no = c.shard_no
   AND (c.lease_instance IS NULL OR c.lease_instance = ? OR c.lease_until < now())
RETURNING c.shard_no, c.position, least(s.next_seq, s.fence), c.lease_seq

-- name: cursor_lease_renew
-- SKIP LOCKED: a row locked by one of our own consumer commits is skipped (its lease is renewed
-- next round) instead of waiting, so renewal never deadlocks with a commit over two shards.
-- Only leases with less than half the TTL (?) left are renewed: each row is rewritten about every
-- TTL/2 instead of every heartbeat (1,000 subscriptions x 8 shards rewrote 8,000 rows a second).
UPDATE shardq.cursor SET lease_until = now() + make_interval(secs => ?)
 WHERE (subscription_id, shard_no) IN (
       SELECT subscription_id, shard_no FROM shardq.cursor
        WHERE lease_instance = ? AND lease_until < now() + make_interval(secs => ?)
          FOR UPDATE SKIP LOCKED)
RETURNING subscription_id, shard_no

-- name: cursor_select_balance
-- Every cursor of the given subscriptions, for the lease balancer: backlog (next_seq - 1 - position,
-- an upper bound: consumption logged beyond the cursor is not counted) and the live holder.
SELECT c.subscription_id, c.shard_no, c.position, s.next_seq,
       CASE WHEN c.lease_until > now() THEN c.lease_instance END
  FROM shardq.cursor c JOIN shardq.shard s ON s.destination_id = c.destination_id AND s.shard_no = c.shard_no
 WHERE c.subscription_id = ANY(?)

-- name: cursor_select_held
SELECT subscription_id, shard_no, lease_seq FROM shardq.cursor WHERE lease_instance = ?

-- name: cursor_lease_release_orphan
-- A lease the database says is ours but this instance does not hold (a release that was skipped
-- or failed after the local state dropped it): given back, unless a newer acquisition numbered it
-- since (lease_seq). SKIP LOCKED as cursor_lease_release: a locked row is tried at the next beat.
UPDATE shardq.cursor SET lease_instance = NULL, lease_until = NULL
 WHERE (subscription_id, shard_no) IN (
       SELECT subscription_id, shard_no FROM shardq.cursor
        WHERE subscription_id = ? AND shard_no = ? AND lease_instance = ? AND lease_seq = ?
          FOR UPDATE SKIP LOCKED)

-- name: cursor_lease_release
-- SKIP LOCKED: a row that a prepared transaction (XA, issue 13) holds is left to expire instead of
-- hanging the heartbeat until a transaction manager decides it.
UPDATE shardq.cursor SET lease_instance = NULL, lease_until = NULL
 WHERE (subscription_id, shard_no) IN (
       SELECT subscription_id, shard_no FROM shardq.cursor
        WHERE subscription_id = ? AND shard_no = ANY(?) AND lease_instance = ?
          FOR UPDATE SKIP LOCKED)

-- name: cursor_lease_release_all
-- SKIP LOCKED as cursor_lease_release: closing an instance never waits for a prepared transaction.
UPDATE shardq.cursor SET lease_instance = NULL, lease_until = NULL
 WHERE (subscription_id, shard_no) IN (
       SELECT subscription_id, shard_no FROM shardq.cursor WHERE lease_instance = ? FOR UPDATE SKIP LOCKED)

-- name: cursor_select_candidates
-- shards with backlog whose lease is free, expired or ours
SELECT c.shard_no, c.position, least(s.next_seq, s.fence)
  FROM shardq.cursor c JOIN shardq.shard s ON s.destination_id = c.destination_id AND s.shard_no = c.shard_no
 WHERE c.subscription_id = ?
   AND (c.lease_instance IS NULL OR c.lease_instance = ? OR c.lease_until < now())

-- name: cursor_select_by_destination
SELECT c.shard_no, c.position, c.lease_instance, c.lease_until, s.next_seq
  FROM shardq.cursor c JOIN shardq.shard s ON s.destination_id = c.destination_id AND s.shard_no = c.shard_no
 WHERE c.subscription_id = ? ORDER BY c.shard_no

-- name: delivery_attempt_increment
INSERT INTO shardq.delivery_attempt (subscription_id, shard_no, seq, attempts)
SELECT ?, ?, unnest(?::bigint[]), 1
ON CONFLICT (subscription_id, shard_no, seq) DO UPDATE SET attempts = shardq.delivery_attempt.attempts + 1

-- name: delivery_attempt_select
SELECT seq, attempts FROM shardq.delivery_attempt WHERE subscription_id = ? AND shard_no = ? AND seq > ?

-- name: dequeue_range_insert
-- Records runs of messages consumed beyond the cursor, one row per run of consecutive sequence
-- numbers (first and last as two arrays of the same length). FOR KEY SHARE on our leased cursor
-- row fences the lease: another instance takes it with FOR UPDATE first (cursor_lease_acquire),
-- which waits for this transaction, and nothing is logged once the lease is gone (0 rows). KEY
-- SHARE does not conflict with this instance's own cursor moves (non-key UPDATEs), so loggers and
-- the mover of a shard do not wait for each other. lease_seq (V017) is the acquisition the commit
-- was planned under: after this instance took the lease again (and re-read the log), a commit
-- planned before logs nothing.
INSERT INTO shardq.dequeue_range (subscription_id, shard_no, first_seq, last_seq)
SELECT c.subscription_id, c.shard_no, r.first_seq, r.last_seq
  FROM shardq.cursor c, unnest(?::bigint[], ?::bigint[]) AS r (first_seq, last_seq)
 WHERE c.subscription_id = ? AND c.shard_no = ? AND c.lease_instance = ? AND c.lease_seq = ?
   FOR KEY SHARE OF c

-- name: cursor_commit_move
-- A consumer commit that moves the cursor, as one statement (one round trip in autocommit): the
-- guarded move, what was consumed beyond the new position logged, the log and the delivery
-- attempts at or below it deleted (each DELETE only when its flag is set). When the guard fails
-- nothing happens (0 rows moved). The guard names the lease acquisition the commit was planned
-- under (lease_seq, as dequeue_range_insert does): after this instance forgot the shard and took it
-- again, the re-read hands the planned messages out again and the new lease's sessions may log
-- some of them as consumed while the cursor stays where the plan found it, so position and
-- lease_instance alone would let the old plan consume them a second time.
WITH moved AS (
    UPDATE shardq.cursor SET position = ?
     WHERE subscription_id = ? AND shard_no = ? AND position = ? AND lease_instance = ? AND lease_seq = ?
    RETURNING subscription_id, shard_no, position),
logged AS (
    INSERT INTO shardq.dequeue_range (subscription_id, shard_no, first_seq, last_seq)
    SELECT m.subscription_id, m.shard_no, x.first_seq, x.last_seq
      FROM moved m, unnest(?::bigint[], ?::bigint[]) AS x (first_seq, last_seq)
    RETURNING 1),
cleared AS (
    DELETE FROM shardq.dequeue_range l USING moved m
     WHERE ?::boolean AND l.subscription_id = m.subscription_id AND l.shard_no = m.shard_no
       AND l.last_seq <= m.position
    RETURNING 1),
attempts AS (
    DELETE FROM shardq.delivery_attempt a USING moved m
     WHERE ?::boolean AND a.subscription_id = m.subscription_id AND a.shard_no = m.shard_no
       AND a.seq <= m.position
    RETURNING 1)
SELECT (SELECT count(*) FROM moved), (SELECT count(*) FROM logged),
       (SELECT count(*) FROM cleared), (SELECT count(*) FROM attempts)

-- name: cursor_commit_moves
-- Several plain cursor moves of a topic's subscriptions as one statement (CursorWriter's group
-- commit): each row moves only if its guard holds (position, lease and its acquisition, as in
-- cursor_commit_move), and its log and delivery
-- attempts at or below the new position are deleted when its flags say so. Returns the cursors
-- that moved; one whose guard failed is not there.
WITH v AS (
    SELECT * FROM unnest(?::bigint[], ?::integer[], ?::bigint[], ?::bigint[], ?::boolean[], ?::boolean[], ?::bigint[])
        AS v (sub, shard, from_pos, to_pos, clear_log, clear_attempts, lease_seq)),
moved AS (
    UPDATE shardq.cursor c SET position = v.to_pos
      FROM v
     WHERE c.subscription_id = v.sub AND c.shard_no = v.shard AND c.position = v.from_pos AND c.lease_instance = ?
       AND c.lease_seq = v.lease_seq
    RETURNING c.subscription_id, c.shard_no, c.position, v.clear_log, v.clear_attempts),
cleared AS (
    DELETE FROM shardq.dequeue_range l USING moved m
     WHERE m.clear_log AND l.subscription_id = m.subscription_id AND l.shard_no = m.shard_no
       AND l.last_seq <= m.position
    RETURNING 1),
attempts AS (
    DELETE FROM shardq.delivery_attempt a USING moved m
     WHERE m.clear_attempts AND a.subscription_id = m.subscription_id AND a.shard_no = m.shard_no
       AND a.seq <= m.position
    RETURNING 1)
SELECT m.subscription_id, m.shard_no, (SELECT count(*) FROM cleared), (SELECT count(*) FROM attempts) FROM moved m

-- name: dequeue_range_select
-- What was consumed beyond the cursor, as runs. (The cursor passes a logged run whole, so a run
-- lies wholly beyond it or wholly at or below it; the caller keeps only what is beyond, all the
-- same, and the clean-up deletes a run only once the cursor is at or past its end.)
SELECT first_seq, last_seq FROM shardq.dequeue_range WHERE subscription_id = ? AND shard_no = ? AND last_seq > ?
