-- Named runtime queries of the broker. One block per query: "-- name: <table>_<verb>_<qualifier>".
-- /* TEMPLATE: leaf */ and /* TEMPLATE: parent */ are replaced by quoted identifiers built from
-- numeric catalog ids only; every value is a bind parameter. QueriesTest PREPAREs each block.

-- name: instance_insert
INSERT INTO shardq.instance (name) VALUES (?) RETURNING id

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

-- name: destination_select_by_name
SELECT d.id, d.name, d.kind, d.shard_count, d.slice_size, d.max_attempts, d.dead_letter_name,
       d.enqueue_enabled, d.dequeue_enabled,
       (SELECT s.id FROM shardq.subscription s WHERE s.destination_id = d.id AND s.name = '') AS queue_subscription,
       d.sub_version, d.expiry_name, d.redelivery_delay_ms, d.redelivery_multiplier, d.message_groups,
       d.group_map, d.draining_from,
       CASE WHEN d.draining_from IS NOT NULL THEN
           (SELECT array_agg(s.fence ORDER BY s.shard_no) FROM shardq.shard s
             WHERE s.destination_id = d.id AND s.shard_no < d.draining_from) END AS fences
  FROM shardq.destination d WHERE d.name = ?

-- name: destination_select_all
SELECT d.id, d.name, d.kind, d.shard_count, d.slice_size, d.max_attempts, d.dead_letter_name,
       d.enqueue_enabled, d.dequeue_enabled,
       (SELECT s.id FROM shardq.subscription s WHERE s.destination_id = d.id AND s.name = '') AS queue_subscription,
       d.sub_version, d.expiry_name, d.redelivery_delay_ms, d.redelivery_multiplier, d.message_groups,
       d.group_map, d.draining_from,
       CASE WHEN d.draining_from IS NOT NULL THEN
           (SELECT array_agg(s.fence ORDER BY s.shard_no) FROM shardq.shard s
             WHERE s.destination_id = d.id AND s.shard_no < d.draining_from) END AS fences
  FROM shardq.destination d ORDER BY d.name

-- name: shard_reserve
-- Reserves ? sequence numbers and keeps the row locked until commit (the visibility rule);
-- returns the first reserved number and the instance that asked to be woken, clearing it
-- (SET expressions read the old row, so notified = the old waiter).
UPDATE shardq.shard
   SET next_seq = next_seq + ?, waiter = NULL, notified = waiter
 WHERE destination_id = ? AND shard_no = ?
RETURNING next_seq - ?, notified, fence

-- name: shard_claim_owner
-- Enqueue affinity: takes up to ? shards of the destination that no live instance owns
-- (shardq.live_instances), lowest numbers first. No SKIP LOCKED: the shards worth taking are the
-- ones being written, whose rows an enqueue holds until its commit (the visibility rule); the caller
-- runs it under a short lock_timeout instead. The condition is checked again on the locked row, so
-- of two instances racing for a shard one gets it.
UPDATE shardq.shard s SET owner_instance = ?
 WHERE s.destination_id = ? AND s.shard_no IN (
       SELECT x.shard_no FROM shardq.shard x
        WHERE x.destination_id = ?
          AND (x.owner_instance IS NULL OR x.owner_instance NOT IN (SELECT shardq.live_instances(?)))
          AND x.drain_head IS NULL
        ORDER BY x.shard_no LIMIT ?)
   AND (s.owner_instance IS NULL OR s.owner_instance NOT IN (SELECT shardq.live_instances(?)))
   AND s.drain_head IS NULL
RETURNING s.shard_no

-- name: shard_select_owners
-- Who owns which shard of a destination for enqueue (null: nobody).
SELECT shard_no, owner_instance FROM shardq.shard WHERE destination_id = ? ORDER BY shard_no

-- name: shard_release_owner_some
-- Gives back enqueue ownership of some shards of a destination (beyond this instance's fair share);
-- run under a short lock_timeout, as shard_claim_owner.
UPDATE shardq.shard SET owner_instance = NULL
 WHERE destination_id = ? AND shard_no = ANY(?) AND owner_instance = ?
RETURNING shard_no

-- name: cursor_select_min_position
-- The lowest cursor of a shard over the destination's subscriptions (a producer leaving the shard
-- waits until every subscription consumed what it sent there).
SELECT coalesce(min(position), 9223372036854775807) FROM shardq.cursor WHERE destination_id = ? AND shard_no = ?

