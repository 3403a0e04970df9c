-- Large bodies (shardq.large_body, shardq.large_body_chunk): bodies stored apart from their message
-- row.
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter; a /* TEMPLATE: ... */ slot takes only an
-- identifier built from numeric catalog ids (Queries), always quoted. The build generates the
-- enum io.shardq.broker.internal.Query from these names (src/build/QueryNames.java), so a misspelt
-- name fails compilation; QueriesTest PREPAREs every statement against the migrated schema.

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
