-- Scheduled messages (shardq.scheduled_message): delivery delay, waiting for their time.
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter; a /* TEMPLATE: ... */ slot takes only an
-- identifier built from numeric catalog ids (Queries), always quoted. The build generates the
-- enum io.shardq.broker.internal.Query from these names (src/build/QueryNames.java), so a misspelt
-- name fails compilation; QueriesTest PREPAREs every statement against the migrated schema.

-- name: scheduled_insert
-- A message sent with a delivery delay, in the sending transaction (V010).
INSERT INTO shardq.scheduled_message (destination_id, deliver_at, expires_at, priority, header, body)
VALUES (?, ?, ?, ?, ?, ?)

-- name: scheduled_select_due
-- The mover's round: the due scheduled messages after its position, oldest first (index
-- scheduled_message_due). The mover deletes in this order, so the index's low end fills with dead
-- entries until vacuum; seeking past the last row moved (keyset) skips them. A full scan passes
-- (-9223372036854775808, 0), before every row.
SELECT id, destination_id, deliver_at, expires_at, priority, header, body, properties::text
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