-- name: shard_release_owner
-- SKIP LOCKED: a shard row held by a prepared transaction's send (XA) keeps its owner, which is
-- dead once it stops (shard_claim_owner takes such shards), instead of hanging the close.
UPDATE shardq.shard SET owner_instance = NULL
 WHERE (destination_id, shard_no) IN (
       SELECT destination_id, shard_no FROM shardq.shard WHERE owner_instance = ? FOR UPDATE SKIP LOCKED)

-- name: shard_select_heads
-- What consumers see of a shard's next_seq: never beyond its fence while its destination shrinks
-- (V015; least ignores a null fence), here and in every other read of a head for consumers.
SELECT shard_no, least(next_seq, fence) FROM shardq.shard WHERE destination_id = ?

-- name: shard_set_waiter
UPDATE shardq.shard SET waiter = ?
 WHERE destination_id = ? AND shard_no = ANY(?) AND waiter IS DISTINCT FROM ?
RETURNING shard_no, least(next_seq, fence)

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
-- nothing happens (0 rows moved).
WITH moved AS (
    UPDATE shardq.cursor SET position = ?
     WHERE subscription_id = ? AND shard_no = ? AND position = ? AND lease_instance = ?
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
-- commit): each row moves only if its guard holds (position and lease), and its log and delivery
-- attempts at or below the new position are deleted when its flags say so. Returns the cursors
-- that moved; one whose guard failed is not there.
WITH v AS (
    SELECT * FROM unnest(?::bigint[], ?::integer[], ?::bigint[], ?::bigint[], ?::boolean[], ?::boolean[])
        AS v (sub, shard, from_pos, to_pos, clear_log, clear_attempts)),
moved AS (
    UPDATE shardq.cursor c SET position = v.to_pos
      FROM v
     WHERE c.subscription_id = v.sub AND c.shard_no = v.shard AND c.position = v.from_pos AND c.lease_instance = ?
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

-- name: message_insert
INSERT INTO /* TEMPLATE: leaf */ (shard_no, slot, seq, enqueued_at, deliver_at, expires_at, priority, subscribers, header, body)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)

-- name: message_insert_reserving
-- The enqueue fast path, one statement: reserve the range starting at the expected next_seq
-- and insert the rows; when another writer moved next_seq, or a topic's subscriptions changed
-- since the subscriber bitmaps were computed (sub_version), nothing happens (0 rows) and the
-- caller falls back to shard_lock_version / shard_reserve + message_insert.
WITH r AS (
    UPDATE shardq.shard
       SET next_seq = next_seq + ?, waiter = NULL, notified = waiter
     WHERE destination_id = ? AND shard_no = ? AND next_seq = ? AND sub_version = ?
    RETURNING notified, fence)
INSERT INTO /* TEMPLATE: leaf */ (shard_no, slot, seq, enqueued_at, deliver_at, expires_at, priority, subscribers, header, body)
SELECT ?, ?, v.seq, v.enq, v.dlv, v.exp, v.prio, v.subs, v.header, v.body
  FROM (VALUES /* TEMPLATE: rows */) AS v (seq, enq, dlv, exp, prio, subs, header, body)
 WHERE EXISTS (SELECT 1 FROM r)
RETURNING (SELECT notified FROM r), (SELECT fence FROM r)

-- name: message_insert_reserving_part
-- One shard's part of a several-shard enqueue (SendCommitter with shardq.commit.shared-sends): the
-- two statements of message_insert_reserving as data-modifying CTEs r_N and i_N (N: the part's
-- number), joined with the other shards' parts into one statement, one round trip and one commit.
-- A part whose guess was wrong (r_N updates nothing) inserts nothing and the others still commit.
-- The statement ends with one row per part: SELECT N, (SELECT count(*) FROM r_N), (SELECT notified
-- FROM r_N), (SELECT fence FROM r_N), joined by UNION ALL (Enqueue.insertReservingTogether; a
-- data-modifying CTE runs to completion whether or not the final SELECT reads it).
r_N AS (
    UPDATE shardq.shard
       SET next_seq = next_seq + ?, waiter = NULL, notified = waiter
     WHERE destination_id = ? AND shard_no = ? AND next_seq = ? AND sub_version = ?
    RETURNING notified, fence),
i_N AS (
    INSERT INTO /* TEMPLATE: leaf */ (shard_no, slot, seq, enqueued_at, deliver_at, expires_at, priority, subscribers, header, body)
    SELECT ?, ?, v.seq, v.enq, v.dlv, v.exp, v.prio, v.subs, v.header, v.body
      FROM (VALUES /* TEMPLATE: rows */) AS v (seq, enq, dlv, exp, prio, subs, header, body)
     WHERE EXISTS (SELECT 1 FROM r_N)
    RETURNING 1)

