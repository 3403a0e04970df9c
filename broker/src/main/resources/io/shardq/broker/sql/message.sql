-- Messages (the leaves shardq."m_<destination>_<shard>_<slot>"): enqueue, read-ahead, browse.
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter; a /* TEMPLATE: ... */ slot takes only an
-- identifier built from numeric catalog ids (Queries), always quoted. The build generates the
-- enum io.shardq.broker.internal.Query from these names (src/build/QueryNames.java), so a misspelt
-- name fails compilation; QueriesTest PREPAREs every statement against the migrated schema.

-- name: message_insert
INSERT INTO /* TEMPLATE: leaf */ (shard_no, slot, seq, enqueued_at, deliver_at, expires_at, priority, subscribers, header, body, properties)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)

-- name: message_insert_rows
-- Several rows of one leaf in one statement, each row all its columns (Queries.insertRows): the
-- send on Citus after shard_reserve, which Citus routes whole to the shard's worker (the
-- statement-per-row batch of message_insert was a remote statement per message there).
INSERT INTO /* TEMPLATE: leaf */ (shard_no, slot, seq, enqueued_at, deliver_at, expires_at, priority, subscribers, header, body, properties)
VALUES /* TEMPLATE: full_rows */

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
INSERT INTO /* TEMPLATE: leaf */ (shard_no, slot, seq, enqueued_at, deliver_at, expires_at, priority, subscribers, header, body, properties)
SELECT ?, ?, v.seq, v.enq, v.dlv, v.exp, v.prio, v.subs, v.header, v.body, v.props
  FROM (VALUES /* TEMPLATE: rows */) AS v (seq, enq, dlv, exp, prio, subs, header, body, props)
 WHERE EXISTS (SELECT 1 FROM r)
RETURNING (SELECT notified FROM r), (SELECT fence FROM r)

-- name: message_insert_reserving_part
-- One shard's part of a several-shard enqueue (SendCommitter with shardq.commit.shared-sends): the
-- two statements of message_insert_reserving as data-modifying CTEs r_N and i_N (N: the part's
-- number), joined with the other shards' parts into one statement, one round trip and one commit.
-- A part whose guess was wrong (r_N updates nothing) inserts nothing and the others still commit.
-- The statement ends with one row per part: SELECT /* TEMPLATE: part */, (SELECT count(*) FROM r_N), (SELECT notified
-- FROM r_N), (SELECT fence FROM r_N), joined by UNION ALL (Enqueue.insertReservingTogether; a
-- data-modifying CTE runs to completion whether or not the final SELECT reads it).
r_N AS (
    UPDATE shardq.shard
       SET next_seq = next_seq + ?, waiter = NULL, notified = waiter
     WHERE destination_id = ? AND shard_no = ? AND next_seq = ? AND sub_version = ?
    RETURNING notified, fence),
i_N AS (
    INSERT INTO /* TEMPLATE: leaf */ (shard_no, slot, seq, enqueued_at, deliver_at, expires_at, priority, subscribers, header, body, properties)
    SELECT ?, ?, v.seq, v.enq, v.dlv, v.exp, v.prio, v.subs, v.header, v.body, v.props
      FROM (VALUES /* TEMPLATE: rows */) AS v (seq, enq, dlv, exp, prio, subs, header, body, props)
     WHERE EXISTS (SELECT 1 FROM r_N)
    RETURNING 1)

-- name: message_select_range
-- Read-ahead on a cache miss: rows first..last of one slot (its shard named too, which one server
-- reads as a filter on a constant column and Citus as the route to the one worker holding it), a body only when it is at most ?
-- bytes (octet_length reads the length, not the TOASTed value, so a large body is never read
-- here), and no more rows once the headers and bodies before a row reach ? bytes (the first row
-- always comes). A message sent from SQL (header version 3) has its properties only in the
-- properties column, which comes with it (sql_properties); others' are in the header.
SELECT seq, enqueued_at, deliver_at, expires_at, priority, header, body, body_size, subscribers, sql_properties
  FROM (SELECT m.*, sum(octet_length(m.header) + coalesce(octet_length(m.body), 0)) OVER (ORDER BY m.seq) AS upto
          FROM (SELECT seq, enqueued_at, deliver_at, expires_at, priority, header, subscribers,
                       CASE WHEN get_byte(header, 0) = 3 THEN properties::text END AS sql_properties,
                       CASE WHEN octet_length(body) <= ? THEN body END AS body, octet_length(body) AS body_size
                  FROM /* TEMPLATE: leaf */ WHERE shard_no = ? AND seq BETWEEN ? AND ?) m) r
 WHERE upto - octet_length(header) - coalesce(octet_length(body), 0) < ?
 ORDER BY seq

