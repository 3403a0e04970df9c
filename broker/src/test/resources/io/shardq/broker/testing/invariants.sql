-- Invariants of a ShardQ database, checked after every @PgTest class (InvariantChecker, run by
-- PgExtension before the class's database is dropped). One block per invariant:
--   "-- name: <invariant>"   its name, which a failure report leads with;
--   "-- invariant: <text>"   what must hold (one or more lines), quoted in the report;
--   "-- requires: <table>" or "<table>.<column>": the block is skipped when the schema lacks it
--                            (a test that never started a broker has no shardq schema; the
--                            draining checks need V015's columns);
--                            a block that meets an undefined table or column (a migration test
--                            stopped at an old version) is skipped as well;
--   "-- when: no_live_instance": run only when no instance is alive (see the block);
--   "-- severity: note":      rows are reported but do not fail the class (see the block).
-- A block returns one row per violation; its column labels name the facts in the report. All
-- blocks run in one REPEATABLE READ transaction (one snapshot), which is rolled back.

-- name: cursor_beyond_head
-- invariant: every cursor is at or below its shard's head (next_seq - 1): a consumer moves its
-- invariant: cursor only over messages whose enqueue committed.
-- requires: shardq.cursor
SELECT d.name AS destination, c.shard_no AS shard,
       CASE WHEN sub.name = '' THEN '(queue)' ELSE coalesce(sub.client_id || '/', '') || sub.name END AS subscription,
       c.position, s.next_seq - 1 AS head
  FROM shardq.cursor c
  JOIN shardq.shard s ON s.destination_id = c.destination_id AND s.shard_no = c.shard_no
  JOIN shardq.destination d ON d.id = c.destination_id
  JOIN shardq.subscription sub ON sub.id = c.subscription_id
 WHERE c.position > s.next_seq - 1
 ORDER BY 1, 2, 3

-- name: lease_held_by_dead_instance
-- invariant: no unexpired lease is held by an instance that stopped (or has no row): a closing
-- invariant: instance gives back every lease before it marks itself stopped, and takes no more.
-- "Dead" is only "stopped" here. An instance that died without stopping (a child JVM killed
-- with kill -9, a crash) keeps its leases until they expire by design: the lease TTL is the
-- bound for an instance that is gone or stalled, and the catalog does not record a TTL to tell
-- "heartbeat older than its TTL" from "alive with a long TTL" (each instance has its own
-- shardq.lease.ttl-ms, and a test may end before a killed child's TTL runs out). A heartbeat-
-- based rule would report the design, not a bug; when the instance registry records deaths
-- (issue 23, item 3: a session-level lock PostgreSQL releases with the JVM), add them here.
-- SKIP LOCKED: a cursor row locked by a prepared transaction (XA) keeps its stopped holder's
-- lease until it expires, by design (cursor_lease_release_all skips it the same way).
-- requires: shardq.cursor
SELECT d.name AS destination, c.shard_no AS shard,
       CASE WHEN sub.name = '' THEN '(queue)' ELSE coalesce(sub.client_id || '/', '') || sub.name END AS subscription,
       c.lease_instance AS instance, i.name AS instance_name,
       CASE WHEN i.id IS NULL THEN 'no instance row' ELSE 'stopped at ' || i.stopped_at END AS holder_state,
       c.lease_until
  FROM shardq.cursor c
  JOIN shardq.destination d ON d.id = c.destination_id
  JOIN shardq.subscription sub ON sub.id = c.subscription_id
  LEFT JOIN shardq.instance i ON i.id = c.lease_instance
 WHERE c.lease_instance IS NOT NULL AND c.lease_until > now()
   AND (i.id IS NULL OR i.stopped_at IS NOT NULL)
 ORDER BY 1, 2, 3
   FOR UPDATE OF c SKIP LOCKED

-- name: shard_owned_by_dead_instance
-- invariant: no shard is owned for enqueue by an instance that stopped (or has no row): a
-- invariant: closing instance gives its shards back before it marks itself stopped.
-- "Dead" and SKIP LOCKED as for leases (shard_release_owner skips a shard row a prepared
-- transaction's send holds; shard_claim_owner takes such shards from a dead owner).
-- requires: shardq.shard
SELECT d.name AS destination, s.shard_no AS shard, s.owner_instance AS instance, i.name AS instance_name,
       CASE WHEN i.id IS NULL THEN 'no instance row' ELSE 'stopped at ' || i.stopped_at END AS holder_state
  FROM shardq.shard s
  JOIN shardq.destination d ON d.id = s.destination_id
  LEFT JOIN shardq.instance i ON i.id = s.owner_instance
 WHERE s.owner_instance IS NOT NULL AND (i.id IS NULL OR i.stopped_at IS NOT NULL)
 ORDER BY 1, 2
   FOR UPDATE OF s SKIP LOCKED

-- name: dequeue_range_at_or_below_cursor
-- invariant: no dequeue-log run lies wholly at or below its cursor: the commit that moves a
-- invariant: cursor over logged runs deletes them in the same statement.
-- (A run the cursor is inside of is allowed: topic expiry moves a cursor to any sequence number
-- and deletes only the runs it passed whole; dequeue_range_select reads the rest correctly.)
-- requires: shardq.dequeue_range
SELECT d.name AS destination, r.shard_no AS shard,
       CASE WHEN sub.name = '' THEN '(queue)' ELSE coalesce(sub.client_id || '/', '') || sub.name END AS subscription,
       r.first_seq, r.last_seq, c.position
  FROM shardq.dequeue_range r
  JOIN shardq.cursor c ON c.subscription_id = r.subscription_id AND c.shard_no = r.shard_no
  JOIN shardq.destination d ON d.id = c.destination_id
  JOIN shardq.subscription sub ON sub.id = c.subscription_id
 WHERE r.last_seq <= c.position
 ORDER BY 1, 2, 3, 4

-- name: needed_slice_retired
-- invariant: every message some cursor still needs is stored: on each shard the sequence
-- invariant: numbers from the lowest cursor + 1 to the head are covered by assigned slices, and
-- invariant: their rows are in the shard's table (a slice retired, truncated or freed too early
-- invariant: loses messages silently).
-- Slices never overlap (shardq.slice's UNIQUE and assign_slice under the shard row lock), so
-- the sum of their overlaps with the needed range is the number of needed sequence numbers
-- they hold. The rows are counted through query_to_xml because the table name is dynamic
-- (shardq.m_<destination id>, built from the numeric id only). Joins, not correlated subqueries,
-- so that it runs on a Citus coordinator too.
-- requires: shardq.cursor
WITH need AS (
    SELECT c.destination_id, c.shard_no, min(c.position) AS lowest, s.next_seq - 1 AS head
      FROM shardq.cursor c
      JOIN shardq.shard s ON s.destination_id = c.destination_id AND s.shard_no = c.shard_no
     GROUP BY c.destination_id, c.shard_no, s.next_seq
    HAVING min(c.position) < s.next_seq - 1),
in_slices AS (
    SELECT n.destination_id, n.shard_no,
           coalesce(sum(least(sl.last_seq, n.head) - greatest(sl.first_seq, n.lowest + 1) + 1), 0)::bigint AS in_slices
      FROM need n
      LEFT JOIN shardq.slice sl
             ON sl.destination_id = n.destination_id AND sl.shard_no = n.shard_no
            AND sl.first_seq IS NOT NULL AND sl.first_seq <= n.head AND sl.last_seq > n.lowest
     GROUP BY n.destination_id, n.shard_no),
counted AS (
    SELECT n.*, i.in_slices,
           (xpath('/row/n/text()', query_to_xml(format(
                'SELECT count(*) AS n FROM shardq.%I WHERE shard_no = %s AND seq > %s AND seq <= %s',
                'm_' || n.destination_id, n.shard_no, n.lowest, n.head), false, true, '')))[1]::text::bigint AS rows_stored
      FROM need n JOIN in_slices i ON i.destination_id = n.destination_id AND i.shard_no = n.shard_no),
holders AS (
    SELECT x.destination_id, x.shard_no,
           string_agg(CASE WHEN sub.name = '' THEN '(queue)' ELSE coalesce(sub.client_id || '/', '') || sub.name END, ', ') AS subscription
      FROM counted x
      JOIN shardq.cursor c ON c.destination_id = x.destination_id AND c.shard_no = x.shard_no AND c.position = x.lowest
      JOIN shardq.subscription sub ON sub.id = c.subscription_id
     GROUP BY x.destination_id, x.shard_no)
SELECT d.name AS destination, x.shard_no AS shard, h.subscription,
       x.lowest AS lowest_cursor, x.head, x.head - x.lowest AS needed, x.in_slices, x.rows_stored
  FROM counted x
  JOIN shardq.destination d ON d.id = x.destination_id
  LEFT JOIN holders h ON h.destination_id = x.destination_id AND h.shard_no = x.shard_no
 WHERE x.in_slices < x.head - x.lowest OR x.rows_stored < x.head - x.lowest
 ORDER BY 1, 2

-- name: slices_overlap
-- invariant: the assigned slices of a shard never overlap (assign_slice runs under the shard
-- invariant: row lock); needed_slice_retired counts sequence numbers on that premise.
-- requires: shardq.slice
SELECT d.name AS destination, a.shard_no AS shard, a.slot, a.first_seq, a.last_seq,
       b.slot AS other_slot, b.first_seq AS other_first_seq, b.last_seq AS other_last_seq
  FROM shardq.slice a
  JOIN shardq.slice b ON b.destination_id = a.destination_id AND b.shard_no = a.shard_no AND b.slot > a.slot
  JOIN shardq.destination d ON d.id = a.destination_id
 WHERE a.first_seq IS NOT NULL AND b.first_seq IS NOT NULL
   AND a.first_seq <= b.last_seq AND b.first_seq <= a.last_seq
 ORDER BY 1, 2, 4

-- name: passed_slice_retained
-- invariant: once the fleet is gone, no slice that every cursor of its shard has passed is
-- invariant: still assigned.
-- A note, never a failure. Retirement is asynchronous: a cursor crossing the end of a slice
-- triggers the maintenance leader's round, and a new leader scans every destination when it is
-- elected. So while an instance is alive a passed slice is work not done yet (the block does not
-- even run then: "alive" is not stopped and a heartbeat within a minute, so a killed child JVM's
-- recent heartbeat counts), and even with the fleet gone it may be a crossing the leader had
-- not reached when its class closed the broker (stop does not drain the pending rounds; the
-- next leader's scan retires it, so nothing is lost or leaked). The catalog keeps no time of a
-- cursor's moves to tell that race from a retirement that never came, and a check that fails on
-- a race is worse than none: the rows are reported with a failure's report and in the verbose
-- output (-Dshardq.test.invariants.verbose=true) for a reader to weigh.
-- severity: note
-- requires: shardq.slice
-- when: no_live_instance
SELECT d.name AS destination, sl.shard_no AS shard, sl.slot, sl.first_seq, sl.last_seq, c.lowest AS lowest_cursor
  FROM shardq.slice sl
  JOIN (SELECT destination_id, shard_no, min(position) AS lowest FROM shardq.cursor GROUP BY destination_id, shard_no) c
    ON c.destination_id = sl.destination_id AND c.shard_no = sl.shard_no
  JOIN shardq.destination d ON d.id = sl.destination_id
 WHERE sl.first_seq IS NOT NULL AND sl.last_seq <= c.lowest
 ORDER BY 1, 2, 4

-- name: draining_shard_receiving_enqueues
-- invariant: no draining shard receives enqueues (V015: a shrink): no instance owns a draining
-- invariant: shard for enqueue, and nothing was enqueued on it after it began to drain (its head
-- invariant: is still its drain head; the shard_draining_frozen CHECK refuses such an enqueue).
-- requires: shardq.shard.drain_head
SELECT d.name AS destination, s.shard_no AS shard, s.owner_instance, s.drain_head, s.next_seq - 1 AS head
  FROM shardq.shard s
  JOIN shardq.destination d ON d.id = s.destination_id
 WHERE s.drain_head IS NOT NULL AND (s.owner_instance IS NOT NULL OR s.next_seq - 1 <> s.drain_head)
 ORDER BY 1, 2

-- name: shards_match_count
-- invariant: a destination's shards are numbered 0 to shard_count - 1 (a shrink retires from the
-- invariant: highest down), the draining ones are exactly those from draining_from up, and a fence
-- invariant: stands only on an active shard of a destination that still has draining shards.
-- requires: shardq.destination.draining_from
SELECT d.name AS destination, d.shard_count, d.draining_from,
       count(s.shard_no) AS shard_rows, max(s.shard_no) AS highest,
       count(*) FILTER (WHERE s.drain_head IS NOT NULL) AS draining,
       count(*) FILTER (WHERE s.fence IS NOT NULL) AS fenced
  FROM shardq.destination d
  LEFT JOIN shardq.shard s ON s.destination_id = d.id
 GROUP BY d.id, d.name, d.shard_count, d.draining_from
HAVING count(s.shard_no) <> d.shard_count
    OR coalesce(max(s.shard_no), -1) <> d.shard_count - 1
    OR count(*) FILTER (WHERE s.drain_head IS NOT NULL)
       <> count(*) FILTER (WHERE s.shard_no >= coalesce(d.draining_from, d.shard_count))
    OR count(*) FILTER (WHERE s.fence IS NOT NULL AND (d.draining_from IS NULL OR s.shard_no >= d.draining_from)) > 0
 ORDER BY 1

-- name: no_live_instance
-- (not an invariant: the condition of "-- when: no_live_instance")
SELECT NOT EXISTS (SELECT 1 FROM shardq.instance
                    WHERE stopped_at IS NULL AND heartbeat_at > now() - interval '60 seconds')