-- name: message_select_range
-- Read-ahead on a cache miss: rows first..last of one slot, a body only when it is at most ?
-- bytes (octet_length reads the length, not the TOASTed value, so a large body is never read
-- here), and no more rows once the headers and bodies before a row reach ? bytes (the first row
-- always comes).
SELECT seq, enqueued_at, deliver_at, expires_at, priority, header, body, body_size, subscribers
  FROM (SELECT m.*, sum(octet_length(m.header) + coalesce(octet_length(m.body), 0)) OVER (ORDER BY m.seq) AS upto
          FROM (SELECT seq, enqueued_at, deliver_at, expires_at, priority, header, subscribers,
                       CASE WHEN octet_length(body) <= ? THEN body END AS body, octet_length(body) AS body_size
                  FROM /* TEMPLATE: leaf */ WHERE seq BETWEEN ? AND ?) m) r
 WHERE upto - octet_length(header) - coalesce(octet_length(body), 0) < ?
 ORDER BY seq

-- name: message_select_priorities
-- Priority ordering's look ahead on a cache miss: of the rows first..last of one slot, those whose
-- priority is not the default (4). Nothing else is read: no header, no body.
SELECT seq, priority FROM /* TEMPLATE: leaf */ WHERE seq BETWEEN ? AND ? AND priority <> 4 ORDER BY seq

-- name: message_select_body
-- A large body, read when its message is delivered.
SELECT body FROM /* TEMPLATE: leaf */ WHERE seq = ?

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

-- name: maintenance_notify_many
-- A follower's slice crossings, coalesced, for the leader: one NOTIFY per destination/shard.
SELECT pg_notify('shardq_maintenance', p) FROM unnest(?::text[]) AS p

-- name: destination_select_by_id
SELECT d.id, d.name, d.kind, d.shard_count, d.slice_size, d.max_attempts, d.dead_letter_name,
       d.enqueue_enabled, d.dequeue_enabled,
       (SELECT s.id FROM shardq.subscription s WHERE s.destination_id = d.id AND s.name = '') AS queue_subscription,
       d.sub_version, d.expiry_name, d.redelivery_delay_ms, d.redelivery_multiplier, d.message_groups,
       d.group_map, d.draining_from,
       CASE WHEN d.draining_from IS NOT NULL THEN
           (SELECT array_agg(s.fence ORDER BY s.shard_no) FROM shardq.shard s
             WHERE s.destination_id = d.id AND s.shard_no < d.draining_from) END AS fences
  FROM shardq.destination d WHERE d.id = ?

-- name: message_select_browse_page
-- One page of a browse cursor on one shard (?): the rows after the page before (?) and after the
-- consumer cursor (a scalar subquery, so the bound is an index condition on seq), up to the head
-- the browse started at (?), that no selective consumer took (dequeue log); at most ? rows, and
-- only as many as fit in ? bytes of header and body (the row that crosses the bound is kept, so a
-- page always moves on). The LIMIT is applied before the running sum, so a page never sums more
-- than its own rows.
SELECT p.seq, p.enqueued_at, p.deliver_at, p.expires_at, p.priority, p.header, p.body
  FROM (SELECT w.*, sum(w.size) OVER (ORDER BY w.seq) AS upto
          FROM (SELECT m.seq, m.enqueued_at, m.deliver_at, m.expires_at, m.priority, m.header, m.body,
                       octet_length(m.header)::bigint + octet_length(m.body) AS size
                  FROM /* TEMPLATE: parent */ m
                 WHERE m.shard_no = ?::integer
                   AND m.seq > greatest(?::bigint, (SELECT c.position FROM shardq.cursor c
                                                     WHERE c.subscription_id = ?::bigint AND c.shard_no = ?::integer))
                   AND m.seq <= ?::bigint
                   AND NOT EXISTS (SELECT 1 FROM shardq.dequeue_range l
                                    WHERE l.subscription_id = ?::bigint AND l.shard_no = m.shard_no
                                      AND l.first_seq <= m.seq AND l.last_seq >= m.seq)
                 ORDER BY m.seq
                 LIMIT ?) w) p
 WHERE p.upto - p.size < ?
 ORDER BY p.seq

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