-- name: message_select_priorities
-- Priority ordering's look ahead on a cache miss: of the rows first..last of one slot, those whose
-- priority is not the default (4). Nothing else is read: no header, no body.
SELECT seq, priority FROM /* TEMPLATE: leaf */ WHERE shard_no = ? AND seq BETWEEN ? AND ? AND priority <> 4 ORDER BY seq

-- name: message_select_body
-- A large body, read when its message is delivered.
SELECT body FROM /* TEMPLATE: leaf */ WHERE shard_no = ? AND seq = ?

-- name: message_select_browse_page
-- One page of a browse cursor on one shard (?): the rows after the page before (?) and after the
-- consumer cursor (a scalar subquery, so the bound is an index condition on seq), up to the head
-- the browse started at (?), that no selective consumer took (dequeue log); at most ? rows, and
-- only as many as fit in ? bytes of header and body (the row that crosses the bound is kept, so a
-- page always moves on). The LIMIT is applied before the running sum, so a page never sums more
-- than its own rows. With a selector PostgreSQL evaluates (SelectorSql), only the sequence numbers
-- it may select (the array; NULL: every row), so the rows it skips are never read into the JVM.
SELECT p.seq, p.enqueued_at, p.deliver_at, p.expires_at, p.priority, p.header, p.body, p.sql_properties
  FROM (SELECT w.*, sum(w.size) OVER (ORDER BY w.seq) AS upto
          FROM (SELECT m.seq, m.enqueued_at, m.deliver_at, m.expires_at, m.priority, m.header, m.body,
                       CASE WHEN get_byte(m.header, 0) = 3 THEN m.properties::text END AS sql_properties,
                       octet_length(m.header)::bigint + octet_length(m.body) AS size
                  FROM /* TEMPLATE: parent */ m
                 WHERE m.shard_no = ?::integer
                   AND m.seq > greatest(?::bigint, (SELECT c.position FROM shardq.cursor c
                                                     WHERE c.subscription_id = ?::bigint AND c.shard_no = ?::integer))
                   AND m.seq <= ?::bigint
                   AND NOT EXISTS (SELECT 1 FROM shardq.dequeue_range l
                                    WHERE l.subscription_id = ?::bigint AND l.shard_no = m.shard_no
                                      AND l.first_seq <= m.seq AND l.last_seq >= m.seq)
                   AND (?::bigint[] IS NULL OR m.seq = ANY(?::bigint[]))
                 ORDER BY m.seq
                 LIMIT ?) w) p
 WHERE p.upto - p.size < ?
 ORDER BY p.seq

-- name: message_wake_many
-- Wake-ups an XA transaction deferred to after its commit: one NOTIFY per "<destination>/<shard>".
SELECT pg_notify('shardq_wake', p) FROM unnest(?::text[]) p

-- name: message_wake
-- Wakes the instance waiting on a shard ("<destination>/<shard>"), sent at the enqueue's commit.
SELECT pg_notify('shardq_wake', ?)

-- name: message_insert_reserving_together
-- Several shards' enqueues in one statement: the CTEs of each part (message_insert_reserving_part,
-- numbered _0, _1, ...) in place of the parts slot, then one row per part in place of the results
-- slot (message_insert_reserving_together_result each), joined by UNION ALL.
WITH /* TEMPLATE: parts */
/* TEMPLATE: results */

-- name: message_insert_reserving_together_result
-- Part _N's outcome: its number, rows reserved, the waiter to notify, the fence.
SELECT /* TEMPLATE: part */, (SELECT count(*) FROM r_N), (SELECT notified FROM r_N), (SELECT fence FROM r_N)

-- name: message_selector_translate
-- A selector as a SQL condition over a message row m (shardq.selector_sql), for
-- message_select_candidates: its literals as l.a, JMSMessageID and JMSTimestamp as j.id and j.ts.
SELECT sql, literal_values FROM shardq.selector_sql(?, 'm.properties', 'm.priority', 'l.a', 'j.id', 'j.ts')

-- name: message_select_candidates
-- The sequence numbers ?..? of shard ? that a selector may select (SelectorSql): rows written before
-- the properties column (shard.properties_from) or marked unrepresentable come through for the
-- JVM to judge. The condition slot takes only message_selector_translate's output (function calls
-- and references to l.a, the literals bound as the first parameter), never a selector's text; the
-- header fields j are read only when the condition names them.
SELECT m.seq FROM /* TEMPLATE: parent */ m
 CROSS JOIN (SELECT ?::text[] AS a) l
 CROSS JOIN LATERAL (SELECT shardq.header_message_id(m.header) AS id, shardq.header_timestamp(m.header) AS ts) j
 WHERE m.shard_no = ? AND m.seq BETWEEN ? AND ?
   AND (m.seq < (SELECT s.properties_from FROM shardq.shard s WHERE s.destination_id = ? AND s.shard_no = ?)
        OR jsonb_exists(m.properties, 'JMS_ShardQ_Unrepresentable') OR (/* TEMPLATE: condition */))
 ORDER BY m.seq