-- name: destination_select_privileges
-- What a role (?) may do with a destination (?), asked of PostgreSQL: shardq.has_privilege reads
-- the table privileges on shardq.m_<id> (false for a role that does not exist). No row when the
-- destination does not exist.
-- Anyone may send to a temporary destination (V007): its generated name is the capability, handed
-- out as JMSReplyTo; receiving and browsing it are for its own connection, checked by the JMS layer.
SELECT shardq.has_privilege(r.role_name, d.id, 'send')
           OR EXISTS (SELECT 1 FROM shardq.temporary_destination t WHERE t.destination_id = d.id),
       shardq.has_privilege(r.role_name, d.id, 'receive'),
       shardq.has_privilege(r.role_name, d.id, 'browse'),
       shardq.has_privilege(r.role_name, d.id, 'administer')
  FROM (SELECT ?::text AS role_name) r
  JOIN shardq.destination d ON d.name = ?

-- name: shard_lock_version
-- A topic's slow enqueue path: lock the shard row first (the visibility rule) and read the
-- subscription version, so the bitmaps are computed against subscriptions that cannot change
-- before this transaction ends.
SELECT sub_version, next_seq FROM shardq.shard WHERE destination_id = ? AND shard_no = ? FOR UPDATE

-- name: topic_view_select
-- The subscriptions of a topic as publishers need them, with the version they belong to (one
-- snapshot). A topic without subscriptions gives one row with a null id.
SELECT d.sub_version, s.id, s.bit, s.selector, s.no_local, s.client_id, s.owner_connection
  FROM shardq.destination d LEFT JOIN shardq.subscription s ON s.destination_id = d.id
 WHERE d.id = ?
 ORDER BY s.bit

-- name: subscription_subscribe
SELECT sub_id, sub_bit FROM shardq.subscribe(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)

-- name: subscription_consumer_closed
SELECT shardq.consumer_closed(?, ?, ?)

-- name: queue_consumers_upsert
-- This instance's open consumers of a queue (QueueConsumerCounts); nothing when the queue's
-- subscription is gone (dropped meanwhile).
INSERT INTO shardq.subscription_consumer AS c (subscription_id, instance_id, consumers)
SELECT s.id, ?, ? FROM shardq.subscription s WHERE s.id = ?
    ON CONFLICT (subscription_id, instance_id) DO UPDATE SET consumers = EXCLUDED.consumers

-- name: queue_consumers_delete
DELETE FROM shardq.subscription_consumer WHERE subscription_id = ? AND instance_id = ?

-- name: queue_consumers_delete_all
DELETE FROM shardq.subscription_consumer WHERE instance_id = ? AND subscription_id = ANY (?)

-- name: subscription_unsubscribe
SELECT shardq.unsubscribe(?, ?, ?)

-- name: subscription_reap
SELECT shardq.reap_subscriptions(?)

-- name: subscription_expire_all
-- The expiry policy of every topic that has one (the maintenance leader, every few heartbeats).
SELECT d.id, d.name, e.subscription, e.client_id, e.shard_no, e.from_seq, e.to_seq
  FROM shardq.destination d, LATERAL shardq.expire_subscriptions(d.id) e
 WHERE d.kind = 'topic' AND (d.max_lag IS NOT NULL OR d.max_age_seconds IS NOT NULL)

-- name: temporary_select_dead
-- Temporary destinations whose instance is dead: stopped, gone, or no heartbeat within ? seconds.
SELECT d.name
  FROM shardq.temporary_destination t
  JOIN shardq.destination d ON d.id = t.destination_id
 WHERE NOT EXISTS (SELECT 1 FROM shardq.instance i
                    WHERE i.id = t.instance_id AND i.stopped_at IS NULL
                      AND i.heartbeat_at > now() - make_interval(secs => ?))
 ORDER BY t.created_at

-- name: temporary_select_owner
-- The owner of a temporary destination (?): instance and connection; no row when it is not one.
SELECT t.instance_id, t.connection_id
  FROM shardq.temporary_destination t
  JOIN shardq.destination d ON d.id = t.destination_id
 WHERE d.name = ?

-- name: temporary_select_by_instance
SELECT d.name
  FROM shardq.temporary_destination t
  JOIN shardq.destination d ON d.id = t.destination_id
 WHERE t.instance_id = ?

-- Key/value cache (issue 11). /* TEMPLATE: kv */ is a cache's partitioned entry table,
-- shardq."kv_<id>"; times are the engine's clock in epoch ms (shardq.kv_ts). Every read filters
-- on expiry: an expired entry is never returned, whether or not its partition is reclaimed yet.

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
-- still read them) and those of dropped caches.
DELETE FROM shardq.kv_load_failure f
 WHERE f.attempt_at < clock_timestamp() - make_interval(secs => ? / 1000.0)
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

-- name: transaction_set_lock_timeout
SELECT set_config('lock_timeout', ?, true)

-- name: scheduled_insert
-- A message sent with a delivery delay, in the sending transaction (V010).
INSERT INTO shardq.scheduled_message (destination_id, deliver_at, expires_at, priority, header, body)
VALUES (?, ?, ?, ?, ?, ?)

-- name: scheduled_select_due
-- The mover's round: the due scheduled messages after its position, oldest first (index
-- scheduled_message_due). The mover deletes in this order, so the index's low end fills with dead
-- entries until vacuum; seeking past the last row moved (keyset) skips them. A full scan passes
-- (-9223372036854775808, 0), before every row.
SELECT id, destination_id, deliver_at, expires_at, priority, header, body
  FROM shardq.scheduled_message
 WHERE deliver_at <= ? AND (deliver_at, id) > (?, ?)
 ORDER BY deliver_at, id
 LIMIT ?

-- name: scheduled_next_due
-- The next due time after the mover's position (the same keyset as scheduled_select_due), if it is
-- before the bound (the mover never sleeps longer than a poll interval): the scan stops there
-- whatever it meets on the way.
SELECT deliver_at
  FROM shardq.scheduled_message
 WHERE (deliver_at, id) > (?, ?) AND deliver_at <= ?
 ORDER BY deliver_at, id
 LIMIT 1

-- name: scheduled_delete
-- In the moving transaction, with the sends: the mover checks it deleted every row it moved.
DELETE FROM shardq.scheduled_message WHERE id = ANY(?)

-- Streamed large bodies (V012). The chunks are written in the sending transaction before the
-- shard's reservation; large_body (the message a body belongs to) after it, in the same
-- transaction. The chunks' foreign key is checked at COMMIT, so a body cannot commit without its
-- message, and deleting a large_body row deletes its chunks.

-- name: large_body_next_id
SELECT nextval('shardq.large_body_id')

-- name: large_body_chunk_insert
INSERT INTO shardq.large_body_chunk (body_id, chunk_no, data) VALUES (?, ?, ?)

-- name: large_body_insert
INSERT INTO shardq.large_body (id, destination_id, shard_no, seq, size) VALUES (?, ?, ?, ?, ?)

-- name: large_body_chunk_delete
-- A topic message no subscription wanted is not stored: its chunks go in the same transaction.
DELETE FROM shardq.large_body_chunk WHERE body_id = ?

-- name: large_body_chunk_copy
-- A dead letter or an expired message moved aside gets a copy of its body (one message per body),
-- made by the server in the consuming transaction: nothing of it passes through the instance.
INSERT INTO shardq.large_body_chunk (body_id, chunk_no, data)
SELECT ?, chunk_no, data FROM shardq.large_body_chunk WHERE body_id = ?

-- name: large_body_chunk_select
-- One chunk, when a streamed body is read (one chunk on the heap at a time).
SELECT data FROM shardq.large_body_chunk WHERE body_id = ? AND chunk_no = ?

-- name: large_body_delete_slice
-- Slice retirement, in the transaction that truncates the slice: the streamed bodies of its
-- messages (their chunks by cascade).
DELETE FROM shardq.large_body WHERE destination_id = ? AND shard_no = ? AND seq BETWEEN ? AND ?

-- name: prepared_xact_select
-- XA recovery (issue 13): this database's prepared transactions whose gid starts with ? (ShardQ's
-- prefix), oldest first. pg_prepared_xacts shows those of every database of the server.
SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, ?) ORDER BY prepared

-- name: prepared_xact_max
-- 0: the server refuses PREPARE TRANSACTION (two-phase commit is off).
SELECT current_setting('max_prepared_transactions')::integer

-- name: shrink_select_draining
-- Destinations with a shrink under way (V015), for the maintenance leader's shrink steps.
SELECT id, name FROM shardq.destination WHERE draining_from IS NOT NULL ORDER BY id

-- name: shrink_step
SELECT event, shard_no FROM shardq.shrink_step(?, ?)

-- name: shard_select_fenced
-- Does a shard of the destination still have a shrink's fence (V015)?
SELECT EXISTS (SELECT 1 FROM shardq.shard WHERE destination_id = ? AND fence IS NOT NULL)
